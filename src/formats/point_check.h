/* The points of a key file checked in parallel: chunks taken in turn by
 * `threads` threads, the caller's among them, which reports progress
 * between its chunks (so the callback runs on the caller's thread). The
 * .zkey and .params readers share it; what "checked" means is theirs
 * (check). */
#ifndef CUZK_FORMATS_POINT_CHECK_H
#define CUZK_FORMATS_POINT_CHECK_H

#include <stddef.h>

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

#endif
