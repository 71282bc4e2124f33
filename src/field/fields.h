/* The fields of both curves, stamped from one implementation:
 *
 *   bls12_381_fp (6 limbs)  bls12_381_fr (4)  bls12_381_fp2
 *   bn254_fp     (4 limbs)  bn254_fr     (4)  bn254_fp2
 */
#ifndef CUZK_FIELD_FIELDS_H
#define CUZK_FIELD_FIELDS_H

#include "../../include/cuzk.h"
#include "../util/rand.h"
#include "mont.h"
#include "params_bls12_381.h"
#include "params_bn254.h"

#define FIELD bls12_381_fp
#define FIELD_C BLS12_381_FP
#include "field_impl.h"

#define FIELD bls12_381_fr
#define FIELD_C BLS12_381_FR
#include "field_impl.h"

#define FIELD bn254_fp
#define FIELD_C BN254_FP
#include "field_impl.h"

#define FIELD bn254_fr
#define FIELD_C BN254_FR
#include "field_impl.h"

#define FP2 bls12_381_fp2
#define FP bls12_381_fp
#define FP_C BLS12_381_FP
#include "fp2_impl.h"

#define FP2 bn254_fp2
#define FP bn254_fp
#define FP_C BN254_FP
#include "fp2_impl.h"

#endif
