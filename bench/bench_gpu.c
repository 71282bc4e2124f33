/* GPU MSM and NTT throughput (BENCHMARKS.md's GPU rows): data made on the
 * device (points from two small tables, so no host work per point), medians of
 * CUDA-event timings after a warm-up.
 *
 *   bench_gpu [--min-log-g1 N] [--max-log-g1 N] [--max-log-g2 N] [--min-log-ntt N] [--max-log-ntt N]
 *             [--reps R] [--msm-tune C:SLICE:SEG[:ACC]]... [--ntt-kernel K:BITS]... [--no-heavy]
 *
 * --msm-tune and --ntt-kernel (each may repeat) time the same sizes under
 * several knob settings in one run (0 = the prover's choice; NTT kernel 1
 * is the radix-2 one, 0 and 2 hold 8 and 4 elements a thread with passes
 * of at most BITS stages): before/after numbers from the same machine and
 * run.
 *
 * Field: products, squares and additions per second with four independent
 * chains a thread (the floors' rate), and products with 1, 2 and 4 chains a
 * thread at the batch-affine accumulation's occupancy (16 warps an SM).
 * MSM: G1 2^16 ... 2^26 (up to 2^27 with --max-log-g1 27: a PoRep
 * partition's H), G2 2^16 ... 2^24, random scalars below 2^253, both
 * curves; at 2^20 and 2^24 also a bit-heavy witness (90 % 0/1): Pippenger
 * over all of it against the split (batch sum of the 1s + Pippenger on the
 * rest). NTT: 2^20 ... 2^27, forward and the prover's odd-coset step. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cuda/gpu.h"
#include "ec/curves.h"

static uint64_t rng[4] = {0x1234567, 0x89abcdef, 0xfedcba98, 0x7654321};

static uint64_t rand64(void)
{
    uint64_t *s = rng;
    uint64_t result = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* lo[i] = (i + 1) G, hi[j] = (j + 1) K G for a random K: every sum
 * hi[a] + lo[b] is a distinct point (but for a negligible chance). */
#define TABLES(G)                                                                                     \
    static void G##_tables(G##_affine *lo, G##_affine *hi)                                            \
    {                                                                                                 \
        G##_jacobian g, k, acc, *tmp = malloc(8192 * sizeof(*tmp));                                  \
        G##_generator(&g);                                                                            \
        limb_t K[4] = {rand64(), rand64(), rand64(), rand64() >> 8};                                  \
        G##_mul_var(&k, &g, K, 256);                                                                  \
        acc = g;                                                                                      \
        for (int i = 0; i < 8192; i++) {                                                              \
            tmp[i] = acc;                                                                             \
            G##_add_var(&acc, &acc, &g);                                                              \
        }                                                                                             \
        G##_batch_to_affine_var(lo, tmp, 8192);                                                       \
        acc = k;                                                                                      \
        for (int i = 0; i < 8192; i++) {                                                              \
            tmp[i] = acc;                                                                             \
            G##_add_var(&acc, &acc, &k);                                                              \
        }                                                                                             \
        G##_batch_to_affine_var(hi, tmp, 8192);                                                       \
        free(tmp);                                                                                    \
    }
TABLES(bls12_381_g1)
TABLES(bls12_381_g2)
TABLES(bn254_g1)
TABLES(bn254_g2)

static void fill_scalars(uint64_t *k, size_t n, int bit_heavy)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t *s = k + 4 * i;
        if (bit_heavy && rand64() % 10) {
            s[0] = rand64() & 1;
            s[1] = s[2] = s[3] = 0;
            continue;
        }
        s[0] = rand64();
        s[1] = rand64();
        s[2] = rand64();
        s[3] = rand64() >> 3; /* below 2^253 < r */
    }
}

static cuzk_gpu_msm_tuning tunes[16];
static int n_tunes;
static int ntt_kernels[16][2];
static int n_ntt_kernels;
static int no_heavy;
static const char *only; /* --only: the MSMs whose name contains it */

static int run_msm(const char *name, int curve, int group, const void *lo, const void *hi, unsigned lg, int reps,
                   uint64_t *k, uint32_t *ones, uint32_t *tail)
{
    size_t n = (size_t)1 << lg;
    if (only && !strstr(name, only))
        return CUZK_OK;
    for (int heavy = 0; heavy <= 1; heavy++) {
        if (heavy && ((lg != 20 && lg != 24) || no_heavy))
            continue;
        fill_scalars(k, n, heavy);
        size_t no = 0, nt = 0;
        if (heavy)
            for (size_t i = 0; i < n; i++) {
                const uint64_t *s = k + 4 * i;
                if (s[1] | s[2] | s[3] || s[0] > 1)
                    tail[nt++] = (uint32_t)i;
                else if (s[0] == 1)
                    ones[no++] = (uint32_t)i;
            }
        for (int v = 0; v < n_tunes; v++) {
            double ms[3];
            cuzk_gpu_msg m = {{0}};
            int rc = cuzk_gpu_bench_msm(curve, group, lo, hi, n, k, heavy ? ones : NULL, no, tail, nt, &tunes[v],
                                        reps, ms, &m);
            if (rc != CUZK_OK) {
                fprintf(stderr, "%s 2^%u: %s\n", name, lg, m.text);
                return rc;
            }
            char tag[64] = "";
            if (n_tunes > 1 || tunes[v].copies > 1)
                snprintf(tag, sizeof(tag), " [c %u slice %u seg %u acc %u copies %u]", tunes[v].window,
                         tunes[v].slice, tunes[v].segment, tunes[v].accumulate, tunes[v].copies);
            if (!heavy)
                printf("msm  %-14s 2^%-2u random      %9.2f ms  %6.2f ns/point%s\n", name, lg, ms[0],
                       ms[0] * 1e6 / n, tag);
            else
                printf("msm  %-14s 2^%-2u 90%% 0/1    %9.2f ms all-Pippenger, %9.2f ms split (batch sum %.2f ms, "
                       "tail %zu)%s\n",
                       name, lg, ms[0], ms[1], ms[2], nt, tag);
            fflush(stdout);
        }
    }
    return CUZK_OK;
}

static int usage(const char *argv0)
{
    fprintf(stderr,
            "usage: %s [--min-log-g1 N] [--max-log-g1 N] [--max-log-g2 N] [--min-log-ntt N] [--max-log-ntt N]\n"
            "          [--reps R] [--msm-tune C:SLICE:SEG[:ACC[:COPIES]]]... [--ntt-kernel K:BITS]... [--no-heavy]\n"
            "          [--only NAME] (the MSMs whose name, e.g. 'bls12-381 G1', contains NAME)\n",
            argv0);
    return 2;
}

int main(int argc, char **argv)
{
    unsigned min_g1 = 16, max_g1 = 26, max_g2 = 24, min_ntt = 20, max_ntt = 27;
    int reps = 5;
    /* CUZK_GPU_PROFILE=1: every MSM and NTT prints its steps' times on
     * stderr (a benchmark's switch: the library reads no environment) */
    const char *profile = getenv("CUZK_GPU_PROFILE");
    cuzk_gpu_set_profile(profile && *profile && strcmp(profile, "0"));
    for (int i = 1; i < argc; i++) {
        unsigned a, b, c, d = 0, e = 0;
        if (i + 1 < argc && !strcmp(argv[i], "--min-log-g1"))
            min_g1 = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--max-log-g1"))
            max_g1 = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--max-log-g2"))
            max_g2 = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--min-log-ntt"))
            min_ntt = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--max-log-ntt"))
            max_ntt = (unsigned)atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
            reps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--msm-tune") && n_tunes < 16 &&
                 sscanf(argv[i + 1], "%u:%u:%u:%u:%u", &a, &b, &c, &d, &e) >= 3) {
            tunes[n_tunes++] = (cuzk_gpu_msm_tuning){a, b, c, d, e};
            i++;
        } else if (i + 1 < argc && !strcmp(argv[i], "--ntt-kernel") && n_ntt_kernels < 16 &&
                   sscanf(argv[i + 1], "%u:%u", &a, &b) == 2 && a <= 2) {
            ntt_kernels[n_ntt_kernels][0] = (int)a;
            ntt_kernels[n_ntt_kernels++][1] = (int)b;
            i++;
        } else if (i + 1 < argc && !strcmp(argv[i], "--only"))
            only = argv[++i];
        else if (!strcmp(argv[i], "--no-heavy"))
            no_heavy = 1;
        else {
            fprintf(stderr, "bench_gpu: unknown or malformed argument '%s'%s (--ntt-kernel: K 0, 1 or 2; "
                            "--msm-tune, --ntt-kernel: at most 16 each)\n",
                    argv[i], i + 1 < argc ? "" : " or its value missing");
            return usage(argv[0]);
        }
    }
    if (reps < 1 || reps > 64) {
        fprintf(stderr, "--reps: expected 1..64, found %d\n", reps);
        return 2;
    }
    if (min_g1 < 1 || max_g1 > 27 || max_g2 > 24 || min_ntt < 1 || max_ntt > 27) {
        fprintf(stderr, "sizes: expected G1 logs 1..27, G2 up to 24, NTT logs 1..27 (found G1 %u..%u, G2 up to %u, "
                        "NTT %u..%u)\n",
                min_g1, max_g1, max_g2, min_ntt, max_ntt);
        return 2;
    }
    if (!n_tunes)
        tunes[n_tunes++] = (cuzk_gpu_msm_tuning){0, 0, 0, 0, 0};
    if (!n_ntt_kernels) { /* the prover's */
        ntt_kernels[0][0] = -1;
        n_ntt_kernels = 1;
    }
    int gpus = 0;
    if (!cuzk_has_cuda() || cuzk_gpu_count(&gpus) != CUZK_OK || gpus == 0) {
        printf("SKIP: no CUDA GPU\n");
        return 77;
    }
    /* the field's rates first: the floors of everything below divide by them */
    {
        static const struct {
            int field;
            const char *name;
        } fields[] = {{GPU_FIELD_BLS12_381_FP, "bls12-381 Fp"}, {GPU_FIELD_BLS12_381_FR, "bls12-381 Fr"},
                      {GPU_FIELD_BN254_FP, "bn254 Fp"},         {GPU_FIELD_BN254_FR, "bn254 Fr"},
                      {GPU_FIELD_BLS12_381_FP2, "bls12-381 Fp2"}, {GPU_FIELD_BN254_FP2, "bn254 Fp2"}};
        static const struct {
            int op;
            const char *name;
        } ops[] = {{GPU_OP_MUL, "mul"}, {GPU_OP_SQR, "sqr"}, {GPU_OP_ADD, "add"}};
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++)
            for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); o++) {
                double g = 0;
                cuzk_gpu_msg m = {{0}};
                if (cuzk_gpu_bench_field(fields[f].field, ops[o].op, reps, &g, &m) != CUZK_OK) {
                    fprintf(stderr, "field benchmark: %s\n", m.text);
                    return 1;
                }
                printf("field %-14s %-5s %9.1f G/s\n", fields[f].name, ops[o].name, g);
            }
        /* products in 1, 2 or 4 dependent chains a thread at the batch-affine
         * accumulation's 16 warps an SM: that kernel's floor (its products
         * mostly wait on each other) */
        for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
            if (fields[f].field == GPU_FIELD_BLS12_381_FR || fields[f].field == GPU_FIELD_BN254_FR)
                continue;
            double g[3] = {0};
            static const unsigned chains[3] = {1, 2, 4};
            for (int c = 0; c < 3; c++) {
                cuzk_gpu_msg m = {{0}};
                if (cuzk_gpu_bench_field_chains(fields[f].field, chains[c], reps, &g[c], &m) != CUZK_OK) {
                    fprintf(stderr, "field chain benchmark: %s\n", m.text);
                    return 1;
                }
            }
            printf("field %-14s mul, 1/2/4 chains a thread at 16 warps an SM: %.1f / %.1f / %.1f G/s\n",
                   fields[f].name, g[0], g[1], g[2]);
        }
    }
    unsigned top = max_g1 > max_g2 ? max_g1 : max_g2;
    uint64_t *k = malloc(((size_t)32) << top);
    uint32_t *ones = malloc((size_t)4 << top), *tail = malloc((size_t)4 << top);
    if (!k || !ones || !tail)
        return 1;
    for (unsigned lg = min_ntt; lg <= max_ntt; lg++) {
        static const struct {
            int field, curve;
            const char *name;
        } frs[] = {{GPU_FIELD_BLS12_381_FR, CUZK_CURVE_BLS12_381, "bls12-381 Fr"},
                   {GPU_FIELD_BN254_FR, CUZK_CURVE_BN254, "bn254 Fr"}};
        for (size_t c = 0; c < sizeof(frs) / sizeof(frs[0]); c++)
            for (int v = 0; v < n_ntt_kernels; v++) {
                double f, co;
                cuzk_gpu_msg m = {{0}};
                if (cuzk_gpu_bench_ntt(frs[c].field, lg, reps, ntt_kernels[v][0], (unsigned)ntt_kernels[v][1], &f, &co,
                                       &m) != CUZK_OK) {
                    fprintf(stderr, "ntt 2^%u: %s\n", lg, m.text);
                    return 1;
                }
                char tag[32] = "";
                if (n_ntt_kernels > 1)
                    snprintf(tag, sizeof(tag), " [kernel %d bits %d]", ntt_kernels[v][0], ntt_kernels[v][1]);
                printf("ntt  %-14s 2^%-2u forward %9.3f ms   odd coset (2 NTTs + scale) %9.3f ms%s\n",
                       frs[c].name, lg, f, co, tag);
                fflush(stdout);
            }
        /* the prover's whole H step at this size (a 2^27 domain: a Filecoin
         * partition) */
        for (size_t c = 0; c < sizeof(frs) / sizeof(frs[0]); c++) {
            double ms = 0;
            cuzk_gpu_msg m = {{0}};
            if (cuzk_gpu_bench_h(frs[c].curve, lg, reps, &ms, &m) != CUZK_OK) {
                fprintf(stderr, "H step 2^%u: %s\n", lg, m.text);
                return 1;
            }
            printf("h    %-14s 2^%-2u c = a o b, 3 odd-coset steps, a b - c: %9.3f ms\n", frs[c].name, lg, ms);
            fflush(stdout);
        }
    }
    static bls12_381_g1_affine b1lo[8192], b1hi[8192];
    static bls12_381_g2_affine b2lo[8192], b2hi[8192];
    static bn254_g1_affine n1lo[8192], n1hi[8192];
    static bn254_g2_affine n2lo[8192], n2hi[8192];
    bls12_381_g1_tables(b1lo, b1hi);
    bls12_381_g2_tables(b2lo, b2hi);
    bn254_g1_tables(n1lo, n1hi);
    bn254_g2_tables(n2lo, n2hi);
    for (unsigned lg = min_g1; lg <= max_g1; lg += 2) {
        if (run_msm("bls12-381 G1", CUZK_CURVE_BLS12_381, 1, b1lo, b1hi, lg, reps, k, ones, tail) ||
            run_msm("bn254 G1", CUZK_CURVE_BN254, 1, n1lo, n1hi, lg, reps, k, ones, tail))
            return 1;
    }
    for (unsigned lg = 16; lg <= max_g2; lg += 2) {
        if (run_msm("bls12-381 G2", CUZK_CURVE_BLS12_381, 2, b2lo, b2hi, lg, reps, k, ones, tail) ||
            run_msm("bn254 G2", CUZK_CURVE_BN254, 2, n2lo, n2hi, lg, reps, k, ones, tail))
            return 1;
    }
    free(k);
    free(ones);
    free(tail);
    return 0;
}
