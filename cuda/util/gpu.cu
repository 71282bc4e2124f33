// GPU discovery and the per-device context: one stream and one compute
// lock per GPU. Work synchronizes on its stream only; nothing here calls a
// device-global synchronization (notes: a split lock with device-global
// calls ran 2.3x slower).
#include <cuda_runtime.h>

#include <mutex>

#include "context.cuh"

extern "C" int cuzk_cuda_device_count(int *count)
{
    *count = 0;
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver) {
        (void)cudaGetLastError(); // clear the sticky "no device" state
        return CUZK_OK;
    }
    if (err != cudaSuccess)
        return CUZK_ERR_CUDA;
    *count = n;
    return CUZK_OK;
}

namespace gpu {

static std::mutex contexts_lock;
static device_ctx *contexts[64];

int get_device(int device, device_ctx **out, cuzk_gpu_msg *msg)
{
    *out = nullptr;
    int count = 0;
    if (cuzk_cuda_device_count(&count) != CUZK_OK)
        return fail_msg(msg, CUZK_ERR_CUDA, "cudaGetDeviceCount failed");
    if (count == 0)
        return fail_msg(msg, CUZK_ERR_NO_DEVICE, "no CUDA device found");
    if (device < 0 || device >= count || device >= 64)
        return fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "no such CUDA device");
    std::lock_guard<std::mutex> g(contexts_lock);
    if (!contexts[device]) {
        device_ctx *c = new (std::nothrow) device_ctx();
        if (!c)
            return fail_msg(msg, CUZK_ERR_NO_MEMORY, "out of host memory");
        c->device = device;
        cudaError_t e = cudaSetDevice(device);
        if (e == cudaSuccess)
            e = cudaStreamCreateWithFlags(&c->stream, cudaStreamNonBlocking);
        if (e == cudaSuccess)
            e = cudaStreamCreateWithFlags(&c->copy_stream, cudaStreamNonBlocking);
        if (e == cudaSuccess)
            e = cudaGetDeviceProperties(&c->props, device);
        // keep freed pool memory instead of returning it to the driver
        // between proofs: re-growing the pool cost ~700 ms per 4 GiB in
        // supraseal-c2's cuzk (notes/filecoin-gpu-provers.md §1.4)
        cudaMemPool_t pool;
        if (e == cudaSuccess)
            e = cudaDeviceGetDefaultMemPool(&pool, device);
        uint64_t threshold = UINT64_MAX;
        if (e == cudaSuccess)
            e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
        // an allocation on the copy stream (a pre-staged witness) must not
        // wait for the compute stream's frees: that would start the copy
        // only when the running proof has finished (suspected in run H,
        // 2026-11-30: pre-staged proofs 30.3/s against 32.0/s uploading in
        // the lock). The pool grows instead; same-stream reuse is unchanged.
        // (an optimization: a driver that refuses it costs speed, not
        // correctness, so its error is cleared rather than returned)
        int no = 0;
        if (e == cudaSuccess && cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &no) !=
                                    cudaSuccess)
            (void)cudaGetLastError();
        if (e != cudaSuccess) {
            delete c;
            return fail(msg, e, "initializing the CUDA device", __FILE__, __LINE__);
        }
        contexts[device] = c;
    }
    GPU_TRY(msg, cudaSetDevice(device));
    *out = contexts[device];
    return CUZK_OK;
}

} // namespace gpu

extern "C" int cuzk_gpu_memory(int device, uint64_t *free_bytes, uint64_t *total_bytes, cuzk_gpu_msg *msg)
{
    *free_bytes = *total_bytes = 0;
    gpu::device_ctx *ctx;
    GPU_RC(gpu::get_device(device, &ctx, msg));
    size_t f = 0, t = 0;
    GPU_TRY(msg, cudaMemGetInfo(&f, &t)); // device-global: at engine start only
    *free_bytes = f;
    *total_bytes = t;
    return CUZK_OK;
}
