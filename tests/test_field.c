/* Field arithmetic against GMP, for every field and the backend this
 * program is built for (test_field_portable, test_field_adx): random inputs
 * with long runs of 0/1 bits plus edge cases, every operation. */
#include <gmp.h>

#include "field/fields.h"
#include "test_util.h"


#define TF bls12_381_fp
#define TF_C BLS12_381_FP
#include "field_tests_impl.h"
#define TF bls12_381_fr
#define TF_C BLS12_381_FR
#include "field_tests_impl.h"
#define TF bn254_fp
#define TF_C BN254_FP
#include "field_tests_impl.h"
#define TF bn254_fr
#define TF_C BN254_FR
#include "field_tests_impl.h"

/* The raw kernels of both backends on the same inputs, against GMP's
 * a*b/R mod p: catches a kernel bug even in the other backend's build. */
static void test_kernels(void)
{
    test_context = "Montgomery kernels";
    static const limb_t p6[6] = BLS12_381_FP_MODULUS, p4[4] = BN254_FP_MODULUS;
    static const limb_t q4[4] = BLS12_381_FR_MODULUS;
    mpz_t p, a, b, t, rinv;
    mpz_inits(p, a, b, t, rinv, NULL);
    long iters = test_iters(3000);
    for (int which = 0; which < 3; which++) {
        const limb_t *mod = which == 0 ? p6 : which == 1 ? p4 : q4;
        size_t n = which == 0 ? 6 : 4;
        limb_t n0 = which == 0 ? BLS12_381_FP_N0 : which == 1 ? BN254_FP_N0 : BLS12_381_FR_N0;
        mpz_import(p, n, -1, 8, 0, 0, mod);
        mpz_set_ui(rinv, 0);
        mpz_setbit(rinv, 64 * n);
        mpz_invert(rinv, rinv, p);
        for (long it = 0; it < iters; it++) {
            limb_t x[6] = {0}, y[6] = {0}, r1[6], r2[6];
            test_rand_limbs(x, n);
            test_rand_limbs(y, n);
            if (it == 0)
                memset(x, 0, sizeof(x));
            if (it == 1) { /* p - 1 squared */
                memcpy(x, mod, n * 8);
                x[0] -= 1;
                memcpy(y, x, sizeof(x));
            }
            mpz_import(a, n, -1, 8, 0, 0, x);
            mpz_mod(a, a, p);
            mpz_import(b, n, -1, 8, 0, 0, y);
            mpz_mod(b, b, p);
            memset(x, 0, sizeof(x));
            memset(y, 0, sizeof(y));
            size_t cnt;
            mpz_export(x, &cnt, -1, 8, 0, 0, a);
            mpz_export(y, &cnt, -1, 8, 0, 0, b);
            mpz_mul(t, a, b);
            mpz_mul(t, t, rinv);
            mpz_mod(t, t, p);
            limb_t expect[6] = {0};
            mpz_export(expect, &cnt, -1, 8, 0, 0, t);
            if (n == 6)
                mont_mul_6_portable(r1, x, y, mod, n0);
            else
                mont_mul_4_portable(r1, x, y, mod, n0);
            CHECK(memcmp(r1, expect, n * 8) == 0);
            mpz_mul(t, a, a);
            mpz_mul(t, t, rinv);
            mpz_mod(t, t, p);
            memset(expect, 0, sizeof(expect));
            mpz_export(expect, &cnt, -1, 8, 0, 0, t);
            if (n == 6)
                mont_sqr_6_portable(r2, x, mod, n0);
            else
                mont_sqr_4_portable(r2, x, mod, n0);
            CHECK(memcmp(r2, expect, n * 8) == 0);
#if defined(__x86_64__)
            if (test_cpu_has_adx()) {
                limb_t r3[6], r4[6];
                if (n == 6) {
                    cuzk_mulx_mont_6(r3, x, y, mod, n0);
                    cuzk_sqrx_mont_6(r4, x, mod, n0);
                } else {
                    cuzk_mulx_mont_4(r3, x, y, mod, n0);
                    cuzk_sqrx_mont_4(r4, x, mod, n0);
                }
                CHECK(memcmp(r3, r1, n * 8) == 0);
                CHECK(memcmp(r4, r2, n * 8) == 0);
            }
#endif
        }
    }
    mpz_clears(p, a, b, t, rinv, NULL);
}

/* Fp2 = Fp[u]/(u^2+1) against GMP formulas. */
#define FP2_TESTS(F2, F, FC)                                                                           \
    static void test_##F2(void)                                                                        \
    {                                                                                                  \
        test_context = #F2;                                                                            \
        mpz_t p, a0, a1, b0, b1, t, u;                                                                 \
        mpz_inits(p, a0, a1, b0, b1, t, u, NULL);                                                      \
        mpz_import(p, FC##_LIMBS, -1, 8, 0, 0, F##_modulus.l);                                         \
        long iters = test_iters(3000) / 4;                                                             \
        for (long it = 0; it < iters + 4; it++) {                                                      \
            F2 x, y, r, s;                                                                             \
            test_##F##_rand_mpz(a0, p);                                                                \
            test_##F##_rand_mpz(a1, p);                                                                \
            test_##F##_rand_mpz(b0, p);                                                                \
            test_##F##_rand_mpz(b1, p);                                                                \
            if (it == 0)                                                                               \
                mpz_set_ui(a1, 0); /* an element of Fp */                                              \
            if (it == 1)                                                                               \
                mpz_set_ui(a0, 0); /* a multiple of u */                                               \
            if (it == 2) {                                                                             \
                mpz_set_ui(a0, 0);                                                                     \
                mpz_set_ui(a1, 0);                                                                     \
            }                                                                                          \
            if (it == 3) { /* -1 */                                                                    \
                mpz_sub_ui(a0, p, 1);                                                                  \
                mpz_set_ui(a1, 0);                                                                     \
            }                                                                                          \
            test_##F##_from_mpz(&x.c0, a0);                                                            \
            test_##F##_from_mpz(&x.c1, a1);                                                            \
            test_##F##_from_mpz(&y.c0, b0);                                                            \
            test_##F##_from_mpz(&y.c1, b1);                                                            \
            /* (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (a0 b1 + a1 b0) u */                         \
            F2##_mul(&r, &x, &y);                                                                      \
            mpz_mul(t, a0, b0);                                                                        \
            mpz_submul(t, a1, b1);                                                                     \
            mpz_mod(t, t, p);                                                                          \
            test_##F##_check_eq_mpz(&r.c0, t);                                                         \
            mpz_mul(t, a0, b1);                                                                        \
            mpz_addmul(t, a1, b0);                                                                     \
            mpz_mod(t, t, p);                                                                          \
            test_##F##_check_eq_mpz(&r.c1, t);                                                         \
            F2##_sqr(&s, &x);                                                                          \
            F2##_mul(&r, &x, &x);                                                                      \
            CHECK(F2##_eq(&r, &s));                                                                    \
            F2##_add(&r, &x, &y);                                                                      \
            F2##_sub(&r, &r, &y);                                                                      \
            CHECK(F2##_eq(&r, &x));                                                                    \
            F2##_neg(&r, &x);                                                                          \
            F2##_add(&r, &r, &x);                                                                      \
            CHECK(F2##_is_zero(&r));                                                                   \
            F2##_dbl(&r, &x);                                                                          \
            F2##_half(&r, &r);                                                                         \
            CHECK(F2##_eq(&r, &x));                                                                    \
            /* conj: (a0, -a1); x * conj(x) = a0^2 + a1^2 in Fp */                                     \
            F2##_conj(&r, &x);                                                                         \
            F2##_mul(&r, &r, &x);                                                                      \
            mpz_mul(t, a0, a0);                                                                        \
            mpz_addmul(t, a1, a1);                                                                     \
            mpz_mod(t, t, p);                                                                          \
            test_##F##_check_eq_mpz(&r.c0, t);                                                         \
            CHECK(F##_is_zero(&r.c1));                                                                 \
            /* inverse */                                                                              \
            F2##_inv(&r, &x);                                                                          \
            F2##_inv_var(&s, &x);                                                                      \
            CHECK(F2##_eq(&r, &s));                                                                    \
            if (!F2##_is_zero(&x)) {                                                                   \
                F2##_mul(&s, &r, &x);                                                                  \
                CHECK(F2##_is_one(&s));                                                                \
            } else {                                                                                   \
                CHECK(F2##_is_zero(&r));                                                               \
            }                                                                                          \
            /* square roots: squares have one, and x is a square iff its norm is */                    \
            F2##_sqr(&s, &x);                                                                          \
            CHECK(F2##_sqrt(&r, &s) == 1);                                                             \
            F2##_sqr(&r, &r);                                                                          \
            CHECK(F2##_eq(&r, &s));                                                                    \
            int norm_square = mpz_legendre(t, p) >= 0; /* t = norm(x) from above */                    \
            CHECK(F2##_is_square(&x) == norm_square);                                                  \
            CHECK(F2##_sqrt(&r, &x) == norm_square);                                                   \
            /* pow against repeated multiplication */                                                  \
            limb_t e1 = test_rand64() % 300;                                                           \
            F2##_pow(&r, &x, &e1, 9);                                                                  \
            F2##_one(&s);                                                                              \
            for (limb_t k = 0; k < e1; k++)                                                            \
                F2##_mul(&s, &s, &x);                                                                  \
            CHECK(F2##_eq(&r, &s));                                                                    \
        }                                                                                              \
        enum { NB = 9 };                                                                               \
        F2 in[NB], out[NB], out_var[NB], one;                                                          \
        for (int i = 0; i < NB; i++) { /* from the seed */                                             \
            TEST_RAND_FIELD(F, &in[i].c0);                                                             \
            TEST_RAND_FIELD(F, &in[i].c1);                                                             \
        }                                                                                              \
        F2##_zero(&in[4]);                                                                             \
        F2##_batch_inv(out, in, NB);                                                                   \
        F2##_batch_inv_var(out_var, in, NB);                                                           \
        for (int i = 0; i < NB; i++) {                                                                 \
            F2##_inv(&one, &in[i]);                                                                    \
            CHECK(F2##_eq(&one, &out[i]));                                                             \
            CHECK(F2##_eq(&one, &out_var[i]));                                                         \
        }                                                                                              \
        mpz_clears(p, a0, a1, b0, b1, t, u, NULL);                                                     \
    }
FP2_TESTS(bls12_381_fp2, bls12_381_fp, BLS12_381_FP)
FP2_TESTS(bn254_fp2, bn254_fp, BN254_FP)

int main(void)
{
    test_require_backend();
    test_init("test_field");
    test_kernels();
    test_bls12_381_fp_run();
    test_bls12_381_fr_run();
    test_bn254_fp_run();
    test_bn254_fr_run();
    test_bls12_381_fp2();
    test_bn254_fp2();
    test_done("test_field");
    return 0;
}
