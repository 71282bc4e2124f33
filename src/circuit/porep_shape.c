/* The porep-shape circuit: a satisfied circuit with the shape of the
 * 32 GiB-sector PoRep partition (issue 20), at any size.
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
 * constraints. Writes OUT_DIR/circuit.r1cs and OUT_DIR/partition_K.wtns. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../include/cuzk.h"
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

/* The template's proportions (per UNIT, see above). */
#define N_PACK 141  /* UNIT * 1.375 / 160 */
#define N_BOOL 4162 /* UNIT * 0.254 */
#define N_AND 2497  /* the C count: 3 xor + 1 (the rest) = 2.170 per constraint */

enum { K_BOOL, K_XOR, K_AND, K_PACK };

typedef struct templ {
    uint8_t kind[UNIT];
    uint16_t x[UNIT], y[UNIT]; /* operands (unit-relative); a pack: x = its index, y = the previous pack or UNIT */
    uint16_t bits[N_PACK][PACK_BITS];
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

/* ------------------------------------------------------------ writing */

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

typedef struct counts {
    uint64_t nz[3];
    uint64_t in_a, in_b; /* aux variables in some A, in some B */
} counts;

/* One unit's constraints (the first n), aux variable j of the unit at wire
 * base + j. */
static void write_unit(binwriter *w, templ *t, uint32_t base, size_t n, const uint64_t r[4], counts *c,
                       unsigned char *buf)
{
    uint8_t *in_a = t->in_a, *in_b = t->in_b;
    memset(in_a, 0, UNIT);
    memset(in_b, 0, UNIT);
    for (size_t j = 0; j < n; j++) {
        uint32_t z = base + (uint32_t)j;
        size_t at = 0;
        uint32_t cnt;
#define LC_BEGIN(N)                                                                                            \
    cnt = (N);                                                                                                 \
    memcpy(buf + at, &cnt, 4);                                                                                 \
    at += 4
#define TERM(WIRE, POW2, NEG)                                                                                  \
    term_bytes(buf + at, (WIRE), (POW2), (NEG), r);                                                            \
    at += 36
        switch (t->kind[j]) {
        case K_BOOL:
            LC_BEGIN(1);
            TERM(z, 0, 0);
            LC_BEGIN(1);
            TERM(z, 0, 0);
            LC_BEGIN(1);
            TERM(z, 0, 0);
            in_a[j] = in_b[j] = 1;
            c->nz[0]++, c->nz[1]++, c->nz[2]++;
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
            in_a[t->x[j]] = in_b[t->y[j]] = 1;
            c->nz[0]++, c->nz[1]++, c->nz[2] += 3;
            break;
        }
        case K_AND:
            LC_BEGIN(1);
            TERM(base + t->x[j], 0, 0);
            LC_BEGIN(1);
            TERM(base + t->y[j], 0, 0);
            LC_BEGIN(1);
            TERM(z, 0, 0);
            in_a[t->x[j]] = in_b[t->y[j]] = 1;
            c->nz[0]++, c->nz[1]++, c->nz[2]++;
            break;
        default: {
            /* the bits by wire, with their powers of two, then the previous word */
            const uint16_t *b = t->bits[t->x[j]];
            uint16_t order[PACK_BITS];
            for (int i = 0; i < PACK_BITS; i++)
                order[i] = (uint16_t)i;
            for (int i = 1; i < PACK_BITS; i++) /* insertion sort by the bit's variable */
                for (int k = i; k > 0 && b[order[k - 1]] > b[order[k]]; k--) {
                    uint16_t tmp = order[k];
                    order[k] = order[k - 1];
                    order[k - 1] = tmp;
                }
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
                in_a[b[order[i]]] = 1;
            }
            if (!placed) {
                TERM(prev, 0, 0);
            }
            if (chained)
                in_a[t->y[j]] = 1;
            LC_BEGIN(1);
            TERM(0, 0, 0); /* the constant one */
            LC_BEGIN(1);
            TERM(z, 0, 0);
            c->nz[0] += PACK_BITS + (uint64_t)chained, c->nz[1]++, c->nz[2]++;
        }
        }
#undef TERM
#undef LC_BEGIN
        binwriter_write(w, buf, at);
    }
    for (size_t j = 0; j < n; j++) {
        c->in_a += in_a[j];
        c->in_b += in_b[j];
    }
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
    for (uint32_t i = 0; i < N_PUBLIC; i++) { /* hashed values below 2^253 < r */
        unsigned char msg[24] = {'p', 'u', 'b'};
        memcpy(msg + 4, &seed, 8);
        memcpy(msg + 12, &partition, 4);
        memcpy(msg + 16, &i, 4);
        sha256_state s;
        sha256_init(&s);
        sha256_update(&s, msg, sizeof(msg));
        sha256_final(&s, v);
        v[31] &= 0x1f;
        binwriter_write(&w, v, 32);
    }
    uint64_t units = (n + UNIT - 1) / UNIT;
    unit_values *vals = malloc(UNITS_AT_ONCE * sizeof(unit_values));
    if (!vals) {
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
            for (size_t j = 0; j < m; j++) {
                memset(v, 0, 32);
                if (t->kind[j] == K_PACK) {
                    memcpy(v, vals[i].word[t->x[j]], 32);
                    const uint64_t *x = vals[i].word[t->x[j]];
                    bin += !x[1] && !x[2] && !x[3] && x[0] <= 1;
                } else {
                    v[0] = vals[i].bit[j];
                    bin++;
                }
                binwriter_write(&w, v, 32);
            }
            *done += m;
        }
        progress_report(ps, *done, total);
    }
    free(vals);
    binwriter_section_end(&w);
    *binary = bin; /* of the aux values */
    return binwriter_commit(&w, err);
}

int cuzk_circuit_porep_shape(const char *out_dir, const cuzk_porep_shape_options *opts, cuzk_porep_shape_info *info,
                             cuzk_error *err)
{
    if (!out_dir || !opts)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "porep-shape: NULL argument");
    uint64_t n = opts->constraints ? opts->constraints : CUZK_POREP_CONSTRAINTS;
    unsigned parts = opts->partitions ? opts->partitions : CUZK_POREP_PARTITIONS;
    if (n < FIRST_PACK)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "porep-shape: --constraints %llu: at least %d",
                              (unsigned long long)n, FIRST_PACK);
    if (n > CUZK_POREP_R1CS_MAX)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "porep-shape: --constraints %llu: a .r1cs is written up to %llu constraints (2^24: "
                              "about 3.5 GB); the full-size circuit needs the compact native form, not built yet",
                              (unsigned long long)n, (unsigned long long)CUZK_POREP_R1CS_MAX);
    if (parts > 1000)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "porep-shape: --partitions %u: at most 1000", parts);
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
    unsigned char *buf = malloc(4 + 3 * 4 + (PACK_BITS + 4) * 36);
    if (!t || !buf) {
        free(t);
        free(buf);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "porep-shape: out of memory");
    }
    make_template(t);

    /* the circuit */
    snprintf(path, sizeof(path), "%s/circuit.r1cs", out_dir);
    binwriter r1;
    counts cnt;
    memset(&cnt, 0, sizeof(cnt));
    int rc = binwriter_open(&r1, path, "r1cs", 1, 3, err);
    if (rc != CUZK_OK)
        goto done;
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
    uint64_t units = (n + UNIT - 1) / UNIT, total = n * (1 + (uint64_t)parts), done_n = 0;
    progress_sink ps = {opts->progress, opts->progress_ctx, "the circuit"};
    for (uint64_t u = 0; u < units; u++) {
        size_t m = n - u * UNIT < UNIT ? (size_t)(n - u * UNIT) : UNIT;
        write_unit(&r1, t, (uint32_t)(1 + N_PUBLIC + u * UNIT), m, c->r, &cnt, buf);
        done_n += m;
        if (u % 64 == 63 || u + 1 == units)
            progress_report(&ps, done_n, total);
    }
    binwriter_section_end(&r1);
    binwriter_section_begin(&r1, 3);
    for (uint64_t j = 0; j < n_wires; j++)
        binwriter_write(&r1, &j, 8);
    binwriter_section_end(&r1);
    if ((rc = binwriter_commit(&r1, err)) != CUZK_OK)
        goto done;

    /* the witnesses */
    uint64_t binary = 0;
    for (unsigned p = 0; p < parts && rc == CUZK_OK; p++) {
        char stage[48];
        snprintf(stage, sizeof(stage), "partition %u's witness", p);
        ps.stage = stage;
        snprintf(path, sizeof(path), "%s/partition_%u.wtns", out_dir, p);
        uint64_t b = 0;
        rc = write_witness(path, t, c, n, p, opts->seed, &ps, &done_n, total, &b, err);
        binary += b;
    }
    if (rc == CUZK_OK && info) {
        memset(info, 0, sizeof(*info));
        info->constraints = n;
        info->wires = n_wires;
        info->n_public = N_PUBLIC;
        info->aux = n;
        info->partitions = parts;
        memcpy(info->nonzeros, cnt.nz, sizeof(cnt.nz));
        info->aux_in_a = cnt.in_a;
        info->aux_in_b = cnt.in_b;
        info->witness_binary = binary;
        info->witness_values = n * parts;
    }
done:
    free(t);
    free(buf);
    return rc;
}
