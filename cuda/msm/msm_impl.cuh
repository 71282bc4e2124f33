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
//               a slice boundary is finished by a fix-up pass
//   reduce      per window, segments of buckets by running sums; segments
//               and windows summed by further kernels; the window sums go
//               to the CPU, which finishes with Horner's rule (serial work)
// The batch sum (points whose scalar is 1, found by the CPU's classifier)
// is a strided XYZZ accumulation plus the same tree reduction.
// Public data only (_var): scalars are witness values, which Groth16's
// blinding hides; timing may depend on them.
#pragma once

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

static __global__ void msm_digits(const uint32_t *scalars, const uint32_t *idx, size_t n, unsigned c, unsigned nwin,
                           uint32_t *keys, uint32_t *vals)
{
    size_t k = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n)
        return;
    uint32_t i = idx ? idx[k] : (uint32_t)k;
    uint32_t s[8];
    const uint4 *src = (const uint4 *)(scalars + 8 * (size_t)i);
    uint4 lo = src[0], hi = src[1];
    s[0] = lo.x, s[1] = lo.y, s[2] = lo.z, s[3] = lo.w, s[4] = hi.x, s[5] = hi.y, s[6] = hi.z, s[7] = hi.w;
    const uint32_t half = 1u << (c - 1), sentinel = nwin * half;
    uint32_t carry = 0;
    for (unsigned w = 0; w < nwin; w++) {
        uint32_t d = scalar_window(s, w * c, c) + carry, sign = 0;
        carry = 0;
        if (d > half) { // d - 2^c < 0: negative digit, carry into the next window
            d = (1u << c) - d;
            sign = 1;
            carry = 1;
        }
        size_t o = (size_t)w * n + k;
        keys[o] = d ? w * half + (d - 1) : sentinel;
        vals[o] = i | (sign << 31);
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

template <class F, bool PREFETCH>
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
    affine<F> next;
    if (PREFETCH)
        next = msm_load_point(bases, vals[start]);
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
        if (PREFETCH) {
            // the next point's load is in flight during this addition
            affine<F> p = next;
            if (e + 1 < end)
                next = msm_load_point(bases, vals[e + 1]);
            acc = acc.add_affine(p);
        } else
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

// Variants (msm_tuning.accumulate; 0 picks per field, see the launch):
// 3 blocks of 128, no launch bounds (157 registers for BLS12-381 G1: 12
// warps per SM; __launch_bounds__(128, 1) let ptxas take 238 and ran 55 %
// slower, 2026-11-30); 1 capped at 128 registers (16 warps); 2 the next
// point prefetched during each addition (no gain measured).
template <class F, bool PREFETCH>
__global__ void msm_accumulate(const affine<F> *bases, const uint32_t *keys, const uint32_t *vals, size_t count,
                               unsigned slice, uint32_t sentinel, xyzz<F> *buckets, xyzz<F> *hv, uint8_t *hf,
                               uint32_t *tk, xyzz<F> *tv)
{
    msm_accumulate_body<F, PREFETCH>(bases, keys, vals, count, slice, sentinel, buckets, hv, hf, tk, tv);
}
template <class F>
__global__ void __launch_bounds__(128, 4)
    msm_accumulate_capped(const affine<F> *bases, const uint32_t *keys, const uint32_t *vals, size_t count,
                          unsigned slice, uint32_t sentinel, xyzz<F> *buckets, xyzz<F> *hv, uint8_t *hf, uint32_t *tk,
                          xyzz<F> *tv)
{
    msm_accumulate_body<F, false>(bases, keys, vals, count, slice, sentinel, buckets, hv, hf, tk, tv);
}

// One level of the fix-up tree: thread c walks slots [c Q, c Q + Q) in
// order, adding each head into the run open at that point; a run opened by
// a tail and ended by a later head inside the chunk is complete (its bucket
// is written); what crosses the chunk's edges becomes the chunk's own head
// and tail, for the next level. Levels repeat until one chunk remains, so a
// bucket spread over m slots costs about Q log_Q(m) sequential additions
// (one thread walking m heads took 0.38 s at m = 14,700: BENCHMARKS.md).
template <class F>
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

// Segment s of window w: buckets i in [lo, lo + seg) hold digit i + 1;
// out = sum (i + 1) B_i = running-sum total + lo * (sum B_i).
template <class F>
__global__ void msm_bucket_segments(const xyzz<F> *buckets, unsigned nb, unsigned nwin, unsigned seg,
                                    xyzz<F> *out)
{
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    unsigned nseg = nb / seg;
    if (t >= (size_t)nwin * nseg)
        return;
    unsigned w = (unsigned)(t / nseg), s = (unsigned)(t % nseg), lo = s * seg;
    const xyzz<F> *b = buckets + (size_t)w * nb;
    xyzz<F> run = xyzz<F>::inf(), acc = xyzz<F>::inf();
    for (unsigned i = lo + seg; i-- > lo;) {
        run = run.add(b[i]);
        acc = acc.add(run);
    }
    out[t] = acc.add(run.mul_small(lo));
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
    if (c == 0)
        c = msm_gpu_window(n);
    if (c < 4 || c > 24)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM window size must be between 4 and 24 bits");
    if (tune.accumulate > 3)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM accumulation variant must be 0 to 3");
    const unsigned nwin = (255 + c) / c, nb = 1u << (c - 1);
    static_assert((255 + 4) / 4 <= CUZK_GPU_MAX_WINDOWS, "window count");
    const uint32_t sentinel = nwin * nb;
    const size_t count = n * nwin;
    if (count > (size_t)INT32_MAX)
        return fail_msg(msg, CUZK_ERR_UNSUPPORTED, "MSM too large for one sort (more than 2^31 digits)");
    unsigned key_bits = 1;
    while (key_bits < 32 && ((uint64_t)1 << key_bits) <= sentinel)
        key_bits++;

    char label[64];
    snprintf(label, sizeof(label), "msm n=%zu c=%u windows=%u", n, c, nwin);
    step_profile prof(label, st);
    dev_buf<uint32_t> keys, vals, keys2, vals2;
    GPU_RC(keys.alloc(count, st, msg));
    GPU_RC(vals.alloc(count, st, msg));
    GPU_RC(keys2.alloc(count, st, msg));
    GPU_RC(vals2.alloc(count, st, msg));
    msm_digits<<<blocks_for(n, 256), 256, 0, st>>>(scalars, idx, n, c, nwin, keys.p, vals.p);
    GPU_LAUNCHED(msg, "msm_digits");
    prof.mark("digits");

    const uint32_t *sorted_keys, *sorted_vals;
    GPU_RC(sort_pairs(keys.p, keys2.p, vals.p, vals2.p, count, key_bits, &sorted_keys, &sorted_vals, st, msg));
    prof.mark("sort");

    const unsigned slice = msm_slot_length(count, tune.slice);
    const size_t threads = (count + slice - 1) / slice;
    const unsigned Q = 16; // fix-up chunk: 16 slots per thread and level
    dev_buf<xyzz<F>> buckets, hv, tv, hv2, tv2;
    dev_buf<uint32_t> tk, tk2;
    dev_buf<uint8_t> hf, hf2;
    const size_t threads2 = (threads + Q - 1) / Q;
    GPU_RC(buckets.alloc((size_t)nwin * nb, st, msg));
    GPU_RC(hv.alloc(threads, st, msg));
    GPU_RC(tv.alloc(threads, st, msg));
    GPU_RC(tk.alloc(threads, st, msg));
    GPU_RC(hf.alloc(threads, st, msg));
    GPU_RC(hv2.alloc(threads2, st, msg));
    GPU_RC(tv2.alloc(threads2, st, msg));
    GPU_RC(tk2.alloc(threads2, st, msg));
    GPU_RC(hf2.alloc(threads2, st, msg));
    GPU_TRY(msg, cudaMemsetAsync(buckets.p, 0, (size_t)nwin * nb * sizeof(xyzz<F>), st));
    // 0: the measured best per field -- the 128-register cap for 12-limb
    // Fp (BLS12-381 G1: 741 vs 781 ms at 2^26), no cap for 8 limbs (BN254:
    // 330 vs 341 ms)
    const unsigned variant = tune.accumulate ? tune.accumulate : (sizeof(F) == 48 ? 1 : 3);
    bool launched = false;
    if constexpr (F::inline_points) { // the variants exist for G1 only (G2's compile time)
        if (variant == 1) {
            msm_accumulate_capped<F><<<blocks_for(threads, 128), 128, 0, st>>>(
                bases, sorted_keys, sorted_vals, count, slice, sentinel, buckets.p, hv.p, hf.p, tk.p, tv.p);
            launched = true;
        } else if (variant == 2) {
            msm_accumulate<F, true><<<blocks_for(threads, 128), 128, 0, st>>>(
                bases, sorted_keys, sorted_vals, count, slice, sentinel, buckets.p, hv.p, hf.p, tk.p, tv.p);
            launched = true;
        }
    }
    if (!launched)
        msm_accumulate<F, false><<<blocks_for(threads, 128), 128, 0, st>>>(
            bases, sorted_keys, sorted_vals, count, slice, sentinel, buckets.p, hv.p, hf.p, tk.p, tv.p);
    GPU_LAUNCHED(msg, "msm_accumulate");
    prof.mark("accumulate");
    // fix-up levels, ping-ponging between the two slot arrays
    xyzz<F> *cur_hv = hv.p, *cur_tv = tv.p, *nxt_hv = hv2.p, *nxt_tv = tv2.p;
    uint32_t *cur_tk = tk.p, *nxt_tk = tk2.p;
    uint8_t *cur_hf = hf.p, *nxt_hf = hf2.p;
    for (size_t m = threads; m > 1;) {
        size_t chunks = (m + Q - 1) / Q;
        msm_fixup_level<F><<<blocks_for(chunks, 64), 64, 0, st>>>(m, Q, sentinel, cur_hv, cur_hf, cur_tk, cur_tv,
                                                                 nxt_hv, nxt_hf, nxt_tk, nxt_tv, buckets.p);
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

    // segments of up to 64 buckets (2^15 buckets x 16 windows: 8192
    // threads of 128 additions each). Shorter segments at small sizes
    // measured slower (more levels of partial sums after: 2^16 went from
    // 8 to 11 ms, 2026-11-30).
    unsigned seg = tune.seg ? tune.seg : 64;
    if (seg > nb)
        seg = nb;
    if (seg == 0 || (seg & (seg - 1)))
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM bucket segment must be a power of two");
    unsigned nseg = nb / seg;
    dev_buf<xyzz<F>> segs, segs2;
    GPU_RC(segs.alloc((size_t)nwin * nseg, st, msg));
    GPU_RC(segs2.alloc((size_t)nwin * nseg, st, msg));
    msm_bucket_segments<F><<<blocks_for((size_t)nwin * nseg, 64), 64, 0, st>>>(buckets.p, nb, nwin, seg, segs.p);
    GPU_LAUNCHED(msg, "msm_bucket_segments");
    prof.mark("segments");
    // per window: sum its nseg segments (a power of two) in groups of up
    // to 16; groups never straddle two windows
    xyzz<F> *in = segs.p, *out = segs2.p;
    for (size_t per = nseg; per > 1;) {
        unsigned g = per < 16 ? (unsigned)per : 16;
        size_t out_n = (size_t)nwin * (per / g);
        point_sum_groups<F><<<blocks_for(out_n, 64), 64, 0, st>>>(in, (size_t)nwin * per, g, out);
        GPU_LAUNCHED(msg, "point_sum_groups");
        xyzz<F> *x = in;
        in = out;
        out = x;
        per /= g;
    }
    GPU_TRY(msg, cudaMemcpyAsync(d_windows, in, nwin * sizeof(xyzz<F>), cudaMemcpyDeviceToDevice, st));
    prof.mark("window-sums");
    *nwin_out = nwin;
    *c_used = c;
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
template <class F>
int msm_pippenger_chunked(const affine<F> *bases, const uint32_t *scalars, const uint32_t *idx, size_t n,
                          size_t chunk, xyzz<F> *d_windows, unsigned *nwin_out, unsigned *c_used, cudaStream_t st,
                          cuzk_gpu_msg *msg)
{
    if (!chunk || n <= chunk)
        return msm_pippenger<F>(bases, scalars, idx, n, msm_tuning{}, d_windows, nwin_out, c_used, st, msg);
    msm_tuning t;
    t.c = msm_gpu_window(chunk);
    dev_buf<xyzz<F>> more;
    GPU_RC(more.alloc(CUZK_GPU_MAX_WINDOWS, st, msg));
    for (size_t off = 0; off < n; off += chunk) {
        size_t len = n - off < chunk ? n - off : chunk;
        // without an index list, base k and scalar k go together: shift both
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

} // namespace gpu

#define GPU_MSM_INSTANTIATE(F)                                                                          \
    template int msm_pippenger<F>(const affine<F> *, const uint32_t *, const uint32_t *, size_t, msm_tuning,  \
                                  xyzz<F> *, unsigned *, unsigned *, cudaStream_t, cuzk_gpu_msg *);      \
    template int msm_sum<F>(const affine<F> *, const uint32_t *, size_t, xyzz<F> *, cudaStream_t,            \
                            cuzk_gpu_msg *);                                                            \
    template int msm_pippenger_chunked<F>(const affine<F> *, const uint32_t *, const uint32_t *, size_t, size_t, \
                                          xyzz<F> *, unsigned *, unsigned *, cudaStream_t, cuzk_gpu_msg *);
