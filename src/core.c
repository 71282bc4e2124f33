/* The arithmetic core: one translation unit holding every internal module
 * (all static), compiled once per CPU backend:
 *
 *   CUZK_BACKEND_ADX=0  ->  cuzk_core_portable   (unsigned __int128 C)
 *   CUZK_BACKEND_ADX=1  ->  cuzk_core_adx        (x86-64 MULX/ADCX/ADOX)
 *
 * Each copy exports one struct of entry points (src/core.h).
 */
#include "core.h"

#include "ec/curves.h"

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

#if CUZK_BACKEND_ADX
const struct cuzk_core_ops cuzk_core_adx = {
#else
const struct cuzk_core_ops cuzk_core_portable = {
#endif
    .name = CUZK_BACKEND_NAME,
    .selftest = core_selftest,
};
