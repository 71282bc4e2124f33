/* Where long work reports how far it is (cuzk_progress_fn, include/cuzk.h):
 * a callback, its argument and the stage name, passed down to the code
 * that does the work (a NULL sink or callback reports nothing); and the
 * one way a report is put into words, for the daemon's log lines and the
 * cuzk command's progress line alike. */
#ifndef CUZK_UTIL_PROGRESS_H
#define CUZK_UTIL_PROGRESS_H

#include <stddef.h>

#include "../../include/cuzk.h"

typedef struct progress_sink {
    cuzk_progress_fn fn;
    void *ctx;
    const char *stage;
} progress_sink;

static inline void progress_report(const progress_sink *p, unsigned long long done, unsigned long long total)
{
    if (p && p->fn)
        p->fn(p->ctx, p->stage, done, total);
}

/* One piece of work as it goes (its reports share a total; the stage
 * name may change along the way, e.g. section by section): when it
 * started and how far it was then, for the rate and the time left. */
typedef struct progress_meter {
    char stage[160];          /* the last report's */
    double start;             /* cuzk_now() at the first report; 0: none yet */
    unsigned long long first; /* done at that report */
    unsigned long long total, last_done;
    double last_line;         /* when the last line was shown (the caller's to set) */
    int lines;                /* lines shown for this work (the caller's to count) */
    int ended;                /* its last line was shown (the caller's to set) */
} progress_meter;

/* Takes a report; starts the meter over (returning 1) when it is new
 * work: the first report, another total, or done going back. */
int progress_meter_update(progress_meter *m, const char *stage, unsigned long long done, unsigned long long total,
                          double now);

/* "reading the key: 42% (1.20 GiB of 2.86 GiB, 850.3 MiB/s, 2 s left)":
 * bytes for stages that begin "reading" or "uploading", counts (k, M, G)
 * otherwise; the rate and time left once the stage has run a while. */
void progress_format(const progress_meter *m, unsigned long long done, unsigned long long total, double now,
                     char *out, size_t n);

#endif
