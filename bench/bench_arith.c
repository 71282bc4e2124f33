/* bench_arith: ns per field and curve operation, for each CPU backend,
 * printed side by side.
 *
 *   bench_arith [--reps N] [--quick]
 *
 * --reps: timed repetitions per operation (minimum reported; default 11).
 * --quick: a tenth of the iterations and 3 repetitions, for a smoke run. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "bench.h"

size_t bench_arith_portable(struct bench_row *rows, int reps, double scale);
#if defined(__x86_64__)
size_t bench_arith_adx(struct bench_row *rows, int reps, double scale);
#endif

int main(int argc, char **argv)
{
    int reps = 11;
    double scale = 1.0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*end || v < 1 || v > 1000) {
                fprintf(stderr, "bench_arith: --reps expects an integer in [1, 1000], got '%s'\n", argv[i]);
                return 2;
            }
            reps = (int)v;
        } else if (!strcmp(argv[i], "--quick")) {
            reps = 3;
            scale = 0.1;
        } else {
            fprintf(stderr, "usage: bench_arith [--reps N] [--quick]\n");
            return 2;
        }
    }
    static struct bench_row portable[BENCH_MAX_ROWS], adx[BENCH_MAX_ROWS];
    size_t n = bench_arith_portable(portable, reps, scale);
    size_t m = 0;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 8 & 1) && (b >> 19 & 1))
        m = bench_arith_adx(adx, reps, scale);
#endif
    printf("%-52s %12s %12s\n", "operation (min ns/op)", "portable", m ? "x86_64-adx" : "");
    for (size_t i = 0; i < n; i++) {
        printf("%-52s %12.1f", portable[i].op, portable[i].ns);
        if (i < m)
            printf(" %12.1f", adx[i].ns);
        printf("\n");
    }
    return 0;
}
