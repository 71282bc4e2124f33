/* MSM and NTT against slow references, for the backend this program is
 * built for:
 *   - Pippenger and the batched affine sum against double-and-add, on
 *     random scalars and skewed ones (all zero, all one, 90 % bits, repeated
 *     points, points at infinity, n = 1, n not a power of two), with and
 *     without an index list; the 0/1/other classification;
 *   - NTT round trips, forward NTT against direct evaluation, the odd-coset
 *     transform against evaluating the interpolated polynomial at
 *     inc * w^k, for n = 2 ... 256. */
#include "msm/msms.h"
#include "ntt/ntts.h"
#include "test_util.h"


enum { SKEW_RANDOM, SKEW_ZERO, SKEW_ONE, SKEW_BITS, SKEW_SMALL, SKEW_COUNT };

/* scalar i of kind `skew`, below 2^254 (so below r on both curves) */
static void make_scalar(limb_t k[4], int skew)
{
    memset(k, 0, 32);
    switch (skew) {
    case SKEW_RANDOM:
        test_rand_limbs(k, 4);
        k[3] &= 0x3fffffffffffffffULL;
        break;
    case SKEW_ZERO:
        break;
    case SKEW_ONE:
        k[0] = 1;
        break;
    case SKEW_BITS: /* 90 % 0 or 1, the rest random */
        if (test_rand64() % 10 == 0) {
            test_rand_limbs(k, 4);
            k[3] &= 0x3fffffffffffffffULL;
        } else {
            k[0] = test_rand64() & 1;
        }
        break;
    case SKEW_SMALL:
        k[0] = test_rand64() % 5;
        break;
    }
}

#define MSM_TESTS(G, R)                                                                              \
    static void test_msm_##G(void)                                                                   \
    {                                                                                                \
        test_context = "msm " #G;                                                                    \
        static const size_t sizes[] = {1, 2, 3, 7, 33, 100, 257, 1000, 3000};                       \
        /* CUZK_TEST_ITERS below the default (sanitizer builds) drops the largest sizes */          \
        size_t max_n = test_iters(3000) >= 3000 ? 3000 : 300;                                        \
        for (size_t si = 0; si < CUZK_ARRAY_LEN(sizes) && sizes[si] <= max_n; si++) {                \
            size_t n = sizes[si];                                                                    \
            for (int skew = 0; skew < SKEW_COUNT; skew++) {                                          \
                if (n >= 1000 && skew != SKEW_RANDOM && skew != SKEW_BITS)                           \
                    continue;                                                                        \
                G##_affine *pts = malloc(n * sizeof(*pts));                                          \
                limb_t *k = malloc(n * 32);                                                          \
                uint32_t *idx = malloc(n * sizeof(uint32_t)), *ones = malloc(n * 4), *tail = malloc(n * 4); \
                G##_jacobian g, p, want, got, s, t;                                                  \
                G##_generator(&g);                                                                   \
                for (size_t i = 0; i < n; i++) {                                                     \
                    limb_t e[4];                                                                     \
                    /* a few distinct points, repeated, and some at infinity */                      \
                    e[0] = 1 + test_rand64() % (n < 16 ? 3 : 40);                                    \
                    e[1] = e[2] = e[3] = 0;                                                          \
                    G##_mul_var(&p, &g, e, 64);                                                      \
                    G##_to_affine(&pts[i], &p);                                                      \
                    if (test_rand64() % 50 == 0)                                                     \
                        G##_affine_set_infinity(&pts[i]);                                            \
                    make_scalar(k + 4 * i, skew);                                                    \
                }                                                                                    \
                const unsigned char *P = (const unsigned char *)pts, *K = (const unsigned char *)k;  \
                G##_msm_naive_var(&want, P, K, n);                                                       \
                CHECK(G##_msm_pippenger_var(&got, P, K, NULL, n, 1 + (int)(n % 3)) == CUZK_OK);          \
                CHECK(G##_eq(&got, &want));                                                          \
                for (int mode = MSM_XYZZ_BUCKETS; mode <= MSM_AFFINE_BUCKETS; mode++) {              \
                    CHECK(G##_msm_pippenger_mode_var(&got, P, K, NULL, n, 2, mode) == CUZK_OK);          \
                    CHECK(G##_eq(&got, &want));                                                      \
                }                                                                                    \
                /* the prover's split: 1s summed, the rest by Pippenger */                           \
                size_t no, nt;                                                                       \
                msm_classify_var(K, 0, n, ones, &no, tail, &nt);                                         \
                size_t nz = 0;                                                                       \
                for (size_t i = 0; i < n; i++)                                                       \
                    nz += msm_scalar_class(K, i) == MSM_ZERO;                                        \
                CHECK(no + nt + nz == n);                                                            \
                CHECK(G##_msm_sum_var(&s, P, ones, no) == CUZK_OK);                                      \
                CHECK(G##_msm_pippenger_var(&t, P, K, tail, nt, 2) == CUZK_OK);                          \
                G##_add_var(&got, &s, &t);                                                           \
                CHECK(G##_eq(&got, &want));                                                          \
                /* the sum of all points, against adding one by one */                               \
                for (size_t i = 0; i < n; i++)                                                       \
                    idx[i] = (uint32_t)i;                                                            \
                CHECK(G##_msm_sum_var(&s, P, idx, n) == CUZK_OK);                                        \
                G##_set_infinity(&t);                                                                \
                for (size_t i = 0; i < n; i++)                                                       \
                    G##_add_affine_var(&t, &t, &pts[i]);                                             \
                CHECK(G##_eq(&s, &t));                                                               \
                /* without an index list (n >= 2 MSM_SUM_MIN_SHARE: shared by the threads) */       \
                CHECK(G##_msm_sum_var(&s, P, NULL, n) == CUZK_OK);                                       \
                CHECK(G##_eq(&s, &t));                                                               \
                free(pts);                                                                           \
                free(k);                                                                             \
                free(idx);                                                                           \
                free(ones);                                                                          \
                free(tail);                                                                          \
            }                                                                                        \
        }                                                                                            \
        /* P + (-P) pairs and P + P pairs inside the affine sum */                                   \
        G##_affine pq[4];                                                                            \
        G##_jacobian g, s, t;                                                                        \
        G##_generator(&g);                                                                           \
        G##_to_affine(&pq[0], &g);                                                                   \
        G##_affine_neg(&pq[1], &pq[0]);                                                              \
        pq[2] = pq[0];                                                                               \
        pq[3] = pq[0];                                                                               \
        CHECK(G##_msm_sum_var(&s, (const unsigned char *)pq, NULL, 2) == CUZK_OK && G##_is_infinity(&s)); \
        CHECK(G##_msm_sum_var(&s, (const unsigned char *)(pq + 2), NULL, 2) == CUZK_OK);                 \
        G##_double(&t, &g);                                                                          \
        CHECK(G##_eq(&s, &t));                                                                       \
        CHECK(G##_msm_sum_var(&s, (const unsigned char *)pq, NULL, 0) == CUZK_OK && G##_is_infinity(&s)); \
        CHECK(G##_msm_pippenger_var(&s, (const unsigned char *)pq, NULL, NULL, 0, 2) == CUZK_OK &&       \
              G##_is_infinity(&s));                                                                  \
        /* a scalar near 2^255 and r - 1 */                                                          \
        limb_t big[8] = {0};                                                                         \
        static const limb_t order[4] = R;                                                            \
        memcpy(big, order, 32);                                                                      \
        big[0] -= 1;                                                                                 \
        big[4] = ~0ULL;                                                                              \
        big[5] = ~0ULL;                                                                              \
        big[6] = ~0ULL;                                                                              \
        big[7] = 0x7fffffffffffffffULL;                                                              \
        G##_msm_naive_var(&t, (const unsigned char *)pq, (const unsigned char *)big, 2);                 \
        CHECK(G##_msm_pippenger_var(&s, (const unsigned char *)pq, (const unsigned char *)big, NULL, 2, 1) == CUZK_OK); \
        CHECK(G##_eq(&s, &t));                                                                       \
    }

MSM_TESTS(bls12_381_g1, BLS12_381_R_SCALAR)
MSM_TESTS(bls12_381_g2, BLS12_381_R_SCALAR)
MSM_TESTS(bn254_g1, BN254_R_SCALAR)
MSM_TESTS(bn254_g2, BN254_R_SCALAR)

/* The two conventions' 2^s-th roots (src/ntt/ntt_impl.h): g^((r-1)/2^s)
 * for g = 5 (snarkjs) and 7 (bellperson: blstrs' and sppark's constant),
 * the first the second's K-th power, and K odd (bellperson_index is then a
 * permutation of every domain). */
#define NTT_ROOT_TESTS(F, C)                                                                         \
    static void test_ntt_roots_##F(void)                                                             \
    {                                                                                                \
        test_context = "ntt roots " #F;                                                              \
        static const limb_t r[4] = C##_MODULUS;                                                      \
        limb_t e[4];                                                                                 \
        for (int i = 0; i < 4; i++) /* (r - 1) >> s: the low limb's bit 0 is r's, cleared by the shift */ \
            e[i] = r[i];                                                                             \
        for (unsigned k = 0; k < C##_TWO_ADICITY; k++)                                               \
            for (int i = 0; i < 4; i++)                                                              \
                e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);                                   \
        for (int bp = 0; bp < 2; bp++) {                                                             \
            F g, want, w;                                                                            \
            F##_from_u64(&g, bp ? 7 : 5);                                                            \
            F##_pow(&want, &g, e, 256);                                                              \
            F##_ntt_root(&w, C##_TWO_ADICITY, bp);                                                   \
            CHECK_MSG(F##_eq(&want, &w), "the %s root", bp ? "bellperson" : "snarkjs");              \
        }                                                                                            \
        F w5, w7, t;                                                                                 \
        F##_ntt_root(&w5, C##_TWO_ADICITY, 0);                                                       \
        F##_ntt_root(&w7, C##_TWO_ADICITY, 1);                                                       \
        limb_t k[1] = {C##_ROOT_7_LOG5};                                                             \
        F##_pow(&t, &w5, k, 64);                                                                     \
        CHECK(F##_eq(&t, &w7) && (k[0] & 1));                                                        \
        for (unsigned lg = 1; lg <= 10; lg++) { /* a permutation: every index hit once */             \
            size_t n = (size_t)1 << lg;                                                              \
            unsigned char *hit = calloc(n, 1);                                                       \
            for (size_t i = 0; i < n; i++)                                                           \
                hit[F##_ntt_bellperson_index(i, lg)]++;                                              \
            for (size_t i = 0; i < n; i++)                                                           \
                CHECK(hit[i] == 1);                                                                  \
            free(hit);                                                                               \
        }                                                                                            \
    }

NTT_ROOT_TESTS(bls12_381_fr, BLS12_381_FR)
NTT_ROOT_TESTS(bn254_fr, BN254_FR)

#define NTT_TESTS(F)                                                                                 \
    static void test_ntt_##F(void)                                                                   \
    {                                                                                                \
        test_context = "ntt " #F;                                                                    \
        for (unsigned step = 0; step < 16; step++) {                                                 \
            unsigned log_n = 1 + step % 8;                                                           \
            int bp = step >= 8; /* bellperson's root, then snarkjs's */                              \
            size_t n = (size_t)1 << log_n;                                                           \
            F##_ntt_domain d;                                                                        \
            CHECK(F##_ntt_domain_init(&d, log_n, bp) == CUZK_OK);                                    \
            F *a = malloc(n * sizeof(F)), *b = malloc(n * sizeof(F)), *c = malloc(n * sizeof(F));    \
            for (size_t i = 0; i < n; i++)                                                           \
                TEST_RAND_FIELD(F, &a[i]);                                                           \
            /* w has order exactly n */                                                              \
            F w, inc, x, t;                                                                          \
            F##_ntt_root(&w, log_n, bp);                                                             \
            F##_ntt_root(&inc, log_n + 1, bp);                                                       \
            t = w;                                                                                   \
            for (unsigned i = 1; i < log_n; i++)                                                     \
                F##_sqr(&t, &t);                                                                     \
            F##_neg(&t, &t);                                                                         \
            CHECK(F##_is_one(&t)); /* w^(n/2) = -1 */                                                \
            F##_sqr(&t, &inc);                                                                       \
            CHECK(F##_eq(&t, &w));                                                                   \
            /* forward against direct evaluation: b_k = sum a_j w^(jk) */                           \
            memcpy(b, a, n * sizeof(F));                                                             \
            F##_ntt_forward(b, &d);                                                                  \
            for (size_t k = 0; k < n; k++) {                                                         \
                F acc, pw, wk;                                                                       \
                limb_t e = k;                                                                        \
                F##_pow(&wk, &w, &e, 64);                                                            \
                F##_zero(&acc);                                                                      \
                F##_one(&pw);                                                                        \
                for (size_t j = 0; j < n; j++) {                                                     \
                    F##_mul(&x, &a[j], &pw);                                                         \
                    F##_add(&acc, &acc, &x);                                                         \
                    F##_mul(&pw, &pw, &wk);                                                          \
                }                                                                                    \
                CHECK(F##_eq(&acc, &b[k]));                                                          \
            }                                                                                        \
            /* round trip */                                                                         \
            F##_ntt_inverse(b, &d);                                                                  \
            CHECK(memcmp(a, b, n * sizeof(F)) == 0);                                                 \
            /* odd coset: the polynomial through (w^j, a_j), evaluated at inc w^k. The           \
             * coefficients come from the inverse transform checked above. */                       \
            memcpy(b, a, n * sizeof(F));                                                             \
            F##_ntt_inverse(b, &d); /* coefficients */                                               \
            memcpy(c, a, n * sizeof(F));                                                             \
            F##_ntt_to_odd_coset(c, &d);                                                             \
            for (size_t k = 0; k < n; k++) {                                                         \
                F pt, acc, pw;                                                                       \
                limb_t e = k;                                                                        \
                F##_pow(&pt, &w, &e, 64);                                                            \
                F##_mul(&pt, &pt, &inc);                                                             \
                F##_zero(&acc);                                                                      \
                F##_one(&pw);                                                                        \
                for (size_t j = 0; j < n; j++) {                                                     \
                    F##_mul(&x, &b[j], &pw);                                                         \
                    F##_add(&acc, &acc, &x);                                                         \
                    F##_mul(&pw, &pw, &pt);                                                          \
                }                                                                                    \
                CHECK(F##_eq(&acc, &c[k]));                                                          \
            }                                                                                        \
            free(a);                                                                                 \
            free(b);                                                                                 \
            free(c);                                                                                 \
            F##_ntt_domain_free(&d);                                                                 \
        }                                                                                            \
        /* 2^14: the tables are built by several threads, each from a power of                   \
         * its own; spot checks against pow at the ends and the shares' edges */                    \
        {                                                                                            \
            const unsigned lg = 14;                                                                  \
            const size_t n = (size_t)1 << lg;                                                        \
            F##_ntt_domain big;                                                                      \
            CHECK(F##_ntt_domain_init(&big, lg, 0) == CUZK_OK);                                         \
            F w, wi, inc, ninv, want, t;                                                             \
            F##_ntt_root(&w, lg, 0);                                                                    \
            F##_inv_var(&wi, &w);                                                                    \
            F##_ntt_root(&inc, lg + 1, 0);                                                              \
            F##_from_u64(&ninv, n);                                                                  \
            F##_inv_var(&ninv, &ninv);                                                               \
            static const size_t at[] = {0, 1, 2, 1023, 1024, 2047, 2048, 2049, 4095, 4096, 6143,    \
                                        8191, 8192, 12287, 16383};                                  \
            for (size_t q = 0; q < CUZK_ARRAY_LEN(at); q++) {                                        \
                size_t i = at[q];                                                                    \
                limb_t e = i;                                                                        \
                if (i < n / 2) {                                                                     \
                    F##_pow(&want, &w, &e, 64);                                                      \
                    CHECK(F##_eq(&want, &big.tw[i]));                                                \
                    F##_pow(&want, &wi, &e, 64);                                                     \
                    CHECK(F##_eq(&want, &big.itw[i]));                                               \
                }                                                                                    \
                F##_pow(&t, &inc, &e, 64);                                                           \
                F##_mul(&want, &t, &ninv);                                                           \
                CHECK(F##_eq(&want, &big.scale[F##_ntt_bitrev(i, lg)]));                             \
            }                                                                                        \
            F##_ntt_domain_free(&big);                                                               \
        }                                                                                            \
        F##_ntt_domain d;                                                                            \
        CHECK(F##_ntt_domain_init(&d, 0, 0) == CUZK_ERR_UNSUPPORTED);                                   \
        CHECK(F##_ntt_domain_init(&d, 64, 0) == CUZK_ERR_UNSUPPORTED);                                  \
    }

NTT_TESTS(bls12_381_fr)
NTT_TESTS(bn254_fr)

int main(void)
{
    test_require_backend();
    test_init("test_msm_ntt");
    test_ntt_roots_bls12_381_fr();
    test_ntt_roots_bn254_fr();
    test_ntt_bls12_381_fr();
    test_ntt_bn254_fr();
    test_msm_bls12_381_g1();
    test_msm_bls12_381_g2();
    test_msm_bn254_g1();
    test_msm_bn254_g2();
    test_done("test_msm_ntt");
    return 0;
}
