// Test kit: cuzk_gpu_ntt, one transform from a host array, and
// cuzk_gpu_bench_ntt, for test_gpu and bench_gpu.
#include "../ec/curves.cuh"
#include "../device/context.cuh"
#include "ntt.cuh"

namespace gpu {

// a domain with the given kernel and pass bits (-1, 0: the prover's)
template <class F>
int domain_for(ntt_domain<F> &dom, unsigned log_n, int kernel, unsigned pass_bits, cudaStream_t st, cuzk_gpu_msg *msg)
{
    if (kernel >= 0)
        dom.kernel = (unsigned)kernel;
    if (pass_bits)
        dom.pass_bits = pass_bits;
    return dom.init(log_n, st, msg);
}

template <class F>
int ntt_host(int kind, void *data, unsigned log_n, int kernel, unsigned pass_bits, double *ms, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    ntt_domain<F> dom;
    GPU_RC(domain_for(dom, log_n, kernel, pass_bits, st, msg));
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

template <class F>
int ntt_bench(unsigned log_n, int reps, int kernel, unsigned pass_bits, double *fwd, double *coset, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    ntt_domain<F> dom;
    GPU_RC(domain_for(dom, log_n, kernel, pass_bits, st, msg));
    size_t n = (size_t)1 << log_n;
    dev_buf<F> a;
    GPU_RC(a.alloc(n, st, msg));
    GPU_RC(fill_random_fr(a.p, n, 12345, st, msg));
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

} // namespace gpu


extern "C" int cuzk_gpu_ntt(int curve, int kind, void *data, unsigned log_n, int kernel, unsigned pass_bits,
                            double *ms, cuzk_gpu_msg *msg)
{
    if (kind < GPU_NTT_FORWARD || kind > GPU_NTT_ODD_COSET || kernel < -1 || kernel > 2)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown NTT kind or kernel");
    GPU_DISPATCH_CURVE(curve, return gpu::ntt_host<Curve::fr>(kind, data, log_n, kernel, pass_bits, ms, msg));
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve");
}

extern "C" int cuzk_gpu_bench_ntt(int field, unsigned log_n, int reps, int kernel, unsigned pass_bits,
                                  double *forward_ms, double *coset_ms, cuzk_gpu_msg *msg)
{
    using namespace gpu;
    if (reps < 1 || kernel < -1 || kernel > 2)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "bench: reps >= 1, kernel -1 (default), 0, 1 or 2");
    switch (field) {
    case GPU_FIELD_BLS12_381_FR:
        return ntt_bench<bls12_381_fr>(log_n, reps, kernel, pass_bits, forward_ms, coset_ms, msg);
    case GPU_FIELD_BN254_FR: return ntt_bench<bn254_fr>(log_n, reps, kernel, pass_bits, forward_ms, coset_ms, msg);
    }
    return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "bench: field GPU_FIELD_BLS12_381_FR or GPU_FIELD_BN254_FR");
}
