// GPU NTTs over Fr (definitions in ntt_impl.cuh, compiled once in ntt.cu
// for both curves): see ntt_impl.cuh for the orderings and the passes.
#pragma once

#include "../field/field.cuh"
#include "../util/gpu.cuh"

namespace gpu {

// The 2^s-th roots of unity of the two conventions (src/ntt/ntt_impl.h):
// snarkjs's from 5 (a .zkey's domain), bellperson's from 7 (a .params
// key's), 32-bit word i of each.
template <class F> struct ntt_params;
template <> struct ntt_params<bls12_381_fr> {
    static constexpr unsigned TWO_ADICITY = BLS12_381_FR_TWO_ADICITY;
    __host__ __device__ static constexpr uint32_t root(int i, bool bellperson)
    {
        constexpr uint64_t v5[] = BLS12_381_FR_ROOT_OF_UNITY, v7[] = BLS12_381_FR_ROOT_OF_UNITY_7;
        return (uint32_t)((bellperson ? v7 : v5)[i / 2] >> (32 * (i & 1)));
    }
};
template <> struct ntt_params<bn254_fr> {
    static constexpr unsigned TWO_ADICITY = BN254_FR_TWO_ADICITY;
    __host__ __device__ static constexpr uint32_t root(int i, bool bellperson)
    {
        constexpr uint64_t v5[] = BN254_FR_ROOT_OF_UNITY, v7[] = BN254_FR_ROOT_OF_UNITY_7;
        return (uint32_t)((bellperson ? v7 : v5)[i / 2] >> (32 * (i & 1)));
    }
};

static constexpr unsigned NTT_MAX_STAGES_PER_PASS = 10; // legacy radix-2 kernel
// radix kernels: 2^11 x 32 B = 64 KiB of shared memory and 256 threads of
// 132 registers (2^12 asked for 512 threads: more registers than an SM has)
static constexpr unsigned NTT_MAX_PASS_BITS = 11;

// Tables for one transform size, resident on the device.
template <class F> struct ntt_domain {
    unsigned log_n = 0, h = 0;
    // kernel 2 (the default): 4 elements a thread in registers, passes of
    // at most pass_bits stages; 0: 8 elements a thread (132 registers:
    // too few warps, slower); 1: radix-2 passes of up to 10 stages.
    // Same run, 2^27 over BLS12-381 Fr: 63.9 / 116.3 / 71.9 ms; the coset
    // step at 2^24: 16.9 / 26.0 / 22.9 ms (docs/history/benchmarks-log.md,
    // "fix-up tree, GPU evaluation, radix-4 NTT")
    unsigned kernel = 2, pass_bits = 10;
    dev_buf<F> tw, itw, coset_lo, coset_hi, consts; // consts: w, w^-1, inc, 1/n, inc^(2^h)

    // bellperson: the root of a .params key's domain, else a .zkey's
    int init(unsigned lg, cudaStream_t st, cuzk_gpu_msg *msg, bool bellperson = false);
    // all stages in one direction: dif (natural -> bit-reversed) or dit
    // (bit-reversed -> natural), with the root's powers or its inverse's
    int run(F *a, bool dif, bool inverse_roots, cudaStream_t st, cuzk_gpu_msg *msg) const;
    int run_passes(F *a, bool dif, bool inverse_roots, bool coset, cudaStream_t st, cuzk_gpu_msg *msg) const;
    // evaluations on the n-domain -> evaluations on the odd coset
    int to_odd_coset(F *a, cudaStream_t st, cuzk_gpu_msg *msg) const;
    int bitrev_copy(const F *in, F *out, cudaStream_t st, cuzk_gpu_msg *msg) const;
    int scale_by_ninv(F *a, cudaStream_t st, cuzk_gpu_msg *msg) const;
};

// benchmarks' inputs: random elements (below 2^250, so below r) from a
// hash of the index
template <class F> __global__ void fill_random_fr_kernel(F *a, size_t n, uint64_t seed)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    uint64_t x = seed + i * 0x9e3779b97f4a7c15ULL;
    F v;
    for (int k = 0; k < F::N; k++) {
        x ^= x >> 31;
        x *= 0xbf58476d1ce4e5b9ULL;
        x ^= x >> 29;
        v.v[k] = (uint32_t)x;
    }
    v.v[F::N - 1] &= 0x03ffffffu;
    a[i] = v;
}
template <class F> int fill_random_fr(F *a, size_t n, uint64_t seed, cudaStream_t st, cuzk_gpu_msg *msg)
{
    fill_random_fr_kernel<F><<<blocks_for(n, 256), 256, 0, st>>>(a, n, seed);
    GPU_LAUNCHED(msg, "fill_random_fr_kernel");
    return CUZK_OK;
}

} // namespace gpu
