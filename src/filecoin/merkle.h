/* Merkle inclusion paths of Filecoin's trees: tree D (binary, SHA-256
 * trimmed to 254 bits) and trees C and R (Poseidon, base arity 8 with an
 * optional sub level of 8 or 4 and top level of 2). A path lists, from the
 * leaf's level up, each level's arity, the node's position among its
 * siblings and the siblings left to right without it (rust-fil-proofs'
 * InclusionPath); a SHA-256 level hashes its children's 32-byte values
 * concatenated. The leaf's index is the positions read as digits of
 * their arities, the lowest level first. */
#ifndef CUZK_FILECOIN_MERKLE_H
#define CUZK_FILECOIN_MERKLE_H

#include <stdint.h>

#include "../../include/cuzk.h"

#define FC_PATH_MAX 40 /* levels: tree D of a 64 GiB sector has 31 */

enum { FC_TREE_SHA256, FC_TREE_POSEIDON };

typedef struct fc_path_level {
    uint8_t arity, index;
    uint32_t sib; /* its siblings' offset in fc_path.sib */
} fc_path_level;

typedef struct fc_path {
    unsigned n;
    fc_path_level level[FC_PATH_MAX];
    unsigned char (*sib)[32];
    uint32_t n_sib;
    unsigned char leaf[32], root[32];
} fc_path;

/* Appends a level of that arity (2, 4 or 8), position and arity - 1
 * siblings. CUZK_ERR_FORMAT for a bad arity or position, or a path longer
 * than FC_PATH_MAX; CUZK_ERR_NO_MEMORY. */
int fc_path_push(fc_path *p, unsigned arity, unsigned index, const unsigned char (*sib)[32], cuzk_error *err);
/* Appends src's levels to dst (leaf and root untouched). */
int fc_path_append(fc_path *dst, const fc_path *src, cuzk_error *err);
void fc_path_free(fc_path *p);

/* The root the path leads to from its leaf. CUZK_ERR_NOT_CANONICAL when a
 * Poseidon tree's node is not a field element; CUZK_ERR_FORMAT for an
 * arity the tree's hash does not have. */
int fc_path_root(const fc_path *p, int tree, unsigned char root[32], cuzk_error *err);
/* The leaf's index. */
uint64_t fc_path_index(const fc_path *p);

#endif
