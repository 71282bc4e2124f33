/* bench_msm: CPU MSM and NTT throughput.
 *
 *   bench_msm [--min-log K] [--max-log K] [--g2-max-log K] [--threads T] [--reps R]
 *
 * For n = 2^min-log ... 2^max-log (default 12 ... 20) and each group, the
 * time per point of:
 *   random     Pippenger on uniformly random scalars (both bucket kinds:
 *              XYZZ and batch-affine), and the automatic choice;
 *   bits       a bit-heavy witness (90 % of scalars 0 or 1): the prover's
 *              split (classify, sum the 1s, Pippenger on the rest) against
 *              plain Pippenger on all of them;
 * and the NTT: forward transform and the odd-coset transform of 2^k
 * elements. Minimum over R repetitions (default 3). Bases are consecutive
 * multiples of a point, made by additions, not scalar multiplications. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "bench.h"
#include "msm/msms.h"
#include "ntt/ntts.h"

static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static uint64_t next64(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void make_scalars(limb_t *k, size_t n, int bits)
{
    for (size_t i = 0; i < n; i++) {
        limb_t *s = k + 4 * i;
        if (bits && next64() % 10 != 0) {
            s[0] = next64() & 1;
            s[1] = s[2] = s[3] = 0;
        } else {
            for (int j = 0; j < 4; j++)
                s[j] = next64();
            s[3] &= 0x0fffffffffffffffULL;
        }
    }
}

static double best_of(int reps, double (*fn)(void *), void *arg)
{
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
        double t = fn(arg);
        if (t < best)
            best = t;
    }
    return best;
}

#define MSM_BENCH(G, LABEL)                                                                          \
    typedef struct {                                                                                 \
        const unsigned char *pts, *k;                                                                \
        size_t n;                                                                                    \
        int threads, mode, split;                                                                    \
    } G##_job;                                                                                       \
    static double G##_run(void *arg)                                                                 \
    {                                                                                                \
        G##_job *j = arg;                                                                            \
        G##_jacobian r, s;                                                                           \
        double t0 = cuzk_now();                                                                     \
        if (j->split) {                                                                              \
            uint32_t *ones = malloc(j->n * 4), *tail = malloc(j->n * 4);                             \
            size_t no, nt;                                                                           \
            msm_classify_var(j->k, 0, j->n, ones, &no, tail, &nt);                                       \
            G##_msm_sum_var(&s, j->pts, ones, no);                                                       \
            G##_msm_pippenger_var(&r, j->pts, j->k, tail, nt, j->threads);                               \
            G##_add_var(&r, &r, &s);                                                                 \
            free(ones);                                                                              \
            free(tail);                                                                              \
        } else {                                                                                     \
            G##_msm_pippenger_mode_var(&r, j->pts, j->k, NULL, j->n, j->threads, j->mode);               \
        }                                                                                            \
        return cuzk_now() - t0;                                                                     \
    }                                                                                                \
    static void G##_bench(unsigned min_log, unsigned max_log, int threads, int reps)                 \
    {                                                                                                \
        size_t nmax = (size_t)1 << max_log;                                                          \
        G##_jacobian *jac = malloc(nmax * sizeof(G##_jacobian));                                     \
        G##_affine *pts = malloc(nmax * sizeof(G##_affine));                                         \
        limb_t *k = malloc(nmax * 32);                                                               \
        G##_jacobian g, step;                                                                        \
        G##_generator(&g);                                                                           \
        const limb_t seed[1] = {0x123456789abcdefULL};                                               \
        G##_mul_var(&step, &g, seed, 64);                                                            \
        jac[0] = step;                                                                               \
        for (size_t i = 1; i < nmax; i++)                                                            \
            G##_add_var(&jac[i], &jac[i - 1], &step);                                                \
        G##_batch_to_affine_var(pts, jac, nmax);                                                     \
        free(jac);                                                                                   \
        for (unsigned lg = min_log; lg <= max_log; lg++) {                                           \
            size_t n = (size_t)1 << lg;                                                              \
            G##_job j = {(const unsigned char *)pts, (const unsigned char *)k, n, threads, 0, 0};    \
            make_scalars(k, n, 0);                                                                   \
            double t_auto, t_xyzz, t_aff, t_bits_plain, t_bits_split;                                \
            j.mode = MSM_AUTO;                                                                       \
            t_auto = best_of(reps, G##_run, &j);                                                     \
            j.mode = MSM_XYZZ_BUCKETS;                                                               \
            t_xyzz = best_of(reps, G##_run, &j);                                                     \
            j.mode = MSM_AFFINE_BUCKETS;                                                             \
            t_aff = best_of(reps, G##_run, &j);                                                      \
            make_scalars(k, n, 1);                                                                   \
            j.mode = MSM_AUTO;                                                                       \
            t_bits_plain = best_of(reps, G##_run, &j);                                               \
            j.split = 1;                                                                             \
            t_bits_split = best_of(reps, G##_run, &j);                                               \
            printf("%-16s 2^%-3u %10.3f %10.1f %10.1f %10.1f %12.1f %12.1f\n", LABEL, lg, t_auto * 1e3, \
                   t_auto * 1e9 / (double)n, t_xyzz * 1e9 / (double)n, t_aff * 1e9 / (double)n,     \
                   t_bits_plain * 1e9 / (double)n, t_bits_split * 1e9 / (double)n);                 \
            fflush(stdout);                                                                          \
        }                                                                                            \
        free(pts);                                                                                   \
        free(k);                                                                                     \
    }

MSM_BENCH(bls12_381_g1, "bls12_381 G1")
MSM_BENCH(bls12_381_g2, "bls12_381 G2")
MSM_BENCH(bn254_g1, "bn254 G1")
MSM_BENCH(bn254_g2, "bn254 G2")

#define NTT_BENCH(F, LABEL)                                                                          \
    static void F##_bench(unsigned min_log, unsigned max_log, int reps)                              \
    {                                                                                                \
        for (unsigned lg = min_log; lg <= max_log; lg++) {                                           \
            size_t n = (size_t)1 << lg;                                                              \
            F##_ntt_domain d;                                                                        \
            if (F##_ntt_domain_init(&d, lg, 0) != CUZK_OK)                                              \
                return;                                                                              \
            F *a = malloc(n * sizeof(F));                                                            \
            for (size_t i = 0; i < n; i++)                                                           \
                F##_from_u64(&a[i], next64());                                                       \
            double fwd = 1e30, coset = 1e30;                                                         \
            for (int r = 0; r < reps; r++) {                                                         \
                double t0 = cuzk_now();                                                             \
                F##_ntt_dif(a, lg, d.tw, lg);                                                        \
                double t1 = cuzk_now();                                                             \
                F##_ntt_to_odd_coset(a, &d);                                                         \
                double t2 = cuzk_now();                                                             \
                if (t1 - t0 < fwd)                                                                   \
                    fwd = t1 - t0;                                                                   \
                if (t2 - t1 < coset)                                                                 \
                    coset = t2 - t1;                                                                 \
            }                                                                                        \
            printf("%-16s 2^%-3u %12.3f %12.3f\n", LABEL, lg, fwd * 1e3, coset * 1e3);              \
            fflush(stdout);                                                                          \
            free(a);                                                                                 \
            F##_ntt_domain_free(&d);                                                                 \
        }                                                                                            \
    }

NTT_BENCH(bls12_381_fr, "bls12_381 Fr")
NTT_BENCH(bn254_fr, "bn254 Fr")

static int arg_int(const char *name, const char *v, int lo, int hi)
{
    char *end;
    long x = strtol(v, &end, 10);
    if (*end || x < lo || x > hi) {
        fprintf(stderr, "bench_msm: %s expects an integer in [%d, %d], got '%s'\n", name, lo, hi, v);
        exit(2);
    }
    return (int)x;
}

int main(int argc, char **argv)
{
    unsigned min_log = 12, max_log = 20, g2_max_log = 18;
    int threads = omp_get_max_threads(), reps = 3;
    for (int i = 1; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--min-log"))
            min_log = (unsigned)arg_int("--min-log", argv[++i], 1, 28);
        else if (i + 1 < argc && !strcmp(argv[i], "--max-log"))
            max_log = (unsigned)arg_int("--max-log", argv[++i], 1, 28);
        else if (i + 1 < argc && !strcmp(argv[i], "--g2-max-log"))
            g2_max_log = (unsigned)arg_int("--g2-max-log", argv[++i], 1, 28);
        else if (i + 1 < argc && !strcmp(argv[i], "--threads"))
            threads = arg_int("--threads", argv[++i], 1, 1024);
        else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
            reps = arg_int("--reps", argv[++i], 1, 100);
        else {
            fprintf(stderr, "usage: bench_msm [--min-log K] [--max-log K] [--g2-max-log K] [--threads T] [--reps R]\n");
            return 2;
        }
    }
    omp_set_num_threads(threads);
    printf("MSM (%s backend, %d threads): ms for the automatic choice, then ns per point\n", CUZK_BACKEND_NAME,
           threads);
    printf("%-16s %-5s %10s %10s %10s %10s %12s %12s\n", "group", "n", "auto ms", "auto", "xyzz", "affine",
           "bits plain", "bits split");
    bn254_g1_bench(min_log, max_log, threads, reps);
    bls12_381_g1_bench(min_log, max_log, threads, reps);
    /* G2 costs about 3x G1 per point: its own upper bound (default 2^18) */
    unsigned g2_max = max_log < g2_max_log ? max_log : g2_max_log;
    bn254_g2_bench(min_log, g2_max, threads, reps);
    bls12_381_g2_bench(min_log, g2_max, threads, reps);
    printf("\nNTT: ms for the forward transform and for the odd-coset transform (inverse, shift, forward)\n");
    printf("%-16s %-5s %12s %12s\n", "field", "n", "forward", "odd coset");
    bn254_fr_bench(min_log, max_log, reps);
    bls12_381_fr_bench(min_log, max_log, reps);
    return 0;
}
