#include "device.h"

#include "../util/error.h"

int device_gpus(int want, int *gpus, cuzk_error *err)
{
    *gpus = 0;
    if (want == CUZK_DEVICE_CPU)
        return CUZK_OK;
    if (want != CUZK_DEVICE_AUTO && want != CUZK_DEVICE_GPU)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "device must be auto, cpu or gpu (%d, %d or %d), got %d",
                              CUZK_DEVICE_AUTO, CUZK_DEVICE_CPU, CUZK_DEVICE_GPU, want);
    int count = 0;
    int rc = cuzk_gpu_count(&count);
    if (rc != CUZK_OK && want == CUZK_DEVICE_GPU)
        return cuzk_error_set(err, rc, "cannot list the GPUs: the CUDA runtime failed");
    if (rc != CUZK_OK || count <= 0) {
        if (want == CUZK_DEVICE_GPU)
            return cuzk_error_set(err, CUZK_ERR_NO_DEVICE, "%s",
                                  cuzk_has_cuda() ? "no CUDA GPU found (device gpu was asked for)"
                                                  : "this cuzk was built without CUDA (device gpu was asked for)");
        return CUZK_OK;
    }
    *gpus = count;
    return CUZK_OK;
}

int device_choose(int want, int gpu, int *gpu_out, cuzk_error *err)
{
    *gpu_out = -1;
    int count;
    int rc = device_gpus(want, &count, err);
    if (rc != CUZK_OK || count == 0)
        return rc;
    if (gpu < 0 || gpu >= count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "GPU %d does not exist (found %d)", gpu, count);
    *gpu_out = gpu;
    return CUZK_OK;
}
