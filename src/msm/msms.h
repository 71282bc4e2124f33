/* The CPU MSMs of the four groups: bls12_381_g1_msm_*, ..., bn254_g2_msm_*. */
#ifndef CUZK_MSM_MSMS_H
#define CUZK_MSM_MSMS_H

#include <omp.h>
#include <stdlib.h>

#include "../ec/curves.h"

#define MSM_G bls12_381_g1
#define MSM_F bls12_381_fp
#include "msm_impl.h"

#define MSM_G bls12_381_g2
#define MSM_F bls12_381_fp2
#include "msm_impl.h"

#define MSM_G bn254_g1
#define MSM_F bn254_fp
#include "msm_impl.h"

#define MSM_G bn254_g2
#define MSM_F bn254_fp2
#include "msm_impl.h"

#endif
