/* Random bytes: the operating system's CSPRNG (getrandom(2)), or a test's
 * seeded source where an option passes one. */
#ifndef CUZK_UTIL_RAND_H
#define CUZK_UTIL_RAND_H

#include <errno.h>
#include <sys/random.h>

#include "../../include/cuzk.h"
#include "util.h"

CUZK_INLINE int cuzk_os_random(void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len > 0) {
        ssize_t got = getrandom(p, len, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return CUZK_ERR_RANDOM;
        }
        p += got;
        len -= (size_t)got;
    }
    return CUZK_OK;
}

/* len bytes from `random` (a caller's source, testing only: include/cuzk.h,
 * cuzk_random_fn) or, when it is NULL, from the OS CSPRNG. A failing
 * source gives CUZK_ERR_RANDOM. */
CUZK_INLINE int cuzk_random_bytes(cuzk_random_fn random, void *ctx, void *buf, size_t len)
{
    if (!random)
        return cuzk_os_random(buf, len);
    return random(ctx, buf, len) == CUZK_OK ? CUZK_OK : CUZK_ERR_RANDOM;
}

/* 2 * n_bytes lowercase hex digits of fresh random bytes and a NUL into out
 * (n_bytes at most 32): the daemon's job ids, cuzk submit's request ids. */
CUZK_INLINE int cuzk_random_hex(char *out, size_t n_bytes)
{
    unsigned char b[32];
    if (n_bytes > sizeof(b))
        return CUZK_ERR_INVALID_ARGUMENT;
    int rc = cuzk_os_random(b, n_bytes);
    if (rc != CUZK_OK)
        return rc;
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n_bytes; i++) {
        out[2 * i] = hex[b[i] >> 4];
        out[2 * i + 1] = hex[b[i] & 15];
    }
    out[2 * n_bytes] = 0;
    return CUZK_OK;
}

#endif
