// Test kit: cuzk_gpu_msm, one MSM (or batch sum) from host arrays, for tests and
// benchmarks; the prover calls the templates in msm.cuh directly.
#include "../ec/curves.cuh"
#include "../device/context.cuh"
#include "msm.cuh"

namespace gpu {

static msm_tuning tuning_of(const cuzk_gpu_msm_tuning *t)
{
    msm_tuning r;
    if (t) {
        r.c = t->window;
        r.slice = t->slice;
        r.seg = t->segment;
        r.accumulate = t->accumulate;
        r.copies = t->copies ? t->copies : 1;
    }
    return r;
}

// With shifted copies asked for: room for them after the n_bases points
// in pts (allocated by the caller for copies * n_bases), made on the device
// for the tuning's window (or the default one for n scalars with copies).
template <class F>
int with_copies(affine<F> *pts, size_t n_bases, size_t n, msm_tuning *t, cudaStream_t st, cuzk_gpu_msg *msg)
{
    if (t->copies < 2)
        return CUZK_OK;
    if (!t->c)
        t->c = msm_gpu_window(n, t->copies);
    t->stride = n_bases;
    return msm_shifted_copies<F>(pts, n_bases, n_bases, t->c, t->copies, st, msg);
}

template <class F>
int msm_host(const void *bases, size_t n_bases, const void *scalars, const uint32_t *idx, size_t n, bool ones_only,
             const cuzk_gpu_msm_tuning *tune, cuzk_gpu_msm_result *out, double *ms, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    dev_buf<affine<F>> db;
    dev_buf<uint32_t> ds, didx;
    dev_buf<xyzz<F>> dwin;
    msm_tuning t = tuning_of(tune);
    GPU_RC(db.alloc(n_bases * (ones_only ? 1 : t.copies), st, msg));
    GPU_RC(dwin.alloc(CUZK_GPU_MAX_WINDOWS, st, msg));
    GPU_TRY(msg, cudaMemcpyAsync(db.p, bases, n_bases * sizeof(affine<F>), cudaMemcpyHostToDevice, st));
    if (!ones_only) {
        GPU_RC(ds.alloc(n_bases * 8, st, msg));
        GPU_TRY(msg, cudaMemcpyAsync(ds.p, scalars, n_bases * 32, cudaMemcpyHostToDevice, st));
    }
    if (idx) {
        GPU_RC(didx.alloc(n, st, msg));
        GPU_TRY(msg, cudaMemcpyAsync(didx.p, idx, n * 4, cudaMemcpyHostToDevice, st));
    }
    if (!ones_only)
        GPU_RC(with_copies<F>(db.p, n_bases, n, &t, st, msg));
    memset(out, 0, sizeof(*out));
    stream_timer timer;
    GPU_RC(timer.start(st, msg));
    if (ones_only)
        GPU_RC(msm_sum<F>(db.p, didx.p, n, dwin.p, st, msg));
    else
        GPU_RC(msm_pippenger<F>(db.p, ds.p, didx.p, n, t, dwin.p, &out->nwin, &out->c, st, msg));
    GPU_RC(timer.stop_ms(st, ms, msg));
    static_assert(sizeof(xyzz<F>) <= sizeof(out->sum), "XYZZ size");
    if (ones_only)
        GPU_TRY(msg, cudaMemcpyAsync(out->sum, dwin.p, sizeof(xyzz<F>), cudaMemcpyDeviceToHost, st));
    for (unsigned w = 0; w < out->nwin; w++)
        GPU_TRY(msg, cudaMemcpyAsync(out->windows[w], dwin.p + w, sizeof(xyzz<F>), cudaMemcpyDeviceToHost, st));
    GPU_TRY(msg, cudaStreamSynchronize(st));
    return CUZK_OK;
}

template <class F>
__global__ void bench_points(const affine<F> *lo, const affine<F> *hi, affine<F> *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = xyzz<F>::from_affine(hi[(i >> 13) & 8191]).add_affine(lo[i & 8191]).to_affine(); // 2^26 distinct, then again
}

template <class F>
int bench_msm(const void *table_lo, const void *table_hi, size_t n, const void *scalars, const uint32_t *ones,
              size_t n_ones, const uint32_t *tail, size_t n_tail, const cuzk_gpu_msm_tuning *tune, int reps,
              double ms[3], cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    dev_buf<affine<F>> lo, hi, pts;
    dev_buf<uint32_t> sc, dones, dtail;
    dev_buf<xyzz<F>> sum, win;
    unsigned nwin, cw;
    GPU_RC(lo.alloc(8192, st, msg));
    GPU_RC(hi.alloc(8192, st, msg));
    msm_tuning tn = tuning_of(tune);
    GPU_RC(pts.alloc(n * tn.copies, st, msg));
    GPU_RC(sum.alloc(1, st, msg));
    GPU_RC(win.alloc(CUZK_GPU_MAX_WINDOWS, st, msg));
    GPU_RC(sc.alloc(n * 8, st, msg));
    GPU_TRY(msg, cudaMemcpyAsync(lo.p, table_lo, 8192 * sizeof(affine<F>), cudaMemcpyHostToDevice, st));
    GPU_TRY(msg, cudaMemcpyAsync(hi.p, table_hi, 8192 * sizeof(affine<F>), cudaMemcpyHostToDevice, st));
    GPU_TRY(msg, cudaMemcpyAsync(sc.p, scalars, n * 32, cudaMemcpyHostToDevice, st));
    bench_points<F><<<blocks_for(n, 128), 128, 0, st>>>(lo.p, hi.p, pts.p, n);
    GPU_LAUNCHED(msg, "bench_points");
    GPU_RC(with_copies<F>(pts.p, n, n, &tn, st, msg));
    if (ones) {
        GPU_RC(dones.alloc(n_ones, st, msg));
        GPU_RC(dtail.alloc(n_tail, st, msg));
        if (n_ones)
            GPU_TRY(msg, cudaMemcpyAsync(dones.p, ones, n_ones * 4, cudaMemcpyHostToDevice, st));
        if (n_tail)
            GPU_TRY(msg, cudaMemcpyAsync(dtail.p, tail, n_tail * 4, cudaMemcpyHostToDevice, st));
    }
    double t[3][64] = {{0}};
    if (reps > 64)
        reps = 64;
    stream_timer timer;
    for (int r = -1; r < reps; r++) { // r = -1: warm-up (pool growth, module load)
        GPU_RC(timer.start(st, msg));
        GPU_RC(msm_pippenger<F>(pts.p, sc.p, nullptr, n, tn, win.p, &nwin, &cw, st, msg));
        double m0;
        GPU_RC(timer.stop_ms(st, &m0, msg));
        if (r >= 0)
            t[0][r] = m0;
        if (!ones)
            continue;
        double m1, m2;
        GPU_RC(timer.start(st, msg));
        GPU_RC(msm_sum<F>(pts.p, dones.p, n_ones, sum.p, st, msg));
        GPU_RC(timer.stop_ms(st, &m2, msg));
        GPU_RC(timer.start(st, msg));
        GPU_RC(msm_sum<F>(pts.p, dones.p, n_ones, sum.p, st, msg));
        GPU_RC(msm_pippenger<F>(pts.p, sc.p, dtail.p, n_tail, msm_tuning{}, win.p, &nwin, &cw, st, msg));
        GPU_RC(timer.stop_ms(st, &m1, msg));
        if (r >= 0) {
            t[1][r] = m1;
            t[2][r] = m2;
        }
    }
    ms[0] = median_of(t[0], reps);
    ms[1] = ones ? median_of(t[1], reps) : 0;
    ms[2] = ones ? median_of(t[2], reps) : 0;
    GPU_TRY(msg, cudaStreamSynchronize(st));
    return CUZK_OK;
}

} // namespace gpu

extern "C" int cuzk_gpu_bench_msm(int curve, int group, const void *table_lo, const void *table_hi, size_t n,
                                  const void *scalars, const uint32_t *ones, size_t n_ones, const uint32_t *tail,
                                  size_t n_tail, const cuzk_gpu_msm_tuning *tune, int reps, double ms[3],
                                  cuzk_gpu_msg *msg)
{
    if (n == 0 || n > ((size_t)1 << 27) || reps < 1)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "bench: n must be in [1, 2^27], reps >= 1");
    GPU_DISPATCH_CURVE(curve, {
        if (group == 1)
            return gpu::bench_msm<Curve::fp>(table_lo, table_hi, n, scalars, ones, n_ones, tail, n_tail, tune, reps,
                                             ms, msg);
        if (group == 2)
            return gpu::bench_msm<Curve::fp2>(table_lo, table_hi, n, scalars, ones, n_ones, tail, n_tail, tune,
                                              reps, ms, msg);
    });
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve or group");
}

extern "C" int cuzk_gpu_msm(int curve, int group, const void *bases, size_t n_bases, const void *scalars,
                            const uint32_t *idx, size_t n, int ones_only, const cuzk_gpu_msm_tuning *tune,
                            cuzk_gpu_msm_result *out, double *ms, cuzk_gpu_msg *msg)
{
    if (!idx && n > n_bases)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM: more scalars than bases");
    if (n_bases == 0)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "MSM: no bases");
    GPU_DISPATCH_CURVE(curve, {
        if (group == 1)
            return gpu::msm_host<Curve::fp>(bases, n_bases, scalars, idx, n, ones_only, tune, out, ms, msg);
        if (group == 2)
            return gpu::msm_host<Curve::fp2>(bases, n_bases, scalars, idx, n, ones_only, tune, out, ms, msg);
    });
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve or group");
}
