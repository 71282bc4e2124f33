#include "curve_desc.h"

#include <ctype.h>
#include <string.h>

#include "../../include/cuzk.h"
#include "../field/params_bls12_381.h"
#include "../field/params_bn254.h"
#include "../util/rand.h"

static const uint64_t bn254_q[4] = BN254_FP_MODULUS, bn254_r[4] = BN254_FR_MODULUS;
static const uint64_t bls_q[6] = BLS12_381_FP_MODULUS, bls_r[4] = BLS12_381_FR_MODULUS;

/* two-adicity: BN254's r - 1 = 2^28 * odd, BLS12-381's 2^32 * odd */
static const curve_desc curves[] = {
    {CUZK_CURVE_BN254, "bn128", "BN254", 32, 32, bn254_q, bn254_r, 64, 128, 28, 0x3f},
    {CUZK_CURVE_BLS12_381, "bls12381", "BLS12-381", 48, 32, bls_q, bls_r, 96, 192, 32, 0x7f},
};

const curve_desc *curve_by_id(int id)
{
    for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++)
        if (curves[i].id == id)
            return &curves[i];
    return NULL;
}

static int bytes_equal_limbs(const unsigned char *b, const uint64_t *m, uint32_t n8)
{
    for (uint32_t i = 0; i < n8 / 8; i++)
        if (read_u64le(b + 8 * i) != m[i])
            return 0;
    return 1;
}

const curve_desc *curve_by_q(const unsigned char *q, uint32_t n8)
{
    for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++)
        if (curves[i].n8q == n8 && bytes_equal_limbs(q, curves[i].q, n8))
            return &curves[i];
    return NULL;
}

const curve_desc *curve_by_r(const unsigned char *r, uint32_t n8)
{
    for (size_t i = 0; i < sizeof(curves) / sizeof(curves[0]); i++)
        if (curves[i].n8r == n8 && bytes_equal_limbs(r, curves[i].r, n8))
            return &curves[i];
    return NULL;
}

const curve_desc *curve_by_name(const char *name)
{
    char norm[32];
    size_t n = 0;
    for (const char *c = name; *c; c++) {
        if (!isalnum((unsigned char)*c))
            continue;
        if (n + 1 >= sizeof(norm))
            return NULL;
        norm[n++] = (char)toupper((unsigned char)*c);
    }
    norm[n] = '\0';
    if (!strcmp(norm, "BN128") || !strcmp(norm, "BN254") || !strcmp(norm, "ALTBN128"))
        return curve_by_id(CUZK_CURVE_BN254);
    if (!strcmp(norm, "BLS12381"))
        return curve_by_id(CUZK_CURVE_BLS12_381);
    return NULL;
}

int bytes_below(const unsigned char *v, const uint64_t *m, uint32_t n8)
{
    for (uint32_t i = n8 / 8; i-- > 0;) {
        uint64_t x = read_u64le(v + 8 * i);
        if (x != m[i])
            return x < m[i];
    }
    return 0;
}

void curve_prime_bytes(unsigned char *out, const uint64_t *m, uint32_t n8)
{
    for (uint32_t i = 0; i < n8 / 8; i++)
        for (int k = 0; k < 8; k++)
            out[8 * i + k] = (unsigned char)(m[i] >> (8 * k));
}

int curve_random_scalar(unsigned char out[32], const curve_desc *c, cuzk_random_fn random, void *random_ctx)
{
    for (;;) {
        int rc = cuzk_random_bytes(random, random_ctx, out, 32);
        if (rc != CUZK_OK)
            return rc;
        out[31] &= c->r_top_mask;
        if (bytes_below(out, c->r, 32))
            return CUZK_OK;
    }
}
