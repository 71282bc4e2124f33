/* A proving key from a bellperson .params file and its circuit's .r1cs
 * (docs/filecoin.md): the .params file holds the points but no constraint
 * matrices, so the circuit comes from the .r1cs (or porep-shape's native
 * description: src/circuit/source.h), with bellperson's
 * conventions (§2-3 there):
 *   - the variables are the circuit's wires: inputs (the constant one,
 *     then the public signals), then the aux (private) wires;
 *   - after the circuit's constraints one per input, A = that input,
 *     B = C = 0 (the .zkey's section 4 has the same ones);
 *   - A holds the points of every input and of the aux variables that
 *     occur in some A combination; B_G1 and B_G2 those of the variables
 *     (inputs or aux) that occur in some B combination, in variable order;
 *   - H holds m - 1 points for a domain of m = 2^k >= constraints + inputs.
 * Every count of the .params file is checked against the circuit's, so a
 * key of another circuit is refused with the two counts. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../include/cuzk.h"
#include "../core/core.h"
#include "../formats/params.h"
#include "../circuit/source.h"
#include "../formats/r1cs.h"
#include "matrices.h"
#include "../formats/zkey.h"
#include "../gpu/residency.h"
#include "params_key.h"
#include "../util/error.h"
#include "../util/util.h"
#include "../util/cores.h"

/* The .params counts against the circuit's. */
static int check_counts(const params_file *pf, const char *r1cs_name, uint32_t npub1, uint32_t n_aux, uint64_t m,
                        uint32_t n_a, uint32_t n_b, cuzk_error *err)
{
    const struct {
        int v;
        uint64_t want;
        const char *why;
    } c[] = {
        {PARAMS_IC, npub1, "the constant one and each public input"},
        {PARAMS_H, m - 1, "domain size - 1"},
        {PARAMS_L, n_aux, "the private wires"},
        {PARAMS_A, n_a, "the inputs and the private wires in some A combination"},
        {PARAMS_B_G1, n_b, "the wires in some B combination"},
        {PARAMS_B_G2, n_b, "the wires in some B combination"},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
        if (pf->count[c[i].v] != c[i].want)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s is not a key of %s: its %s vector holds %u points, the circuit needs %llu (%s)",
                                  pf->name, r1cs_name, params_vector_name[c[i].v], pf->count[c[i].v],
                                  (unsigned long long)c[i].want, c[i].why);
    return CUZK_OK;
}

/* The .params file's points decoded into zk (the library's layout: the
 * verification key, IC, then the vectors in file order, in owned[2]),
 * with the fields that describe them. IC, the verifier's, is checked in
 * full, as bellperson's reader does. */
static int decode_points(struct cuzk_zkey *zk, const params_file *pf, int threads, cuzk_progress_fn progress,
                         void *progress_ctx, cuzk_error *err)
{
    const curve_desc *c = curve_by_id(CUZK_CURVE_BLS12_381);
    size_t g1 = c->g1_bytes, g2 = c->g2_bytes;
    uint64_t n_g1 = 3 + (uint64_t)pf->count[PARAMS_IC] + pf->count[PARAMS_H] + pf->count[PARAMS_L] +
                    pf->count[PARAMS_A] + pf->count[PARAMS_B_G1];
    uint64_t n_g2 = 3 + (uint64_t)pf->count[PARAMS_B_G2];
    unsigned char *pts = malloc(n_g1 * g1 + n_g2 * g2);
    zk->owned[2] = pts;
    if (!pts)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory for %s (%llu bytes of points)", pf->name,
                              (unsigned long long)(n_g1 * g1 + n_g2 * g2));
    unsigned char *o = pts;
    unsigned char *alpha1 = o, *beta1 = o + g1, *delta1 = o + 2 * g1;
    o += 3 * g1;
    unsigned char *beta2 = o, *gamma2 = o + g2, *delta2 = o + 2 * g2;
    o += 3 * g2;
    int rc = params_decode_vk(pf, alpha1, beta1, beta2, gamma2, delta1, delta2, err);
    if (rc != CUZK_OK)
        return rc;
    unsigned char *vec[PARAMS_VECTORS];
    unsigned long long total = 0, base = 0;
    for (int v = 0; v < PARAMS_VECTORS; v++) {
        vec[v] = o;
        o += (uint64_t)pf->count[v] * (v == PARAMS_B_G2 ? g2 : g1);
        total += pf->count[v];
    }
    for (int v = 0; v < PARAMS_VECTORS; v++) {
        char stage[40];
        snprintf(stage, sizeof(stage), "decoding %s", params_vector_name[v]);
        progress_sink ps = {progress, progress_ctx, stage};
        if ((rc = params_decode(pf, v, vec[v], threads, &ps, base, total, err)) != CUZK_OK)
            return rc;
        base += pf->count[v];
    }
    size_t bad;
    if ((rc = cuzk_core()->check_points(c->id, 1, vec[PARAMS_IC], pf->count[PARAMS_IC], 1, &bad)) != CUZK_OK)
        return cuzk_error_set(err, rc, "%s: the IC vector: point %zu: %s", pf->name, bad, cuzk_strerror(rc));
    snprintf(zk->bf.name, sizeof(zk->bf.name), "%s", pf->name);
    zk->bf.size = pf->size;
    zk->curve = c;
    zk->kind = ZKEY_KIND_BELLPERSON;
    zk->alpha1 = alpha1;
    zk->beta1 = beta1;
    zk->beta2 = beta2;
    zk->gamma2 = gamma2;
    zk->delta1 = delta1;
    zk->delta2 = delta2;
    zk->ic = vec[PARAMS_IC];
    zk->a = vec[PARAMS_A];
    zk->b1 = vec[PARAMS_B_G1];
    zk->b2 = vec[PARAMS_B_G2];
    zk->c = vec[PARAMS_L];
    zk->h = vec[PARAMS_H];
    zk->n_a = pf->count[PARAMS_A];
    zk->n_b = pf->count[PARAMS_B_G1];
    zk->n_h = pf->count[PARAMS_H];
    return CUZK_OK;
}

static int build(struct cuzk_zkey *zk, const params_file *pf, const circuit_source *src, int threads,
                 cuzk_progress_fn progress, void *progress_ctx, cuzk_error *err)
{
    const curve_desc *c = curve_by_id(CUZK_CURVE_BLS12_381);
    if (src->curve != c)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s is a %s circuit; bellperson .params keys are BLS12-381's",
                              src->name, src->curve->display);
    uint32_t n_public = src->n_public, npub1 = n_public + 1;
    if (src->n_wires < npub1)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %u wires, fewer than its %u public signals + 1", src->name,
                              src->n_wires, n_public);
    uint64_t rows = (uint64_t)src->n_constraints + npub1, m = 1;
    unsigned log_m = 0;
    while (m < rows) {
        m <<= 1;
        log_m++;
    }
    if (log_m >= c->two_adicity)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: %llu constraints with the input constraints need a domain of 2^%u; the prover "
                              "needs a 2^%u-th root of unity and BLS12-381 has up to 2^%u",
                              src->name, (unsigned long long)rows, log_m, log_m + 1, c->two_adicity);
    /* the counts the file's header gives are checked before anything large is made */
    if (pf->count[PARAMS_IC] != npub1 || pf->count[PARAMS_H] != m - 1 ||
        pf->count[PARAMS_L] != src->n_wires - npub1) {
        int rc = check_counts(pf, src->name, npub1, src->n_wires - npub1, m, pf->count[PARAMS_A],
                              pf->count[PARAMS_B_G1], err);
        if (rc != CUZK_OK)
            return rc;
    }
    uint32_t *a_vars = NULL, *b_vars = NULL, n_a, n_b;
    progress_sink ps = {progress, progress_ctx, NULL};
    int rc = cs_matrices_from_source(&zk->mat, src, threads, &a_vars, &n_a, &b_vars, &n_b, &ps, err);
    if (rc != CUZK_OK)
        return rc;
    zk->owned[0] = a_vars;
    zk->owned[1] = b_vars;
    if ((rc = check_counts(pf, src->name, npub1, src->n_wires - npub1, m, n_a, n_b, err)) != CUZK_OK)
        return rc;
    if ((rc = decode_points(zk, pf, threads, progress, progress_ctx, err)) != CUZK_OK)
        return rc;
    zk->n_vars = src->n_wires;
    zk->n_public = n_public;
    zk->domain_size = (uint32_t)m;
    zk->n_coefs = zk->mat->m[0].nnz + zk->mat->m[1].nnz;
    zk->coefs = NULL;
    zk->a_vars = a_vars;
    zk->b_vars = b_vars;
    return CUZK_OK;
}

/* The counts of a .params file alone (no circuit to check them against):
 * what a key must have to be proved with. */
static int check_srs_counts(const params_file *pf, cuzk_error *err)
{
    const uint32_t *k = pf->count;
    uint64_t m = (uint64_t)k[PARAMS_H] + 1, n_vars = (uint64_t)k[PARAMS_IC] + k[PARAMS_L];
    unsigned log_m = 0;
    while (((uint64_t)1 << log_m) < m)
        log_m++;
    if (k[PARAMS_IC] == 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: the IC vector is empty (it holds the constant one's point)",
                              pf->name);
    if (((uint64_t)1 << log_m) != m || m < 2)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: the H vector holds %u points; a key's holds 2^k - 1 (the domain size - 1)", pf->name,
                              k[PARAMS_H]);
    if (log_m >= curve_by_id(CUZK_CURVE_BLS12_381)->two_adicity)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: a domain of 2^%u is too large for the prover (2^%u at most)",
                              pf->name, log_m, curve_by_id(CUZK_CURVE_BLS12_381)->two_adicity - 1);
    if (k[PARAMS_B_G1] != k[PARAMS_B_G2])
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: B_G1 holds %u points and B_G2 %u; they must be equal", pf->name,
                              k[PARAMS_B_G1], k[PARAMS_B_G2]);
    if (k[PARAMS_A] < k[PARAMS_IC] || k[PARAMS_A] > n_vars)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: the A vector holds %u points; between IC's %u (every input) and IC + L = %llu", pf->name,
                              k[PARAMS_A], k[PARAMS_IC], (unsigned long long)n_vars);
    if (k[PARAMS_B_G1] > n_vars)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: the B_G1 vector holds %u points, more than IC + L = %llu",
                              pf->name, k[PARAMS_B_G1], (unsigned long long)n_vars);
    if (n_vars > UINT32_MAX)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: %llu variables; at most 2^32 - 1", pf->name,
                              (unsigned long long)n_vars);
    return CUZK_OK;
}

/* What params_srs_densities knows of a key read alone. */
struct srs_densities {
    pthread_mutex_t lock;
    int have;          /* the key's lists are set (zk->owned[0], [1]) */
    int confirmed;     /* a call with them succeeded */
    unsigned on_trial; /* calls in flight with them before that */
    uint64_t *a_aux, *b_inp, *b_aux; /* the first call's bits, the unused ones of each last word cleared */
};

int params_srs_open(struct cuzk_zkey **out, const char *params_path, int threads, cuzk_error *err)
{
    *out = NULL;
    struct cuzk_zkey *zk = calloc(1, sizeof(*zk));
    struct srs_densities *d = calloc(1, sizeof(*d));
    if (!zk || !d) {
        free(zk);
        free(d);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", params_path);
    }
    pthread_mutex_init(&d->lock, NULL);
    zk->srs_densities = d;
    params_file pf;
    int rc = params_open(&pf, params_path, err);
    if (rc == CUZK_OK) {
        rc = check_srs_counts(&pf, err);
        if (rc == CUZK_OK)
            rc = decode_points(zk, &pf, threads, NULL, NULL, err);
        if (rc == CUZK_OK) {
            zk->n_vars = pf.count[PARAMS_IC] + pf.count[PARAMS_L];
            zk->n_public = pf.count[PARAMS_IC] - 1;
            zk->domain_size = pf.count[PARAMS_H] + 1;
        }
        params_close(&pf);
    }
    if (rc != CUZK_OK) {
        cuzk_zkey_free(zk);
        return rc;
    }
    *out = zk;
    return CUZK_OK;
}

static void params_key_release(struct cuzk_zkey *zk)
{
    for (size_t i = 0; i < sizeof(zk->owned) / sizeof(zk->owned[0]); i++) {
        free(zk->owned[i]);
        zk->owned[i] = NULL;
    }
    cs_matrices_free(zk->mat);
    zk->mat = NULL;
    circuit_source_free(zk->source);
    zk->source = NULL;
}

int cuzk_params_open(cuzk_zkey **out, const char *params_path, const char *r1cs_path, cuzk_progress_fn progress,
                     void *progress_ctx, cuzk_error *err)
{
    return params_key_open(out, params_path, r1cs_path, NULL, progress, progress_ctx, err);
}

int params_key_open_source(cuzk_zkey **out, const char *params_path, circuit_source *src, const file_limits *lim,
                           cuzk_progress_fn progress, void *progress_ctx, cuzk_error *err)
{
    *out = NULL;
    struct cuzk_zkey *zk = calloc(1, sizeof(*zk));
    if (!zk) {
        circuit_source_free(src);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", params_path);
    }
    params_file pf;
    int rc = params_open_limited(&pf, params_path, lim, err);
    if (rc == CUZK_OK) {
        rc = build(zk, &pf, src, cpu_cores(), progress, progress_ctx, err);
        params_close(&pf);
    }
    if (rc == CUZK_OK && src->witness)
        zk->source = src; /* it makes the partitions' witnesses */
    else
        circuit_source_free(src); /* its rows are in the key's matrices now */
    if (rc != CUZK_OK) {
        params_key_release(zk);
        free(zk);
        return rc;
    }
    *out = zk;
    return CUZK_OK;
}

int params_key_open(cuzk_zkey **out, const char *params_path, const char *r1cs_path, const file_limits *lim,
                    cuzk_progress_fn progress, void *progress_ctx, cuzk_error *err)
{
    if (!out || !params_path || !r1cs_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_params_open: NULL argument");
    *out = NULL;
    circuit_source *src = NULL;
    progress_sink rs = {progress, progress_ctx, "reading the circuit"};
    int rc = circuit_source_open_limited(&src, r1cs_path, lim, &rs, err);
    if (rc != CUZK_OK)
        return rc;
    return params_key_open_source(out, params_path, src, lim, progress, progress_ctx, err);
}

/* ------------------------------------------------------------ densities */

static int bit_at(const uint64_t *v, size_t i)
{
    return (int)((v[i / 64] >> (i % 64)) & 1);
}

static uint64_t *copy_bits(const uint64_t *v, size_t bits)
{
    size_t words = (bits + 63) / 64;
    uint64_t *c = calloc(words ? words : 1, 8);
    if (c && words) {
        memcpy(c, v, words * 8);
        if (bits % 64)
            c[words - 1] &= (UINT64_C(1) << (bits % 64)) - 1;
    }
    return c;
}

static void free_bits(struct srs_densities *d)
{
    free(d->a_aux);
    free(d->b_inp);
    free(d->b_aux);
    d->a_aux = d->b_inp = d->b_aux = NULL;
}

int params_srs_densities(struct cuzk_zkey *zk, const uint64_t *a_aux, const uint64_t *b_inp, const uint64_t *b_aux,
                         int *trial, cuzk_error *err)
{
    struct srs_densities *d = zk->srs_densities;
    *trial = 0;
    if (!d)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: not a key read alone from a .params file",
                              zk->bf.name);
    const size_t n_inp = (size_t)zk->n_public + 1, n_aux = (size_t)zk->n_vars - n_inp;
    int rc = CUZK_OK;
    pthread_mutex_lock(&d->lock);
    if (d->have) {
        if (!bits_equal(d->a_aux, a_aux, n_aux) || !bits_equal(d->b_inp, b_inp, n_inp) ||
            !bits_equal(d->b_aux, b_aux, n_aux))
            rc = cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                                "the densities differ from those %s %s: a key serves one circuit, whose densities "
                                "are fixed",
                                zk->bf.name, d->confirmed ? "was proved with" : "is being proved with now");
        else if (!d->confirmed) {
            d->on_trial++;
            *trial = 1;
        }
        pthread_mutex_unlock(&d->lock);
        return rc;
    }
    uint32_t *a_vars = malloc((size_t)zk->n_a * 4 + 4), *b_vars = malloc((size_t)zk->n_b * 4 + 4);
    d->a_aux = copy_bits(a_aux, n_aux);
    d->b_inp = copy_bits(b_inp, n_inp);
    d->b_aux = copy_bits(b_aux, n_aux);
    if (!a_vars || !b_vars || !d->a_aux || !d->b_inp || !d->b_aux) {
        free(a_vars);
        free(b_vars);
        free_bits(d);
        pthread_mutex_unlock(&d->lock);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory for the density lists of %s", zk->bf.name);
    }
    /* A: every input, then the aux variables set; B: the inputs set, then
     * the aux ones (bellperson's order of the points) */
    size_t na = 0, nb = 0;
    for (size_t v = 0; v < n_inp; v++) {
        a_vars[na++] = (uint32_t)v;
        if (bit_at(d->b_inp, v))
            b_vars[nb++] = (uint32_t)v;
    }
    for (size_t v = 0; v < n_aux; v++) {
        if (bit_at(d->a_aux, v))
            a_vars[na++] = (uint32_t)(n_inp + v);
        if (bit_at(d->b_aux, v))
            b_vars[nb++] = (uint32_t)(n_inp + v);
    }
    zk->owned[0] = a_vars;
    zk->owned[1] = b_vars;
    zk->a_vars = a_vars;
    zk->b_vars = b_vars;
    d->have = 1;
    d->on_trial = 1;
    *trial = 1;
    pthread_mutex_unlock(&d->lock);
    return CUZK_OK;
}

void params_srs_densities_end(struct cuzk_zkey *zk, int trial, int succeeded,
                              void (*forget)(const struct cuzk_zkey *zk))
{
    struct srs_densities *d = zk->srs_densities;
    if (!trial || !d)
        return;
    pthread_mutex_lock(&d->lock);
    d->on_trial--;
    if (succeeded)
        d->confirmed = 1;
    if (!d->confirmed && !d->on_trial && d->have) { /* no call in flight with them */
        if (forget)
            forget(zk);
        residency_forget(zk);
        free(zk->owned[0]);
        free(zk->owned[1]);
        zk->owned[0] = zk->owned[1] = NULL;
        zk->a_vars = zk->b_vars = NULL;
        free_bits(d);
        d->have = 0;
    }
    pthread_mutex_unlock(&d->lock);
}

void params_srs_densities_free(struct srs_densities *d)
{
    if (!d)
        return;
    free_bits(d);
    pthread_mutex_destroy(&d->lock);
    free(d);
}
