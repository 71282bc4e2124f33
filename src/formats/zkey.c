#include "zkey.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/core.h"
#include "../util/error.h"
#include "point_check.h"
#include "snarkjs_json.h"
#include "../util/cores.h"

/* The data of section `id`, which must hold exactly `expected` bytes. */
static const unsigned char *section_exact(const binfile *bf, uint32_t id, const char *what, uint64_t expected,
                                          const char *why, cuzk_error *err)
{
    const binfile_section *s = binfile_require(bf, id, what, err);
    if (!s)
        return NULL;
    if (s->size != expected) {
        cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section %u (%s) has %llu bytes, expected %llu (%s)", bf->name, id,
                       what, (unsigned long long)s->size, (unsigned long long)expected, why);
        return NULL;
    }
    return binfile_data(bf, s);
}

static int check_vk_point(const struct cuzk_zkey *zk, const unsigned char *p, int group, const char *what,
                          cuzk_error *err)
{
    size_t bad;
    int rc = cuzk_core()->check_points(zk->curve->id, group, p, 1, 1, &bad);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "%s: section 2 (header): %s: %s", zk->bf.name, what, cuzk_strerror(rc));
    char where[48];
    snprintf(where, sizeof(where), "section 2 (header): %s", what);
    return key_point_not_infinity(p, group == 1 ? zk->curve->g1_bytes : zk->curve->g2_bytes, zk->bf.name, where,
                                  err);
}

static int zkey_parse(struct cuzk_zkey *zk, cuzk_error *err)
{
    const binfile *bf = &zk->bf;
    const char *name = bf->name;
    const unsigned char *p = section_exact(bf, ZKEY_SEC_PROTOCOL, "protocol", 4, "one u32", err);
    if (!p)
        return err ? err->code : CUZK_ERR_FORMAT;
    uint32_t protocol = read_u32le(p);
    if (protocol != 1) {
        const char *known = protocol == 2 ? " (PLONK)" : protocol == 10 ? " (FFLONK)" : "";
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: not a Groth16 key: protocol %u%s, expected 1 (Groth16)",
                              name, protocol, known);
    }

    const binfile_section *hs = binfile_require(bf, ZKEY_SEC_HEADER, "Groth16 header", err);
    if (!hs)
        return err ? err->code : CUZK_ERR_FORMAT;
    const unsigned char *h = binfile_data(bf, hs);
    uint64_t hsize = hs->size;
    if (hsize < 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 2 (header) has %llu bytes, too short for n8q", name,
                              (unsigned long long)hsize);
    uint32_t n8q = read_u32le(h);
    if (n8q != 32 && n8q != 48)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 2 (header): base-field size n8q = %u, expected 32 (BN254) or 48 (BLS12-381)",
                              name, n8q);
    if (hsize < 4 + (uint64_t)n8q + 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 2 (header) has %llu bytes, too short for q and n8r",
                              name, (unsigned long long)hsize);
    zk->curve = curve_by_q(h + 4, n8q);
    if (!zk->curve)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: section 2 (header): the base-field prime q is neither BN254's nor BLS12-381's", name);
    uint32_t n8r = read_u32le(h + 4 + n8q);
    uint64_t expected = 4 + (uint64_t)n8q + 4 + n8r + 12 + 3 * zk->curve->g1_bytes + 3 * zk->curve->g2_bytes;
    if (n8r != zk->curve->n8r)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 2 (header): scalar size n8r = %u, expected %u for %s",
                              name, n8r, zk->curve->n8r, zk->curve->display);
    if (hsize != expected)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 2 (header) has %llu bytes, expected %llu for %s",
                              name, (unsigned long long)hsize, (unsigned long long)expected, zk->curve->display);
    if (curve_by_r(h + 8 + n8q, n8r) != zk->curve)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 2 (header): the scalar-field prime r is not %s's, though q is", name,
                              zk->curve->display);
    const unsigned char *q = h + 8 + n8q + n8r;
    zk->n_vars = read_u32le(q);
    zk->n_public = read_u32le(q + 4);
    zk->domain_size = read_u32le(q + 8);
    if (zk->n_vars < 1 || (uint64_t)zk->n_public + 1 > zk->n_vars)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 2 (header): nPublic = %u needs nVars >= nPublic + 1, found nVars = %u", name,
                              zk->n_public, zk->n_vars);
    if (zk->domain_size == 0 || (zk->domain_size & (zk->domain_size - 1)) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 2 (header): domain size %u is not a power of two",
                              name, zk->domain_size);
    const unsigned char *pt = q + 12;
    size_t g1 = zk->curve->g1_bytes, g2 = zk->curve->g2_bytes;
    zk->alpha1 = pt;
    zk->beta1 = pt + g1;
    zk->beta2 = pt + 2 * g1;
    zk->gamma2 = pt + 2 * g1 + g2;
    zk->delta1 = pt + 2 * g1 + 2 * g2;
    zk->delta2 = pt + 3 * g1 + 2 * g2;
    int rc;
    if ((rc = check_vk_point(zk, zk->alpha1, 1, "alpha1", err)) || (rc = check_vk_point(zk, zk->beta1, 1, "beta1", err)) ||
        (rc = check_vk_point(zk, zk->beta2, 2, "beta2", err)) || (rc = check_vk_point(zk, zk->gamma2, 2, "gamma2", err)) ||
        (rc = check_vk_point(zk, zk->delta1, 1, "delta1", err)) || (rc = check_vk_point(zk, zk->delta2, 2, "delta2", err)))
        return rc;

    uint64_t nv = zk->n_vars, npub1 = (uint64_t)zk->n_public + 1;
    if (!(zk->ic = section_exact(bf, ZKEY_SEC_IC, "IC", npub1 * g1, "nPublic + 1 G1 points", err)))
        return err ? err->code : CUZK_ERR_FORMAT;
    size_t bad;
    rc = cuzk_core()->check_points(zk->curve->id, 1, zk->ic, npub1, 1, &bad);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "%s: section 3 (IC): point %zu: %s", name, bad, cuzk_strerror(rc));

    const binfile_section *cs = binfile_require(bf, ZKEY_SEC_COEFS, "coefficients", err);
    if (!cs)
        return err ? err->code : CUZK_ERR_FORMAT;
    if (cs->size < 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 4 (coefficients) has %llu bytes, too short for a count",
                              name, (unsigned long long)cs->size);
    zk->n_coefs = read_u32le(binfile_data(bf, cs));
    uint64_t csize = 4 + zk->n_coefs * ZKEY_COEF_BYTES; /* n8r = 32, checked above */
    if (cs->size != csize)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 4 (coefficients) has %llu bytes, expected %llu for the %llu entries it declares",
                              name, (unsigned long long)cs->size, (unsigned long long)csize,
                              (unsigned long long)zk->n_coefs);
    zk->coefs = binfile_data(bf, cs) + 4;
    if (!(zk->a = section_exact(bf, ZKEY_SEC_A, "A", nv * g1, "nVars G1 points", err)) ||
        !(zk->b1 = section_exact(bf, ZKEY_SEC_B1, "B1", nv * g1, "nVars G1 points", err)) ||
        !(zk->b2 = section_exact(bf, ZKEY_SEC_B2, "B2", nv * g2, "nVars G2 points", err)) ||
        !(zk->c = section_exact(bf, ZKEY_SEC_C, "C", (nv - npub1) * g1, "nVars - nPublic - 1 G1 points", err)) ||
        !(zk->h = section_exact(bf, ZKEY_SEC_H, "H", (uint64_t)zk->domain_size * g1, "domain size G1 points", err)))
        return err ? err->code : CUZK_ERR_FORMAT;
    zk->n_a = zk->n_b = zk->n_vars;
    zk->n_h = zk->domain_size;
    return CUZK_OK;
}

BINFILE_DEFINE_OPEN(zkey, zkey_file, "zkey", 2)

void cuzk_zkey_get_info(const cuzk_zkey *zk, cuzk_zkey_info *info)
{
    memset(info, 0, sizeof(*info));
    info->curve = zk->curve->id;
    info->version = zk->bf.version;
    info->n_vars = zk->n_vars;
    info->n_public = zk->n_public;
    info->domain_size = zk->domain_size;
    info->n_coefs = zk->n_coefs;
    info->file_size = zk->bf.size;
}

/* ------------------------------------------------------------ full check */

/* One section's points: canonical, on the curve, in the subgroup when
 * asked. */
typedef struct section_check {
    const struct cuzk_zkey *zk;
    int group, subgroup;
} section_check;

static int check_zkey_points(const void *ctx, const unsigned char *pts, size_t n, size_t *bad)
{
    const section_check *c = ctx;
    return cuzk_core()->check_points(c->zk->curve->id, c->group, pts, n, c->subgroup, bad);
}

static int check_section(const struct cuzk_zkey *zk, const unsigned char *pts, size_t n, int group, int subgroup,
                         int threads, uint32_t id, const char *what, const progress_sink *progress,
                         unsigned long long base, unsigned long long total, cuzk_error *err)
{
    section_check c = {zk, group, subgroup};
    size_t bad = 0, point_bytes = group == 1 ? zk->curve->g1_bytes : zk->curve->g2_bytes;
    int rc = point_check_parallel(pts, n, point_bytes, check_zkey_points, &c, threads, progress, base, total, &bad);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "%s: section %u (%s): point %zu of %zu: %s", zk->bf.name, id, what, bad, n,
                              cuzk_strerror(rc));
    return CUZK_OK;
}

int cuzk_zkey_check(const cuzk_zkey *zk, int subgroup, int threads, cuzk_error *err)
{
    return cuzk_zkey_check_progress(zk, subgroup, threads, NULL, NULL, err);
}

int cuzk_zkey_check_progress(const cuzk_zkey *zk, int subgroup, int threads, cuzk_progress_fn progress,
                             void *progress_ctx, cuzk_error *err)
{
    if (!zk)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_zkey_check: NULL key");
    if (threads <= 0)
        threads = cpu_cores();
    /* a .params key holds its circuit's matrices instead of entries (checked
     * as they were made from the circuit: src/groth16/matrices.c) */
    for (uint64_t i = 0; zk->coefs && i < zk->n_coefs; i++) {
        zkey_coef c = zkey_coef_at(zk->coefs, i);
        if (!zkey_coef_indices_ok(&c, zk->domain_size, zk->n_vars) || !bytes_below(c.value, zk->curve->r, 32))
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: section 4 (coefficients): entry %llu (matrix %u, constraint %u, signal %u) is "
                                  "out of range: expected matrix 0 or 1, constraint < %u, signal < %u, value < r",
                                  zk->bf.name, (unsigned long long)i, c.matrix, c.constraint, c.signal,
                                  zk->domain_size, zk->n_vars);
    }
    size_t nc = zk->n_vars - zk->n_public - 1;
    const struct {
        const unsigned char *pts;
        size_t n;
        int group;
        uint32_t id;
        const char *what, *stage;
    } sec[] = {
        {zk->a, zk->n_a, 1, ZKEY_SEC_A, "A", "checking A"},
        {zk->b1, zk->n_b, 1, ZKEY_SEC_B1, "B1", "checking B1"},
        {zk->b2, zk->n_b, 2, ZKEY_SEC_B2, "B2", "checking B2"},
        {zk->c, nc, 1, ZKEY_SEC_C, "C", "checking C"},
        {zk->h, zk->n_h, 1, ZKEY_SEC_H, "H", "checking H"},
    };
    unsigned long long total = 0, base = 0;
    for (size_t i = 0; i < sizeof(sec) / sizeof(sec[0]); i++)
        total += sec[i].n;
    for (size_t i = 0; i < sizeof(sec) / sizeof(sec[0]); i++) {
        progress_sink ps = {progress, progress_ctx, sec[i].stage};
        int rc = check_section(zk, sec[i].pts, sec[i].n, sec[i].group, subgroup, threads, sec[i].id, sec[i].what, &ps,
                               base, total, err);
        if (rc != CUZK_OK)
            return rc;
        base += sec[i].n;
    }
    return CUZK_OK;
}

/* ------------------------------------------------------------ writing */

void zkey_parts_of(const struct cuzk_zkey *zk, zkey_parts *p)
{
    memset(p, 0, sizeof(*p));
    p->curve = zk->curve;
    p->n_vars = zk->n_vars;
    p->n_public = zk->n_public;
    p->domain_size = zk->domain_size;
    p->alpha1 = zk->alpha1;
    p->beta1 = zk->beta1;
    p->beta2 = zk->beta2;
    p->gamma2 = zk->gamma2;
    p->delta1 = zk->delta1;
    p->delta2 = zk->delta2;
    p->ic = zk->ic;
    p->coefs = zk->coefs;
    p->n_coefs = zk->n_coefs;
    p->a = zk->a;
    p->b1 = zk->b1;
    p->b2 = zk->b2;
    p->c = zk->c;
    p->h = zk->h;
    for (uint32_t i = 0; i < zk->bf.n_sections; i++)
        if (zk->bf.sections[i].id == ZKEY_SEC_CONTRIBUTIONS) {
            p->contributions = binfile_data(&zk->bf, &zk->bf.sections[i]);
            p->contributions_size = zk->bf.sections[i].size;
        }
}

int zkey_write(const char *path, const zkey_parts *p, cuzk_error *err)
{
    const curve_desc *c = p->curve;
    size_t g1 = c->g1_bytes, g2 = c->g2_bytes;
    uint64_t nv = p->n_vars, npub1 = (uint64_t)p->n_public + 1;
    binwriter w;
    int rc = binwriter_open(&w, path, "zkey", 1, p->contributions ? 10 : 9, err);
    if (rc != CUZK_OK)
        return rc;
    unsigned char prime[48];
    binwriter_section_begin(&w, ZKEY_SEC_PROTOCOL);
    binwriter_u32(&w, 1); /* Groth16 */
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_HEADER);
    binwriter_u32(&w, c->n8q);
    curve_prime_bytes(prime, c->q, c->n8q);
    binwriter_write(&w, prime, c->n8q);
    binwriter_u32(&w, c->n8r);
    curve_prime_bytes(prime, c->r, c->n8r);
    binwriter_write(&w, prime, c->n8r);
    binwriter_u32(&w, p->n_vars);
    binwriter_u32(&w, p->n_public);
    binwriter_u32(&w, p->domain_size);
    binwriter_write(&w, p->alpha1, g1);
    binwriter_write(&w, p->beta1, g1);
    binwriter_write(&w, p->beta2, g2);
    binwriter_write(&w, p->gamma2, g2);
    binwriter_write(&w, p->delta1, g1);
    binwriter_write(&w, p->delta2, g2);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_IC);
    binwriter_write(&w, p->ic, npub1 * g1);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_COEFS);
    binwriter_u32(&w, (uint32_t)p->n_coefs);
    binwriter_write(&w, p->coefs, p->n_coefs * ZKEY_COEF_BYTES);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_A);
    binwriter_write(&w, p->a, nv * g1);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_B1);
    binwriter_write(&w, p->b1, nv * g1);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_B2);
    binwriter_write(&w, p->b2, nv * g2);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_C);
    binwriter_write(&w, p->c, (nv - npub1) * g1);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_H);
    binwriter_write(&w, p->h, (uint64_t)p->domain_size * g1);
    binwriter_section_end(&w);
    if (p->contributions) {
        binwriter_section_begin(&w, ZKEY_SEC_CONTRIBUTIONS);
        binwriter_write(&w, p->contributions, p->contributions_size);
        binwriter_section_end(&w);
    }
    return binwriter_commit(&w, err);
}

/* ------------------------------------------------------------ export-vk */

int cuzk_zkey_export_vk(const cuzk_zkey *zk, char **json, cuzk_error *err)
{
    if (!zk || !json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_zkey_export_vk: NULL argument");
    *json = NULL;
    char *text = snarkjs_vk_json(zk->curve, zk->alpha1, zk->beta2, zk->gamma2, zk->delta2, zk->ic,
                                 (size_t)zk->n_public + 1);
    if (!text)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory writing the verification key", zk->bf.name);
    *json = text;
    return CUZK_OK;
}
