// GPU discovery and the per-device context: one stream and one compute
// lock per GPU. Work synchronizes on its stream only; nothing here calls a
// device-global synchronization (notes: a split lock with device-global
// calls ran 2.3x slower).
#include <cuda_runtime.h>
#include <omp.h>
#include <string.h>

#include <mutex>

#include "context.cuh"
#include "../msm/msm.cuh"

namespace gpu {
std::atomic<bool> profile_on{false};
}

extern "C" void cuzk_gpu_set_profile(int on)
{
    gpu::profile_on.store(on != 0, std::memory_order_relaxed);
}

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

extern "C" int cuzk_cuda_device_properties(int device, cuzk_gpu_properties *out)
{
    cudaDeviceProp p;
    if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return CUZK_ERR_CUDA;
    }
    snprintf(out->name, sizeof(out->name), "%s", p.name);
    out->memory_bytes = p.totalGlobalMem;
    out->multiprocessors = p.multiProcessorCount;
    out->compute_major = p.major;
    out->compute_minor = p.minor;
    snprintf(out->pci_bus_id, sizeof(out->pci_bus_id), "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID,
             p.pciDeviceID);
    return CUZK_OK;
}

namespace gpu {

// msm.cuh: the largest of the four groups' batch-affine kernels (each
// instantiated with its group's MSM, cuda/msm/msm_*.cu).
int msm_reserve_local_memory(cuzk_gpu_msg *msg)
{
    int (*const groups[])(size_t *, cuzk_gpu_msg *) = {
        msm_affine_local_bytes<bls12_381_fp>, msm_affine_local_bytes<bls12_381_fp2>,
        msm_affine_local_bytes<bn254_fp>, msm_affine_local_bytes<bn254_fp2>};
    size_t need = 0, b;
    for (auto bytes_of : groups) {
        GPU_RC(bytes_of(&b, msg));
        need = b > need ? b : need;
    }
    size_t have = 0;
    GPU_TRY(msg, cudaDeviceGetLimit(&have, cudaLimitStackSize));
    if (need > have) // device-global: once, at the device's first use
        GPU_TRY(msg, cudaDeviceSetLimit(cudaLimitStackSize, need));
    return CUZK_OK;
}

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
        if (e == cudaSuccess) // device-global: once, at the device's first use
            e = cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
        // an allocation on the copy stream (a pre-staged witness) must not
        // wait for the compute stream's frees: that would start the copy
        // only when the running proof has finished (pre-staged proofs ran
        // at 30.3/s against 32.0/s uploading in the lock: the log's "The
        // engine on the H200", run H). The pool grows instead; same-stream
        // reuse is unchanged.
        // (an optimization: a driver that refuses it costs speed, not
        // correctness, so its error is cleared rather than returned)
        int no = 0; // device-global: once, at the device's first use
        if (e == cudaSuccess && cudaMemPoolSetAttribute(pool, cudaMemPoolReuseAllowInternalDependencies, &no) !=
                                    cudaSuccess)
            (void)cudaGetLastError();
        if (e != cudaSuccess) {
            delete c;
            return fail(msg, e, "initializing the CUDA device", __FILE__, __LINE__);
        }
        int rc = msm_reserve_local_memory(msg);
        if (rc != CUZK_OK) {
            delete c;
            return rc;
        }
        contexts[device] = c;
    }
    GPU_TRY(msg, cudaSetDevice(device));
    *out = contexts[device];
    return CUZK_OK;
}

// 16 MiB a slot: a slot's DMA (~0.3 ms at PCIe 5 rates) is long beside the
// few microseconds of calls per chunk, and the four slots of a device (64
// MiB pinned) are allocated once, on first use.
static constexpr size_t BOUNCE_SLOT = (size_t)16 << 20;

// memcpy by up to 8 threads, in pieces of at least 1 MiB (one thread's
// memcpy does not fill a socket's memory bandwidth)
static void copy_parallel(unsigned char *dst, const unsigned char *src, size_t len)
{
    int threads = omp_get_max_threads();
    if (threads > 8)
        threads = 8;
    const size_t min_piece = (size_t)1 << 20;
    if ((size_t)threads > len / min_piece)
        threads = (int)(len / min_piece) > 0 ? (int)(len / min_piece) : 1;
    if (threads == 1) {
        memcpy(dst, src, len);
        return;
    }
    const size_t piece = (len + threads - 1) / threads;
#pragma omp parallel for num_threads(threads) schedule(static)
    for (int t = 0; t < threads; t++) {
        const size_t off = (size_t)t * piece;
        if (off < len)
            memcpy(dst + off, src + off, len - off < piece ? len - off : piece);
    }
}

int copy_to_device(device_ctx *ctx, int lane, void *dst, const void *src, size_t bytes, cudaStream_t st, bool pinned,
                   cuzk_gpu_msg *msg)
{
    if (!bytes)
        return CUZK_OK;
    host_bounce &b = ctx->bounce[lane];
    const bool use_slots = pinned && bytes >= BOUNCE_SLOT;
    std::unique_lock<std::mutex> g(b.mu, std::defer_lock); // only the slots' users take it
    if (use_slots) {
        g.lock();
        if (!b.slot[0] && !b.failed) {
            // allocated once and kept: freeing pinned memory synchronizes
            // the device, so the slots live as long as the process
            for (int i = 0; i < 2 && !b.failed; i++) // device-global: a lane's first large upload, once
                if (cudaHostAlloc((void **)&b.slot[i], BOUNCE_SLOT, cudaHostAllocDefault) != cudaSuccess ||
                    cudaEventCreateWithFlags(&b.reusable[i], cudaEventDisableTiming) != cudaSuccess) {
                    (void)cudaGetLastError(); // no pinned memory to spare: the driver's staging still works
                    b.failed = true;
                }
        }
    }
    if (!use_slots || b.failed) {
        if (use_slots)
            g.unlock();
        GPU_TRY(msg, cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, st));
        return CUZK_OK;
    }
    const unsigned char *from = (const unsigned char *)src;
    unsigned char *to = (unsigned char *)dst;
    int k = 0;
    for (size_t off = 0; off < bytes; off += BOUNCE_SLOT, k ^= 1) {
        const size_t len = bytes - off < BOUNCE_SLOT ? bytes - off : BOUNCE_SLOT;
        GPU_TRY(msg, cudaEventSynchronize(b.reusable[k])); // this slot's previous copy has left it
        copy_parallel(b.slot[k], from + off, len);
        GPU_TRY(msg, cudaMemcpyAsync(to + off, b.slot[k], len, cudaMemcpyHostToDevice, st));
        GPU_TRY(msg, cudaEventRecord(b.reusable[k], st));
    }
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
