#include "snarkjs_json.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/file.h"
#include "../util/util.h"
#include "point_check.h"

int read_json_file(const char *path, char **text, size_t *len, cuzk_error *err)
{
    return read_file_bounded(path, SNARKJS_JSON_MAX_BYTES, "a JSON file", text, len, err);
}

#if CUZK_HAVE_JANSSON

#include <jansson.h>

#include "../core/core.h"
#include "decimal.h"

static int load(json_t **root, const char *text, size_t len, const char *name, cuzk_error *err)
{
    json_error_t je;
    *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
    if (!*root)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not valid JSON: %s (line %d, column %d)", name, je.text,
                              je.line, je.column);
    return CUZK_OK;
}

/* A base-field element from a decimal string, into its Montgomery image. */
static int parse_fq(unsigned char *out, json_t *v, const curve_desc *c, const char *name, const char *path,
                    cuzk_error *err)
{
    if (!json_is_string(v))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %s: expected a decimal string", name, path);
    unsigned char plain[48];
    int rc = decimal_to_le(plain, c->n8q, json_string_value(v), json_string_length(v));
    if (rc == CUZK_ERR_FORMAT)
        return cuzk_error_set(err, rc, "%s: %s: expected a decimal string, found \"%.40s\"", name, path,
                              json_string_value(v));
    if (rc != CUZK_OK || !bytes_below(plain, c->q, c->n8q))
        return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "%s: %s: not below the %s base-field prime", name, path,
                              c->display);
    cuzk_core()->fq_to_mont(c->id, out, plain);
    return CUZK_OK;
}

static int is_str(json_t *v, const char *s)
{
    return json_is_string(v) && strcmp(json_string_value(v), s) == 0;
}

static int check_point(const unsigned char *p, int group, const curve_desc *c, const char *name, const char *path,
                       cuzk_error *err)
{
    size_t bad;
    int rc = cuzk_core()->check_points(c->id, group, p, 1, 1, &bad);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "%s: %s: %s", name, path, cuzk_strerror(rc));
    return CUZK_OK;
}

/* [x, y, "1"], or [.., .., "0"] for infinity */
static int parse_g1(unsigned char *out, json_t *v, const curve_desc *c, const char *name, const char *path,
                    cuzk_error *err)
{
    char sub[96];
    if (!json_is_array(v) || json_array_size(v) != 3)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %s: expected a G1 point [x, y, z] of 3 decimal strings",
                              name, path);
    json_t *z = json_array_get(v, 2);
    if (is_str(z, "0")) {
        memset(out, 0, c->g1_bytes);
        return CUZK_OK;
    }
    if (!is_str(z, "1"))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %s[2]: expected \"1\" (or \"0\" for the point at infinity)",
                              name, path);
    int rc;
    for (int k = 0; k < 2; k++) {
        snprintf(sub, sizeof(sub), "%s[%d]", path, k);
        if ((rc = parse_fq(out + k * c->n8q, json_array_get(v, k), c, name, sub, err)) != CUZK_OK)
            return rc;
    }
    return check_point(out, 1, c, name, path, err);
}

/* [[x0, x1], [y0, y1], ["1", "0"]], or z = ["0", "0"] for infinity */
static int parse_g2(unsigned char *out, json_t *v, const curve_desc *c, const char *name, const char *path,
                    cuzk_error *err)
{
    char sub[96];
    if (!json_is_array(v) || json_array_size(v) != 3)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: %s: expected a G2 point [[x0, x1], [y0, y1], [z0, z1]] of decimal strings", name,
                              path);
    for (int k = 0; k < 3; k++)
        if (!json_is_array(json_array_get(v, k)) || json_array_size(json_array_get(v, k)) != 2)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %s[%d]: expected a pair [c0, c1]", name, path, k);
    json_t *z = json_array_get(v, 2);
    if (is_str(json_array_get(z, 0), "0") && is_str(json_array_get(z, 1), "0")) {
        memset(out, 0, c->g2_bytes);
        return CUZK_OK;
    }
    if (!is_str(json_array_get(z, 0), "1") || !is_str(json_array_get(z, 1), "0"))
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: %s[2]: expected [\"1\", \"0\"] (or [\"0\", \"0\"] for the point at infinity)", name,
                              path);
    int rc;
    for (int k = 0; k < 2; k++)
        for (int i = 0; i < 2; i++) {
            snprintf(sub, sizeof(sub), "%s[%d][%d]", path, k, i);
            if ((rc = parse_fq(out + (2 * k + i) * c->n8q, json_array_get(json_array_get(v, k), i), c, name, sub,
                               err)) != CUZK_OK)
                return rc;
        }
    return check_point(out, 2, c, name, path, err);
}

static int parse_curve(const curve_desc **out, json_t *root, const char *name, cuzk_error *err)
{
    json_t *cv = json_object_get(root, "curve");
    if (!cv) {
        *out = NULL;
        return CUZK_OK;
    }
    if (!json_is_string(cv))
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: curve: expected a string such as \"bn128\" or \"bls12381\"",
                              name);
    *out = curve_by_name(json_string_value(cv));
    if (!*out)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: curve \"%.40s\" is not supported (bn128, bls12381 are)",
                              name, json_string_value(cv));
    return CUZK_OK;
}

static int check_protocol(json_t *root, const char *name, int required, cuzk_error *err)
{
    json_t *p = json_object_get(root, "protocol");
    if (!p && !required)
        return CUZK_OK;
    if (!is_str(p, "groth16"))
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: protocol: expected \"groth16\"%s", name,
                              p ? "" : ", the key is missing");
    return CUZK_OK;
}

int snarkjs_vk_parse(snarkjs_vk *vk, const char *text, size_t len, const char *name, cuzk_error *err)
{
    memset(vk, 0, sizeof(*vk));
    json_t *root;
    int rc = load(&root, text, len, name, err);
    if (rc != CUZK_OK)
        return rc;
    if (!json_is_object(root)) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: expected a JSON object (a verification key)", name);
        goto out;
    }
    if ((rc = check_protocol(root, name, 1, err)) || (rc = parse_curve(&vk->curve, root, name, err)))
        goto out;
    if (!vk->curve) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: curve: missing (expected \"bn128\" or \"bls12381\")", name);
        goto out;
    }
    const curve_desc *c = vk->curve;
    json_t *np = json_object_get(root, "nPublic");
    if (!json_is_integer(np) || json_integer_value(np) < 0 || json_integer_value(np) > (1 << 26)) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: nPublic: expected an integer in [0, 2^26]", name);
        goto out;
    }
    vk->n_public = (unsigned)json_integer_value(np);
    if ((rc = parse_g1(vk->alpha1, json_object_get(root, "vk_alpha_1"), c, name, "vk_alpha_1", err)) ||
        (rc = parse_g2(vk->beta2, json_object_get(root, "vk_beta_2"), c, name, "vk_beta_2", err)) ||
        (rc = parse_g2(vk->gamma2, json_object_get(root, "vk_gamma_2"), c, name, "vk_gamma_2", err)) ||
        (rc = parse_g2(vk->delta2, json_object_get(root, "vk_delta_2"), c, name, "vk_delta_2", err)) ||
        (rc = key_point_not_infinity(vk->alpha1, c->g1_bytes, name, "vk_alpha_1", err)) ||
        (rc = key_point_not_infinity(vk->beta2, c->g2_bytes, name, "vk_beta_2", err)) ||
        (rc = key_point_not_infinity(vk->gamma2, c->g2_bytes, name, "vk_gamma_2", err)) ||
        (rc = key_point_not_infinity(vk->delta2, c->g2_bytes, name, "vk_delta_2", err)))
        goto out;
    json_t *ic = json_object_get(root, "IC");
    if (!json_is_array(ic) || json_array_size(ic) != (size_t)vk->n_public + 1) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: IC: expected an array of nPublic + 1 = %u G1 points, found %s%zu",
                            name, vk->n_public + 1, json_is_array(ic) ? "" : "no array, size ",
                            json_is_array(ic) ? json_array_size(ic) : 0);
        goto out;
    }
    vk->ic = malloc(((size_t)vk->n_public + 1) * c->g1_bytes);
    if (!vk->ic) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", name);
        goto out;
    }
    for (size_t i = 0; i <= vk->n_public; i++) {
        char path[32];
        snprintf(path, sizeof(path), "IC[%zu]", i);
        if ((rc = parse_g1(vk->ic + i * c->g1_bytes, json_array_get(ic, i), c, name, path, err)) != CUZK_OK)
            goto out;
    }
out:
    json_decref(root);
    if (rc != CUZK_OK)
        snarkjs_vk_free(vk);
    return rc;
}

void snarkjs_vk_free(snarkjs_vk *vk)
{
    free(vk->ic);
    vk->ic = NULL;
}

int snarkjs_proof_parse(snarkjs_proof *proof, const char *text, size_t len, const char *name,
                        const curve_desc *curve, cuzk_error *err)
{
    memset(proof, 0, sizeof(*proof));
    json_t *root;
    int rc = load(&root, text, len, name, err);
    if (rc != CUZK_OK)
        return rc;
    if (!json_is_object(root)) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: expected a JSON object (a proof)", name);
        goto out;
    }
    const curve_desc *own = NULL;
    if ((rc = check_protocol(root, name, 0, err)) || (rc = parse_curve(&own, root, name, err)))
        goto out;
    if (own && curve && own != curve) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: curve is %s, but the verification key is for %s", name,
                            own->name, curve->name);
        goto out;
    }
    proof->curve = own ? own : curve;
    if (!proof->curve) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: curve: missing", name);
        goto out;
    }
    const curve_desc *c = proof->curve;
    if ((rc = parse_g1(proof->a, json_object_get(root, "pi_a"), c, name, "pi_a", err)) ||
        (rc = parse_g2(proof->b, json_object_get(root, "pi_b"), c, name, "pi_b", err)) ||
        (rc = parse_g1(proof->c, json_object_get(root, "pi_c"), c, name, "pi_c", err)))
        goto out;
    /* A valid proof has none (its A and B carry the random r and s); with
     * one, a degenerate equation could hold. Well formed, so invalid. */
    const char *inf = bytes_all_zero(proof->a, c->g1_bytes)   ? "pi_a"
                      : bytes_all_zero(proof->b, c->g2_bytes) ? "pi_b"
                      : bytes_all_zero(proof->c, c->g1_bytes) ? "pi_c"
                                                              : NULL;
    if (inf)
        rc = cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "%s: %s is the point at infinity, which no valid proof has",
                            name, inf);
out:
    json_decref(root);
    return rc;
}

int snarkjs_public_parse(snarkjs_public *pub, const char *text, size_t len, const char *name,
                         const curve_desc *curve, cuzk_error *err)
{
    memset(pub, 0, sizeof(*pub));
    json_t *root;
    int rc = load(&root, text, len, name, err);
    if (rc != CUZK_OK)
        return rc;
    if (!json_is_array(root)) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: expected a JSON array of decimal strings (public signals)",
                            name);
        goto out;
    }
    pub->n = json_array_size(root);
    pub->values = malloc(pub->n ? pub->n * 32 : 1);
    if (!pub->values) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", name);
        goto out;
    }
    for (size_t i = 0; i < pub->n; i++) {
        json_t *v = json_array_get(root, i);
        if (!json_is_string(v)) {
            rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: [%zu]: expected a decimal string", name, i);
            goto out;
        }
        rc = decimal_to_le(pub->values + 32 * i, 32, json_string_value(v), json_string_length(v));
        if (rc == CUZK_ERR_FORMAT) {
            rc = cuzk_error_set(err, rc, "%s: [%zu]: expected a decimal string, found \"%.40s\"", name, i,
                                json_string_value(v));
            goto out;
        }
        if (rc != CUZK_OK || !bytes_below(pub->values + 32 * i, curve->r, 32)) {
            rc = cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "%s: [%zu]: not below the %s scalar-field prime r", name,
                                i, curve->display);
            goto out;
        }
    }
out:
    json_decref(root);
    if (rc != CUZK_OK)
        snarkjs_public_free(pub);
    return rc;
}

void snarkjs_public_free(snarkjs_public *pub)
{
    free(pub->values);
    pub->values = NULL;
}

#else /* no jansson */

static int no_json(const char *name, cuzk_error *err)
{
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                          "%s: this cuzk was built without JSON support (install libjansson-dev and rebuild)", name);
}

int snarkjs_vk_parse(snarkjs_vk *vk, const char *text, size_t len, const char *name, cuzk_error *err)
{
    (void)text;
    (void)len;
    memset(vk, 0, sizeof(*vk));
    return no_json(name, err);
}

void snarkjs_vk_free(snarkjs_vk *vk)
{
    (void)vk;
}

int snarkjs_proof_parse(snarkjs_proof *proof, const char *text, size_t len, const char *name,
                        const curve_desc *curve, cuzk_error *err)
{
    (void)text;
    (void)len;
    (void)curve;
    memset(proof, 0, sizeof(*proof));
    return no_json(name, err);
}

int snarkjs_public_parse(snarkjs_public *pub, const char *text, size_t len, const char *name,
                         const curve_desc *curve, cuzk_error *err)
{
    (void)text;
    (void)len;
    (void)curve;
    memset(pub, 0, sizeof(*pub));
    return no_json(name, err);
}

void snarkjs_public_free(snarkjs_public *pub)
{
    (void)pub;
}

#endif
