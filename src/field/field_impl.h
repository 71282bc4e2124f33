/* A prime field in Montgomery form, stamped once per field.
 *
 * Before including, define:
 *   FIELD    the type and function prefix, e.g. bls12_381_fp
 *   FIELD_C  the prefix of its constants in params_<curve>.h, e.g. BLS12_381_FP
 *
 * Elements are FIELD { limb_t l[N]; } holding a*2^(64N) mod p, always fully
 * reduced (< p). On a little-endian host this is byte for byte the
 * Montgomery encoding of snarkjs .zkey files (notes/snarkjs-groth16-formats.md
 * §2), so points can be used from a mapped file in place.
 *
 * Functions without _var take time independent of the values they get.
 */

#define F_(name) CUZK_CAT(FIELD, _##name)
#define FC_(name) CUZK_CAT(FIELD_C, _##name)
#define F_N FC_(LIMBS)

typedef struct {
    limb_t l[F_N];
} FIELD;

CUZK_UNUSED static const FIELD F_(modulus) = {FC_(MODULUS)};
CUZK_UNUSED static const FIELD F_(one_mont) = {FC_(ONE)};
CUZK_UNUSED static const FIELD F_(r2) = {FC_(R2)};
CUZK_UNUSED static const FIELD F_(r3) = {FC_(R3)};
CUZK_UNUSED static const limb_t F_(p_minus_2)[F_N] = FC_(P_MINUS_2);
CUZK_UNUSED static const limb_t F_(p_minus_1_half)[F_N] = FC_(P_MINUS_1_HALF);
CUZK_UNUSED static const limb_t F_(sqrt_exp)[F_N] = FC_(SQRT_EXP);
CUZK_UNUSED static const FIELD F_(sqrt_z_t) = {FC_(SQRT_Z_T)};

CUZK_ALWAYS_INLINE void F_(mul)(FIELD *r, const FIELD *a, const FIELD *b)
{
    CUZK_CAT(mont_mul_, F_N)(r->l, a->l, b->l, F_(modulus).l, FC_(N0));
}

CUZK_ALWAYS_INLINE void F_(sqr)(FIELD *r, const FIELD *a)
{
    CUZK_CAT(mont_sqr_, F_N)(r->l, a->l, F_(modulus).l, FC_(N0));
}

CUZK_INLINE void F_(zero)(FIELD *r)
{
    memset(r, 0, sizeof(*r));
}

CUZK_INLINE void F_(one)(FIELD *r)
{
    *r = F_(one_mont);
}

/* All-ones mask / 0-or-1 predicates, constant time. */
CUZK_INLINE limb_t F_(is_zero_mask)(const FIELD *a)
{
    return bn_is_zero_mask(a->l, F_N);
}

CUZK_INLINE int F_(is_zero)(const FIELD *a)
{
    return (int)(F_(is_zero_mask)(a) & 1);
}

CUZK_INLINE limb_t F_(eq_mask)(const FIELD *a, const FIELD *b)
{
    return bn_eq_mask(a->l, b->l, F_N);
}

CUZK_INLINE int F_(eq)(const FIELD *a, const FIELD *b)
{
    return (int)(F_(eq_mask)(a, b) & 1);
}

CUZK_INLINE int F_(is_one)(const FIELD *a)
{
    return F_(eq)(a, &F_(one_mont));
}

/* r = mask ? a : r (mask all-ones or zero). */
CUZK_INLINE void F_(cmov)(FIELD *r, const FIELD *a, limb_t mask)
{
    ct_select_limbs(r->l, a->l, mask, F_N);
}

CUZK_ALWAYS_INLINE void F_(add)(FIELD *r, const FIELD *a, const FIELD *b)
{
    limb_t t[F_N];
    limb_t carry = bn_add(t, a->l, b->l, F_N); /* a + b < 2p < 2^(64N): carry is 0 */
    (void)carry;
    mont_final_sub(r->l, t, 0, F_(modulus).l, F_N);
}

CUZK_ALWAYS_INLINE void F_(sub)(FIELD *r, const FIELD *a, const FIELD *b)
{
    limb_t t[F_N], q[F_N];
    limb_t borrow = bn_sub(t, a->l, b->l, F_N);
    /* add p back when a < b */
    limb_t mask = ct_mask(borrow);
    for (size_t i = 0; i < F_N; i++)
        q[i] = ct_launder(F_(modulus).l[i] & mask);
    bn_add(r->l, t, q, F_N);
}

CUZK_ALWAYS_INLINE void F_(dbl)(FIELD *r, const FIELD *a)
{
    F_(add)(r, a, a);
}

CUZK_INLINE void F_(neg)(FIELD *r, const FIELD *a)
{
    limb_t t[F_N];
    limb_t nonzero = ~F_(is_zero_mask)(a);
    bn_sub(t, F_(modulus).l, a->l, F_N);
    for (size_t i = 0; i < F_N; i++)
        r->l[i] = ct_launder(t[i] & nonzero); /* -0 = 0, not p */
}

/* r = a / 2 */
CUZK_INLINE void F_(half)(FIELD *r, const FIELD *a)
{
    limb_t t[F_N], q[F_N];
    limb_t odd = ct_mask(a->l[0] & 1);
    for (size_t i = 0; i < F_N; i++)
        q[i] = ct_launder(F_(modulus).l[i] & odd);
    limb_t carry = bn_add(t, a->l, q, F_N);
    bn_shr1(r->l, t, carry, F_N);
}

/* r = k*a for a small public constant k (double-and-add over k's bits). */
CUZK_INLINE void F_(mul_small)(FIELD *r, const FIELD *a, unsigned k)
{
    FIELD acc, base = *a;
    F_(zero)(&acc);
    for (; k; k >>= 1) {
        if (k & 1)
            F_(add)(&acc, &acc, &base);
        F_(dbl)(&base, &base);
    }
    *r = acc;
}

/* r = mask ? -r : r */
CUZK_INLINE void F_(cneg)(FIELD *r, limb_t mask)
{
    FIELD t;
    F_(neg)(&t, r);
    F_(cmov)(r, &t, mask);
}

/* From/to plain integers (limbs, little-endian). from_raw needs a < p. */
CUZK_INLINE void F_(from_raw)(FIELD *r, const limb_t a[F_N])
{
    FIELD t;
    memcpy(t.l, a, sizeof(t.l));
    F_(mul)(r, &t, &F_(r2));
}

CUZK_INLINE void F_(to_raw)(limb_t r[F_N], const FIELD *a)
{
    FIELD one_raw = {{1}}, t;
    F_(mul)(&t, a, &one_raw);
    memcpy(r, t.l, sizeof(t.l));
}

CUZK_INLINE void F_(from_u64)(FIELD *r, uint64_t v)
{
    limb_t t[F_N] = {v};
    F_(from_raw)(r, t);
}

/* All-ones when the plain integer a is below p. */
CUZK_INLINE limb_t F_(raw_is_canonical_mask)(const limb_t a[F_N])
{
    return bn_lt_mask(a, F_(modulus).l, F_N);
}

/* r = a^e for an exponent of nbits bits (limbs little-endian), with a
 * fixed 4-bit window and a constant-time table lookup: the running time
 * depends on nbits only. */
CUZK_INLINE void F_(pow)(FIELD *r, const FIELD *a, const limb_t *e, size_t nbits)
{
    FIELD table[16], acc, t;
    F_(one)(&table[0]);
    table[1] = *a;
    for (size_t i = 2; i < 16; i++)
        F_(mul)(&table[i], &table[i - 1], a);
    F_(one)(&acc);
    size_t windows = (nbits + 3) / 4;
    for (size_t w = windows; w-- > 0;) {
        if (w + 1 != windows)
            for (int k = 0; k < 4; k++)
                F_(sqr)(&acc, &acc);
        limb_t digit = 0;
        for (size_t k = 0; k < 4; k++) {
            size_t bit = 4 * w + k;
            if (bit < nbits)
                digit |= bn_bit(e, bit) << k;
        }
        t = table[0];
        for (limb_t i = 1; i < 16; i++)
            F_(cmov)(&t, &table[i], ct_is_zero_mask(i ^ digit));
        F_(mul)(&acc, &acc, &t);
    }
    *r = acc;
}

/* r = 1/a by Fermat (a^(p-2)), constant time; 1/0 = 0. */
CUZK_INLINE void F_(inv)(FIELD *r, const FIELD *a)
{
    F_(pow)(r, a, F_(p_minus_2), FC_(BITS));
}

/* r = 1/a by the binary extended Euclidean algorithm; 1/0 = 0.
 * Variable time: for public values only. */
CUZK_INLINE void F_(inv_var)(FIELD *r, const FIELD *a)
{
    if (F_(is_zero)(a)) {
        F_(zero)(r);
        return;
    }
    /* Invert the plain integer A = a*R, then r = A^-1 * R^3 / R = a^-1 * R. */
    limb_t u[F_N], v[F_N], x1[F_N] = {1}, x2[F_N] = {0};
    const limb_t *p = F_(modulus).l;
    memcpy(u, a->l, sizeof(u));
    memcpy(v, p, sizeof(v));
    static const limb_t one[F_N] = {1};
    /* Invariants: x1*A = u and x2*A = v (mod p); gcd(u, v) = 1. */
    while (bn_cmp_var(u, one, F_N) != 0 && bn_cmp_var(v, one, F_N) != 0) {
        while (!(u[0] & 1)) {
            bn_shr1(u, u, 0, F_N);
            limb_t carry = (x1[0] & 1) ? bn_add(x1, x1, p, F_N) : 0;
            bn_shr1(x1, x1, carry, F_N);
        }
        while (!(v[0] & 1)) {
            bn_shr1(v, v, 0, F_N);
            limb_t carry = (x2[0] & 1) ? bn_add(x2, x2, p, F_N) : 0;
            bn_shr1(x2, x2, carry, F_N);
        }
        if (bn_cmp_var(u, v, F_N) >= 0) {
            bn_sub(u, u, v, F_N);
            if (bn_sub(x1, x1, x2, F_N))
                bn_add(x1, x1, p, F_N);
        } else {
            bn_sub(v, v, u, F_N);
            if (bn_sub(x2, x2, x1, F_N))
                bn_add(x2, x2, p, F_N);
        }
    }
    if (bn_cmp_var(u, one, F_N) != 0)
        memcpy(x1, x2, sizeof(x1));
    FIELD t;
    memcpy(t.l, x1, sizeof(t.l));
    F_(mul)(r, &t, &F_(r3));
}

/* out[i] = 1/in[i] for i < n with one inversion (Montgomery's trick); zero
 * inputs give zero outputs. The values never steer a branch; the one
 * inversion is `invert`. out and in must not overlap. */
CUZK_ALWAYS_INLINE void F_(batch_inv_with)(FIELD *out, const FIELD *in, size_t n,
                                           void (*invert)(FIELD *, const FIELD *))
{
    if (n == 0)
        return;
    FIELD acc, t, zero;
    F_(one)(&acc);
    F_(zero)(&zero);
    for (size_t i = 0; i < n; i++) {
        out[i] = acc; /* product of in[0..i-1], zeros skipped */
        t = in[i];
        F_(cmov)(&t, &F_(one_mont), F_(is_zero_mask)(&in[i]));
        F_(mul)(&acc, &acc, &t);
    }
    invert(&acc, &acc);
    for (size_t i = n; i-- > 0;) {
        limb_t is_zero = F_(is_zero_mask)(&in[i]);
        t = in[i];
        F_(cmov)(&t, &F_(one_mont), is_zero);
        F_(mul)(&out[i], &out[i], &acc);
        F_(mul)(&acc, &acc, &t);
        F_(cmov)(&out[i], &zero, is_zero);
    }
}

/* Constant time. */
CUZK_INLINE void F_(batch_inv)(FIELD *out, const FIELD *in, size_t n)
{
    F_(batch_inv_with)(out, in, n, F_(inv));
}

/* For public values: the one inversion is inv_var. */
CUZK_INLINE void F_(batch_inv_var)(FIELD *out, const FIELD *in, size_t n)
{
    F_(batch_inv_with)(out, in, n, F_(inv_var));
}

/* out[i] = 1/in[i] when no input is zero (the caller knows): the same
 * trick without the zero handling, for the MSM's slopes. Variable time.
 * out and in must not overlap; n >= 1. */
CUZK_INLINE void F_(batch_inv_nonzero_var)(FIELD *out, const FIELD *in, size_t n)
{
    out[0] = in[0];
    for (size_t i = 1; i < n; i++)
        F_(mul)(&out[i], &out[i - 1], &in[i]); /* prefix products */
    FIELD acc, t;
    F_(inv_var)(&acc, &out[n - 1]);
    for (size_t i = n - 1; i > 0; i--) {
        F_(mul)(&t, &acc, &out[i - 1]);
        F_(mul)(&acc, &acc, &in[i]);
        out[i] = t;
    }
    out[0] = acc;
}

/* 1 when a is a square (0 counts as one), else 0: Euler's criterion. */
CUZK_INLINE int F_(is_square)(const FIELD *a)
{
    FIELD t;
    F_(pow)(&t, a, F_(p_minus_1_half), FC_(BITS));
    return (int)((F_(is_one)(&t) | F_(is_zero)(a)) & 1);
}

/* r = a square root of a; returns 1, or 0 (r unspecified) when a is not a
 * square. Constant-time Tonelli-Shanks (RFC 9380 appendix I.4); for
 * p = 3 mod 4 the loop is empty and r = a^((p+1)/4). */
CUZK_INLINE int F_(sqrt)(FIELD *r, const FIELD *a)
{
    FIELD z, t, b, c, tmp;
    F_(pow)(&z, a, F_(sqrt_exp), FC_(BITS));
    F_(sqr)(&t, &z);
    F_(mul)(&t, &t, a);
    F_(mul)(&z, &z, a);
    b = t;
    c = F_(sqrt_z_t);
    for (int i = FC_(TWO_ADICITY); i >= 2; i--) {
        for (int j = 1; j <= i - 2; j++)
            F_(sqr)(&b, &b);
        limb_t e = F_(eq_mask)(&b, &F_(one_mont));
        F_(mul)(&tmp, &z, &c);
        F_(cmov)(&z, &tmp, ~e);
        F_(sqr)(&c, &c);
        F_(mul)(&tmp, &t, &c);
        F_(cmov)(&t, &tmp, ~e);
        b = t;
    }
    F_(sqr)(&tmp, &z);
    int ok = F_(eq)(&tmp, a);
    *r = z; /* r may alias a */
    return ok;
}

/* Plain integers as 8N bytes. from_* return CUZK_ERR_NOT_CANONICAL (r
 * untouched) when the value is not below p. */
CUZK_INLINE int F_(from_bytes_le)(FIELD *r, const unsigned char in[8 * F_N])
{
    limb_t t[F_N];
    bn_from_bytes_le(t, in, F_N);
    if (!(F_(raw_is_canonical_mask)(t) & 1))
        return CUZK_ERR_NOT_CANONICAL;
    F_(from_raw)(r, t);
    return CUZK_OK;
}

CUZK_INLINE int F_(from_bytes_be)(FIELD *r, const unsigned char in[8 * F_N])
{
    limb_t t[F_N];
    bn_from_bytes_be(t, in, F_N);
    if (!(F_(raw_is_canonical_mask)(t) & 1))
        return CUZK_ERR_NOT_CANONICAL;
    F_(from_raw)(r, t);
    return CUZK_OK;
}

CUZK_INLINE void F_(to_bytes_le)(unsigned char out[8 * F_N], const FIELD *a)
{
    limb_t t[F_N];
    F_(to_raw)(t, a);
    bn_to_bytes_le(out, t, F_N);
}

CUZK_INLINE void F_(to_bytes_be)(unsigned char out[8 * F_N], const FIELD *a)
{
    limb_t t[F_N];
    F_(to_raw)(t, a);
    bn_to_bytes_be(out, t, F_N);
}

/* The Montgomery image itself as little-endian bytes (the .zkey encoding). */
CUZK_INLINE int F_(from_mont_bytes_le)(FIELD *r, const unsigned char in[8 * F_N])
{
    limb_t t[F_N];
    bn_from_bytes_le(t, in, F_N);
    if (!(F_(raw_is_canonical_mask)(t) & 1))
        return CUZK_ERR_NOT_CANONICAL;
    memcpy(r->l, t, sizeof(t));
    return CUZK_OK;
}

CUZK_INLINE void F_(to_mont_bytes_le)(unsigned char out[8 * F_N], const FIELD *a)
{
    bn_to_bytes_le(out, a->l, F_N);
}

/* Decimal strings, as snarkjs JSON writes them: digits only, no sign, no
 * whitespace, leading zeros allowed. CUZK_ERR_FORMAT for an empty string or
 * a non-digit, CUZK_ERR_NOT_CANONICAL for a value not below p. */
CUZK_INLINE int F_(from_decimal)(FIELD *r, const char *s, size_t len)
{
    limb_t t[F_N];
    int rc = bn_from_decimal(t, F_N, s, len);
    if (rc == 1)
        return CUZK_ERR_FORMAT;
    if (rc == 2 || !(F_(raw_is_canonical_mask)(t) & 1))
        return CUZK_ERR_NOT_CANONICAL;
    F_(from_raw)(r, t);
    return CUZK_OK;
}

/* Writes a's decimal digits and a NUL into out (cap bytes, at least
 * FC_(DECIMAL_DIGITS) + 1); returns the number of digits, or 0 if cap is
 * too small. */
CUZK_INLINE size_t F_(to_decimal)(char *out, size_t cap, const FIELD *a)
{
    limb_t t[F_N];
    F_(to_raw)(t, a);
    return bn_to_decimal(out, cap, t, F_N);
}


#undef F_N
#undef FC_
#undef F_
#undef FIELD
#undef FIELD_C
