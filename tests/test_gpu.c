/* The GPU layer against the CPU implementation (the oracle for the GPU
 * path), on random inputs and edge cases:
 *   - every field operation of Fp, Fr (both curves) and Fp2: 0, 1, p - 1 and
 *     random values with long bit runs;
 *   - point additions and doublings of G1 and G2 (equal points, negatives,
 *     infinity);
 *   - MSM (Pippenger) and the batch sum against the CPU's, on random,
 *     bit-heavy, all-zero and all-one scalars, n = 1 and n not a power of
 *     two, with and without index lists, several window sizes;
 *   - NTT forward, inverse and odd-coset transforms against the CPU's;
 *   - whole proofs with fixed r and s: the GPU's proof bytes equal the CPU's
 *     for every fixture of both curves.
 * Without a GPU (or a CUDA build) it exits 77: ctest's "skipped". */
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "../cuda/gpu.h"
#include "cuzk_testcircuits.h"
#include "gpu/residency.h"
#include "engine/submit.h"
#include "groth16/prove.h"
#include "msm/msms.h"
#include "ntt/ntts.h"
#include "test_util.h"

static const char *fixtures;

static void gpu_check(int rc, const cuzk_gpu_msg *m)
{
    if (rc != CUZK_OK)
        fprintf(stderr, "GPU call failed (%d): %s\n", rc, m->text);
    CHECK(rc == CUZK_OK);
}

/* --- fields ------------------------------------------------------------ */

#define FIELD_TEST(F, FID, LIMBS, MOD)                                                                     \
    static void F##_rand(F *x, size_t i)                                                              \
    {                                                                                                 \
        limb_t t[LIMBS];                                                                              \
        if (i < 5) { /* 0, 1, -1, 2 (Montgomery images) and the limbs of p - 1 */                    \
            static const limb_t mod[LIMBS] = MOD;                                                     \
            F one;                                                                                    \
            F##_one(&one);                                                                            \
            F##_zero(x);                                                                              \
            if (i == 1)                                                                               \
                *x = one;                                                                             \
            else if (i == 2)                                                                          \
                F##_sub(x, x, &one);                                                                  \
            else if (i == 3)                                                                          \
                F##_add(x, &one, &one);                                                               \
            else if (i == 4) {                                                                        \
                memcpy(x->l, mod, sizeof(mod));                                                       \
                x->l[0] -= 1;                                                                         \
            }                                                                                         \
            return;                                                                                   \
        }                                                                                             \
        do {                                                                                          \
            test_rand_limbs(t, LIMBS);                                                                \
            t[LIMBS - 1] &= (i & 8) ? ~(limb_t)0 : ((limb_t)1 << 60) - 1;                             \
        } while (!(F##_raw_is_canonical_mask(t) & 1));                                                \
        memcpy(x->l, t, sizeof(t)); /* a canonical value is a valid Montgomery image */              \
    }                                                                                                 \
    static void test_field_##F(void)                                                                  \
    {                                                                                                 \
        const int fid = FID;                                                                          \
        test_context = "field " #F;                                                                   \
        size_t n = 4096;                                                                              \
        F *a = malloc(n * sizeof(F)), *b = malloc(n * sizeof(F)), *got = malloc(n * sizeof(F));       \
        for (size_t i = 0; i < n; i++) {                                                              \
            F##_rand(&a[i], i);                                                                       \
            F##_rand(&b[i], (i * 7 + 3) % n);                                                         \
        }                                                                                             \
        b[5] = a[5]; /* equal operands */                                                             \
        for (int op = GPU_OP_ADD; op <= GPU_OP_TO_MONT; op++) {                                       \
            cuzk_gpu_msg m;                                                                           \
            gpu_check(cuzk_gpu_test_field(fid, op, a, b, got, n, &m), &m);                            \
            for (size_t i = 0; i < n; i++) {                                                          \
                F want;                                                                               \
                switch (op) {                                                                         \
                case GPU_OP_ADD: F##_add(&want, &a[i], &b[i]); break;                                 \
                case GPU_OP_SUB: F##_sub(&want, &a[i], &b[i]); break;                                 \
                case GPU_OP_MUL: F##_mul(&want, &a[i], &b[i]); break;                                 \
                case GPU_OP_SQR: F##_sqr(&want, &a[i]); break;                                        \
                case GPU_OP_NEG: F##_neg(&want, &a[i]); break;                                        \
                case GPU_OP_INV: F##_inv_var(&want, &a[i]); break;                                    \
                case GPU_OP_FROM_MONT: F##_to_raw(want.l, &a[i]); break;                              \
                case GPU_OP_TO_MONT: F##_from_raw(&want, a[i].l); break;                              \
                }                                                                                     \
                if (op == GPU_OP_INV && F##_is_zero(&a[i]))                                           \
                    continue; /* 1/0: undefined */                                                    \
                if (memcmp(&want, &got[i], sizeof(F)) != 0)                                           \
                    fprintf(stderr, "op %d, element %zu\n", op, i);                                   \
                CHECK(memcmp(&want, &got[i], sizeof(F)) == 0);                                        \
            }                                                                                         \
        }                                                                                             \
        free(a);                                                                                      \
        free(b);                                                                                      \
        free(got);                                                                                    \
    }

FIELD_TEST(bls12_381_fp, GPU_FIELD_BLS12_381_FP, 6, BLS12_381_FP_MODULUS)
FIELD_TEST(bls12_381_fr, GPU_FIELD_BLS12_381_FR, 4, BLS12_381_FR_MODULUS)
FIELD_TEST(bn254_fp, GPU_FIELD_BN254_FP, 4, BN254_FP_MODULUS)
FIELD_TEST(bn254_fr, GPU_FIELD_BN254_FR, 4, BN254_FR_MODULUS)

#define FP2_TEST(F2, F, FID)                                                                          \
    static void test_field_##F2(void)                                                                 \
    {                                                                                                 \
        test_context = "field " #F2;                                                                  \
        size_t n = 2048;                                                                              \
        F2 *a = malloc(n * sizeof(F2)), *b = malloc(n * sizeof(F2)), *got = malloc(n * sizeof(F2));   \
        for (size_t i = 0; i < n; i++) {                                                              \
            F##_rand(&a[i].c0, i);                                                                    \
            F##_rand(&a[i].c1, (i * 5 + 1) % n);                                                      \
            F##_rand(&b[i].c0, (i * 3 + 2) % n);                                                      \
            F##_rand(&b[i].c1, (i * 11 + 7) % n);                                                     \
        }                                                                                             \
        /* every pairing of the edge values (0, 1, -1, 2, p - 1's limbs) in     \
         * both coefficients of both operands: the lazy product's bounds */       \
        for (size_t i = 0; i < 625; i++) {                                                            \
            F##_rand(&a[2048 - 625 + i].c0, i % 5);                                                   \
            F##_rand(&a[2048 - 625 + i].c1, i / 5 % 5);                                               \
            F##_rand(&b[2048 - 625 + i].c0, i / 25 % 5);                                              \
            F##_rand(&b[2048 - 625 + i].c1, i / 125);                                                 \
        }                                                                                             \
        for (int op = GPU_OP_ADD; op <= GPU_OP_INV; op++) {                                           \
            cuzk_gpu_msg m;                                                                           \
            gpu_check(cuzk_gpu_test_field(FID, op, a, b, got, n, &m), &m);                            \
            for (size_t i = 0; i < n; i++) {                                                          \
                F2 want;                                                                              \
                switch (op) {                                                                         \
                case GPU_OP_ADD: F2##_add(&want, &a[i], &b[i]); break;                                \
                case GPU_OP_SUB: F2##_sub(&want, &a[i], &b[i]); break;                                \
                case GPU_OP_MUL: F2##_mul(&want, &a[i], &b[i]); break;                                \
                case GPU_OP_SQR: F2##_sqr(&want, &a[i]); break;                                       \
                case GPU_OP_NEG: F2##_neg(&want, &a[i]); break;                                       \
                case GPU_OP_INV: F2##_inv_var(&want, &a[i]); break;                                   \
                }                                                                                     \
                if (op == GPU_OP_INV && F2##_is_zero(&a[i]))                                          \
                    continue;                                                                         \
                CHECK(memcmp(&want, &got[i], sizeof(F2)) == 0);                                       \
            }                                                                                         \
        }                                                                                             \
        free(a);                                                                                      \
        free(b);                                                                                      \
        free(got);                                                                                    \
    }

FP2_TEST(bls12_381_fp2, bls12_381_fp, GPU_FIELD_BLS12_381_FP2)
FP2_TEST(bn254_fp2, bn254_fp, GPU_FIELD_BN254_FP2)

/* --- points ------------------------------------------------------------ */

static void rand_scalar(limb_t k[4], int skew)
{
    memset(k, 0, 32);
    switch (skew) {
    case 0: /* random below 2^254 (below r on both curves) */
        test_rand_limbs(k, 4);
        k[3] &= 0x3fffffffffffffffULL;
        break;
    case 1: /* all zero */
        break;
    case 2: /* all one */
        k[0] = 1;
        break;
    case 3: /* 90 % 0 or 1 */
        if (test_rand64() % 10 == 0) {
            test_rand_limbs(k, 4);
            k[3] &= 0x3fffffffffffffffULL;
        } else
            k[0] = test_rand64() & 1;
        break;
    case 4: /* r - 1 and neighbours: digits with every carry */
        break;
    case 5: /* one value for all: every window's entries in one bucket */
        k[0] = 0x0123456789abcdefULL;
        k[1] = 0xfedcba9876543210ULL;
        k[2] = 0x0f1e2d3c4b5a6978ULL;
        k[3] = 0x1122334455667788ULL;
        break;
    }
}

#define EC_TEST(G, CURVE, GROUP)                                                                      \
    static void G##_rand_point(G##_affine *p, size_t i)                                               \
    {                                                                                                 \
        G##_jacobian g, t;                                                                            \
        G##_generator(&g);                                                                            \
        limb_t k[4];                                                                                  \
        rand_scalar(k, 0);                                                                            \
        k[0] |= 1;                                                                                    \
        if (i % 97 == 5) {                                                                            \
            G##_affine_set_infinity(p);                                                               \
            return;                                                                                   \
        }                                                                                             \
        G##_mul_var(&t, &g, k, 256);                                                                  \
        G##_to_affine(p, &t);                                                                         \
    }                                                                                                 \
    static void test_ec_##G(void)                                                                     \
    {                                                                                                 \
        test_context = "points " #G;                                                                  \
        size_t n = 512;                                                                               \
        G##_affine *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));                          \
        G##_affine *sum = malloc(n * sizeof(*a)), *dbl = malloc(n * sizeof(*a));                      \
        for (size_t i = 0; i < n; i++) {                                                              \
            G##_rand_point(&a[i], i);                                                                 \
            G##_rand_point(&b[i], i + 1);                                                             \
            if (i % 7 == 1)                                                                           \
                b[i] = a[i]; /* equal points: the addition must double */                             \
            if (i % 7 == 2)                                                                           \
                G##_affine_neg(&b[i], &a[i]); /* a + (-a) = infinity */                              \
        }                                                                                             \
        cuzk_gpu_msg m;                                                                               \
        gpu_check(cuzk_gpu_test_ec(CURVE, GROUP, a, b, sum, dbl, n, &m), &m);                         \
        for (size_t i = 0; i < n; i++) {                                                              \
            G##_jacobian pa, pb, s, d;                                                                \
            G##_affine ws, wd;                                                                        \
            G##_from_affine(&pa, &a[i]);                                                              \
            G##_from_affine(&pb, &b[i]);                                                              \
            G##_add_var(&s, &pa, &pb);                                                                \
            G##_double(&d, &s);                                                                       \
            G##_to_affine(&ws, &s);                                                                   \
            G##_to_affine(&wd, &d);                                                                   \
            CHECK(memcmp(&ws, &sum[i], sizeof(ws)) == 0);                                             \
            CHECK(memcmp(&wd, &dbl[i], sizeof(wd)) == 0);                                             \
        }                                                                                             \
        free(a);                                                                                      \
        free(b);                                                                                      \
        free(sum);                                                                                    \
        free(dbl);                                                                                    \
    }

EC_TEST(bls12_381_g1, CUZK_CURVE_BLS12_381, 1)
EC_TEST(bls12_381_g2, CUZK_CURVE_BLS12_381, 2)
EC_TEST(bn254_g1, CUZK_CURVE_BN254, 1)
EC_TEST(bn254_g2, CUZK_CURVE_BN254, 2)

/* --- MSM --------------------------------------------------------------- */

/* The GPU's window sums (and batch sum) finished by the library's CPU core. */
static void combine(int curve, int group, const cuzk_gpu_msm_result *r, void *out)
{
    cuzk_core()->msm_combine(curve, group, r->windows[0], sizeof(r->windows[0]), r->nwin, r->c, r->sum,
                             (unsigned char *)out);
}

#define MSM_TEST(G, CURVE, GROUP, RSCALAR)                                                            \
    static void test_msm_##G(void)                                                                    \
    {                                                                                                 \
        test_context = "msm " #G;                                                                     \
        static const size_t sizes[] = {1, 2, 3, 100, 1000, 4097, 20000};                              \
        for (size_t si = 0; si < CUZK_ARRAY_LEN(sizes); si++) {                                       \
            size_t n = sizes[si];                                                                     \
            /* a pool of 64 random points, repeated (and some infinity) */                            \
            G##_affine pool[64];                                                                      \
            for (int i = 0; i < 64; i++)                                                              \
                G##_rand_point(&pool[i], (size_t)i + 3);                                              \
            G##_affine *pts = malloc(n * sizeof(*pts));                                               \
            limb_t *k = malloc(n * 32);                                                               \
            uint32_t *idx = malloc(n * 4);                                                            \
            for (size_t i = 0; i < n; i++)                                                            \
                pts[i] = pool[test_rand64() % 64];                                                    \
            for (int skew = 0; skew <= 5; skew++) {                                                   \
                for (size_t i = 0; i < n; i++) {                                                      \
                    rand_scalar(k + 4 * i, skew);                                                     \
                    if (skew == 4) { /* r - 1, r - 2, ... and 2^c - 1 style values */                 \
                        static const limb_t r[4] = RSCALAR;                                           \
                        memcpy(k + 4 * i, r, 32);                                                     \
                        k[4 * i] -= 1 + i % 5;                                                        \
                    }                                                                                 \
                }                                                                                     \
                size_t ni = 0;                                                                        \
                for (size_t i = 0; i < n; i++)                                                        \
                    if (test_rand64() % 3)                                                            \
                        idx[ni++] = (uint32_t)i;                                                      \
                const unsigned char *P = (const unsigned char *)pts, *K = (const unsigned char *)k;   \
                G##_jacobian want, want_idx, want_sum;                                                \
                CHECK(G##_msm_pippenger_var(&want, P, K, NULL, n, 2) == CUZK_OK);                         \
                CHECK(G##_msm_pippenger_var(&want_idx, P, K, idx, ni, 2) == CUZK_OK);                     \
                CHECK(G##_msm_sum_var(&want_sum, P, idx, ni) == CUZK_OK);                                 \
                G##_affine w1, w2, w3, got;                                                           \
                cuzk_gpu_msm_result res;                                                              \
                G##_to_affine(&w1, &want);                                                            \
                G##_to_affine(&w2, &want_idx);                                                        \
                G##_to_affine(&w3, &want_sum);                                                        \
                /* window bits, entries per accumulation slot (1: every entry its */                  \
                /* own slot, the deepest fix-up trees), buckets per segment, the */                   \
                /* accumulation (1, 3 XYZZ; 10, 11 batch-affine), and */                              \
                /* shifted copies (some windows merged, all, more copies than windows) */             \
                static const cuzk_gpu_msm_tuning tunes[] = {                                          \
                    {0, 0, 0, 0, 0}, {4, 1, 0, 1, 0}, {7, 3, 2, 3, 0},  {13, 2, 1, 3, 0},             \
                    {0, 5, 0, 1, 0}, {0, 64, 64, 3, 0}, {0, 0, 0, 10, 0}, {4, 1, 0, 11, 0},           \
                    {7, 3, 2, 10, 0}, {13, 2, 1, 10, 0}, {0, 5, 0, 11, 0}, {0, 0, 0, 11, 0},          \
                    {0, 3, 0, 10, 0}, {5, 0, 0, 10, 0}, {0, 0, 0, 0, 2}, {7, 3, 2, 3, 3},             \
                    {4, 1, 0, 11, 70}, {13, 0, 0, 10, 20}, {16, 0, 0, 0, 16}, {5, 2, 0, 10, 7},       \
                    {0, 0, 0, 11, 0}, {0, 3, 0, 11, 0}, {7, 3, 2, 11, 3}, {0, 0, 0, 10, 0},           \
                    {0, 3, 0, 10, 2}, {7, 3, 2, 11, 0}, {0, 2, 0, 11, 3}, {7, 3, 2, 10, 3}};          \
                for (size_t wi = 0; wi < CUZK_ARRAY_LEN(tunes); wi++) {                               \
                    cuzk_gpu_msg m;                                                                   \
                    double ms;                                                                        \
                    gpu_check(cuzk_gpu_msm(CURVE, GROUP, P, n, K, NULL, n, 0, &tunes[wi], &res, &ms, &m), \
                              &m);                                                                    \
                    combine(CURVE, GROUP, &res, &got);                                                \
                    if (memcmp(&got, &w1, sizeof(got)) != 0)                                          \
                        fprintf(stderr, "n %zu skew %d window %u slice %u segment %u acc %u copies %u\n", n, \
                                skew, tunes[wi].window, tunes[wi].slice, tunes[wi].segment,                \
                                tunes[wi].accumulate, tunes[wi].copies);                                   \
                    CHECK(memcmp(&got, &w1, sizeof(got)) == 0);                                       \
                    gpu_check(cuzk_gpu_msm(CURVE, GROUP, P, n, K, idx, ni, 0, &tunes[wi], &res, &ms, &m), \
                              &m);                                                                    \
                    combine(CURVE, GROUP, &res, &got);                                                \
                    CHECK(memcmp(&got, &w2, sizeof(got)) == 0);                                       \
                }                                                                                     \
                cuzk_gpu_msg m;                                                                       \
                double ms;                                                                            \
                /* knobs past their ranges: refused, naming the knob */                               \
                static const cuzk_gpu_msm_tuning bad[] = {{0, 0, 0, 12, 0}, {0, 0, 0, 2, 0}, {0, 0, 0, 5, 0}, \
                                                          {3, 0, 0, 0, 0}, {25, 0, 0, 0, 0}};                 \
                for (size_t bi = 0; bi < CUZK_ARRAY_LEN(bad); bi++) {                                 \
                    CHECK(cuzk_gpu_msm(CURVE, GROUP, P, n, K, NULL, n, 0, &bad[bi], &res, &ms, &m) ==      \
                          CUZK_ERR_INVALID_ARGUMENT);                                                 \
                    CHECK(strstr(m.text, bi >= 3 ? "window size" : "accumulation variant") != NULL);  \
                }                                                                                     \
                gpu_check(cuzk_gpu_msm(CURVE, GROUP, P, n, NULL, idx, ni, 1, NULL, &res, &ms, &m), &m); \
                combine(CURVE, GROUP, &res, &got);                                                    \
                CHECK(memcmp(&got, &w3, sizeof(got)) == 0);                                           \
            }                                                                                         \
            free(pts);                                                                                \
            free(k);                                                                                  \
            free(idx);                                                                                \
        }                                                                                             \
    }

/* G1 at a size where every accumulation lane walks long runs (2^18
 * entries of 4,096 distinct points, so runs also meet equal and opposite
 * points): the batch-affine variants and their slot lengths against the
 * CPU, random and 90 % 0/1 scalars. */
#define MSM_LARGE_TEST(G, CURVE)                                                                      \
    static void test_msm_large_##G(void)                                                              \
    {                                                                                                 \
        test_context = "msm large " #G;                                                               \
        const size_t n = (size_t)1 << 18;                                                             \
        G##_affine *pool = malloc(4096 * sizeof(*pool)), *pts = malloc(n * sizeof(*pts));             \
        limb_t *k = malloc(n * 32);                                                                   \
        for (size_t i = 0; i < 4096; i++)                                                             \
            G##_rand_point(&pool[i], i + 11);                                                         \
        for (size_t i = 0; i < n; i++)                                                                \
            pts[i] = pool[test_rand64() % 4096];                                                      \
        for (int skew = 0; skew <= 3; skew += 3) {                                                    \
            for (size_t i = 0; i < n; i++)                                                            \
                rand_scalar(k + 4 * i, skew);                                                         \
            const unsigned char *P = (const unsigned char *)pts, *K = (const unsigned char *)k;       \
            G##_jacobian want;                                                                        \
            CHECK(G##_msm_pippenger_var(&want, P, K, NULL, n, 8) == CUZK_OK);                         \
            G##_affine w, got;                                                                        \
            G##_to_affine(&w, &want);                                                                 \
            static const cuzk_gpu_msm_tuning tunes[] = {                                              \
                {0, 0, 0, 0, 0}, {0, 0, 0, 10, 0}, {0, 0, 0, 11, 0}, {0, 0, 0, 1, 0}, {0, 7, 0, 11, 0},   \
                {16, 300, 0, 10, 0}, {0, 0, 0, 3, 0}, {0, 0, 0, 0, 4}, {20, 0, 0, 10, 13}, {24, 0, 0, 0, 11}, \
                {0, 3, 0, 11, 0}, {0, 5, 0, 10, 0}, {16, 0, 0, 11, 3}, {0, 0, 0, 11, 5}};                     \
            for (size_t wi = 0; wi < CUZK_ARRAY_LEN(tunes); wi++) {                                   \
                cuzk_gpu_msg m;                                                                       \
                cuzk_gpu_msm_result res;                                                              \
                double ms;                                                                            \
                gpu_check(cuzk_gpu_msm(CURVE, 1, P, n, K, NULL, n, 0, &tunes[wi], &res, &ms, &m), &m); \
                combine(CURVE, 1, &res, &got);                                                        \
                if (memcmp(&got, &w, sizeof(got)) != 0)                                               \
                    fprintf(stderr, "skew %d window %u slice %u acc %u copies %u\n", skew, tunes[wi].window, \
                            tunes[wi].slice, tunes[wi].accumulate, tunes[wi].copies);                 \
                CHECK(memcmp(&got, &w, sizeof(got)) == 0);                                            \
            }                                                                                         \
        }                                                                                             \
        free(pool);                                                                                   \
        free(pts);                                                                                    \
        free(k);                                                                                      \
    }

MSM_LARGE_TEST(bls12_381_g1, CUZK_CURVE_BLS12_381)
MSM_LARGE_TEST(bn254_g1, CUZK_CURVE_BN254)

MSM_TEST(bls12_381_g1, CUZK_CURVE_BLS12_381, 1, BLS12_381_R_SCALAR)
MSM_TEST(bls12_381_g2, CUZK_CURVE_BLS12_381, 2, BLS12_381_R_SCALAR)
MSM_TEST(bn254_g1, CUZK_CURVE_BN254, 1, BN254_R_SCALAR)
MSM_TEST(bn254_g2, CUZK_CURVE_BN254, 2, BN254_R_SCALAR)

/* Fixed-base products k G by the generator (the random setup's points on
 * the GPU) against the CPU's one-point MSM: random scalars, 0, 1, 255,
 * 256, r - 1 and its neighbours, every byte 0xff below r. */
#define FIXED_BASE_TEST(G, CURVE, GROUP, RSCALAR)                                                     \
    static void test_fixed_base_##G(void)                                                             \
    {                                                                                                 \
        test_context = "fixed-base " #G;                                                              \
        enum { N = 300 };                                                                             \
        unsigned char g1[96], g2[192];                                                                \
        cuzk_core()->generators(CURVE, g1, g2);                                                       \
        const unsigned char *gen = GROUP == 1 ? g1 : g2;                                              \
        limb_t *k = calloc(N, 32);                                                                    \
        G##_affine *got = malloc(N * sizeof(G##_affine));                                             \
        static const limb_t r[4] = RSCALAR;                                                           \
        for (size_t i = 0; i < N; i++) {                                                              \
            limb_t *ki = k + 4 * i;                                                                   \
            if (i < 6) {                                                                              \
                static const limb_t small[6] = {0, 1, 2, 255, 256, 65535};                            \
                ki[0] = small[i];                                                                     \
            } else if (i < 12) {                                                                      \
                memcpy(ki, r, 32);                                                                    \
                ki[0] -= i - 5;                                                                       \
            } else if (i == 12) { /* every byte 0xff up to 2^248 */                                   \
                ki[0] = ki[1] = ki[2] = ~(limb_t)0;                                                   \
                ki[3] = 0x00ffffffffffffffULL;                                                        \
            } else                                                                                    \
                rand_scalar(ki, 0);                                                                   \
        }                                                                                             \
        cuzk_gpu_msg m;                                                                               \
        gpu_check(cuzk_gpu_fixed_base(CURVE, GROUP, gen, k, N, got, &m), &m);                         \
        for (size_t i = 0; i < N; i++) {                                                              \
            G##_jacobian want;                                                                        \
            G##_affine wa;                                                                            \
            CHECK(G##_msm_pippenger_var(&want, gen, (const unsigned char *)(k + 4 * i), NULL, 1, 1) == CUZK_OK); \
            G##_to_affine(&wa, &want);                                                                \
            if (memcmp(&wa, &got[i], sizeof(wa)) != 0)                                                \
                fprintf(stderr, "fixed-base scalar %zu differs\n", i);                               \
            CHECK(memcmp(&wa, &got[i], sizeof(wa)) == 0);                                             \
        }                                                                                             \
        free(k);                                                                                      \
        free(got);                                                                                    \
    }
FIXED_BASE_TEST(bls12_381_g1, CUZK_CURVE_BLS12_381, 1, BLS12_381_R_SCALAR)
FIXED_BASE_TEST(bls12_381_g2, CUZK_CURVE_BLS12_381, 2, BLS12_381_R_SCALAR)
FIXED_BASE_TEST(bn254_g1, CUZK_CURVE_BN254, 1, BN254_R_SCALAR)
FIXED_BASE_TEST(bn254_g2, CUZK_CURVE_BN254, 2, BN254_R_SCALAR)

/* --- NTT --------------------------------------------------------------- */

#define NTT_TEST(C, CURVE)                                                                            \
    static void test_ntt_##C(void)                                                                    \
    {                                                                                                 \
        test_context = "ntt " #C;                                                                     \
        static const unsigned logs[] = {1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 16, 19, 21};           \
        for (size_t li = 0; li < CUZK_ARRAY_LEN(logs); li++) {                                        \
            unsigned lg = logs[li];                                                                   \
            size_t n = (size_t)1 << lg;                                                               \
            C##_fr *x = malloc(n * sizeof(C##_fr)), *want = malloc(n * sizeof(C##_fr)),               \
                   *got = malloc(n * sizeof(C##_fr));                                                 \
            for (size_t i = 0; i < n; i++)                                                            \
                C##_fr_rand(&x[i], i + 4);                                                            \
            C##_fr_ntt_domain dom;                                                                    \
            CHECK(C##_fr_ntt_domain_init(&dom, lg, 0) == CUZK_OK);                                       \
            for (int kind = GPU_NTT_FORWARD; kind <= GPU_NTT_ODD_COSET; kind++) {                     \
                memcpy(want, x, n * sizeof(C##_fr));                                                  \
                memcpy(got, x, n * sizeof(C##_fr));                                                   \
                if (kind == GPU_NTT_FORWARD)                                                          \
                    C##_fr_ntt_forward(want, &dom);                                                   \
                else if (kind == GPU_NTT_INVERSE)                                                     \
                    C##_fr_ntt_inverse(want, &dom);                                                   \
                else                                                                                  \
                    C##_fr_ntt_to_odd_coset(want, &dom);                                              \
                /* the prover's kernel, every pass size (kernel 2 with 3 and 4:                       \
                 * stage 1's pass of every shape), the radix-2 one */                                  \
                static const int variants[][2] = {{-1, 0}, {0, 3}, {0, 4}, {0, 5}, {0, 7}, {0, 9},    \
                                                  {0, 11}, {2, 3}, {2, 4}, {2, 10}, {2, 11}, {1, 0}}; \
                for (size_t vi = 0; vi < CUZK_ARRAY_LEN(variants); vi++) {                            \
                    if (variants[vi][1] && lg > 16 && variants[vi][1] < 9)                            \
                        continue; /* many small passes of 2^21: slow, nothing new */                  \
                    memcpy(got, x, n * sizeof(C##_fr));                                               \
                    cuzk_gpu_msg m;                                                                   \
                    double ms;                                                                        \
                    gpu_check(cuzk_gpu_ntt(CURVE, kind, got, lg, variants[vi][0],                     \
                                           (unsigned)variants[vi][1], &ms, &m),                       \
                              &m);                                                                    \
                    if (memcmp(want, got, n * sizeof(C##_fr)) != 0)                                   \
                        fprintf(stderr, "log n %u, kind %d, kernel %d, pass bits %d\n", lg, kind,     \
                                variants[vi][0], variants[vi][1]);                                    \
                    CHECK(memcmp(want, got, n * sizeof(C##_fr)) == 0);                                \
                }                                                                                     \
            }                                                                                         \
            C##_fr_ntt_domain_free(&dom);                                                             \
            free(x);                                                                                  \
            free(want);                                                                               \
            free(got);                                                                                \
        }                                                                                             \
    }

NTT_TEST(bls12_381, CUZK_CURVE_BLS12_381)
NTT_TEST(bn254, CUZK_CURVE_BN254)

/* --- whole proofs ------------------------------------------------------ */

static void random_below_r(unsigned char out[32], const curve_desc *c)
{
    do {
        test_rand_limbs((limb_t *)(void *)out, 4);
        out[31] &= 0x3f;
    } while (!bytes_below(out, c->r, 32));
}

/* key: a .zkey, or with r1cs a .params key of that circuit; gpu_eval: the
 * GPU evaluates a, b and splits the witness (the key's
 * matrices resident), else the CPU does (CUZK_GPU_EVAL_CPU); chunk: the
 * MSMs over at most that many points at a time (the streamed path;
 * gpu_msm_chunk), 0 whole; upload: cuzk_gpu_upload */
static void test_key_proof_bytes(const char *key, const char *r1cs, const char *wtns, int gpu_eval, unsigned chunk,
                                 int upload)
{
    char ctx[4400];
    snprintf(ctx, sizeof(ctx), "GPU proof == CPU proof: %s (%s evaluates, MSM chunk %u, %s uploads)",
             r1cs ? r1cs : key, gpu_eval ? "GPU" : "CPU", chunk,
             upload == CUZK_GPU_UPLOAD_PINNED ? "pinned" : "pageable");
    test_context = ctx;
    cuzk_zkey *zk;
    cuzk_wtns *w;
    cuzk_error err;
    int orc = r1cs ? cuzk_params_open(&zk, key, r1cs, NULL, NULL, &err) : cuzk_zkey_open(&zk, key, &err);
    if (orc != CUZK_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(orc == CUZK_OK);
    CHECK(cuzk_wtns_open(&w, wtns, &err) == CUZK_OK);
    for (int round = 0; round < 3; round++) {
        unsigned char r[32] = {0}, s[32] = {0};
        if (round == 1)
            r[0] = 1;
        if (round == 2) {
            random_below_r(r, zk->curve);
            random_below_r(s, zk->curve);
        }
        core_prove_out cpu, gpu;
        cuzk_prove_options oc = {.threads = 2, .device = CUZK_DEVICE_CPU};
        cuzk_prove_options og = {.threads = 2, .device = CUZK_DEVICE_GPU, .gpu_upload = upload,
                                 .gpu_eval = gpu_eval ? CUZK_GPU_EVAL_GPU : CUZK_GPU_EVAL_CPU, .gpu_msm_chunk = chunk};
        cuzk_timings t;
        int rc = engine_prove_with(zk, w, r, s, &oc, &cpu, NULL, &err);
        if (rc != CUZK_OK)
            fprintf(stderr, "%s\n", err.message);
        CHECK(rc == CUZK_OK);
        rc = engine_prove_with(zk, w, r, s, &og, &gpu, &t, &err);
        if (rc != CUZK_OK)
            fprintf(stderr, "%s\n", err.message);
        CHECK(rc == CUZK_OK);
        CHECK(strcmp(t.device, "gpu 0") == 0);
        int evaluates = -1;
        CHECK(residency_state_of(zk, 0, &evaluates) == RESIDENCY_RESIDENT && evaluates == gpu_eval);
        CHECK(cpu.n_ones == gpu.n_ones && cpu.n_tail == gpu.n_tail);
        CHECK(memcmp(cpu.a, gpu.a, zk->curve->g1_bytes) == 0);
        CHECK(memcmp(cpu.b, gpu.b, zk->curve->g2_bytes) == 0);
        CHECK(memcmp(cpu.c, gpu.c, zk->curve->g1_bytes) == 0);
    }
    cuzk_wtns_free(w);
    cuzk_zkey_free(zk);
}

static void test_proof_bytes(const char *curve, const char *name, int gpu_eval, unsigned chunk, int upload)
{
    char key[4096], wtns[4096];
    snprintf(key, sizeof(key), "%s/%s/%s.zkey", fixtures, curve, name);
    snprintf(wtns, sizeof(wtns), "%s/%s/%s.wtns", fixtures, curve, name);
    test_key_proof_bytes(key, NULL, wtns, gpu_eval, chunk, upload);
}

/* The same for a bellperson .params key of a circuit (setup from fresh
 * randomness): density-filtered A and B, H's quotient coefficients. */
static char params_dir[] = "/tmp/cuzk-test-gpu-XXXXXX";
static void test_params_proof_bytes(const char *r1cs, const char *wtns, int gpu_eval, unsigned chunk, int upload)
{
    char key[4200];
    snprintf(key, sizeof(key), "%s/k.params", params_dir);
    cuzk_setup_options so = {.device = CUZK_DEVICE_AUTO, .format = CUZK_KEY_PARAMS};
    cuzk_error err;
    int rc = cuzk_setup(r1cs, NULL, key, &so, &err);
    if (rc != CUZK_OK)
        fprintf(stderr, "setup of %s: %s\n", r1cs, err.message);
    CHECK(rc == CUZK_OK);
    test_key_proof_bytes(key, r1cs, wtns, gpu_eval, chunk, upload);
    unlink(key);
}


/* Uploads through copy_to_device, pinned and not, on both lanes: sizes
 * around its 16 MiB slot (below: one plain copy; above: the slots in
 * turn, the last one partial), from an odd address; the bytes come back
 * equal. Two threads at once on one lane share its slots. */
struct copy_job {
    const unsigned char *src;
    size_t len;
    int lane, pinned, ok;
};

static void *copy_thread(void *arg)
{
    struct copy_job *j = arg;
    unsigned char *back = malloc(j->len ? j->len : 1);
    cuzk_gpu_msg m = {{0}};
    j->ok = back && cuzk_gpu_copy_roundtrip(j->src, j->len, j->lane, j->pinned, back, &m) == CUZK_OK &&
            memcmp(back, j->src, j->len) == 0;
    if (!j->ok)
        fprintf(stderr, "copy of %zu bytes (lane %d, pinned %d): %s\n", j->len, j->lane, j->pinned, m.text);
    free(back);
    return NULL;
}

static void test_upload_copies(void)
{
    test_context = "uploads through pinned slots";
    const size_t slot = (size_t)16 << 20, max = 3 * slot + 4096;
    unsigned char *buf = malloc(max + 1);
    CHECK(buf != NULL);
    for (size_t i = 0; i <= max; i++)
        buf[i] = (unsigned char)(i * 2654435761u >> 13);
    const size_t sizes[] = {0, 1, slot - 1, slot, slot + 1, 2 * slot, 3 * slot + 4095};
    for (int pinned = 0; pinned < 2; pinned++)
        for (int lane = 0; lane < 2; lane++)
            for (size_t i = 0; i < CUZK_ARRAY_LEN(sizes); i++) {
                struct copy_job j = {buf + i % 2, sizes[i], lane, pinned, 0};
                copy_thread(&j);
                CHECK(j.ok);
            }
    struct copy_job jobs[2] = {{buf, 2 * slot + 77, 1, 1, 0}, {buf + 1, 3 * slot, 1, 1, 0}};
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        CHECK(pthread_create(&th[t], NULL, copy_thread, &jobs[t]) == 0);
    for (int t = 0; t < 2; t++) {
        CHECK(pthread_join(th[t], NULL) == 0);
        CHECK(jobs[t].ok);
    }
    free(buf);
}

/* Each group of checks with its time on stderr: a slow group shows where
 * (the whole run takes minutes on the H200). TEST_GPU_ONLY=SUBSTRING runs
 * only the groups whose name contains it, and no proofs (a kernel's checks
 * in seconds while it is being worked on). */
static const char *only_steps;
static double seconds_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec * 1e-9;
}
#define STEP(f)                                                                                       \
    do {                                                                                              \
        if (only_steps && !strstr(#f, only_steps))                                                    \
            break;                                                                                    \
        double t0_ = seconds_now();                                                                   \
        f();                                                                                          \
        fprintf(stderr, "test_gpu: %s %.1f s\n", #f, seconds_now() - t0_);                            \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    int gpus = 0;
    if (!cuzk_has_cuda() || cuzk_gpu_count(&gpus) != CUZK_OK || gpus == 0) {
        printf("SKIP: %s\n", cuzk_has_cuda() ? "no CUDA GPU on this machine" : "built without CUDA");
        return 77;
    }
    fixtures = argv[1];
    only_steps = getenv("TEST_GPU_ONLY");
    if (only_steps && !*only_steps)
        only_steps = NULL;
    test_init("test_gpu");
    STEP(test_field_bls12_381_fp);
    STEP(test_field_bls12_381_fr);
    STEP(test_field_bn254_fp);
    STEP(test_field_bn254_fr);
    STEP(test_field_bls12_381_fp2);
    STEP(test_field_bn254_fp2);
    STEP(test_ec_bls12_381_g1);
    STEP(test_ec_bls12_381_g2);
    STEP(test_ec_bn254_g1);
    STEP(test_ec_bn254_g2);
    STEP(test_ntt_bls12_381);
    STEP(test_ntt_bn254);
    STEP(test_msm_bls12_381_g1);
    STEP(test_msm_bn254_g1);
    STEP(test_msm_bls12_381_g2);
    STEP(test_msm_bn254_g2);
    STEP(test_msm_large_bls12_381_g1);
    STEP(test_msm_large_bn254_g1);
    STEP(test_fixed_base_bls12_381_g1);
    STEP(test_fixed_base_bls12_381_g2);
    STEP(test_fixed_base_bn254_g1);
    STEP(test_fixed_base_bn254_g2);
    STEP(test_upload_copies);
    if (only_steps) {
        test_done("test_gpu");
        return 0;
    }
    static const char *curves[2] = {"bn128", "bls12381"};
    static const char *names[3] = {"tiny", "mul1k", "poseidon3"};
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++)
            for (int gpu_eval = 1; gpu_eval >= 0; gpu_eval--) {
                test_proof_bytes(curves[k], names[j], gpu_eval, 0, CUZK_GPU_UPLOAD_PAGEABLE);
                /* chunks of 1 (every point its own Pippenger), 7 and 300;
                 * these with the uploads through the pinned slots */
                static const unsigned chunks[3] = {1, 7, 300};
                test_proof_bytes(curves[k], names[j], gpu_eval, chunks[(j + (unsigned)gpu_eval) % 3],
                                 CUZK_GPU_UPLOAD_PINNED);
            }
    /* bellperson .params keys: the fixtures' BLS12-381 circuits and a
     * 2^16-constraint sha256 chain */
    CHECK(mkdtemp(params_dir) != NULL);
    for (int j = 0; j < 4; j++) {
        char r1cs[4200], wtns[4200];
        if (j < 3) {
            snprintf(r1cs, sizeof(r1cs), "%s/bls12381/%s.r1cs", fixtures, names[j]);
            snprintf(wtns, sizeof(wtns), "%s/bls12381/%s.wtns", fixtures, names[j]);
        } else {
            snprintf(r1cs, sizeof(r1cs), "%s/chain.r1cs", params_dir);
            snprintf(wtns, sizeof(wtns), "%s/chain.wtns", params_dir);
            cuzk_circuit_options co = {.curve = CUZK_CURVE_BLS12_381, .constraints = 1u << 16, .seed = 3,
                                       .n_public = 8};
            cuzk_circuit_info ci;
            cuzk_error err;
            CHECK(cuzk_circuit_sha256_chain(r1cs, wtns, &co, &ci, &err) == CUZK_OK);
        }
        for (int gpu_eval = 1; gpu_eval >= 0; gpu_eval--) {
            test_params_proof_bytes(r1cs, wtns, gpu_eval, 0, CUZK_GPU_UPLOAD_PAGEABLE);
            test_params_proof_bytes(r1cs, wtns, gpu_eval, (unsigned[]){1, 7, 300}[(j + gpu_eval) % 3],
                                    CUZK_GPU_UPLOAD_PINNED);
        }
        if (j == 3) {
            unlink(r1cs);
            unlink(wtns);
        }
    }
    rmdir(params_dir);
    {
        /* bad GPU options are refused naming the field */
        cuzk_zkey *zk;
        cuzk_wtns *w;
        cuzk_error err;
        char p[4096];
        snprintf(p, sizeof(p), "%s/bn128/tiny.zkey", fixtures);
        CHECK(cuzk_zkey_open(&zk, p, &err) == CUZK_OK);
        snprintf(p, sizeof(p), "%s/bn128/tiny.wtns", fixtures);
        CHECK(cuzk_wtns_open(&w, p, &err) == CUZK_OK);
        char *proof, *pub;
        cuzk_prove_options og = {.device = CUZK_DEVICE_GPU, .gpu_upload = 7};
        CHECK(cuzk_prove(zk, w, &og, &proof, &pub, NULL, &err) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(strstr(err.message, "gpu_upload") != NULL);
        og = (cuzk_prove_options){.device = CUZK_DEVICE_GPU, .gpu_eval = -1};
        CHECK(cuzk_prove(zk, w, &og, &proof, &pub, NULL, &err) == CUZK_ERR_INVALID_ARGUMENT);
        CHECK(strstr(err.message, "gpu_eval") != NULL);
        cuzk_wtns_free(w);
        cuzk_zkey_free(zk);
    }
    test_done("test_gpu");
    return 0;
}
