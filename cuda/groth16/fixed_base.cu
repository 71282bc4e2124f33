// Fixed-base products k_i G by a group's generator, for many scalars: the
// points of a random (testing) setup, which on the CPU took most of the
// time to make a key large enough to benchmark (a 2^22-constraint key: 53 s
// on the H200 machine's 16 cores). The same method as the CPU's
// (src/core/setup_impl.h): 32 windows of 8 bits, table[w][d - 1] =
// d 2^(8w) G, so k G is at most 32 mixed additions, then one inversion to
// affine. Variable time: the scalars come from the setup's toxic waste,
// which a testing setup does not protect (the CLI says so).
#include <mutex>

#include "../device/context.cuh"
#include "../ec/curves.cuh"

namespace gpu {

enum { FB_WINDOWS = 32, FB_ENTRIES = 255 };

// One thread per window: 8w doublings of G, then its 255 multiples.
template <class F> __global__ void fixed_base_table(affine<F> g, xyzz<F> *table)
{
    unsigned w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= FB_WINDOWS)
        return;
    xyzz<F> base = xyzz<F>::from_affine(g);
    for (unsigned i = 0; i < 8 * w; i++)
        base = base.dbl();
    xyzz<F> acc = base;
    table[w * FB_ENTRIES] = acc;
    for (unsigned d = 2; d <= FB_ENTRIES; d++) {
        acc = acc.add(base);
        table[w * FB_ENTRIES + d - 1] = acc;
    }
}

template <class F> __global__ void fixed_base_affine(const xyzz<F> *in, affine<F> *out, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i].to_affine();
}

// out[i] = k_i G; scalars as 8 little-endian words each
template <class F>
__global__ void fixed_base_mul(const affine<F> *table, const uint32_t *k, size_t n, affine<F> *out)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint32_t *s = k + 8 * i;
    xyzz<F> acc = xyzz<F>::inf();
    for (int w = 0; w < FB_WINDOWS; w++) {
        unsigned d = (s[w / 4] >> (8 * (w % 4))) & 0xff;
        if (d)
            acc = acc.add_affine(table[w * FB_ENTRIES + d - 1]);
    }
    out[i] = acc.to_affine();
}

template <class F>
int fixed_base(const void *generator, const void *scalars, size_t n, void *out, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    std::lock_guard<std::mutex> lock(ctx->compute);
    cudaStream_t st = ctx->stream;
    affine<F> g;
    memcpy(&g, generator, sizeof(g));
    dev_buf<xyzz<F>> tj;
    dev_buf<affine<F>> table;
    const size_t entries = (size_t)FB_WINDOWS * FB_ENTRIES;
    GPU_RC(tj.alloc(entries, st, msg));
    GPU_RC(table.alloc(entries, st, msg));
    fixed_base_table<F><<<1, FB_WINDOWS, 0, st>>>(g, tj.p);
    GPU_LAUNCHED(msg, "fixed_base_table");
    fixed_base_affine<F><<<blocks_for(entries, 128), 128, 0, st>>>(tj.p, table.p, entries);
    GPU_LAUNCHED(msg, "fixed_base_affine");
    // chunks of 2^22 scalars bound the device memory (1 GiB of G2 points)
    const size_t chunk = (size_t)1 << 22, m0 = n < chunk ? n : chunk;
    dev_buf<uint32_t> dk;
    dev_buf<affine<F>> dout;
    GPU_RC(dk.alloc(m0 * 8, st, msg));
    GPU_RC(dout.alloc(m0, st, msg));
    for (size_t b = 0; b < n; b += chunk) {
        size_t m = n - b < chunk ? n - b : chunk;
        GPU_TRY(msg, cudaMemcpyAsync(dk.p, (const unsigned char *)scalars + b * 32, m * 32, cudaMemcpyHostToDevice,
                                     st));
        fixed_base_mul<F><<<blocks_for(m, 128), 128, 0, st>>>(table.p, dk.p, m, dout.p);
        GPU_LAUNCHED(msg, "fixed_base_mul");
        GPU_TRY(msg, cudaMemcpyAsync((unsigned char *)out + b * sizeof(affine<F>), dout.p, m * sizeof(affine<F>),
                                     cudaMemcpyDeviceToHost, st));
    }
    GPU_TRY(msg, cudaStreamSynchronize(st));
    return CUZK_OK;
}

} // namespace gpu

extern "C" int cuzk_gpu_fixed_base(int curve, int group, const void *generator, const void *scalars, size_t n,
                                   void *out, cuzk_gpu_msg *msg)
{
    if (n == 0)
        return CUZK_OK;
    GPU_DISPATCH_CURVE(curve, {
        if (group == 1)
            return gpu::fixed_base<Curve::fp>(generator, scalars, n, out, msg);
        if (group == 2)
            return gpu::fixed_base<Curve::fp2>(generator, scalars, n, out, msg);
    });
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve or group");
}
