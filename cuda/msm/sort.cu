// The CUB algorithms, compiled once (CUB's radix sort is the slowest
// template in the build): the MSM's sort and the witness split's scans.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

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

// flags of the plain 32-byte witness values: 1 (one), other nonzero (tail)
static __global__ void witness_flags(const uint32_t *w, size_t n, uint32_t *is_one, uint32_t *is_tail)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint4 *p = (const uint4 *)(w + 8 * i);
    uint4 lo = p[0], hi = p[1];
    uint32_t rest = lo.y | lo.z | lo.w | hi.x | hi.y | hi.z | hi.w;
    is_one[i] = rest == 0 && lo.x == 1;
    is_tail[i] = rest != 0 || lo.x > 1;
}

static __global__ void witness_scatter(const uint32_t *is_one, const uint32_t *is_tail, const uint32_t *pos_one,
                                       const uint32_t *pos_tail, size_t n, uint32_t *ones, uint32_t *tail)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (is_one[i])
        ones[pos_one[i]] = (uint32_t)i;
    if (is_tail[i])
        tail[pos_tail[i]] = (uint32_t)i;
}

// counts: ones, tail, ones past the publics, tail past them, and where
// those start in the full lists
static __global__ void witness_counts(const uint32_t *is_one, const uint32_t *is_tail, const uint32_t *pos_one,
                                      const uint32_t *pos_tail, size_t n, uint32_t first_c, uint32_t *counts)
{
    uint32_t n_one = pos_one[n - 1] + is_one[n - 1], n_tail = pos_tail[n - 1] + is_tail[n - 1];
    uint32_t k1 = first_c < n ? pos_one[first_c] : n_one, k2 = first_c < n ? pos_tail[first_c] : n_tail;
    counts[0] = n_one;
    counts[1] = n_tail;
    counts[2] = n_one - k1;
    counts[3] = n_tail - k2;
    counts[4] = k1;
    counts[5] = k2;
}

// the lists past the publics, relative to the first private signal
static __global__ void witness_relative(const uint32_t *ones, const uint32_t *tail, const uint32_t *counts,
                                        uint32_t first_c, size_t n, uint32_t *ones_c, uint32_t *tail_c)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    if (i < counts[2])
        ones_c[i] = ones[counts[4] + i] - first_c;
    if (i < counts[3])
        tail_c[i] = tail[counts[5] + i] - first_c;
}

int witness_split(const uint32_t *wit, size_t n_vars, uint32_t first_c, uint32_t *ones, uint32_t *tail,
                  uint32_t *ones_c, uint32_t *tail_c, uint32_t *d_counts, cudaStream_t st, cuzk_gpu_msg *msg)
{
    if (n_vars == 0 || n_vars > (size_t)INT32_MAX)
        return fail_msg(msg, CUZK_ERR_UNSUPPORTED, "witness split: 1 to 2^31 values");
    dev_buf<uint32_t> flags;
    GPU_RC(flags.alloc(4 * n_vars, st, msg));
    uint32_t *is_one = flags.p, *is_tail = is_one + n_vars, *pos_one = is_tail + n_vars, *pos_tail = pos_one + n_vars;
    witness_flags<<<blocks_for(n_vars, 256), 256, 0, st>>>(wit, n_vars, is_one, is_tail);
    GPU_LAUNCHED(msg, "witness_flags");
    size_t temp_bytes = 0;
    GPU_TRY(msg, cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, is_one, pos_one, (int)n_vars, st));
    dev_buf<unsigned char> temp;
    GPU_RC(temp.alloc(temp_bytes, st, msg));
    GPU_TRY(msg, cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, is_one, pos_one, (int)n_vars, st));
    GPU_TRY(msg, cub::DeviceScan::ExclusiveSum(temp.p, temp_bytes, is_tail, pos_tail, (int)n_vars, st));
    witness_scatter<<<blocks_for(n_vars, 256), 256, 0, st>>>(is_one, is_tail, pos_one, pos_tail, n_vars, ones, tail);
    GPU_LAUNCHED(msg, "witness_scatter");
    witness_counts<<<1, 1, 0, st>>>(is_one, is_tail, pos_one, pos_tail, n_vars, first_c, d_counts);
    GPU_LAUNCHED(msg, "witness_counts");
    witness_relative<<<blocks_for(n_vars, 256), 256, 0, st>>>(ones, tail, d_counts, first_c, n_vars, ones_c, tail_c);
    GPU_LAUNCHED(msg, "witness_relative");
    return CUZK_OK;
}

} // namespace gpu
