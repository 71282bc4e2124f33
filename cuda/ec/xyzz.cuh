// Elliptic-curve points on the GPU for y^2 = x^3 + b (a = 0), over Fp (G1)
// or Fp2 (G2), one template for all four groups.
//
// Inputs are affine points in the .zkey layout (x || y, Montgomery limbs;
// infinity is all zero, which is not on the curve since b != 0).
// Accumulators are XYZZ (x = X/ZZ, y = Y/ZZZ; infinity has ZZ = 0): a mixed
// addition costs 8 multiplications and 2 squarings and needs no
// inversion (formulas "madd-2008-s", "add-2008-s", "dbl-2008-s-1" of the
// Explicit-Formulas Database). Everything here handles public data only.
//
// The point operations are out-of-line functions: inlined into every
// kernel, each G2 kernel became hundreds of thousands of instructions and
// took nvcc over ten minutes. The exception is the mixed addition over Fp
// (G1), the MSM's inner loop: as a call its accumulator went through a
// 480-byte stack frame on every addition (ptxas -v), so add_affine inlines
// it where F::inline_points.
#pragma once

#include "../field/field.cuh"

namespace gpu {

template <class F> struct affine {
    F x, y;
    __device__ __forceinline__ bool is_inf() const
    {
        return x.is_zero() && y.is_zero();
    }
};

template <class F> struct xyzz {
    F X, Y, ZZ, ZZZ;

    __device__ __forceinline__ static xyzz inf()
    {
        return {F::zero(), F::zero(), F::zero(), F::zero()};
    }
    __device__ __forceinline__ bool is_inf() const
    {
        return ZZ.is_zero();
    }
    __device__ __forceinline__ static xyzz from_affine(const affine<F> &p)
    {
        if (p.is_inf())
            return inf();
        return {p.x, p.y, F::one(), F::one()};
    }
    __device__ __forceinline__ xyzz neg() const
    {
        return {X, Y.neg(), ZZ, ZZZ};
    }

    __device__ __noinline__ xyzz dbl() const
    {
        if (is_inf())
            return *this;
        F U = Y.dbl(), V = U.sqr(), W = U * V, S = X * V;
        F X2 = X.sqr();
        F M = X2.dbl() + X2;
        xyzz r;
        r.X = M.sqr() - S.dbl();
        r.Y = M * (S - r.X) - W * Y;
        r.ZZ = V * ZZ;
        r.ZZZ = W * ZZZ;
        return r;
    }

    // this + q, q affine (infinity allowed)
    __device__ __forceinline__ xyzz add_affine(const affine<F> &q) const
    {
        if constexpr (F::inline_points)
            return add_affine_body(q);
        else
            return add_affine_call(q);
    }
    __device__ __noinline__ xyzz add_affine_call(const affine<F> &q) const
    {
        return add_affine_body(q);
    }
    __device__ __forceinline__ xyzz add_affine_body(const affine<F> &q) const
    {
        if (q.is_inf())
            return *this;
        if (is_inf())
            return from_affine(q);
        F U2 = q.x * ZZ, S2 = q.y * ZZZ;
        F P = U2 - X, R = S2 - Y;
        if (P.is_zero()) {
            if (R.is_zero()) // same point: double the affine one
                return from_affine(q).dbl();
            return inf(); // q = -this
        }
        F PP = P.sqr(), PPP = P * PP, Q = X * PP;
        xyzz r;
        r.X = R.sqr() - PPP - Q.dbl();
        r.Y = R * (Q - r.X) - Y * PPP;
        r.ZZ = ZZ * PP;
        r.ZZZ = ZZZ * PPP;
        return r;
    }

    // this + q. A call, except add_inline over Fp (G1) where it measured
    // faster: the MSM's fix-up (19 -> 3.8 ms at 2^24, with longer slots);
    // inlined into the bucket segments it raised registers and took 41 ms
    // instead of 27 (docs/history/benchmarks-log.md, "fix-up tree, GPU
    // evaluation, radix-4 NTT")
    __device__ __noinline__ xyzz add(const xyzz &q) const
    {
        return add_body(q);
    }
    __device__ __forceinline__ xyzz add_inline(const xyzz &q) const
    {
        if constexpr (F::inline_points)
            return add_body(q);
        else
            return add(q);
    }
    __device__ __forceinline__ xyzz add_body(const xyzz &q) const
    {
        if (q.is_inf())
            return *this;
        if (is_inf())
            return q;
        F U1 = X * q.ZZ, U2 = q.X * ZZ;
        F S1 = Y * q.ZZZ, S2 = q.Y * ZZZ;
        F P = U2 - U1, R = S2 - S1;
        if (P.is_zero()) {
            if (R.is_zero())
                return dbl();
            return inf();
        }
        F PP = P.sqr(), PPP = P * PP, Q = U1 * PP;
        xyzz r;
        r.X = R.sqr() - PPP - Q.dbl();
        r.Y = R * (Q - r.X) - S1 * PPP;
        r.ZZ = ZZ * q.ZZ * PP;
        r.ZZZ = ZZZ * q.ZZZ * PPP;
        return r;
    }

    // k * this for a small public k (bucket reductions), double-and-add
    __device__ __noinline__ xyzz mul_small(uint32_t k) const
    {
        xyzz r = inf();
        if (k == 0)
            return r;
        for (int b = 31 - __clz(k); b >= 0; b--) {
            r = r.dbl();
            if ((k >> b) & 1)
                r = r.add(*this);
        }
        return r;
    }

    __device__ __noinline__ affine<F> to_affine() const
    {
        affine<F> a;
        if (is_inf()) {
            a.x = F::zero();
            a.y = F::zero();
            return a;
        }
        // x = X / ZZ, y = Y / ZZZ with one inversion, of ZZ * ZZZ
        F t = (ZZ * ZZZ).inv_var();
        F izz = t * ZZZ, izzz = t * ZZ;
        a.x = X * izz;
        a.y = Y * izzz;
        return a;
    }
};

} // namespace gpu
