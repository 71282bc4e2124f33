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
// accumulation kernel's variant (msm_impl.cuh: 1 XYZZ with its registers
// capped, G1 only; 3 XYZZ; 10 and 11 batch-affine, BLS12-381's and
// BN254's forms; the numbers are those the measurements in
// docs/history/benchmarks-log.md name).
//
// Shifted copies (precomputation, for bases that stay resident): with
// copies > 1 the bases array holds copy j of base i, 2^(j c) base_i, at
// bases[j * stride + i] for j < copies (msm_shift_copies makes them), and c
// must be the c they were made for. Window w then reads copy w % copies and
// adds into the buckets of group w / copies: ceil(nwin / copies) sets of
// buckets to reduce instead of nwin, so larger windows (fewer entries) pay.
// The result's window sums are the groups' (c_used = c * copies).
enum : unsigned {
    MSM_VARIANT_XYZZ_CAPPED = 1,
    MSM_VARIANT_XYZZ = 3,
    MSM_VARIANT_AFFINE = 10,        // and every variant above: batch-affine
    MSM_VARIANT_AFFINE_AHEAD2 = 11, // the sum's x looked ahead too (over Fp)
};
inline bool msm_variant_known(unsigned v)
{
    return v == 0 || v == MSM_VARIANT_XYZZ_CAPPED || v == MSM_VARIANT_XYZZ || v == MSM_VARIANT_AFFINE ||
           v == MSM_VARIANT_AFFINE_AHEAD2;
}

struct msm_tuning {
    unsigned c = 0, slice = 0, seg = 0, accumulate = 0;
    unsigned copies = 1;
    size_t stride = 0;
};

// Window size for n scalars: minimizes nwin * n + 4 * groups * 2^(c-1)
// (the bucket reduction costs about two full additions, ~ four mixed ones,
// per bucket; groups = nwin without shifted copies), c in [4, 20] without
// copies (20 caps bucket memory: 13 windows * 2^19 buckets), [4, 24] with
// them (at most 2^23 buckets). A first model: docs/history/benchmarks-log.md
// records the sizes measured.
inline unsigned msm_gpu_window(size_t n, unsigned copies = 1)
{
    unsigned best = 4;
    double best_cost = 1e300;
    for (unsigned c = 4; c <= (copies > 1 ? 24u : 20u); c++) {
        const unsigned nwin = (255 + c) / c, m = copies < nwin ? copies : nwin, groups = (nwin + m - 1) / m;
        if (copies > 1 && ((size_t)groups << (c - 1)) > ((size_t)1 << 23))
            continue;
        double cost = (double)nwin * (double)n + 4.0 * (double)groups * (double)(1u << (c - 1));
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
// below the two timed the same (docs/history/benchmarks-log.md, "The
// engine on the H200", runs C, E and F).
inline unsigned msm_slot_length(size_t count, unsigned given)
{
    if (given)
        return given;
    unsigned slice = 64;
    while (slice < 1024 && ((size_t)slice << 19) < count)
        slice *= 2;
    return slice;
}

// Lanes of the batch-affine accumulation over all blocks: exactly one wave
// on the H200 (132 SMs x 2 blocks x 256 threads x 64 lanes; over Fp2 four
// waves of 1 block x 256 x 32, or two of 2 blocks); a slot is then count /
// MSM_AFFINE_LANES entries, rounded up (at least 16), so the blocks never
// exceed the wave. A constant, not the device's SM count, so that the
// memory plan needs no device. 2^22 lanes (256 blocks, 8 block slots of the
// wave idle) measured 0.5-1.8 % slower at every size and group, e.g.
// BLS12-381 G1 2^26 with copies 285.4 against 282.6 ms; slots of half or
// twice the length 1-3 % slower (docs/history/benchmarks-log.md, "The
// copies in a proof, pipelined lanes, and the buckets' reduction").
constexpr size_t MSM_AFFINE_LANES = (size_t)132 * 2 * 256 * 64;
// Entries (scalars x windows) from which the default accumulates
// batch-affine: BLS12-381 G1 2^22 scalars (2^26 entries) 32.7 against
// 36.5 ms XYZZ, 2^20 (2^24 entries: slots of 16, few lanes busy) 20.8
// against 12.3.
constexpr size_t MSM_AFFINE_MIN_COUNT = (size_t)1 << 26;
// The same over BN254's Fp (8 limbs: cheaper products against the same
// lanes' traffic), with the sum's x looked ahead too (variant 11): XYZZ
// still wins at 2^24 scalars: 50.7 against 56.3 ms without copies, 43.9
// against 44.8 with (H100; docs/history/benchmarks-log.md, "The lane-aligned
// walk as the default").
constexpr size_t MSM_AFFINE_MIN_COUNT_BN254 = (size_t)1 << 28;
// The same over Fp2 (G2), where the products weigh more against the lanes'
// memory traffic: BLS12-381 G2 2^20 scalars (2^24 entries) 44.0 against
// 65.3 ms XYZZ, 2^18 (2^22.3) 35.1 against 31.3
// (docs/history/benchmarks-log.md).
constexpr size_t MSM_AFFINE_MIN_COUNT_G2 = (size_t)1 << 24;

// How msm_pippenger<F> accumulates `count` sorted entries under `tune`:
// the kernel variant (msm_impl.cuh), lanes a thread (batch-affine), entries
// a slot, and the slots (the fix-up's arrays). Default
// (docs/history/benchmarks-log.md, from "The MSMs toward their floor" to
// "The lane masks in shared memory"): batch-affine with 64 lanes over
// BLS12-381's Fp from MSM_AFFINE_MIN_COUNT (variant 10; G1 2^26: 302.0 ms
// against XYZZ's 421.0; 2^24: 92.5 against 115.8), over BN254's from
// MSM_AFFINE_MIN_COUNT_BN254 (variant 11), XYZZ below; over Fp2 from
// MSM_AFFINE_MIN_COUNT_G2 batch-affine with 32 lanes, at one block an SM
// over BLS12-381 (variant 10; 2^24: 372.5 against 715.3 ms; 2 blocks:
// 458.9) and at two over BN254 (variant 11; 2^24: 166.4 against 242.4 ms;
// one block: 177.5). The lane-aligned forward walk 1-2 % faster than the
// same without in every group (BLS12-381 G1 2^26 with copies 263.3 -> 261.4
// ms, G2 2^24 348.7 -> 343.0); over Fp, variant 10's masks in shared
// memory and rolled scans (COMPACT, msm_impl.cuh) 1.0-1.9 % faster (H100).
struct msm_accumulation {
    unsigned variant, lanes, slice;
    size_t slots;
};
template <class F> msm_accumulation msm_accumulation_for(size_t count, msm_tuning tune)
{
    msm_accumulation a;
    a.variant = tune.accumulate;
    if (!a.variant && F::inline_points) // G1
        a.variant = sizeof(F) == 48 ? (count >= MSM_AFFINE_MIN_COUNT ? MSM_VARIANT_AFFINE : MSM_VARIANT_XYZZ_CAPPED)
                                    : (count >= MSM_AFFINE_MIN_COUNT_BN254 ? MSM_VARIANT_AFFINE_AHEAD2 : MSM_VARIANT_XYZZ);
    else if (!a.variant) // G2
        a.variant = count < MSM_AFFINE_MIN_COUNT_G2 ? MSM_VARIANT_XYZZ
                    : sizeof(F) == 96             ? MSM_VARIANT_AFFINE
                                                  : MSM_VARIANT_AFFINE_AHEAD2;
    const bool affine = a.variant >= MSM_VARIANT_AFFINE;
    a.lanes = !affine ? 1 : !F::inline_points ? 32 : 64;
    if (!affine)
        a.slice = msm_slot_length(count, tune.slice);
    else if (tune.slice)
        a.slice = tune.slice;
    else {
        size_t v = (count + MSM_AFFINE_LANES - 1) / MSM_AFFINE_LANES;
        a.slice = v < 16 ? 16 : (unsigned)v;
    }
    a.slots = (count + a.slice - 1) / a.slice;
    return a;
}

// Peak device memory of msm_pippenger<F> over n scalars with the default
// tuning (the memory planner's figure; src/engine): four digit arrays for
// the sort and its scratch, the buckets, and the slot arrays of the
// accumulation and its fix-up, which live at the same time. (The
// batch-affine lanes' local memory is reserved once, at the device's first
// use: msm_reserve_local_memory.) With shifted copies (copies > 1, made
// for window c; 0: the default for n), the buckets are the groups'.
template <class F> size_t msm_pippenger_bytes(size_t n, unsigned copies = 1, unsigned c = 0)
{
    if (n == 0)
        return 0;
    if (!c)
        c = msm_gpu_window(n, copies);
    const unsigned nwin = (255 + c) / c, m = copies < nwin ? copies : nwin, groups = (nwin + m - 1) / m;
    const size_t count = n * nwin;
    const msm_accumulation a = msm_accumulation_for<F>(count, msm_tuning{});
    const size_t threads = a.slots + 1,
                 room = a.variant >= MSM_VARIANT_AFFINE ? a.slots * a.slice : count; // padded: msm_pippenger
    const size_t slots = (threads + threads / 16 + 2) * (2 * sizeof(xyzz<F>) + 5);
    return 16 * room + count + ((size_t)groups << (c - 1)) * sizeof(xyzz<F>) + slots + ((size_t)16 << 20);
}

// The largest local memory (bytes a thread) of F's batch-affine kernels:
// its lanes' sums and prefixes, and what ptxas spills.
template <class F> int msm_affine_local_bytes(size_t *bytes, cuzk_gpu_msg *msg);

// Reserves the local memory of the batch-affine accumulation (a device's
// stack limit: the largest of the four groups' kernels, per ptxas 10,592 B
// a thread for BLS12-381 G2's 32 lanes at two blocks an SM with its spills,
// 9,552 for G1's default 64 lanes; the driver backs it for every thread
// the device holds: 2.14 GiB measured on the H200 for 9,536 B, about 2.4
// for 10,592),
// so that no launch resizes it later (a device-global operation) and the
// memory plan, which starts from the device's free memory, sees it taken.
// Once, at the device's first use.
int msm_reserve_local_memory(cuzk_gpu_msg *msg);

template <class F>
int msm_pippenger(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n, msm_tuning tune,
                  xyzz<F> *d_windows, unsigned *nwin, unsigned *c_used, cudaStream_t st, cuzk_gpu_msg *msg);

// msm_pippenger over at most `chunk` scalars at a time (0: all), the
// window sums added up on the device: the device memory of a chunk. Chunks
// read the bases alone (copy 0), never shifted copies (msm_impl.cuh).
template <class F>
int msm_pippenger_chunked(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n,
                          size_t chunk, msm_tuning tune, xyzz<F> *d_windows, unsigned *nwin, unsigned *c_used,
                          cudaStream_t st, cuzk_gpu_msg *msg);

// Fills copies 1 .. copies - 1 of n bases for msm_tuning's shifted copies:
// pts[j * stride + i] = 2^(j c) pts[i] (pts holds copies * stride points,
// copy 0 given). The caller checks them (cuzk_gpu_key_copy_sums).
template <class F>
int msm_shifted_copies(affine<F> *pts, size_t n, size_t stride, unsigned c, unsigned copies, cudaStream_t st,
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
