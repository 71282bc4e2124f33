/* snarkjs Groth16 proving keys (.zkey), read in place from a mapped file
 * (notes/snarkjs-groth16-formats.md §2). */
#ifndef CUZK_FORMATS_ZKEY_H
#define CUZK_FORMATS_ZKEY_H

#include "binfile.h"
#include "binwriter.h"
#include "curve.h"

enum {
    ZKEY_SEC_PROTOCOL = 1,
    ZKEY_SEC_HEADER = 2,
    ZKEY_SEC_IC = 3,
    ZKEY_SEC_COEFS = 4,
    ZKEY_SEC_A = 5,
    ZKEY_SEC_B1 = 6,
    ZKEY_SEC_B2 = 7,
    ZKEY_SEC_C = 8,
    ZKEY_SEC_H = 9,
    ZKEY_SEC_CONTRIBUTIONS = 10,
};

/* One coefficient entry of section 4: value = coef * R^2 mod r, plain LE. */
typedef struct zkey_coef {
    uint32_t matrix;     /* 0 = A, 1 = B */
    uint32_t constraint; /* row, < domain size */
    uint32_t signal;     /* column, < nVars */
    const unsigned char *value;
} zkey_coef;

/* GPUs a key can be resident on at once (the engine's CUZK_ENGINE_MAX_GPUS) */
#define ZKEY_MAX_GPUS 16

struct cuzk_zkey {
    binfile bf;
    const curve_desc *curve;
    uint32_t n_vars, n_public, domain_size;
    uint64_t n_coefs;
    /* verification-key points inside section 2 */
    const unsigned char *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    const unsigned char *ic;    /* n_public + 1 G1 */
    const unsigned char *coefs; /* n_coefs entries of 12 + n8r bytes */
    const unsigned char *a, *b1, *b2, *c, *h;
    /* the key's points on each GPU, uploaded by the first proof there and
     * kept until cuzk_zkey_free or the engine's memory plan drops them
     * (src/groth16/prove.c; NULL where none) */
    struct cuzk_gpu_key *gpu_key[ZKEY_MAX_GPUS];
    void (*gpu_key_free)(struct cuzk_gpu_key *);
    int gpu_key_state[ZKEY_MAX_GPUS]; /* 0 not tried, 1 uploaded, 2 the upload failed: */
    int gpu_key_rc[ZKEY_MAX_GPUS];    /* its status */
    char gpu_key_error[320];          /* the last failure's message */
};

/* Everything a .zkey holds, for writing one. Points are in the .zkey
 * layout (Montgomery, little-endian); coefs are n_coefs raw entries of
 * 12 + n8r bytes; contributions (section 10) may be NULL. */
typedef struct zkey_parts {
    const curve_desc *curve;
    uint32_t n_vars, n_public, domain_size;
    const unsigned char *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    const unsigned char *ic, *coefs, *a, *b1, *b2, *c, *h;
    uint64_t n_coefs;
    const unsigned char *contributions;
    uint64_t contributions_size;
} zkey_parts;

/* Writes a key (version 1, sections 1 to 9 in order, then 10 if present)
 * through binwriter: atomically, or not at all. */
int zkey_write(const char *path, const zkey_parts *p, cuzk_error *err);

/* The parts of an opened key (pointers into its mapping). */
void zkey_parts_of(const struct cuzk_zkey *zk, zkey_parts *p);

static inline zkey_coef zkey_coef_at(const struct cuzk_zkey *zk, uint64_t i)
{
    const unsigned char *p = zk->coefs + i * (12 + zk->curve->n8r);
    return (zkey_coef){read_u32le(p), read_u32le(p + 4), read_u32le(p + 8), p + 12};
}

#endif
