/* Merkle inclusion in a circuit, as rust-fil-proofs' por.rs builds it:
 * per level (the leaf's first) the position's bits allocated (log2 of the
 * arity, low bit first), then the siblings, then the node inserted among
 * them (insertion.rs: 2, 8 and 22 constraints for arities 2, 4 and 8) and
 * the level hashed (Poseidon of the arity; or, for tree D, SHA-256 of the
 * children's bits trimmed to 254 bits: hash_multi_leaf_circuit); then the
 * path's bits packed into one public input and the computed root enforced
 * equal to the root. */
#ifndef CUZK_FILECOIN_POR_H
#define CUZK_FILECOIN_POR_H

#include "merkle.h"
#include "../cs/num.h"

/* The node among its arity - 1 siblings at the position the bits give
 * (low bit first; arity 2, 4 or 8), out[arity] (insert). */
void fc_insert(cs_system *cs, const cs_num *node, const cs_bool *bits, const cs_num *siblings, unsigned arity,
               cs_num *out);
/* One level's hash of n children: Poseidon of arity n, or for tree D
 * SHA-256 of the children's 256-bit encodings (hash_multi_leaf_circuit). */
cs_num fc_tree_hash_circuit(cs_system *cs, int tree, const cs_num *children, unsigned n);

/* The inclusion of leaf under root along path (its levels' arities fix
 * the structure; its positions and siblings are the values): the
 * enforce_inclusion of the stacked circuit (root private), or with
 * public_root the root made an input too (PoRCircuit with private false).
 * A NULL root is allocated after the path's bits, its value path->root
 * (PoRCircuit's Root::Val). Returns the computed root. */
cs_num fc_por(cs_system *cs, int tree, const fc_path *path, const cs_num *leaf, const cs_num *root, int public_root);

#endif
