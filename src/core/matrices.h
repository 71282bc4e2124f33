/* A proving key's constraint matrices A and B in compressed rows, the one
 * form the CPU's evaluation (src/core/prove_impl.h) and the GPU's
 * (cuda/groth16/prove.cu) read: per matrix row_ptr[rows + 1], and per
 * entry its variable (col) and an index into a table of the distinct
 * coefficients (coef). Each table value is coef R^2 mod r in 32 plain
 * little-endian bytes, the .zkey entry's convention: its Montgomery
 * product with a plain witness value is the Montgomery form of coef * w.
 *
 * 8 bytes an entry where a .zkey entry takes 44: the full PoRep
 * partition's 440 M entries of A and B in 3.5 GB with their row pointers
 * (porep-shape has 160 distinct coefficients), against 19.4 GB.
 *
 * Rows: the circuit's constraints, then one a public input (the input
 * constraints, A = that input), as in a .zkey's section 4; the domain's
 * rows past them are zero.
 *
 * The types only, plain C without includes but the standard ones: the
 * CUDA host code includes it (cuda/groth16/prove.cu uploads the arrays as
 * they are). Made and freed by src/groth16/matrices.c. */
#ifndef CUZK_CORE_MATRICES_H
#define CUZK_CORE_MATRICES_H

#include <stdint.h>

typedef struct cs_matrix {
    uint32_t *row_ptr; /* rows + 1 */
    uint32_t *col, *coef;
    uint64_t nnz;
} cs_matrix;

typedef struct cs_matrices {
    int curve;
    uint32_t rows, n_vars, n_table;
    cs_matrix m[2]; /* A, B */
    unsigned char *table; /* n_table values of 32 bytes */
} cs_matrices;

#endif
