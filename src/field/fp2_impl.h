/* Fp2 = Fp[u]/(u^2 + 1), stamped once per curve.
 *
 * Before including, define:
 *   FP2      the type and function prefix, e.g. bls12_381_fp2
 *   FP       the base field prefix (already stamped), e.g. bls12_381_fp
 *   FP_C     the base field's constant prefix, e.g. BLS12_381_FP
 *   FP2_XI_C0  k in the tower's non-residue xi = k + u (1 or 9)
 *
 * Elements are c0 + c1*u, stored c0 then c1 (the .zkey order). The function
 * names match the prime field's, so the curve code is written once for both.
 * Needs p = 3 mod 4 (true for both curves), which makes u^2 = -1 a
 * non-residue and gives the square root below.
 */

#define E_(name) CUZK_CAT(FP2, _##name)
#define B_(name) CUZK_CAT(FP, _##name)
#define BC_(name) CUZK_CAT(FP_C, _##name)

typedef struct {
    FP c0, c1;
} FP2;

CUZK_INLINE void E_(zero)(FP2 *r)
{
    B_(zero)(&r->c0);
    B_(zero)(&r->c1);
}

CUZK_INLINE void E_(one)(FP2 *r)
{
    B_(one)(&r->c0);
    B_(zero)(&r->c1);
}

CUZK_INLINE limb_t E_(is_zero_mask)(const FP2 *a)
{
    return B_(is_zero_mask)(&a->c0) & B_(is_zero_mask)(&a->c1);
}

CUZK_INLINE int E_(is_zero)(const FP2 *a)
{
    return (int)(E_(is_zero_mask)(a) & 1);
}

CUZK_INLINE limb_t E_(eq_mask)(const FP2 *a, const FP2 *b)
{
    return B_(eq_mask)(&a->c0, &b->c0) & B_(eq_mask)(&a->c1, &b->c1);
}

CUZK_INLINE int E_(eq)(const FP2 *a, const FP2 *b)
{
    return (int)(E_(eq_mask)(a, b) & 1);
}

CUZK_INLINE int E_(is_one)(const FP2 *a)
{
    return B_(is_one)(&a->c0) & B_(is_zero)(&a->c1);
}

CUZK_INLINE void E_(cmov)(FP2 *r, const FP2 *a, limb_t mask)
{
    B_(cmov)(&r->c0, &a->c0, mask);
    B_(cmov)(&r->c1, &a->c1, mask);
}

CUZK_INLINE void E_(add)(FP2 *r, const FP2 *a, const FP2 *b)
{
    B_(add)(&r->c0, &a->c0, &b->c0);
    B_(add)(&r->c1, &a->c1, &b->c1);
}

CUZK_INLINE void E_(sub)(FP2 *r, const FP2 *a, const FP2 *b)
{
    B_(sub)(&r->c0, &a->c0, &b->c0);
    B_(sub)(&r->c1, &a->c1, &b->c1);
}

CUZK_INLINE void E_(dbl)(FP2 *r, const FP2 *a)
{
    B_(dbl)(&r->c0, &a->c0);
    B_(dbl)(&r->c1, &a->c1);
}

CUZK_INLINE void E_(neg)(FP2 *r, const FP2 *a)
{
    B_(neg)(&r->c0, &a->c0);
    B_(neg)(&r->c1, &a->c1);
}

CUZK_INLINE void E_(half)(FP2 *r, const FP2 *a)
{
    B_(half)(&r->c0, &a->c0);
    B_(half)(&r->c1, &a->c1);
}

CUZK_INLINE void E_(cneg)(FP2 *r, limb_t mask)
{
    B_(cneg)(&r->c0, mask);
    B_(cneg)(&r->c1, mask);
}

/* r = xi * a with xi = k + u: (k a0 - a1) + (a0 + k a1) u. */
CUZK_INLINE void E_(mul_by_xi)(FP2 *r, const FP2 *a)
{
    FP ka0, ka1;
    B_(mul_small)(&ka0, &a->c0, FP2_XI_C0);
    B_(mul_small)(&ka1, &a->c1, FP2_XI_C0);
    B_(add)(&ka1, &ka1, &a->c0);
    B_(sub)(&r->c0, &ka0, &a->c1);
    r->c1 = ka1;
}

/* The Frobenius map a -> a^p. */
CUZK_INLINE void E_(conj)(FP2 *r, const FP2 *a)
{
    r->c0 = a->c0;
    B_(neg)(&r->c1, &a->c1);
}

/* Karatsuba: three base multiplications. */
CUZK_INLINE void E_(mul)(FP2 *r, const FP2 *a, const FP2 *b)
{
    FP t0, t1, s0, s1;
    B_(mul)(&t0, &a->c0, &b->c0);
    B_(mul)(&t1, &a->c1, &b->c1);
    B_(add)(&s0, &a->c0, &a->c1);
    B_(add)(&s1, &b->c0, &b->c1);
    B_(mul)(&s0, &s0, &s1);
    B_(sub)(&r->c0, &t0, &t1);
    B_(sub)(&s0, &s0, &t0);
    B_(sub)(&r->c1, &s0, &t1);
}

/* (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u: two multiplications. */
CUZK_INLINE void E_(sqr)(FP2 *r, const FP2 *a)
{
    FP s, d, m;
    B_(add)(&s, &a->c0, &a->c1);
    B_(sub)(&d, &a->c0, &a->c1);
    B_(mul)(&m, &a->c0, &a->c1);
    B_(mul)(&r->c0, &s, &d);
    B_(dbl)(&r->c1, &m);
}

CUZK_INLINE void E_(mul_fp)(FP2 *r, const FP2 *a, const FP *b)
{
    B_(mul)(&r->c0, &a->c0, b);
    B_(mul)(&r->c1, &a->c1, b);
}

/* The norm c0^2 + c1^2 in Fp. */
CUZK_INLINE void E_(norm)(FP *r, const FP2 *a)
{
    FP t;
    B_(sqr)(r, &a->c0);
    B_(sqr)(&t, &a->c1);
    B_(add)(r, r, &t);
}

/* 1/a = conj(a) / norm(a); 1/0 = 0. Constant time. */
CUZK_INLINE void E_(inv)(FP2 *r, const FP2 *a)
{
    FP n;
    E_(norm)(&n, a);
    B_(inv)(&n, &n);
    B_(mul)(&r->c0, &a->c0, &n);
    B_(mul)(&n, &a->c1, &n);
    B_(neg)(&r->c1, &n);
}

CUZK_INLINE void E_(inv_var)(FP2 *r, const FP2 *a)
{
    FP n;
    E_(norm)(&n, a);
    B_(inv_var)(&n, &n);
    B_(mul)(&r->c0, &a->c0, &n);
    B_(mul)(&n, &a->c1, &n);
    B_(neg)(&r->c1, &n);
}

/* Same contracts as the prime field's batch_inv and batch_inv_var. */
CUZK_ALWAYS_INLINE void E_(batch_inv_with)(FP2 *out, const FP2 *in, size_t n, void (*invert)(FP2 *, const FP2 *))
{
    if (n == 0)
        return;
    FP2 acc, t, one, zero;
    E_(one)(&one);
    E_(zero)(&zero);
    acc = one;
    for (size_t i = 0; i < n; i++) {
        out[i] = acc;
        t = in[i];
        E_(cmov)(&t, &one, E_(is_zero_mask)(&in[i]));
        E_(mul)(&acc, &acc, &t);
    }
    invert(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        limb_t z = E_(is_zero_mask)(&in[i]);
        t = in[i];
        E_(cmov)(&t, &one, z);
        E_(mul)(&out[i], &out[i], &acc);
        E_(mul)(&acc, &acc, &t);
        E_(cmov)(&out[i], &zero, z);
    }
}

CUZK_INLINE void E_(batch_inv)(FP2 *out, const FP2 *in, size_t n)
{
    E_(batch_inv_with)(out, in, n, E_(inv));
}

CUZK_INLINE void E_(batch_inv_var)(FP2 *out, const FP2 *in, size_t n)
{
    E_(batch_inv_with)(out, in, n, E_(inv_var));
}

CUZK_INLINE void E_(batch_inv_nonzero_var)(FP2 *out, const FP2 *in, size_t n)
{
    out[0] = in[0];
    for (size_t i = 1; i < n; i++)
        E_(mul)(&out[i], &out[i - 1], &in[i]);
    FP2 acc, t;
    E_(inv_var)(&acc, &out[n - 1]);
    for (size_t i = n - 1; i > 0; i--) {
        E_(mul)(&t, &acc, &out[i - 1]);
        E_(mul)(&acc, &acc, &in[i]);
        out[i] = t;
    }
    out[0] = acc;
}

/* r = a^e, fixed 4-bit window, constant time in a and e (nbits is public). */
CUZK_INLINE void E_(pow)(FP2 *r, const FP2 *a, const limb_t *e, size_t nbits)
{
    FP2 table[16], acc, t;
    E_(one)(&table[0]);
    table[1] = *a;
    for (size_t i = 2; i < 16; i++)
        E_(mul)(&table[i], &table[i - 1], a);
    E_(one)(&acc);
    size_t windows = (nbits + 3) / 4;
    for (size_t w = windows; w-- > 0;) {
        if (w + 1 != windows)
            for (int k = 0; k < 4; k++)
                E_(sqr)(&acc, &acc);
        limb_t digit = 0;
        for (size_t k = 0; k < 4; k++)
            if (4 * w + k < nbits)
                digit |= bn_bit(e, 4 * w + k) << k;
        t = table[0];
        for (limb_t i = 1; i < 16; i++)
            E_(cmov)(&t, &table[i], ct_is_zero_mask(i ^ digit));
        E_(mul)(&acc, &acc, &t);
    }
    *r = acc;
}

/* a is a square in Fp2 exactly when its norm is a square in Fp. */
CUZK_INLINE int E_(is_square)(const FP2 *a)
{
    FP n;
    E_(norm)(&n, a);
    return B_(is_square)(&n);
}

/* r = a square root of a; returns 1, or 0 when a is not a square.
 * Adj and Rodriguez-Henriquez, "Square root computation over even extension
 * fields", Algorithm 9 (q = p^2, p = 3 mod 4), with both branches computed
 * and one selected so the time does not depend on a. */
CUZK_INLINE int E_(sqrt)(FP2 *r, const FP2 *a)
{
    FP2 a1, alpha, x0, xu, xb, b, check;
    /* BC_(SQRT_EXP) is (p-3)/4 when p = 3 mod 4 (two-adicity 1). */
    static const limb_t exp_p_minus_3_quarter[] = BC_(SQRT_EXP);
    static const limb_t exp_p_minus_1_half[] = BC_(P_MINUS_1_HALF);
    E_(pow)(&a1, a, exp_p_minus_3_quarter, BC_(BITS));
    E_(sqr)(&alpha, &a1);
    E_(mul)(&alpha, &alpha, a);
    E_(mul)(&x0, &a1, a);
    /* alpha == -1: x = u * x0 */
    B_(neg)(&xu.c0, &x0.c1);
    xu.c1 = x0.c0;
    /* else: x = (1 + alpha)^((p-1)/2) * x0 */
    E_(one)(&b);
    E_(add)(&b, &b, &alpha);
    E_(pow)(&b, &b, exp_p_minus_1_half, BC_(BITS));
    E_(mul)(&xb, &b, &x0);
    FP2 minus_one;
    E_(one)(&minus_one);
    E_(neg)(&minus_one, &minus_one);
    E_(cmov)(&xb, &xu, E_(eq_mask)(&alpha, &minus_one));
    E_(sqr)(&check, &xb);
    int ok = E_(eq)(&check, a);
    *r = xb; /* r may alias a */
    return ok;
}

/* The .zkey encoding: c0 then c1, each its Montgomery image little-endian.
 * CUZK_ERR_NOT_CANONICAL when either half is not below p. */
CUZK_INLINE int E_(from_mont_bytes_le)(FP2 *r, const unsigned char *in)
{
    FP c0, c1;
    if (B_(from_mont_bytes_le)(&c0, in) != CUZK_OK ||
        B_(from_mont_bytes_le)(&c1, in + sizeof(FP)) != CUZK_OK)
        return CUZK_ERR_NOT_CANONICAL;
    r->c0 = c0;
    r->c1 = c1;
    return CUZK_OK;
}

CUZK_INLINE void E_(to_mont_bytes_le)(unsigned char *out, const FP2 *a)
{
    B_(to_mont_bytes_le)(out, &a->c0);
    B_(to_mont_bytes_le)(out + sizeof(FP), &a->c1);
}

#undef BC_
#undef B_
#undef E_
#undef FP2
#undef FP
#undef FP_C
#undef FP2_XI_C0
