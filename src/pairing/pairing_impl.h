/* The optimal ate pairing e: G1 x G2 -> Fp12, stamped once per curve.
 *
 * Before including, define:
 *   PAIRING     the curve prefix: bls12_381 or bn254
 *   PAIRING_BN  1 for BN254 (D-type twist, loop 6x+2 and two Frobenius
 *               lines), 0 for BLS12-381 (M-type twist, loop |x|, x < 0)
 *
 * The Miller loop keeps T in affine coordinates; the slopes of all pairs in
 * a multi-pairing share one batched inversion per step. Lines are evaluated
 * at P after untwisting:
 *   D-type, T' = (x w^2, y w^3):        l = yP - lambda xP w + (lambda xT - yT) w^3
 *   M-type, T' = (x w^-2, y w^-3), times xi (a factor in Fp2, which the final
 *   exponentiation removes):            l = xi yP + (lambda xT - yT) w^3 - lambda xP w^5
 * With Fp12 = Fp6[w]/(w^2 - v): w^3 = v w, w^5 = v^2 w.
 *
 * The final exponentiation raises to k (p^12 - 1)/r with the same fixed k
 * as snarkjs and @noble/curves, so values equal theirs (tests/test_pairing.c
 * checks against @noble/curves, tests/test_formats.c against snarkjs's
 * vk_alphabeta_12).
 * Everything here is for public inputs (_var).
 */

#define PR_(name) CUZK_CAT(PAIRING, _##name)
#define PF_(name) CUZK_CAT(PAIRING, _fp_##name)
#define PF2_(name) CUZK_CAT(PAIRING, _fp2_##name)
#define PF12_(name) CUZK_CAT(PAIRING, _fp12_##name)
#define PG1_(name) CUZK_CAT(PAIRING, _g1_##name)
#define PG2_(name) CUZK_CAT(PAIRING, _g2_##name)
#define P_FP CUZK_CAT(PAIRING, _fp)
#define P_FP2 CUZK_CAT(PAIRING, _fp2)
#define P_FP12 CUZK_CAT(PAIRING, _fp12)
#define P_G1 CUZK_CAT(PAIRING, _g1_affine)
#define P_G2 CUZK_CAT(PAIRING, _g2_affine)

/* Pairs per Miller-loop batch; longer products run in chunks. */
#define PAIRING_BATCH 16

/* f *= line through T with slope lambda, evaluated at (xp, yp). */
CUZK_INLINE void PR_(mul_line)(P_FP12 *f, const P_FP2 *lambda, const P_FP2 *xt, const P_FP2 *yt, const P_FP *xp,
                               const P_FP *yp)
{
    P_FP12 l;
    P_FP2 c, lx;
    PF2_(mul)(&c, lambda, xt);
    PF2_(sub)(&c, &c, yt);
    PF2_(mul_fp)(&lx, lambda, xp);
    PF2_(neg)(&lx, &lx);
    memset(&l, 0, sizeof(l));
#if PAIRING_BN
    l.c0.c0.c0 = *yp;
    l.c1.c0 = lx;
    l.c1.c1 = c;
#else
    P_FP2 y = {*yp, {{0}}};
    PF2_(mul_by_xi)(&l.c0.c0, &y);
    l.c1.c1 = c;
    l.c1.c2 = lx;
#endif
    PF12_(mul)(f, f, &l);
}

/* Doubles every T[i] and multiplies f by the tangent lines at P[i]. */
CUZK_INLINE void PR_(double_step)(P_FP12 *f, P_G2 *T, const P_G1 *P, size_t n)
{
    P_FP2 den[PAIRING_BATCH], inv[PAIRING_BATCH];
    for (size_t i = 0; i < n; i++)
        PF2_(dbl)(&den[i], &T[i].y);
    PF2_(batch_inv_var)(inv, den, n);
    for (size_t i = 0; i < n; i++) {
        P_FP2 lambda, x3, t;
        PF2_(sqr)(&lambda, &T[i].x); /* lambda = 3 x^2 / 2y */
        PF2_(dbl)(&t, &lambda);
        PF2_(add)(&lambda, &lambda, &t);
        PF2_(mul)(&lambda, &lambda, &inv[i]);
        PR_(mul_line)(f, &lambda, &T[i].x, &T[i].y, &P[i].x, &P[i].y);
        PF2_(sqr)(&x3, &lambda); /* x3 = lambda^2 - 2x, y3 = lambda (x - x3) - y */
        PF2_(sub)(&x3, &x3, &T[i].x);
        PF2_(sub)(&x3, &x3, &T[i].x);
        PF2_(sub)(&t, &T[i].x, &x3);
        PF2_(mul)(&t, &lambda, &t);
        PF2_(sub)(&T[i].y, &t, &T[i].y);
        T[i].x = x3;
    }
}

/* T[i] += Q[i], multiplying f by the chords at P[i]. T[i] != +-Q[i] holds
 * for every addition of the loops below (T is a multiple of Q by a number
 * below r other than +-1). */
CUZK_INLINE void PR_(add_step)(P_FP12 *f, P_G2 *T, const P_G2 *Q, const P_G1 *P, size_t n)
{
    P_FP2 den[PAIRING_BATCH], inv[PAIRING_BATCH];
    for (size_t i = 0; i < n; i++)
        PF2_(sub)(&den[i], &Q[i].x, &T[i].x);
    PF2_(batch_inv_var)(inv, den, n);
    for (size_t i = 0; i < n; i++) {
        P_FP2 lambda, x3, t;
        PF2_(sub)(&lambda, &Q[i].y, &T[i].y);
        PF2_(mul)(&lambda, &lambda, &inv[i]);
        PR_(mul_line)(f, &lambda, &T[i].x, &T[i].y, &P[i].x, &P[i].y);
        PF2_(sqr)(&x3, &lambda);
        PF2_(sub)(&x3, &x3, &T[i].x);
        PF2_(sub)(&x3, &x3, &Q[i].x);
        PF2_(sub)(&t, &T[i].x, &x3);
        PF2_(mul)(&t, &lambda, &t);
        PF2_(sub)(&T[i].y, &t, &T[i].y);
        T[i].x = x3;
    }
}

#if PAIRING_BN
/* psi on affine points: (cx conj(x), cy conj(y)) */
CUZK_INLINE void PR_(psi_affine)(P_G2 *r, const P_G2 *a)
{
    PF2_(conj)(&r->x, &a->x);
    PF2_(mul)(&r->x, &r->x, &PG2_(psi_cx));
    PF2_(conj)(&r->y, &a->y);
    PF2_(mul)(&r->y, &r->y, &PG2_(psi_cy));
}
#endif

/* f = product of the Miller loops of n <= PAIRING_BATCH pairs, none at
 * infinity. */
CUZK_INLINE void PR_(miller_loop_batch)(P_FP12 *f, const P_G1 *P, const P_G2 *Q, size_t n)
{
    P_G2 T[PAIRING_BATCH];
    memcpy(T, Q, n * sizeof(*Q));
    PF12_(one)(f);
#if PAIRING_BN
    /* 6x + 2 in non-adjacent form, least significant digit first */
    signed char naf[72];
    size_t len = 0;
    dlimb_t k = (dlimb_t)6 * BN254_X + 2;
    while (k) {
        int d = 0;
        if (k & 1) {
            d = 2 - (int)(k & 3); /* +1 or -1 */
            k = d > 0 ? k - 1 : k + 1;
        }
        naf[len++] = (signed char)d;
        k >>= 1;
    }
    P_G2 negQ[PAIRING_BATCH];
    for (size_t i = 0; i < n; i++) {
        negQ[i].x = Q[i].x;
        PF2_(neg)(&negQ[i].y, &Q[i].y);
    }
    for (size_t b = len - 1; b-- > 0;) {
        PF12_(sqr)(f, f);
        PR_(double_step)(f, T, P, n);
        if (naf[b] == 1)
            PR_(add_step)(f, T, Q, P, n);
        else if (naf[b] == -1)
            PR_(add_step)(f, T, negQ, P, n);
    }
    /* the two extra lines of the optimal ate pairing on BN curves:
     * T + pi(Q), then + (-pi^2(Q)) */
    P_G2 Q1[PAIRING_BATCH], Q2[PAIRING_BATCH];
    for (size_t i = 0; i < n; i++) {
        PR_(psi_affine)(&Q1[i], &Q[i]);
        PR_(psi_affine)(&Q2[i], &Q1[i]);
        PF2_(neg)(&Q2[i].y, &Q2[i].y);
    }
    PR_(add_step)(f, T, Q1, P, n);
    PR_(add_step)(f, T, Q2, P, n);
#else
    const uint64_t x_abs = BLS12_381_X_ABS;
    for (int b = 62; b >= 0; b--) {
        PF12_(sqr)(f, f);
        PR_(double_step)(f, T, P, n);
        if ((x_abs >> b) & 1)
            PR_(add_step)(f, T, Q, P, n);
    }
    PF12_(conj)(f, f); /* x < 0 */
#endif
}

/* a^x for the curve parameter x (a unitary: conj = inverse). */
CUZK_INLINE void PR_(pow_x)(P_FP12 *r, const P_FP12 *a)
{
#if PAIRING_BN
    PF12_(pow_u64_var)(r, a, BN254_X);
#else
    PF12_(pow_u64_var)(r, a, BLS12_381_X_ABS);
    PF12_(conj)(r, r);
#endif
}

/* f^(k (p^12 - 1)/r) for the fixed k that snarkjs (ffjavascript) and
 * @noble/curves use, so that pairing values (vk_alphabeta_12) match theirs:
 * k = 3 on BLS12-381 and k = 2x(6x^2 + 3x + 1) on BN254. Both are below r
 * and coprime to it, so "the product is 1" means the same as with k = 1. */
CUZK_INLINE void PR_(final_exponentiation)(P_FP12 *r, const P_FP12 *f)
{
    P_FP12 t, g;
    /* easy part: f^((p^6 - 1)(p^2 + 1)) */
    PF12_(inv_var)(&t, f);
    PF12_(conj)(&g, f);
    PF12_(mul)(&g, &g, &t);
    PF12_(frobenius_k)(&t, &g, 2);
    PF12_(mul)(&g, &t, &g);
    /* hard part: g^(k (p^4 - p^2 + 1)/r) */
#if PAIRING_BN
    /* k (p^4 - p^2 + 1)/r = l0 + l1 p + l2 p^2 + l3 p^3 with
     *   l0 = 1 + 6x + 12x^2 + 12x^3,   l1 = 4x + 6x^2 + 12x^3,
     *   l2 = 6x + 6x^2 + 12x^3,        l3 = -1 + 4x + 6x^2 + 12x^3
     * (Fuentes-Castaneda, Knapp, Rodriguez-Henriquez, "Faster hashing to
     * G2"; tools/gen_params.py asserts the identity). With a = g^x,
     * b = g^(x^2), c = g^(x^3) and y = a^4 b^6 c^12 = g^l1:
     *   g^l0 = y a^2 b^6 g,  g^l2 = y a^2,  g^l3 = y conj(g). */
    P_FP12 a, b, c, y, a2, b6, l0, l2, l3;
    PR_(pow_x)(&a, &g);
    PR_(pow_x)(&b, &a);
    PR_(pow_x)(&c, &b);
    PF12_(sqr)(&a2, &a);
    PF12_(pow_u64_var)(&b6, &b, 6);
    PF12_(pow_u64_var)(&y, &c, 12);
    PF12_(mul)(&y, &y, &b6);
    PF12_(sqr)(&t, &a2);
    PF12_(mul)(&y, &y, &t);
    PF12_(mul)(&l2, &y, &a2);
    PF12_(mul)(&l0, &l2, &b6);
    PF12_(mul)(&l0, &l0, &g);
    PF12_(conj)(&t, &g);
    PF12_(mul)(&l3, &y, &t);
    PF12_(frobenius_k)(&t, &y, 1);
    PF12_(mul)(&l0, &l0, &t);
    PF12_(frobenius_k)(&t, &l2, 2);
    PF12_(mul)(&l0, &l0, &t);
    PF12_(frobenius_k)(&t, &l3, 3);
    PF12_(mul)(r, &l0, &t);
#else
    /* 3 (p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
     * (Hayashida, Hayasaka, Teruya, eprint 2020/875; tools/gen_params.py
     * asserts the identity). */
    P_FP12 a, b, c;
    PR_(pow_x)(&a, &g); /* a = g^((x - 1)^2) */
    PF12_(conj)(&t, &g);
    PF12_(mul)(&a, &a, &t);
    PR_(pow_x)(&b, &a);
    PF12_(conj)(&t, &a);
    PF12_(mul)(&a, &b, &t);
    PR_(pow_x)(&b, &a); /* b = a^(x + p) */
    PF12_(frobenius_k)(&t, &a, 1);
    PF12_(mul)(&b, &b, &t);
    PR_(pow_x)(&c, &b); /* c = b^(x^2 + p^2 - 1) */
    PR_(pow_x)(&c, &c);
    PF12_(frobenius_k)(&t, &b, 2);
    PF12_(mul)(&c, &c, &t);
    PF12_(conj)(&t, &b);
    PF12_(mul)(&c, &c, &t);
    PF12_(sqr)(&t, &g); /* times g^3 */
    PF12_(mul)(&t, &t, &g);
    PF12_(mul)(r, &c, &t);
#endif
}

/* r = prod e(P[i], Q[i]) with one final exponentiation; pairs with a point
 * at infinity contribute 1. Points must be on their curves (and, for a
 * meaningful result, in G1 and G2). */
CUZK_INLINE void PR_(multi_pairing_var)(P_FP12 *r, const P_G1 *P, const P_G2 *Q, size_t n)
{
    P_G1 p[PAIRING_BATCH];
    P_G2 q[PAIRING_BATCH];
    P_FP12 acc, f;
    PF12_(one)(&acc);
    size_t m = 0;
    for (size_t i = 0; i <= n; i++) {
        if (m == PAIRING_BATCH || (i == n && m > 0)) {
            PR_(miller_loop_batch)(&f, p, q, m);
            PF12_(mul)(&acc, &acc, &f);
            m = 0;
        }
        if (i == n)
            break;
        if (PG1_(affine_is_infinity)(&P[i]) || PG2_(affine_is_infinity)(&Q[i]))
            continue;
        p[m] = P[i];
        q[m++] = Q[i];
    }
    PR_(final_exponentiation)(r, &acc);
}

CUZK_INLINE void PR_(pairing_var)(P_FP12 *r, const P_G1 *P, const P_G2 *Q)
{
    PR_(multi_pairing_var)(r, P, Q, 1);
}

#undef PR_
#undef PF_
#undef PF2_
#undef PF12_
#undef PG1_
#undef PG2_
#undef P_FP
#undef P_FP2
#undef P_FP12
#undef P_G1
#undef P_G2
#undef PAIRING
#undef PAIRING_BN
