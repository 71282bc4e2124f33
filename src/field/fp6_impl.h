/* Fp6 = Fp2[v]/(v^3 - xi), stamped once per curve.
 *
 * Before including, define:
 *   FP6     the type and function prefix, e.g. bls12_381_fp6
 *   FP2     the quadratic extension below it (stamped), e.g. bls12_381_fp2
 *   FP6_C   the curve's constant prefix, e.g. BLS12_381 (for FP6_FROB_V/V2)
 *
 * Elements are c0 + c1 v + c2 v^2. Used by the pairing only, on public
 * values: nothing here needs to be constant time, but nothing branches.
 */

#define S_(name) CUZK_CAT(FP6, _##name)
#define Q_(name) CUZK_CAT(FP2, _##name)

typedef struct {
    FP2 c0, c1, c2;
} FP6;

CUZK_UNUSED static const FP2 S_(frob_v) = CUZK_CAT(FP6_C, _FP6_FROB_V);
CUZK_UNUSED static const FP2 S_(frob_v2) = CUZK_CAT(FP6_C, _FP6_FROB_V2);

CUZK_INLINE void S_(zero)(FP6 *r)
{
    Q_(zero)(&r->c0);
    Q_(zero)(&r->c1);
    Q_(zero)(&r->c2);
}

CUZK_INLINE void S_(one)(FP6 *r)
{
    Q_(one)(&r->c0);
    Q_(zero)(&r->c1);
    Q_(zero)(&r->c2);
}

CUZK_INLINE int S_(is_zero)(const FP6 *a)
{
    return Q_(is_zero)(&a->c0) & Q_(is_zero)(&a->c1) & Q_(is_zero)(&a->c2);
}

CUZK_INLINE int S_(eq)(const FP6 *a, const FP6 *b)
{
    return Q_(eq)(&a->c0, &b->c0) & Q_(eq)(&a->c1, &b->c1) & Q_(eq)(&a->c2, &b->c2);
}

CUZK_INLINE void S_(add)(FP6 *r, const FP6 *a, const FP6 *b)
{
    Q_(add)(&r->c0, &a->c0, &b->c0);
    Q_(add)(&r->c1, &a->c1, &b->c1);
    Q_(add)(&r->c2, &a->c2, &b->c2);
}

CUZK_INLINE void S_(sub)(FP6 *r, const FP6 *a, const FP6 *b)
{
    Q_(sub)(&r->c0, &a->c0, &b->c0);
    Q_(sub)(&r->c1, &a->c1, &b->c1);
    Q_(sub)(&r->c2, &a->c2, &b->c2);
}

CUZK_INLINE void S_(neg)(FP6 *r, const FP6 *a)
{
    Q_(neg)(&r->c0, &a->c0);
    Q_(neg)(&r->c1, &a->c1);
    Q_(neg)(&r->c2, &a->c2);
}

/* r = v * a = xi a2 + a0 v + a1 v^2 */
CUZK_INLINE void S_(mul_by_v)(FP6 *r, const FP6 *a)
{
    FP2 t;
    Q_(mul_by_xi)(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

/* Karatsuba over the three coefficients: 6 Fp2 multiplications. */
CUZK_INLINE void S_(mul)(FP6 *r, const FP6 *a, const FP6 *b)
{
    FP2 t0, t1, t2, s, u, c0, c1, c2;
    Q_(mul)(&t0, &a->c0, &b->c0);
    Q_(mul)(&t1, &a->c1, &b->c1);
    Q_(mul)(&t2, &a->c2, &b->c2);
    /* c0 = ((a1 + a2)(b1 + b2) - t1 - t2) xi + t0 */
    Q_(add)(&s, &a->c1, &a->c2);
    Q_(add)(&u, &b->c1, &b->c2);
    Q_(mul)(&c0, &s, &u);
    Q_(sub)(&c0, &c0, &t1);
    Q_(sub)(&c0, &c0, &t2);
    Q_(mul_by_xi)(&c0, &c0);
    Q_(add)(&c0, &c0, &t0);
    /* c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2 */
    Q_(add)(&s, &a->c0, &a->c1);
    Q_(add)(&u, &b->c0, &b->c1);
    Q_(mul)(&c1, &s, &u);
    Q_(sub)(&c1, &c1, &t0);
    Q_(sub)(&c1, &c1, &t1);
    Q_(mul_by_xi)(&s, &t2);
    Q_(add)(&c1, &c1, &s);
    /* c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    Q_(add)(&s, &a->c0, &a->c2);
    Q_(add)(&u, &b->c0, &b->c2);
    Q_(mul)(&c2, &s, &u);
    Q_(sub)(&c2, &c2, &t0);
    Q_(sub)(&c2, &c2, &t2);
    Q_(add)(&c2, &c2, &t1);
    r->c0 = c0;
    r->c1 = c1;
    r->c2 = c2;
}

CUZK_INLINE void S_(sqr)(FP6 *r, const FP6 *a)
{
    S_(mul)(r, a, a);
}

CUZK_INLINE void S_(mul_fp2)(FP6 *r, const FP6 *a, const FP2 *b)
{
    Q_(mul)(&r->c0, &a->c0, b);
    Q_(mul)(&r->c1, &a->c1, b);
    Q_(mul)(&r->c2, &a->c2, b);
}

/* 1/a = (t0 + t1 v + t2 v^2) / (a0 t0 + xi (a2 t1 + a1 t2)) with
 * t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1, t2 = a1^2 - a0 a2. */
CUZK_INLINE void S_(inv_var)(FP6 *r, const FP6 *a)
{
    FP2 t0, t1, t2, s, d;
    Q_(sqr)(&t0, &a->c0);
    Q_(mul)(&s, &a->c1, &a->c2);
    Q_(mul_by_xi)(&s, &s);
    Q_(sub)(&t0, &t0, &s);
    Q_(sqr)(&t1, &a->c2);
    Q_(mul_by_xi)(&t1, &t1);
    Q_(mul)(&s, &a->c0, &a->c1);
    Q_(sub)(&t1, &t1, &s);
    Q_(sqr)(&t2, &a->c1);
    Q_(mul)(&s, &a->c0, &a->c2);
    Q_(sub)(&t2, &t2, &s);
    Q_(mul)(&d, &a->c2, &t1);
    Q_(mul)(&s, &a->c1, &t2);
    Q_(add)(&d, &d, &s);
    Q_(mul_by_xi)(&d, &d);
    Q_(mul)(&s, &a->c0, &t0);
    Q_(add)(&d, &d, &s);
    Q_(inv_var)(&d, &d);
    Q_(mul)(&r->c0, &t0, &d);
    Q_(mul)(&r->c1, &t1, &d);
    Q_(mul)(&r->c2, &t2, &d);
}

/* a^p = conj(a0) + conj(a1) xi^((p-1)/3) v + conj(a2) xi^(2(p-1)/3) v^2 */
CUZK_INLINE void S_(frobenius)(FP6 *r, const FP6 *a)
{
    Q_(conj)(&r->c0, &a->c0);
    Q_(conj)(&r->c1, &a->c1);
    Q_(mul)(&r->c1, &r->c1, &S_(frob_v));
    Q_(conj)(&r->c2, &a->c2);
    Q_(mul)(&r->c2, &r->c2, &S_(frob_v2));
}

#undef S_
#undef Q_
#undef FP6
#undef FP2
#undef FP6_C
