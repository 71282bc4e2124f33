/* A byte count as people read it in a message: "35.1 MiB", "1.42 GiB",
 * "712 bytes" (a memory budget of a few MiB printed as "0.00 GiB" says
 * nothing). Plain C, also included by the CUDA sources. */
#ifndef CUZK_UTIL_SIZE_TEXT_H
#define CUZK_UTIL_SIZE_TEXT_H

#include <stdint.h>
#include <stdio.h>

typedef struct cuzk_size_text {
    char s[24];
} cuzk_size_text;

static inline cuzk_size_text cuzk_size_str(uint64_t bytes)
{
    cuzk_size_text t;
    if (bytes < 1024) {
        snprintf(t.s, sizeof(t.s), "%llu bytes", (unsigned long long)bytes);
        return t;
    }
    /* the unit whose value, as printed, stays below 1024 (1048575 bytes is
     * "1.0 MiB", not "1024.0 KiB") */
    double v = (double)bytes / 1024.0;
    const char *unit = "KiB";
    if (v >= 1023.95)
        v /= 1024.0, unit = "MiB";
    if (v >= 1023.95)
        v /= 1024.0, unit = "GiB";
    snprintf(t.s, sizeof(t.s), unit[0] == 'G' ? "%.2f %s" : "%.1f %s", v, unit);
    return t;
}

#endif
