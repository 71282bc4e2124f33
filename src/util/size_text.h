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
    if (bytes >= (uint64_t)1 << 30)
        snprintf(t.s, sizeof(t.s), "%.2f GiB", (double)bytes / (double)((uint64_t)1 << 30));
    else if (bytes >= (uint64_t)1 << 20)
        snprintf(t.s, sizeof(t.s), "%.1f MiB", (double)bytes / (double)((uint64_t)1 << 20));
    else if (bytes >= (uint64_t)1 << 10)
        snprintf(t.s, sizeof(t.s), "%.1f KiB", (double)bytes / 1024.0);
    else
        snprintf(t.s, sizeof(t.s), "%llu bytes", (unsigned long long)bytes);
    return t;
}

#endif
