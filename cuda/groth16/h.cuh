// The prover's H step on the device: c = a o b, the three to the odd
// coset, a = a b - c there. prove.cu runs it in every proof; the test
// kit's bench_h (prove_test.cu) times it alone.
#pragma once

#include "../ntt/ntt.cuh"
#include "../device/context.cuh"

namespace gpu {

// c = a o b
template <class F> __global__ void h_product(const F *a, const F *b, F *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] * b[i];
}

// a = a b - c, as plain integers (the H MSM's scalars)
template <class F> __global__ void h_combine(F *a, const F *b, const F *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = (a[i] * b[i] - c[i]).from_mont();
}

// a = a b - c, kept in Montgomery form (bellperson's H transforms on)
template <class F> __global__ void h_combine_mont(F *a, const F *b, const F *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * b[i] - c[i];
}

// bellperson's H scalars: the quotient's coefficients. in: sum_k e_k w^-ik
// at bitrev(i) (the forward pass of the inverse transform of e, the
// evaluations of a b - c at inc w^k); out[i] = in[bitrev(i)] inc^-i / n
// / Z, Z = inc^n - 1 = -2, as plain integers. inc^-i = -inc^(n-i) for
// 0 < i < n (inc^n = -1), so the domain's coset tables (inc^j / n = lo[j
// mod 2^h] hi[j >> h]) serve: out[i] = in[bitrev(i)] lo hi[n - i] / 2,
// out[0] = -in[0] / 2n.
template <class F>
__global__ void h_monomial(const F *in, F *out, unsigned log_n, unsigned h, const F *lo, const F *hi, F half)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t n = (size_t)1 << log_n;
    if (i >= n)
        return;
    const F x = in[(size_t)(__brevll((unsigned long long)i) >> (64 - log_n))];
    F s;
    if (i == 0)
        s = F::zero() - lo[0] * half;
    else {
        const size_t j = n - i;
        s = lo[j & (((size_t)1 << h) - 1)] * hi[j >> h] * half;
    }
    out[i] = (x * s).from_mont();
}

// 1/2 in Montgomery form: R/2 mod p, from R mod p (the one), plus p when odd
template <class F> F half_mont()
{
    F r;
    uint64_t carry = 0;
    const bool odd = F::params::one(0) & 1;
    for (int i = 0; i < F::N; i++) {
        uint64_t v = (uint64_t)F::params::one(i) + (odd ? F::params::p(i) : 0) + carry;
        r.v[i] = (uint32_t)v;
        carry = v >> 32;
    }
    for (int i = 0; i < F::N; i++)
        r.v[i] = (r.v[i] >> 1) | (i + 1 < F::N ? r.v[i + 1] << 31 : (uint32_t)carry << 31);
    return r;
}

// H's scalars from a, b on the n-domain (db, dc: scratch): c = a o b, all
// three to the odd coset (two transforms each: six in all, the fewest the
// odd-coset form allows), then a b - c there. snarkjs's H points are the
// odd coset's Lagrange basis: the scalars are those evaluations, as plain
// integers, in a. bellperson's (monomial) are the quotient's coefficients:
// one more transform back from the coset, the result in b (bellperson and
// supraseal take the coset of 7; the coefficients do not depend on it).
// Returns where the scalars are.
template <class Fr>
int h_evaluations(const ntt_domain<Fr> &dom, Fr *a, Fr *b, Fr *c, bool monomial, Fr **scalars, cudaStream_t st,
                  cuzk_gpu_msg *msg)
{
    const size_t n = (size_t)1 << dom.log_n;
    h_product<Fr><<<blocks_for(n, 256), 256, 0, st>>>(a, b, c, n);
    GPU_LAUNCHED(msg, "h_product");
    GPU_RC(dom.to_odd_coset(a, st, msg));
    GPU_RC(dom.to_odd_coset(b, st, msg));
    GPU_RC(dom.to_odd_coset(c, st, msg));
    if (!monomial) {
        h_combine<Fr><<<blocks_for(n, 256), 256, 0, st>>>(a, b, c, n);
        GPU_LAUNCHED(msg, "h_combine");
        *scalars = a;
        return CUZK_OK;
    }
    h_combine_mont<Fr><<<blocks_for(n, 256), 256, 0, st>>>(a, b, c, n);
    GPU_LAUNCHED(msg, "h_combine_mont");
    GPU_RC(dom.run(a, true, true, st, msg));
    h_monomial<Fr><<<blocks_for(n, 256), 256, 0, st>>>(a, b, dom.log_n, dom.h, dom.coset_lo.p, dom.coset_hi.p,
                                                        half_mont<Fr>());
    GPU_LAUNCHED(msg, "h_monomial");
    *scalars = b;
    return CUZK_OK;
}

} // namespace gpu
