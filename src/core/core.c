/* The arithmetic core: one translation unit holding every arithmetic module
 * (all static), compiled once per CPU backend:
 *
 *   CUZK_BACKEND_ADX=0  ->  cuzk_core_portable   (unsigned __int128 C)
 *   CUZK_BACKEND_ADX=1  ->  cuzk_core_adx        (x86-64 MULX/ADCX/ADOX)
 *
 * Each copy exports one struct of entry points (src/core/core.h).
 */
#include "core.h"

#include <omp.h>
#include <time.h>

#include "../msm/msms.h"
#include "../ntt/ntts.h"
#include "../pairing/pairings.h"
#include "../util/clock.h"

#define PROVE_C bls12_381
#include "prove_impl.h"
#define PROVE_C bn254
#include "prove_impl.h"
#define SETUP_C bls12_381
#include "setup_impl.h"
#define SETUP_C bn254
#include "setup_impl.h"

/* Known answers checked at start-up and by `cuzk selftest`: the Montgomery
 * product in every field, the generators on their curves and of order r,
 * and [2]G1 of BLS12-381 against its ZCash encoding (from @noble/curves,
 * tests/vectors/bls12_381.json). */
static int core_selftest(void)
{
    int ok = 1;
#define FIELD_KAT(F)                                                                \
    do {                                                                            \
        F a, b, c, d;                                                               \
        F##_from_u64(&a, 0xfedcba9876543210ULL);                                    \
        F##_from_u64(&b, 0x0123456789abcdefULL);                                    \
        F##_mul(&c, &a, &b);                                                        \
        F##_inv(&d, &b);                                                            \
        F##_mul(&d, &d, &c);                                                        \
        ok &= F##_eq(&d, &a);                                                       \
        F##_sqr(&c, &a);                                                            \
        F##_mul(&d, &a, &a);                                                        \
        ok &= F##_eq(&c, &d);                                                       \
    } while (0)
    FIELD_KAT(bls12_381_fp);
    FIELD_KAT(bls12_381_fr);
    FIELD_KAT(bn254_fp);
    FIELD_KAT(bn254_fr);
#undef FIELD_KAT
#define GROUP_KAT(G, R)                                                             \
    do {                                                                            \
        G##_jacobian g, t;                                                          \
        G##_generator(&g);                                                          \
        ok &= G##_is_on_curve(&g);                                                  \
        G##_mul_var(&t, &g, R, 256);                                                \
        ok &= G##_is_infinity(&t);                                                  \
        ok &= G##_in_subgroup_var(&g);                                              \
    } while (0)
    GROUP_KAT(bls12_381_g1, bls12_381_r_scalar);
    GROUP_KAT(bls12_381_g2, bls12_381_r_scalar);
    GROUP_KAT(bn254_g1, bn254_r_scalar);
    GROUP_KAT(bn254_g2, bn254_r_scalar);
#undef GROUP_KAT
    static const unsigned char two_g1[48] = {
        0xa5, 0x72, 0xcb, 0xea, 0x90, 0x4d, 0x67, 0x46, 0x88, 0x08, 0xc8, 0xeb, 0x50, 0xa9, 0x45, 0x0c,
        0x97, 0x21, 0xdb, 0x30, 0x91, 0x28, 0x01, 0x25, 0x43, 0x90, 0x2d, 0x0a, 0xc3, 0x58, 0xa6, 0x2a,
        0xe2, 0x8f, 0x75, 0xbb, 0x8f, 0x1c, 0x7c, 0x42, 0xc3, 0x9a, 0x8c, 0x55, 0x29, 0xbf, 0x0f, 0x4e};
    bls12_381_g1_jacobian g, two;
    bls12_381_g1_affine two_affine;
    unsigned char enc[48];
    bls12_381_g1_generator(&g);
    bls12_381_g1_double(&two, &g);
    bls12_381_g1_to_affine(&two_affine, &two);
    bls12_381_g1_affine_to_zcash(enc, &two_affine, 1);
    ok &= memcmp(enc, two_g1, sizeof(enc)) == 0;
    return ok ? CUZK_OK : CUZK_ERR_INTERNAL;
}

/* Per-curve bodies of the operations, stamped for C = bls12_381, bn254. */
#define CORE_CURVE_OPS(C)                                                                                 \
    static int C##_check_points(int group, const unsigned char *pts, size_t n, int subgroup, size_t *bad) \
    {                                                                                                     \
        for (size_t i = 0; i < n; i++) {                                                                  \
            int rc;                                                                                       \
            if (group == 1) {                                                                             \
                C##_g1_affine p;                                                                          \
                rc = C##_g1_affine_from_zkey(&p, pts + i * sizeof(p), subgroup);                          \
            } else {                                                                                      \
                C##_g2_affine p;                                                                          \
                rc = C##_g2_affine_from_zkey(&p, pts + i * sizeof(p), subgroup);                          \
            }                                                                                             \
            if (rc != CUZK_OK) {                                                                          \
                *bad = i;                                                                                 \
                return rc;                                                                                \
            }                                                                                             \
        }                                                                                                 \
        return CUZK_OK;                                                                                   \
    }                                                                                                     \
    static void C##_fq_to_mont(unsigned char *out, const unsigned char *plain)                            \
    {                                                                                                     \
        C##_fp a;                                                                                         \
        bn_from_bytes_le(a.l, plain, CUZK_ARRAY_LEN(a.l));                                                \
        C##_fp_from_raw(&a, a.l);                                                                         \
        C##_fp_to_mont_bytes_le(out, &a);                                                                 \
    }                                                                                                     \
    static void C##_fq_from_mont(unsigned char *out, const unsigned char *mont)                           \
    {                                                                                                     \
        C##_fp a;                                                                                         \
        bn_from_bytes_le(a.l, mont, CUZK_ARRAY_LEN(a.l));                                                 \
        C##_fp_to_bytes_le(out, &a);                                                                      \
    }                                                                                                     \
    static void C##_pairing_bytes(unsigned char *out, const unsigned char *g1, const unsigned char *g2)   \
    {                                                                                                     \
        C##_g1_affine p;                                                                                  \
        C##_g2_affine q;                                                                                  \
        C##_fp12 e;                                                                                       \
        memcpy(&p, g1, sizeof(p));                                                                        \
        memcpy(&q, g2, sizeof(q));                                                                        \
        C##_pairing_var(&e, &p, &q);                                                                      \
        memcpy(out, &e, sizeof(e)); /* c0.c0.c0.c0, c0.c0.c0.c1, ... in order */                          \
    }                                                                                                     \
    static int C##_groth16_verify(const core_vk *vk, const unsigned char *publics, const core_proof *pr)  \
    {                                                                                                     \
        C##_g1_affine P[4], ic;                                                                           \
        C##_g2_affine Q[4];                                                                               \
        C##_g1_jacobian acc, term, icj;                                                                   \
        if (bytes_all_zero(vk->alpha1, sizeof(P[0])) || bytes_all_zero(vk->beta2, sizeof(Q[0])) ||        \
            bytes_all_zero(vk->gamma2, sizeof(Q[0])) || bytes_all_zero(vk->delta2, sizeof(Q[0])))         \
            return CUZK_ERR_FORMAT;                                                                       \
        if (bytes_all_zero(pr->a, sizeof(P[0])) || bytes_all_zero(pr->b, sizeof(Q[0])) ||                 \
            bytes_all_zero(pr->c, sizeof(P[0])))                                                          \
            return CUZK_ERR_INVALID_PROOF;                                                                \
        memcpy(&ic, vk->ic, sizeof(ic));                                                                  \
        C##_g1_from_affine(&acc, &ic);                                                                   \
        for (size_t i = 1; i < vk->n_ic; i++) {                                                           \
            limb_t k[4];                                                                                  \
            bn_from_bytes_le(k, publics + 32 * (i - 1), 4);                                               \
            memcpy(&ic, vk->ic + i * sizeof(ic), sizeof(ic));                                             \
            C##_g1_from_affine(&icj, &ic);                                                                \
            C##_g1_mul_var(&term, &icj, k, 256);                                                          \
            C##_g1_add_var(&acc, &acc, &term);                                                            \
        }                                                                                                 \
        memcpy(&P[0], pr->a, sizeof(P[0]));                                                               \
        C##_g1_affine_neg(&P[0], &P[0]);                                                                  \
        memcpy(&Q[0], pr->b, sizeof(Q[0]));                                                               \
        C##_g1_to_affine(&P[1], &acc);                                                                    \
        memcpy(&Q[1], vk->gamma2, sizeof(Q[1]));                                                          \
        memcpy(&P[2], pr->c, sizeof(P[2]));                                                               \
        memcpy(&Q[2], vk->delta2, sizeof(Q[2]));                                                          \
        memcpy(&P[3], vk->alpha1, sizeof(P[3]));                                                          \
        memcpy(&Q[3], vk->beta2, sizeof(Q[3]));                                                           \
        C##_fp12 e;                                                                                       \
        C##_multi_pairing_var(&e, P, Q, 4);                                                               \
        return C##_fp12_is_one(&e) ? CUZK_OK : CUZK_ERR_INVALID_PROOF;                                    \
    }
CORE_CURVE_OPS(bls12_381)
CORE_CURVE_OPS(bn254)
#undef CORE_CURVE_OPS

#define CORE_DISPATCH(curve, call)                                                                        \
    ((curve) == CUZK_CURVE_BLS12_381 ? bls12_381_##call : bn254_##call)

static int core_check_points(int curve, int group, const unsigned char *pts, size_t n, int subgroup, size_t *bad)
{
    return CORE_DISPATCH(curve, check_points)(group, pts, n, subgroup, bad);
}

static int core_check_zcash_points(int group, const unsigned char *pts, size_t n, int compressed, int subgroup,
                                   unsigned char *out, size_t *bad)
{
    size_t size = (group == 1 ? BLS12_381_G1_COMPRESSED_BYTES : BLS12_381_G2_COMPRESSED_BYTES) * (compressed ? 1 : 2);
    for (size_t i = 0; i < n; i++) {
        int rc;
        if (group == 1) {
            bls12_381_g1_affine p;
            rc = bls12_381_g1_affine_from_zcash(&p, pts + i * size, compressed, subgroup);
            if (rc == CUZK_OK && out)
                memcpy(out + i * sizeof(p), &p, sizeof(p));
        } else {
            bls12_381_g2_affine p;
            rc = bls12_381_g2_affine_from_zcash(&p, pts + i * size, compressed, subgroup);
            if (rc == CUZK_OK && out)
                memcpy(out + i * sizeof(p), &p, sizeof(p));
        }
        if (rc != CUZK_OK) {
            *bad = i;
            return rc;
        }
    }
    return CUZK_OK;
}

static void core_zcash_from_points(int group, const unsigned char *pts, size_t n, int compressed, unsigned char *out)
{
    size_t size = (group == 1 ? BLS12_381_G1_COMPRESSED_BYTES : BLS12_381_G2_COMPRESSED_BYTES) * (compressed ? 1 : 2);
#pragma omp parallel for schedule(static) if (n >= 4096)
    for (size_t i = 0; i < n; i++) {
        if (group == 1) {
            bls12_381_g1_affine p;
            memcpy(&p, pts + i * sizeof(p), sizeof(p));
            bls12_381_g1_affine_to_zcash(out + i * size, &p, compressed);
        } else {
            bls12_381_g2_affine p;
            memcpy(&p, pts + i * sizeof(p), sizeof(p));
            bls12_381_g2_affine_to_zcash(out + i * size, &p, compressed);
        }
    }
}

static void core_fq_to_mont(int curve, unsigned char *out, const unsigned char *plain)
{
    CORE_DISPATCH(curve, fq_to_mont)(out, plain);
}

static void core_fq_from_mont(int curve, unsigned char *out, const unsigned char *mont)
{
    CORE_DISPATCH(curve, fq_from_mont)(out, mont);
}

static void core_pairing(int curve, unsigned char *out, const unsigned char *g1, const unsigned char *g2)
{
    CORE_DISPATCH(curve, pairing_bytes)(out, g1, g2);
}

static int core_groth16_prove(const core_prove_in *in, core_prove_out *out)
{
    return CORE_DISPATCH(in->curve, groth16_prove)(in, out);
}

static int core_groth16_eval(const core_prove_in *in, unsigned char *a, unsigned char *b, core_prove_out *out)
{
    int threads = in->threads > 0 ? in->threads : 1;
    if (in->curve == CUZK_CURVE_BLS12_381)
        return bls12_381_eval_abc((bls12_381_fr *)(void *)a, (bls12_381_fr *)(void *)b, in, out, threads);
    return bn254_eval_abc((bn254_fr *)(void *)a, (bn254_fr *)(void *)b, in, out, threads);
}

static void core_groth16_blind(const core_prove_in *in, const core_msm_results *m, core_prove_out *out)
{
    CORE_DISPATCH(in->curve, blind_affine)(in, m, out);
}

static int core_fr_from_mont(int curve, unsigned char *out, const unsigned char *mont, size_t n, int threads,
                             size_t *bad)
{
    return CORE_DISPATCH(curve, fr_from_mont_n)(out, mont, n, threads > 0 ? threads : 1, bad);
}

static void core_fr_to_mont(int curve, unsigned char *out, const unsigned char *plain, size_t n, int threads)
{
    CORE_DISPATCH(curve, fr_to_mont_n)(out, plain, n, threads > 0 ? threads : 1);
}

static void core_fr_mul(int curve, unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n,
                        int threads)
{
    CORE_DISPATCH(curve, fr_mul_n)(out, a, b, n, threads > 0 ? threads : 1);
}

static size_t core_groth16_first_unsatisfied(int curve, const unsigned char *a, const unsigned char *b,
                                             const unsigned char *c, size_t n, int threads)
{
    return CORE_DISPATCH(curve, first_unsatisfied)(a, b, c, n, threads > 0 ? threads : 1);
}

#define CORE_MSM_COMBINE(G)                                                                             \
    static void G##_msm_combine(const unsigned char *windows, size_t stride, unsigned nwin, unsigned c,     \
                                const unsigned char *extra, unsigned char *out)                             \
    {                                                                                                       \
        G##_jacobian r, t;                                                                                  \
        G##_xyzz x;                                                                                         \
        G##_set_infinity(&r);                                                                               \
        for (unsigned w = nwin; w-- > 0;) {                                                                 \
            for (unsigned i = 0; i < c; i++)                                                                \
                G##_double(&r, &r);                                                                         \
            memcpy(&x, windows + w * stride, sizeof(x));                                                    \
            G##_xyzz_to_jacobian(&t, &x);                                                                   \
            G##_add_var(&r, &r, &t);                                                                        \
        }                                                                                                   \
        if (extra) {                                                                                        \
            memcpy(&x, extra, sizeof(x));                                                                   \
            G##_xyzz_to_jacobian(&t, &x);                                                                   \
            G##_add_var(&r, &r, &t);                                                                        \
        }                                                                                                   \
        G##_affine a;                                                                                       \
        G##_to_affine(&a, &r);                                                                              \
        memcpy(out, &a, sizeof(a));                                                                         \
    }
CORE_MSM_COMBINE(bls12_381_g1)
CORE_MSM_COMBINE(bls12_381_g2)
CORE_MSM_COMBINE(bn254_g1)
CORE_MSM_COMBINE(bn254_g2)
#undef CORE_MSM_COMBINE

/* The GPU's XYZZ layout (cuda/ec/xyzz.cuh) is the CPU struct's, field by
 * field. */
static void core_msm_combine(int curve, int group, const unsigned char *windows, size_t stride, unsigned nwin,
                             unsigned c, const unsigned char *extra, unsigned char *out)
{
    if (curve == CUZK_CURVE_BLS12_381)
        (group == 1 ? bls12_381_g1_msm_combine : bls12_381_g2_msm_combine)(windows, stride, nwin, c, extra, out);
    else
        (group == 1 ? bn254_g1_msm_combine : bn254_g2_msm_combine)(windows, stride, nwin, c, extra, out);
}

static int core_groth16_setup_ptau(const core_setup_in *in, core_setup_out *out)
{
    return CORE_DISPATCH(in->curve, groth16_setup)(in, out);
}

static unsigned long long core_setup_coefs(int curve, unsigned char *out, const unsigned char *constraints,
                                           unsigned row0, unsigned n_rows, unsigned publics_row, unsigned n_public)
{
    return CORE_DISPATCH(curve, coefs)(out, constraints, row0, n_rows, publics_row, n_public);
}

static int core_setup_random_scalars(core_random_setup *st)
{
    return CORE_DISPATCH(st->curve, random_scalars)(st);
}

static int core_setup_random_points(const core_random_setup *st, int kind, size_t start, size_t count,
                                    unsigned char *out)
{
    return CORE_DISPATCH(st->curve, random_points)(st, kind, start, count, out);
}

static int core_setup_random_point_scalars(const core_random_setup *st, int kind, size_t start, size_t count,
                                           unsigned char *out)
{
    return CORE_DISPATCH(st->curve, random_point_scalars)(st, kind, start, count, (limb_t *)(void *)out);
}

static void core_generators(int curve, unsigned char *g1, unsigned char *g2)
{
    if (curve == CUZK_CURVE_BLS12_381) {
        memcpy(g1, &bls12_381_g1_generator_affine, sizeof(bls12_381_g1_generator_affine));
        memcpy(g2, &bls12_381_g2_generator_affine, sizeof(bls12_381_g2_generator_affine));
    } else {
        memcpy(g1, &bn254_g1_generator_affine, sizeof(bn254_g1_generator_affine));
        memcpy(g2, &bn254_g2_generator_affine, sizeof(bn254_g2_generator_affine));
    }
}

static void core_g1_sub(int curve, unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n)
{
    CORE_DISPATCH(curve, g1_sub)(out, a, b, n);
}

static int core_groth16_verify(int curve, const core_vk *vk, const unsigned char *publics, const core_proof *proof)
{
    return CORE_DISPATCH(curve, groth16_verify)(vk, publics, proof);
}

#if CUZK_BACKEND_ADX
const struct cuzk_core_ops cuzk_core_adx = {
#else
const struct cuzk_core_ops cuzk_core_portable = {
#endif
    .name = CUZK_BACKEND_NAME,
    .selftest = core_selftest,
    .check_points = core_check_points,
    .check_zcash_points = core_check_zcash_points,
    .zcash_from_points = core_zcash_from_points,
    .fq_to_mont = core_fq_to_mont,
    .fq_from_mont = core_fq_from_mont,
    .pairing = core_pairing,
    .groth16_verify = core_groth16_verify,
    .groth16_prove = core_groth16_prove,
    .groth16_eval = core_groth16_eval,
    .groth16_classify_var = groth16_classify_var,
    .groth16_blind = core_groth16_blind,
    .fr_from_mont = core_fr_from_mont,
    .fr_to_mont = core_fr_to_mont,
    .groth16_first_unsatisfied = core_groth16_first_unsatisfied,
    .fr_mul = core_fr_mul,
    .msm_combine = core_msm_combine,
    .groth16_setup_ptau = core_groth16_setup_ptau,
    .g1_sub = core_g1_sub,
    .generators = core_generators,
    .setup_coefs = core_setup_coefs,
    .setup_random_scalars = core_setup_random_scalars,
    .setup_random_points = core_setup_random_points,
    .setup_random_point_scalars = core_setup_random_point_scalars,
};
