/* Test sealing of small sectors, in memory: PC1 (the SDR labels of every
 * layer), PC2 (tree D over the data, tree C over the columns' hashes,
 * tree R over the replica: the last layer's labels plus the data), and C1
 * (a partition's challenges with their paths and columns) - the inputs
 * the tests and benchmarks prove from. Memory: (layers + 3) x the sector,
 * so for sizes up to 512 MiB. */
#ifndef CUZK_FILECOIN_SEAL_H
#define CUZK_FILECOIN_SEAL_H

#include "merkle.h"
#include "porep.h"

/* A Merkle tree kept whole (its levels' nodes, the leaves first), or
 * sparse: only the nodes on the paths of some listed leaves are kept, with
 * their indexes, every other node is dflt(level, index) - a sector too
 * large to hold whose untouched nodes take made-up values, each path still
 * hashing to the root. */
typedef void (*fc_tree_default_fn)(const void *ctx, unsigned level, uint64_t index, unsigned char out[32]);

typedef struct fc_tree {
    int hash; /* FC_TREE_* */
    unsigned n_levels; /* above the leaves */
    unsigned arity[FC_PATH_MAX];
    uint64_t count[FC_PATH_MAX + 1];  /* a level's nodes */
    uint64_t kept[FC_PATH_MAX + 1];   /* sparse: the nodes kept of a level */
    uint64_t *index[FC_PATH_MAX + 1]; /* sparse: their indexes, ascending; NULL when whole */
    unsigned char (*node[FC_PATH_MAX + 1])[32];
    fc_tree_default_fn dflt;
    void *dflt_ctx; /* its copy of the context */
    unsigned char root[32];
} fc_tree;

int fc_tree_build(fc_tree *t, int hash, const unsigned char (*leaves)[32], uint64_t n, const unsigned *arity,
                  unsigned n_levels, cuzk_error *err);
/* A sparse tree of n leaves: the n_listed leaves at the ascending indexes
 * idx hold leaves[]; dflt, with a copy of the ctx_len bytes at ctx, gives
 * every other node. */
int fc_tree_build_sparse(fc_tree *t, int hash, const uint64_t *idx, const unsigned char (*leaves)[32],
                         size_t n_listed, uint64_t n, const unsigned *arity, unsigned n_levels,
                         fc_tree_default_fn dflt, const void *ctx, size_t ctx_len, cuzk_error *err);
void fc_tree_free(fc_tree *t);
const unsigned char *fc_tree_root(const fc_tree *t);
/* The path of leaf i (leaf and root filled). */
int fc_tree_path(const fc_tree *t, uint64_t i, fc_path *out, cuzk_error *err);

typedef struct fc_sealed {
    const fc_porep_config *config;
    unsigned char prover_id[32], ticket[32], replica_id[32];
    uint64_t sector_id;
    unsigned char (*data)[32];   /* nodes; NULL: a sparse sector (its data all zero) */
    unsigned char (*labels)[32]; /* layers x nodes, layer 1 first; sparse: layers x n_chal */
    uint64_t *chal;              /* sparse: the challenged nodes, ascending, whose labels are kept */
    size_t n_chal;
    unsigned char label_key[32]; /* sparse: every other label is a hash of it, the layer and the node */
    fc_tree tree_d, tree_c, tree_r;
    unsigned char comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
} fc_sealed;

/* Seals nodes x 32 bytes of data (each node below 2^254). */
int fc_seal(const fc_porep_config *c, const unsigned char (*data)[32], const unsigned char prover_id[32],
            uint64_t sector_id, const unsigned char ticket[32], fc_sealed *out, cuzk_error *err);
/* A sparse sector for a seed (interactive proofs only: the others'
 * challenges depend on comm_r, which depends on the challenged nodes here):
 * its data all zero (a committed-capacity sector: tree D is the empty
 * sector's), the labels of the challenged nodes computed from their
 * parents' in every layer, every other label and every tree node off the
 * challenged paths made up (hashes of the replica_id, the place and a tag),
 * trees C and R kept only along the paths a C1 output shows. Its C1 output
 * passes every check fc_c1_check makes, at any sector size, in kilobytes
 * of memory. */
int fc_seal_sparse(const fc_porep_config *c, const unsigned char prover_id[32], uint64_t sector_id,
                   const unsigned char ticket[32], const unsigned char seed[32], fc_sealed *out, cuzk_error *err);
void fc_sealed_free(fc_sealed *s);
/* A node's label in a layer (1-based), whole or sparse. */
void fc_sealed_label(const fc_sealed *s, unsigned layer, uint64_t node, unsigned char out[32]);
/* A node's label in a layer (1-based): trim(SHA-256(replica_id, layer
 * and node big-endian, 20 zero bytes, the 37 parents' labels)); node 0
 * hashes no parents (parents NULL). */
void fc_label_hash(const unsigned char replica_id[32], unsigned layer, uint64_t node,
                   const unsigned char (*parents)[32], unsigned char out[32]);
/* Partition k's circuit witness for a seed: the challenges' paths and
 * columns (the C1 output's content). */
int fc_sealed_partition(const fc_sealed *s, const unsigned char seed[32], unsigned k, fc_stacked_partition *out,
                        cuzk_error *err);

#endif
