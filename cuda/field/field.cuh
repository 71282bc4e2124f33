// Prime-field arithmetic on the GPU: one implementation for every field,
// stamped per field by a parameter struct (the C core does the same with
// src/field/field_impl.h). Values are Montgomery images in 32-bit limbs,
// little-endian, so a value has the same bytes as on the CPU (64-bit limbs,
// R = 2^(64 * limbs) = 2^(32 * N)): points and scalars cross between host
// and device without conversion.
//
// Multiplication is CIOS: per limb of b, a * b[i] is added as two PTX carry
// chains (low and high halves of the products, mad.lo.cc / madc.hi.cc),
// then one Montgomery step m * p as two more. Squaring computes each cross
// product once (SOS), doubles, adds the diagonal and reduces: about 15 %
// fewer multiply-adds than a multiplication at 12 limbs.
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
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint32_t r;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

// --- Field parameters, read from the same generated headers as the CPU
// code. Limb i of a 64-bit-limb constant, as a compile-time function so
// that unrolled loops see immediates.
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
    }

CUZK_GPU_FIELD_PARAMS(bls12_381_fp_params, BLS12_381_FP);
CUZK_GPU_FIELD_PARAMS(bls12_381_fr_params, BLS12_381_FR);
CUZK_GPU_FIELD_PARAMS(bn254_fp_params, BN254_FP);
CUZK_GPU_FIELD_PARAMS(bn254_fr_params, BN254_FR);

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

    __device__ __forceinline__ friend fp operator*(const fp &a, const fp &b)
    {
        uint32_t t[N + 2];
#pragma unroll
        for (int i = 0; i < N + 2; i++)
            t[i] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t bi = b.v[i];
            // t += a * bi: low halves, then high halves one limb up
            t[0] = mad_lo_cc(a.v[0], bi, t[0]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j] = madc_lo_cc(a.v[j], bi, t[j]);
            t[N] = addc_cc(t[N], 0);
            t[N + 1] = addc(t[N + 1], 0);
            t[1] = mad_hi_cc(a.v[0], bi, t[1]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j + 1] = madc_hi_cc(a.v[j], bi, t[j + 1]);
            t[N + 1] = addc(t[N + 1], 0);
            // t += m * p, which clears t[0]; then shift one limb down
            const uint32_t m = t[0] * P::M0;
            (void)mad_lo_cc(m, P::p(0), t[0]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j] = madc_lo_cc(m, P::p(j), t[j]);
            t[N] = addc_cc(t[N], 0);
            t[N + 1] = addc(t[N + 1], 0);
            t[1] = mad_hi_cc(m, P::p(0), t[1]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j + 1] = madc_hi_cc(m, P::p(j), t[j + 1]);
            t[N + 1] = addc(t[N + 1], 0);
#pragma unroll
            for (int j = 0; j <= N; j++)
                t[j] = t[j + 1];
            t[N + 1] = 0;
        }
        return reduce_once(t, t[N]);
    }

    __device__ __forceinline__ fp sqr() const
    {
        const uint32_t *a = v;
        uint32_t w[2 * N];
#pragma unroll
        for (int i = 0; i < 2 * N; i++)
            w[i] = 0;
        // cross products a_i a_j, i < j, once each
#pragma unroll
        for (int i = 0; i < N - 1; i++) {
            w[2 * i + 1] = mad_lo_cc(a[i], a[i + 1], w[2 * i + 1]);
#pragma unroll
            for (int j = i + 2; j < N; j++)
                w[i + j] = madc_lo_cc(a[i], a[j], w[i + j]);
            w[i + N] = addc(w[i + N], 0);
            w[2 * i + 2] = mad_hi_cc(a[i], a[i + 1], w[2 * i + 2]);
#pragma unroll
            for (int j = i + 2; j < N; j++)
                w[i + j + 1] = madc_hi_cc(a[i], a[j], w[i + j + 1]);
            if (i + N + 1 < 2 * N)
                w[i + N + 1] = addc(w[i + N + 1], 0);
        }
        // double, then add the squares a_i^2 on the diagonal
        w[1] = add_cc(w[1], w[1]);
#pragma unroll
        for (int k = 2; k < 2 * N; k++)
            w[k] = addc_cc(w[k], w[k]);
        w[0] = mad_lo_cc(a[0], a[0], w[0]);
        w[1] = madc_hi_cc(a[0], a[0], w[1]);
#pragma unroll
        for (int i = 1; i < N; i++) {
            w[2 * i] = madc_lo_cc(a[i], a[i], w[2 * i]);
            w[2 * i + 1] = madc_hi_cc(a[i], a[i], w[2 * i + 1]);
        }
        // Montgomery-reduce the low half (CIOS steps on N + 2 limbs), then
        // add the high half: (w + m p) / R = w_hi + (w_lo + m p) / R, which
        // is below 2p for p < R.
        uint32_t t[N + 2];
#pragma unroll
        for (int i = 0; i < N; i++)
            t[i] = w[i];
        t[N] = t[N + 1] = 0;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t m = t[0] * P::M0;
            (void)mad_lo_cc(m, P::p(0), t[0]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j] = madc_lo_cc(m, P::p(j), t[j]);
            t[N] = addc_cc(t[N], 0);
            t[N + 1] = addc(t[N + 1], 0);
            t[1] = mad_hi_cc(m, P::p(0), t[1]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j + 1] = madc_hi_cc(m, P::p(j), t[j + 1]);
            t[N + 1] = addc(t[N + 1], 0);
#pragma unroll
            for (int j = 0; j <= N; j++)
                t[j] = t[j + 1];
            t[N + 1] = 0;
        }
        t[0] = add_cc(t[0], w[N]);
#pragma unroll
        for (int i = 1; i < N; i++)
            t[i] = addc_cc(t[i], w[N + i]);
        uint32_t hi = addc(t[N], 0);
        return reduce_once(t, hi);
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

    // a^(p-2) by square-and-multiply over the constant exponent: for the
    // few inversions of an MSM's final point (public values only).
    __device__ __noinline__ fp inv_var() const
    {
        fp r = one();
        for (int i = N - 1; i >= 0; i--) {
            const uint32_t e = P::pm2(i);
            for (int b = 31; b >= 0; b--) {
                r = r.sqr();
                if ((e >> b) & 1)
                    r = r * *this;
            }
        }
        return r;
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
