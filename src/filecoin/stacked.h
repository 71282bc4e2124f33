/* Filecoin's PoRep circuit (rust-fil-proofs' StackedCircuit), one
 * partition: the replica id, comm_d and comm_r public; comm_c and
 * comm_r_last private, Poseidon2(comm_c, comm_r_last) = comm_r; then per
 * challenge the data leaf's path in tree D, the 6 DRG and 8 expander
 * parents' columns hashed with their paths in tree C, the challenge as a
 * 64-bit input, each layer's label (create_label over the parents'
 * labels: those of the DRG parents in its layer, those of the expander
 * parents in the layer below), the last label plus the data leaf (the
 * replica's node) with its path in tree R, and the challenged column's
 * labels hashed with its path in tree C. Variables and constraints in
 * rust-fil-proofs' order: the circuit its .params keys were made for.
 *
 * Public inputs (with ONE): 4 + 18 a challenge (328 for a 32 GiB
 * partition of 18 challenges). */
#ifndef CUZK_FILECOIN_STACKED_H
#define CUZK_FILECOIN_STACKED_H

#include "merkle.h"
#include "../cs/cs.h"

#define FC_DRG_PARENTS 6
#define FC_EXP_PARENTS 8
#define FC_MAX_LAYERS 11

/* The shape of a partition's circuit. */
typedef struct fc_porep_shape {
    uint64_t nodes;      /* the sector's 32-byte nodes, a power of two */
    unsigned layers;     /* 2 or 11: the column hash's Poseidon arity */
    unsigned challenges; /* a partition's */
    unsigned arity[3];   /* trees R and C: base, sub, top (0: none) */
} fc_porep_shape;

/* A column of labels (a node's label in each layer, the first layer's
 * first) with its path in tree C. */
typedef struct fc_column_proof {
    fr rows[FC_MAX_LAYERS];
    fc_path path;
} fc_column_proof;

typedef struct fc_challenge_proof {
    uint64_t challenge;
    fc_path comm_d_path;      /* tree D; its leaf is the data node */
    fc_path comm_r_last_path; /* tree R; its leaf the replica's node */
    fc_path comm_c_path;      /* tree C, the challenged column's hash */
    fc_column_proof drg[FC_DRG_PARENTS], exp[FC_EXP_PARENTS];
} fc_challenge_proof;

typedef struct fc_stacked_partition {
    fc_porep_shape shape;
    fr replica_id, comm_d, comm_r, comm_r_last, comm_c;
    fc_challenge_proof *proofs; /* shape.challenges */
} fc_stacked_partition;

/* Levels of tree D (log2 of the nodes) and of a base tree of R and C. */
unsigned fc_tree_d_levels(const fc_porep_shape *s);
unsigned fc_tree_base_levels(const fc_porep_shape *s);

/* The circuit of one partition into cs. Its structure is the shape's
 * alone; values not below the field's modulus fail cs. */
void fc_stacked_circuit(cs_system *cs, const fc_stacked_partition *p);

/* A partition's witness (the assignment alone, as CS_WITNESS makes it):
 * n_wires plain 32-byte values, inputs (ONE first) then aux, into a
 * buffer the caller frees; its parts (each challenge's head, labels and
 * tail) made on `threads` threads, the same values as one thread makes. */
int fc_stacked_witness(const fc_stacked_partition *p, int threads, unsigned char **values, uint64_t *n_wires,
                       cuzk_error *err);
/* The same into memory of alloc's (ctx, n_wires): n_wires x 32 bytes, the
 * caller's to free even on a failure (a witness file's memory, say, so the
 * 4 GB of a 32 GiB partition are not copied again); NULL: out of memory. */
typedef unsigned char *(*fc_witness_alloc_fn)(void *ctx, uint64_t n_wires);
int fc_stacked_witness_to(const fc_stacked_partition *p, int threads, fc_witness_alloc_fn alloc, void *ctx,
                          unsigned char **values, uint64_t *n_wires, cuzk_error *err);

/* A partition of the shape with every value zero and every path of the
 * shape's levels (the blank circuit a setup or a count records).
 * CUZK_ERR_NO_MEMORY, CUZK_ERR_INVALID_ARGUMENT for a shape out of range. */
int fc_stacked_blank(const fc_porep_shape *s, fc_stacked_partition *out, cuzk_error *err);
void fc_stacked_free(fc_stacked_partition *p);
/* Frees one challenge's paths (its columns' too). */
void fc_challenge_proof_free(fc_challenge_proof *cp);

#endif
