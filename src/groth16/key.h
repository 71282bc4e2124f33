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

#endif
