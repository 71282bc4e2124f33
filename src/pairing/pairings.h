/* The optimal ate pairing of both curves, stamped from pairing_impl.h:
 * bls12_381_multi_pairing_var, bn254_pairing_var, ... */
#ifndef CUZK_PAIRING_PAIRINGS_H
#define CUZK_PAIRING_PAIRINGS_H

#include "../ec/curves.h"

#define PAIRING bls12_381
#define PAIRING_BN 0
#include "pairing_impl.h"

#define PAIRING bn254
#define PAIRING_BN 1
#include "pairing_impl.h"

#endif
