/* The four groups, stamped from src/ec/ec_impl.h, and what differs per curve:
 * the fast subgroup checks.
 *
 *   bls12_381_g1  E(Fp):   y^2 = x^3 + 4
 *   bls12_381_g2  E'(Fp2): y^2 = x^3 + 4(u+1)      (M-type twist)
 *   bn254_g1      E(Fp):   y^2 = x^3 + 3           (cofactor 1)
 *   bn254_g2      E'(Fp2): y^2 = x^3 + 3/(9+u)     (D-type twist)
 */
#ifndef CUZK_EC_CURVES_H
#define CUZK_EC_CURVES_H

#include "../field/fields.h"
#include "params_bls12_381.h"
#include "params_bn254.h"

#define EC bls12_381_g1
#define ECF bls12_381_fp
#define EC_B {BLS12_381_G1_B}
#define EC_GEN_X {BLS12_381_G1_GEN_X}
#define EC_GEN_Y {BLS12_381_G1_GEN_Y}
#include "ec_impl.h"

#define EC bls12_381_g2
#define ECF bls12_381_fp2
#define EC_B BLS12_381_G2_B
#define EC_GEN_X BLS12_381_G2_GEN_X
#define EC_GEN_Y BLS12_381_G2_GEN_Y
#include "ec_impl.h"

#define EC bn254_g1
#define ECF bn254_fp
#define EC_B {BN254_G1_B}
#define EC_GEN_X {BN254_G1_GEN_X}
#define EC_GEN_Y {BN254_G1_GEN_Y}
#include "ec_impl.h"

#define EC bn254_g2
#define ECF bn254_fp2
#define EC_B BN254_G2_B
#define EC_GEN_X BN254_G2_GEN_X
#define EC_GEN_Y BN254_G2_GEN_Y
#include "ec_impl.h"

/* Fp2 constants are written {c0, c1} with each c an array initializer, so
 * they initialize an fp2 struct directly. */
static const bls12_381_fp2 bls12_381_g2_psi_cx = BLS12_381_G2_PSI_CX;
static const bls12_381_fp2 bls12_381_g2_psi_cy = BLS12_381_G2_PSI_CY;
static const bn254_fp2 bn254_g2_psi_cx = BN254_G2_PSI_CX;
static const bn254_fp2 bn254_g2_psi_cy = BN254_G2_PSI_CY;
static const bls12_381_fp bls12_381_g1_beta = {BLS12_381_G1_BETA};
static const limb_t bls12_381_r_scalar[4] = BLS12_381_R_SCALAR;
static const limb_t bn254_r_scalar[4] = BN254_R_SCALAR;

/* psi(X, Y, Z) = (cx conj(X), cy conj(Y), conj(Z)): the untwist-Frobenius-
 * twist endomorphism (Galbraith-Scott), applied in Jacobian coordinates
 * (conj is a field automorphism, so the scaling by Z carries over). */
#define CUZK_DEFINE_PSI(G, F2)                                                                          \
    CUZK_INLINE void G##_psi(G##_jacobian *r, const G##_jacobian *a)                                   \
    {                                                                                                   \
        F2##_conj(&r->x, &a->x);                                                                        \
        F2##_mul(&r->x, &r->x, &G##_psi_cx);                                                            \
        F2##_conj(&r->y, &a->y);                                                                        \
        F2##_mul(&r->y, &r->y, &G##_psi_cy);                                                            \
        F2##_conj(&r->z, &a->z);                                                                        \
    }
CUZK_DEFINE_PSI(bls12_381_g2, bls12_381_fp2)
CUZK_DEFINE_PSI(bn254_g2, bn254_fp2)
#undef CUZK_DEFINE_PSI

/* BLS12-381 G1: P is in G1 iff phi(P) = [-x^2]P, phi(x, y) = (beta x, y)
 * (Scott, "A note on group membership tests for G1, G2 and GT on BLS
 * pairing-friendly curves", eprint 2021/1130). Public points only. */
CUZK_INLINE int bls12_381_g1_in_subgroup_var(const bls12_381_g1_jacobian *a)
{
    bls12_381_g1_jacobian phi, t;
    const limb_t x_abs[1] = {BLS12_381_X_ABS};
    phi = *a;
    bls12_381_fp_mul(&phi.x, &phi.x, &bls12_381_g1_beta);
    bls12_381_g1_mul_var(&t, a, x_abs, 64);
    bls12_381_g1_mul_var(&t, &t, x_abs, 64);
    bls12_381_g1_neg(&t, &t);
    return bls12_381_g1_eq(&phi, &t);
}

/* BLS12-381 G2: P is in G2 iff psi(P) = [x]P (same paper); x < 0. */
CUZK_INLINE int bls12_381_g2_in_subgroup_var(const bls12_381_g2_jacobian *a)
{
    bls12_381_g2_jacobian psi, t;
    const limb_t x_abs[1] = {BLS12_381_X_ABS};
    bls12_381_g2_psi(&psi, a);
    bls12_381_g2_mul_var(&t, a, x_abs, 64);
    bls12_381_g2_neg(&t, &t);
    return bls12_381_g2_eq(&psi, &t);
}

/* BN254 G1 has cofactor 1: every point on the curve is in G1. */
CUZK_INLINE int bn254_g1_in_subgroup_var(const bn254_g1_jacobian *a)
{
    (void)a;
    return 1;
}

/* BN254 G2: P is in G2 iff psi(P) = [6x^2]P (El Housni, Guillevic,
 * Piellard, eprint 2022/352). */
CUZK_INLINE int bn254_g2_in_subgroup_var(const bn254_g2_jacobian *a)
{
    bn254_g2_jacobian psi, t;
    const limb_t six_x2[2] = BN254_SIX_X2;
    bn254_g2_psi(&psi, a);
    bn254_g2_mul_var(&t, a, six_x2, 128);
    return bn254_g2_eq(&psi, &t);
}

#define CUZK_DEFINE_AFFINE_SUBGROUP(G)                                                  \
    CUZK_INLINE int G##_affine_in_subgroup_var(const G##_affine *a)                     \
    {                                                                                   \
        G##_jacobian j;                                                                 \
        G##_from_affine(&j, a);                                                         \
        return G##_in_subgroup_var(&j);                                                 \
    }
CUZK_DEFINE_AFFINE_SUBGROUP(bls12_381_g1)
CUZK_DEFINE_AFFINE_SUBGROUP(bls12_381_g2)
CUZK_DEFINE_AFFINE_SUBGROUP(bn254_g1)
CUZK_DEFINE_AFFINE_SUBGROUP(bn254_g2)
#undef CUZK_DEFINE_AFFINE_SUBGROUP

#include "encode_impl.h"

#endif
