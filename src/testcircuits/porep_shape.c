/* The porep-shape circuit: a satisfied circuit with the shape of the
 * 32 GiB-sector PoRep partition, at any size.
 *
 * The PoRep's proportions, per constraint (at 130,278,869 constraints):
 * 2.375 nonzeros in A, 1.000 in B, 2.170 in C; 99.7 % of the aux variables
 * in some A, 25.4 % in some B; >= 99 % of the witness 0 or 1; 328 inputs.
 * This circuit meets them with four gadgets over bits, in units of
 * UNIT constraints that share one structure (the template: made once
 * from a fixed seed), each constraint making one new aux variable:
 *   bool  b * b = b                       A 1, B 1, C 1   (b: hashed bits)
 *   xor   (2x) * (y) = x + y - z          A 1, B 1, C 3
 *   and   (x) * (y) = z                   A 1, B 1, C 1
 *   pack  (sum_i<160 2^i c_i + w') * 1 = w   A 161, B 1, C 1
 * with y always a bool (so B's aux variables are the bools: 25.4 % of the
 * constraints), x the oldest output of an xor or and not yet used (so
 * nearly every variable ends up in some A), and 0.86 % packs, whose words
 * (the witness's only values other than 0 and 1, chained through w') make
 * A's count: 1 + 160 * 0.0086 = 2.375. Units are independent, so the
 * witness of each is made on its own thread; its bools are bits of
 * SHA-256(seed, partition, unit, counter), so partitions differ in their
 * witness only. The inputs: the constant one, then 327 public values
 * hashed from (seed, partition), in no constraint but bellperson's input
 * constraints. Writes OUT_DIR/circuit.r1cs and OUT_DIR/partition_K.wtns,
 * or the native form: OUT_DIR/circuit.porep, a few lines naming the size,
 * from which the circuit's rows (a circuit_source, src/circuit/source.h)
 * and each partition's witness are made again wherever they are needed,
 * once cuzk_testcircuits_register has told libcuzk's readers of circuits
 * of the form. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <omp.h>

#include "../../include/cuzk_testcircuits.h"
#include "../circuit/source.h"
#include "../ec/curve_desc.h"
#include "../formats/binwriter.h"
#include "../formats/wtns.h"
#include "../util/error.h"
#include "../util/file.h"
#include "../util/progress.h"
#include "../util/sha256.h"

enum {
    UNIT = 16384,     /* constraints a unit */
    PACK_BITS = 160,  /* bits a pack gathers (a word below 2^160, plus the previous word) */
    N_PUBLIC = 327,   /* public inputs (with the constant one: bellperson's 328 inputs) */
    FIRST_PACK = 1024 /* no pack before this many constraints (enough distinct bits) */
};

/* the native description's first line */
#define POREP_SHAPE_MAGIC CIRCUIT_DESCRIPTION_PREFIX "porep-shape"

/* The template's proportions (per UNIT, see above). */
#define N_PACK 141  /* UNIT * 1.375 / 160 */
#define N_BOOL 4162 /* UNIT * 0.254 */
#define N_AND 2497  /* the C count: 3 xor + 1 (the rest) = 2.170 per constraint */

enum { K_BOOL, K_XOR, K_AND, K_PACK };

typedef struct templ {
    uint8_t kind[UNIT];
    uint16_t x[UNIT], y[UNIT]; /* operands (unit-relative); a pack: x = its index, y = the previous pack or UNIT */
    uint16_t bits[N_PACK][PACK_BITS];
    uint8_t order[N_PACK][PACK_BITS]; /* a pack's bits by variable: the order of its A terms */
    /* scratch: making the template, counting a unit's densities */
    uint16_t queue[UNIT], bools[UNIT], bitvars[UNIT];
    uint8_t used[UNIT], in_a[UNIT], in_b[UNIT];
} templ;

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void make_template(templ *t)
{
    uint64_t s = 0x706f726570ull; /* the structure is the same for every seed */
    /* the kinds: 64 bools first, packs every (UNIT - FIRST_PACK) / N_PACK
     * from FIRST_PACK, the rest shuffled */
    int left[3] = {N_BOOL - 64, UNIT - N_PACK - N_BOOL - N_AND, N_AND};
    int spacing = (UNIT - FIRST_PACK) / N_PACK, packs = 0;
    for (int j = 0; j < UNIT; j++) {
        if (j < 64) {
            t->kind[j] = K_BOOL;
            continue;
        }
        if (j >= FIRST_PACK && (j - FIRST_PACK) % spacing == spacing - 1 && packs < N_PACK) {
            t->kind[j] = K_PACK;
            packs++;
            continue;
        }
        int total = left[0] + left[1] + left[2];
        int r = total ? (int)(splitmix(&s) % (uint64_t)total) : 0;
        int k = r < left[0] ? 0 : r < left[0] + left[1] ? 1 : 2;
        if (!left[k])
            k = left[0] ? 0 : left[1] ? 1 : 2;
        left[k]--;
        t->kind[j] = (uint8_t)(k == 0 ? K_BOOL : k == 1 ? K_XOR : K_AND);
    }
    /* the operands: x the oldest unused xor/and output (else any earlier
     * bit), y a random earlier bool; a pack's bits the unused outputs
     * first, then random earlier bits, all distinct */
    uint16_t *queue = t->queue, *bools = t->bools, *bitvars = t->bitvars;
    uint8_t *used = t->used;
    int qh = 0, qt = 0, nb = 0, nbits = 0, prev_pack = UNIT, p = 0;
    for (int j = 0; j < UNIT; j++) {
        int k = t->kind[j];
        if (k == K_BOOL) {
            bools[nb++] = (uint16_t)j;
        } else if (k == K_XOR || k == K_AND) {
            t->x[j] = qh < qt ? queue[qh++] : bitvars[splitmix(&s) % (uint64_t)nbits];
            do
                t->y[j] = bools[splitmix(&s) % (uint64_t)nb];
            while (t->y[j] == t->x[j]);
            queue[qt++] = (uint16_t)j;
        } else {
            memset(used, 0, UNIT);
            for (int i = 0; i < PACK_BITS; i++) {
                uint16_t v;
                if (qh < qt && !used[queue[qh]])
                    v = queue[qh++];
                else
                    do
                        v = bitvars[splitmix(&s) % (uint64_t)nbits];
                    while (used[v]);
                used[v] = 1;
                t->bits[p][i] = v;
            }
            t->x[j] = (uint16_t)p++;
            t->y[j] = (uint16_t)prev_pack;
            prev_pack = j;
            continue; /* a word, not a bit */
        }
        bitvars[nbits++] = (uint16_t)j;
    }
    for (int q = 0; q < N_PACK; q++) { /* insertion sort of each pack's bits by variable */
        const uint16_t *b = t->bits[q];
        uint8_t *o = t->order[q];
        for (int i = 0; i < PACK_BITS; i++)
            o[i] = (uint8_t)i;
        for (int i = 1; i < PACK_BITS; i++)
            for (int k = i; k > 0 && b[o[k - 1]] > b[o[k]]; k--) {
                uint8_t tmp = o[k];
                o[k] = o[k - 1];
                o[k - 1] = tmp;
            }
    }
}

/* ------------------------------------------------------------ the witness */

typedef struct unit_values {
    uint8_t bit[UNIT];
    uint64_t word[N_PACK][4]; /* the packs' words, mod r */
} unit_values;

/* a + b mod r (both below r) */
static void add_mod(uint64_t a[4], const uint64_t b[4], const uint64_t r[4])
{
    unsigned __int128 c = 0;
    uint64_t s[4], d[4];
    for (int i = 0; i < 4; i++) {
        c += (unsigned __int128)a[i] + b[i];
        s[i] = (uint64_t)c;
        c >>= 64;
    }
    unsigned __int128 borrow = 0;
    for (int i = 0; i < 4; i++) {
        unsigned __int128 x = (unsigned __int128)s[i] - r[i] - borrow;
        d[i] = (uint64_t)x;
        borrow = (x >> 64) & 1;
    }
    int ge = c || !borrow; /* s >= r */
    memcpy(a, ge ? d : s, 32);
}

static void unit_witness(const templ *t, uint64_t seed, unsigned partition, uint64_t unit, size_t n,
                         const uint64_t r[4], unit_values *v)
{
    unsigned char msg[32], h[32];
    memcpy(msg, &seed, 8);
    memcpy(msg + 8, &partition, 4);
    memcpy(msg + 12, &unit, 8);
    uint32_t ctr = 0;
    int have = 0;
    for (size_t j = 0; j < n; j++) {
        switch (t->kind[j]) {
        case K_BOOL:
            if (!have) {
                memcpy(msg + 20, &ctr, 4);
                ctr++;
                sha256_state s;
                sha256_init(&s);
                sha256_update(&s, msg, 24);
                sha256_final(&s, h);
                have = 256;
            }
            have--;
            v->bit[j] = (h[have / 8] >> (have % 8)) & 1;
            break;
        case K_XOR:
            v->bit[j] = v->bit[t->x[j]] ^ v->bit[t->y[j]];
            break;
        case K_AND:
            v->bit[j] = v->bit[t->x[j]] & v->bit[t->y[j]];
            break;
        default: {
            uint64_t *w = v->word[t->x[j]];
            memset(w, 0, 32);
            const uint16_t *b = t->bits[t->x[j]];
            for (int i = 0; i < PACK_BITS; i++)
                w[i / 64] |= (uint64_t)v->bit[b[i]] << (i % 64);
            if (t->y[j] < UNIT)
                add_mod(w, v->word[t->x[t->y[j]]], r);
            v->bit[j] = 2; /* not a bit */
        }
        }
    }
}

/* The public values: hashed from (seed, partition, i), below 2^253 < r. */
static void public_value(uint64_t seed, unsigned partition, uint32_t i, unsigned char v[32])
{
    unsigned char msg[24] = {'p', 'u', 'b'};
    memcpy(msg + 4, &seed, 8);
    memcpy(msg + 12, &partition, 4);
    memcpy(msg + 16, &i, 4);
    sha256_state s;
    sha256_init(&s);
    sha256_update(&s, msg, sizeof(msg));
    sha256_final(&s, v);
    v[31] &= 0x1f;
}

/* A unit's first m values as plain 32-byte values; returns how many are 0 or 1. */
static uint64_t unit_plain(const templ *t, const unit_values *v, size_t m, unsigned char *out)
{
    uint64_t bin = 0;
    for (size_t j = 0; j < m; j++, out += 32) {
        memset(out, 0, 32);
        if (t->kind[j] == K_PACK) {
            const uint64_t *x = v->word[t->x[j]];
            memcpy(out, x, 32);
            bin += !x[1] && !x[2] && !x[3] && x[0] <= 1;
        } else {
            out[0] = v->bit[j];
            bin++;
        }
    }
    return bin;
}

/* ------------------------------------------------------------ the rows */

static void term_bytes(unsigned char *out, uint32_t wire, int pow2, int negate_one, const uint64_t r[4])
{
    memcpy(out, &wire, 4);
    memset(out + 4, 0, 32);
    if (negate_one) { /* r - 1 */
        uint64_t m[4] = {r[0] - 1, r[1], r[2], r[3]};
        memcpy(out + 4, m, 32);
    } else
        out[4 + pow2 / 8] = (unsigned char)(1u << (pow2 % 8));
}

/* The bytes of a unit's row j in the .r1cs layout. */
static size_t row_size(const templ *t, size_t j)
{
    switch (t->kind[j]) {
    case K_XOR:
        return 3 * 4 + 5 * 36;
    case K_PACK:
        return 3 * 4 + (PACK_BITS + (t->y[j] < UNIT) + 2) * 36;
    default:
        return 3 * 4 + 3 * 36;
    }
}

/* Rows [j0, j1) of a unit whose aux variable j is wire base + j, into
 * out (room for them: row_size). Returns the bytes written. */
static size_t unit_rows(const templ *t, uint32_t base, size_t j0, size_t j1, const uint64_t r[4], unsigned char *out)
{
    size_t at = 0;
    for (size_t j = j0; j < j1; j++) {
        uint32_t z = base + (uint32_t)j, cnt;
#define LC_BEGIN(N)                                                                                            \
    cnt = (N);                                                                                                 \
    memcpy(out + at, &cnt, 4);                                                                                 \
    at += 4
#define TERM(WIRE, POW2, NEG)                                                                                  \
    term_bytes(out + at, (WIRE), (POW2), (NEG), r);                                                            \
    at += 36
        switch (t->kind[j]) {
        case K_BOOL:
            LC_BEGIN(1);
            TERM(z, 0, 0);
            LC_BEGIN(1);
            TERM(z, 0, 0);
            LC_BEGIN(1);
            TERM(z, 0, 0);
            break;
        case K_XOR: {
            uint32_t x = base + t->x[j], y = base + t->y[j];
            LC_BEGIN(1);
            TERM(x, 1, 0);
            LC_BEGIN(1);
            TERM(y, 0, 0);
            LC_BEGIN(3); /* x + y - z, by wire (z is the newest) */
            TERM(x < y ? x : y, 0, 0);
            TERM(x < y ? y : x, 0, 0);
            TERM(z, 0, 1);
            break;
        }
        case K_AND:
            LC_BEGIN(1);
            TERM(base + t->x[j], 0, 0);
            LC_BEGIN(1);
            TERM(base + t->y[j], 0, 0);
            LC_BEGIN(1);
            TERM(z, 0, 0);
            break;
        default: {
            /* the bits by wire, with their powers of two, then the previous word */
            const uint16_t *b = t->bits[t->x[j]];
            const uint8_t *order = t->order[t->x[j]];
            int chained = t->y[j] < UNIT;
            uint32_t prev = chained ? base + t->y[j] : UINT32_MAX;
            int placed = !chained;
            LC_BEGIN(PACK_BITS + (uint32_t)chained);
            for (int i = 0; i < PACK_BITS; i++) {
                uint32_t wire = base + b[order[i]];
                if (!placed && prev < wire) { /* the previous word, in its place by wire */
                    TERM(prev, 0, 0);
                    placed = 1;
                }
                TERM(wire, order[i], 0);
            }
            if (!placed) {
                TERM(prev, 0, 0);
            }
            LC_BEGIN(1);
            TERM(0, 0, 0); /* the constant one */
            LC_BEGIN(1);
            TERM(z, 0, 0);
        }
        }
#undef TERM
#undef LC_BEGIN
    }
    return at;
}

typedef struct counts {
    uint64_t nz[3];
    uint64_t in_a, in_b; /* aux variables in some A, in some B */
} counts;

/* What a unit's first n rows add to the counts (units share no aux
 * variable, so units add up). Uses the template's scratch. */
static void count_unit(templ *t, size_t n, counts *c)
{
    uint8_t *in_a = t->in_a, *in_b = t->in_b;
    memset(in_a, 0, UNIT);
    memset(in_b, 0, UNIT);
    for (size_t j = 0; j < n; j++) {
        switch (t->kind[j]) {
        case K_BOOL:
            in_a[j] = in_b[j] = 1;
            c->nz[0]++, c->nz[1]++, c->nz[2]++;
            break;
        case K_XOR:
            in_a[t->x[j]] = in_b[t->y[j]] = 1;
            c->nz[0]++, c->nz[1]++, c->nz[2] += 3;
            break;
        case K_AND:
            in_a[t->x[j]] = in_b[t->y[j]] = 1;
            c->nz[0]++, c->nz[1]++, c->nz[2]++;
            break;
        default: {
            int chained = t->y[j] < UNIT;
            for (int i = 0; i < PACK_BITS; i++)
                in_a[t->bits[t->x[j]][i]] = 1;
            if (chained)
                in_a[t->y[j]] = 1;
            c->nz[0] += PACK_BITS + (uint64_t)chained, c->nz[1]++, c->nz[2]++;
        }
        }
    }
    for (size_t j = 0; j < n; j++) {
        c->in_a += in_a[j];
        c->in_b += in_b[j];
    }
}

static void count_circuit(templ *t, uint64_t n, counts *c)
{
    memset(c, 0, sizeof(*c));
    counts full = {{0}, 0, 0};
    count_unit(t, UNIT, &full);
    uint64_t units = n / UNIT;
    for (int m = 0; m < 3; m++)
        c->nz[m] = full.nz[m] * units;
    c->in_a = full.in_a * units;
    c->in_b = full.in_b * units;
    if (n % UNIT)
        count_unit(t, (size_t)(n % UNIT), c);
}

/* ------------------------------------------------------------ the source */

typedef struct porep_source {
    templ *t;
    uint64_t n;
} porep_source;

static int porep_rows(const circuit_source *s, uint32_t row0, uint32_t n, source_buf *buf)
{
    const porep_source *ps = s->impl;
    const templ *t = ps->t;
    size_t need = 0;
    for (uint32_t k = row0; k < row0 + n; k++)
        need += row_size(t, k % UNIT);
    if (source_buf_reserve(buf, need + 1) != CUZK_OK)
        return CUZK_ERR_NO_MEMORY;
    size_t at = 0;
    for (uint64_t k = row0; k < (uint64_t)row0 + n;) {
        uint64_t u = k / UNIT, j0 = k % UNIT, j1 = (uint64_t)row0 + n - u * UNIT;
        if (j1 > UNIT)
            j1 = UNIT;
        at += unit_rows(t, (uint32_t)(1 + N_PUBLIC + u * UNIT), (size_t)j0, (size_t)j1, s->curve->r, buf->p + at);
        k = u * UNIT + j1;
    }
    buf->len = at;
    return CUZK_OK;
}

/* The witness in memory: the units on `threads` threads. */
static int porep_witness_values(const templ *t, const curve_desc *c, uint64_t n, uint64_t seed, unsigned partition,
                                unsigned char *out, int threads, uint64_t *binary)
{
    public_value(seed, partition, 0, out); /* overwritten: the constant one */
    memset(out, 0, 32);
    out[0] = 1;
    for (uint32_t i = 0; i < N_PUBLIC; i++)
        public_value(seed, partition, i, out + 32 * (1 + (size_t)i));
    unsigned char *aux = out + 32 * (1 + (size_t)N_PUBLIC);
    int64_t units = (int64_t)((n + UNIT - 1) / UNIT);
    int failed = 0;
    uint64_t bin = 0;
#pragma omp parallel num_threads(threads > 0 ? threads : 1) reduction(+ : bin)
    {
        unit_values *v = malloc(sizeof(*v));
        if (!v) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic)
        for (int64_t u = 0; u < units; u++) {
            if (!v)
                continue;
            size_t m = n - (uint64_t)u * UNIT < UNIT ? (size_t)(n - (uint64_t)u * UNIT) : UNIT;
            unit_witness(t, seed, partition, (uint64_t)u, m, c->r, v);
            bin += unit_plain(t, v, m, aux + (size_t)u * UNIT * 32);
        }
        free(v);
    }
    if (binary)
        *binary = bin;
    return failed ? CUZK_ERR_NO_MEMORY : CUZK_OK;
}

static int porep_witness(const circuit_source *s, unsigned partition, unsigned char *out, int threads,
                         cuzk_error *err)
{
    const porep_source *ps = s->impl;
    if (porep_witness_values(ps->t, s->curve, ps->n, s->seed, partition, out, threads, NULL) != CUZK_OK)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory making partition %u's witness", s->name,
                              partition);
    return CUZK_OK;
}

static void porep_release(circuit_source *s)
{
    porep_source *ps = s->impl;
    free(ps->t);
    free(ps);
}

static int porep_source_make(circuit_source **out, const char *name, uint64_t n, unsigned partitions,
                             uint64_t seed, cuzk_error *err)
{
    circuit_source *s = calloc(1, sizeof(*s));
    porep_source *ps = calloc(1, sizeof(*ps));
    templ *t = malloc(sizeof(*t));
    if (!s || !ps || !t) {
        free(s);
        free(ps);
        free(t);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", name);
    }
    make_template(t);
    ps->t = t;
    ps->n = n;
    snprintf(s->name, sizeof(s->name), "%s", name);
    s->curve = curve_by_id(CUZK_CURVE_BLS12_381);
    s->n_wires = (uint32_t)(1 + N_PUBLIC + n);
    s->n_public = N_PUBLIC;
    s->n_constraints = (uint32_t)n;
    s->chunk_rows = UNIT;
    s->rows = porep_rows;
    s->witness = porep_witness;
    s->partitions = partitions;
    s->seed = seed;
    s->release = porep_release;
    s->impl = ps;
    *out = s;
    return CUZK_OK;
}

/* ------------------------------------------------------------ the native description
 *
 *   cuzk circuit porep-shape
 *   version 1
 *   constraints N
 *   partitions P
 *   seed S
 *
 * one line each, in this order, decimal numbers. */

static const char *const description_keys[] = {"version", "constraints", "partitions", "seed"};

/* The checks of the options (and of a description's values). */
static int check_size(uint64_t n, unsigned parts, const char *what, cuzk_error *err)
{
    if (n < FIRST_PACK)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: %llu constraints: at least %d", what,
                              (unsigned long long)n, FIRST_PACK);
    if (n > CUZK_POREP_NATIVE_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s: %llu constraints: at most %llu (with the 328 input constraints, a domain of 2^31)",
                              what, (unsigned long long)n, (unsigned long long)CUZK_POREP_NATIVE_MAX);
    if (parts < 1 || parts > 1000)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: %u partitions: 1 to 1000", what, parts);
    return CUZK_OK;
}

static int porep_shape_source_parse(circuit_source **out, const char *path, const char *text, size_t len, cuzk_error *err)
{
    *out = NULL;
    unsigned long long val[4] = {0};
    size_t at = 0;
    for (int line = 0; line <= 4; line++) {
        size_t end = at;
        while (end < len && text[end] != '\n')
            end++;
        if (end == len)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: line %d: %s (a native circuit description has 5 lines, each ending in a "
                                  "newline)",
                                  path, line + 1, at == len ? "missing" : "not ended by a newline");
        char l[128];
        size_t ll = end - at < sizeof(l) - 1 ? end - at : sizeof(l) - 1;
        memcpy(l, text + at, ll);
        l[ll] = 0;
        at = end + 1;
        if (line == 0) {
            if (strcmp(l, POREP_SHAPE_MAGIC) != 0)
                return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: line 1: expected \"%s\"", path, POREP_SHAPE_MAGIC);
            continue;
        }
        const char *key = description_keys[line - 1];
        size_t kl = strlen(key);
        const char *v = l + kl + 1;
        char *e = NULL;
        errno = 0;
        unsigned long long x = strncmp(l, key, kl) == 0 && l[kl] == ' ' && *v >= '0' && *v <= '9'
                                   ? strtoull(v, &e, 10)
                                   : 0;
        if (!e || *e || errno)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: line %d: expected \"%s N\" (a decimal number), found \"%.60s\"",
                                  path, line + 1, key, l);
        val[line - 1] = x;
    }
    if (at != len)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %zu bytes after the 5 lines of a native circuit description",
                              path, len - at);
    if (val[0] != 1)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: version %llu; this cuzk reads version 1", path, val[0]);
    if (val[2] > 1000)
        val[2] = 1001; /* not truncated into a valid count */
    int rc = check_size(val[1], (unsigned)val[2], path, err);
    if (rc != CUZK_OK)
        return rc;
    return porep_source_make(out, path, val[1], (unsigned)val[2], val[3], err);
}

/* ------------------------------------------------------------ the driver */

enum { UNITS_AT_ONCE = 64 }; /* units whose witness is made in parallel, then written */

static int write_witness(const char *path, const templ *t, const curve_desc *c, uint64_t n, unsigned partition,
                         uint64_t seed, const progress_sink *ps, uint64_t *done, uint64_t total, uint64_t *binary,
                         cuzk_error *err)
{
    binwriter w;
    int rc = wtns_writer_open(&w, path, c, (uint32_t)(1 + N_PUBLIC + n), err);
    if (rc != CUZK_OK)
        return rc;
    unsigned char v[32] = {1};
    binwriter_write(&w, v, 32);
    for (uint32_t i = 0; i < N_PUBLIC; i++) {
        public_value(seed, partition, i, v);
        binwriter_write(&w, v, 32);
    }
    uint64_t units = (n + UNIT - 1) / UNIT;
    unit_values *vals = malloc(UNITS_AT_ONCE * sizeof(unit_values));
    unsigned char *plain = malloc((size_t)UNIT * 32);
    if (!vals || !plain) {
        free(vals);
        free(plain);
        binwriter_abort(&w);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "porep-shape: out of memory");
    }
    uint64_t bin = 0;
    for (uint64_t u0 = 0; u0 < units; u0 += UNITS_AT_ONCE) {
        int k = units - u0 < UNITS_AT_ONCE ? (int)(units - u0) : UNITS_AT_ONCE;
#pragma omp parallel for schedule(dynamic)
        for (int i = 0; i < k; i++) {
            uint64_t u = u0 + (uint64_t)i;
            size_t m = n - u * UNIT < UNIT ? (size_t)(n - u * UNIT) : UNIT;
            unit_witness(t, seed, partition, u, m, c->r, &vals[i]);
        }
        for (int i = 0; i < k; i++) {
            uint64_t u = u0 + (uint64_t)i;
            size_t m = n - u * UNIT < UNIT ? (size_t)(n - u * UNIT) : UNIT;
            bin += unit_plain(t, &vals[i], m, plain);
            binwriter_write(&w, plain, m * 32);
            *done += m;
        }
        progress_report(ps, *done, total);
    }
    free(vals);
    free(plain);
    binwriter_section_end(&w);
    *binary = bin; /* of the aux values */
    return binwriter_commit(&w, err);
}

/* OUT_DIR/circuit.r1cs, streamed unit by unit. */
static int write_r1cs(const char *path, const templ *t, const curve_desc *c, uint64_t n, const progress_sink *ps,
                      uint64_t *done, uint64_t total, cuzk_error *err)
{
    unsigned char *buf = malloc((size_t)UNIT * (3 * 4 + (PACK_BITS + 3) * 36));
    if (!buf)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "porep-shape: out of memory");
    binwriter r1;
    int rc = binwriter_open(&r1, path, "r1cs", 1, 3, err);
    if (rc != CUZK_OK) {
        free(buf);
        return rc;
    }
    unsigned char prime[32];
    curve_prime_bytes(prime, c->r, 32);
    uint32_t n_wires = (uint32_t)(1 + N_PUBLIC + n);
    uint32_t hdr[7] = {n_wires, 0, N_PUBLIC, 0, n_wires, 0, (uint32_t)n}; /* nLabels: a u64 (hdr[4..5]) */
    binwriter_section_begin(&r1, 1);
    binwriter_u32(&r1, 32);
    binwriter_write(&r1, prime, 32);
    binwriter_write(&r1, hdr, sizeof(hdr));
    binwriter_section_end(&r1);
    binwriter_section_begin(&r1, 2);
    uint64_t units = (n + UNIT - 1) / UNIT;
    for (uint64_t u = 0; u < units; u++) {
        size_t m = n - u * UNIT < UNIT ? (size_t)(n - u * UNIT) : UNIT;
        binwriter_write(&r1, buf, unit_rows(t, (uint32_t)(1 + N_PUBLIC + u * UNIT), 0, m, c->r, buf));
        *done += m;
        if (u % 64 == 63 || u + 1 == units)
            progress_report(ps, *done, total);
    }
    binwriter_section_end(&r1);
    binwriter_section_begin(&r1, 3);
    for (uint64_t j = 0; j < n_wires; j++)
        binwriter_write(&r1, &j, 8);
    binwriter_section_end(&r1);
    free(buf);
    return binwriter_commit(&r1, err);
}

/* OUT_DIR/circuit.porep, atomically (a temporary file renamed). */
static int write_description(const char *path, uint64_t n, unsigned parts, uint64_t seed, cuzk_error *err)
{
    char text[256];
    int len = snprintf(text, sizeof(text), "%s\nversion 1\nconstraints %llu\npartitions %u\nseed %llu\n",
                       POREP_SHAPE_MAGIC, (unsigned long long)n, parts, (unsigned long long)seed);
    return write_file_atomic(path, text, (size_t)len, err);
}

int cuzk_circuit_porep_shape(const char *out_dir, const cuzk_porep_shape_options *opts, cuzk_porep_shape_info *info,
                             cuzk_error *err)
{
    if (!out_dir || !opts)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "porep-shape: NULL argument");
    uint64_t n = opts->constraints ? opts->constraints : CUZK_POREP_CONSTRAINTS;
    unsigned parts = opts->partitions ? opts->partitions : CUZK_POREP_PARTITIONS;
    int format = opts->format;
    if (format != CUZK_POREP_FORMAT_AUTO && format != CUZK_POREP_FORMAT_R1CS && format != CUZK_POREP_FORMAT_NATIVE)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "porep-shape: format %d: expected CUZK_POREP_FORMAT_AUTO, _R1CS or _NATIVE", format);
    if (format == CUZK_POREP_FORMAT_AUTO)
        format = n > CUZK_POREP_R1CS_MAX ? CUZK_POREP_FORMAT_NATIVE : CUZK_POREP_FORMAT_R1CS;
    int rc = check_size(n, parts, "porep-shape", err);
    if (rc != CUZK_OK)
        return rc;
    if (format == CUZK_POREP_FORMAT_R1CS && n > CUZK_POREP_R1CS_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "porep-shape: --constraints %llu: a .r1cs is written up to %llu constraints (2^24: "
                              "about 3.5 GB); larger circuits take the native form (--format native)",
                              (unsigned long long)n, (unsigned long long)CUZK_POREP_R1CS_MAX);
    if (mkdir(out_dir, 0777) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create the directory: %s", out_dir, strerror(errno));
    struct stat st;
    if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: not a directory", out_dir);
    size_t dl = strlen(out_dir);
    if (dl > 3900)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "porep-shape: the directory's path is too long");
    char path[4096];
    const curve_desc *c = curve_by_id(CUZK_CURVE_BLS12_381);
    templ *t = malloc(sizeof(*t));
    if (!t)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "porep-shape: out of memory");
    make_template(t);

    /* the circuit */
    int witnesses = format == CUZK_POREP_FORMAT_R1CS || opts->witness_files;
    uint64_t total = n * ((format == CUZK_POREP_FORMAT_R1CS) + (witnesses ? (uint64_t)parts : 0)), done_n = 0;
    progress_sink ps = {opts->progress, opts->progress_ctx, "the circuit"};
    if (format == CUZK_POREP_FORMAT_R1CS) {
        snprintf(path, sizeof(path), "%s/circuit.r1cs", out_dir);
        rc = write_r1cs(path, t, c, n, &ps, &done_n, total, err);
    } else {
        snprintf(path, sizeof(path), "%s/circuit.porep", out_dir);
        rc = write_description(path, n, parts, opts->seed, err);
    }

    /* the witnesses */
    uint64_t binary = 0;
    for (unsigned p = 0; witnesses && p < parts && rc == CUZK_OK; p++) {
        char stage[48];
        snprintf(stage, sizeof(stage), "partition %u's witness", p);
        ps.stage = stage;
        snprintf(path, sizeof(path), "%s/partition_%u.wtns", out_dir, p);
        uint64_t b = 0;
        rc = write_witness(path, t, c, n, p, opts->seed, &ps, &done_n, total, &b, err);
        binary += b;
    }
    if (rc == CUZK_OK && info) {
        counts cnt;
        count_circuit(t, n, &cnt);
        memset(info, 0, sizeof(*info));
        info->constraints = n;
        info->wires = 1 + N_PUBLIC + n;
        info->n_public = N_PUBLIC;
        info->aux = n;
        info->partitions = parts;
        info->format = format;
        memcpy(info->nonzeros, cnt.nz, sizeof(cnt.nz));
        info->aux_in_a = cnt.in_a;
        info->aux_in_b = cnt.in_b;
        info->witness_binary = binary;
        info->witness_values = witnesses ? n * parts : 0;
    }
    free(t);
    return rc;
}

int cuzk_testcircuits_register(cuzk_error *err)
{
    return circuit_kind_register(POREP_SHAPE_MAGIC, porep_shape_source_parse, err);
}
