// Shared host-side helpers of the CUDA layer: status reporting with the
// failing call, file and line; stream-ordered allocations.
#pragma once

#include <atomic>

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../include/cuzk.h"
#include "../gpu.h"

namespace gpu {

inline int fail(cuzk_gpu_msg *msg, cudaError_t e, const char *call, const char *file, int line)
{
    if (msg)
        snprintf(msg->text, sizeof(msg->text), "%s failed at %s:%d: %s (%s)", call, file, line,
                 cudaGetErrorString(e), cudaGetErrorName(e));
    return e == cudaErrorMemoryAllocation ? CUZK_ERR_NO_MEMORY : CUZK_ERR_CUDA;
}

inline int fail_msg(cuzk_gpu_msg *msg, int code, const char *text)
{
    if (msg)
        snprintf(msg->text, sizeof(msg->text), "%s", text);
    return code;
}

// Evaluates a CUDA runtime call; on failure returns from the enclosing
// function with the status (the caller cleans up through RAII holders).
#define GPU_TRY(msg, call)                                                                              \
    do {                                                                                                \
        cudaError_t gpu_e_ = (call);                                                                    \
        if (gpu_e_ != cudaSuccess)                                                                      \
            return ::gpu::fail((msg), gpu_e_, #call, __FILE__, __LINE__);                               \
    } while (0)

// After a kernel launch: the launch error, if any, named by the kernel
// ("launching msm_accumulate failed at ...").
#define GPU_LAUNCHED(msg, what)                                                                         \
    do {                                                                                                \
        cudaError_t gpu_e_ = cudaPeekAtLastError();                                                     \
        if (gpu_e_ != cudaSuccess)                                                                      \
            return ::gpu::fail((msg), gpu_e_, "launching " what, __FILE__, __LINE__);                   \
    } while (0)

#define GPU_RC(expr)                                                                                    \
    do {                                                                                                \
        int gpu_rc_ = (expr);                                                                           \
        if (gpu_rc_ != CUZK_OK)                                                                         \
            return gpu_rc_;                                                                             \
    } while (0)

// Device memory freed in stream order when the holder goes out of scope.
template <class T> struct dev_buf {
    T *p = nullptr;
    size_t n = 0;
    cudaStream_t s = 0;
    dev_buf() = default;
    dev_buf(const dev_buf &) = delete;
    dev_buf &operator=(const dev_buf &) = delete;
    ~dev_buf()
    {
        release();
    }
    void release()
    {
        if (p)
            (void)cudaFreeAsync(p, s);
        p = nullptr;
        n = 0;
    }
    int alloc(size_t count, cudaStream_t stream, cuzk_gpu_msg *msg)
    {
        release();
        s = stream;
        n = count;
        GPU_TRY(msg, cudaMallocAsync((void **)&p, (count ? count : 1) * sizeof(T), stream));
        return CUZK_OK;
    }
};

// Whether step_profile is on (cuzk_gpu_set_profile; bench_gpu sets it for
// CUZK_GPU_PROFILE=1: the library reads no environment).
extern std::atomic<bool> profile_on;

// With profiling on, times the steps of an algorithm with events and
// prints them to stderr at the end (this synchronizes the stream: for
// measuring, not for production).
struct step_profile {
    const char *what;
    cudaStream_t st;
    bool on;
    int n = 0;
    cudaEvent_t ev[16];
    const char *name[16];
    step_profile(const char *w, cudaStream_t s) : what(w), st(s)
    {
        on = profile_on.load(std::memory_order_relaxed);
        mark("start");
    }
    void mark(const char *step)
    {
        if (!on || n >= 16 || cudaEventCreate(&ev[n]) != cudaSuccess)
            return;
        name[n] = step;
        if (cudaEventRecord(ev[n], st) == cudaSuccess)
            n++;
        else
            (void)cudaEventDestroy(ev[n]);
    }
    ~step_profile()
    {
        if (!on || n < 2 || cudaEventSynchronize(ev[n - 1]) != cudaSuccess)
            return;
        fprintf(stderr, "[gpu profile] %s:", what);
        for (int i = 1; i < n; i++) {
            float ms = 0;
            (void)cudaEventElapsedTime(&ms, ev[i - 1], ev[i]);
            fprintf(stderr, " %s %.3f", name[i], ms);
        }
        fprintf(stderr, " ms\n");
        for (int i = 0; i < n; i++)
            (void)cudaEventDestroy(ev[i]);
    }
};

// The median of n timings (sorts v; the benchmarks' small arrays).
static inline double median_of(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return v[n / 2];
}

static inline unsigned blocks_for(size_t n, unsigned threads)
{
    size_t b = (n + threads - 1) / threads;
    return b ? (unsigned)b : 1u;
}

} // namespace gpu
