/* Writing files so that readers never see a partial one: data goes to
 * PATH.tmp.PID and is renamed over PATH once complete. */
#ifndef CUZK_UTIL_FILE_H
#define CUZK_UTIL_FILE_H

#include <stddef.h>

#include "../../include/cuzk.h"

/* "PATH.tmp.PID", malloc'd (NULL when out of memory). */
char *tmp_path_for(const char *path);

/* Writes len bytes to path atomically. */
int write_file_atomic(const char *path, const void *data, size_t len, cuzk_error *err);

#endif
