// Multi-scalar multiplication on the GPU, one template for G1 and G2 of
// both curves (F = the coordinate field).
//
// Pippenger with signed digits, organised around one sort:
//   digits      each scalar -> nwin signed c-bit digits; entry (key, value)
//               = (window * 2^(c-1) + |digit| - 1, point index | sign << 31);
//               digit 0 gets a sentinel key that sorts last and is skipped
//   sort        CUB radix sort of all entries by key: every bucket's points
//               become one contiguous run
//   accumulate  threads take equal slices of the sorted entries (so a
//               bucket with millions of points costs no more than many
//               small ones), add runs into XYZZ buckets; a run that crosses
//               a slice boundary is finished by a fix-up pass. Over
//               BLS12-381 G1 at large sizes the slices are walked in
//               lockstep with affine sums sharing one inversion a step
//               (batch-affine, msm_accumulate_affine)
//   reduce      per window, segments of buckets by running sums; segments
//               and windows summed by further kernels; the window sums go
//               to the CPU, which finishes with Horner's rule (serial work)
// With shifted copies of the bases (msm_tuning: 2^(j c) P for j < K, a
// resident key's H) window w's entries go to the buckets of group w / K
// with the points of copy w % K: fewer sets of buckets to reduce.
// The batch sum (points whose scalar is 1, found by the CPU's classifier)
// is a strided XYZZ accumulation plus the same tree reduction.
// Public data only (_var): scalars are witness values, which Groth16's
// blinding hides; timing may depend on them.
#pragma once

#include <type_traits>

#include "msm.cuh"

namespace gpu {

// Bits [pos, pos + c) of a 256-bit scalar (8 words), c <= 24.
__device__ __forceinline__ uint32_t scalar_window(const uint32_t *k, unsigned pos, unsigned c)
{
    unsigned w = pos / 32, b = pos % 32;
    uint64_t x = 0;
    if (w < 8)
        x = k[w];
    if (w + 1 < 8)
        x |= (uint64_t)k[w + 1] << 32;
    return (uint32_t)(x >> b) & ((1u << c) - 1);
}

// Entry (w * n + k) of scalar k's window w: its bucket in group w / copies
// and its point in copy w % copies (msm_tuning: shifted copies; copies = 1:
// one group a window, the bases themselves).
static __global__ void msm_digits(const uint32_t *scalars, const uint32_t *idx, size_t n, unsigned c, unsigned nwin,
                                  unsigned copies, size_t stride, uint32_t *keys, uint32_t *vals)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    uint32_t i = idx ? idx[k] : (uint32_t)k;
    uint32_t s[8];
    const uint4 *src = (const uint4 *)(scalars + 8 * (size_t)i);
    uint4 lo = src[0], hi = src[1];
    s[0] = lo.x, s[1] = lo.y, s[2] = lo.z, s[3] = lo.w, s[4] = hi.x, s[5] = hi.y, s[6] = hi.z, s[7] = hi.w;
    const uint32_t half = 1u << (c - 1), sentinel = (nwin + copies - 1) / copies * half;
    uint32_t carry = 0;
    for (unsigned w = 0, g = 0, j = 0; w < nwin; w++) {
        uint32_t d = scalar_window(s, w * c, c) + carry, sign = 0;
        carry = 0;
        if (d > half) { // d - 2^c < 0: negative digit, carry into the next window
            d = (1u << c) - d;
            sign = 1;
            carry = 1;
        }
        size_t o = (size_t)w * n + k;
        keys[o] = d ? g * half + (d - 1) : sentinel;
        vals[o] = (uint32_t)(i + j * stride) | (sign << 31);
        if (++j == copies) {
            j = 0;
            g++;
        }
    }
}

// Shifted copies for msm_tuning: pts[j * stride + i] = 2^(j c) pts[i] for
// 0 < j < copies, i < n (copy 0 is the bases). One thread a base; affine
// through one inversion a copy (a key's upload, once).
template <class F>
__global__ void msm_shift_copies(affine<F> *pts, size_t n, size_t stride, unsigned c, unsigned copies)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    xyzz<F> p = xyzz<F>::from_affine(pts[i]);
    for (unsigned j = 1; j < copies; j++) {
        for (unsigned k = 0; k < c; k++)
            p = p.dbl();
        pts[j * stride + i] = p.to_affine();
    }
}

template <class F>
__device__ __forceinline__ affine<F> msm_load_point(const affine<F> *bases, uint32_t v)
{
    affine<F> p = bases[v & 0x7fffffffu];
    if (v >> 31)
        p.y = p.y.neg(); // infinity stays (0, 0)
    return p;
}

// Thread t takes sorted entries [t * slice, (t + 1) * slice) (a "slot").
// Runs of one key (one bucket) that start and end in the slot are written
// to their bucket. What crosses the slot's edges is left for the fix-up:
//   head  the slot's leading run when it continues one from before
//         (hf & MSM_HEAD), and whether it also runs past the slot's end
//         (hf & MSM_CONT: the slot is the middle of a long run);
//   tail  the slot's last run when it continues past the end (key tk,
//         sentinel when none), which the slot "owns".
enum : uint8_t { MSM_HEAD = 1, MSM_CONT = 2 };

template <class F>
__device__ __forceinline__ void msm_accumulate_body(const affine<F> *bases, const uint32_t *keys,
                                                    const uint32_t *vals, size_t count, unsigned slice,
                                                    uint32_t sentinel, xyzz<F> *buckets, xyzz<F> *hv, uint8_t *hf,
                                                    uint32_t *tk, xyzz<F> *tv)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t start = t * slice;
    if (start >= count)
        return;
    size_t end = start + slice < count ? start + slice : count;
    tk[t] = sentinel;
    hf[t] = 0;
    uint32_t cur = keys[start];
    if (cur == sentinel)
        return;
    bool in_head = start > 0 && keys[start - 1] == cur;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t e = start; e < end; e++) {
        uint32_t k = keys[e];
        if (k != cur) {
            if (in_head) {
                hv[t] = acc;
                hf[t] = MSM_HEAD;
            } else
                buckets[cur] = acc;
            in_head = false;
            acc = xyzz<F>::inf();
            cur = k;
            if (cur == sentinel)
                return;
        }
        acc = acc.add_affine(msm_load_point(bases, vals[e]));
    }
    bool cont = end < count && keys[end] == cur;
    if (in_head) {
        hv[t] = acc;
        hf[t] = cont ? MSM_HEAD | MSM_CONT : MSM_HEAD;
    } else if (cont) {
        tv[t] = acc;
        tk[t] = cur;
    } else
        buckets[cur] = acc;
}

// The XYZZ accumulation (msm_tuning.accumulate; 0 picks:
// msm_accumulation_for, msm.cuh; 10 and 11 are the batch-affine kernel
// below, msm_affine_kernel): 3 blocks of 128, no launch bounds (157
// registers for BLS12-381 G1: 12 warps per SM; __launch_bounds__(128, 1)
// let ptxas take 238 and ran 55 % slower); 1 (G1) capped at 128 registers
// (16 warps). Prefetching the next point during each addition gained
// nothing (docs/history/benchmarks-log.md, "the defaults on the GPU").
template <class F>
__global__ void msm_accumulate(const affine<F> *bases, const uint32_t *keys, const uint32_t *vals, size_t count,
                               unsigned slice, uint32_t sentinel, xyzz<F> *buckets, xyzz<F> *hv, uint8_t *hf,
                               uint32_t *tk, xyzz<F> *tv)
{
    msm_accumulate_body<F>(bases, keys, vals, count, slice, sentinel, buckets, hv, hf, tk, tv);
}
template <class F>
__global__ void __launch_bounds__(128, 4)
    msm_accumulate_capped(const affine<F> *bases, const uint32_t *keys, const uint32_t *vals, size_t count,
                          unsigned slice, uint32_t sentinel, xyzz<F> *buckets, xyzz<F> *hv, uint8_t *hf, uint32_t *tk,
                          xyzz<F> *tv)
{
    msm_accumulate_body<F>(bases, keys, vals, count, slice, sentinel, buckets, hv, hf, tk, tv);
}

// Batch-affine accumulation (variants 10 and 11; docs/gpu.md "Batch-affine
// accumulation", the model in scripts/models/batch_affine.py). The sorted
// entries are cut into slots of V (the fix-up's slots, as above); lane j of
// thread t walks slot j nt + t (nt threads in the grid), all lanes of a
// block one entry a step in lockstep. A lane's running sum is affine, so
// adding the next point of its run needs 1 / (x_P - x_sum): a step's
// denominators are independent, and
// the block inverts them all with one inversion (Montgomery's trick): each
// thread multiplies its lanes' denominators (keeping the prefixes), the
// block scans the threads' products both ways (warp shuffles, then the
// warps' products in shared memory), one thread inverts the block's total,
// and each thread walks its lanes back: 5 products and a square an
// addition plus the shared part, against XYZZ's 8 and 2. A run's first
// point is a copy; equal x is a doubling (3x^2 / 2y) or a cancellation
// (the sum becomes infinity); infinity points are skipped. The lanes'
// state (sum and prefix) is in local memory, indexed by lane. Measured
// (BLS12-381 G1 2^26, docs/history/benchmarks-log.md, "The MSMs toward
// their floor" and after): the block waiting on its one
// inverting thread decided the first version (Fermat's inversion: 595.5 ms
// at 32 lanes, 815.6 at 16); the binary inversion (fp::inv_var) made it
// 390.0, 64 lanes 363.9, reading only x where x decides 348.2, the
// entries step-major 332.5 (XYZZ: 421.0), staged with the point's x
// looked ahead 302.7 (below).

// Warp shuffles of a field element, word by word (Fp2: both halves).
template <class F> __device__ __forceinline__ F shfl_up_field(const F &a, unsigned d)
{
    F r;
#pragma unroll
    for (int i = 0; i < F::N; i++)
        r.v[i] = __shfl_up_sync(0xffffffffu, a.v[i], d);
    return r;
}
template <class F> __device__ __forceinline__ F shfl_down_field(const F &a, unsigned d)
{
    F r;
#pragma unroll
    for (int i = 0; i < F::N; i++)
        r.v[i] = __shfl_down_sync(0xffffffffu, a.v[i], d);
    return r;
}
template <class F> __device__ __forceinline__ fp2<F> shfl_up_field(const fp2<F> &a, unsigned d)
{
    return {shfl_up_field(a.c0, d), shfl_up_field(a.c1, d)};
}
template <class F> __device__ __forceinline__ fp2<F> shfl_down_field(const fp2<F> &a, unsigned d)
{
    return {shfl_down_field(a.c0, d), shfl_down_field(a.c1, d)};
}

// One step of the block's scans (msm_accumulate_affine): the products of
// this warp's lanes up to (up) and from (down) this one, o lanes further.
template <class F> __device__ __forceinline__ void msm_scan_step(F &up, F &down, unsigned o, unsigned lane_id)
{
    const F a = shfl_up_field(up, o), b = shfl_down_field(down, o);
    if (lane_id >= o)
        up = a * up;
    if (lane_id + o < 32)
        down = down * b;
}

// A lane's sum as a bucket: infinity when `empty` (the lane's mask bit;
// the coordinates are then stale).
template <class F> __device__ __forceinline__ xyzz<F> msm_affine_sum(const affine<F> &a, bool empty)
{
    return empty ? xyzz<F>::inf() : xyzz<F>{a.x, a.y, F::one(), F::one()};
}

// Ends lane's run `key` with the sum a: its bucket, or the slot's head.
template <class F>
__device__ __forceinline__ void msm_affine_run_end(const affine<F> &a, bool empty, uint32_t key, bool head,
                                                   size_t slot, xyzz<F> *buckets, xyzz<F> *hv, uint8_t *hf,
                                                   uint8_t flags)
{
    if (head) {
        hv[slot] = msm_affine_sum(a, empty);
        hf[slot] = flags;
    } else
        buckets[key] = msm_affine_sum(a, empty);
}

// The sorted entries step-major for the batch-affine lanes: entry i of slot
// s (sorted index s V + i) at i S + s, so that the 32 threads of a warp,
// walking slots s .. s + 31 at step i, read 128 contiguous bytes where
// the sorted order made each thread read a sector of its own (32 B for 4:
// keys, values and the values again made 192 of the ~820 bytes an
// addition moved from DRAM, ncu, 2^24 BLS12-381 G1). Entries
// past count (the last slot's padding) get the sentinel key. Tiles of 32
// slots x 32 steps through shared memory: both sides coalesced.
static __global__ void msm_entries_step_major(const uint32_t *keys, const uint32_t *vals, size_t count,
                                              unsigned V, size_t S, uint32_t sentinel, uint32_t *t_keys,
                                              uint32_t *t_vals)
{
    __shared__ uint32_t tk_[32][33], tv_[32][33];
    const size_t s0 = (size_t)blockIdx.x * 32;
    const unsigned i0 = blockIdx.y * 32;
    for (unsigned r = threadIdx.y; r < 32; r += blockDim.y) { // r: slot s0 + r, step i0 + threadIdx.x
        const size_t s = s0 + r, e = s * V + i0 + threadIdx.x;
        const bool in = s < S && i0 + threadIdx.x < V && e < count;
        tk_[r][threadIdx.x] = in ? keys[e] : sentinel;
        tv_[r][threadIdx.x] = in ? vals[e] : 0;
    }
    __syncthreads();
    for (unsigned r = threadIdx.y; r < 32; r += blockDim.y) { // r: step i0 + r, slot s0 + threadIdx.x
        const size_t s = s0 + threadIdx.x;
        if (s < S && i0 + r < V) {
            t_keys[(size_t)(i0 + r) * S + s] = tk_[threadIdx.x][r];
            t_vals[(size_t)(i0 + r) * S + s] = tv_[threadIdx.x][r];
        }
    }
}

// Lane j of thread t (of nt in the grid) walks slot j nt + t: a warp's
// threads take adjacent slots, for the step-major reads above. A step
// starts by staging its entries: every lane's key and value loaded with
// the loads batched (8 lanes unrolled), the values kept in shared memory
// (L x T words, dynamic: set at the launch), the runs that end handled
// there; the walks then read a value from shared memory, one round trip
// from the point instead of two. AHEAD: what the forward walk loads one
// lane ahead, while this lane's product runs: 1 the point's x, 2 also the
// sum's x (0 nothing). The forward walk visits lane j at iteration j,
// skipping the lanes that rest, so that a warp's threads read one lane's
// state together (local memory interleaves the threads word by word:
// threads at different lanes read different lines). Measured
// (docs/history/benchmarks-log.md, "Staged entries"): BLS12-381 G1 2^26
// with copies 281.5 -> 265.5 ms with AHEAD 1, staging alone 0.99-1.01x;
// BN254 G1 best with 2; over Fp2 staging alone (the look-ahead's
// registers cost more there). The lane-aligned walk ("The fix-up's first
// level ..."): BLS12-381 G1 2^26 263.3 -> 261.4 ms, BN254 G1 2^26 143.1
// -> 140.8, BLS12-381 G2 2^24 348.7 -> 343.0 (one block an SM), BN254 G2
// 157.2 -> 154.8 (two); loading the walk back's next point ahead lost
// everywhere (BLS12-381 G1 2^24 74.5 -> 80.9 ms), and so did asking L2
// ahead for the next lane's state and point (bulk prefetches: 6-16 %
// slower). COMPACT: the walk back's lane masks kept in shared memory and
// read there at every lane (ptxas spilled them, and their reloads missed
// L1: 4.2 % of BLS12-381's stall samples), the scans a rolled loop (one
// copy of their products: I-cache stalls were 6.2 %; ncu); BLS12-381 G1
// 2^24 77.2 -> 76.0 ms, 2^27 568.6 -> 561.9, BN254 G1 2^26 unchanged
// (H100; "The lane masks in shared memory and the scans rolled").
template <class F, unsigned T, unsigned L, unsigned BLOCKS, unsigned AHEAD, bool COMPACT = false>
__global__ void __launch_bounds__(T, BLOCKS)
    msm_accumulate_affine(const affine<F> *bases, const uint32_t *keys, const uint32_t *t_keys,
                          const uint32_t *t_vals, size_t count, unsigned V, size_t S, uint32_t sentinel,
                          xyzz<F> *buckets, xyzz<F> *hv, uint8_t *hf, uint32_t *tk, xyzz<F> *tv)
{
    static_assert(T % 32 == 0 && T <= 1024 && L <= 64 && AHEAD <= 2, "block, lanes and look-ahead");
    typedef typename std::conditional<(L > 32), uint64_t, uint32_t>::type lane_mask;
    constexpr unsigned W = T / 32;
    __shared__ F warp_prod[W], warp_inv[W];
    __shared__ lane_mask den_s[COMPACT ? T : 1], dbl_s[COMPACT ? T : 1]; // COMPACT's masks
    extern __shared__ uint32_t staged[]; // the step's values, lane j of this thread at j T + threadIdx.x
    const unsigned lane_id = threadIdx.x % 32, warp = threadIdx.x / 32;
    const size_t t = (size_t)blockIdx.x * T + threadIdx.x, nt = (size_t)gridDim.x * T;
    affine<F> sum[L]; // the lanes' state, in local memory
    F pre[L];
    uint32_t cur[L];
    lane_mask active = 0, head = 0, empty = ~(lane_mask)0; // empty: the lane's sum is infinity
#pragma unroll 1
    for (unsigned j = 0; j < L; j++) {
        const size_t s = j * nt + t, start = s * V;
        cur[j] = sentinel;
        if (start >= count)
            continue;
        tk[s] = sentinel;
        hf[s] = 0;
        cur[j] = keys[start];
        if (cur[j] == sentinel)
            continue;
        active |= (lane_mask)1 << j;
        if (start > 0 && keys[start - 1] == cur[j])
            head |= (lane_mask)1 << j;
    }
    // every thread of the block takes every step (barriers and shuffles),
    // lanes past the entries' end or past their last run idle
#pragma unroll 1
    for (unsigned i = 0; i < V; i++) {
        // stage the step: the keys and values of every lane (past the slots:
        // the last slot's entry, never used), batched
        lane_mask moved = 0;
#pragma unroll 8
        for (unsigned j = 0; j < L; j++) {
            const size_t s = j * nt + t, e = (size_t)i * S + (s < S ? s : S - 1);
            const uint32_t k = t_keys[e];
            staged[j * T + threadIdx.x] = t_vals[e];
            if (k != cur[j])
                moved |= (lane_mask)1 << j;
        }
        moved &= active;
        // the runs that end here (past count: the sentinel ends the run)
#pragma unroll 1
        for (lane_mask m = moved; m; m &= m - 1) {
            const unsigned j = (unsigned)(__ffsll((long long)m) - 1);
            const size_t s = j * nt + t;
            const uint32_t k = t_keys[(size_t)i * S + s];
            msm_affine_run_end(sum[j], (empty >> j) & 1, cur[j], (head >> j) & 1, s, buckets, hv, hf, MSM_HEAD);
            head &= ~((lane_mask)1 << j);
            cur[j] = k;
            if (k == sentinel) {
                active &= ~((lane_mask)1 << j);
                continue;
            }
            const affine<F> p = msm_load_point(bases, staged[j * T + threadIdx.x]); // a copy
            if (p.is_inf())
                empty |= (lane_mask)1 << j;
            else {
                sum[j] = p;
                empty &= ~((lane_mask)1 << j);
            }
        }
        // the forward walk over the lanes whose run goes on, in order
        lane_mask go = active & ~moved, den = 0, dbl = 0;
        F run = F::one(), px_next, ax_next;
        if (AHEAD && go) {
            const unsigned jn = (unsigned)(__ffsll((long long)go) - 1);
            px_next = bases[staged[jn * T + threadIdx.x] & 0x7fffffffu].x;
            if (AHEAD == 2)
                ax_next = sum[jn].x;
        }
#pragma unroll 1
        for (unsigned j = 0; j < L; j++) {
            if (!((go >> j) & 1))
                continue;
            go &= ~((lane_mask)1 << j); // the lanes after j
            const uint32_t v = staged[j * T + threadIdx.x];
            // x alone where it decides (the lanes' state is memory traffic):
            // y of the point for infinity (x = 0) and equal x only
            F px, ax;
            if (AHEAD) {
                px = px_next;
                if (AHEAD == 2)
                    ax = ax_next;
                if (go) {
                    const unsigned jn = (unsigned)(__ffsll((long long)go) - 1);
                    px_next = bases[staged[jn * T + threadIdx.x] & 0x7fffffffu].x;
                    if (AHEAD == 2)
                        ax_next = sum[jn].x;
                }
            } else
                px = bases[v & 0x7fffffffu].x;
            if (px.is_zero() && msm_load_point(bases, v).is_inf())
                continue;
            if ((empty >> j) & 1) {
                sum[j] = msm_load_point(bases, v);
                empty &= ~((lane_mask)1 << j);
                continue;
            }
            if (AHEAD < 2)
                ax = sum[j].x;
            F d;
            if (ax == px) {
                const F ay = sum[j].y, py = msm_load_point(bases, v).y;
                if (!(ay == py) || ay.is_zero()) { // p = -sum (or a point of order 2)
                    empty |= (lane_mask)1 << j;
                    continue;
                }
                d = ay.dbl();
                dbl |= (lane_mask)1 << j;
            } else
                d = px - ax;
            pre[j] = run;
            run = run * d;
            den |= (lane_mask)1 << j;
        }
        // the inverse of this thread's product `run`: scans of the block's
        // products from both sides, one inversion of the total
        F up = run, down = run;
        if (COMPACT) {
            den_s[COMPACT ? threadIdx.x : 0] = den;
            dbl_s[COMPACT ? threadIdx.x : 0] = dbl;
#pragma unroll 1
            for (unsigned o = 1; o < 32; o *= 2)
                msm_scan_step(up, down, o, lane_id);
        } else {
#pragma unroll
            for (unsigned o = 1; o < 32; o *= 2)
                msm_scan_step(up, down, o, lane_id);
        }
        F before = shfl_up_field(up, 1), after = shfl_down_field(down, 1);
        if (lane_id == 0)
            before = F::one();
        if (lane_id == 31) {
            after = F::one();
            warp_prod[warp] = up;
        }
        __syncthreads();
        if (threadIdx.x == 0) {
            F acc = F::one();
            for (unsigned w = 0; w < W; w++) {
                warp_inv[w] = acc;
                acc = acc * warp_prod[w];
            }
            F inv = acc == F::one() ? acc : acc.inv_var();
            for (unsigned w = W; w-- > 0;) {
                const F f = inv * warp_inv[w];
                inv = inv * warp_prod[w];
                warp_inv[w] = f;
            }
        }
        __syncthreads();
        F inv = den ? warp_inv[warp] * before * after : F::one();
        // the lanes walked back: each takes its inverse off the running one
#pragma unroll 1
        for (unsigned j = L; j-- > 0;) {
            // volatile: read where used, so that no register holds the mask
            const lane_mask den_j = COMPACT ? *(volatile lane_mask *)&den_s[COMPACT ? threadIdx.x : 0] : den;
            if (!((den_j >> j) & 1))
                continue;
            const lane_mask dbl_j = COMPACT ? *(volatile lane_mask *)&dbl_s[COMPACT ? threadIdx.x : 0] : dbl;
            const affine<F> a = sum[j];
            const affine<F> p = msm_load_point(bases, staged[j * T + threadIdx.x]);
            F d, num;
            if ((dbl_j >> j) & 1) {
                d = a.y.dbl();
                const F x2 = a.x.sqr();
                num = x2.dbl() + x2;
            } else {
                d = p.x - a.x;
                num = p.y - a.y;
            }
            const F inv_d = inv * pre[j];
            inv = inv * d;
            const F lambda = num * inv_d;
            affine<F> r;
            r.x = lambda.sqr() - a.x - p.x;
            r.y = lambda * (a.x - r.x) - a.y;
            sum[j] = r;
        }
    }
    // the slots' ends, as msm_accumulate_body's
#pragma unroll 1
    for (unsigned j = 0; j < L; j++) {
        if (!((active >> j) & 1))
            continue;
        const size_t s = j * nt + t, end = s * V + V < count ? s * V + V : count;
        const bool cont = end < count && keys[end] == cur[j];
        if ((head >> j) & 1)
            msm_affine_run_end(sum[j], (empty >> j) & 1, cur[j], true, s, buckets, hv, hf,
                               cont ? MSM_HEAD | MSM_CONT : MSM_HEAD);
        else if (cont) {
            tv[s] = msm_affine_sum(sum[j], (empty >> j) & 1);
            tk[s] = cur[j];
        } else
            buckets[cur[j]] = msm_affine_sum(sum[j], (empty >> j) & 1);
    }
}

// The batch-affine kernel of `variant` (10 or 11) over F and its block
// size (its lanes: msm_accumulation_for): the one list of the instantiated
// kernels, for the launch and for the local memory reserved
// (msm_affine_local_bytes), so that no variant can run without its
// reservation. Over Fp2 256 threads x 32 lanes, no look-ahead, at 1 block
// an SM (10: BLS12-381's) or 2 (11: BN254's). Over Fp 256 threads x 64
// lanes at 2 blocks an SM, the point's x looked ahead: 10 (BLS12-381's)
// also COMPACT, 11 (BN254's) with the sum's x looked ahead too. The other
// variants measured (lanes, blocks, look-ahead, a walk not lane-aligned)
// lost and are gone: docs/history/benchmarks-log.md.
template <class F>
using msm_affine_fn = void (*)(const affine<F> *, const uint32_t *, const uint32_t *, const uint32_t *, size_t,
                               unsigned, size_t, uint32_t, xyzz<F> *, xyzz<F> *, uint8_t *, uint32_t *, xyzz<F> *);
template <class F> msm_affine_fn<F> msm_affine_kernel(unsigned variant, unsigned *block)
{
    *block = 256;
    if constexpr (!F::inline_points)
        return variant == 11 ? msm_accumulate_affine<F, 256, 32, 2, 0> : msm_accumulate_affine<F, 256, 32, 1, 0>;
    else
        return variant == 11 ? msm_accumulate_affine<F, 256, 64, 2, 2> : msm_accumulate_affine<F, 256, 64, 2, 1, true>;
}

// One level of the fix-up tree: thread c walks slots [c Q, c Q + Q) in
// order, adding each head into the run open at that point; a run opened by
// a tail and ended by a later head inside the chunk is complete (its bucket
// is written); what crosses the chunk's edges becomes the chunk's own head
// and tail, for the next level. Levels repeat until one chunk remains, so a
// bucket spread over m slots costs about Q log_Q(m) sequential additions
// (one thread walking m heads took 0.38 s at m = 14,700:
// docs/history/benchmarks-log.md).
// AFFINE_IN: the level's heads are affine sums (ZZ = 1 or infinity: the
// batch-affine kernels' slots), added with the mixed formulas (8
// products and 2 squares against 12 and 2) from their x and y alone.
template <class F, bool AFFINE_IN>
__global__ void msm_fixup_level(size_t m, unsigned Q, uint32_t sentinel, const xyzz<F> *hv, const uint8_t *hf,
                                const uint32_t *tk, const xyzz<F> *tv, xyzz<F> *o_hv, uint8_t *o_hf,
                                uint32_t *o_tk, xyzz<F> *o_tv, xyzz<F> *buckets)
{
    size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t lo = c * Q;
    if (lo >= m)
        return;
    size_t hi = lo + Q < m ? lo + Q : m;
    xyzz<F> acc = xyzz<F>::inf();
    bool open = false, leading = false;
    uint32_t key = sentinel;
    uint8_t out_f = 0;
    for (size_t u = lo; u < hi; u++) {
        uint8_t f = hf[u];
        if (f & MSM_HEAD) {
            if (u == lo)
                open = leading = true; // continues a run from before the chunk
            if constexpr (AFFINE_IN)
                acc = acc.add_affine(affine<F>{hv[u].X, hv[u].Y});
            else
                acc = acc.add_inline(hv[u]);
            if (!(f & MSM_CONT)) { // the run ends inside slot u
                if (leading) {
                    o_hv[c] = acc;
                    out_f = MSM_HEAD;
                } else
                    buckets[key] = acc;
                open = leading = false;
                acc = xyzz<F>::inf();
            }
        }
        uint32_t k = tk[u];
        if (k != sentinel) {
            open = true;
            leading = false;
            key = k;
            acc = tv[u];
        }
    }
    o_tk[c] = sentinel;
    if (open && leading) {
        o_hv[c] = acc;
        out_f = MSM_HEAD | MSM_CONT;
    } else if (open) {
        o_tk[c] = key;
        o_tv[c] = acc;
    }
    o_hf[c] = out_f;
}

// The buckets' reduction: group g's buckets B_0 .. B_{nb-1} (B_i holds
// digit i + 1) sum to f(B) = sum (i + 1) B_i. Cut into segments of seg,
// f(B) = sum_s A_s + seg (f(U) - T), where A_s is segment s's own f (a
// running sum: two additions a bucket), U_s its plain sum and T = sum U_s.
// The segments' U, seg times fewer, are reduced by segments of 16 that
// multiply their offset in (msm_segment_sums_fold), each result folded
// into one A; the A are then summed. (A double-and-add of each segment's
// offset at the buckets' level cost more than the segment's additions at
// short segments: 2^23 buckets took 45 ms in segments of 16 and 15 in
// segments of 256, of which ~13 the additions; docs/history/benchmarks-log.md.)
// p[0 .. len): *acc = sum (i + 1) p[i] by running sums, *run = sum p[i].
template <class F>
__device__ __forceinline__ void segment_running_sums(const xyzz<F> *p, unsigned len, xyzz<F> *acc, xyzz<F> *run)
{
    xyzz<F> r = xyzz<F>::inf(), a = xyzz<F>::inf();
    for (unsigned i = len; i-- > 0;) {
        r = r.add(p[i]);
        a = a.add(r);
    }
    *acc = a;
    *run = r;
}

// Level one: thread t = g * (nb / seg) + s takes segment s of group g.
template <class F>
__global__ void msm_bucket_segments(const xyzz<F> *buckets, unsigned nb, unsigned groups, unsigned seg,
                                    xyzz<F> *own, xyzz<F> *sum)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, nseg = nb / seg;
    if (t >= groups * nseg)
        return;
    const xyzz<F> *b = buckets + (t / nseg) * nb + (t % nseg) * seg;
    xyzz<F> acc;
    segment_running_sums(b, seg, &acc, &sum[t]);
    own[t] = acc;
}

// Level two: thread t = g * (m / seg2) + s takes U[lo, lo + seg2) of
// group g (m = nb / seg of them, lo = s seg2): its share of f(U) - T,
// acc + (lo - 1) run, times seg (lg_seg doublings), added into A_s.
template <class F>
__global__ void msm_segment_sums_fold(const xyzz<F> *sum, unsigned m, unsigned groups, unsigned seg2,
                                      unsigned lg_seg, xyzz<F> *own)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, per = m / seg2;
    if (t >= groups * per)
        return;
    const size_t g = t / per, lo = (t % per) * seg2;
    const xyzz<F> *u = sum + g * m + lo;
    xyzz<F> acc, run;
    segment_running_sums(u, seg2, &acc, &run);
    xyzz<F> v = acc.add(lo ? run.mul_small((uint32_t)lo - 1) : run.neg());
    for (unsigned k = 0; k < lg_seg; k++)
        v = v.dbl();
    xyzz<F> *a = own + g * m + (t % per);
    *a = a->add(v);
}

// out[j] = sum of in[j * group .. min((j + 1) * group, m))
template <class F> __global__ void point_sum_groups(const xyzz<F> *in, size_t m, unsigned group, xyzz<F> *out)
{
    size_t j = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t lo = j * group;
    if (lo >= m)
        return;
    size_t hi = lo + group < m ? lo + group : m;
    xyzz<F> acc = in[lo];
    for (size_t i = lo + 1; i < hi; i++)
        acc = acc.add(in[i]);
    out[j] = acc;
}

// Strided batch sum of the points idx[k] (idx NULL: all of [0, n)).
template <class F>
__global__ void msm_sum_points(const affine<F> *bases, const uint32_t *idx, size_t n, xyzz<F> *partial)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    xyzz<F> acc = xyzz<F>::inf();
    for (size_t k = t; k < n; k += stride)
        acc = acc.add_affine(bases[idx ? idx[k] : k]);
    partial[t] = acc;
}

// out (device, one XYZZ point) = sum scalar[i_k] base[i_k] over k < n.
// Scalars are plain 256-bit integers below 2^255, 32-byte aligned.
template <class F>
int msm_pippenger(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n, msm_tuning tune,
                  xyzz<F> *d_windows, unsigned *nwin_out, unsigned *c_used, cudaStream_t st, cuzk_gpu_msg *msg)
{
    unsigned c = tune.c;
    *nwin_out = 0;
    *c_used = 0;
    if (n == 0)
        return CUZK_OK;
    if (tune.copies > 1 && c == 0)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM over shifted copies: the copies' window size is needed");
    if (c == 0)
        c = msm_gpu_window(n);
    if (c < 4 || c > 24)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM window size must be between 4 and 24 bits");
    if (!msm_variant_known(tune.accumulate))
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT,
                        "MSM accumulation variant must be 0 (the default), 1, 3, 10 or 11");
    const unsigned nwin = (255 + c) / c, nb = 1u << (c - 1);
    static_assert((255 + 4) / 4 <= CUZK_GPU_MAX_WINDOWS, "window count");
    // shifted copies past the window count are not read
    const unsigned copies = tune.copies < 1 ? 1 : tune.copies < nwin ? tune.copies : nwin;
    const unsigned groups = (nwin + copies - 1) / copies;
    if (copies > 1 &&
        (tune.stride == 0 || (!idx && tune.stride < n) || (uint64_t)copies * tune.stride > ((uint64_t)1 << 31)))
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT,
                        "MSM over shifted copies: stride below n, or copies past 2^31 points");
    const uint32_t sentinel = groups * nb;
    const size_t count = n * nwin;
    if (count > (size_t)INT32_MAX)
        return fail_msg(msg, CUZK_ERR_UNSUPPORTED, "MSM too large for one sort (more than 2^31 digits)");
    unsigned key_bits = 1;
    while (key_bits < 32 && ((uint64_t)1 << key_bits) <= sentinel)
        key_bits++;

    char label[64];
    snprintf(label, sizeof(label), "msm n=%zu c=%u windows=%u copies=%u", n, c, nwin, copies);
    step_profile prof(label, st);
    // the variant: msm_accumulation_for (msm.cuh) says which and why
    const msm_accumulation plan = msm_accumulation_for<F>(count, tune);
    const unsigned variant = plan.variant, lanes = plan.lanes, slice = plan.slice;
    const size_t threads = plan.slots;
    if (variant >= MSM_VARIANT_AFFINE && (slice + 31) / 32 > 65535)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM slot length must be at most 2,097,120 entries");
    // batch-affine: the sort's spare pair of arrays takes the entries
    // step-major, padded to whole slots
    const size_t room = variant >= MSM_VARIANT_AFFINE ? threads * slice : count;
    dev_buf<uint32_t> keys, vals, keys2, vals2;
    GPU_RC(keys.alloc(room, st, msg));
    GPU_RC(vals.alloc(room, st, msg));
    GPU_RC(keys2.alloc(room, st, msg));
    GPU_RC(vals2.alloc(room, st, msg));
    msm_digits<<<blocks_for(n, 256), 256, 0, st>>>(scalars, idx, n, c, nwin, copies, tune.stride, keys.p, vals.p);
    GPU_LAUNCHED(msg, "msm_digits");
    prof.mark("digits");

    const uint32_t *sorted_keys, *sorted_vals;
    GPU_RC(sort_pairs(keys.p, keys2.p, vals.p, vals2.p, count, key_bits, &sorted_keys, &sorted_vals, st, msg));
    prof.mark("sort");

    const unsigned Q = 16; // fix-up chunk: 16 slots per thread and level
    dev_buf<xyzz<F>> buckets, hv, tv, hv2, tv2;
    dev_buf<uint32_t> tk, tk2;
    dev_buf<uint8_t> hf, hf2;
    const size_t threads2 = (threads + Q - 1) / Q;
    GPU_RC(buckets.alloc((size_t)groups * nb, st, msg));
    GPU_RC(hv.alloc(threads, st, msg));
    GPU_RC(tv.alloc(threads, st, msg));
    GPU_RC(tk.alloc(threads, st, msg));
    GPU_RC(hf.alloc(threads, st, msg));
    GPU_RC(hv2.alloc(threads2, st, msg));
    GPU_RC(tv2.alloc(threads2, st, msg));
    GPU_RC(tk2.alloc(threads2, st, msg));
    GPU_RC(hf2.alloc(threads2, st, msg));
    GPU_TRY(msg, cudaMemsetAsync(buckets.p, 0, (size_t)groups * nb * sizeof(xyzz<F>), st));
    bool launched = false;
    const size_t lane_threads = (threads + lanes - 1) / lanes;
    uint32_t *t_keys = nullptr, *t_vals = nullptr;
    if (variant >= MSM_VARIANT_AFFINE) {
        t_keys = sorted_keys == keys.p ? keys2.p : keys.p;
        t_vals = sorted_vals == vals.p ? vals2.p : vals.p;
        msm_entries_step_major<<<dim3((unsigned)((threads + 31) / 32), (slice + 31) / 32), dim3(32, 8), 0, st>>>(
            sorted_keys, sorted_vals, count, slice, threads, sentinel, t_keys, t_vals);
        GPU_LAUNCHED(msg, "msm_entries_step_major");
        prof.mark("step-major");
    }
    if (variant >= MSM_VARIANT_AFFINE) {
        unsigned block;
        msm_affine_fn<F> kernel = msm_affine_kernel<F>(variant, &block);
        // the staged values, lanes x block words (64 KB a block at most): a
        // function's attribute, not a device-wide call
        const unsigned smem = lanes * block * (unsigned)sizeof(uint32_t);
        GPU_TRY(msg, cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        kernel<<<blocks_for(lane_threads, block), block, smem, st>>>(bases, sorted_keys, t_keys, t_vals, count, slice,
                                                                   threads, sentinel, buckets.p, hv.p, hf.p, tk.p,
                                                                   tv.p);
        launched = true;
    } else if constexpr (F::inline_points) { // XYZZ capped: G1 only
        if (variant == 1) {
            msm_accumulate_capped<F><<<blocks_for(threads, 128), 128, 0, st>>>(
                bases, sorted_keys, sorted_vals, count, slice, sentinel, buckets.p, hv.p, hf.p, tk.p, tv.p);
            launched = true;
        }
    }
    if (!launched)
        msm_accumulate<F><<<blocks_for(threads, 128), 128, 0, st>>>(
            bases, sorted_keys, sorted_vals, count, slice, sentinel, buckets.p, hv.p, hf.p, tk.p, tv.p);
    GPU_LAUNCHED(msg, "msm_accumulate");
    prof.mark("accumulate");
    // fix-up levels, ping-ponging between the two slot arrays
    xyzz<F> *cur_hv = hv.p, *cur_tv = tv.p, *nxt_hv = hv2.p, *nxt_tv = tv2.p;
    uint32_t *cur_tk = tk.p, *nxt_tk = tk2.p;
    uint8_t *cur_hf = hf.p, *nxt_hf = hf2.p;
    for (size_t m = threads; m > 1;) {
        size_t chunks = (m + Q - 1) / Q;
        // the first level's heads are the batch-affine kernel's affine sums
        auto level =
            m == threads && variant >= MSM_VARIANT_AFFINE ? msm_fixup_level<F, true> : msm_fixup_level<F, false>;
        level<<<blocks_for(chunks, 64), 64, 0, st>>>(m, Q, sentinel, cur_hv, cur_hf, cur_tk, cur_tv, nxt_hv, nxt_hf,
                                                    nxt_tk, nxt_tv, buckets.p);
        GPU_LAUNCHED(msg, "msm_fixup_level");
        std::swap(cur_hv, nxt_hv);
        std::swap(cur_tv, nxt_tv);
        std::swap(cur_tk, nxt_tk);
        std::swap(cur_hf, nxt_hf);
        m = chunks;
    }
    prof.mark("fixup");
    hv.release();
    tv.release();
    tk.release();
    hf.release();
    hv2.release();
    tv2.release();
    tk2.release();
    hf2.release();
    keys.release();
    vals.release();
    keys2.release();
    vals2.release();

    // segments of 64 buckets, shorter where that leaves fewer than 32,768
    // threads (at least 8): the segments' running sums are chains of
    // dependent additions, so a few threads of long chains leave the GPU
    // idle (2^16 scalars: 3.7 ms in segments of 16, 5.1 in 64;
    // docs/history/benchmarks-log.md)
    unsigned seg = tune.seg;
    if (!seg)
        for (seg = 64; seg > 8 && (size_t)groups * nb / seg < 32768;)
            seg /= 2;
    if (seg > nb)
        seg = nb;
    if (seg == 0 || (seg & (seg - 1)))
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM bucket segment must be a power of two");
    const unsigned nseg = nb / seg, seg2 = nseg < 16 ? nseg : 16;
    dev_buf<xyzz<F>> segs, segs2;
    GPU_RC(segs.alloc((size_t)groups * nseg, st, msg));
    GPU_RC(segs2.alloc((size_t)groups * nseg, st, msg));
    msm_bucket_segments<F><<<blocks_for((size_t)groups * nseg, 64), 64, 0, st>>>(buckets.p, nb, groups, seg, segs.p,
                                                                                 segs2.p);
    GPU_LAUNCHED(msg, "msm_bucket_segments");
    prof.mark("segments");
    if (nseg > 1) { // one segment a group: f(U) - T = 0
        msm_segment_sums_fold<F><<<blocks_for((size_t)groups * (nseg / seg2), 64), 64, 0, st>>>(
            segs2.p, nseg, groups, seg2, __builtin_ctz(seg), segs.p);
        GPU_LAUNCHED(msg, "msm_segment_sums_fold");
    }
    // per group: the sum of its nseg A (a power of two), in groups of up to
    // 4 (short chains of dependent additions: these kernels are latency,
    // not throughput); groups never straddle two groups of buckets
    xyzz<F> *in = segs.p, *out = segs2.p;
    for (size_t per = nseg; per > 1;) {
        unsigned g = per < 4 ? (unsigned)per : 4;
        size_t out_n = (size_t)groups * (per / g);
        point_sum_groups<F><<<blocks_for(out_n, 64), 64, 0, st>>>(in, (size_t)groups * per, g, out);
        GPU_LAUNCHED(msg, "point_sum_groups");
        std::swap(in, out);
        per /= g;
    }
    GPU_TRY(msg, cudaMemcpyAsync(d_windows, in, groups * sizeof(xyzz<F>), cudaMemcpyDeviceToDevice, st));
    prof.mark("window-sums");
    *nwin_out = groups;
    *c_used = c * copies;
    return CUZK_OK;
}

// out (device, one XYZZ point) = sum of base[idx[k]] over k < n.
template <class F>
int msm_sum(const affine<F> *bases, const uint32_t *idx, size_t n, xyzz<F> *d_out, cudaStream_t st,
            cuzk_gpu_msg *msg)
{
    if (n == 0) {
        GPU_TRY(msg, cudaMemsetAsync(d_out, 0, sizeof(xyzz<F>), st));
        return CUZK_OK;
    }
    // ~16 points per thread at least, at most 132 SMs x 512 threads
    size_t threads = (n + 15) / 16;
    if (threads > 132 * 512)
        threads = 132 * 512;
    threads = (threads + 127) / 128 * 128;
    dev_buf<xyzz<F>> part, tmp;
    GPU_RC(part.alloc(threads, st, msg));
    GPU_RC(tmp.alloc((threads + 15) / 16, st, msg));
    msm_sum_points<F><<<(unsigned)(threads / 128), 128, 0, st>>>(bases, idx, n, part.p);
    GPU_LAUNCHED(msg, "msm_sum_points");
    size_t m = threads;
    xyzz<F> *in = part.p, *out = tmp.p;
    while (m > 1) {
        size_t out_n = (m + 15) / 16;
        point_sum_groups<F><<<blocks_for(out_n, 64), 64, 0, st>>>(in, m, 16, out_n == 1 ? d_out : out);
        GPU_LAUNCHED(msg, "point_sum_groups");
        xyzz<F> *x = in;
        in = out;
        out = x;
        m = out_n;
    }
    return CUZK_OK;
}

template <class F>
int msm_shifted_copies(affine<F> *pts, size_t n, size_t stride, unsigned c, unsigned copies, cudaStream_t st,
                       cuzk_gpu_msg *msg)
{
    if (copies < 2 || n == 0)
        return CUZK_OK;
    if (c < 4 || c > 24 || stride < n)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "shifted copies: window size outside 4..24, or stride below n");
    char label[64];
    snprintf(label, sizeof(label), "shifted copies n=%zu c=%u copies=%u", n, c, copies);
    step_profile prof(label, st);
    msm_shift_copies<F><<<blocks_for(n, 128), 128, 0, st>>>(pts, n, stride, c, copies);
    GPU_LAUNCHED(msg, "msm_shift_copies");
    prof.mark("copies");
    return CUZK_OK;
}

// acc[w] += more[w], w < nwin (one thread a window)
template <class F> __global__ void msm_add_windows(xyzz<F> *acc, const xyzz<F> *more, unsigned nwin)
{
    unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w < nwin)
        acc[w] = acc[w].add(more[w]);
}

// msm_pippenger over at most `chunk` scalars at a time (0: all at once),
// one window size for all chunks, their window sums added on the device:
// the MSM's device memory is then that of a chunk (the streamed,
// lower-memory path the memory plan takes when a proof does not fit).
// Chunks read copy 0 only: the copies' window is the whole MSM's, and each
// chunk would reduce that many buckets again (a 2^16-point H in chunks of
// one point: 65,536 reductions of 2^15 buckets, minutes on the H200).
template <class F>
int msm_pippenger_chunked(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n,
                          size_t chunk, msm_tuning tune, xyzz<F> *d_windows, unsigned *nwin_out, unsigned *c_used,
                          cudaStream_t st, cuzk_gpu_msg *msg)
{
    if (!chunk || n <= chunk)
        return msm_pippenger<F>(bases, scalars, idx, n, tune, d_windows, nwin_out, c_used, st, msg);
    msm_tuning t = tune;
    if (t.copies > 1 || !t.c) {
        t.c = msm_gpu_window(chunk);
        t.copies = 1;
    }
    dev_buf<xyzz<F>> more;
    GPU_RC(more.alloc(CUZK_GPU_MAX_WINDOWS, st, msg));
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        // without an index list, base k and scalar k go together: shift
        // both (a copy's base k stays at the same stride from it)
        const affine<F> *b = idx ? bases : bases + off;
        const uint32_t *s = idx ? scalars : scalars + 8 * off;
        const uint32_t *ix = idx ? idx + off : nullptr;
        GPU_RC(msm_pippenger<F>(b, s, ix, len, t, off ? more.p : d_windows, nwin_out, c_used, st, msg));
        if (off) {
            msm_add_windows<F><<<1, CUZK_GPU_MAX_WINDOWS, 0, st>>>(d_windows, more.p, *nwin_out);
            GPU_LAUNCHED(msg, "msm_add_windows");
        }
    }
    return CUZK_OK;
}

template <class F> int msm_affine_local_bytes(size_t *bytes, cuzk_gpu_msg *msg)
{
    *bytes = 0;
    for (unsigned v = 10; v <= 11; v++) {
        unsigned block;
        cudaFuncAttributes a;
        GPU_TRY(msg, cudaFuncGetAttributes(&a, msm_affine_kernel<F>(v, &block)));
        if (a.localSizeBytes > *bytes)
            *bytes = a.localSizeBytes;
    }
    return CUZK_OK;
}

} // namespace gpu

#define GPU_MSM_INSTANTIATE(F)                                                                          \
    template int msm_affine_local_bytes<F>(size_t *, cuzk_gpu_msg *);                                  \
    template int msm_pippenger<F>(const affine<F> *, const uint32_t *, const uint32_t *, size_t, msm_tuning,  \
                                  xyzz<F> *, unsigned *, unsigned *, cudaStream_t, cuzk_gpu_msg *);      \
    template int msm_sum<F>(const affine<F> *, const uint32_t *, size_t, xyzz<F> *, cudaStream_t,            \
                            cuzk_gpu_msg *);                                                            \
    template int msm_pippenger_chunked<F>(const affine<F> *, const uint32_t *, const uint32_t *, size_t, size_t, \
                                          msm_tuning, xyzz<F> *, unsigned *, unsigned *, cudaStream_t,           \
                                          cuzk_gpu_msg *);                                                        \
    template int msm_shifted_copies<F>(affine<F> *, size_t, size_t, unsigned, unsigned, cudaStream_t, cuzk_gpu_msg *);
