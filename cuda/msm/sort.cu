// The MSM's one sort, compiled once (CUB's radix sort is the slowest
// template in the build).
#include <cub/device/device_radix_sort.cuh>

#include "msm.cuh"

namespace gpu {

int sort_pairs(uint32_t *keys, uint32_t *keys_alt, uint32_t *vals, uint32_t *vals_alt, size_t count,
               unsigned key_bits, const uint32_t **sorted_keys, const uint32_t **sorted_vals, cudaStream_t st,
               cuzk_gpu_msg *msg)
{
    if (count > (size_t)INT32_MAX)
        return fail_msg(msg, CUZK_ERR_UNSUPPORTED, "sort: more than 2^31 entries");
    cub::DoubleBuffer<uint32_t> dk(keys, keys_alt), dv(vals, vals_alt);
    size_t temp_bytes = 0;
    GPU_TRY(msg, cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, dk, dv, (int)count, 0, (int)key_bits, st));
    dev_buf<unsigned char> temp;
    GPU_RC(temp.alloc(temp_bytes, st, msg));
    GPU_TRY(msg, cub::DeviceRadixSort::SortPairs(temp.p, temp_bytes, dk, dv, (int)count, 0, (int)key_bits, st));
    *sorted_keys = dk.Current();
    *sorted_vals = dv.Current();
    return CUZK_OK;
}

} // namespace gpu
