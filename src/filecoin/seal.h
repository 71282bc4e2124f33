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

/* A Merkle tree kept whole: its levels' nodes, the leaves first. */
typedef struct fc_tree {
    int hash; /* FC_TREE_* */
    unsigned n_levels; /* above the leaves */
    unsigned arity[FC_PATH_MAX];
    uint64_t count[FC_PATH_MAX + 1];
    unsigned char (*node[FC_PATH_MAX + 1])[32];
} fc_tree;

int fc_tree_build(fc_tree *t, int hash, const unsigned char (*leaves)[32], uint64_t n, const unsigned *arity,
                  unsigned n_levels, cuzk_error *err);
void fc_tree_free(fc_tree *t);
const unsigned char *fc_tree_root(const fc_tree *t);
/* The path of leaf i (leaf and root filled). */
int fc_tree_path(const fc_tree *t, uint64_t i, fc_path *out, cuzk_error *err);

typedef struct fc_sealed {
    const fc_porep_config *config;
    unsigned char prover_id[32], ticket[32], replica_id[32];
    uint64_t sector_id;
    unsigned char (*data)[32];   /* nodes */
    unsigned char (*labels)[32]; /* layers x nodes, layer 1 first */
    fc_tree tree_d, tree_c, tree_r;
    unsigned char comm_d[32], comm_c[32], comm_r_last[32], comm_r[32];
} fc_sealed;

/* Seals nodes x 32 bytes of data (each node below 2^254). */
int fc_seal(const fc_porep_config *c, const unsigned char (*data)[32], const unsigned char prover_id[32],
            uint64_t sector_id, const unsigned char ticket[32], fc_sealed *out, cuzk_error *err);
void fc_sealed_free(fc_sealed *s);
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
