/* Filling a cuzk_error: every failure the user can cause gets a sentence
 * naming the input, what was expected and what was found. */
#ifndef CUZK_UTIL_ERROR_H
#define CUZK_UTIL_ERROR_H

#include "../../include/cuzk.h"

/* Sets e (if not NULL) and returns code, so callers can write
 * `return cuzk_error_set(err, CUZK_ERR_FORMAT, "...", ...);`. */
int cuzk_error_set(cuzk_error *e, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
