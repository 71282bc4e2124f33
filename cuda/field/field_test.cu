// Test entry points: field operations over arrays, on the device,
// for tests/test_gpu.c to compare with the CPU implementation.
#include "field.cuh"
#include "../util/context.cuh"

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

} // namespace gpu

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

