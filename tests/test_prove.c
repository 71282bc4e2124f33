/* The prover through the library:
 *   - with r and s fixed, its proof equals, bit for bit, one computed here
 *     by an independent slow path: coefficients decoded as coef = value /
 *     R^2 (no Montgomery shortcut), the odd coset by O(n^2) interpolation and
 *     evaluation, every MSM by double-and-add, the blinding by the formulas;
 *   - its proofs verify against snarkjs's verification keys, and 20 proofs
 *     of one circuit are all different and all valid;
 *   - mismatched inputs are refused with a message, and a witness that does
 *     not satisfy the circuit never yields a proof.
 * The library runs on this program's backend (cuzk_set_cpu_backend; ctest
 * runs both), and so does the slow path. r and s come from the printed
 * seed.
 * Usage: test_prove_<backend> FIXTURES_DIR */
#include "engine/submit.h"
#include "groth16/prove.h"
#include "msm/msms.h"
#include "ntt/ntts.h"
#include "test_util.h"


static const char *fixtures;
/* cuzk_prove's options for the calls that need none: r and s from the seed */
static const cuzk_prove_options seeded = {.random = test_random_bytes};

static void fixture_path(char *out, size_t cap, const char *curve, const char *file)
{
    snprintf(out, cap, "%s/%s/%s", fixtures, curve, file);
}

#define SLOW_PROVER(C)                                                                                \
    static void C##_slow_prove(const struct cuzk_zkey *zk, const struct cuzk_wtns *wt, const limb_t r[4], \
                               const limb_t s[4], unsigned char out_a[], unsigned char out_b[],        \
                               unsigned char out_c[])                                                  \
    {                                                                                                 \
        size_t n = zk->domain_size, nv = zk->n_vars, npub1 = zk->n_public + 1;                        \
        unsigned log_n = 0;                                                                           \
        while (((size_t)1 << log_n) < n)                                                              \
            log_n++;                                                                                  \
        C##_fr *w = malloc(nv * sizeof(C##_fr)), *a = calloc(n, sizeof(C##_fr)),                      \
               *b = calloc(n, sizeof(C##_fr)), *c = malloc(n * sizeof(C##_fr));                       \
        for (size_t i = 0; i < nv; i++) {                                                             \
            limb_t v[4];                                                                              \
            memcpy(v, wt->values + 32 * i, 32);                                                       \
            C##_fr_from_raw(&w[i], v);                                                                \
        }                                                                                             \
        /* coef = value / R^2 with R = 2^256 mod r (the ONE constant's limbs) */                      \
        C##_fr R, rinv2, t;                                                                           \
        C##_fr_from_raw(&R, C##_fr_one_mont.l);                                                       \
        C##_fr_sqr(&rinv2, &R);                                                                       \
        C##_fr_inv(&rinv2, &rinv2);                                                                   \
        for (uint64_t i = 0; i < zk->n_coefs; i++) {                                                  \
            zkey_coef e = zkey_coef_at(zk->coefs, i);                                                        \
            limb_t v[4];                                                                              \
            memcpy(v, e.value, 32);                                                                   \
            C##_fr_from_raw(&t, v);                                                                   \
            C##_fr_mul(&t, &t, &rinv2);                                                               \
            C##_fr_mul(&t, &t, &w[e.signal]);                                                         \
            C##_fr *dst = (e.matrix == 0 ? a : b) + e.constraint;                                     \
            C##_fr_add(dst, dst, &t);                                                                 \
        }                                                                                             \
        for (size_t i = 0; i < n; i++)                                                                \
            C##_fr_mul(&c[i], &a[i], &b[i]);                                                          \
        /* O(n^2): coefficients k = (1/n) sum_j v_j w^-jk, then values at inc w^i */                 \
        C##_fr om, inc, ninv, *pw = malloc(n * sizeof(C##_fr)), *coef = malloc(n * sizeof(C##_fr));  \
        C##_fr_ntt_root(&om, log_n, 0);                                                                  \
        C##_fr_ntt_root(&inc, log_n + 1, 0);                                                             \
        C##_fr_from_u64(&ninv, n);                                                                    \
        C##_fr_inv(&ninv, &ninv);                                                                     \
        C##_fr_one(&pw[0]);                                                                           \
        for (size_t i = 1; i < n; i++)                                                                \
            C##_fr_mul(&pw[i], &pw[i - 1], &om);                                                      \
        C##_fr *vec[3] = {a, b, c};                                                                   \
        for (int v = 0; v < 3; v++) {                                                                 \
            for (size_t k = 0; k < n; k++) {                                                          \
                C##_fr acc;                                                                           \
                C##_fr_zero(&acc);                                                                    \
                for (size_t j = 0; j < n; j++) {                                                      \
                    C##_fr_mul(&t, &vec[v][j], &pw[(n - (j * k) % n) % n]);                           \
                    C##_fr_add(&acc, &acc, &t);                                                       \
                }                                                                                     \
                C##_fr_mul(&coef[k], &acc, &ninv);                                                    \
            }                                                                                         \
            for (size_t i = 0; i < n; i++) {                                                          \
                C##_fr x, xp, acc;                                                                    \
                C##_fr_mul(&x, &inc, &pw[i]);                                                         \
                C##_fr_one(&xp);                                                                      \
                C##_fr_zero(&acc);                                                                    \
                for (size_t k = 0; k < n; k++) {                                                      \
                    C##_fr_mul(&t, &coef[k], &xp);                                                    \
                    C##_fr_add(&acc, &acc, &t);                                                       \
                    C##_fr_mul(&xp, &xp, &x);                                                         \
                }                                                                                     \
                vec[v][i] = acc;                                                                      \
            }                                                                                         \
        }                                                                                             \
        limb_t *h = malloc(n * 32), *ws = malloc(nv * 32);                                            \
        for (size_t i = 0; i < n; i++) {                                                              \
            C##_fr_mul(&t, &a[i], &b[i]);                                                             \
            C##_fr_sub(&t, &t, &c[i]);                                                                \
            C##_fr_to_raw(h + 4 * i, &t);                                                             \
        }                                                                                             \
        for (size_t i = 0; i < nv; i++)                                                               \
            C##_fr_to_raw(ws + 4 * i, &w[i]);                                                         \
        C##_g1_jacobian pa, pb1, pc, ph, A, B1, Cp, d1, x1;                                           \
        C##_g2_jacobian pb2, B, d2, x2;                                                               \
        C##_g1_msm_naive_var(&pa, zk->a, (const unsigned char *)ws, nv);                                  \
        C##_g1_msm_naive_var(&pb1, zk->b1, (const unsigned char *)ws, nv);                                \
        C##_g2_msm_naive_var(&pb2, zk->b2, (const unsigned char *)ws, nv);                                \
        C##_g1_msm_naive_var(&pc, zk->c, (const unsigned char *)(ws + 4 * npub1), nv - npub1);            \
        C##_g1_msm_naive_var(&ph, zk->h, (const unsigned char *)h, n);                                    \
        C##_g1_affine al, be1, de1, aff;                                                              \
        C##_g2_affine be2, de2, aff2;                                                                 \
        memcpy(&al, zk->alpha1, sizeof(al));                                                          \
        memcpy(&be1, zk->beta1, sizeof(be1));                                                         \
        memcpy(&de1, zk->delta1, sizeof(de1));                                                        \
        memcpy(&be2, zk->beta2, sizeof(be2));                                                         \
        memcpy(&de2, zk->delta2, sizeof(de2));                                                        \
        C##_g1_from_affine(&d1, &de1);                                                                \
        C##_g2_from_affine(&d2, &de2);                                                                \
        /* A = pi_A + alpha + r delta1 */                                                             \
        C##_g1_add_affine_var(&A, &pa, &al);                                                          \
        C##_g1_mul_var(&x1, &d1, r, 256);                                                             \
        C##_g1_add_var(&A, &A, &x1);                                                                  \
        /* B = pi_B + beta2 + s delta2; B1 = pi_B1 + beta1 + s delta1 */                              \
        C##_g2_add_affine_var(&B, &pb2, &be2);                                                        \
        C##_g2_mul_var(&x2, &d2, s, 256);                                                             \
        C##_g2_add_var(&B, &B, &x2);                                                                  \
        C##_g1_add_affine_var(&B1, &pb1, &be1);                                                       \
        C##_g1_mul_var(&x1, &d1, s, 256);                                                             \
        C##_g1_add_var(&B1, &B1, &x1);                                                                \
        /* C = pi_C + H + s A + r B1 - (r s) delta1 */                                                \
        C##_fr fr, fs;                                                                                \
        limb_t rs[4];                                                                                 \
        C##_fr_from_raw(&fr, r);                                                                      \
        C##_fr_from_raw(&fs, s);                                                                      \
        C##_fr_mul(&fr, &fr, &fs);                                                                    \
        C##_fr_to_raw(rs, &fr);                                                                       \
        C##_g1_add_var(&Cp, &pc, &ph);                                                                \
        C##_g1_mul_var(&x1, &A, s, 256);                                                              \
        C##_g1_add_var(&Cp, &Cp, &x1);                                                                \
        C##_g1_mul_var(&x1, &B1, r, 256);                                                             \
        C##_g1_add_var(&Cp, &Cp, &x1);                                                                \
        C##_g1_mul_var(&x1, &d1, rs, 256);                                                            \
        C##_g1_neg(&x1, &x1);                                                                         \
        C##_g1_add_var(&Cp, &Cp, &x1);                                                                \
        C##_g1_to_affine(&aff, &A);                                                                   \
        memcpy(out_a, &aff, sizeof(aff));                                                             \
        C##_g1_to_affine(&aff, &Cp);                                                                  \
        memcpy(out_c, &aff, sizeof(aff));                                                             \
        C##_g2_to_affine(&aff2, &B);                                                                  \
        memcpy(out_b, &aff2, sizeof(aff2));                                                           \
        free(w);                                                                                      \
        free(a);                                                                                      \
        free(b);                                                                                      \
        free(c);                                                                                      \
        free(pw);                                                                                     \
        free(coef);                                                                                   \
        free(h);                                                                                      \
        free(ws);                                                                                     \
    }
SLOW_PROVER(bls12_381)
SLOW_PROVER(bn254)

static void open_pair(const char *curve, const char *name, cuzk_zkey **zk, cuzk_wtns **w)
{
    char p[4096], f[128];
    cuzk_error err;
    snprintf(f, sizeof(f), "%s.zkey", name);
    fixture_path(p, sizeof(p), curve, f);
    CHECK(cuzk_zkey_open(zk, p, &err) == CUZK_OK);
    snprintf(f, sizeof(f), "%s.wtns", name);
    fixture_path(p, sizeof(p), curve, f);
    CHECK(cuzk_wtns_open(w, p, &err) == CUZK_OK);
}

static char *read_fixture(const char *curve, const char *file)
{
    char p[4096];
    fixture_path(p, sizeof(p), curve, file);
    FILE *f = fopen(p, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *t = malloc((size_t)n + 1);
    CHECK(t && fread(t, 1, (size_t)n, f) == (size_t)n);
    t[n] = 0;
    fclose(f);
    return t;
}

static void random_below_r(unsigned char out[32], const curve_desc *c)
{
    do {
        test_rand_limbs((limb_t *)(void *)out, 4);
        out[31] &= 0x3f;
    } while (!bytes_below(out, c->r, 32));
}

static void test_bit_for_bit(const char *curve, const char *name)
{
    char ctx[128];
    snprintf(ctx, sizeof(ctx), "fixed r, s: %s/%s", curve, name);
    test_context = ctx;
    cuzk_zkey *zk;
    cuzk_wtns *w;
    open_pair(curve, name, &zk, &w);
    for (int round = 0; round < 3; round++) {
        unsigned char r[32] = {0}, s[32] = {0};
        if (round == 1)
            r[0] = 1; /* r = 1, s = 0 */
        if (round == 2) {
            random_below_r(r, zk->curve);
            random_below_r(s, zk->curve);
        }
        core_prove_out out;
        cuzk_error err;
        cuzk_prove_options opts = {.threads = 2};
        int rc = engine_prove_with(zk, w, r, s, &opts, &out, NULL, &err);
        if (rc != CUZK_OK)
            fprintf(stderr, "%s\n", err.message);
        CHECK(rc == CUZK_OK);
        unsigned char a[96], b[192], c[96];
        limb_t rl[4], sl[4];
        memcpy(rl, r, 32);
        memcpy(sl, s, 32);
        if (zk->curve->id == CUZK_CURVE_BN254)
            bn254_slow_prove(zk, w, rl, sl, a, b, c);
        else
            bls12_381_slow_prove(zk, w, rl, sl, a, b, c);
        CHECK(memcmp(a, out.a, zk->curve->g1_bytes) == 0);
        CHECK(memcmp(b, out.b, zk->curve->g2_bytes) == 0);
        CHECK(memcmp(c, out.c, zk->curve->g1_bytes) == 0);
    }
    cuzk_wtns_free(w);
    cuzk_zkey_free(zk);
}

static void test_proofs_verify(const char *curve, const char *name, int count)
{
    char ctx[128], f[128];
    snprintf(ctx, sizeof(ctx), "prove and verify: %s/%s", curve, name);
    test_context = ctx;
    cuzk_zkey *zk;
    cuzk_wtns *w;
    open_pair(curve, name, &zk, &w);
    snprintf(f, sizeof(f), "%s.vk.json", name);
    char *vk = read_fixture(curve, f);
    snprintf(f, sizeof(f), "%s.public.json", name);
    char *pub_want = read_fixture(curve, f);
    char **proofs = calloc((size_t)count, sizeof(char *));
    for (int i = 0; i < count; i++) {
        char *pub;
        cuzk_error err;
        cuzk_timings t;
        cuzk_prove_options opts = {.threads = 1 + i % 2, .random = test_random_bytes};
        CHECK(cuzk_prove(zk, w, &opts, &proofs[i], &pub, &t, &err) == CUZK_OK);
        CHECK(strcmp(pub, pub_want) == 0);
        /* without jansson (the GPU machine's build) the JSON verifier is
         * absent; cuzk_prove's own pairing check still ran */
        int vrc = cuzk_has_json() ? cuzk_verify_json(vk, strlen(vk), pub, strlen(pub), proofs[i], strlen(proofs[i]), &err)
                                  : CUZK_OK;
        if (vrc != CUZK_OK)
            fprintf(stderr, "proof %d (device %s%s%s) rejected: %d %s\n%s\n", i, t.device, t.device_note[0] ? ": " : "",
                    t.device_note, vrc, err.message, proofs[i]);
        CHECK(vrc == CUZK_OK);
        CHECK(t.total > 0 && t.verify > 0);
        for (int j = 0; j < i; j++)
            CHECK(strcmp(proofs[i], proofs[j]) != 0); /* fresh r, s every time */
        cuzk_free(pub);
    }
    for (int i = 0; i < count; i++)
        cuzk_free(proofs[i]);
    free(proofs);
    free(vk);
    free(pub_want);
    cuzk_wtns_free(w);
    cuzk_zkey_free(zk);
}

/* The core prover's cancellation points: with the flag already set, a
 * CPU proof stops at its first phase boundary (after the evaluation), and
 * through the staged API a proof cancelled between prepare and compute
 * never computes. */
static void test_cancel_inside(const char *curve)
{
    char ctx[128];
    snprintf(ctx, sizeof(ctx), "cancel inside a CPU proof: %s/poseidon3", curve);
    test_context = ctx;
    cuzk_zkey *zk;
    cuzk_wtns *w;
    open_pair(curve, "poseidon3", &zk, &w);
    static const unsigned char r[32] = {5}, s[32] = {7};
    atomic_int flag = 1;
    core_prove_in in = prove_core_input(zk, w, r, s, 1, &flag);
    core_prove_out out;
    memset(&out, 0, sizeof(out));
    CHECK(cuzk_core()->groth16_prove(&in, &out) == CUZK_ERR_CANCELLED);
    CHECK(out.seconds[PROOF_PHASE_EVAL] > 0 && out.seconds[PROOF_PHASE_NTT] == 0); /* stopped after eval */
    atomic_store(&flag, 0);
    memset(&out, 0, sizeof(out));
    CHECK(cuzk_core()->groth16_prove(&in, &out) == CUZK_OK); /* the flag clear: the whole proof */
    CHECK(out.seconds[PROOF_PHASE_MSM_H] > 0);
    cuzk_prove_options opts = {.threads = 1, .device = CUZK_DEVICE_CPU};
    prove_state *st;
    cuzk_error err;
    CHECK(prove_prepare(zk, w, r, s, &opts, &flag, &st, &err) == CUZK_OK);
    atomic_store(&flag, 1);
    CHECK(prove_compute(st, NULL, &err) == CUZK_ERR_CANCELLED);
    CHECK(strstr(err.message, "cancelled") != NULL);
    prove_state_free(st);
    cuzk_wtns_free(w);
    cuzk_zkey_free(zk);
}

static void test_bad_inputs(const char *curve, const char *other_curve)
{
    char ctx[128];
    snprintf(ctx, sizeof(ctx), "bad inputs: %s", curve);
    test_context = ctx;
    cuzk_zkey *zk, *zk_other;
    cuzk_wtns *w, *w_tiny, *w_other;
    open_pair(curve, "mul1k", &zk, &w);
    open_pair(curve, "tiny", &zk_other, &w_tiny);
    cuzk_zkey_free(zk_other);
    open_pair(other_curve, "mul1k", &zk_other, &w_other);
    char *proof = NULL, *pub = NULL;
    cuzk_error err;
    /* witness of another circuit: wrong length */
    CHECK(cuzk_prove(zk, w_tiny, &seeded, &proof, &pub, NULL, &err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err.message, "expects 1003") != NULL && proof == NULL && pub == NULL);
    /* witness of the other curve */
    CHECK(cuzk_prove(zk, w_other, &seeded, &proof, &pub, NULL, &err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err.message, other_curve[2] == 's' ? "BLS12-381 witness" : "BN254 witness") != NULL);
    /* the constant signal is not 1 */
    size_t n = w->bf.size;
    unsigned char *copy = malloc(n);
    memcpy(copy, w->bf.data, n);
    size_t v0 = (size_t)(w->values - w->bf.data);
    copy[v0] = 2;
    cuzk_wtns *bad;
    CHECK(cuzk_wtns_open_memory(&bad, copy, n, "bad.wtns", &err) == CUZK_OK);
    CHECK(cuzk_prove(zk, bad, &seeded, &proof, &pub, NULL, &err) == CUZK_ERR_FORMAT && strstr(err.message, "constant"));
    cuzk_wtns_free(bad);
    /* a witness that does not satisfy the constraints: no proof comes out */
    copy[v0] = 1;
    copy[v0 + 32 * 500] ^= 1;
    CHECK(cuzk_wtns_open_memory(&bad, copy, n, "bad.wtns", &err) == CUZK_OK);
    CHECK(cuzk_prove(zk, bad, &seeded, &proof, &pub, NULL, &err) == CUZK_ERR_INTERNAL);
    CHECK(strstr(err.message, "own verification") != NULL && proof == NULL && pub == NULL);
    cuzk_wtns_free(bad);
    free(copy);
    /* a coefficient entry out of range (not caught when the key opens) */
    n = zk->bf.size;
    copy = malloc(n);
    memcpy(copy, zk->bf.data, n);
    size_t entry = (size_t)(zk->coefs - zk->bf.data) + 44 * 7;
    memset(copy + entry + 8, 0xff, 4); /* signal */
    cuzk_zkey *badk;
    CHECK(cuzk_zkey_open_memory(&badk, copy, n, "bad.zkey", &err) == CUZK_OK);
    CHECK(cuzk_prove(badk, w, &seeded, &proof, &pub, NULL, &err) == CUZK_ERR_FORMAT);
    CHECK(strstr(err.message, "bad.zkey: section 4") && strstr(err.message, "entry 7"));
    cuzk_zkey_free(badk);
    free(copy);
    cuzk_wtns_free(w);
    cuzk_wtns_free(w_tiny);
    cuzk_wtns_free(w_other);
    cuzk_zkey_free(zk);
    cuzk_zkey_free(zk_other);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    test_require_backend();
    fixtures = argv[1];
    test_init("test_prove");
    cuzk_error err;
    CHECK(cuzk_set_cpu_backend(CUZK_BACKEND_ADX ? CUZK_CPU_BACKEND_ADX : CUZK_CPU_BACKEND_PORTABLE, &err) == CUZK_OK);
    CHECK(!strcmp(cuzk_cpu_backend(), CUZK_BACKEND_NAME));
    printf("library backend: %s\n", cuzk_cpu_backend());
    static const char *curves[2] = {"bn128", "bls12381"};
    for (int k = 0; k < 2; k++) {
        /* CUZK_TEST_ITERS below the default (sanitizer builds): smaller cases */
        int quick = test_iters(3000) < 3000;
        test_bit_for_bit(curves[k], "tiny");
        if (!quick) /* domain 1024: the O(n^2) slow path is minutes under sanitizers */
            test_bit_for_bit(curves[k], "mul1k");
        test_proofs_verify(curves[k], "tiny", quick ? 5 : 20);
        test_proofs_verify(curves[k], "mul1k", 2);
        test_proofs_verify(curves[k], "poseidon3", 2);
        test_bad_inputs(curves[k], curves[1 - k]);
        test_cancel_inside(curves[k]);
    }
    test_done("test_prove");
    return 0;
}
