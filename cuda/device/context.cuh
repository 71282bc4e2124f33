// The per-GPU context (cuda/device/context.cu).
#pragma once

#include <mutex>

#include "../util/gpu.cuh"

namespace gpu {

// Two pinned host slots through which copies from pageable memory go (see
// copy_to_device). One per lane, each lane used by one stream at a time.
struct host_bounce {
    std::mutex mu;
    unsigned char *slot[2] = {nullptr, nullptr};
    cudaEvent_t reusable[2] = {nullptr, nullptr}; // the slot's last copy is done
    bool failed = false;                           // no pinned memory: copy directly
};

enum { LANE_COMPUTE = 0, LANE_COPY = 1 };

struct device_ctx {
    int device = 0;
    cudaStream_t stream = 0;      // compute, under the lock
    cudaStream_t copy_stream = 0; // pre-staging of the next proof's inputs and key uploads, outside the lock
    cudaDeviceProp props;
    std::mutex compute; // one compute lock per GPU
    host_bounce bounce[2]; // LANE_COMPUTE: the stream (under the lock); LANE_COPY: copy_stream
};

// Copies `bytes` from pageable host memory at src to the device at dst, in
// order on stream st (the stream of `lane`). With pinned, the bytes go
// through the lane's two pinned slots: host threads fill one while the
// other's DMA runs, and the call returns once every byte has left src (the
// last copies may still be in flight; st orders them). Else, or below a
// slot's size, one cudaMemcpyAsync, which the driver stages through its own
// buffers (6 GB/s on the H200: 512 MiB in 86 ms; BENCHMARKS.md).
int copy_to_device(device_ctx *ctx, int lane, void *dst, const void *src, size_t bytes, cudaStream_t st, bool pinned,
                   cuzk_gpu_msg *msg);

// The context of `device`, created on first use; also makes it current
// for the calling thread.
int get_device(int device, device_ctx **out, cuzk_gpu_msg *msg);

// Times a stretch of stream work with events.
struct stream_timer {
    cudaEvent_t ev[2] = {nullptr, nullptr};
    ~stream_timer()
    {
        for (auto e : ev)
            if (e)
                (void)cudaEventDestroy(e);
    }
    int start(cudaStream_t st, cuzk_gpu_msg *msg)
    {
        for (auto &e : ev)
            if (!e)
                GPU_TRY(msg, cudaEventCreate(&e));
        GPU_TRY(msg, cudaEventRecord(ev[0], st));
        return CUZK_OK;
    }
    int stop_ms(cudaStream_t st, double *ms, cuzk_gpu_msg *msg)
    {
        GPU_TRY(msg, cudaEventRecord(ev[1], st));
        GPU_TRY(msg, cudaEventSynchronize(ev[1]));
        float f = 0;
        GPU_TRY(msg, cudaEventElapsedTime(&f, ev[0], ev[1]));
        if (ms)
            *ms = f;
        return CUZK_OK;
    }
};

} // namespace gpu
