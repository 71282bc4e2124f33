/* Building a key's constraint matrices (matrices.h). */
#include "matrices.h"

#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "../circuit/source.h"
#include "../core/core.h"
#include "../ec/curve_desc.h"
#include "../formats/zkey_coef.h"
#include "../util/error.h"
#include "../util/progress.h"
#include "../util/util.h"

/* ------------------------------------------------------------ distinct coefficients */

/* An open-addressing set of 32-byte values, each with its index. */
typedef struct coef_set {
    uint32_t cap, n; /* cap: a power of two */
    unsigned char *keys; /* cap x 32 */
    uint32_t *slot;      /* cap: index + 1, 0 = empty */
} coef_set;

static uint32_t coef_hash(const unsigned char *v)
{
    uint64_t a, b;
    memcpy(&a, v, 8);
    memcpy(&b, v + 24, 8);
    a ^= b * 0x9e3779b97f4a7c15ull;
    a ^= a >> 29;
    a *= 0xbf58476d1ce4e5b9ull;
    return (uint32_t)(a >> 32);
}

static void coef_set_free(coef_set *s)
{
    free(s->keys);
    free(s->slot);
    memset(s, 0, sizeof(*s));
}

/* The index of v, or UINT32_MAX. */
static uint32_t coef_find(const coef_set *s, const unsigned char *v)
{
    if (!s->cap)
        return UINT32_MAX;
    for (uint32_t h = coef_hash(v) & (s->cap - 1);; h = (h + 1) & (s->cap - 1)) {
        uint32_t k = s->slot[h];
        if (!k)
            return UINT32_MAX;
        if (memcmp(s->keys + 32 * (size_t)(k - 1), v, 32) == 0)
            return k - 1;
    }
}

static int coef_grow(coef_set *s)
{
    uint32_t cap = s->cap ? s->cap * 2 : 256;
    if (cap < s->cap)
        return CUZK_ERR_NO_MEMORY;
    unsigned char *keys = realloc(s->keys, (size_t)cap / 2 * 32);
    uint32_t *slot = calloc(cap, sizeof(uint32_t));
    if (!keys || !slot) {
        if (keys)
            s->keys = keys;
        free(slot);
        return CUZK_ERR_NO_MEMORY;
    }
    s->keys = keys;
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t h = coef_hash(keys + 32 * (size_t)i) & (cap - 1);
        while (slot[h])
            h = (h + 1) & (cap - 1);
        slot[h] = i + 1;
    }
    free(s->slot);
    s->slot = slot;
    s->cap = cap;
    return CUZK_OK;
}

/* Adds v if new (the set at most half full). */
static int coef_add(coef_set *s, const unsigned char *v, uint32_t *index)
{
    uint32_t k = coef_find(s, v);
    if (k != UINT32_MAX) {
        if (index)
            *index = k;
        return CUZK_OK;
    }
    if (s->n + 1 > s->cap / 2 && coef_grow(s) != CUZK_OK)
        return CUZK_ERR_NO_MEMORY;
    uint32_t h = coef_hash(v) & (s->cap - 1);
    while (s->slot[h])
        h = (h + 1) & (s->cap - 1);
    memcpy(s->keys + 32 * (size_t)s->n, v, 32);
    s->slot[h] = ++s->n;
    if (index)
        *index = s->n - 1;
    return CUZK_OK;
}

static int cmp32(const void *a, const void *b)
{
    /* as little-endian integers, for a table in one order whatever the threads did */
    const unsigned char *x = a, *y = b;
    for (int i = 31; i >= 0; i--)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}

/* The set rebuilt with its values sorted (indices in value order). */
static int coef_sort(coef_set *s)
{
    qsort(s->keys, s->n, 32, cmp32);
    memset(s->slot, 0, (size_t)s->cap * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->n; i++) {
        uint32_t h = coef_hash(s->keys + 32 * (size_t)i) & (s->cap - 1);
        while (s->slot[h])
            h = (h + 1) & (s->cap - 1);
        s->slot[h] = i + 1;
    }
    return CUZK_OK;
}

/* ------------------------------------------------------------ the matrices */

void cs_matrices_free(cs_matrices *m)
{
    if (!m)
        return;
    for (int k = 0; k < 2; k++) {
        free(m->m[k].row_ptr);
        free(m->m[k].col);
        free(m->m[k].coef);
    }
    free(m->table);
    free(m);
}

uint64_t cs_matrices_bytes(const cs_matrices *m)
{
    if (!m)
        return 0;
    return 2 * ((uint64_t)m->rows + 1) * 4 + (m->m[0].nnz + m->m[1].nnz) * 8 + (uint64_t)m->n_table * 32;
}

static cs_matrices *alloc_rows(int curve, uint32_t rows, uint32_t n_vars)
{
    cs_matrices *m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->curve = curve;
    m->rows = rows;
    m->n_vars = n_vars;
    for (int k = 0; k < 2; k++)
        if (!(m->m[k].row_ptr = calloc((size_t)rows + 1, sizeof(uint32_t)))) {
            cs_matrices_free(m);
            return NULL;
        }
    return m;
}

/* Row counts (in row_ptr[r + 1]) to row starts; the entries allocated. */
static int alloc_entries(cs_matrices *m)
{
    for (int k = 0; k < 2; k++) {
        uint64_t at = 0;
        uint32_t *p = m->m[k].row_ptr;
        for (uint64_t r = 0; r < m->rows; r++) {
            at += p[r + 1];
            if (at > UINT32_MAX)
                return CUZK_ERR_UNSUPPORTED;
            p[r + 1] = (uint32_t)at;
        }
        m->m[k].nnz = at;
        m->m[k].col = malloc((size_t)(at ? at : 1) * sizeof(uint32_t));
        m->m[k].coef = malloc((size_t)(at ? at : 1) * sizeof(uint32_t));
        if (!m->m[k].col || !m->m[k].coef)
            return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

/* The table from the set's values: plain coefficients (to coef R^2 by two
 * Montgomery conversions) or, already_r2, .zkey values. */
static int take_table(cs_matrices *m, coef_set *s, int already_r2)
{
    m->n_table = s->n;
    m->table = malloc((size_t)(s->n ? s->n : 1) * 32);
    if (!m->table)
        return CUZK_ERR_NO_MEMORY;
    if (already_r2) {
        memcpy(m->table, s->keys, (size_t)s->n * 32);
        return CUZK_OK;
    }
    cuzk_core()->fr_to_mont(m->curve, m->table, s->keys, s->n, 1);
    cuzk_core()->fr_to_mont(m->curve, m->table, m->table, s->n, 1);
    return CUZK_OK;
}

int cs_matrices_from_coefs(cs_matrices **out, int curve, const unsigned char *entries, uint64_t n, uint32_t rows,
                           uint32_t n_vars, uint64_t *bad)
{
    *out = NULL;
    *bad = UINT64_MAX;
    const curve_desc *c = curve_by_id(curve);
    cs_matrices *m = alloc_rows(curve, rows, n_vars);
    coef_set set = {0};
    if (!m)
        return CUZK_ERR_NO_MEMORY;
    int rc = CUZK_OK;
    for (uint64_t i = 0; i < n && rc == CUZK_OK; i++) {
        zkey_coef e = zkey_coef_at(entries, i);
        if (!zkey_coef_indices_ok(&e, rows, n_vars) || !bytes_below(e.value, c->r, 32)) {
            *bad = i;
            rc = CUZK_ERR_FORMAT;
            break;
        }
        m->m[e.matrix].row_ptr[e.constraint + 1]++;
        rc = coef_add(&set, e.value, NULL);
    }
    if (rc == CUZK_OK)
        rc = alloc_entries(m);
    if (rc == CUZK_OK)
        rc = coef_sort(&set);
    if (rc == CUZK_OK) {
        /* one pass places every entry in its row (the order inside a row
         * does not change the sum) */
        uint32_t *fill[2] = {malloc((size_t)rows * 4 + 4), malloc((size_t)rows * 4 + 4)};
        if (!fill[0] || !fill[1])
            rc = CUZK_ERR_NO_MEMORY;
        for (int k = 0; k < 2 && rc == CUZK_OK; k++)
            memcpy(fill[k], m->m[k].row_ptr, (size_t)rows * 4);
        for (uint64_t i = 0; i < n && rc == CUZK_OK; i++) {
            zkey_coef e = zkey_coef_at(entries, i);
            uint32_t at = fill[e.matrix][e.constraint]++;
            m->m[e.matrix].col[at] = e.signal;
            m->m[e.matrix].coef[at] = coef_find(&set, e.value);
        }
        free(fill[0]);
        free(fill[1]);
    }
    if (rc == CUZK_OK)
        rc = take_table(m, &set, 1);
    coef_set_free(&set);
    if (rc != CUZK_OK) {
        cs_matrices_free(m);
        return rc;
    }
    *out = m;
    return CUZK_OK;
}

/* ------------------------------------------------------------ from a circuit's rows */

static int is_zero32(const unsigned char *p)
{
    unsigned char acc = 0;
    for (int i = 0; i < 32; i++)
        acc |= p[i];
    return acc == 0;
}

enum { CHUNK_MIN_ROWS = 1 << 16 }; /* rows a task (a few MB of .r1cs bytes) */

typedef struct pass_ctx {
    const circuit_source *src;
    cs_matrices *m;
    uint32_t chunk; /* rows a task */
    uint8_t *in_a, *in_b;
    const coef_set *table; /* pass 2 */
} pass_ctx;

/* One task's rows, in one of the two passes: the first counts each row's
 * terms, marks the variables seen with a nonzero coefficient and gathers
 * the distinct coefficients (into `local`); the second places the
 * entries (the rows' starts known by then). */
static int walk_rows(const pass_ctx *p, int pass, uint32_t row0, uint32_t n, source_buf *buf, coef_set *local)
{
    int rc = p->src->rows(p->src, row0, n, buf);
    if (rc != CUZK_OK)
        return rc;
    const unsigned char *q = buf->p;
    for (uint32_t r = row0; r < row0 + n; r++)
        for (int k = 0; k < 3; k++) {
            uint32_t nt = read_u32le(q);
            q += 4;
            if (k == 2) {
                q += (size_t)nt * 36;
                continue;
            }
            cs_matrix *mk = &p->m->m[k];
            if (pass == 0)
                mk->row_ptr[r + 1] = nt;
            uint32_t at = pass == 1 ? mk->row_ptr[r] : 0; /* in pass 0 another task may be writing it */
            for (uint32_t t = 0; t < nt; t++, q += 36) {
                if (pass == 1) {
                    mk->col[at + t] = read_u32le(q);
                    mk->coef[at + t] = coef_find(p->table, q + 4);
                    continue;
                }
                if (!is_zero32(q + 4))
                    __atomic_store_n(&(k == 0 ? p->in_a : p->in_b)[read_u32le(q)], 1, __ATOMIC_RELAXED);
                if ((rc = coef_add(local, q + 4, NULL)) != CUZK_OK)
                    return rc;
            }
        }
    return CUZK_OK;
}

static int densities(const uint8_t *in, uint32_t n_vars, uint32_t **vars, uint32_t *count)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n_vars; i++)
        k += in[i];
    *vars = malloc(((size_t)k ? k : 1) * sizeof(uint32_t));
    if (!*vars)
        return CUZK_ERR_NO_MEMORY;
    k = 0;
    for (uint32_t i = 0; i < n_vars; i++)
        if (in[i])
            (*vars)[k++] = i;
    *count = k;
    return CUZK_OK;
}

int cs_matrices_from_source(cs_matrices **out, const circuit_source *src, int threads, uint32_t **a_vars,
                            uint32_t *n_a, uint32_t **b_vars, uint32_t *n_b, const progress_sink *progress,
                            cuzk_error *err)
{
    *out = NULL;
    *a_vars = *b_vars = NULL;
    uint32_t npub1 = src->n_public + 1, nc = src->n_constraints, nv = src->n_wires;
    uint64_t rows = (uint64_t)nc + npub1;
    if (rows > UINT32_MAX - 1)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: %llu rows with the input constraints; at most 2^32 - 2",
                              src->name, (unsigned long long)rows);
    if (threads < 1)
        threads = 1;
    cs_matrices *m = alloc_rows(src->curve->id, (uint32_t)rows, nv);
    uint8_t *in_a = calloc(nv ? nv : 1, 1), *in_b = calloc(nv ? nv : 1, 1);
    coef_set *local = calloc((size_t)threads, sizeof(coef_set));
    coef_set set = {0};
    int rc = m && in_a && in_b && local ? CUZK_OK : CUZK_ERR_NO_MEMORY;
    uint32_t chunk = src->chunk_rows ? src->chunk_rows : 1;
    while (chunk < CHUNK_MIN_ROWS)
        chunk *= 2;
    pass_ctx p = {src, m, chunk, in_a, in_b, &set};
    uint64_t tasks = ((uint64_t)nc + chunk - 1) / chunk;
    unsigned long long done = 0;
    for (int pass = 0; pass < 2 && rc == CUZK_OK; pass++) {
        progress_sink ps = {progress ? progress->fn : NULL, progress ? progress->ctx : NULL,
                            pass == 0 ? "reading the circuit's matrices" : "placing the circuit's matrices"};
        int failed = CUZK_OK;
#pragma omp parallel num_threads(threads)
        {
            source_buf buf = {0};
            coef_set *mine = &local[omp_get_thread_num()];
#pragma omp for schedule(dynamic)
            for (uint64_t t = 0; t < tasks; t++) {
                int frc;
#pragma omp atomic read
                frc = failed;
                if (frc != CUZK_OK)
                    continue;
                uint32_t row0 = (uint32_t)(t * chunk), n = nc - row0 < chunk ? nc - row0 : chunk;
                int r = walk_rows(&p, pass, row0, n, &buf, mine);
                if (r != CUZK_OK) {
#pragma omp atomic write
                    failed = r;
                }
                unsigned long long d;
#pragma omp atomic capture
                d = done += n;
                if (omp_get_thread_num() == 0)
                    progress_report(&ps, d, 2ull * nc);
            }
            source_buf_free(&buf);
        }
        rc = failed;
        if (rc != CUZK_OK || pass == 1)
            break;
        /* the input constraints: A = input s at row nc + s, coefficient 1 */
        unsigned char one[32] = {1};
        for (uint32_t s = 0; s < npub1; s++) {
            m->m[0].row_ptr[nc + s + 1] = 1;
            in_a[s] = 1;
        }
        rc = coef_add(&set, one, NULL);
        for (int t = 0; t < threads && rc == CUZK_OK; t++)
            for (uint32_t i = 0; i < local[t].n && rc == CUZK_OK; i++)
                rc = coef_add(&set, local[t].keys + 32 * (size_t)i, NULL);
        if (rc == CUZK_OK)
            rc = coef_sort(&set);
        if (rc == CUZK_OK)
            rc = alloc_entries(m);
        if (rc == CUZK_OK) {
            unsigned char one_key[32] = {1};
            uint32_t one_index = coef_find(&set, one_key);
            for (uint32_t s = 0; s < npub1; s++) {
                uint32_t at = m->m[0].row_ptr[nc + s];
                m->m[0].col[at] = s;
                m->m[0].coef[at] = one_index;
            }
        }
    }
    if (rc == CUZK_OK)
        rc = take_table(m, &set, 0);
    if (rc == CUZK_OK)
        rc = densities(in_a, nv, a_vars, n_a);
    if (rc == CUZK_OK)
        rc = densities(in_b, nv, b_vars, n_b);
    for (int t = 0; local && t < threads; t++)
        coef_set_free(&local[t]);
    free(local);
    coef_set_free(&set);
    free(in_a);
    free(in_b);
    if (rc != CUZK_OK) {
        cs_matrices_free(m);
        free(*a_vars);
        free(*b_vars);
        *a_vars = *b_vars = NULL;
        if (rc == CUZK_ERR_UNSUPPORTED)
            return cuzk_error_set(err, rc, "%s: a matrix holds more than 2^32 - 1 entries", src->name);
        return cuzk_error_set(err, rc, "out of memory for the matrices of %s", src->name);
    }
    *out = m;
    return CUZK_OK;
}
