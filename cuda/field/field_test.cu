// Test entry points: field operations over arrays, on the device,
// for tests/test_gpu.c to compare with the CPU implementation.
#include <algorithm>
#include <vector>

#include "field.cuh"
#include "../device/context.cuh"

namespace gpu {

template <class T> __global__ void field_op_kernel(int op, const T *a, const T *b, T *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    T x = a[i], y = b[i];
    switch (op) {
    case GPU_OP_ADD: out[i] = x + y; break;
    case GPU_OP_SUB: out[i] = x - y; break;
    case GPU_OP_MUL: out[i] = x * y; break;
    case GPU_OP_SQR: out[i] = x.sqr(); break;
    case GPU_OP_NEG: out[i] = x.neg(); break;
    case GPU_OP_INV: out[i] = x.inv_var(); break;
    }
}

template <class T> __global__ void field_mont_kernel(int op, const T *a, T *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = op == GPU_OP_FROM_MONT ? a[i].from_mont() : a[i].to_mont();
}

template <class T>
int field_test(int op, const void *a, const void *b, void *out, size_t n, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    cudaStream_t st = ctx->stream;
    dev_buf<T> da, db, dout;
    GPU_RC(da.alloc(n, st, msg));
    GPU_RC(db.alloc(n, st, msg));
    GPU_RC(dout.alloc(n, st, msg));
    GPU_TRY(msg, cudaMemcpyAsync(da.p, a, n * sizeof(T), cudaMemcpyHostToDevice, st));
    GPU_TRY(msg, cudaMemcpyAsync(db.p, b, n * sizeof(T), cudaMemcpyHostToDevice, st));
    if (op == GPU_OP_FROM_MONT || op == GPU_OP_TO_MONT) {
        field_mont_kernel<T><<<blocks_for(n, 128), 128, 0, st>>>(op, da.p, dout.p, n);
    } else
        field_op_kernel<T><<<blocks_for(n, 128), 128, 0, st>>>(op, da.p, db.p, dout.p, n);
    GPU_LAUNCHED(msg, "field test kernel");
    GPU_TRY(msg, cudaMemcpyAsync(out, dout.p, n * sizeof(T), cudaMemcpyDeviceToHost, st));
    GPU_TRY(msg, cudaStreamSynchronize(st));
    return CUZK_OK;
}

// Throughput of one field operation: every thread runs four independent
// chains of `iters` operations in registers (the independence a point
// addition offers), and stores their sum so the work stays.
template <class T, int OP> __global__ void field_bench_kernel(const T *seed, T *out, unsigned iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T x0 = seed[i % 64], x1 = seed[(i + 1) % 64], x2 = seed[(i + 2) % 64], x3 = seed[(i + 3) % 64];
    const T y = seed[(i + 7) % 64];
    for (unsigned k = 0; k < iters; k++) {
        if (OP == GPU_OP_MUL) {
            x0 = x0 * y, x1 = x1 * y, x2 = x2 * y, x3 = x3 * y;
        } else if (OP == GPU_OP_SQR) {
            x0 = x0.sqr(), x1 = x1.sqr(), x2 = x2.sqr(), x3 = x3.sqr();
        } else {
            x0 = x0 + y, x1 = x1 + y, x2 = x2 + y, x3 = x3 + y;
        }
    }
    out[i] = (x0 + x1) + (x2 + x3);
}

// Median over reps (after a warm-up) of launch(seed, out) on `blocks` blocks
// of 256 threads, as operations per second: ops_per_thread each. The seeds
// are any values (Montgomery images of small integers).
template <class T, class Launch>
int field_bench_run(unsigned blocks, double ops_per_thread, int reps, Launch launch, double *gops,
                    cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    cudaStream_t st = ctx->stream;
    const size_t n = (size_t)256 * blocks;
    dev_buf<T> seed, out;
    GPU_RC(seed.alloc(64, st, msg));
    GPU_RC(out.alloc(n, st, msg));
    std::vector<T> host(64);
    for (int i = 0; i < 64; i++) {
        memset(&host[i], 0, sizeof(T));
        ((uint32_t *)&host[i])[0] = 7u * (unsigned)i + 3u;
    }
    GPU_TRY(msg, cudaMemcpyAsync(seed.p, host.data(), 64 * sizeof(T), cudaMemcpyHostToDevice, st));
    std::vector<double> ms;
    for (int r = 0; r <= reps; r++) { // the first is a warm-up
        stream_timer tm;
        GPU_RC(tm.start(st, msg));
        launch(blocks, st, seed.p, out.p);
        GPU_LAUNCHED(msg, "field benchmark kernel");
        double t = 0;
        GPU_RC(tm.stop_ms(st, &t, msg));
        if (r)
            ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    *gops = (double)n * ops_per_thread / (ms[ms.size() / 2] * 1e6);
    return CUZK_OK;
}

template <class T> int field_bench(int op, int reps, double *gops, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    // 16 blocks of 256 threads per SM: enough warps for any register count
    const unsigned blocks = 16u * (unsigned)ctx->props.multiProcessorCount, iters = 256;
    return field_bench_run<T>(
        blocks, 4.0 * iters, reps,
        [&](unsigned nb, cudaStream_t st, const T *seed, T *out) {
            if (op == GPU_OP_MUL)
                field_bench_kernel<T, GPU_OP_MUL><<<nb, 256, 0, st>>>(seed, out, iters);
            else if (op == GPU_OP_SQR)
                field_bench_kernel<T, GPU_OP_SQR><<<nb, 256, 0, st>>>(seed, out, iters);
            else
                field_bench_kernel<T, GPU_OP_ADD><<<nb, 256, 0, st>>>(seed, out, iters);
        },
        gops, msg);
}

// The product rate of `chains` (1, 2 or 4) dependent chains a thread at
// the batch-affine accumulation's occupancy: one wave of 2 blocks of 256
// threads an SM (held there by shared memory), the 16 warps its 128
// registers allow. Against
// field_bench's rate (4 chains, as many warps as fit) this is the floor of
// a kernel whose products mostly wait on each other at that occupancy
// (ncu: the accumulation stalls ~4 cycles an instruction on fixed-latency
// dependencies; docs/history/benchmarks-log.md, "Prefetching, two product
// chains, and where the accumulation's cycles go").
template <class T, int CHAINS> __global__ void __launch_bounds__(256, 2) field_chain_kernel(const T *seed, T *out, unsigned iters)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    T x[CHAINS];
#pragma unroll
    for (int c = 0; c < CHAINS; c++)
        x[c] = seed[(i + c) % 64];
    const T y = seed[(i + 7) % 64];
    for (unsigned k = 0; k < iters; k++)
#pragma unroll
        for (int c = 0; c < CHAINS; c++)
            x[c] = x[c] * y;
    T sum = x[0];
#pragma unroll
    for (int c = 1; c < CHAINS; c++)
        sum = sum + x[c];
    out[i] = sum;
}

template <class T> int field_chain_bench(unsigned chains, int reps, double *gops, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    const unsigned blocks = 2u * (unsigned)ctx->props.multiProcessorCount, iters = 4096 / chains;
    // shared memory no third block fits beside (the kernel itself needs few
    // registers, so nothing else would stop the scheduler stacking blocks)
    const size_t smem = ctx->props.sharedMemPerMultiprocessor / 3 + 1;
    void (*const kernels[3])(const T *, T *, unsigned) = {field_chain_kernel<T, 1>, field_chain_kernel<T, 2>,
                                                          field_chain_kernel<T, 4>};
    for (auto k : kernels)
        GPU_TRY(msg, cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
    auto kernel = kernels[chains == 1 ? 0 : chains == 2 ? 1 : 2];
    return field_bench_run<T>(
        blocks, (double)iters * chains, reps,
        [&](unsigned nb, cudaStream_t st, const T *seed, T *out) { kernel<<<nb, 256, smem, st>>>(seed, out, iters); },
        gops, msg);
}

} // namespace gpu

extern "C" int cuzk_gpu_bench_field_chains(int field, unsigned chains, int reps, double *gops, cuzk_gpu_msg *msg)
{
    using namespace gpu;
    *gops = 0;
    if (reps < 1 || (chains != 1 && chains != 2 && chains != 4))
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "field chain benchmark: reps >= 1 and 1, 2 or 4 chains");
    switch (field) {
    case GPU_FIELD_BLS12_381_FP: return field_chain_bench<bls12_381_fp>(chains, reps, gops, msg);
    case GPU_FIELD_BN254_FP: return field_chain_bench<bn254_fp>(chains, reps, gops, msg);
    case GPU_FIELD_BLS12_381_FP2: return field_chain_bench<bls12_381_fp2>(chains, reps, gops, msg);
    case GPU_FIELD_BN254_FP2: return field_chain_bench<bn254_fp2>(chains, reps, gops, msg);
    }
    return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "field chain benchmark: the coordinate fields only");
}

extern "C" int cuzk_gpu_bench_field(int field, int op, int reps, double *gops, cuzk_gpu_msg *msg)
{
    using namespace gpu;
    *gops = 0;
    if (reps < 1 || (op != GPU_OP_MUL && op != GPU_OP_SQR && op != GPU_OP_ADD))
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "field benchmark: reps >= 1 and mul, sqr or add");
    switch (field) {
    case GPU_FIELD_BLS12_381_FP: return field_bench<bls12_381_fp>(op, reps, gops, msg);
    case GPU_FIELD_BLS12_381_FR: return field_bench<bls12_381_fr>(op, reps, gops, msg);
    case GPU_FIELD_BN254_FP: return field_bench<bn254_fp>(op, reps, gops, msg);
    case GPU_FIELD_BN254_FR: return field_bench<bn254_fr>(op, reps, gops, msg);
    case GPU_FIELD_BLS12_381_FP2: return field_bench<bls12_381_fp2>(op, reps, gops, msg);
    case GPU_FIELD_BN254_FP2: return field_bench<bn254_fp2>(op, reps, gops, msg);
    }
    return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown field");
}

extern "C" int cuzk_gpu_test_field(int field, int op, const void *a, const void *b, void *out, size_t n,
                                   cuzk_gpu_msg *msg)
{
    using namespace gpu;
    if (n == 0)
        return CUZK_OK;
    switch (field) {
    case GPU_FIELD_BLS12_381_FP: return field_test<bls12_381_fp>(op, a, b, out, n, msg);
    case GPU_FIELD_BLS12_381_FR: return field_test<bls12_381_fr>(op, a, b, out, n, msg);
    case GPU_FIELD_BN254_FP: return field_test<bn254_fp>(op, a, b, out, n, msg);
    case GPU_FIELD_BN254_FR: return field_test<bn254_fr>(op, a, b, out, n, msg);
    case GPU_FIELD_BLS12_381_FP2: return field_test<bls12_381_fp2>(op, a, b, out, n, msg);
    case GPU_FIELD_BN254_FP2: return field_test<bn254_fp2>(op, a, b, out, n, msg);
    }
    return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown field");
}

