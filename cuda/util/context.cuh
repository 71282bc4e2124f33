// The per-GPU context (cuda/util/gpu.cu).
#pragma once

#include <mutex>

#include "gpu.cuh"

namespace gpu {

struct device_ctx {
    int device = 0;
    cudaStream_t stream = 0;      // compute, under the lock
    cudaStream_t copy_stream = 0; // pre-staging of the next proof's inputs, outside the lock
    cudaDeviceProp props;
    std::mutex compute; // one compute lock per GPU
};

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
