/* A short-Weierstrass group y^2 = x^3 + b (a = 0), stamped once per group
 * (G1 and G2 of each curve).
 *
 * Before including, define:
 *   EC          the prefix, e.g. bls12_381_g1
 *   ECF         the coordinate field prefix, e.g. bls12_381_fp (or _fp2)
 *   EC_B        initializer of b (Montgomery form)
 *   EC_GEN_X, EC_GEN_Y  initializers of the generator
 *
 * Representations:
 *   EC_affine    (x, y); the point at infinity is (0, 0), which is on
 *                neither curve. Same bytes as a .zkey point (Montgomery, LE).
 *   EC_jacobian  (X, Y, Z) = (X/Z^2, Y/Z^3); infinity has Z = 0.
 *   EC_xyzz      (X, Y, ZZ, ZZZ) = (X/ZZ, Y/ZZZ), ZZ^3 = ZZZ^2; infinity has
 *                ZZ = 0. Cheaper additions, for MSM buckets.
 * Formulas from the Explicit-Formulas Database (hyperelliptic.org/EFD), named
 * where used. Functions without _var are constant time.
 */

#define P_(name) CUZK_CAT(EC, _##name)
#define FE_(name) CUZK_CAT(ECF, _##name)

typedef struct {
    ECF x, y;
} P_(affine);

typedef struct {
    ECF x, y, z;
} P_(jacobian);

typedef struct {
    ECF x, y, zz, zzz;
} P_(xyzz);

CUZK_UNUSED static const ECF P_(b) = EC_B;
CUZK_UNUSED static const P_(affine) P_(generator_affine) = {EC_GEN_X, EC_GEN_Y};

/* ------------------------------------------------------------ affine */

CUZK_INLINE void P_(affine_set_infinity)(P_(affine) *r)
{
    FE_(zero)(&r->x);
    FE_(zero)(&r->y);
}

CUZK_INLINE limb_t P_(affine_is_infinity_mask)(const P_(affine) *a)
{
    return FE_(is_zero_mask)(&a->x) & FE_(is_zero_mask)(&a->y);
}

CUZK_INLINE int P_(affine_is_infinity)(const P_(affine) *a)
{
    return (int)(P_(affine_is_infinity_mask)(a) & 1);
}

CUZK_INLINE void P_(affine_neg)(P_(affine) *r, const P_(affine) *a)
{
    r->x = a->x;
    FE_(neg)(&r->y, &a->y); /* -0 = 0: infinity stays (0, 0) */
}

CUZK_INLINE int P_(affine_eq)(const P_(affine) *a, const P_(affine) *b)
{
    return FE_(eq)(&a->x, &b->x) & FE_(eq)(&a->y, &b->y);
}

/* rhs = x^3 + b */
CUZK_INLINE void P_(rhs)(ECF *rhs, const ECF *x)
{
    FE_(sqr)(rhs, x);
    FE_(mul)(rhs, rhs, x);
    FE_(add)(rhs, rhs, &P_(b));
}

/* 1 when y^2 = x^3 + b, or the point is (0, 0) (infinity). */
CUZK_INLINE int P_(affine_is_on_curve)(const P_(affine) *a)
{
    ECF lhs, rhs;
    FE_(sqr)(&lhs, &a->y);
    P_(rhs)(&rhs, &a->x);
    return (int)((FE_(eq_mask)(&lhs, &rhs) | P_(affine_is_infinity_mask)(a)) & 1);
}

/* ------------------------------------------------------------ Jacobian */

CUZK_INLINE void P_(set_infinity)(P_(jacobian) *r)
{
    FE_(one)(&r->x);
    FE_(one)(&r->y);
    FE_(zero)(&r->z);
}

CUZK_INLINE limb_t P_(is_infinity_mask)(const P_(jacobian) *a)
{
    return FE_(is_zero_mask)(&a->z);
}

CUZK_INLINE int P_(is_infinity)(const P_(jacobian) *a)
{
    return FE_(is_zero)(&a->z);
}

CUZK_INLINE void P_(generator)(P_(jacobian) *r)
{
    r->x = P_(generator_affine).x;
    r->y = P_(generator_affine).y;
    FE_(one)(&r->z);
}

CUZK_INLINE void P_(from_affine)(P_(jacobian) *r, const P_(affine) *a)
{
    limb_t inf = P_(affine_is_infinity_mask)(a);
    r->x = a->x;
    r->y = a->y;
    FE_(one)(&r->z);
    ECF zero;
    FE_(zero)(&zero);
    FE_(cmov)(&r->z, &zero, inf);
}

/* Constant time (one Fermat inversion); infinity maps to (0, 0). */
CUZK_INLINE void P_(to_affine)(P_(affine) *r, const P_(jacobian) *a)
{
    ECF zinv, zinv2;
    FE_(inv)(&zinv, &a->z);
    FE_(sqr)(&zinv2, &zinv);
    FE_(mul)(&r->x, &a->x, &zinv2);
    FE_(mul)(&zinv, &zinv, &zinv2);
    FE_(mul)(&r->y, &a->y, &zinv);
}

CUZK_INLINE void P_(neg)(P_(jacobian) *r, const P_(jacobian) *a)
{
    r->x = a->x;
    FE_(neg)(&r->y, &a->y);
    r->z = a->z;
}

CUZK_INLINE void P_(cmov)(P_(jacobian) *r, const P_(jacobian) *a, limb_t mask)
{
    FE_(cmov)(&r->x, &a->x, mask);
    FE_(cmov)(&r->y, &a->y, mask);
    FE_(cmov)(&r->z, &a->z, mask);
}

/* Y^2 = X^3 + b Z^6; infinity counts as on the curve. */
CUZK_INLINE int P_(is_on_curve)(const P_(jacobian) *a)
{
    ECF lhs, rhs, z2, z6;
    FE_(sqr)(&lhs, &a->y);
    FE_(sqr)(&rhs, &a->x);
    FE_(mul)(&rhs, &rhs, &a->x);
    FE_(sqr)(&z2, &a->z);
    FE_(mul)(&z6, &z2, &a->z);
    FE_(sqr)(&z6, &z6);
    FE_(mul)(&z6, &z6, &P_(b));
    FE_(add)(&rhs, &rhs, &z6);
    return (int)((FE_(eq_mask)(&lhs, &rhs) | P_(is_infinity_mask)(a)) & 1);
}

/* Both points over the common denominator: U1 = X1 Z2^2, U2 = X2 Z1^2,
 * S1 = Y1 Z2^3, S2 = Y2 Z1^3 (and Z1^2, Z2^2, which addition reuses). */
CUZK_INLINE void P_(cross)(ECF *u1, ECF *u2, ECF *s1, ECF *s2, ECF *z1z1, ECF *z2z2, const P_(jacobian) *a,
                           const P_(jacobian) *b)
{
    FE_(sqr)(z1z1, &a->z);
    FE_(sqr)(z2z2, &b->z);
    FE_(mul)(u1, &a->x, z2z2);
    FE_(mul)(u2, &b->x, z1z1);
    FE_(mul)(s1, &a->y, &b->z);
    FE_(mul)(s1, s1, z2z2);
    FE_(mul)(s2, &b->y, &a->z);
    FE_(mul)(s2, s2, z1z1);
}

/* X1 Z2^2 = X2 Z1^2 and Y1 Z2^3 = Y2 Z1^3, or both at infinity. */
CUZK_INLINE int P_(eq)(const P_(jacobian) *a, const P_(jacobian) *b)
{
    ECF z1z1, z2z2, u1, u2, s1, s2;
    P_(cross)(&u1, &u2, &s1, &s2, &z1z1, &z2z2, a, b);
    limb_t inf_a = P_(is_infinity_mask)(a), inf_b = P_(is_infinity_mask)(b);
    limb_t same = FE_(eq_mask)(&u1, &u2) & FE_(eq_mask)(&s1, &s2) & ~inf_a & ~inf_b;
    return (int)((same | (inf_a & inf_b)) & 1);
}

/* dbl-2009-l (a = 0): 2M + 5S. Doubling infinity gives infinity (Z3 = 0). */
CUZK_INLINE void P_(double)(P_(jacobian) *r, const P_(jacobian) *a)
{
    ECF A, B, C, D, E, F, t;
    FE_(sqr)(&A, &a->x);
    FE_(sqr)(&B, &a->y);
    FE_(sqr)(&C, &B);
    FE_(add)(&D, &a->x, &B);
    FE_(sqr)(&D, &D);
    FE_(sub)(&D, &D, &A);
    FE_(sub)(&D, &D, &C);
    FE_(dbl)(&D, &D);
    FE_(dbl)(&E, &A);
    FE_(add)(&E, &E, &A);
    FE_(sqr)(&F, &E);
    FE_(mul)(&r->z, &a->y, &a->z); /* Z3 before Y1 is overwritten */
    FE_(dbl)(&r->z, &r->z);
    FE_(dbl)(&t, &D);
    FE_(sub)(&r->x, &F, &t);
    FE_(sub)(&t, &D, &r->x);
    FE_(mul)(&t, &E, &t);
    FE_(dbl)(&C, &C);
    FE_(dbl)(&C, &C);
    FE_(dbl)(&C, &C);
    FE_(sub)(&r->y, &t, &C);
}

/* add-2007-bl: 11M + 5S. Also returns, as masks, whether H = 0 and
 * R = 0 (the inputs are equal or opposite), which the formula alone does
 * not handle. Inputs at infinity give garbage: the callers patch them. */
CUZK_INLINE void P_(add_unchecked)(P_(jacobian) *r, const P_(jacobian) *a, const P_(jacobian) *b,
                                   limb_t *h_zero, limb_t *r_zero)
{
    ECF z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t;
    P_(cross)(&u1, &u2, &s1, &s2, &z1z1, &z2z2, a, b);
    FE_(sub)(&h, &u2, &u1);
    FE_(sub)(&rr, &s2, &s1);
    *h_zero = FE_(is_zero_mask)(&h);
    *r_zero = FE_(is_zero_mask)(&rr);
    FE_(dbl)(&i, &h);
    FE_(sqr)(&i, &i);
    FE_(mul)(&j, &h, &i);
    FE_(dbl)(&rr, &rr);
    FE_(mul)(&v, &u1, &i);
    FE_(add)(&t, &a->z, &b->z);
    FE_(sqr)(&t, &t);
    FE_(sub)(&t, &t, &z1z1);
    FE_(sub)(&t, &t, &z2z2);
    FE_(mul)(&r->z, &t, &h);
    FE_(sqr)(&r->x, &rr);
    FE_(sub)(&r->x, &r->x, &j);
    FE_(sub)(&r->x, &r->x, &v);
    FE_(sub)(&r->x, &r->x, &v);
    FE_(sub)(&t, &v, &r->x);
    FE_(mul)(&t, &rr, &t);
    FE_(mul)(&s1, &s1, &j);
    FE_(dbl)(&s1, &s1);
    FE_(sub)(&r->y, &t, &s1);
}

/* r = a + b for any inputs (equal, opposite, infinity), constant time: the
 * sum and the double are both computed and the right one selected. */
CUZK_INLINE void P_(add)(P_(jacobian) *r, const P_(jacobian) *a, const P_(jacobian) *b)
{
    P_(jacobian) sum, dbl;
    limb_t h_zero, r_zero;
    limb_t inf_a = P_(is_infinity_mask)(a), inf_b = P_(is_infinity_mask)(b);
    P_(add_unchecked)(&sum, a, b, &h_zero, &r_zero);
    P_(double)(&dbl, a);
    /* a = -b gives H = 0, R != 0 and Z3 = 0 from the formula: already right */
    P_(cmov)(&sum, &dbl, h_zero & r_zero & ~inf_a & ~inf_b);
    P_(cmov)(&sum, b, inf_a);
    P_(cmov)(&sum, a, inf_b);
    *r = sum;
}

/* r = a + b for any inputs, branching on the special cases. */
CUZK_INLINE void P_(add_var)(P_(jacobian) *r, const P_(jacobian) *a, const P_(jacobian) *b)
{
    if (P_(is_infinity)(a)) {
        *r = *b;
        return;
    }
    if (P_(is_infinity)(b)) {
        *r = *a;
        return;
    }
    limb_t h_zero, r_zero;
    P_(jacobian) sum;
    P_(add_unchecked)(&sum, a, b, &h_zero, &r_zero);
    if (h_zero & 1) {
        if (r_zero & 1)
            P_(double)(r, a);
        else
            P_(set_infinity)(r);
        return;
    }
    *r = sum;
}

/* r = a + b with b affine (madd-2007-bl: 7M + 4S), any inputs. */
CUZK_INLINE void P_(add_affine_var)(P_(jacobian) *r, const P_(jacobian) *a, const P_(affine) *b)
{
    if (P_(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (P_(is_infinity)(a)) {
        P_(from_affine)(r, b);
        return;
    }
    ECF z1z1, u2, s2, h, hh, i, j, rr, v, t;
    FE_(sqr)(&z1z1, &a->z);
    FE_(mul)(&u2, &b->x, &z1z1);
    FE_(mul)(&s2, &b->y, &a->z);
    FE_(mul)(&s2, &s2, &z1z1);
    FE_(sub)(&h, &u2, &a->x);
    FE_(sub)(&rr, &s2, &a->y);
    if (FE_(is_zero)(&h)) {
        if (FE_(is_zero)(&rr))
            P_(double)(r, a);
        else
            P_(set_infinity)(r);
        return;
    }
    FE_(sqr)(&hh, &h);
    FE_(dbl)(&i, &hh);
    FE_(dbl)(&i, &i);
    FE_(mul)(&j, &h, &i);
    FE_(dbl)(&rr, &rr);
    FE_(mul)(&v, &a->x, &i);
    FE_(add)(&t, &a->z, &h);
    FE_(sqr)(&t, &t);
    FE_(sub)(&t, &t, &z1z1);
    FE_(sub)(&r->z, &t, &hh);
    ECF y1j;
    FE_(mul)(&y1j, &a->y, &j);
    FE_(sqr)(&r->x, &rr);
    FE_(sub)(&r->x, &r->x, &j);
    FE_(sub)(&r->x, &r->x, &v);
    FE_(sub)(&r->x, &r->x, &v);
    FE_(sub)(&t, &v, &r->x);
    FE_(mul)(&t, &rr, &t);
    FE_(dbl)(&y1j, &y1j);
    FE_(sub)(&r->y, &t, &y1j);
}

/* r = k*a for a secret scalar k of nbits bits (little-endian limbs), in
 * time that depends on nbits only: fixed 4-bit windows, a table scanned in
 * full for each lookup, complete additions. */
CUZK_INLINE void P_(mul)(P_(jacobian) *r, const P_(jacobian) *a, const limb_t *k, size_t nbits)
{
    P_(jacobian) table[16], acc, t;
    P_(set_infinity)(&table[0]);
    table[1] = *a;
    for (int i = 2; i < 16; i++)
        P_(add)(&table[i], &table[i - 1], a);
    P_(set_infinity)(&acc);
    size_t windows = (nbits + 3) / 4;
    for (size_t w = windows; w-- > 0;) {
        for (int d = 0; d < 4; d++)
            P_(double)(&acc, &acc);
        limb_t digit = 0;
        for (size_t b = 0; b < 4; b++)
            if (4 * w + b < nbits)
                digit |= bn_bit(k, 4 * w + b) << b;
        t = table[0];
        for (limb_t i = 1; i < 16; i++)
            P_(cmov)(&t, &table[i], ct_is_zero_mask(i ^ digit));
        P_(add)(&acc, &acc, &t);
    }
    *r = acc;
    cuzk_memzero(table, sizeof(table));
}

/* r = k*a for a public scalar: width-5 NAF, variable time. */
CUZK_INLINE void P_(mul_var)(P_(jacobian) *r, const P_(jacobian) *a, const limb_t *k, size_t nbits)
{
    enum { W = 5, TABLE = 1 << (W - 2) };
    signed char naf[64 * 8 + 2];
    limb_t e[8 + 1] = {0};
    size_t nlimbs = (nbits + 63) / 64;
    if (nlimbs > 8) {
        P_(set_infinity)(r); /* callers pass at most 512 bits */
        return;
    }
    memcpy(e, k, nlimbs * sizeof(limb_t));
    if (nbits % 64)
        e[nlimbs - 1] &= ((limb_t)1 << (nbits % 64)) - 1;
    /* NAF digits, least significant first */
    size_t len = 0;
    while (!(bn_is_zero_mask(e, nlimbs + 1) & 1)) {
        int d = 0;
        if (e[0] & 1) {
            d = (int)(e[0] & ((1u << W) - 1));
            if (d >= (1 << (W - 1)))
                d -= 1 << W;
            limb_t dd = d >= 0 ? (limb_t)d : (limb_t)(-d);
            limb_t tmp[9] = {dd};
            if (d >= 0)
                bn_sub(e, e, tmp, nlimbs + 1);
            else
                bn_add(e, e, tmp, nlimbs + 1);
        }
        naf[len++] = (signed char)d;
        bn_shr1(e, e, 0, nlimbs + 1);
    }
    P_(jacobian) odd[TABLE], twice, acc;
    odd[0] = *a;
    P_(double)(&twice, a);
    for (int i = 1; i < TABLE; i++)
        P_(add_var)(&odd[i], &odd[i - 1], &twice);
    P_(set_infinity)(&acc);
    for (size_t i = len; i-- > 0;) {
        P_(double)(&acc, &acc);
        int d = naf[i];
        if (d > 0) {
            P_(add_var)(&acc, &acc, &odd[(d - 1) / 2]);
        } else if (d < 0) {
            P_(jacobian) n;
            P_(neg)(&n, &odd[(-d - 1) / 2]);
            P_(add_var)(&acc, &acc, &n);
        }
    }
    *r = acc;
}

/* out[i] = in[i] in affine form (infinity -> (0, 0)), one variable-time
 * inversion per chunk of points (Montgomery's trick): for public points.
 * out and in may not overlap. */
CUZK_INLINE void P_(batch_to_affine_var)(P_(affine) *out, const P_(jacobian) *in, size_t n)
{
    enum { CHUNK = 128 };
    ECF z[CHUNK], zinv[CHUNK];
    for (size_t base = 0; base < n; base += CHUNK) {
        size_t m = n - base < CHUNK ? n - base : CHUNK;
        for (size_t i = 0; i < m; i++)
            z[i] = in[base + i].z;
        FE_(batch_inv_var)(zinv, z, m);
        for (size_t i = 0; i < m; i++) {
            ECF zi2, zi3;
            FE_(sqr)(&zi2, &zinv[i]);
            FE_(mul)(&zi3, &zi2, &zinv[i]);
            FE_(mul)(&out[base + i].x, &in[base + i].x, &zi2);
            FE_(mul)(&out[base + i].y, &in[base + i].y, &zi3);
        }
    }
}

/* ------------------------------------------------------------ XYZZ */

CUZK_INLINE void P_(xyzz_set_infinity)(P_(xyzz) *r)
{
    FE_(one)(&r->x);
    FE_(one)(&r->y);
    FE_(zero)(&r->zz);
    FE_(zero)(&r->zzz);
}

CUZK_INLINE int P_(xyzz_is_infinity)(const P_(xyzz) *a)
{
    return FE_(is_zero)(&a->zz);
}

/* (X, Y, ZZ, ZZZ) -> (X ZZ^2, Y ZZZ^2, ZZZ), using ZZ^3 = ZZZ^2. */
CUZK_INLINE void P_(xyzz_to_jacobian)(P_(jacobian) *r, const P_(xyzz) *a)
{
    ECF t;
    FE_(sqr)(&t, &a->zz);
    FE_(mul)(&r->x, &a->x, &t);
    FE_(sqr)(&t, &a->zzz);
    FE_(mul)(&r->y, &a->y, &t);
    r->z = a->zzz;
}

/* dbl-2008-s-1 (a = 0): 6M + 3S. */
CUZK_INLINE void P_(xyzz_double)(P_(xyzz) *r, const P_(xyzz) *a)
{
    ECF u, v, w, s, m, t;
    FE_(dbl)(&u, &a->y);
    FE_(sqr)(&v, &u);
    FE_(mul)(&w, &u, &v);
    FE_(mul)(&s, &a->x, &v);
    FE_(sqr)(&m, &a->x);
    FE_(dbl)(&t, &m);
    FE_(add)(&m, &m, &t);
    FE_(mul)(&r->zz, &v, &a->zz);
    FE_(mul)(&r->zzz, &w, &a->zzz);
    FE_(mul)(&t, &w, &a->y);
    FE_(sqr)(&r->x, &m);
    FE_(sub)(&r->x, &r->x, &s);
    FE_(sub)(&r->x, &r->x, &s);
    FE_(sub)(&s, &s, &r->x);
    FE_(mul)(&s, &m, &s);
    FE_(sub)(&r->y, &s, &t);
}

/* mdbl-2008-s-1: doubling an affine point into XYZZ. */
CUZK_INLINE void P_(xyzz_double_affine)(P_(xyzz) *r, const P_(affine) *a)
{
    ECF u, s, m, t, w;
    FE_(dbl)(&u, &a->y);
    FE_(sqr)(&r->zz, &u);
    FE_(mul)(&r->zzz, &u, &r->zz);
    FE_(mul)(&s, &a->x, &r->zz);
    FE_(sqr)(&m, &a->x);
    FE_(dbl)(&t, &m);
    FE_(add)(&m, &m, &t);
    FE_(mul)(&w, &r->zzz, &a->y);
    FE_(sqr)(&r->x, &m);
    FE_(sub)(&r->x, &r->x, &s);
    FE_(sub)(&r->x, &r->x, &s);
    FE_(sub)(&s, &s, &r->x);
    FE_(mul)(&s, &m, &s);
    FE_(sub)(&r->y, &s, &w);
}

/* The common end of the XYZZ additions, given U1, S1, P = U2 - U1 != 0,
 * R = S2 - S1 and the product of the inputs' ZZ (ZZZ) coordinates:
 * PP = P^2, PPP = P PP, Q = U1 PP, X3 = R^2 - PPP - 2Q,
 * Y3 = R (Q - X3) - S1 PPP, ZZ3 = zz PP, ZZZ3 = zzz PPP. r may alias any input. */
CUZK_INLINE void P_(xyzz_add_finish)(P_(xyzz) *r, const ECF *u1, const ECF *s1, const ECF *p, const ECF *rr,
                                     const ECF *zz, const ECF *zzz)
{
    ECF pp, ppp, q, t, x3;
    FE_(sqr)(&pp, p);
    FE_(mul)(&ppp, p, &pp);
    FE_(mul)(&q, u1, &pp);
    FE_(mul)(&t, s1, &ppp);
    FE_(sqr)(&x3, rr);
    FE_(sub)(&x3, &x3, &ppp);
    FE_(sub)(&x3, &x3, &q);
    FE_(sub)(&x3, &x3, &q);
    FE_(sub)(&q, &q, &x3);
    FE_(mul)(&q, rr, &q);
    FE_(mul)(&r->zz, zz, &pp);
    FE_(mul)(&r->zzz, zzz, &ppp);
    FE_(sub)(&r->y, &q, &t);
    r->x = x3;
}

/* r = a + b, b affine (madd-2008-s: 8M + 2S), any inputs. */
CUZK_INLINE void P_(xyzz_add_affine_var)(P_(xyzz) *r, const P_(xyzz) *a, const P_(affine) *b)
{
    if (P_(affine_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (P_(xyzz_is_infinity)(a)) {
        r->x = b->x;
        r->y = b->y;
        FE_(one)(&r->zz);
        FE_(one)(&r->zzz);
        return;
    }
    ECF u2, s2, rr;
    FE_(mul)(&u2, &b->x, &a->zz);
    FE_(mul)(&s2, &b->y, &a->zzz);
    FE_(sub)(&u2, &u2, &a->x); /* P */
    FE_(sub)(&rr, &s2, &a->y); /* R */
    if (FE_(is_zero)(&u2)) {
        if (FE_(is_zero)(&rr))
            P_(xyzz_double_affine)(r, b);
        else
            P_(xyzz_set_infinity)(r);
        return;
    }
    P_(xyzz_add_finish)(r, &a->x, &a->y, &u2, &rr, &a->zz, &a->zzz);
}

/* r = a + b (add-2008-s: 12M + 2S), any inputs. */
CUZK_INLINE void P_(xyzz_add_var)(P_(xyzz) *r, const P_(xyzz) *a, const P_(xyzz) *b)
{
    if (P_(xyzz_is_infinity)(b)) {
        *r = *a;
        return;
    }
    if (P_(xyzz_is_infinity)(a)) {
        *r = *b;
        return;
    }
    ECF u1, u2, s1, s2, rr;
    FE_(mul)(&u1, &a->x, &b->zz);
    FE_(mul)(&u2, &b->x, &a->zz);
    FE_(mul)(&s1, &a->y, &b->zzz);
    FE_(mul)(&s2, &b->y, &a->zzz);
    FE_(sub)(&u2, &u2, &u1);
    FE_(sub)(&rr, &s2, &s1);
    if (FE_(is_zero)(&u2)) {
        if (FE_(is_zero)(&rr))
            P_(xyzz_double)(r, a);
        else
            P_(xyzz_set_infinity)(r);
        return;
    }
    ECF zz, zzz;
    FE_(mul)(&zz, &a->zz, &b->zz);
    FE_(mul)(&zzz, &a->zzz, &b->zzz);
    P_(xyzz_add_finish)(r, &u1, &s1, &u2, &rr, &zz, &zzz);
}

/* [r]a == infinity: the definition of subgroup membership, slow; the fast
 * endomorphism checks (src/ec/curves.h) are tested against it. */
CUZK_INLINE int P_(in_subgroup_by_order_var)(const P_(jacobian) *a, const limb_t r[4])
{
    P_(jacobian) t;
    P_(mul_var)(&t, a, r, 256);
    return P_(is_infinity)(&t);
}

#undef P_
#undef FE_
#undef EC
#undef ECF
#undef EC_B
#undef EC_GEN_X
#undef EC_GEN_Y
