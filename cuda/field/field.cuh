// Prime-field arithmetic on the GPU: one implementation for every field,
// stamped per field by a parameter struct (the C core does the same with
// src/field/field_impl.h). Values are Montgomery images in 32-bit limbs,
// little-endian, so a value has the same bytes as on the CPU (64-bit limbs,
// R = 2^(64 * limbs) = 2^(32 * N)): points and scalars cross between host
// and device without conversion.
//
// Multiplication is CIOS with the running sum split into the products of
// a's even and odd limbs (see operator*), so that ptxas fuses each product's
// low and high halves into one wide multiply-add.
#pragma once

#include <stdint.h>

#include "../../src/field/params_bls12_381.h"
#include "../../src/field/params_bn254.h"

namespace gpu {

// --- PTX carry-chain primitives. asm volatile keeps the statements of one
// chain in order; ptxas sees the condition-code dependencies between them.
__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t mul_lo(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm("mul.lo.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t mul_hi(uint32_t a, uint32_t b)
{
    uint32_t r;
    asm("mul.hi.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}

// --- Field parameters.
//
// -p^-1 mod 2^32 for a p whose low limb is 1 (BLS12-381 Fr), read from
// constant memory: as an immediate, ptxas knows m = -t0 and folds the
// negation into m * p_j, which splits about half the row products into
// IMAD.X + IMAD.HI.U32.X instead of one IMAD.WIDE.U32.X. On the H200
// (docs/history/benchmarks-log.md, "BLS12-381 Fr's multiplication, pinned
// uploads, pre-staging"): BLS12-381 Fr 52.8 -> 59.6 G mul/s (BN254 Fr,
// also 8 limbs: 60.0), NTT 2^27 40.0 -> 37.4 ms; the modulus from constant
// memory as well changed nothing (60.2 G/s), the modulus alone slowed it
// (52.0). static: one copy per translation unit (whole-program device code).
static __constant__ uint32_t field_m0_all_ones = 0xffffffffu;

// The parameter struct: limb i of a 64-bit-limb constant from the same
// generated headers as the CPU code, as a compile-time function so that
// unrolled loops see immediates.
#define CUZK_GPU_FIELD_PARAMS(NAME, C)                                                                  \
    struct NAME {                                                                                       \
        static constexpr int N = 2 * C##_LIMBS;                                                         \
        static constexpr int BITS = C##_BITS;                                                           \
        __host__ __device__ static constexpr uint32_t limb(const uint64_t *v, int i)                  \
        {                                                                                               \
            return (uint32_t)(v[i / 2] >> (32 * (i & 1)));                                              \
        }                                                                                               \
        __host__ __device__ static constexpr uint32_t p(int i)                                         \
        {                                                                                               \
            constexpr uint64_t v[] = C##_MODULUS;                                                      \
            return limb(v, i);                                                                          \
        }                                                                                               \
        __host__ __device__ static constexpr uint32_t one(int i)                                       \
        {                                                                                               \
            constexpr uint64_t v[] = C##_ONE;                                                          \
            return limb(v, i);                                                                          \
        }                                                                                               \
        __host__ __device__ static constexpr uint32_t r2(int i)                                        \
        {                                                                                               \
            constexpr uint64_t v[] = C##_R2;                                                           \
            return limb(v, i);                                                                          \
        }                                                                                               \
        __host__ __device__ static constexpr uint32_t pm2(int i)                                       \
        {                                                                                               \
            constexpr uint64_t v[] = C##_P_MINUS_2;                                                    \
            return limb(v, i);                                                                          \
        }                                                                                               \
        static constexpr uint32_t M0 = (uint32_t)C##_N0; /* -p^-1 mod 2^32 */                          \
        __device__ static uint32_t m0()                                                                 \
        {                                                                                               \
            return M0 == 0xffffffffu ? field_m0_all_ones : M0;                                          \
        }                                                                                               \
        __host__ __device__ static constexpr bool spare_top_bit()                                      \
        {                                                                                               \
            return p(N - 1) < 0x80000000u;                                                              \
        }                                                                                               \
    }

CUZK_GPU_FIELD_PARAMS(bls12_381_fp_params, BLS12_381_FP);
CUZK_GPU_FIELD_PARAMS(bls12_381_fr_params, BLS12_381_FR);
CUZK_GPU_FIELD_PARAMS(bn254_fp_params, BN254_FP);
CUZK_GPU_FIELD_PARAMS(bn254_fr_params, BN254_FR);

// Variable-time inversion by Bernstein and Yang's divsteps ("Fast
// constant-time gcd computation and modular inversion", 2019), in the
// variable-time form that skips runs of halvings: values as signed
// 30-bit limbs (limbs below the top one in [0, 2^30), the top one signed),
// 30 divsteps at a time decided from the low word alone and then applied
// to the whole numbers as one 2x2 matrix. For public values only.
namespace divsteps {

constexpr uint32_t M30 = 0x3fffffffu;

// Up to 30 divsteps on the low bits of f (odd) and g: returns eta (minus
// Bernstein and Yang's delta) after them and the matrix t = (u, v, q, r)
// with 2^30 f' = u f + v g and 2^30 g' = q f + r g for the whole values.
// Each pass strips g's trailing zeros (halvings), swaps when eta < 0, and
// cancels up to 6 low bits of g with a multiple of f (f (f^2 - 2) is
// -1/f mod 64 for odd f); |u| + |v| and |q| + |r| stay at most 2^30.
__device__ __forceinline__ int32_t matrix_30_var(int32_t eta, uint32_t f, uint32_t g, int32_t t[4])
{
    uint32_t u = 1, v = 0, q = 0, r = 1;
    int i = 30;
    for (;;) {
        int zeros = g ? __ffs((int)g) - 1 : i;
        if (zeros > i)
            zeros = i;
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros;
        i -= zeros;
        if (i == 0)
            break;
        if (eta < 0) { // the swap: (f, g) = (g, -f)
            uint32_t x = f;
            eta = -eta;
            f = g;
            g = 0u - x;
            x = u;
            u = q;
            q = 0u - x;
            x = v;
            v = r;
            r = 0u - x;
        }
        int limit = eta + 1 < i ? eta + 1 : i;
        if (limit > 6)
            limit = 6;
        const uint32_t w = (f * g * (f * f - 2)) & (0xffffffffu >> (32 - limit));
        g += f * w;
        q += u * w;
        r += v * w;
    }
    t[0] = (int32_t)u;
    t[1] = (int32_t)v;
    t[2] = (int32_t)q;
    t[3] = (int32_t)r;
    return eta;
}

// a += sign * p, limbs renormalized (the carries arithmetic: a may be
// negative, its sign the top limb's).
template <int L> __device__ __forceinline__ void add_p(int32_t (&a)[L], const int32_t (&p)[L], int sign)
{
    int32_t c = 0;
#pragma unroll
    for (int i = 0; i < L - 1; i++) {
        c += a[i] + sign * p[i];
        a[i] = (int32_t)((uint32_t)c & M30);
        c >>= 30;
    }
    a[L - 1] += sign * p[L - 1] + c;
}
template <int L> __device__ __forceinline__ bool at_least_p(const int32_t (&a)[L], const int32_t (&p)[L])
{
    for (int i = L - 1; i >= 0; i--)
        if (a[i] != p[i])
            return a[i] > p[i];
    return true;
}

// (a, b) = (u a + v b, q a + r b) / 2^30 for the matrix t. Exact for f
// and g by the matrix's making; for d and e (MOD) modulo p and kept in
// [0, p): a multiple of p (below 2^30 p) makes each sum divisible by 2^30,
// so that the quotients lie in (-2p, 2p) and are brought back by adding
// or subtracting p. pinv: 1/p mod 2^30 (MOD only).
template <bool MOD, int L>
__device__ __forceinline__ void apply_matrix(int32_t (&a)[L], int32_t (&b)[L], const int32_t t[4],
                                             const int32_t (&p)[L], uint32_t pinv)
{
    int64_t ca = (int64_t)t[0] * a[0] + (int64_t)t[1] * b[0];
    int64_t cb = (int64_t)t[2] * a[0] + (int64_t)t[3] * b[0];
    const int32_t ma = MOD ? (int32_t)(((0u - (uint32_t)ca) * pinv) & M30) : 0;
    const int32_t mb = MOD ? (int32_t)(((0u - (uint32_t)cb) * pinv) & M30) : 0;
    if (MOD) {
        ca += (int64_t)p[0] * ma;
        cb += (int64_t)p[0] * mb;
    }
    ca >>= 30;
    cb >>= 30;
#pragma unroll
    for (int i = 1; i < L; i++) {
        ca += (int64_t)t[0] * a[i] + (int64_t)t[1] * b[i];
        cb += (int64_t)t[2] * a[i] + (int64_t)t[3] * b[i];
        if (MOD) {
            ca += (int64_t)p[i] * ma;
            cb += (int64_t)p[i] * mb;
        }
        a[i - 1] = (int32_t)((uint32_t)ca & M30);
        b[i - 1] = (int32_t)((uint32_t)cb & M30);
        ca >>= 30;
        cb >>= 30;
    }
    a[L - 1] = (int32_t)ca;
    b[L - 1] = (int32_t)cb;
    if (MOD) {
        while (a[L - 1] < 0)
            add_p(a, p, 1);
        while (at_least_p(a, p))
            add_p(a, p, -1);
        while (b[L - 1] < 0)
            add_p(b, p, 1);
        while (at_least_p(b, p))
            add_p(b, p, -1);
    }
}

// 32-bit words <-> signed 30-bit limbs (nonnegative values).
template <int N, int L> __device__ __forceinline__ void to_limbs(int32_t (&a)[L], const uint32_t *w)
{
#pragma unroll
    for (int i = 0; i < L; i++) {
        const int bit = 30 * i, k = bit / 32, off = bit % 32;
        uint32_t x = k < N ? w[k] >> off : 0;
        if (off > 2 && k + 1 < N)
            x |= w[k + 1] << (32 - off);
        a[i] = (int32_t)(x & M30);
    }
}
template <int N, int L> __device__ __forceinline__ void from_limbs(uint32_t *w, const int32_t (&a)[L])
{
#pragma unroll
    for (int j = 0; j < N; j++) {
        const int bit = 32 * j, i = bit / 30, off = bit % 30; // off even, at most 28
        uint32_t x = (uint32_t)a[i] >> off;
        if (i + 1 < L)
            x |= (uint32_t)a[i + 1] << (30 - off);
        w[j] = x;
    }
}

} // namespace divsteps

// 16-byte aligned (sizes are 32 or 48 bytes): loads and stores of values,
// points and buckets become 128-bit instructions.
template <class P> struct __align__(16) fp {
    typedef P params;
    static constexpr int N = P::N;
    // point additions over this field are inlined into the hot MSM kernels
    // (see ec/xyzz.cuh); over Fp2 they are calls
    static constexpr bool inline_points = true;
    uint32_t v[N];

    __device__ __forceinline__ static fp zero()
    {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = 0;
        return r;
    }
    __device__ __forceinline__ static fp one()
    {
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = P::one(i);
        return r;
    }
    __device__ __forceinline__ bool is_zero() const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i];
        return acc == 0;
    }
    __device__ __forceinline__ bool operator==(const fp &b) const
    {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= v[i] ^ b.v[i];
        return acc == 0;
    }

    // r = t - p if t >= p (t < 2p), else t; `hi` is a carry word above t.
    __device__ __forceinline__ static fp reduce_once(const uint32_t *t, uint32_t hi)
    {
        uint32_t d[N];
        d[0] = sub_cc(t[0], P::p(0));
#pragma unroll
        for (int i = 1; i < N; i++)
            d[i] = subc_cc(t[i], P::p(i));
        uint32_t borrow = subc(hi, 0); // all ones when t < p
        fp r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.v[i] = borrow ? t[i] : d[i];
        return r;
    }

    __device__ __forceinline__ friend fp operator+(const fp &a, const fp &b)
    {
        uint32_t t[N];
        t[0] = add_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N; i++)
            t[i] = addc_cc(a.v[i], b.v[i]);
        uint32_t hi = addc(0, 0);
        return reduce_once(t, hi);
    }

    __device__ __forceinline__ friend fp operator-(const fp &a, const fp &b)
    {
        uint32_t t[N];
        t[0] = sub_cc(a.v[0], b.v[0]);
#pragma unroll
        for (int i = 1; i < N; i++)
            t[i] = subc_cc(a.v[i], b.v[i]);
        uint32_t borrow = subc(0, 0);
        // add p back when the subtraction borrowed (mask, no branch)
        fp r;
        r.v[0] = add_cc(t[0], P::p(0) & borrow);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.v[i] = addc_cc(t[i], P::p(i) & borrow);
        r.v[N - 1] = addc(t[N - 1], P::p(N - 1) & borrow);
        return r;
    }

    __device__ __forceinline__ fp neg() const
    {
        return zero() - *this;
    }
    __device__ __forceinline__ fp dbl() const
    {
        return *this + *this;
    }

    // Montgomery product, CIOS with the running sum split in two: T = E +
    // O * 2^32, where E takes the products of a's even limbs (a_j b_i
    // fills words j, j+1: the pairs of one row do not overlap) and O those
    // of the odd limbs, one word up. Each row is then a few carry chains of
    // mad.lo.cc / madc.hi.cc over the same operands, which ptxas fuses into
    // one IMAD.WIDE.U32(.X) per product; the split lo/hi chains of plain
    // CIOS became IMAD + IMAD.HI + two IADD3.X each. Measured on the H200
    // (docs/history/benchmarks-log.md, "The multiplication, and the targets
    // met"): BLS12-381 Fp 15.1 -> 27.5 G mul/s, BN254 Fp 37.0 -> 60.0;
    // 5,088 -> 1,536 SASS instructions per 4 products. One level of
    // Karatsuba (252 wide multiply-adds against 288, plus ~100 additions)
    // ran slower: 27.7 -> 23.5 G/s on the H100 (the log's "the Karatsuba
    // product, tried and reverted"): the product is bound by all it issues,
    // not by its multiply-adds alone.
    //
    // Bounds (p < 2^(32N - 1), a, b < p): a row's sum is below 2p + 2^33 p
    // < 2^(32N + 32), so O (its words 1..N) never carries out of N words;
    // the carries out of E's chains go into O's top word. The result, below
    // 2p, is reduced once.
    __device__ __forceinline__ friend fp operator*(const fp &a, const fp &b)
    {
        static_assert(N % 2 == 0 && P::spare_top_bit(), "even limb count and a spare top bit");
        uint32_t e[N], o[N];
        // row 0: plain products
        {
            const uint32_t b0 = b.v[0];
#pragma unroll
            for (int j = 0; j < N; j += 2) {
                e[j] = mul_lo(a.v[j], b0);
                e[j + 1] = mul_hi(a.v[j], b0);
                o[j] = mul_lo(a.v[j + 1], b0);
                o[j + 1] = mul_hi(a.v[j + 1], b0);
            }
            reduce_row(e, o);
        }
#pragma unroll
        for (int i = 1; i < N; i++) {
            // T / 2^32 = O + E / 2^32 (E's low word is 0): O becomes the
            // even part, with E's word 1 added to its word 0 (the carry
            // rides into the odd chain, one word up), and E's words 2..
            // become the odd part, to which the odd products are added
            const uint32_t bi = b.v[i];
            uint32_t t[N];
#pragma unroll
            for (int k = 0; k < N; k++)
                t[k] = e[k], e[k] = o[k];
            e[0] = add_cc(e[0], t[1]);
#pragma unroll
            for (int j = 0; j < N - 2; j += 2) {
                o[j] = madc_lo_cc(a.v[j + 1], bi, t[j + 2]);
                o[j + 1] = madc_hi_cc(a.v[j + 1], bi, t[j + 3]);
            }
            o[N - 2] = madc_lo_cc(a.v[N - 1], bi, 0);
            o[N - 1] = madc_hi(a.v[N - 1], bi, 0);
            mad_row(e, o, a.v, bi, 0);
            reduce_row(e, o);
        }
        // S = T / 2^32 = O + E / 2^32
        uint32_t r[N];
        r[0] = add_cc(o[0], e[1]);
#pragma unroll
        for (int k = 1; k < N - 1; k++)
            r[k] = addc_cc(o[k], e[k + 1]);
        r[N - 1] = addc(o[N - 1], 0);
        return reduce_once(r, 0);
    }

    // The even and odd halves of T += x * y over a row: x's even limbs into
    // E (the carry out into O's top word), then, when odd, its odd limbs into
    // O from x[1].
    __device__ __forceinline__ static void mad_row(uint32_t *e, uint32_t *o, const uint32_t *x, uint32_t y, int odd)
    {
        e[0] = mad_lo_cc(x[0], y, e[0]);
        e[1] = madc_hi_cc(x[0], y, e[1]);
#pragma unroll
        for (int j = 2; j < N; j += 2) {
            e[j] = madc_lo_cc(x[j], y, e[j]);
            e[j + 1] = madc_hi_cc(x[j], y, e[j + 1]);
        }
        o[N - 1] = addc(o[N - 1], 0);
        if (odd) {
            o[0] = mad_lo_cc(x[1], y, o[0]);
            o[1] = madc_hi_cc(x[1], y, o[1]);
#pragma unroll
            for (int j = 2; j < N; j += 2) {
                o[j] = madc_lo_cc(x[j + 1], y, o[j]);
                o[j + 1] = madc_hi_cc(x[j + 1], y, o[j + 1]);
            }
        }
    }

    // T += m p with m = -T / p mod 2^32: clears E's word 0
    __device__ __forceinline__ static void reduce_row(uint32_t *e, uint32_t *o)
    {
        uint32_t pv[N];
#pragma unroll
        for (int j = 0; j < N; j++)
            pv[j] = P::p(j);
        mad_row(e, o, pv, e[0] * P::m0(), 1);
    }

    // The square with its products split as the product's are: the cross
    // products a_i a_j (i < j) once, doubled, plus the diagonal,
    // then a Montgomery reduction of the low half added to the high half.
    // N(N - 1)/2 + N + N^2 wide multiply-adds against the product's 2N^2
    // (BLS12-381 Fp 222 vs 288, the 8-limb fields 100 vs 128), for about
    // 5N extra additions and shifts, which issue beside them. The
    // product runs at ~94 % of the H200's IMAD.WIDE rate (27.5 G/s), but
    // fewer multiply-adds pay only when they cost few other instructions:
    // these 66 do, Karatsuba's 36 did not (see operator*). sppark's
    // squaring of this shape runs 1.26× its product. Modelled first in
    // Python with the PTX carry flag (scripts/models/sqr_redc.py: all four
    // fields, 0, 1, p - 1 and 3,000 random values each, with the
    // no-overflow claims below asserted).
    // Measured on the H200, same run (docs/history/benchmarks-log.md,
    // "squaring, unit twiddles, every issue-6 target met"): 32.6 G/s
    // against 27.2 for the product with itself (BLS12-381 Fp), 69.2 vs 60.1
    // (BN254 Fr); MSM G1 2^26 BLS12-381 430.8 -> 420.8 ms, BN254 179.5 ->
    // 177.0 ms.
    //
    // Cross products: row i's products with j - i odd land on odd word
    // offsets, those with j - i even on even ones, so each row is two chains
    // of non-overlapping 64-bit words: the odd ones into O (O[k] is word
    // k + 1), the even ones into E. A chain's carry goes into the word above
    // its top, which earlier rows left at most 1 (the carry of row i - 1's
    // chain of the same parity), so nothing carries further.
    //
    // Reduction: T = T_hi R + T_lo with T = a^2 < p^2; T_hi + (T_lo + M p)/R
    // is a R^-1 mod p and below p^2/R + p + 1 < 2p (p < R/2): one
    // conditional subtraction. The rows are the product's reduce_row, with
    // each row's shift of the running sum folded into its odd chain (m is
    // taken from word 0 after the shift's addition, whose carry rides into
    // that chain).
    __device__ __forceinline__ fp sqr() const
    {
        static_assert(N % 2 == 0 && P::spare_top_bit(), "even limb count and a spare top bit");
        const uint32_t *a = v;
        uint32_t E[2 * N], O[2 * N - 1];
#pragma unroll
        for (int k = 0; k < 2 * N - 1; k++)
            E[k] = 0, O[k] = 0;
        E[2 * N - 1] = 0;
#pragma unroll
        for (int i = 0; i < N - 1; i++) {
            cross_chain<2 * N - 1>(O, a, i, i + 1, 1); // j - i odd
            if (i + 2 < N)
                cross_chain<2 * N>(E, a, i, i + 2, 0); // j - i even
        }
        // C = E + O 2^32, then T = 2 C + the diagonal
        uint32_t C[2 * N], T[2 * N];
        C[0] = E[0];
        C[1] = add_cc(E[1], O[0]);
#pragma unroll
        for (int k = 2; k < 2 * N - 1; k++)
            C[k] = addc_cc(E[k], O[k - 1]);
        C[2 * N - 1] = addc(E[2 * N - 1], O[2 * N - 2]);
        T[0] = C[0] << 1;
#pragma unroll
        for (int k = 1; k < 2 * N; k++)
            T[k] = __funnelshift_l(C[k - 1], C[k], 1);
        T[0] = mad_lo_cc(a[0], a[0], T[0]);
        T[1] = madc_hi_cc(a[0], a[0], T[1]);
#pragma unroll
        for (int i = 1; i < N; i++) {
            T[2 * i] = madc_lo_cc(a[i], a[i], T[2 * i]);
            T[2 * i + 1] = madc_hi_cc(a[i], a[i], T[2 * i + 1]);
        }
        // the low half's reduction: row 0 as the product's reduce_row
        uint32_t e[N], o[N], pv[N];
#pragma unroll
        for (int j = 0; j < N; j++)
            e[j] = T[j], o[j] = 0, pv[j] = P::p(j);
        reduce_row(e, o);
#pragma unroll
        for (int r = 1; r < N; r++) {
            uint32_t t[N];
#pragma unroll
            for (int k = 0; k < N; k++)
                t[k] = e[k], e[k] = o[k];
            e[0] = add_cc(e[0], t[1]);
            const uint32_t m = e[0] * P::m0(); // no carry-flag effect: the carry waits for o[0]
#pragma unroll
            for (int j = 0; j < N - 2; j += 2) {
                o[j] = madc_lo_cc(pv[j + 1], m, t[j + 2]);
                o[j + 1] = madc_hi_cc(pv[j + 1], m, t[j + 3]);
            }
            o[N - 2] = madc_lo_cc(pv[N - 1], m, 0);
            o[N - 1] = madc_hi(pv[N - 1], m, 0);
            mad_row(e, o, pv, m, 0);
        }
        // (T_lo + M p) / R = O + E / 2^32, plus T_hi
        uint32_t s[N], u[N];
        s[0] = add_cc(o[0], e[1]);
#pragma unroll
        for (int k = 1; k < N - 1; k++)
            s[k] = addc_cc(o[k], e[k + 1]);
        s[N - 1] = addc(o[N - 1], 0);
        u[0] = add_cc(s[0], T[N]);
#pragma unroll
        for (int k = 1; k < N; k++)
            u[k] = addc_cc(s[k], T[N + k]);
        return reduce_once(u, addc(0, 0));
    }

    // X += a_i (a_f 2^(32 f) + a_(f+2) 2^(32 (f + 2)) + ...) 2^(32 i) over
    // one carry chain; `shift` words of the offset are implicit in X (O
    // holds words from 1)
    template <int SIZE>
    __device__ __forceinline__ static void cross_chain(uint32_t (&X)[SIZE], const uint32_t *a, int i, int f,
                                                       int shift)
    {
        int k = i + f - shift;
        X[k] = mad_lo_cc(a[i], a[f], X[k]);
        X[k + 1] = madc_hi_cc(a[i], a[f], X[k + 1]);
#pragma unroll
        for (int j = f + 2; j < N; j += 2) {
            k = i + j - shift;
            X[k] = madc_lo_cc(a[i], a[j], X[k]);
            X[k + 1] = madc_hi_cc(a[i], a[j], X[k + 1]);
        }
        if (k + 2 < SIZE)
            X[k + 2] = addc(X[k + 2], 0);
    }

    // Montgomery image -> plain integer (times 1/R), and back (times R^2/R).
    __device__ __forceinline__ fp from_mont() const
    {
        fp one_plain = zero();
        one_plain.v[0] = 1;
        return *this * one_plain;
    }
    __device__ __forceinline__ fp to_mont() const
    {
        fp r2;
#pragma unroll
        for (int i = 0; i < N; i++)
            r2.v[i] = P::r2(i);
        return *this * r2;
    }

    // The inverse by Bernstein and Yang's divsteps (namespace divsteps
    // above; variable time: public values only) of the Montgomery image x
    // = aR as a plain integer, x^-1 = a^-1 R^-1, then twice times R^2
    // (Montgomery products) for a^-1 R. The batch-affine MSM has one
    // thread invert for its block while the block waits (msm_impl.cuh):
    // about a fifth of the word operations of the binary extended Euclid
    // it replaces. Inverse of 0: 0.
    __device__ __noinline__ fp inv_var() const
    {
        if (is_zero())
            return zero();
        constexpr int L = (32 * N + 29) / 30;
        int32_t f[L], g[L], d[L], e[L], pl[L];
        uint32_t pw[N];
#pragma unroll
        for (int i = 0; i < N; i++)
            pw[i] = P::p(i);
        divsteps::to_limbs<N>(pl, pw);
        divsteps::to_limbs<N>(g, v);
#pragma unroll
        for (int i = 0; i < L; i++) {
            f[i] = pl[i];
            d[i] = 0;
            e[i] = 0;
        }
        e[0] = 1;
        const uint32_t pinv = 0u - P::M0; // 1/p mod 2^32: M0 is Montgomery's -1/p
        int32_t eta = -1;
        for (;;) {
            int32_t any = 0;
#pragma unroll
            for (int i = 0; i < L; i++)
                any |= g[i];
            if (!any)
                break;
            int32_t t[4];
            eta = divsteps::matrix_30_var(eta, (uint32_t)f[0], (uint32_t)g[0], t);
            divsteps::apply_matrix<true>(d, e, t, pl, pinv);
            divsteps::apply_matrix<false>(f, g, t, pl, 0);
        }
        // f = +-1 and f = d x mod p
        if (f[L - 1] < 0) {
#pragma unroll
            for (int i = 0; i < L; i++)
                d[i] = -d[i];
            divsteps::add_p(d, pl, 1);
        }
        fp res, r2;
        divsteps::from_limbs<N>(res.v, d);
#pragma unroll
        for (int i = 0; i < N; i++)
            r2.v[i] = P::r2(i);
        return res * r2 * r2;
    }
};

// Fp2 = Fp[u] / (u^2 + 1), for both curves.
template <class F> struct fp2 {
    static constexpr bool inline_points = false;
    F c0, c1;
    __device__ __forceinline__ static fp2 zero()
    {
        return {F::zero(), F::zero()};
    }
    __device__ __forceinline__ static fp2 one()
    {
        return {F::one(), F::zero()};
    }
    __device__ __forceinline__ bool is_zero() const
    {
        return c0.is_zero() && c1.is_zero();
    }
    __device__ __forceinline__ bool operator==(const fp2 &b) const
    {
        return c0 == b.c0 && c1 == b.c1;
    }
    __device__ __forceinline__ friend fp2 operator+(const fp2 &a, const fp2 &b)
    {
        return {a.c0 + b.c0, a.c1 + b.c1};
    }
    __device__ __forceinline__ friend fp2 operator-(const fp2 &a, const fp2 &b)
    {
        return {a.c0 - b.c0, a.c1 - b.c1};
    }
    __device__ __forceinline__ fp2 neg() const
    {
        return {c0.neg(), c1.neg()};
    }
    __device__ __forceinline__ fp2 dbl() const
    {
        return {c0.dbl(), c1.dbl()};
    }
    // Karatsuba: three base-field multiplications
    __device__ __forceinline__ friend fp2 operator*(const fp2 &a, const fp2 &b)
    {
        F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
        F t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
        return {t0 - t1, t2 - t0 - t1};
    }
    __device__ __forceinline__ fp2 sqr() const
    {
        F t = c0 * c1;
        return {(c0 + c1) * (c0 - c1), t.dbl()};
    }
    __device__ __forceinline__ fp2 from_mont() const
    {
        return {c0.from_mont(), c1.from_mont()};
    }
    __device__ __forceinline__ fp2 to_mont() const
    {
        return {c0.to_mont(), c1.to_mont()};
    }
    // 1/(c0 + c1 u) = (c0 - c1 u) / (c0^2 + c1^2)
    __device__ __noinline__ fp2 inv_var() const
    {
        F d = (c0.sqr() + c1.sqr()).inv_var();
        return {c0 * d, (c1 * d).neg()};
    }
};

typedef fp<bls12_381_fp_params> bls12_381_fp;
typedef fp<bls12_381_fr_params> bls12_381_fr;
typedef fp<bn254_fp_params> bn254_fp;
typedef fp<bn254_fr_params> bn254_fr;
typedef fp2<bls12_381_fp> bls12_381_fp2;
typedef fp2<bn254_fp> bn254_fp2;

} // namespace gpu
