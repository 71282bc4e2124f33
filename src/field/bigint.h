/* Multi-limb unsigned integers in plain (not Montgomery) form: the helpers
 * the field code needs around its Montgomery kernels. Little-endian limbs;
 * n is a compile-time constant at every call site, so loops unroll.
 * Functions without _var run in time independent of the values.
 */
#ifndef CUZK_FIELD_BIGINT_H
#define CUZK_FIELD_BIGINT_H

#include "../util/util.h"

#if defined(__x86_64__)
/* adc/sbb chains: baseline x86-64 instructions, and gcc 12 turns
 * unsigned __int128 carry code into far longer sequences (bench_arith:
 * bls12_381 Fp add went from 19.3 ns to the figure in BENCHMARKS.md). */
#include <x86intrin.h>
#define CUZK_HAVE_ADDCARRY 1
#endif

/* r = a + b; returns the carry out (0 or 1). r may alias a or b. */
CUZK_ALWAYS_INLINE limb_t bn_add(limb_t *r, const limb_t *a, const limb_t *b, size_t n)
{
#if CUZK_HAVE_ADDCARRY
    unsigned char c = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long long t;
        c = _addcarry_u64(c, a[i], b[i], &t);
        r[i] = t;
    }
    return c;
#endif
    dlimb_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc += (dlimb_t)a[i] + b[i];
        r[i] = (limb_t)acc;
        acc >>= 64;
    }
    return (limb_t)acc;
}

/* r = a - b; returns the borrow out (0 or 1). r may alias a or b. */
CUZK_ALWAYS_INLINE limb_t bn_sub(limb_t *r, const limb_t *a, const limb_t *b, size_t n)
{
#if CUZK_HAVE_ADDCARRY
    unsigned char c = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long long t;
        c = _subborrow_u64(c, a[i], b[i], &t);
        r[i] = t;
    }
    return c;
#endif
    limb_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        dlimb_t d = (dlimb_t)a[i] - b[i] - borrow;
        r[i] = (limb_t)d;
        borrow = (limb_t)(d >> 64) & 1;
    }
    return borrow;
}

/* All-ones when a < b, else 0. */
CUZK_ALWAYS_INLINE limb_t bn_lt_mask(const limb_t *a, const limb_t *b, size_t n)
{
#if CUZK_HAVE_ADDCARRY
    unsigned char c = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned long long t;
        c = _subborrow_u64(c, a[i], b[i], &t);
    }
    return ct_mask(c);
#endif
    limb_t borrow = 0;
    for (size_t i = 0; i < n; i++) {
        dlimb_t d = (dlimb_t)a[i] - b[i] - borrow;
        borrow = (limb_t)(d >> 64) & 1;
    }
    return ct_mask(borrow);
}

CUZK_ALWAYS_INLINE limb_t bn_is_zero_mask(const limb_t *a, size_t n)
{
    limb_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc = ct_launder(acc | a[i]);
    return ct_is_zero_mask(acc);
}

CUZK_ALWAYS_INLINE limb_t bn_eq_mask(const limb_t *a, const limb_t *b, size_t n)
{
    limb_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc = ct_launder(acc | (a[i] ^ b[i]));
    return ct_is_zero_mask(acc);
}

/* r = a >> 1, with top_bit shifted into the most significant position. */
CUZK_ALWAYS_INLINE void bn_shr1(limb_t *r, const limb_t *a, limb_t top_bit, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        r[i] = (a[i] >> 1) | (a[i + 1] << 63);
    r[n - 1] = (a[n - 1] >> 1) | (top_bit << 63);
}

/* Number of significant bits of a (0 for a == 0). Variable time. */
CUZK_INLINE size_t bn_bit_length_var(const limb_t *a, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i])
            return 64 * i + 64 - (size_t)__builtin_clzll(a[i]);
    return 0;
}

CUZK_ALWAYS_INLINE limb_t bn_bit(const limb_t *a, size_t i)
{
    return (a[i / 64] >> (i % 64)) & 1;
}

/* -1, 0 or 1 as a <, ==, > b. Variable time. */
CUZK_INLINE int bn_cmp_var(const limb_t *a, const limb_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i] ? -1 : 1;
    return 0;
}

/* Little-/big-endian byte strings of exactly 8n bytes. */
CUZK_INLINE void bn_from_bytes_le(limb_t *r, const unsigned char *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        limb_t v = 0;
        for (size_t j = 0; j < 8; j++)
            v |= (limb_t)in[8 * i + j] << (8 * j);
        r[i] = v;
    }
}

CUZK_INLINE void bn_to_bytes_le(unsigned char *out, const limb_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < 8; j++)
            out[8 * i + j] = (unsigned char)(a[i] >> (8 * j));
}

CUZK_INLINE void bn_from_bytes_be(limb_t *r, const unsigned char *in, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        limb_t v = 0;
        for (size_t j = 0; j < 8; j++)
            v = (v << 8) | in[8 * (n - 1 - i) + j];
        r[i] = v;
    }
}

CUZK_INLINE void bn_to_bytes_be(unsigned char *out, const limb_t *a, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < 8; j++)
            out[8 * (n - 1 - i) + j] = (unsigned char)(a[i] >> (56 - 8 * j));
}

/* r = r * 10^k + add; returns the limb that overflowed (0 if none). */
CUZK_INLINE limb_t bn_mul_small_add(limb_t *r, limb_t mul, limb_t add, size_t n)
{
    dlimb_t acc = add;
    for (size_t i = 0; i < n; i++) {
        acc += (dlimb_t)r[i] * mul;
        r[i] = (limb_t)acc;
        acc >>= 64;
    }
    return (limb_t)acc;
}

/* r = a / d, returns a mod d (d != 0). */
CUZK_INLINE limb_t bn_div_small(limb_t *r, const limb_t *a, limb_t d, size_t n)
{
    dlimb_t rem = 0;
    for (size_t i = n; i-- > 0;) {
        dlimb_t cur = (rem << 64) | a[i];
        r[i] = (limb_t)(cur / d);
        rem = cur % d;
    }
    return (limb_t)rem;
}

/* Decimal digits of the n-limb integer a and a NUL into out; returns the
 * digit count, or 0 when cap is too small (n <= 6: 117 digits at most). */
CUZK_INLINE size_t bn_to_decimal(char *out, size_t cap, const limb_t *a, size_t n)
{
    limb_t t[8];
    char buf[160];
    size_t pos = sizeof(buf);
    int last;
    memcpy(t, a, n * sizeof(limb_t));
    buf[--pos] = '\0';
    do {
        /* 19 digits per division; the most significant chunk unpadded */
        limb_t rem = bn_div_small(t, t, 10000000000000000000ULL, n);
        last = (int)(bn_is_zero_mask(t, n) & 1);
        for (int k = 0; k < 19; k++) {
            buf[--pos] = (char)('0' + rem % 10);
            rem /= 10;
            if (last && rem == 0)
                break;
        }
    } while (!last);
    size_t digits = sizeof(buf) - 1 - pos;
    if (cap < digits + 1)
        return 0;
    memcpy(out, buf + pos, digits + 1);
    return digits;
}

/* Parses a decimal string (digits only, leading zeros allowed) into n
 * limbs: 0 on success, 1 when empty or a character is not a digit, 2 when
 * the value does not fit in n limbs. */
CUZK_INLINE int bn_from_decimal(limb_t *r, size_t n, const char *s, size_t len)
{
    memset(r, 0, n * sizeof(limb_t));
    if (len == 0)
        return 1;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return 1;
    for (size_t i = 0; i < len;) {
        /* 19 digits at a time: 10^19 < 2^64 */
        limb_t chunk = 0, scale = 1;
        for (int k = 0; k < 19 && i < len; k++, i++) {
            chunk = chunk * 10 + (limb_t)(s[i] - '0');
            scale *= 10;
        }
        if (bn_mul_small_add(r, scale, chunk, n) != 0)
            return 2;
    }
    return 0;
}

#endif
