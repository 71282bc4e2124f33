// Test kit: cuzk_gpu_copy_roundtrip, the upload path (pinned slots or
// not, either lane) to the device and back, for test_gpu.
#include "context.cuh"

extern "C" int cuzk_gpu_copy_roundtrip(const void *src, size_t len, int lane, int pinned, void *out,
                                       cuzk_gpu_msg *msg)
{
    gpu::device_ctx *ctx;
    GPU_RC(gpu::get_device(0, &ctx, msg));
    if (lane != gpu::LANE_COMPUTE && lane != gpu::LANE_COPY)
        return gpu::fail_msg(msg, CUZK_ERR_INVALID_ARGUMENT, "no such copy lane");
    cudaStream_t st = lane == gpu::LANE_COPY ? ctx->copy_stream : ctx->stream;
    gpu::dev_buf<unsigned char> d;
    GPU_RC(d.alloc(len ? len : 1, st, msg));
    GPU_RC(gpu::copy_to_device(ctx, lane, d.p, src, len, st, pinned != 0, msg));
    if (len)
        GPU_TRY(msg, cudaMemcpyAsync(out, d.p, len, cudaMemcpyDeviceToHost, st));
    GPU_TRY(msg, cudaStreamSynchronize(st));
    return CUZK_OK;
}
