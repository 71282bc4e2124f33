/* Each curve as the library outside the arithmetic core sees it: ids,
 * names, field and point sizes, the primes, the scalar field's two-adicity.
 * Per-curve facts live here; code elsewhere reads them from the descriptor
 * instead of testing which curve it has (the core's own dispatch, by id,
 * is in src/core/core.c and cuda/ec/curves.cuh). */
#ifndef CUZK_EC_CURVE_DESC_H
#define CUZK_EC_CURVE_DESC_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"

typedef struct curve_desc {
    int id;              /* cuzk_curve */
    const char *name;    /* snarkjs's name: "bn128", "bls12381" */
    const char *display; /* "BN254", "BLS12-381" */
    uint32_t n8q, n8r;   /* bytes per base-field and scalar-field element */
    const uint64_t *q, *r; /* the primes, little-endian limbs */
    size_t g1_bytes, g2_bytes; /* affine points in the .zkey layout */
    /* 2^two_adicity divides r - 1: the largest NTT domain is 2^two_adicity,
     * and the prover's odd coset of the 2n-domain needs n <= 2^(two_adicity - 1) */
    unsigned two_adicity;
    unsigned char r_top_mask; /* r's top byte's bits: a 32-byte value masked by it is below 2^bits(r) */
} curve_desc;

const curve_desc *curve_by_id(int id);
/* The curve whose base-field prime is the n8-byte little-endian integer q;
 * NULL if none. */
const curve_desc *curve_by_q(const unsigned char *q, uint32_t n8);
/* The curve whose scalar-field prime is r (n8 bytes, little-endian). */
const curve_desc *curve_by_r(const unsigned char *r, uint32_t n8);
/* By name as snarkjs normalizes it: upper-case, alphanumerics only, so
 * "bn128", "BN254", "alt_bn128", "bls12-381" and "BLS12381" all work. */
const curve_desc *curve_by_name(const char *name);

/* Writes the prime m (little-endian limbs) as n8 little-endian bytes. */
void curve_prime_bytes(unsigned char *out, const uint64_t *m, uint32_t n8);

/* 1 when the n8-byte little-endian integer v is below the prime m. */
int bytes_below(const unsigned char *v, const uint64_t *m, uint32_t n8);

/* Uniform in [0, r), 32 bytes little-endian, by rejection sampling from
 * `random` (NULL: the OS CSPRNG). CUZK_OK or CUZK_ERR_RANDOM. */
int curve_random_scalar(unsigned char out[32], const curve_desc *c, cuzk_random_fn random, void *random_ctx);

#endif
