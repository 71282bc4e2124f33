/* The NTTs of both scalar fields: bls12_381_fr_ntt_*, bn254_fr_ntt_*. */
#ifndef CUZK_NTT_NTTS_H
#define CUZK_NTT_NTTS_H

#include <omp.h>
#include <stdlib.h>

#include "../field/fields.h"

#define NTT_FR bls12_381_fr
#define NTT_C BLS12_381_FR
#include "ntt_impl.h"

#define NTT_FR bn254_fr
#define NTT_C BN254_FR
#include "ntt_impl.h"

#endif
