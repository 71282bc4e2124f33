// The MSM templates compiled for one group (one file per group so that the
// four compile in parallel).
#include "msm_impl.cuh"

namespace gpu {
GPU_MSM_INSTANTIATE(bls12_381_fp)
} // namespace gpu
