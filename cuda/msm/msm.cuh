// GPU MSMs (definitions in msm_impl.cuh, compiled once in msm.cu for the
// four groups): see msm_impl.cuh for the algorithm.
#pragma once

#include "../ec/xyzz.cuh"
#include "../util/gpu.cuh"

namespace gpu {

// out (device, one XYZZ point) = sum scalar[i_k] base[i_k] over k < n
// (i_k = idx[k], or k without idx); scalars plain 256-bit integers below
// 2^255, 32-byte aligned. c = 0 picks the window size.
template <class F>
int msm_pippenger(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n, unsigned c,
                  xyzz<F> *d_out, cudaStream_t st, cuzk_gpu_msg *msg);

// out (device, one XYZZ point) = sum of base[idx[k]] over k < n.
template <class F>
int msm_sum(const affine<F> *bases, const uint32_t *idx, size_t n, xyzz<F> *d_out, cudaStream_t st,
            cuzk_gpu_msg *msg);

// out = affine(a + b) (b may be NULL), one device thread.
template <class F>
int points_to_affine(const xyzz<F> *a, const xyzz<F> *b, affine<F> *out, cudaStream_t st, cuzk_gpu_msg *msg);

// Sorts count (key, value) pairs by the low key_bits of the key (CUB radix
// sort, cuda/msm/sort.cu); the results are in one of the two buffers.
int sort_pairs(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t count,
               unsigned key_bits, const uint32_t **sorted_keys, const uint32_t **sorted_vals, cudaStream_t st,
               cuzk_gpu_msg *msg);

} // namespace gpu
