/* Poseidon over BLS12-381's scalar field as Filecoin hashes with it:
 * neptune 11's permutation (x^5, 8 full rounds, 55/56/57/57/59/59/60
 * partial rounds for arities 2/4/8/11/16/24/36), its Grain-LFSR round
 * constants and Cauchy MDS matrix, the MerkleTree domain tag 2^arity - 1
 * as state element 0, the output state element 1. The hash and the
 * circuit both run neptune's optimized form (round constants compressed
 * through the inverse MDS matrix, the partial rounds' matrices factored
 * into sparse ones), so the circuit is neptune's "legacy" circuit that
 * rust-fil-proofs synthesizes, variable for variable: 3 constraints an
 * input's first S-box, 4 every later S-box, 1 the output
 * (3a + 4(7t + RP) + 1: 311 for arity 2, 598 for 11).
 *
 * Every constant is derived on first use of an arity, as neptune derives
 * it (nothing tabulated but the partial rounds' count). */
#ifndef CUZK_FILECOIN_POSEIDON_H
#define CUZK_FILECOIN_POSEIDON_H

#include "../cs/num.h"

typedef struct poseidon_consts poseidon_consts;

/* The MerkleTree constants of an arity (2, 4, 8, 11, 16, 24 or 36), made
 * on first use; NULL for another arity or when memory runs out.
 * Thread-safe. */
const poseidon_consts *poseidon_merkle(unsigned arity);
unsigned poseidon_arity(const poseidon_consts *c);

/* The hash of arity elements (Montgomery form). */
void poseidon_hash(const poseidon_consts *c, const fr *in, fr *out);
/* The same in a circuit: the inputs are the caller's variables. */
cs_num poseidon_circuit(cs_system *cs, const poseidon_consts *c, const cs_num *in);

/* The plain permutation (round keys added to all of the state before
 * every S-box layer, the full MDS product every round): the reference
 * the optimized hash is checked against. */
void poseidon_hash_plain(const poseidon_consts *c, const fr *in, fr *out);

#endif
