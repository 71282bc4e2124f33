// cuzk_gpu_ntt: one transform from a host array, for tests and benchmarks.
#include "../ec/curves.cuh"
#include "../util/context.cuh"
#include "ntt_impl.cuh"

namespace gpu {

template <class F>
int ntt_host(int kind, void *data, unsigned log_n, int kernel, unsigned pass_bits, double *ms, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    ntt_domain<F> dom;
    if (kernel >= 0)
        dom.kernel = (unsigned)kernel;
    if (pass_bits)
        dom.pass_bits = pass_bits;
    GPU_RC(dom.init(log_n, st, msg));
    size_t n = (size_t)1 << log_n;
    dev_buf<F> a, b;
    GPU_RC(a.alloc(n, st, msg));
    GPU_TRY(msg, cudaMemcpyAsync(a.p, data, n * sizeof(F), cudaMemcpyHostToDevice, st));
    if (kind != GPU_NTT_ODD_COSET)
        GPU_RC(b.alloc(n, st, msg));
    stream_timer timer;
    GPU_RC(timer.start(st, msg));
    F *res = a.p;
    if (kind == GPU_NTT_ODD_COSET)
        GPU_RC(dom.to_odd_coset(a.p, st, msg));
    else {
        GPU_RC(dom.run(a.p, true, kind == GPU_NTT_INVERSE, st, msg));
        GPU_RC(dom.bitrev_copy(a.p, b.p, st, msg));
        if (kind == GPU_NTT_INVERSE)
            GPU_RC(dom.scale_by_ninv(b.p, st, msg));
        res = b.p;
    }
    GPU_RC(timer.stop_ms(st, ms, msg));
    GPU_TRY(msg, cudaMemcpyAsync(data, res, n * sizeof(F), cudaMemcpyDeviceToHost, st));
    GPU_TRY(msg, cudaStreamSynchronize(st));
    return CUZK_OK;
}

// random field elements (below 2^250, so below r) from a hash of i
template <class F> __global__ void bench_fill(F *a, size_t n, uint64_t seed)
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

template <class F>
int ntt_bench(unsigned log_n, int reps, int kernel, unsigned pass_bits, double *fwd, double *coset, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    ntt_domain<F> dom;
    if (kernel >= 0)
        dom.kernel = (unsigned)kernel;
    if (pass_bits)
        dom.pass_bits = pass_bits;
    GPU_RC(dom.init(log_n, st, msg));
    size_t n = (size_t)1 << log_n;
    dev_buf<F> a;
    GPU_RC(a.alloc(n, st, msg));
    bench_fill<F><<<blocks_for(n, 256), 256, 0, st>>>(a.p, n, 12345);
    GPU_LAUNCHED(msg, "bench_fill");
    if (reps > 64)
        reps = 64;
    double t[2][64] = {{0}};
    stream_timer timer;
    for (int r = -1; r < reps; r++) {
        double m0, m1;
        GPU_RC(timer.start(st, msg));
        GPU_RC(dom.run(a.p, true, false, st, msg));
        GPU_RC(timer.stop_ms(st, &m0, msg));
        GPU_RC(timer.start(st, msg));
        GPU_RC(dom.to_odd_coset(a.p, st, msg));
        GPU_RC(timer.stop_ms(st, &m1, msg));
        if (r >= 0) {
            t[0][r] = m0;
            t[1][r] = m1;
        }
    }
    *fwd = median_of(t[0], reps);
    *coset = median_of(t[1], reps);
    return CUZK_OK;
}

template struct ntt_domain<bls12_381_fr>;
template struct ntt_domain<bn254_fr>;

} // namespace gpu

extern "C" int cuzk_gpu_ntt(int curve, int kind, void *data, unsigned log_n, int kernel, unsigned pass_bits,
                            double *ms, cuzk_gpu_msg *msg)
{
    if (kind < GPU_NTT_FORWARD || kind > GPU_NTT_ODD_COSET || kernel < -1 || kernel > 2)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown NTT kind or kernel");
    GPU_DISPATCH_CURVE(curve, return gpu::ntt_host<Curve::fr>(kind, data, log_n, kernel, pass_bits, ms, msg));
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve");
}

extern "C" int cuzk_gpu_bench_ntt(int curve, unsigned log_n, int reps, int kernel, unsigned pass_bits,
                                  double *forward_ms, double *coset_ms, cuzk_gpu_msg *msg)
{
    if (reps < 1 || kernel < -1 || kernel > 2)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "bench: reps >= 1, kernel -1 (default), 0, 1 or 2");
    GPU_DISPATCH_CURVE(curve, return gpu::ntt_bench<Curve::fr>(log_n, reps, kernel, pass_bits, forward_ms, coset_ms,
                                                               msg));
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve");
}
