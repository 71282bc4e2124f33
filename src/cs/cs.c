/* The constraint-system builder (cs.h): allocation, the constraint's
 * merge, and the three backends' bookkeeping. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "cs.h"

const fr cs_fr_zero = {{0}};
const fr cs_fr_one = {BLS12_381_FR_ONE};
const fr cs_fr_minus_one = {{0xfffffffd00000003ull, 0xfb38ec08fffb13fcull, 0x99ad88181ce5880full,
                             0x5bc8f5f97cd877d8ull}};

enum { TABLE_ONE, TABLE_MINUS_ONE };

void cs_fail(cs_system *cs, int code, const char *fmt, ...)
{
    if (cs->err.code)
        return;
    va_list ap;
    va_start(ap, fmt);
    cs->err.code = code;
    vsnprintf(cs->err.message, sizeof cs->err.message, fmt, ap);
    va_end(ap);
}

static int grow(cs_system *cs, void **p, uint64_t *cap, uint64_t need, size_t elem)
{
    if (need <= *cap)
        return 1;
    uint64_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q) {
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory (%llu entries of %zu bytes)",
                (unsigned long long)c, elem);
        return 0;
    }
    *p = q;
    *cap = c;
    return 1;
}

static uint32_t table_hash(const fr *v)
{
    uint64_t h = v->l[0] * 0x9e3779b97f4a7c15ull ^ v->l[1] ^ (v->l[2] << 7) ^ (v->l[3] >> 3);
    return (uint32_t)(h ^ h >> 32);
}

static int table_rehash(cs_system *cs, uint32_t n_slots)
{
    uint32_t *s = calloc(n_slots, sizeof *s);
    if (!s) {
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory (coefficient table)");
        return 0;
    }
    for (uint32_t i = 0; i < cs->n_table; i++) {
        uint32_t k = table_hash(&cs->table[i]) & (n_slots - 1);
        while (s[k])
            k = (k + 1) & (n_slots - 1);
        s[k] = i + 1;
    }
    free(cs->slots);
    cs->slots = s;
    cs->n_slots = n_slots;
    return 1;
}

/* The table index of a coefficient, added when new. */
static uint32_t table_index(cs_system *cs, const fr *v)
{
    if (bls12_381_fr_eq(v, &cs_fr_one))
        return TABLE_ONE;
    if (bls12_381_fr_eq(v, &cs_fr_minus_one))
        return TABLE_MINUS_ONE;
    uint32_t k = table_hash(v) & (cs->n_slots - 1);
    for (; cs->slots[k]; k = (k + 1) & (cs->n_slots - 1))
        if (bls12_381_fr_eq(&cs->table[cs->slots[k] - 1], v))
            return cs->slots[k] - 1;
    if (cs->n_table == cs->cap_table) {
        uint32_t cap = cs->cap_table * 2;
        fr *t = realloc(cs->table, (size_t)cap * sizeof *t);
        if (!t) {
            cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory (coefficient table)");
            return TABLE_ONE;
        }
        cs->table = t;
        cs->cap_table = cap;
    }
    uint32_t i = cs->n_table++;
    cs->table[i] = *v;
    cs->slots[k] = i + 1;
    if ((uint64_t)cs->n_table * 2 > cs->n_slots)
        table_rehash(cs, cs->n_slots * 2);
    return i;
}

int cs_init(cs_system *cs, int mode, int keep_values, cuzk_error *err)
{
    memset(cs, 0, sizeof *cs);
    cs->mode = mode;
    cs->keep_values = mode == CS_WITNESS || (mode == CS_RECORD && keep_values);
    if (mode == CS_RECORD) {
        cs->cap_table = 64;
        cs->table = malloc(cs->cap_table * sizeof *cs->table);
        if (cs->table) {
            cs->table[TABLE_ONE] = cs_fr_one;
            cs->table[TABLE_MINUS_ONE] = cs_fr_minus_one;
            cs->n_table = 2;
            table_rehash(cs, 256);
        } else
            cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory");
        for (int i = 0; i < 3; i++)
            if (grow(cs, (void **)&cs->m[i].row_ptr, &cs->m[i].cap_rows, 1, sizeof(uint64_t)))
                cs->m[i].row_ptr[0] = 0;
    }
    cs_alloc_input(cs, &cs_fr_one);
    if (cs_failed(cs)) {
        if (err)
            *err = cs->err;
        int code = cs->err.code;
        cs_free(cs);
        return code;
    }
    return CUZK_OK;
}

void cs_init_part(cs_system *cs, uint64_t aux_at, uint64_t input_at)
{
    memset(cs, 0, sizeof *cs);
    cs->mode = CS_WITNESS;
    cs->keep_values = 1;
    cs->n_aux = cs->aux_base = aux_at;
    cs->n_input = cs->input_base = input_at;
}

void lc_free(cs_lc *lc)
{
    free(lc->t);
    lc->t = NULL;
    lc->n = lc->cap = 0;
}

void cs_free(cs_system *cs)
{
    free(cs->input);
    free(cs->aux);
    for (int i = 0; i < 3; i++) {
        lc_free(&cs->lc[i]);
        free(cs->m[i].row_ptr);
        free(cs->m[i].var);
        free(cs->m[i].coef);
    }
    free(cs->a_aux.w);
    free(cs->b_aux.w);
    free(cs->b_inp.w);
    free(cs->table);
    free(cs->slots);
    memset(cs, 0, sizeof *cs);
}

cs_var cs_alloc(cs_system *cs, const fr *value)
{
    if (cs->n_aux >= CS_INPUT_FLAG) {
        cs_fail(cs, CUZK_ERR_UNSUPPORTED, "constraint system: more than 2^31 aux variables");
        return 0;
    }
    uint64_t at = cs->n_aux - cs->aux_base;
    if (cs->keep_values && grow(cs, (void **)&cs->aux, &cs->cap_aux, at + 1, sizeof(fr)))
        cs->aux[at] = *value;
    return (cs_var)cs->n_aux++;
}

cs_var cs_alloc_bit(cs_system *cs, int bit)
{
    return cs_alloc(cs, bit ? &cs_fr_one : &cs_fr_zero);
}

cs_var cs_alloc_input(cs_system *cs, const fr *value)
{
    if (cs->n_input >= CS_INPUT_FLAG) {
        cs_fail(cs, CUZK_ERR_UNSUPPORTED, "constraint system: more than 2^31 inputs");
        return CS_ONE;
    }
    uint64_t at = cs->n_input - cs->input_base;
    if (cs->keep_values && grow(cs, (void **)&cs->input, &cs->cap_input, at + 1, sizeof(fr)))
        cs->input[at] = *value;
    return (cs_var)cs->n_input++ | CS_INPUT_FLAG;
}

void lc_add(cs_system *cs, cs_lc *lc, cs_var var, const fr *coeff)
{
    if (lc->n == lc->cap) {
        uint64_t cap = lc->cap;
        if (!grow(cs, (void **)&lc->t, &cap, (uint64_t)lc->n + 1, sizeof(cs_term)))
            return;
        lc->cap = (uint32_t)cap;
    }
    lc->t[lc->n].var = var;
    lc->t[lc->n].coeff = *coeff;
    lc->n++;
}

void lc_add_one(cs_system *cs, cs_lc *lc, cs_var var)
{
    lc_add(cs, lc, var, &cs_fr_one);
}

void lc_sub_one(cs_system *cs, cs_lc *lc, cs_var var)
{
    lc_add(cs, lc, var, &cs_fr_minus_one);
}

void lc_add_lc(cs_system *cs, cs_lc *x, const cs_lc *y, const fr *scale)
{
    for (uint32_t i = 0; i < y->n; i++) {
        fr c = y->t[i].coeff;
        if (scale)
            bls12_381_fr_mul(&c, &c, scale);
        lc_add(cs, x, y->t[i].var, &c);
    }
}

/* Inputs sort before aux variables, each by index. */
static inline uint32_t term_key(cs_var v)
{
    return v ^ CS_INPUT_FLAG;
}

static int term_cmp(const void *a, const void *b)
{
    uint32_t x = term_key(((const cs_term *)a)->var), y = term_key(((const cs_term *)b)->var);
    return (x > y) - (x < y);
}

/* Sorts by variable, merges equal variables, drops zero coefficients. */
static void lc_normalize(cs_lc *lc)
{
    cs_term *t = lc->t;
    uint32_t n = lc->n;
    if (n > 16)
        qsort(t, n, sizeof *t, term_cmp);
    else
        for (uint32_t i = 1; i < n; i++) {
            cs_term x = t[i];
            uint32_t j = i;
            for (; j > 0 && term_key(t[j - 1].var) > term_key(x.var); j--)
                t[j] = t[j - 1];
            t[j] = x;
        }
    uint32_t out = 0;
    for (uint32_t i = 0; i < n;) {
        cs_term m = t[i++];
        while (i < n && t[i].var == m.var)
            bls12_381_fr_add(&m.coeff, &m.coeff, &t[i++].coeff);
        if (!bls12_381_fr_is_zero(&m.coeff))
            t[out++] = m;
    }
    lc->n = out;
}

static void bits_set(cs_system *cs, cs_bits *b, uint64_t i)
{
    uint64_t w = i / 64;
    if (w >= b->n_words) {
        uint64_t n = b->n_words ? b->n_words : 1024;
        while (n <= w)
            n *= 2;
        uint64_t *p = realloc(b->w, n * sizeof *p);
        if (!p) {
            cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory (densities)");
            return;
        }
        memset(p + b->n_words, 0, (n - b->n_words) * sizeof *p);
        b->w = p;
        b->n_words = n;
    }
    b->w[w] |= 1ull << (i % 64);
}

static uint64_t bits_count(const cs_bits *b)
{
    uint64_t n = 0;
    for (uint64_t i = 0; i < b->n_words; i++)
        n += (uint64_t)__builtin_popcountll(b->w[i]);
    return n;
}

static void record_row(cs_system *cs, cs_matrix_rec *m, const cs_lc *lc)
{
    if (!grow(cs, (void **)&m->var, &m->cap_var, m->nnz + lc->n, sizeof(cs_var)) ||
        !grow(cs, (void **)&m->coef, &m->cap_coef, m->nnz + lc->n, sizeof(uint32_t)) ||
        !grow(cs, (void **)&m->row_ptr, &m->cap_rows, cs->n_constraints + 2, sizeof(uint64_t)))
        return;
    for (uint32_t i = 0; i < lc->n; i++) {
        m->var[m->nnz + i] = lc->t[i].var;
        m->coef[m->nnz + i] = table_index(cs, &lc->t[i].coeff);
    }
    m->nnz += lc->n;
    m->row_ptr[cs->n_constraints + 1] = m->nnz;
}

void cs_enforce(cs_system *cs)
{
    if (cs_failed(cs) || cs->mode == CS_WITNESS) {
        for (int i = 0; i < 3; i++)
            lc_clear(&cs->lc[i]);
        cs->n_constraints++;
        return;
    }
    for (int i = 0; i < 3; i++) {
        cs_lc *lc = &cs->lc[i];
        lc_normalize(lc);
        cs->nnz[i] += lc->n;
        for (uint32_t k = 0; k < lc->n; k++) {
            cs_var v = lc->t[k].var;
            if (i == 0 && !CS_VAR_IS_INPUT(v))
                bits_set(cs, &cs->a_aux, v);
            else if (i == 1)
                bits_set(cs, CS_VAR_IS_INPUT(v) ? &cs->b_inp : &cs->b_aux, CS_VAR_INDEX(v));
        }
        if (cs->mode == CS_RECORD)
            record_row(cs, &cs->m[i], lc);
    }
    for (int i = 0; i < 3; i++)
        lc_clear(&cs->lc[i]);
    cs->n_constraints++;
}

void cs_shape_get(const cs_system *cs, cs_shape *out)
{
    memset(out, 0, sizeof *out);
    out->inputs = cs->n_input;
    out->aux = cs->n_aux;
    out->constraints = cs->n_constraints;
    for (int i = 0; i < 3; i++)
        out->nnz[i] = cs->nnz[i];
    out->a_aux_popcount = bits_count(&cs->a_aux);
    out->b_aux_popcount = bits_count(&cs->b_aux);
    out->b_inp_popcount = bits_count(&cs->b_inp);
}

static void eval_row(const cs_system *cs, const cs_matrix_rec *m, uint64_t row, fr *out)
{
    bls12_381_fr_zero(out);
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        cs_var v = m->var[k];
        const fr *x = CS_VAR_IS_INPUT(v) ? &cs->input[CS_VAR_INDEX(v)] : &cs->aux[v];
        fr t;
        bls12_381_fr_mul(&t, x, &cs->table[m->coef[k]]);
        bls12_381_fr_add(out, out, &t);
    }
}

int64_t cs_first_unsatisfied(const cs_system *cs)
{
    if (cs->mode != CS_RECORD || !cs->keep_values)
        return 0;
    for (uint64_t r = 0; r < cs->n_constraints; r++) {
        fr a, b, c;
        eval_row(cs, &cs->m[0], r, &a);
        eval_row(cs, &cs->m[1], r, &b);
        eval_row(cs, &cs->m[2], r, &c);
        bls12_381_fr_mul(&a, &a, &b);
        if (!bls12_381_fr_eq(&a, &c))
            return (int64_t)r;
    }
    return -1;
}
