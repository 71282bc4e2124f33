/* Shared by the bench programs: a timer and result rows. Every figure is
 * the minimum over repeated runs of a dependent chain (each operation's
 * output feeds the next), so it measures latency and resists noise from
 * other processes; see BENCHMARKS.md for how to compare with blst. */
#ifndef CUZK_BENCH_H
#define CUZK_BENCH_H

#include <stddef.h>
#include <time.h>

#include "../src/programs.h"

struct bench_row {
    const char *op;
    double ns;
};

#define BENCH_MAX_ROWS 128

/* Runs BODY `iters` times per repetition, `reps` repetitions; appends the
 * minimum ns per BODY to rows[*n]. */
#define BENCH(rows, n, reps, name, iters, BODY)                                  \
    do {                                                                         \
        double best_ = 1e30;                                                     \
        for (int rep_ = 0; rep_ <= (reps); rep_++) { /* rep 0 warms up */       \
            double t0_ = cuzk_now();                                            \
            for (long it_ = 0; it_ < (long)(iters); it_++) {                     \
                BODY;                                                            \
            }                                                                    \
            double dt_ = cuzk_now() - t0_;                                      \
            if (rep_ > 0 && dt_ < best_)                                         \
                best_ = dt_;                                                     \
        }                                                                        \
        (rows)[(*(n))].op = (name);                                              \
        (rows)[(*(n))++].ns = best_ * 1e9 / (double)(iters);                     \
    } while (0)

#endif
