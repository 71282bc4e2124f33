/* Option values from text, parsed one way for every caller: the engine's
 * option table (src/engine/options.c, which cuzk serve, its --config file
 * and cuzk bench read) and the cuzk command's own flags. On failure err
 * says "<label> expects ..., got '<text>'", label naming the input
 * ("--workers", "FILE:LINE: workers"). */
#ifndef CUZK_UTIL_PARSE_H
#define CUZK_UTIL_PARSE_H

#include "../../include/cuzk.h"

/* A decimal integer in [lo, hi]. */
int parse_int_text(const char *label, const char *s, long long lo, long long hi, long long *out, cuzk_error *err);
/* A size in bytes in [lo, hi]: an integer with an optional K, M, G or T
 * suffix (powers of 1024), or 2^k. */
int parse_bytes_text(const char *label, const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *out, cuzk_error *err);
/* An integer or 2^k in [0, max] (counts such as --constraints). */
int parse_count_text(const char *label, const char *s, unsigned long long max, unsigned long long *out,
                     cuzk_error *err);
/* auto, gpu or cpu: a cuzk_device. */
int parse_device_text(const char *label, const char *s, int *out, cuzk_error *err);

#endif
