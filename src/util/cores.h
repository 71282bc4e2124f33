/* The machine's online cores, at least 1: every "all the cores" default
 * of the library reads it here. */
#ifndef CUZK_UTIL_CORES_H
#define CUZK_UTIL_CORES_H

#include <unistd.h>

static inline int cpu_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

#endif
