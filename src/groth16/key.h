/* The proving key's life beyond its file (key.c). */
#ifndef CUZK_GROTH16_KEY_H
#define CUZK_GROTH16_KEY_H

#include "../../include/cuzk.h"
#include "matrices.h"

struct cuzk_zkey;

/* The key's constraint matrices: a .params key's (made when it was
 * opened with its circuit), or a .zkey's, made from its section 4 by the
 * first caller (under a lock; later callers get the same). CUZK_OK;
 * CUZK_ERR_FORMAT naming the first entry out of range; CUZK_ERR_NO_MEMORY;
 * CUZK_ERR_INVALID_ARGUMENT for a key without a circuit (supraseal's
 * ABI's: a and b come with each proof). */
int key_matrices(const struct cuzk_zkey *zk, const cs_matrices **out, cuzk_error *err);

struct cuzk_wtns;

/* Partition `partition`'s witness of the key's generated circuit (a
 * .params key opened with porep-shape's native form), made in memory with
 * `threads` threads. CUZK_ERR_INVALID_ARGUMENT for a key whose circuit
 * makes none, or a partition past the circuit's count. */
int key_make_witness(const struct cuzk_zkey *zk, unsigned partition, int threads, struct cuzk_wtns **out,
                     cuzk_error *err);

#endif
