/* Where work of a cuzk_device runs: the one place a device choice (auto,
 * cpu, gpu) and a GPU index meet the machine, for every caller (a proof's
 * prepare, an engine's start, a setup). */
#ifndef CUZK_GPU_DEVICE_H
#define CUZK_GPU_DEVICE_H

#include "../../include/cuzk.h"

/* The GPUs work of device `want` may use: 0 for CPU, or for AUTO without
 * any; with GPU and none, CUZK_ERR_NO_DEVICE (the CUDA runtime failing:
 * CUZK_ERR_CUDA) saying why. CUZK_ERR_INVALID_ARGUMENT for an unknown
 * choice. */
int device_gpus(int want, int *gpus, cuzk_error *err);

/* The GPU one piece of work runs on (*gpu_out; -1: the CPU): with GPU
 * `gpu` (it must exist), with AUTO `gpu` when there is one (else the CPU),
 * with CPU none. Errors as device_gpus's, and CUZK_ERR_INVALID_ARGUMENT
 * for a GPU that does not exist. */
int device_choose(int want, int gpu, int *gpu_out, cuzk_error *err);

#endif
