/* Exhaustive tests on a group of order 13 (secp256k1's tests_exhaustive.c
 * is the model): toy_g1, y^2 = x^3 + 1 over BN254's Fp, stamped through
 * the same templates as the real groups (src/ec/ec_impl.h for the group
 * law, src/msm/msm_impl.h for the MSMs), so the code under test is the
 * production code with other constants. With 13 elements every sum hits
 * the special cases (doubling, P + (-P), infinity) constantly, and every
 * scalar combination can be tried:
 *
 *   - the group law: for every pair of multiples a G, b G, each addition
 *     formula (complete, _var, mixed affine, XYZZ), doubling, negation,
 *     conversions and scalar multiplication (constant-time and _var) give
 *     (a + b) G, 2 a G, ... as the oracle table from tools/gen_toy_curve.py
 *     says (computed there with plain affine arithmetic);
 *   - the MSM: for n = 1, 2, 3 and bases over every tuple of multiples
 *     (n <= 2) or a set with repeats, inverses and infinity (n = 3), every
 *     scalar combination in [0, 13)^n, and a fifth of them plus random
 *     multiples of 13 (all 256 bits, every window and signed digit): the
 *     naive, Pippenger (both bucket kinds, one and two threads), and the
 *     prover's split (1s summed, the rest by Pippenger) all equal
 *     (sum k_i e_i mod 13) G.
 *
 * The prover does not fit on such a group: its NTTs need 8 | q - 1 (a
 * domain of 4 and the odd coset of 8) in the scalar field Z_q, and none of
 * the small prime orders BN254's twists offer (7, 13, 19, 29, 31, 37, 109,
 * 613, 983) has it; tests/test_prove.c checks the prover bit for bit
 * against a slow independent one instead.
 *
 * Built per CPU backend. Usage: test_exhaustive_<backend> */
#include "msm/msms.h"
#include "test_util.h"
#include "toy_curve.h"

#define EC toy_g1
#define ECF bn254_fp
#define EC_B {TOY_B}
#define EC_GEN_X {TOY_GEN_X}
#define EC_GEN_Y {TOY_GEN_Y}
#include "ec/ec_impl.h"

#define MSM_G toy_g1
#define MSM_F bn254_fp
#include "msm/msm_impl.h"

#define Q TOY_ORDER

static toy_g1_affine table[Q]; /* k G, the oracle (table[0]: infinity) */

static void load_table(void)
{
    static const toy_g1_affine multiples[Q - 1] = {TOY_MULTIPLES};
    toy_g1_affine_set_infinity(&table[0]);
    for (int k = 1; k < Q; k++)
        table[k] = multiples[k - 1];
}

/* Which multiple p is (-1: none of them: a bug). */
static int which(const toy_g1_jacobian *p)
{
    toy_g1_affine a;
    toy_g1_to_affine(&a, p);
    for (int k = 0; k < Q; k++)
        if (toy_g1_affine_eq(&a, &table[k]))
            return k;
    return -1;
}

static void jac(toy_g1_jacobian *r, int k)
{
    toy_g1_from_affine(r, &table[k]);
}

/* A non-normalized Jacobian form of k G (Z != 1), so the formulas see
 * general inputs. */
static void jac_scaled(toy_g1_jacobian *r, int k)
{
    jac(r, k);
    if (k == 0)
        return;
    bn254_fp z, z2, z3;
    limb_t raw[4] = {3 + (limb_t)k, 0, 0, 0};
    bn254_fp_from_raw(&z, raw);
    bn254_fp_sqr(&z2, &z);
    bn254_fp_mul(&z3, &z2, &z);
    bn254_fp_mul(&r->x, &r->x, &z2);
    bn254_fp_mul(&r->y, &r->y, &z3);
    r->z = z;
}

static void test_group_law(void)
{
    test_context = "toy group law";
    toy_g1_jacobian g;
    toy_g1_generator(&g);
    CHECK(which(&g) == 1);
    for (int k = 1; k < Q; k++)
        CHECK(toy_g1_affine_is_on_curve(&table[k]));
    for (int a = 0; a < Q; a++) {
        toy_g1_jacobian pa, pas, r, t;
        jac(&pa, a);
        jac_scaled(&pas, a);
        CHECK(which(&pas) == a);
        toy_g1_double(&r, &pas);
        CHECK(which(&r) == 2 * a % Q);
        toy_g1_neg(&r, &pas);
        CHECK(which(&r) == (Q - a) % Q);
        toy_g1_xyzz x;
        toy_g1_xyzz_set_infinity(&x);
        toy_g1_xyzz_double_affine(&x, &table[a]);
        toy_g1_xyzz_to_jacobian(&r, &x);
        CHECK(which(&r) == 2 * a % Q);
        for (int b = 0; b < Q; b++) {
            const int sum = (a + b) % Q;
            toy_g1_jacobian pb;
            jac_scaled(&pb, b);
            toy_g1_add(&r, &pas, &pb);
            CHECK(which(&r) == sum);
            toy_g1_add_var(&r, &pas, &pb);
            CHECK(which(&r) == sum);
            toy_g1_add_affine_var(&r, &pas, &table[b]);
            CHECK(which(&r) == sum);
            /* XYZZ: a bucket holding a G, plus b G (affine) or b G (XYZZ) */
            toy_g1_xyzz xa, xb, xs;
            toy_g1_xyzz_set_infinity(&xa);
            toy_g1_xyzz_add_affine_var(&xa, &xa, &table[a]);
            toy_g1_xyzz_add_affine_var(&xs, &xa, &table[b]);
            toy_g1_xyzz_to_jacobian(&r, &xs);
            CHECK(which(&r) == sum);
            toy_g1_xyzz_set_infinity(&xb);
            toy_g1_xyzz_add_affine_var(&xb, &xb, &table[b]);
            toy_g1_xyzz_add_var(&xs, &xa, &xb);
            toy_g1_xyzz_to_jacobian(&r, &xs);
            CHECK(which(&r) == sum);
            CHECK(toy_g1_eq(&pas, &pa));
            CHECK(toy_g1_eq(&pas, &pb) == (a == b));
            /* scalar multiplication by b, and by b + 13 m (the full width) */
            limb_t k[4] = {(limb_t)b, 0, 0, 0};
            toy_g1_mul(&r, &pa, k, 8);
            CHECK(which(&r) == a * b % Q);
            toy_g1_mul_var(&t, &pas, k, 8);
            CHECK(which(&t) == a * b % Q);
            limb_t big[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64() >> 2};
            /* big := big - (big mod 13) + b: the same residue b */
            uint64_t rem = 0;
            for (int i = 3; i >= 0; i--)
                rem = (uint64_t)((((unsigned __int128)rem << 64) | big[i]) % Q);
            unsigned __int128 acc = (unsigned __int128)big[0] + (limb_t)b + (Q - rem);
            big[0] = (limb_t)acc;
            for (int i = 1; i < 4 && (acc >>= 64); i++) {
                acc += big[i];
                big[i] = (limb_t)acc;
            }
            toy_g1_mul(&r, &pa, big, 256);
            CHECK(which(&r) == a * b % Q);
            toy_g1_mul_var(&t, &pas, big, 256);
            CHECK(which(&t) == a * b % Q);
        }
    }
    /* batch conversion to affine, infinity among the inputs */
    toy_g1_jacobian in[Q];
    toy_g1_affine out[Q];
    for (int k = 0; k < Q; k++)
        jac_scaled(&in[k], k);
    toy_g1_batch_to_affine_var(out, in, Q);
    for (int k = 0; k < Q; k++)
        CHECK(toy_g1_affine_eq(&out[k], &table[k]));
}

/* 32-byte little-endian scalar: k, plus 13 times a random multiplier when
 * wide (so every window of the 256 bits carries digits). */
static void scalar_bytes(unsigned char out[32], int k, int wide)
{
    limb_t v[4] = {(limb_t)k, 0, 0, 0};
    if (wide) {
        /* k + 13 m with m < 2^250: below 2^255, as the MSMs require */
        limb_t m[4] = {test_rand64(), test_rand64(), test_rand64(), test_rand64() >> 6};
        unsigned __int128 carry = (limb_t)k;
        for (int i = 0; i < 4; i++) {
            carry += (unsigned __int128)m[i] * Q;
            v[i] = (limb_t)carry;
            carry >>= 64;
        }
    }
    memcpy(out, v, 32);
}

/* One MSM instance: bases e[i] G, scalars k[i] (wide or not); every MSM
 * path, on 1 to max_threads threads, must give (sum k_i e_i mod 13) G. */
static void check_msm(const int *e, const int *k, size_t n, int wide, int max_threads)
{
    toy_g1_affine pts[4];
    unsigned char sc[4 * 32];
    int want = 0;
    for (size_t i = 0; i < n; i++) {
        pts[i] = table[e[i]];
        scalar_bytes(sc + 32 * i, k[i], wide);
        want = (want + k[i] * e[i]) % Q;
    }
    const unsigned char *P = (const unsigned char *)pts;
    toy_g1_jacobian got, s, t;
    toy_g1_msm_naive_var(&got, P, sc, n);
    CHECK(which(&got) == want);
    for (int threads = 1; threads <= max_threads; threads++) {
        CHECK(toy_g1_msm_pippenger_var(&got, P, sc, NULL, n, threads) == CUZK_OK);
        CHECK(which(&got) == want);
        for (int mode = MSM_XYZZ_BUCKETS; mode <= MSM_AFFINE_BUCKETS; mode++) {
            CHECK(toy_g1_msm_pippenger_mode_var(&got, P, sc, NULL, n, threads, mode) == CUZK_OK);
            CHECK(which(&got) == want);
        }
    }
    /* the prover's split: the 1s summed, the rest by Pippenger */
    uint32_t ones[4], tail[4];
    size_t no, nt;
    msm_classify_var(sc, 0, n, ones, &no, tail, &nt);
    CHECK(toy_g1_msm_sum_var(&s, P, ones, no) == CUZK_OK);
    CHECK(toy_g1_msm_pippenger_var(&t, P, sc, tail, nt, 1) == CUZK_OK);
    toy_g1_add_var(&got, &s, &t);
    CHECK(which(&got) == want);
}

/* Every scalar tuple in [0, 13)^n for the bases e, on one thread; every
 * 5th also widened to 256 bits, every 17th also on two threads (an OpenMP
 * team per call costs milliseconds on a loaded machine, and the threads
 * only split the windows). */
static void all_scalars(const int *e, size_t n)
{
    int k[4] = {0};
    for (unsigned count = 0;; count++) {
        check_msm(e, k, n, 0, count % 17 ? 1 : 2);
        if (count % 5 == 0)
            check_msm(e, k, n, 1, count % 17 ? 1 : 2);
        size_t i = 0;
        while (i < n && ++k[i] == Q)
            k[i++] = 0;
        if (i == n)
            return;
    }
}

static void test_msm(void)
{
    test_context = "toy MSM, every scalar";
    /* sanitizer builds (CUZK_TEST_ITERS below the default): pairs of bases
     * with a = 1 only, every special relation still among them */
    const int all_pairs = test_iters(1000) >= 1000;
    for (int a = 0; a < Q; a++) {
        int e1[1] = {a};
        all_scalars(e1, 1);
        for (int b = 0; b < Q; b++) {
            int e2[2] = {a, b};
            if (all_pairs || a == 1)
                all_scalars(e2, 2);
        }
    }
    /* n = 3: bases with a repeat, an inverse pair, infinity, and three
     * distinct ones */
    static const int sets[][3] = {{1, 1, 1}, {1, 12, 5}, {0, 3, 3}, {2, 7, 11}, {6, 7, 0}};
    for (size_t s = 0; s < CUZK_ARRAY_LEN(sets); s++)
        all_scalars(sets[s], 3);
    /* the affine sum over every multiset of up to 4 bases (the 1s of the
     * split): pairs in one batch hit P + P and P + (-P) */
    test_context = "toy MSM, the sum of the 1s";
    for (int m = 0; m < Q * Q * Q * Q; m++) {
        int e[4] = {m % Q, m / Q % Q, m / (Q * Q) % Q, m / (Q * Q * Q)};
        toy_g1_affine pts[4];
        for (int i = 0; i < 4; i++)
            pts[i] = table[e[i]];
        for (size_t n = 1; n <= 4; n++) {
            toy_g1_jacobian s;
            CHECK(toy_g1_msm_sum_var(&s, (const unsigned char *)pts, NULL, n) == CUZK_OK);
            int want = 0;
            for (size_t i = 0; i < n; i++)
                want = (want + e[i]) % Q;
            CHECK(which(&s) == want);
        }
    }
}

int main(void)
{
    test_require_backend();
    test_init("test_exhaustive");
    load_table();
    test_group_law();
    test_msm();
    test_done("test_exhaustive");
    return 0;
}
