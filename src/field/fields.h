/* The fields of both curves, stamped from one implementation:
 *
 *   bls12_381_fp (6 limbs)  bls12_381_fr (4)  bls12_381_fp2
 *   bn254_fp     (4 limbs)  bn254_fr     (4)  bn254_fp2
 *
 * and the pairing's towers bls12_381_fp6/_fp12, bn254_fp6/_fp12.
 */
#ifndef CUZK_FIELD_FIELDS_H
#define CUZK_FIELD_FIELDS_H

#include "../../include/cuzk.h"
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
#define FP2_XI_C0 BLS12_381_FP2_XI_C0
#include "fp2_impl.h"

#define FP2 bn254_fp2
#define FP bn254_fp
#define FP_C BN254_FP
#define FP2_XI_C0 BN254_FP2_XI_C0
#include "fp2_impl.h"

#define FP6 bls12_381_fp6
#define FP2 bls12_381_fp2
#define FP6_C BLS12_381
#include "fp6_impl.h"

#define FP6 bn254_fp6
#define FP2 bn254_fp2
#define FP6_C BN254
#include "fp6_impl.h"

#define FP12 bls12_381_fp12
#define FP6 bls12_381_fp6
#define FP2 bls12_381_fp2
#define FP12_C BLS12_381
#include "fp12_impl.h"

#define FP12 bn254_fp12
#define FP6 bn254_fp6
#define FP2 bn254_fp2
#define FP12_C BN254
#include "fp12_impl.h"

#endif
