/* The monotonic clock, in seconds: every phase time, wait, deadline and
 * rate in cuzk is measured with it. */
#ifndef CUZK_UTIL_CLOCK_H
#define CUZK_UTIL_CLOCK_H

#include <time.h>

static inline double cuzk_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#endif
