// The prover's H step on the device: c = a o b, the three to the odd
// coset, a = a b - c there. prove.cu runs it in every proof; the test
// kit's bench_h (prove_test.cu) times it alone.
#pragma once

#include "../ntt/ntt.cuh"
#include "../util/context.cuh"

namespace gpu {

// c = a o b
template <class F> __global__ void h_product(const F *a, const F *b, F *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] * b[i];
}

// a = a b - c, as plain integers (the H MSM's scalars)
template <class F> __global__ void h_combine(F *a, const F *b, const F *c, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] = (a[i] * b[i] - c[i]).from_mont();
}

// H's scalars from a, b on the n-domain (db, dc: scratch): c = a o b, all
// three to the odd coset (two transforms each: six in all, the fewest the
// odd-coset form allows), then a = a b - c there, as plain integers.
template <class Fr>
int h_evaluations(const ntt_domain<Fr> &dom, Fr *a, Fr *b, Fr *c, cudaStream_t st, cuzk_gpu_msg *msg)
{
    const size_t n = (size_t)1 << dom.log_n;
    h_product<Fr><<<blocks_for(n, 256), 256, 0, st>>>(a, b, c, n);
    GPU_LAUNCHED(msg, "h_product");
    GPU_RC(dom.to_odd_coset(a, st, msg));
    GPU_RC(dom.to_odd_coset(b, st, msg));
    GPU_RC(dom.to_odd_coset(c, st, msg));
    h_combine<Fr><<<blocks_for(n, 256), 256, 0, st>>>(a, b, c, n);
    GPU_LAUNCHED(msg, "h_combine");
    return CUZK_OK;
}

} // namespace gpu
