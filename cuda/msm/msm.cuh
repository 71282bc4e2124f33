// GPU MSMs (definitions in msm_impl.cuh, compiled once in msm.cu for the
// four groups): see msm_impl.cuh for the algorithm.
#pragma once

#include "../ec/xyzz.cuh"
#include "../util/gpu.cuh"

namespace gpu {

// Pippenger over sum scalar[i_k] base[i_k], k < n (i_k = idx[k], or k
// without idx); scalars plain 256-bit integers below 2^255, 32-byte
// aligned. c = 0 picks the window size. Leaves the *nwin window sums in
// d_windows (room for CUZK_GPU_MAX_WINDOWS); the sum is
// sum_w 2^(c w) d_windows[w], which the CPU finishes.
// Knobs, 0 = chosen from the size (the prover passes zeros; tests and
// bench_gpu sweep them): window bits, sorted entries per accumulation
// thread, buckets per reduction segment (a power of two), and the
// accumulation kernel's variant (1..3, msm_impl.cuh; G1 only).
struct msm_tuning {
    unsigned c = 0, slice = 0, seg = 0, accumulate = 0;
};

template <class F>
int msm_pippenger(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n, msm_tuning tune,
                  xyzz<F> *d_windows, unsigned *nwin, unsigned *c_used, cudaStream_t st, cuzk_gpu_msg *msg);

// out (device, one XYZZ point) = sum of base[idx[k]] over k < n.
template <class F>
int msm_sum(const affine<F> *bases, const uint32_t *idx, size_t n, xyzz<F> *d_out, cudaStream_t st,
            cuzk_gpu_msg *msg);


// Sorts count (key, value) pairs by the low key_bits of the key (CUB radix
// sort, cuda/msm/sort.cu); the results are in one of the two buffers.
int sort_pairs(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t count,
               unsigned key_bits, const uint32_t **sorted_keys, const uint32_t **sorted_vals, cudaStream_t st,
               cuzk_gpu_msg *msg);

// The witness split on the device (cuda/msm/sort.cu): from n_vars plain
// 32-byte values, the indices of the 1s and of the other nonzero values
// (ascending), and the same for indices >= first_c, minus first_c (C's
// MSM). Each list has room for n_vars. d_counts (6 words, device): the four
// lengths in that order, then two internal offsets.
int witness_split(const uint32_t *wit, size_t n_vars, uint32_t first_c, uint32_t *ones, uint32_t *tail,
                  uint32_t *ones_c, uint32_t *tail_c, uint32_t *d_counts, cudaStream_t st, cuzk_gpu_msg *msg);

} // namespace gpu
