// GPU discovery. Device code lives in .cu files behind extern "C" entry
// points that return cuzk status codes; no C++ exception crosses them.
#include <cuda_runtime.h>

#include "../../include/cuzk.h"

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
