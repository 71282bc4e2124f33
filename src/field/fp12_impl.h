/* Fp12 = Fp6[w]/(w^2 - v), stamped once per curve.
 *
 * Before including, define:
 *   FP12    the type and function prefix, e.g. bls12_381_fp12
 *   FP6     the cubic extension below it (stamped), e.g. bls12_381_fp6
 *   FP2     the quadratic extension, e.g. bls12_381_fp2
 *   FP12_C  the curve's constant prefix, e.g. BLS12_381 (for FP12_FROB_W)
 *
 * Elements are c0 + c1 w; the pairing's values live here. Public values
 * only; nothing branches on them except the _var exponentiation.
 */

#define T_(name) CUZK_CAT(FP12, _##name)
#define S_(name) CUZK_CAT(FP6, _##name)
#define Q_(name) CUZK_CAT(FP2, _##name)

typedef struct {
    FP6 c0, c1;
} FP12;

CUZK_UNUSED static const FP2 T_(frob_w) = CUZK_CAT(FP12_C, _FP12_FROB_W);

CUZK_INLINE void T_(one)(FP12 *r)
{
    S_(one)(&r->c0);
    S_(zero)(&r->c1);
}

CUZK_INLINE int T_(eq)(const FP12 *a, const FP12 *b)
{
    return S_(eq)(&a->c0, &b->c0) & S_(eq)(&a->c1, &b->c1);
}

CUZK_INLINE int T_(is_one)(const FP12 *a)
{
    FP12 one;
    T_(one)(&one);
    return T_(eq)(a, &one);
}

/* Karatsuba: c0 = a0 b0 + v a1 b1, c1 = (a0 + a1)(b0 + b1) - a0 b0 - a1 b1. */
CUZK_INLINE void T_(mul)(FP12 *r, const FP12 *a, const FP12 *b)
{
    FP6 t0, t1, s, u;
    S_(mul)(&t0, &a->c0, &b->c0);
    S_(mul)(&t1, &a->c1, &b->c1);
    S_(add)(&s, &a->c0, &a->c1);
    S_(add)(&u, &b->c0, &b->c1);
    S_(mul)(&s, &s, &u);
    S_(sub)(&s, &s, &t0);
    S_(sub)(&r->c1, &s, &t1);
    S_(mul_by_v)(&t1, &t1);
    S_(add)(&r->c0, &t0, &t1);
}

/* Complex squaring: c0 = (a0 + a1)(a0 + v a1) - t - v t, c1 = 2t, t = a0 a1. */
CUZK_INLINE void T_(sqr)(FP12 *r, const FP12 *a)
{
    FP6 t, s, u, vt;
    S_(mul)(&t, &a->c0, &a->c1);
    S_(add)(&s, &a->c0, &a->c1);
    S_(mul_by_v)(&u, &a->c1);
    S_(add)(&u, &u, &a->c0);
    S_(mul)(&s, &s, &u);
    S_(mul_by_v)(&vt, &t);
    S_(sub)(&s, &s, &t);
    S_(sub)(&r->c0, &s, &vt);
    S_(add)(&r->c1, &t, &t);
}

/* The conjugate a0 - a1 w = a^(p^6): the inverse of a unitary element (any
 * value after the easy part of the final exponentiation). */
CUZK_INLINE void T_(conj)(FP12 *r, const FP12 *a)
{
    r->c0 = a->c0;
    S_(neg)(&r->c1, &a->c1);
}

/* 1/a = (a0 - a1 w) / (a0^2 - v a1^2) */
CUZK_INLINE void T_(inv_var)(FP12 *r, const FP12 *a)
{
    FP6 t0, t1;
    S_(sqr)(&t0, &a->c0);
    S_(sqr)(&t1, &a->c1);
    S_(mul_by_v)(&t1, &t1);
    S_(sub)(&t0, &t0, &t1);
    S_(inv_var)(&t0, &t0);
    S_(mul)(&r->c0, &a->c0, &t0);
    S_(mul)(&t1, &a->c1, &t0);
    S_(neg)(&r->c1, &t1);
}

/* a^p = frob(a0) + frob(a1) xi^((p-1)/6) w */
CUZK_INLINE void T_(frobenius)(FP12 *r, const FP12 *a)
{
    S_(frobenius)(&r->c0, &a->c0);
    S_(frobenius)(&r->c1, &a->c1);
    S_(mul_fp2)(&r->c1, &r->c1, &T_(frob_w));
}

/* a^(p^k) */
CUZK_INLINE void T_(frobenius_k)(FP12 *r, const FP12 *a, int k)
{
    *r = *a;
    for (int i = 0; i < k; i++)
        T_(frobenius)(r, r);
}

/* r = a^e for a public exponent (limbs little-endian, nbits bits),
 * left-to-right square-and-multiply. */
CUZK_INLINE void T_(pow_var)(FP12 *r, const FP12 *a, const limb_t *e, size_t nbits)
{
    FP12 acc, base = *a;
    T_(one)(&acc);
    size_t top = bn_bit_length_var(e, (nbits + 63) / 64);
    if (top > nbits)
        top = nbits;
    for (size_t i = top; i-- > 0;) {
        T_(sqr)(&acc, &acc);
        if (bn_bit(e, i))
            T_(mul)(&acc, &acc, &base);
    }
    *r = acc;
}

CUZK_INLINE void T_(pow_u64_var)(FP12 *r, const FP12 *a, uint64_t e)
{
    const limb_t limb = e;
    T_(pow_var)(r, a, &limb, 64);
}

#undef T_
#undef S_
#undef Q_
#undef FP12
#undef FP6
#undef FP2
#undef FP12_C
