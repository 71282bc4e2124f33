// The two curves' device types, for dispatch from a runtime cuzk_curve.
#pragma once

#include "../../include/cuzk.h"
#include "xyzz.cuh"

namespace gpu {

struct bls12_381_curve {
    typedef bls12_381_fp fp;
    typedef bls12_381_fp2 fp2;
    typedef bls12_381_fr fr;
};
struct bn254_curve {
    typedef bn254_fp fp;
    typedef bn254_fp2 fp2;
    typedef bn254_fr fr;
};

// Calls body with `Curve` bound to the curve type; other values fall through.
#define GPU_DISPATCH_CURVE(curve, ...)                                                                  \
    do {                                                                                                \
        if ((curve) == CUZK_CURVE_BLS12_381) {                                                          \
            typedef ::gpu::bls12_381_curve Curve;                                                       \
            __VA_ARGS__;                                                                                \
        } else if ((curve) == CUZK_CURVE_BN254) {                                                       \
            typedef ::gpu::bn254_curve Curve;                                                           \
            __VA_ARGS__;                                                                                \
        }                                                                                               \
    } while (0)

} // namespace gpu
