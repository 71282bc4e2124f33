/* Bytes from the operating system's CSPRNG (getrandom(2)). */
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

#endif
