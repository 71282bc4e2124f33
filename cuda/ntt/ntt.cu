// The NTT domains the prover uses, instantiated once for both scalar
// fields (ntt_impl.cuh); the test kit's entry points are in ntt_test.cu.
#include "../ec/curves.cuh"
#include "../util/gpu.cuh"
#include "ntt_impl.cuh"

namespace gpu {

template struct ntt_domain<bls12_381_fr>;
template struct ntt_domain<bn254_fr>;

} // namespace gpu
