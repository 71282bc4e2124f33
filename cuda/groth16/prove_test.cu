// Test kit: the prover's H step timed alone (cuzk_gpu_bench_h, for
// bench_gpu).
#include "../ec/curves.cuh"
#include "../device/context.cuh"
#include "h.cuh"

namespace gpu {
// the prover's H step (h_evaluations) on device-resident random a and b
template <class Fr> int h_bench(unsigned log_n, int reps, double *ms, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    ntt_domain<Fr> dom;
    GPU_RC(dom.init(log_n, st, msg));
    const size_t n = (size_t)1 << log_n;
    dev_buf<Fr> a, b, c;
    GPU_RC(a.alloc(n, st, msg));
    GPU_RC(b.alloc(n, st, msg));
    GPU_RC(c.alloc(n, st, msg));
    if (reps > 64)
        reps = 64;
    double t[64] = {0};
    stream_timer timer;
    for (int r = -1; r < reps; r++) {
        // fresh inputs each time (h_combine leaves plain integers in a)
        GPU_RC(fill_random_fr(a.p, n, 1 + r, st, msg));
        GPU_RC(fill_random_fr(b.p, n, 1001 + r, st, msg));
        double m;
        GPU_RC(timer.start(st, msg));
        Fr *scalars;
        GPU_RC(h_evaluations(dom, a.p, b.p, c.p, false, &scalars, st, msg));
        GPU_RC(timer.stop_ms(st, &m, msg));
        if (r >= 0)
            t[r] = m;
    }
    *ms = median_of(t, reps);
    return CUZK_OK;
}
} // namespace gpu

extern "C" int cuzk_gpu_bench_h(int curve, unsigned log_n, int reps, double *ms, cuzk_gpu_msg *msg)
{
    *ms = 0;
    if (reps < 1)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "bench: reps >= 1");
    GPU_DISPATCH_CURVE(curve, return gpu::h_bench<Curve::fr>(log_n, reps, ms, msg));
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve");
}
