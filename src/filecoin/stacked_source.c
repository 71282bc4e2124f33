/* The PoRep circuit as a source of rows (stacked_source.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "porep.h"
#include "stacked_source.h"

typedef struct stacked_impl {
    cs_system rec;
} stacked_impl;

/* a recorded matrix's row in the .r1cs layout: u32 terms, then per term
 * u32 wire and the 32-byte plain coefficient */
static int put_row(const cs_system *cs, const cs_matrix_rec *m, uint64_t row, source_buf *b)
{
    uint64_t k0 = m->row_ptr[row], k1 = m->row_ptr[row + 1];
    size_t need = b->len + 4 + (size_t)(k1 - k0) * 36;
    if (source_buf_reserve(b, need) != CUZK_OK)
        return CUZK_ERR_NO_MEMORY;
    unsigned char *p = b->p + b->len;
    uint32_t n = (uint32_t)(k1 - k0);
    memcpy(p, &n, 4);
    p += 4;
    for (uint64_t k = k0; k < k1; k++) {
        cs_var v = m->var[k];
        uint32_t wire = CS_VAR_IS_INPUT(v) ? CS_VAR_INDEX(v) : (uint32_t)(cs->n_input + v);
        memcpy(p, &wire, 4);
        bls12_381_fr_to_bytes_le(p + 4, &cs->table[m->coef[k]]);
        p += 36;
    }
    b->len = need;
    return CUZK_OK;
}

static int stacked_rows(const circuit_source *s, uint32_t row0, uint32_t n, source_buf *buf)
{
    const stacked_impl *im = s->impl;
    buf->len = 0;
    for (uint64_t r = row0; r < (uint64_t)row0 + n; r++)
        for (int m = 0; m < 3; m++)
            if (put_row(&im->rec, &im->rec.m[m], r, buf) != CUZK_OK)
                return CUZK_ERR_NO_MEMORY;
    return CUZK_OK;
}

static void stacked_release(circuit_source *s)
{
    stacked_impl *im = s->impl;
    cs_free(&im->rec);
    free(im);
}

int fc_stacked_source_make(circuit_source **out, const char *name, const fc_porep_shape *shape, cuzk_error *err)
{
    *out = NULL;
    fc_stacked_partition blank;
    int rc = fc_stacked_blank(shape, &blank, err);
    if (rc)
        return rc;
    circuit_source *s = calloc(1, sizeof *s);
    stacked_impl *im = calloc(1, sizeof *im);
    if (!s || !im || cs_init(&im->rec, CS_RECORD, 0, err) != CUZK_OK) {
        free(s);
        free(im);
        fc_stacked_free(&blank);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", name);
    }
    fc_stacked_circuit(&im->rec, &blank);
    fc_stacked_free(&blank);
    if (cs_failed(&im->rec) || im->rec.n_input + im->rec.n_aux >= UINT32_MAX || im->rec.n_constraints >= UINT32_MAX) {
        rc = cs_failed(&im->rec) ? cuzk_error_set(err, im->rec.err.code, "%s: %s", name, im->rec.err.message)
                                 : cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: more than 2^32 wires or rows", name);
        cs_free(&im->rec);
        free(im);
        free(s);
        return rc;
    }
    snprintf(s->name, sizeof s->name, "%s", name);
    s->curve = curve_by_id(CUZK_CURVE_BLS12_381);
    s->n_wires = (uint32_t)(im->rec.n_input + im->rec.n_aux);
    s->n_public = (uint32_t)im->rec.n_input - 1;
    s->n_constraints = (uint32_t)im->rec.n_constraints;
    s->chunk_rows = 1 << 14;
    s->rows = stacked_rows;
    s->release = stacked_release;
    s->impl = im;
    *out = s;
    return CUZK_OK;
}

int fc_stacked_source_is(const char *text, size_t len)
{
    size_t n = strlen(FC_STACKED_MAGIC);
    return len > n && memcmp(text, FC_STACKED_MAGIC, n) == 0 && text[n] == '\n';
}

void fc_stacked_description(const char *proof_name, const fc_porep_shape *s, char *buf, size_t cap)
{
    if (proof_name)
        snprintf(buf, cap, "%s\nversion 1\nproof %s\n", FC_STACKED_MAGIC, proof_name);
    else
        snprintf(buf, cap, "%s\nversion 1\nshape %llu %u %u %u-%u-%u\n", FC_STACKED_MAGIC,
                 (unsigned long long)s->nodes, s->layers, s->challenges, s->arity[0], s->arity[1], s->arity[2]);
}

int fc_stacked_source_parse(circuit_source **out, const char *path, const char *text, size_t len, cuzk_error *err)
{
    *out = NULL;
    char t[512];
    if (len >= sizeof t)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: a stacked circuit's description of %zu bytes (3 short lines)",
                              path, len);
    memcpy(t, text, len);
    t[len] = 0;
    char proof[128], extra;
    unsigned long long nodes;
    unsigned layers, challenges, a[3];
    fc_porep_shape shape;
    const char *body = t + strlen(FC_STACKED_MAGIC) + 1;
    if (strncmp(body, "version 1\n", 10) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: line 2: expected \"version 1\"", path);
    body += 10;
    if (sscanf(body, "proof %127[A-Za-z0-9_]\n%c", proof, &extra) == 1 && body[strlen(body) - 1] == '\n') {
        const fc_porep_config *c = fc_porep_config_by_name(proof);
        if (!c)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: line 3: '%s' is not a registered seal proof (StackedDrg2KiBV1_1 ... "
                                  "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep)",
                                  path, proof);
        shape = c->shape;
    } else if (sscanf(body, "shape %llu %u %u %u-%u-%u\n%c", &nodes, &layers, &challenges, &a[0], &a[1], &a[2],
                      &extra) == 6 &&
               body[strlen(body) - 1] == '\n') {
        shape = (fc_porep_shape){nodes, layers, challenges, {a[0], a[1], a[2]}};
    } else
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: line 3: expected \"proof NAME\" or \"shape NODES LAYERS CHALLENGES B-S-T\", and "
                              "nothing after it",
                              path);
    return fc_stacked_source_make(out, path, &shape, err);
}

