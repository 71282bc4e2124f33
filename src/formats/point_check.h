/* The points of a key file checked in parallel: chunks taken in turn by
 * `threads` threads, the caller's among them, which reports progress
 * between its chunks (so the callback runs on the caller's thread). The
 * .zkey and .params readers share it; what "checked" means is theirs
 * (check). */
#ifndef CUZK_FORMATS_POINT_CHECK_H
#define CUZK_FORMATS_POINT_CHECK_H

#include <stddef.h>

#include "../../include/cuzk.h"
#include "../util/progress.h"

/* n points at pts: CUZK_OK, or the first failure's status with its index
 * in *bad */
typedef int (*point_check_fn)(const void *ctx, const unsigned char *pts, size_t n, size_t *bad);

/* n points of point_bytes each. CUZK_OK, or the status of the lowest bad
 * point with its index in *bad. Progress: base + points checked, of
 * total (the caller's count over every vector it checks). */
int point_check_parallel(const unsigned char *pts, size_t n, size_t point_bytes, point_check_fn check,
                         const void *ctx, int threads, const progress_sink *progress, unsigned long long base,
                         unsigned long long total, size_t *bad);

/* A verification key's alpha, beta, gamma and delta (and a proving key's
 * beta1, delta1) must not be the point at infinity: with one of them there
 * the pairing check accepts proofs made without the key's secrets (with
 * gamma there, for any public signals), and snarkjs rejects every proof
 * against such a key. CUZK_OK, or CUZK_ERR_FORMAT naming file and what for
 * a point of `bytes` bytes in the library's layout (infinity: all zero). */
int key_point_not_infinity(const unsigned char *p, size_t bytes, const char *file, const char *what,
                           cuzk_error *err);

#endif
