// Number-theoretic transforms over Fr on the GPU, one template for both
// curves, with the CPU's orderings (src/ntt/ntt_impl.h):
//   dif  natural in, bit-reversed out (Gentleman-Sande), twiddles w^-1 for
//        the prover's inverse step;
//   dit  bit-reversed in, natural out (Cooley-Tukey);
// so the prover's "n-domain evaluations -> odd-coset evaluations" is
// dif(w^-1), times inc^bitrev(i) / n, dit(w): two transforms, no
// bit-reversal pass.
//
// Each kernel launch does up to 10 radix-2 stages of one group of 2^B
// elements in shared memory (32 KiB for Fr): a 2^27 transform is three
// passes over device memory. Twiddles come from a table of the n/2 powers
// of the root (read through L2); the coset scale from two small tables
// (inc^i = hi[i >> h] lo[i & mask]).
#pragma once

#include "ntt.cuh"

namespace gpu {

// out: w (primitive 2^log_n-th root), w^-1, inc (2^(log_n+1)-th), 1/n,
// inc^(2^h)
template <class F> __global__ void ntt_roots(unsigned log_n, unsigned h, F *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    F root;
#pragma unroll
    for (int i = 0; i < F::N; i++)
        root.v[i] = ntt_params<F>::root(i);
    F inc = root;
    for (unsigned i = log_n + 1; i < ntt_params<F>::TWO_ADICITY; i++)
        inc = inc.sqr();
    F w = inc.sqr();
    F n = F::zero();
    if (log_n < 32)
        n.v[0] = 1u << log_n;
    else
        n.v[1] = 1u << (log_n - 32);
    out[0] = w;
    out[1] = w.inv_var();
    out[2] = inc;
    out[3] = n.to_mont().inv_var();
    for (unsigned i = 0; i < h; i++)
        inc = inc.sqr();
    out[4] = inc;
}

// out[i] = scale * base^i for i < count
template <class F> __global__ void ntt_powers(F base, F scale, F *out, size_t count)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count)
        return;
    F r = scale, b = base;
    for (size_t e = i; e; e >>= 1) {
        if (e & 1)
            r = r * b;
        b = b.sqr();
    }
    out[i] = r;
}

template <class F>
__global__ void ntt_pass(F *a, unsigned log_n, unsigned s_lo, unsigned B, const F *tw, bool dif)
{
    extern __shared__ uint4 ntt_smem[];
    F *sm = (F *)ntt_smem;
    const unsigned s_hi = s_lo + B - 1;
    const size_t g = blockIdx.x;
    const size_t lo_mask = ((size_t)1 << (s_lo - 1)) - 1;
    const size_t g_lo = g & lo_mask, g_hi = g >> (s_lo - 1);
    const size_t base = (g_hi << s_hi) | g_lo, stride = (size_t)1 << (s_lo - 1);
    const unsigned size = 1u << B, half = size / 2;
    for (unsigned p = threadIdx.x; p < size; p += blockDim.x)
        sm[p] = a[base + p * stride];
    __syncthreads();
    for (unsigned i = 0; i < B; i++) {
        const unsigned s = dif ? s_hi - i : s_lo + i; // global stage: half-block 2^(s-1)
        const unsigned ls = s - s_lo;
        for (unsigned t = threadIdx.x; t < half; t += blockDim.x) {
            const unsigned jl = t & ((1u << ls) - 1);
            const unsigned k = ((t >> ls) << (ls + 1)) + jl;
            const size_t j = ((size_t)jl << (s_lo - 1)) | g_lo;
            F u = sm[k], v = sm[k + (1u << ls)];
            if (dif) {
                sm[k] = u + v;
                F d = u - v;
                if (j)
                    d = d * tw[j << (log_n - s)];
                sm[k + (1u << ls)] = d;
            } else {
                if (j)
                    v = v * tw[j << (log_n - s)];
                sm[k] = u + v;
                sm[k + (1u << ls)] = u - v;
            }
        }
        __syncthreads();
    }
    for (unsigned p = threadIdx.x; p < size; p += blockDim.x)
        a[base + p * stride] = sm[p];
}

// a[i] *= inc^bitrev(i) / n  (lo[j] = inc^j / n, hi[j] = inc^(j 2^h))
template <class F>
__global__ void ntt_coset_scale(F *a, unsigned log_n, unsigned h, const F *lo, const F *hi)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >> log_n)
        return;
    size_t e = (size_t)(__brevll((unsigned long long)i) >> (64 - log_n));
    a[i] = a[i] * (lo[e & (((size_t)1 << h) - 1)] * hi[e >> h]);
}

template <class F> __global__ void ntt_bitrev_copy(const F *in, F *out, unsigned log_n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >> log_n)
        return;
    out[(size_t)(__brevll((unsigned long long)i) >> (64 - log_n))] = in[i];
}

template <class F> __global__ void fr_scale(F *a, size_t n, const F *k)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = a[i] * *k;
}

template <class F> int ntt_domain<F>::init(unsigned lg, cudaStream_t st, cuzk_gpu_msg *msg)
{
    if (lg < 1 || lg >= ntt_params<F>::TWO_ADICITY)
        return fail_msg(msg, CUZK_ERR_UNSUPPORTED, "NTT size out of range for this field");
    log_n = lg;
    h = (lg + 1) / 2;
    size_t n = (size_t)1 << lg;
    GPU_RC(consts.alloc(5, st, msg));
    GPU_RC(tw.alloc(n / 2, st, msg));
    GPU_RC(itw.alloc(n / 2, st, msg));
    GPU_RC(coset_lo.alloc((size_t)1 << h, st, msg));
    GPU_RC(coset_hi.alloc((size_t)1 << (lg - h), st, msg));
    ntt_roots<F><<<1, 1, 0, st>>>(lg, h, consts.p);
    GPU_LAUNCHED(msg, "ntt_roots");
    F c[5];
    GPU_TRY(msg, cudaMemcpyAsync(c, consts.p, sizeof(c), cudaMemcpyDeviceToHost, st));
    GPU_TRY(msg, cudaStreamSynchronize(st));
    F one;
    for (int i = 0; i < F::N; i++)
        one.v[i] = F::params::one(i);
    size_t n_lo = (size_t)1 << h, n_hi = (size_t)1 << (lg - h);
    ntt_powers<F><<<blocks_for(n / 2, 256), 256, 0, st>>>(c[0], one, tw.p, n / 2);
    ntt_powers<F><<<blocks_for(n / 2, 256), 256, 0, st>>>(c[1], one, itw.p, n / 2);
    ntt_powers<F><<<blocks_for(n_lo, 256), 256, 0, st>>>(c[2], c[3], coset_lo.p, n_lo);
    ntt_powers<F><<<blocks_for(n_hi, 256), 256, 0, st>>>(c[4], one, coset_hi.p, n_hi);
    GPU_LAUNCHED(msg, "ntt_powers");
    return CUZK_OK;
}

// One direction through all stages, B <= 10 per launch.
template <class F> int ntt_domain<F>::run(F *a, bool dif, bool inverse_roots, cudaStream_t st, cuzk_gpu_msg *msg) const
{
    const F *t = inverse_roots ? itw.p : tw.p;
    size_t n = (size_t)1 << log_n;
    unsigned done = 0;
    while (done < log_n) {
        unsigned B = log_n - done < NTT_MAX_STAGES_PER_PASS ? log_n - done : NTT_MAX_STAGES_PER_PASS;
        // dif walks stages from the top, dit from the bottom
        unsigned s_lo = dif ? log_n - done - B + 1 : done + 1;
        unsigned threads = (1u << (B - 1)) < 512 ? (1u << (B - 1)) : 512;
        ntt_pass<F><<<(unsigned)(n >> B), threads, sizeof(F) << B, st>>>(a, log_n, s_lo, B, t, dif);
        GPU_LAUNCHED(msg, "ntt_pass");
        done += B;
    }
    return CUZK_OK;
}

// evaluations on the n-domain -> evaluations on the odd coset
template <class F> int ntt_domain<F>::to_odd_coset(F *a, cudaStream_t st, cuzk_gpu_msg *msg) const
{
    GPU_RC(run(a, true, true, st, msg));
    ntt_coset_scale<F><<<blocks_for((size_t)1 << log_n, 256), 256, 0, st>>>(a, log_n, h, coset_lo.p,
                                                                            coset_hi.p);
    GPU_LAUNCHED(msg, "ntt_coset_scale");
    return run(a, false, false, st, msg);
}

template <class F> int ntt_domain<F>::bitrev_copy(const F *in, F *out, cudaStream_t st, cuzk_gpu_msg *msg) const
{
    ntt_bitrev_copy<F><<<blocks_for((size_t)1 << log_n, 256), 256, 0, st>>>(in, out, log_n);
    GPU_LAUNCHED(msg, "ntt_bitrev_copy");
    return CUZK_OK;
}

template <class F> int ntt_domain<F>::scale_by_ninv(F *a, cudaStream_t st, cuzk_gpu_msg *msg) const
{
    fr_scale<F><<<blocks_for((size_t)1 << log_n, 256), 256, 0, st>>>(a, (size_t)1 << log_n, consts.p + 3);
    GPU_LAUNCHED(msg, "fr_scale");
    return CUZK_OK;
}

} // namespace gpu
