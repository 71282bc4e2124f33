/* A file's digest, computed on several threads: what the nodes of a job
 * queue compare their copies of a key by (docs/cluster.md). BLAKE2b-256
 * over "cuzk file digest 1", the file's size (8 bytes, little-endian) and
 * the BLAKE2b-256 of each 64 MiB chunk in order: the chunks hash in
 * parallel (our BLAKE2b runs 433 MB/s on one core of the CI machine, our
 * SHA-256 102 MB/s: a 47 GB key would take minutes on one). */
#ifndef CUZK_UTIL_FILE_DIGEST_H
#define CUZK_UTIL_FILE_DIGEST_H

#include <stdint.h>

#include "../../include/cuzk.h"

#define FILE_DIGEST_LEN 32
#define FILE_DIGEST_CHUNK (64u << 20)

/* The digest of path's bytes on up to `threads` threads (0: one); *size
 * its length. CUZK_ERR_IO naming the file when it cannot be read whole
 * (or changed length while read); CUZK_ERR_CANCELLED when *stop (may be
 * NULL) was set meanwhile (looked at every chunk). */
int file_digest(const char *path, unsigned threads, const volatile int *stop, unsigned char out[FILE_DIGEST_LEN],
                uint64_t *size, cuzk_error *err);

#endif
