/* The constraint matrices (src/core/matrices.h) made from a circuit's
 * rows or a .zkey's section 4, their size and their freeing. */
#ifndef CUZK_GROTH16_MATRICES_H
#define CUZK_GROTH16_MATRICES_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"
#include "../core/matrices.h"

#ifdef __cplusplus
extern "C" {
#endif

struct circuit_source;
struct progress_sink;

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
