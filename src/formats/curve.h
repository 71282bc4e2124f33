/* What the file readers need to know of each curve: field sizes, primes,
 * point sizes in the .zkey layout, names. */
#ifndef CUZK_FORMATS_CURVE_H
#define CUZK_FORMATS_CURVE_H

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

struct binfile;
/* The header section shared by .wtns and .r1cs: u32 n8 (= 32), the
 * scalar-field prime, then `rest` more bytes (so the section holds exactly
 * 4 + 32 + rest). Sets *curve and *body (the bytes after the prime); on
 * failure a message naming the file and section 1. */
int scalar_header(const struct binfile *bf, uint32_t rest, const curve_desc **curve, const unsigned char **body,
                  cuzk_error *err);

/* Writes the prime m (little-endian limbs) as n8 little-endian bytes. */
void curve_prime_bytes(unsigned char *out, const uint64_t *m, uint32_t n8);

/* 1 when the n8-byte little-endian integer v is below the prime m. */
int bytes_below(const unsigned char *v, const uint64_t *m, uint32_t n8);

/* Uniform in [0, r) from the OS CSPRNG (rejection sampling), 32 bytes
 * little-endian. CUZK_OK or CUZK_ERR_RANDOM. */
int curve_random_scalar(unsigned char out[32], const curve_desc *c);

#endif
