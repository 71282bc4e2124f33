/* Writing snarkjs's JSON: proof.json, public.json and the point helpers
 * verification_key.json uses. */
#include <string.h>

#include "../core/core.h"
#include "../util/util.h"
#include "decimal.h"
#include "json_out.h"
#include "snarkjs_json.h"

/* An Fq element given as its Montgomery image, as a decimal string. */
static void jo_fq(json_out *j, const curve_desc *c, const unsigned char *mont)
{
    unsigned char plain[48];
    char dec[128];
    cuzk_core()->fq_from_mont(c->id, plain, mont);
    decimal_from_le(dec, sizeof(dec), plain, c->n8q);
    jo_string(j, dec);
}

static void jo_strings(json_out *j, const char *a, const char *b)
{
    jo_array_begin(j);
    jo_string(j, a);
    jo_string(j, b);
    jo_array_end(j);
}

void jo_fq2(json_out *j, const curve_desc *c, const unsigned char *p)
{
    jo_array_begin(j);
    jo_fq(j, c, p);
    jo_fq(j, c, p + c->n8q);
    jo_array_end(j);
}

void jo_g1(json_out *j, const curve_desc *c, const unsigned char *p)
{
    jo_array_begin(j);
    if (bytes_all_zero(p, c->g1_bytes)) {
        jo_string(j, "0");
        jo_string(j, "1");
        jo_string(j, "0");
    } else {
        jo_fq(j, c, p);
        jo_fq(j, c, p + c->n8q);
        jo_string(j, "1");
    }
    jo_array_end(j);
}

void jo_g2(json_out *j, const curve_desc *c, const unsigned char *p)
{
    jo_array_begin(j);
    if (bytes_all_zero(p, c->g2_bytes)) {
        jo_strings(j, "0", "0");
        jo_strings(j, "1", "0");
        jo_strings(j, "0", "0");
    } else {
        jo_fq2(j, c, p);
        jo_fq2(j, c, p + 2 * c->n8q);
        jo_strings(j, "1", "0");
    }
    jo_array_end(j);
}

char *snarkjs_proof_json(const curve_desc *c, const unsigned char *a, const unsigned char *b,
                         const unsigned char *cpt)
{
    json_out j;
    jo_init(&j);
    jo_object_begin(&j);
    jo_key(&j, "pi_a");
    jo_g1(&j, c, a);
    jo_key(&j, "pi_b");
    jo_g2(&j, c, b);
    jo_key(&j, "pi_c");
    jo_g1(&j, c, cpt);
    jo_key(&j, "protocol");
    jo_string(&j, "groth16");
    jo_key(&j, "curve");
    jo_string(&j, c->name);
    jo_object_end(&j);
    return jo_finish(&j);
}

char *snarkjs_vk_json(const curve_desc *c, const unsigned char *alpha1, const unsigned char *beta2,
                      const unsigned char *gamma2, const unsigned char *delta2, const unsigned char *ic, size_t n_ic)
{
    size_t n8 = c->n8q;
    unsigned char e[12 * 48];
    cuzk_core()->pairing(c->id, e, alpha1, beta2);
    json_out j;
    jo_init(&j);
    jo_object_begin(&j);
    jo_key(&j, "protocol");
    jo_string(&j, "groth16");
    jo_key(&j, "curve");
    jo_string(&j, c->name);
    jo_key(&j, "nPublic");
    jo_uint(&j, n_ic - 1);
    jo_key(&j, "vk_alpha_1");
    jo_g1(&j, c, alpha1);
    jo_key(&j, "vk_beta_2");
    jo_g2(&j, c, beta2);
    jo_key(&j, "vk_gamma_2");
    jo_g2(&j, c, gamma2);
    jo_key(&j, "vk_delta_2");
    jo_g2(&j, c, delta2);
    jo_key(&j, "vk_alphabeta_12");
    jo_array_begin(&j);
    for (int c6 = 0; c6 < 2; c6++) {
        jo_array_begin(&j);
        for (int c2 = 0; c2 < 3; c2++)
            jo_fq2(&j, c, e + (size_t)(c6 * 3 + c2) * 2 * n8);
        jo_array_end(&j);
    }
    jo_array_end(&j);
    jo_key(&j, "IC");
    jo_array_begin(&j);
    for (size_t i = 0; i < n_ic; i++)
        jo_g1(&j, c, ic + i * c->g1_bytes);
    jo_array_end(&j);
    jo_object_end(&j);
    return jo_finish(&j);
}

char *snarkjs_public_json(const unsigned char *values, size_t n)
{
    json_out j;
    jo_init(&j);
    jo_array_begin(&j);
    for (size_t i = 0; i < n; i++) {
        char dec[96];
        decimal_from_le(dec, sizeof(dec), values + 32 * i, 32);
        jo_string(&j, dec);
    }
    jo_array_end(&j);
    return jo_finish(&j);
}
