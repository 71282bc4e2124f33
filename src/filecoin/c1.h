/* The C1 output: what a storage provider hands a C2 prover
 * (SealCommitPhase1Output as filecoin-ffi writes it with serde_json, or
 * Curio's wrapper {"SectorNum","Phase1Out":base64 of it,"SectorSize"}):
 * the registered proof, the partitions' vanilla proofs (per challenge the
 * data leaf's path in tree D, the replica node's in tree R, the challenged
 * column and the 14 parents' columns with their paths in tree C, the
 * labelling proofs of each layer and the encoding proof), comm_r, comm_d,
 * replica_id, seed and ticket. 32-byte values are JSON arrays of 32
 * numbers.
 *
 * Read without building a tree of the JSON (a 32 GiB sector's is tens of
 * MB), then checked before anything is proved: every path leads to its
 * root (comm_d; tree R's and C's roots hash to comm_r), every label is
 * recomputed from its parents, every column hashes to its leaf, the
 * challenges and the parents are those the seed and the graph give, the
 * encoding holds. An error names the partition, the challenge and the
 * field. */
#ifndef CUZK_FILECOIN_C1_H
#define CUZK_FILECOIN_C1_H

#include <stdio.h>

#include "porep.h"
#include "seal.h"

typedef struct fc_c1_challenge {
    fc_challenge_proof p; /* the circuit's witness: paths and columns */
    uint64_t c_x_index, drg_index[FC_DRG_PARENTS], exp_index[FC_EXP_PARENTS];
    fr c_x_rows[FC_MAX_LAYERS];
    unsigned char label_parents[FC_MAX_LAYERS][37][32];
    uint64_t label_layer[FC_MAX_LAYERS], label_node[FC_MAX_LAYERS];
    unsigned char enc_parents[37][32];
    uint64_t enc_layer, enc_node;
} fc_c1_challenge;

typedef struct fc_c1 {
    const fc_porep_config *config;
    unsigned char comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    unsigned partitions, challenges;
    fc_c1_challenge *ch; /* partitions x challenges */
    size_t n_alloc;      /* slots of ch */
} fc_c1;

/* Reads a C1 output (either form) of len bytes; name names it in
 * messages. CUZK_ERR_FORMAT naming the byte and the field's JSON path. */
int fc_c1_read(const char *text, size_t len, const char *name, fc_c1 *out, cuzk_error *err);
void fc_c1_free(fc_c1 *c);
/* Every check above; CUZK_ERR_INVALID_ARGUMENT naming what is wrong. */
int fc_c1_check(const fc_c1 *c, cuzk_error *err);
/* Partition k's circuit witness (the paths and columns copied). */
int fc_c1_partition(const fc_c1 *c, unsigned k, fc_stacked_partition *out, cuzk_error *err);
/* A sealed sector's C1 output for a seed, in serde_json's form. */
int fc_c1_write(FILE *f, const fc_sealed *s, const unsigned char seed[32], cuzk_error *err);

#endif
