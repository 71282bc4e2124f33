// The MSM templates compiled for one group (one file per group so that the
// four compile in parallel).
#include "msm_impl.cuh"

namespace gpu {
GPU_MSM_INSTANTIATE(bls12_381_fp)

// The largest local memory a thread of the default accumulation takes
// (BLS12-381 G1's 64 lanes; BN254's and G2's kernels take less).
int msm_reserve_local_memory(cuzk_gpu_msg *msg)
{
    cudaFuncAttributes a;
    GPU_TRY(msg, cudaFuncGetAttributes(&a, msm_accumulate_affine<bls12_381_fp, 256, 64>));
    size_t have = 0;
    GPU_TRY(msg, cudaDeviceGetLimit(&have, cudaLimitStackSize));
    if (a.localSizeBytes > have) // device-global: once, at the device's first use
        GPU_TRY(msg, cudaDeviceSetLimit(cudaLimitStackSize, a.localSizeBytes));
    return CUZK_OK;
}
} // namespace gpu
