// Test entry point: point additions and doublings over arrays, on the
// device, for tests/test_gpu.c to compare with the CPU implementation.
#include "../device/context.cuh"
#include "curves.cuh"

namespace gpu {

// sum = a + b (mixed addition); dbl = 2a + 2b by doublings and a full
// XYZZ addition (ZZ != 1 on both sides)
template <class F>
__global__ void ec_test_kernel(const affine<F> *a, const affine<F> *b, affine<F> *sum, affine<F> *dbl, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    xyzz<F> pa = xyzz<F>::from_affine(a[i]);
    sum[i] = pa.add_affine(b[i]).to_affine();
    dbl[i] = pa.dbl().add(xyzz<F>::from_affine(b[i]).dbl()).to_affine();
}

template <class F>
int ec_test(const void *a, const void *b, void *sum, void *dbl, size_t n, cuzk_gpu_msg *msg)
{
    device_ctx *ctx;
    GPU_RC(get_device(0, &ctx, msg));
    cudaStream_t st = ctx->stream;
    dev_buf<affine<F>> da, db, ds, dd;
    GPU_RC(da.alloc(n, st, msg));
    GPU_RC(db.alloc(n, st, msg));
    GPU_RC(ds.alloc(n, st, msg));
    GPU_RC(dd.alloc(n, st, msg));
    GPU_TRY(msg, cudaMemcpyAsync(da.p, a, n * sizeof(affine<F>), cudaMemcpyHostToDevice, st));
    GPU_TRY(msg, cudaMemcpyAsync(db.p, b, n * sizeof(affine<F>), cudaMemcpyHostToDevice, st));
    ec_test_kernel<F><<<blocks_for(n, 64), 64, 0, st>>>(da.p, db.p, ds.p, dd.p, n);
    GPU_LAUNCHED(msg, "ec_test_kernel");
    GPU_TRY(msg, cudaMemcpyAsync(sum, ds.p, n * sizeof(affine<F>), cudaMemcpyDeviceToHost, st));
    GPU_TRY(msg, cudaMemcpyAsync(dbl, dd.p, n * sizeof(affine<F>), cudaMemcpyDeviceToHost, st));
    GPU_TRY(msg, cudaStreamSynchronize(st));
    return CUZK_OK;
}

} // namespace gpu

extern "C" int cuzk_gpu_test_ec(int curve, int group, const void *a, const void *b, void *sum, void *dbl, size_t n,
                                cuzk_gpu_msg *msg)
{
    if (n == 0)
        return CUZK_OK;
    GPU_DISPATCH_CURVE(curve, {
        if (group == 1)
            return gpu::ec_test<Curve::fp>(a, b, sum, dbl, n, msg);
        if (group == 2)
            return gpu::ec_test<Curve::fp2>(a, b, sum, dbl, n, msg);
    });
    return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "unknown curve or group");
}
