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
template <class F> __global__ void ntt_roots(unsigned log_n, unsigned h, bool bellperson, F *out)
{
    if (blockIdx.x != 0 || threadIdx.x != 0)
        return;
    F root;
#pragma unroll
    for (int i = 0; i < F::N; i++)
        root.v[i] = ntt_params<F>::root(i, bellperson);
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

// Radix-2^R variant (the default): each thread holds 2^R elements in
// registers and runs R stages on them per round, so a pass of B stages
// costs ceil(B / R) shared-memory exchanges and barriers instead of B, and
// each twiddle is loaded once per distinct value in the thread's group
// (7 loads for the 12 butterflies of a radix-8 round).
//
// Round k covers stages [lo_s, hi_s) (local to the pass); the thread's
// elements are the 2^R local indices whose bits outside the window
// [w0, w0 + R) ⊇ [lo_s, hi_s) are its thread index. The first round reads
// device memory straight into registers and the last writes back from
// them; rounds between exchange through shared memory. Shared memory holds
// each 32-byte element as two 16-byte halves in separate arrays, at slot
// p ^ ((p >> 3) & 7): the strided accesses of every round then hit
// distinct banks (8 threads x 16 bytes per wavefront).
//
// coset_lo non-null (first pass of the forward DIT only): each element is
// first multiplied by inc^bitrev(i) / n, the odd-coset scale (fused here
// instead of a separate pass over memory).
//
// unit_first (only for the pass that holds global stage 1): in
// the round over local stages from 0 (w0 = 0) every thread's twiddle index
// is j = m, so the m = 0 butterflies multiply by 1 in every thread; they
// skip the multiplication (a block-uniform branch). With 4 elements a
// thread that is 3 of the round's 4 multiplications: 0.75 of the 13.5 a
// 2^27 transform does per element. A template flag, so that the other
// passes' code (and registers) stay as they are. Same run on the H200
// (docs/history/benchmarks-log.md, "squaring, unit twiddles, every issue-6
// target met"), 2^27 forward: BLS12-381 Fr 37.30 -> 36.65 ms, BN254 Fr
// 38.76 -> 37.63 ms.
__device__ __forceinline__ unsigned ntt_slot(unsigned p)
{
    return p ^ ((p >> 3) & 7);
}

template <class F, int R, bool dif, bool unit_first>
__global__ void ntt_pass_radix(F *a, unsigned log_n, unsigned s_lo, unsigned B, const F *tw, const F *coset_lo,
                               const F *coset_hi, unsigned h)
{
    static_assert(sizeof(F) == 32, "Fr elements are two 16-byte halves");
    extern __shared__ uint4 ntt_smem[];
    uint4 *sm_lo = ntt_smem, *sm_hi = ntt_smem + (1u << B);
    const unsigned t = threadIdx.x; // blockDim.x = 2^(B - R)
    const unsigned s_hi = s_lo + B - 1;
    const size_t g = blockIdx.x;
    const size_t lo_mask = ((size_t)1 << (s_lo - 1)) - 1;
    const size_t g_lo = g & lo_mask, g_hi = g >> (s_lo - 1);
    const size_t base = (g_hi << s_hi) | g_lo, stride = (size_t)1 << (s_lo - 1);
    const unsigned rounds = (B + R - 1) / R;
    F x[1 << R];
    for (unsigned rd = 0; rd < rounds; rd++) {
        unsigned lo_s, hi_s, w0;
        if (!dif) {
            lo_s = rd * R;
            hi_s = lo_s + R < B ? lo_s + R : B;
            w0 = lo_s + R <= B ? lo_s : B - R;
        } else {
            hi_s = B - rd * R;
            lo_s = hi_s > (unsigned)R ? hi_s - R : 0;
            w0 = lo_s;
        }
        const unsigned t_lo = t & ((1u << w0) - 1), t_hi = t >> w0;
        // load
#pragma unroll
        for (int q = 0; q < (1 << R); q++) {
            const unsigned p = (t_hi << (w0 + R)) | ((unsigned)q << w0) | t_lo;
            if (rd == 0) {
                const size_t gi = base + p * stride;
                x[q] = a[gi];
                if (coset_lo) {
                    size_t e = (size_t)(__brevll((unsigned long long)gi) >> (64 - log_n));
                    x[q] = x[q] * (coset_lo[e & (((size_t)1 << h) - 1)] * coset_hi[e >> h]);
                }
            } else {
                const unsigned sl = ntt_slot(p);
                uint4 lo = sm_lo[sl], hi = sm_hi[sl];
                x[q].v[0] = lo.x, x[q].v[1] = lo.y, x[q].v[2] = lo.z, x[q].v[3] = lo.w;
                x[q].v[4] = hi.x, x[q].v[5] = hi.y, x[q].v[6] = hi.z, x[q].v[7] = hi.w;
            }
        }
        // stages: window bit i is local stage w0 + i; DIT ascending, DIF
        // descending
#pragma unroll
        for (int k = 0; k < R; k++) {
            const int i = dif ? R - 1 - k : k; // compile-time: dif is a template argument
            const unsigned ls = w0 + (unsigned)i;
            if (ls < lo_s || ls >= hi_s)
                continue;
            const unsigned s = s_lo + ls; // global stage: half-block 2^(s-1)
#pragma unroll
            for (int m = 0; m < (1 << R) / 2; m++) {
                if (m >= (1 << i))
                    break;
                if (unit_first && m == 0 && w0 == 0) { // twiddle 1 (above)
#pragma unroll
                    for (int hq = 0; hq < (1 << R) / 2; hq++) {
                        if (hq >= (1 << (R - 1 - i)))
                            break;
                        const int q0 = hq << (i + 1), q1 = q0 | (1 << i);
                        F u = x[q0], v = x[q1];
                        x[q0] = u + v;
                        x[q1] = u - v;
                    }
                    continue;
                }
                // butterflies whose low window bits (below i) are m share
                // the twiddle of jl = m << w0 | t_lo
                const unsigned jl = ((unsigned)m << w0) | t_lo;
                const size_t j = ((size_t)jl << (s_lo - 1)) | g_lo;
                const F w = tw[j << (log_n - s)];
#pragma unroll
                for (int hq = 0; hq < (1 << R) / 2; hq++) {
                    if (hq >= (1 << (R - 1 - i)))
                        break;
                    const int q0 = (hq << (i + 1)) | m, q1 = q0 | (1 << i);
                    if (dif) {
                        F u = x[q0], v = x[q1];
                        x[q0] = u + v;
                        x[q1] = (u - v) * w;
                    } else {
                        F u = x[q0], v = x[q1] * w;
                        x[q0] = u + v;
                        x[q1] = u - v;
                    }
                }
            }
        }
        // store
#pragma unroll
        for (int q = 0; q < (1 << R); q++) {
            const unsigned p = (t_hi << (w0 + R)) | ((unsigned)q << w0) | t_lo;
            if (rd + 1 == rounds) {
                a[base + p * stride] = x[q];
            } else {
                const unsigned sl = ntt_slot(p);
                sm_lo[sl] = make_uint4(x[q].v[0], x[q].v[1], x[q].v[2], x[q].v[3]);
                sm_hi[sl] = make_uint4(x[q].v[4], x[q].v[5], x[q].v[6], x[q].v[7]);
            }
        }
        if (rd + 1 < rounds)
            __syncthreads();
    }
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

template <class F> int ntt_domain<F>::init(unsigned lg, cudaStream_t st, cuzk_gpu_msg *msg, bool bellperson)
{
    if (lg < 1 || lg >= ntt_params<F>::TWO_ADICITY)
        return fail_msg(msg, CUZK_ERR_UNSUPPORTED, "NTT size out of range for this field");
    if (pass_bits < 3 || pass_bits > NTT_MAX_PASS_BITS)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "NTT pass size must be 3..11 stages");
    log_n = lg;
    h = (lg + 1) / 2;
    size_t n = (size_t)1 << lg;
    if (kernel > 2)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "NTT kernel must be 0, 1 or 2");
    if (pass_bits > 10) { // above 48 KiB of dynamic shared memory: opt in (a per-kernel attribute)
        const int bytes = (int)(sizeof(F) << NTT_MAX_PASS_BITS);
        const cudaFuncAttribute shared = cudaFuncAttributeMaxDynamicSharedMemorySize;
        GPU_TRY(msg, cudaFuncSetAttribute(ntt_pass_radix<F, 3, true, false>, shared, bytes));
        GPU_TRY(msg, cudaFuncSetAttribute(ntt_pass_radix<F, 3, false, false>, shared, bytes));
        GPU_TRY(msg, cudaFuncSetAttribute(ntt_pass_radix<F, 2, true, false>, shared, bytes));
        GPU_TRY(msg, cudaFuncSetAttribute(ntt_pass_radix<F, 2, false, false>, shared, bytes));
        GPU_TRY(msg, cudaFuncSetAttribute(ntt_pass_radix<F, 2, true, true>, shared, bytes));
        GPU_TRY(msg, cudaFuncSetAttribute(ntt_pass_radix<F, 2, false, true>, shared, bytes));
    }
    GPU_RC(consts.alloc(5, st, msg));
    GPU_RC(tw.alloc(n / 2, st, msg));
    GPU_RC(itw.alloc(n / 2, st, msg));
    GPU_RC(coset_lo.alloc((size_t)1 << h, st, msg));
    GPU_RC(coset_hi.alloc((size_t)1 << (lg - h), st, msg));
    ntt_roots<F><<<1, 1, 0, st>>>(lg, h, bellperson, consts.p);
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

// unit_first: skip the twiddles that are 1 in the pass holding stage 1
// (kernel 2; 4 elements a thread only)
template <class F, bool dif>
static int ntt_launch_radix(unsigned radix_bits, bool unit_first, F *a, unsigned log_n, unsigned s_lo, unsigned B,
                            const F *tw, const F *coset_lo, const F *coset_hi, unsigned h, cudaStream_t st,
                            cuzk_gpu_msg *msg)
{
    const unsigned R = B < radix_bits ? B : radix_bits;
    const unsigned blocks = (unsigned)(((size_t)1 << log_n) >> B), threads = 1u << (B - R);
    const size_t smem = sizeof(F) << B;
    if (R == 3)
        ntt_pass_radix<F, 3, dif, false><<<blocks, threads, smem, st>>>(a, log_n, s_lo, B, tw, coset_lo, coset_hi, h);
    else if (R == 2 && unit_first && s_lo == 1)
        ntt_pass_radix<F, 2, dif, true><<<blocks, threads, smem, st>>>(a, log_n, s_lo, B, tw, coset_lo, coset_hi, h);
    else if (R == 2)
        ntt_pass_radix<F, 2, dif, false><<<blocks, threads, smem, st>>>(a, log_n, s_lo, B, tw, coset_lo, coset_hi, h);
    else
        ntt_pass_radix<F, 1, dif, false><<<blocks, threads, smem, st>>>(a, log_n, s_lo, B, tw, coset_lo, coset_hi, h);
    GPU_LAUNCHED(msg, "ntt_pass_radix");
    return CUZK_OK;
}

// One direction through all stages. Radix kernels (2, the default: 4
// elements a thread, the unit twiddles of stage 1's pass skipped; 0: 8):
// ceil(log_n / pass_bits) passes of balanced sizes; the
// radix-2 kernel (1): passes of up to 10 stages.
template <class F>
int ntt_domain<F>::run_passes(F *a, bool dif, bool inverse_roots, bool coset, cudaStream_t st,
                              cuzk_gpu_msg *msg) const
{
    const F *t = inverse_roots ? itw.p : tw.p;
    size_t n = (size_t)1 << log_n;
    if (kernel == 1) {
        if (coset) {
            ntt_coset_scale<F><<<blocks_for(n, 256), 256, 0, st>>>(a, log_n, h, coset_lo.p, coset_hi.p);
            GPU_LAUNCHED(msg, "ntt_coset_scale");
        }
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
    const unsigned passes = (log_n + pass_bits - 1) / pass_bits;
    unsigned done = 0;
    for (unsigned k = 0; k < passes; k++) {
        unsigned B = log_n / passes + (k < log_n % passes ? 1 : 0);
        unsigned s_lo = dif ? log_n - done - B + 1 : done + 1;
        const F *scale = coset && k == 0 ? coset_lo.p : nullptr;
        const unsigned rb = kernel == 0 ? 3 : 2;
        const bool unit = kernel == 2;
        int rc = dif ? ntt_launch_radix<F, true>(rb, unit, a, log_n, s_lo, B, t, nullptr, nullptr, h, st, msg)
                     : ntt_launch_radix<F, false>(rb, unit, a, log_n, s_lo, B, t, scale, coset_hi.p, h, st, msg);
        GPU_RC(rc);
        done += B;
    }
    return CUZK_OK;
}

template <class F> int ntt_domain<F>::run(F *a, bool dif, bool inverse_roots, cudaStream_t st, cuzk_gpu_msg *msg) const
{
    return run_passes(a, dif, inverse_roots, false, st, msg);
}

// evaluations on the n-domain -> evaluations on the odd coset: the scale
// rides on the forward transform's first pass
template <class F> int ntt_domain<F>::to_odd_coset(F *a, cudaStream_t st, cuzk_gpu_msg *msg) const
{
    GPU_RC(run_passes(a, true, true, false, st, msg));
    return run_passes(a, false, false, true, st, msg);
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
