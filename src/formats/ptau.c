#include "ptau.h"

#include <string.h>

#include "../util/error.h"

static const unsigned char *sized(const binfile *bf, uint32_t id, const char *what, uint64_t points,
                                  size_t point_bytes, cuzk_error *err)
{
    const binfile_section *s = binfile_require(bf, id, what, err);
    if (!s)
        return NULL;
    if (s->size != points * point_bytes) {
        cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section %u (%s) has %llu bytes, expected %llu (%llu points)",
                       bf->name, id, what, (unsigned long long)s->size, (unsigned long long)(points * point_bytes),
                       (unsigned long long)points);
        return NULL;
    }
    return binfile_data(bf, s);
}

static int ptau_parse(ptau_file *p, cuzk_error *err)
{
    const binfile *bf = &p->bf;
    const binfile_section *h = binfile_require(bf, PTAU_SEC_HEADER, "header", err);
    if (!h)
        return err ? err->code : CUZK_ERR_FORMAT;
    const unsigned char *d = binfile_data(bf, h);
    uint32_t n8 = h->size >= 4 ? read_u32le(d) : 0;
    if ((n8 != 32 && n8 != 48) || h->size != 4ULL + n8 + 8)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 1 (header): expected n8 (32 or 48), the prime, power and ceremony power "
                              "(%u bytes), found %llu bytes with n8 = %u",
                              bf->name, n8 == 48 ? 60 : 44, (unsigned long long)h->size, n8);
    p->curve = curve_by_q(d + 4, n8);
    if (!p->curve)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: section 1 (header): the prime is neither BN254's nor BLS12-381's base field",
                              bf->name);
    p->power = read_u32le(d + 4 + n8);
    p->ceremony_power = read_u32le(d + 8 + n8);
    if (p->power < 1 || p->power > 30)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 1 (header): power %u, expected 1 to 30", bf->name,
                              p->power);
    size_t g1 = p->curve->g1_bytes, g2 = p->curve->g2_bytes;
    uint64_t n = (uint64_t)1 << p->power;
    for (uint32_t id = PTAU_SEC_LAGRANGE_G1; id <= PTAU_SEC_LAGRANGE_BETA_G1; id++)
        if (!binfile_require(bf, id, "Lagrange basis", NULL))
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: not prepared for phase 2 (no section %u); run `snarkjs powersoftau prepare "
                                  "phase2` on it",
                                  bf->name, id);
    if (!(p->tau_g1 = sized(bf, PTAU_SEC_TAU_G1, "tau G1", 2 * n - 1, g1, err)) ||
        !sized(bf, PTAU_SEC_TAU_G2, "tau G2", n, g2, err) ||
        !(p->alpha_tau_g1 = sized(bf, PTAU_SEC_ALPHA_TAU_G1, "alpha tau G1", n, g1, err)) ||
        !(p->beta_tau_g1 = sized(bf, PTAU_SEC_BETA_TAU_G1, "beta tau G1", n, g1, err)) ||
        !(p->beta_g2 = sized(bf, PTAU_SEC_BETA_G2, "beta G2", 1, g2, err)) ||
        !(p->lagrange_g1 = sized(bf, PTAU_SEC_LAGRANGE_G1, "Lagrange tau G1", 4 * n - 1, g1, err)) ||
        !(p->lagrange_g2 = sized(bf, PTAU_SEC_LAGRANGE_G2, "Lagrange tau G2", 2 * n - 1, g2, err)) ||
        !(p->lagrange_alpha_g1 = sized(bf, PTAU_SEC_LAGRANGE_ALPHA_G1, "Lagrange alpha tau G1", 2 * n - 1, g1, err)) ||
        !(p->lagrange_beta_g1 = sized(bf, PTAU_SEC_LAGRANGE_BETA_G1, "Lagrange beta tau G1", 2 * n - 1, g1, err)))
        return err ? err->code : CUZK_ERR_FORMAT;
    return CUZK_OK;
}

int ptau_open(ptau_file *p, const char *path, cuzk_error *err)
{
    memset(p, 0, sizeof(*p));
    int rc = binfile_open(&p->bf, path, NULL, BINFILE_MAP, "ptau", 1, NULL, err); /* up to 2^28 powers: read in parts */
    if (rc == CUZK_OK && (rc = ptau_parse(p, err)) != CUZK_OK)
        binfile_close(&p->bf);
    return rc;
}

void ptau_close(ptau_file *p)
{
    binfile_close(&p->bf);
}
