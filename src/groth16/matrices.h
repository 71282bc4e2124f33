/* A proving key's constraint matrices A and B in compressed rows, the one
 * form the CPU's evaluation (src/groth16/prove_impl.h) and the GPU's
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
 * Plain C with no dependencies but cuzk.h: the CUDA host code includes it
 * (cuda/groth16/prove.cu uploads the arrays as they are). */
#ifndef CUZK_GROTH16_MATRICES_H
#define CUZK_GROTH16_MATRICES_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

struct circuit_source;
struct progress_sink;

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

/* A circuit's matrices (bellperson's conventions: the input constraints
 * after the circuit's) and its densities: the variables of A's points
 * (every input, then the aux wires with a nonzero coefficient in some A)
 * and of B's (every wire with one in some B), ascending, malloc'd. Made in
 * two passes over the source's rows with `threads` threads. CUZK_OK,
 * CUZK_ERR_NO_MEMORY or CUZK_ERR_UNSUPPORTED (a matrix over 2^32 - 1
 * entries, or more rows than 2^32 - 1), with a message. */
int cs_matrices_from_source(cs_matrices **out, const struct circuit_source *src, int threads, uint32_t **a_vars,
                            uint32_t *n_a, uint32_t **b_vars, uint32_t *n_b, const struct progress_sink *progress,
                            cuzk_error *err);

/* A .zkey's section 4 entries (zkey_coef.h) over `rows` rows. CUZK_OK,
 * CUZK_ERR_NO_MEMORY, or CUZK_ERR_FORMAT with the first entry out of
 * range (matrix, row, variable, or a value not below r) in *bad. */
int cs_matrices_from_coefs(cs_matrices **out, int curve, const unsigned char *entries, uint64_t n, uint32_t rows,
                           uint32_t n_vars, uint64_t *bad);

/* Host bytes held. */
uint64_t cs_matrices_bytes(const cs_matrices *m);

void cs_matrices_free(cs_matrices *m);

#ifdef __cplusplus
}
#endif

#endif
