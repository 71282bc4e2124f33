// GPU NTTs over Fr (definitions in ntt_impl.cuh, compiled once in ntt.cu
// for both curves): see ntt_impl.cuh for the orderings and the passes.
#pragma once

#include "../field/field.cuh"
#include "../util/gpu.cuh"

namespace gpu {

template <class F> struct ntt_params;
template <> struct ntt_params<bls12_381_fr> {
    static constexpr unsigned TWO_ADICITY = BLS12_381_FR_TWO_ADICITY;
    __host__ __device__ static constexpr uint32_t root(int i)
    {
        constexpr uint64_t v[] = BLS12_381_FR_ROOT_OF_UNITY;
        return (uint32_t)(v[i / 2] >> (32 * (i & 1)));
    }
};
template <> struct ntt_params<bn254_fr> {
    static constexpr unsigned TWO_ADICITY = BN254_FR_TWO_ADICITY;
    __host__ __device__ static constexpr uint32_t root(int i)
    {
        constexpr uint64_t v[] = BN254_FR_ROOT_OF_UNITY;
        return (uint32_t)(v[i / 2] >> (32 * (i & 1)));
    }
};

static constexpr unsigned NTT_MAX_STAGES_PER_PASS = 10;

// Tables for one transform size, resident on the device.
template <class F> struct ntt_domain {
    unsigned log_n = 0, h = 0;
    dev_buf<F> tw, itw, coset_lo, coset_hi, consts; // consts: w, w^-1, inc, 1/n, inc^(2^h)

    int init(unsigned lg, cudaStream_t st, cuzk_gpu_msg *msg);
    // all stages in one direction: dif (natural -> bit-reversed) or dit
    // (bit-reversed -> natural), with the root's powers or its inverse's
    int run(F *a, bool dif, bool inverse_roots, cudaStream_t st, cuzk_gpu_msg *msg) const;
    // evaluations on the n-domain -> evaluations on the odd coset
    int to_odd_coset(F *a, cudaStream_t st, cuzk_gpu_msg *msg) const;
    int bitrev_copy(const F *in, F *out, cudaStream_t st, cuzk_gpu_msg *msg) const;
    int scale_by_ninv(F *a, cudaStream_t st, cuzk_gpu_msg *msg) const;
};

} // namespace gpu
