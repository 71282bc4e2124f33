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

// Window size for `count` entries: minimizes nwin * (count + 4 * 2^(c-1))
// (the bucket reduction costs about two full additions, ~ four mixed ones,
// per bucket), c in [4, 20]; 20 caps bucket memory (13 windows * 2^19
// buckets). A first model: BENCHMARKS.md records the sizes measured.
inline unsigned msm_gpu_window(size_t count)
{
    unsigned best = 4;
    double best_cost = 1e300;
    for (unsigned c = 4; c <= 20; c++) {
        double nwin = (double)((255 + c) / c);
        double cost = nwin * ((double)count + 4.0 * (double)(1u << (c - 1)));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

// Sorted entries per accumulation thread: about 2^19 threads (8 waves of
// an H200's 132 SMs x 512 threads at the 128-register cap), a power of
// two from 64 to 1024; `given` (a tuning) wins. Slots of 64 at every size
// cost BLS12-381 G1 2^26 847 ms against 741 with slots up to 1024 (more
// fix-up work: 36 vs 6 ms, and a slower accumulation), while at 2^22 and
// below the two timed the same (BENCHMARKS.md, 2026-11-30, runs C, E and F).
inline unsigned msm_slot_length(size_t count, unsigned given)
{
    if (given)
        return given;
    unsigned slice = 64;
    while (slice < 1024 && ((size_t)slice << 19) < count)
        slice *= 2;
    return slice;
}

// Peak device memory of msm_pippenger<F> over n scalars with the default
// tuning (the memory planner's figure; src/engine): four digit arrays for
// the sort and its scratch, the buckets, and the slot arrays of the
// accumulation and its fix-up, which live at the same time.
template <class F> size_t msm_pippenger_bytes(size_t n)
{
    if (n == 0)
        return 0;
    const unsigned c = msm_gpu_window(n), nwin = (255 + c) / c;
    const size_t count = n * nwin, threads = count / msm_slot_length(count, 0) + 1;
    const size_t slots = (threads + threads / 16 + 2) * (2 * sizeof(xyzz<F>) + 5);
    return 17 * count + ((size_t)nwin << (c - 1)) * sizeof(xyzz<F>) + slots + ((size_t)16 << 20);
}

template <class F>
int msm_pippenger(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n, msm_tuning tune,
                  xyzz<F> *d_windows, unsigned *nwin, unsigned *c_used, cudaStream_t st, cuzk_gpu_msg *msg);

// msm_pippenger over at most `chunk` scalars at a time (0: all), the
// window sums added up on the device: the device memory of a chunk.
template <class F>
int msm_pippenger_chunked(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n,
                          size_t chunk, xyzz<F> *d_windows, unsigned *nwin, unsigned *c_used, cudaStream_t st,
                          cuzk_gpu_msg *msg);

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
