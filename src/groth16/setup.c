/* The circuit-specific setup around the core: files in, the key out, and
 * snarkjs's circuit hash (section 10), so that the whole file equals what
 * `snarkjs groth16 setup` writes. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cuda/gpu.h"
#include "../circuit/source.h"
#include "../core/core.h"
#include "../formats/binwriter.h"
#include "../formats/params.h"
#include "../formats/ptau.h"
#include "../formats/r1cs.h"
#include "../formats/zkey.h"
#include "../util/blake2b.h"
#include "../gpu/device.h"
#include "../util/error.h"
#include "../util/util.h"
#include "../util/cores.h"

/* snarkjs hashes points in ffjavascript's "uncompressed" form: each
 * coordinate's plain value big-endian (Fp2 as c1 then c0), the point at
 * infinity as zeros. */
static void hash_points(blake2b_state *h, const curve_desc *c, const unsigned char *pts, size_t n, int group)
{
    size_t elems = group == 1 ? 2 : 4, n8 = c->n8q, size = elems * n8;
    unsigned char u[192], plain[48];
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = pts + i * size;
        unsigned char acc = 0;
        for (size_t k = 0; k < size; k++)
            acc |= p[k];
        memset(u, 0, size);
        if (acc) {
            /* a coordinate is elems/2 field elements, little-endian c0 then
             * c1; reversed as a whole it reads c1 then c0, big-endian */
            size_t coord = size / 2;
            for (int xy = 0; xy < 2; xy++)
                for (size_t e = 0; e < elems / 2; e++) {
                    cuzk_core()->fq_from_mont(c->id, plain, p + xy * coord + e * n8);
                    for (size_t k = 0; k < n8; k++)
                        u[xy * coord + coord - 1 - (e * n8 + k)] = plain[k];
                }
        }
        blake2b_update(h, u, size);
    }
}

static void hash_u32(blake2b_state *h, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                          (unsigned char)v};
    blake2b_update(h, b, 4);
}

static void write_section(binwriter *w, uint32_t id, const void *data, size_t len)
{
    binwriter_section_begin(w, id);
    binwriter_write(w, data, len);
    binwriter_section_end(w);
}

/* snarkjs's domain for a circuit: 2^(log2(nConstraints + nPublic) + 1),
 * log2 rounding down. Errors name the file. */
static int circuit_power(const circuit_source *r, const char *path, unsigned *power, cuzk_error *err)
{
    uint64_t rows = (uint64_t)r->n_constraints + r->n_public;
    unsigned p = 0;
    for (uint64_t x = rows; x > 1; x >>= 1)
        p++;
    p += 1;
    unsigned max_power = r->curve->two_adicity - 1; /* the odd coset of the 2n-domain */
    if (p > max_power)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: %u constraints + %u public signals need a 2^%u domain, too large for %s (at most "
                              "2^%u)",
                              path, r->n_constraints, r->n_public, p, r->curve->display, max_power);
    *power = p;
    return CUZK_OK;
}

/* The A and B terms of n rows in the .r1cs layout. */
static uint64_t ab_terms(const unsigned char *p, uint32_t n)
{
    uint64_t terms = 0;
    for (uint32_t k = 0; k < n; k++)
        for (int m = 0; m < 3; m++) {
            uint32_t nt = read_u32le(p);
            terms += m < 2 ? nt : 0;
            p += 4 + (size_t)nt * 36;
        }
    return terms;
}

enum { SOURCE_ROWS = 1 << 16 }; /* rows of a circuit read at a time */

static uint32_t source_chunk(const circuit_source *s)
{
    uint32_t chunk = s->chunk_rows ? s->chunk_rows : 1;
    while (chunk < SOURCE_ROWS)
        chunk *= 2;
    return chunk;
}

/* Section 4's entry count: every A and B term, and one per public signal
 * and the constant. */
static int count_coefs(const circuit_source *s, uint64_t *count)
{
    uint64_t n = (uint64_t)s->n_public + 1;
    uint32_t chunk = source_chunk(s);
    source_buf buf = {0};
    int rc = CUZK_OK;
    for (uint32_t row0 = 0; row0 < s->n_constraints && rc == CUZK_OK; row0 += chunk) {
        uint32_t m = s->n_constraints - row0 < chunk ? s->n_constraints - row0 : chunk;
        if ((rc = s->rows(s, row0, m, &buf)) == CUZK_OK)
            n += ab_terms(buf.p, m);
    }
    source_buf_free(&buf);
    *count = n;
    return rc;
}

/* Sections 1 (protocol: Groth16) and 2 (header); vk holds alpha1, beta1,
 * beta2, gamma2, delta1, delta2 in the .zkey layout. */
static void write_header(binwriter *w, const curve_desc *c, uint32_t n_vars, uint32_t n_public, uint32_t domain,
                         const unsigned char *vk)
{
    unsigned char hdr[4 + 48 + 4 + 32 + 12], prime[48];
    size_t hp = 0;
    uint32_t v32;
    binwriter_section_begin(w, ZKEY_SEC_PROTOCOL);
    binwriter_u32(w, 1);
    binwriter_section_end(w);
    binwriter_section_begin(w, ZKEY_SEC_HEADER);
    v32 = c->n8q;
    memcpy(hdr + hp, &v32, 4), hp += 4;
    curve_prime_bytes(prime, c->q, c->n8q);
    memcpy(hdr + hp, prime, c->n8q), hp += c->n8q;
    v32 = c->n8r;
    memcpy(hdr + hp, &v32, 4), hp += 4;
    curve_prime_bytes(prime, c->r, c->n8r);
    memcpy(hdr + hp, prime, c->n8r), hp += c->n8r;
    uint32_t counts[3] = {n_vars, n_public, domain};
    memcpy(hdr + hp, counts, 12), hp += 12;
    binwriter_write(w, hdr, hp);
    binwriter_write(w, vk, 3 * c->g1_bytes + 3 * c->g2_bytes);
    binwriter_section_end(w);
}

static int default_threads(int threads)
{
    return threads > 0 ? threads : cpu_cores();
}

/* The steps of a setup from a ptau, as progress reports them (one step
 * each: the points come from the core in one call). */
enum { PTAU_STEP_POINTS, PTAU_STEP_HASH, PTAU_STEP_WRITE, PTAU_STEPS };

static void ptau_step(cuzk_progress_fn progress, void *ctx, int step)
{
    static const char *const name[PTAU_STEPS] = {"computing the key's points", "hashing the key",
                                                 "writing the key"};
    if (progress)
        progress(ctx, name[step], (unsigned long long)step, PTAU_STEPS);
}

/* bellperson's keys are BLS12-381's */
static int format_fits(const curve_desc *c, int format, const char *r1cs_path, cuzk_error *err)
{
    if (format == CUZK_KEY_PARAMS && c->id != CUZK_CURVE_BLS12_381)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s is a %s circuit; bellperson .params keys (--format params) are BLS12-381's", r1cs_path,
                              c->display);
    return CUZK_OK;
}

static int setup_ptau(const char *r1cs_path, const char *ptau_path, const char *zkey_path, int threads, int format,
                      cuzk_progress_fn progress, void *progress_ctx, cuzk_error *err)
{
    if (!r1cs_path || !ptau_path || !zkey_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_setup_ptau: NULL argument");
    threads = default_threads(threads);
    circuit_source *src;
    ptau_file pt;
    progress_sink reading = {progress, progress_ctx, "reading the circuit"};
    int rc = circuit_source_open(&src, r1cs_path, &reading, err);
    if (rc != CUZK_OK)
        return rc;
    const cuzk_r1cs *r = circuit_source_r1cs(src);
    if (!r) {
        circuit_source_free(src);
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: a setup from a powers of tau (--ptau) reads a .r1cs; this native circuit takes a "
                              "random setup (no --ptau)",
                              r1cs_path);
    }
    if ((rc = ptau_open(&pt, ptau_path, err)) != CUZK_OK) {
        circuit_source_free(src);
        return rc;
    }
    const curve_desc *c = r->curve;
    unsigned char *a = NULL, *b1 = NULL, *b2 = NULL, *ic = NULL, *cc = NULL, *coefs = NULL, *h = NULL, *hh = NULL;
    uint32_t n_public = r->n_pub_out + r->n_pub_in;
    unsigned cir_power = 0;
    if ((rc = format_fits(c, format, r1cs_path, err)) != CUZK_OK ||
        (rc = circuit_power(src, r1cs_path, &cir_power, err)) != CUZK_OK)
        goto done;
    size_t n = (size_t)1 << cir_power, g1 = c->g1_bytes, g2 = c->g2_bytes;
    if (pt.curve != c) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s is a %s circuit, but %s is a %s powers of tau", r1cs_path,
                            c->display, ptau_path, pt.curve->display);
        goto done;
    }
    if (cir_power > pt.power) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT,
                            "%s needs a domain of 2^%u (%u constraints + %u public signals), but %s has powers up to "
                            "2^%u",
                            r1cs_path, cir_power, r->n_constraints, n_public, ptau_path, pt.power);
        goto done;
    }
    uint64_t n_coefs = 0;
    if ((rc = count_coefs(src, &n_coefs)) != CUZK_OK) {
        rc = cuzk_error_set(err, rc, "out of memory for the setup of %s", r1cs_path);
        goto done;
    }
    size_t nv = r->n_wires, npub1 = (size_t)n_public + 1;
    a = malloc(nv * g1);
    b1 = malloc(nv * g1);
    b2 = malloc(nv * g2);
    ic = malloc(npub1 * g1);
    cc = malloc((nv - npub1 + 1) * g1);
    coefs = malloc(n_coefs * 44 + 4);
    h = malloc(n * g1);
    hh = malloc(n * g1);
    if (!a || !b1 || !b2 || !ic || !cc || !coefs || !h || !hh) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory for the setup of %s", r1cs_path);
        goto done;
    }
    core_setup_in in = {
        .curve = c->id,
        .threads = threads,
        .n_vars = (unsigned)nv,
        .n_public = n_public,
        .n_constraints = r->n_constraints,
        .constraints = r->constraints,
        .lag_g1 = ptau_level(pt.lagrange_g1, cir_power, g1),
        .lag_g2 = ptau_level(pt.lagrange_g2, cir_power, g2),
        .lag_alpha_g1 = ptau_level(pt.lagrange_alpha_g1, cir_power, g1),
        .lag_beta_g1 = ptau_level(pt.lagrange_beta_g1, cir_power, g1),
        .bellperson = format == CUZK_KEY_PARAMS,
        .log_n = cir_power,
    };
    ptau_step(progress, progress_ctx, PTAU_STEP_POINTS);
    uint32_t count = (uint32_t)n_coefs;
    memcpy(coefs, &count, 4);
    if (format != CUZK_KEY_PARAMS) /* a .params key holds no matrices */
        cuzk_core()->setup_coefs(c->id, coefs + 4, r->constraints, 0, r->n_constraints, r->n_constraints, n_public);
    core_setup_out out = {a, b1, b2, ic, cc};
    if ((rc = cuzk_core()->groth16_setup_ptau(&in, &out)) != CUZK_OK) {
        rc = cuzk_error_set(err, rc, "setup of %s: %s", r1cs_path, cuzk_strerror(rc));
        goto done;
    }
    /* H: the odd points of the 2n-domain's Lagrange basis (delta = 1; a
     * .zkey's, not a .params key's) */
    const unsigned char *l2n = ptau_level(pt.lagrange_g1, cir_power + 1, g1);
    for (size_t j = 0; format != CUZK_KEY_PARAMS && j < n; j++)
        memcpy(h + j * g1, l2n + (2 * j + 1) * g1, g1);

    unsigned char g1gen[96], g2gen[192], cs_hash[64];
    cuzk_core()->generators(c->id, g1gen, g2gen);
    /* tau^(i+n) - tau^i, i < n - 1: bellperson's H at delta = 1, and what
     * snarkjs's circuit hash covers */
    cuzk_core()->g1_sub(c->id, hh, pt.tau_g1 + n * g1, pt.tau_g1, n - 1);
    if (format == CUZK_KEY_PARAMS) {
        /* bellperson's conventions (docs/filecoin.md): gamma = delta = 1 as
         * snarkjs's phase 2 starts, L = C, A and B without their points at
         * infinity */
        ptau_step(progress, progress_ctx, PTAU_STEP_WRITE);
        params_writer pw;
        if ((rc = params_writer_open(&pw, zkey_path, pt.alpha_tau_g1, pt.beta_tau_g1, pt.beta_g2, g2gen, g1gen,
                                     g2gen, err)) != CUZK_OK)
            goto done;
        static const struct {
            int vector, skip;
        } order[] = {{PARAMS_IC, 0}, {PARAMS_H, 0}, {PARAMS_L, 0}, {PARAMS_A, 1}, {PARAMS_B_G1, 1}, {PARAMS_B_G2, 1}};
        const unsigned char *vec[] = {ic, hh, cc, a, b1, b2};
        const size_t count[] = {npub1, n - 1, nv - npub1, nv, nv, nv};
        for (int v = 0; v < PARAMS_VECTORS; v++) {
            params_vector_begin(&pw, order[v].vector);
            params_vector_points(&pw, vec[v], count[v], order[v].skip);
            params_vector_end(&pw);
        }
        rc = params_writer_commit(&pw, err);
        if (rc == CUZK_OK && progress)
            progress(progress_ctx, "writing the key", PTAU_STEPS, PTAU_STEPS);
        goto done;
    }
    /* snarkjs's circuit hash over the key's points */
    ptau_step(progress, progress_ctx, PTAU_STEP_HASH);
    blake2b_state bh;
    blake2b_init(&bh, 64);
    hash_points(&bh, c, pt.alpha_tau_g1, 1, 1);
    hash_points(&bh, c, pt.beta_tau_g1, 1, 1);
    hash_points(&bh, c, pt.beta_g2, 1, 2);
    hash_points(&bh, c, g2gen, 1, 2); /* gamma2 */
    hash_points(&bh, c, g1gen, 1, 1); /* delta1 */
    hash_points(&bh, c, g2gen, 1, 2); /* delta2 */
    hash_u32(&bh, (uint32_t)npub1);
    hash_points(&bh, c, ic, npub1, 1);
    hash_u32(&bh, (uint32_t)(n - 1)); /* tau^(i+n) - tau^i, i < n - 1 */
    hash_points(&bh, c, hh, n - 1, 1);
    hash_u32(&bh, (uint32_t)(nv - npub1));
    hash_points(&bh, c, cc, nv - npub1, 1);
    hash_u32(&bh, (uint32_t)nv);
    hash_points(&bh, c, a, nv, 1);
    hash_u32(&bh, (uint32_t)nv);
    hash_points(&bh, c, b1, nv, 1);
    hash_u32(&bh, (uint32_t)nv);
    hash_points(&bh, c, b2, nv, 2);
    blake2b_final(&bh, cs_hash);

    /* the file, in snarkjs's section order */
    ptau_step(progress, progress_ctx, PTAU_STEP_WRITE);
    binwriter w;
    if ((rc = binwriter_open(&w, zkey_path, "zkey", 1, 10, err)) != CUZK_OK)
        goto done;
    unsigned char vk[3 * 96 + 3 * 192];
    size_t vp = 0;
    memcpy(vk + vp, pt.alpha_tau_g1, g1), vp += g1;
    memcpy(vk + vp, pt.beta_tau_g1, g1), vp += g1;
    memcpy(vk + vp, pt.beta_g2, g2), vp += g2;
    memcpy(vk + vp, g2gen, g2), vp += g2; /* gamma2 */
    memcpy(vk + vp, g1gen, g1), vp += g1; /* delta1 */
    memcpy(vk + vp, g2gen, g2);           /* delta2 */
    write_header(&w, c, (uint32_t)nv, n_public, (uint32_t)n, vk);
    write_section(&w, ZKEY_SEC_COEFS, coefs, 4 + n_coefs * 44);
    write_section(&w, ZKEY_SEC_IC, ic, npub1 * g1);
    write_section(&w, ZKEY_SEC_H, h, n * g1);
    write_section(&w, ZKEY_SEC_C, cc, (nv - npub1) * g1);
    write_section(&w, ZKEY_SEC_A, a, nv * g1);
    write_section(&w, ZKEY_SEC_B1, b1, nv * g1);
    write_section(&w, ZKEY_SEC_B2, b2, nv * g2);
    binwriter_section_begin(&w, ZKEY_SEC_CONTRIBUTIONS);
    binwriter_write(&w, cs_hash, 64);
    binwriter_u32(&w, 0);
    binwriter_section_end(&w);
    rc = binwriter_commit(&w, err);
    if (rc == CUZK_OK && progress)
        progress(progress_ctx, "writing the key", PTAU_STEPS, PTAU_STEPS);
done:
    free(a);
    free(b1);
    free(b2);
    free(ic);
    free(cc);
    free(coefs);
    free(h);
    free(hh);
    ptau_close(&pt);
    circuit_source_free(src);
    return rc;
}

int cuzk_setup_ptau(const char *r1cs_path, const char *ptau_path, const char *zkey_path, int threads,
                    cuzk_error *err)
{
    return setup_ptau(r1cs_path, ptau_path, zkey_path, threads, CUZK_KEY_ZKEY, NULL, NULL, err);
}

/* ------------------------------------------------------------ random setup */

/* Points a chunk (192 MiB of BLS12-381 G2): each chunk the GPU makes costs
 * one point made again on the CPU to check it (its 8,160-point table:
 * milliseconds), which at 2^16 a chunk was about a tenth of a 2^24 setup's
 * time; the CPU's threads take 256 points at a time. */
enum { RANDOM_CHUNK = 1 << 20 };

typedef struct random_writer {
    binwriter *w;
    params_writer *pw; /* a .params key: its vectors instead of w's sections */
    core_random_setup *st;
    unsigned char *buf; /* RANDOM_CHUNK G2 points */
    unsigned long long done, total;
    cuzk_progress_fn progress;
    void *progress_ctx;
    /* with a GPU: the products k_i G go there (the same points as the
     * CPU's; a failure falls back to the CPU for the rest) */
    int gpu;
    unsigned char *scalars; /* RANDOM_CHUNK plain 32-byte values */
    unsigned char gen1[96], gen2[192];
} random_writer;

/* Points [at, at + m) of one kind into rw->buf (*made of them), on the
 * GPU when there is one. With skip_zero (a .params key's A and B, whose
 * points at infinity are left out) the GPU makes only the points of
 * nonzero scalars, in order: at full PoRep size three quarters of B's. */
static int random_points(random_writer *rw, int kind, size_t at, size_t m, size_t point_bytes, int skip_zero,
                         size_t *made)
{
    *made = m;
#if CUZK_HAVE_CUDA
    if (rw->gpu && cuzk_core()->setup_random_point_scalars(rw->st, kind, at, m, rw->scalars) == CUZK_OK) {
        size_t k = m, first = 0;
        if (skip_zero) {
            k = 0;
            for (size_t i = 0; i < m; i++) {
                static const unsigned char zero[32];
                if (memcmp(rw->scalars + 32 * i, zero, 32) == 0)
                    continue;
                if (k == 0)
                    first = i;
                if (k != i)
                    memcpy(rw->scalars + 32 * k, rw->scalars + 32 * i, 32);
                k++;
            }
        }
        cuzk_gpu_msg msg = {{0}};
        int two = kind == SETUP_KIND_B2;
        int rc = k ? cuzk_gpu_fixed_base(rw->st->curve, two ? 2 : 1, two ? rw->gen2 : rw->gen1, rw->scalars, k,
                                         rw->buf, &msg)
                   : CUZK_OK;
        cuzk_memzero(rw->scalars, m * 32); /* toxic waste */
        if (rc == CUZK_OK && k == 0) {
            *made = 0;
            return CUZK_OK;
        }
        if (rc == CUZK_OK) {
            /* a GPU fault must not make a wrong key: one point of every
             * chunk, a different one each time, is computed again on the
             * CPU (a few ms: its table) and must match (with skip_zero the
             * first nonzero one, whose index is known) */
            size_t i = skip_zero ? 0 : (size_t)((at * 7919u + 13u) % m), src = skip_zero ? first : i;
            unsigned char again[192];
            if (point_bytes <= sizeof(again) &&
                cuzk_core()->setup_random_points(rw->st, kind, at + src, 1, again) == CUZK_OK &&
                memcmp(again, rw->buf + i * point_bytes, point_bytes) == 0) {
                *made = k;
                return CUZK_OK;
            }
        }
        rw->gpu = 0; /* the CPU makes this chunk and the rest */
    }
#else
    (void)point_bytes;
    (void)skip_zero;
#endif
    return cuzk_core()->setup_random_points(rw->st, kind, at, m, rw->buf);
}

/* One section (or .params vector) of `count` points of one kind, chunk
 * by chunk; skip_infinity: a .params vector's points at infinity are
 * left out. */
static int write_random_section(random_writer *rw, uint32_t id, int kind, size_t count, size_t point_bytes,
                                const char *stage)
{
    int skip = rw->pw && (kind == SETUP_KIND_A || kind == SETUP_KIND_B1 || kind == SETUP_KIND_B2);
    if (rw->pw)
        params_vector_begin(rw->pw, (int)id);
    else
        binwriter_section_begin(rw->w, id);
    binwriter *w = rw->pw ? &rw->pw->w : rw->w;
    for (size_t at = 0; at < count && !w->failed; at += RANDOM_CHUNK) {
        size_t m = count - at < RANDOM_CHUNK ? count - at : RANDOM_CHUNK, made;
        int rc = random_points(rw, kind, at, m, point_bytes, skip, &made);
        if (rc != CUZK_OK)
            return rc;
        if (rw->pw)
            params_vector_points(rw->pw, rw->buf, made, skip);
        else
            binwriter_write(rw->w, rw->buf, made * point_bytes);
        rw->done += m;
        if (rw->progress)
            rw->progress(rw->progress_ctx, stage, rw->done, rw->total);
    }
    if (rw->pw)
        params_vector_end(rw->pw);
    else
        binwriter_section_end(rw->w);
    return CUZK_OK;
}

/* Section 4, a chunk of the circuit's rows at a time. */
static int write_coefs(binwriter *w, const circuit_source *src, uint64_t n_coefs)
{
    uint32_t chunk = source_chunk(src), n_public = src->n_public;
    source_buf buf = {0};
    unsigned char *out = NULL;
    size_t cap = 0;
    int rc = CUZK_OK;
    binwriter_section_begin(w, ZKEY_SEC_COEFS);
    binwriter_u32(w, (uint32_t)n_coefs);
    for (uint32_t row0 = 0; rc == CUZK_OK; row0 += chunk) {
        uint32_t m = src->n_constraints - row0 < chunk ? src->n_constraints - row0 : chunk;
        int last = row0 + m >= src->n_constraints;
        if (m && (rc = src->rows(src, row0, m, &buf)) != CUZK_OK)
            break;
        size_t need = (size_t)(m ? ab_terms(buf.p, m) : 0) + (last ? n_public + 1 : 0);
        if (need > cap) {
            unsigned char *nb = realloc(out, need * 44);
            if (!nb) {
                rc = CUZK_ERR_NO_MEMORY;
                break;
            }
            out = nb, cap = need;
        }
        size_t got = cuzk_core()->setup_coefs(src->curve->id, out, buf.p, row0, m,
                                              last ? src->n_constraints : UINT32_MAX, n_public);
        binwriter_write(w, out, got * 44);
        if (last)
            break;
    }
    binwriter_section_end(w);
    free(out);
    source_buf_free(&buf);
    return rc;
}

/* Nonzero, uniform below r, from the options' source (the OS CSPRNG
 * without one). */
static int random_nonzero(unsigned char out[32], const curve_desc *c, const cuzk_setup_options *o)
{
    for (;;) {
        int rc = curve_random_scalar(out, c, o->random, o->random_ctx);
        if (rc != CUZK_OK)
            return rc;
        unsigned char acc = 0;
        for (int i = 0; i < 32; i++)
            acc |= out[i];
        if (acc)
            return CUZK_OK;
    }
}

/* With a GPU (unless the options keep the work on the CPU), the products
 * k_i G go to GPU 0: returns the scalars' buffer to free, or NULL. */
static unsigned char *random_writer_gpu(random_writer *rw, const cuzk_setup_options *o)
{
    int gpus = 0;
    unsigned char *scalars = NULL;
    cuzk_error ignored; /* device gpu without one was refused before */
    if (device_gpus(o->device, &gpus, &ignored) == CUZK_OK && gpus > 0 &&
        (scalars = malloc((size_t)RANDOM_CHUNK * 32)) != NULL) {
        rw->scalars = scalars;
        rw->gpu = 1;
        cuzk_core()->generators(rw->st->curve, rw->gen1, rw->gen2);
    }
    return scalars;
}

/* A .params key from the drawn toxic waste (bellperson's conventions,
 * docs/filecoin.md): the vk, IC, H in the monomial basis (n - 1 points),
 * L (snarkjs's C), and A, B_G1, B_G2 without their points at infinity
 * (the variables outside each density). vk: the six points in the
 * library's layout. */
static int write_random_params(const char *r1cs_path, const char *path, core_random_setup *st, unsigned char *buf,
                               const unsigned char *vk, const cuzk_setup_options *o, size_t npub1, size_t n,
                               size_t nv, cuzk_error *err)
{
    const curve_desc *c = curve_by_id(st->curve);
    size_t g1 = c->g1_bytes, g2 = c->g2_bytes;
    params_writer pw;
    int rc = params_writer_open(&pw, path, vk, vk + g1, vk + 2 * g1, vk + 2 * g1 + g2, vk + 2 * g1 + 2 * g2,
                                vk + 3 * g1 + 2 * g2, err);
    if (rc != CUZK_OK)
        return rc;
    random_writer rw = {NULL, &pw, st, buf, 0, (unsigned long long)npub1 + (n - 1) + (nv - npub1) + 3 * nv,
                        o->progress, o->progress_ctx, 0, NULL, {0}, {0}};
    unsigned char *gpu_scalars = random_writer_gpu(&rw, o);
    if ((rc = write_random_section(&rw, PARAMS_IC, SETUP_KIND_IC, npub1, g1, "computing IC")) != CUZK_OK ||
        (rc = write_random_section(&rw, PARAMS_H, SETUP_KIND_H_MONOMIAL, n - 1, g1, "computing H")) != CUZK_OK ||
        (rc = write_random_section(&rw, PARAMS_L, SETUP_KIND_C, nv - npub1, g1, "computing L")) != CUZK_OK ||
        (rc = write_random_section(&rw, PARAMS_A, SETUP_KIND_A, nv, g1, "computing A")) != CUZK_OK ||
        (rc = write_random_section(&rw, PARAMS_B_G1, SETUP_KIND_B1, nv, g1, "computing B_G1")) != CUZK_OK ||
        (rc = write_random_section(&rw, PARAMS_B_G2, SETUP_KIND_B2, nv, g2, "computing B_G2")) != CUZK_OK) {
        free(gpu_scalars);
        params_writer_abort(&pw);
        return cuzk_error_set(err, rc, "setup of %s: %s", r1cs_path, cuzk_strerror(rc));
    }
    free(gpu_scalars);
    return params_writer_commit(&pw, err);
}

/* cuzk_setup_random with the options' device, progress and random source. */
static int setup_random(const char *r1cs_path, const char *zkey_path, const cuzk_setup_options *o, cuzk_error *err)
{
    const int threads = o->threads;
    const cuzk_progress_fn progress = o->progress;
    void *const progress_ctx = o->progress_ctx;
    circuit_source *r;
    progress_sink reading = {progress, progress_ctx, "reading the circuit"};
    int rc = circuit_source_open(&r, r1cs_path, &reading, err);
    if (rc != CUZK_OK)
        return rc;
    const curve_desc *c = r->curve;
    unsigned power = 0;
    if ((rc = format_fits(c, o->format, r1cs_path, err)) != CUZK_OK ||
        (rc = circuit_power(r, r1cs_path, &power, err)) != CUZK_OK) {
        circuit_source_free(r);
        return rc;
    }
    uint32_t n_public = r->n_public;
    size_t nv = r->n_wires, npub1 = (size_t)n_public + 1, n = (size_t)1 << power;
    core_random_setup st = {
        .curve = c->id,
        .threads = default_threads(threads),
        .n_vars = (unsigned)nv,
        .n_public = n_public,
        .n_constraints = r->n_constraints,
        .domain_size = (unsigned)n,
        .bellperson = o->format == CUZK_KEY_PARAMS,
        .source = r,
        .progress = progress,
        .progress_ctx = progress_ctx,
    };
    unsigned char vk[3 * 96 + 3 * 192];
    unsigned char *buf = malloc((size_t)RANDOM_CHUNK * c->g2_bytes);
    unsigned char *gpu_scalars = NULL; /* with a GPU: RANDOM_CHUNK scalars at a time */
    binwriter w;
    int writing = 0;
    if (!buf) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory for the setup of %s", r1cs_path);
        goto done;
    }
    /* the toxic waste; tau must not be a 2n-th root of unity (H's domain),
     * which the H kind checks (probability 2n / r, below 2^-200) */
    for (int tries = 0;; tries++) {
        if ((rc = random_nonzero(st.tau, c, o)) != CUZK_OK)
            break;
        rc = cuzk_core()->setup_random_points(&st, SETUP_KIND_H, 0, 0, buf);
        if (rc != CUZK_ERR_INTERNAL || tries == 8)
            break;
    }
    if (rc == CUZK_OK)
        rc = random_nonzero(st.alpha, c, o);
    if (rc == CUZK_OK)
        rc = random_nonzero(st.beta, c, o);
    if (rc == CUZK_OK)
        rc = random_nonzero(st.gamma, c, o);
    if (rc == CUZK_OK)
        rc = random_nonzero(st.delta, c, o);
    if (rc != CUZK_OK) {
        rc = cuzk_error_set(err, rc, "setup of %s: no randomness: %s", r1cs_path, cuzk_strerror(rc));
        goto done;
    }
    if (progress)
        progress(progress_ctx, "evaluating the circuit at tau", 0, 1);
    if ((rc = cuzk_core()->setup_random_scalars(&st)) != CUZK_OK ||
        (rc = cuzk_core()->setup_random_points(&st, SETUP_KIND_VK, 0, 0, vk)) != CUZK_OK) {
        rc = cuzk_error_set(err, rc, "setup of %s: %s", r1cs_path, cuzk_strerror(rc));
        goto done;
    }
    size_t g1 = c->g1_bytes, g2 = c->g2_bytes;
    if (o->format == CUZK_KEY_PARAMS) {
        rc = write_random_params(r1cs_path, zkey_path, &st, buf, vk, o, npub1, n, nv, err);
        goto done;
    }
    if ((rc = binwriter_open(&w, zkey_path, "zkey", 1, 10, err)) != CUZK_OK)
        goto done;
    writing = 1;
    write_header(&w, c, (uint32_t)nv, n_public, (uint32_t)n, vk);
    uint64_t n_coefs = 0;
    if ((rc = count_coefs(r, &n_coefs)) != CUZK_OK || (rc = write_coefs(&w, r, n_coefs)) != CUZK_OK)
        goto fail;
    random_writer rw = {&w, NULL, &st, buf, 0, (unsigned long long)npub1 + n + (nv - npub1) + 3 * nv, progress,
                        progress_ctx, 0, NULL, {0}, {0}};
    gpu_scalars = random_writer_gpu(&rw, o);
    if ((rc = write_random_section(&rw, ZKEY_SEC_IC, SETUP_KIND_IC, npub1, g1, "computing IC")) != CUZK_OK ||
        (rc = write_random_section(&rw, ZKEY_SEC_H, SETUP_KIND_H, n, g1, "computing H")) != CUZK_OK ||
        (rc = write_random_section(&rw, ZKEY_SEC_C, SETUP_KIND_C, nv - npub1, g1, "computing C")) != CUZK_OK ||
        (rc = write_random_section(&rw, ZKEY_SEC_A, SETUP_KIND_A, nv, g1, "computing A")) != CUZK_OK ||
        (rc = write_random_section(&rw, ZKEY_SEC_B1, SETUP_KIND_B1, nv, g1, "computing B1")) != CUZK_OK ||
        (rc = write_random_section(&rw, ZKEY_SEC_B2, SETUP_KIND_B2, nv, g2, "computing B2")) != CUZK_OK)
        goto fail;
    /* no ceremony, so no circuit hash to record: zeros, and no contributions */
    unsigned char zeros[64] = {0};
    binwriter_section_begin(&w, ZKEY_SEC_CONTRIBUTIONS);
    binwriter_write(&w, zeros, 64);
    binwriter_u32(&w, 0);
    binwriter_section_end(&w);
    writing = 0;
    rc = binwriter_commit(&w, err);
    goto done;
fail:
    rc = cuzk_error_set(err, rc, "setup of %s: %s", r1cs_path, cuzk_strerror(rc));
done:
    if (writing)
        binwriter_abort(&w);
    /* the toxic waste */
    cuzk_memzero(st.tau, 32);
    cuzk_memzero(st.alpha, 32);
    cuzk_memzero(st.beta, 32);
    cuzk_memzero(st.gamma, 32);
    cuzk_memzero(st.delta, 32);
    if (st.a) {
        cuzk_memzero(st.a, nv * 32);
        cuzk_memzero(st.b, nv * 32);
        cuzk_memzero(st.c, nv * 32);
    }
    free(st.a);
    free(st.b);
    free(st.c);
    free(gpu_scalars);
    free(buf);
    circuit_source_free(r);
    return rc;
}

int cuzk_setup_random(const char *r1cs_path, const char *zkey_path, int threads, cuzk_progress_fn progress,
                      void *progress_ctx, cuzk_error *err)
{
    cuzk_setup_options o = {.threads = threads, .progress = progress, .progress_ctx = progress_ctx};
    return cuzk_setup(r1cs_path, NULL, zkey_path, &o, err);
}

int cuzk_setup(const char *r1cs_path, const char *ptau_path, const char *zkey_path, const cuzk_setup_options *opts,
               cuzk_error *err)
{
    if (!r1cs_path || !zkey_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_setup: NULL argument");
    cuzk_setup_options o = {0};
    if (opts)
        o = *opts;
    if (o.threads < 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "setup options: threads must be >= 0, got %d",
                              o.threads);
    if (o.format != CUZK_KEY_ZKEY && o.format != CUZK_KEY_PARAMS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "setup options: format must be CUZK_KEY_ZKEY or CUZK_KEY_PARAMS, got %d", o.format);
    if (ptau_path)
        return setup_ptau(r1cs_path, ptau_path, zkey_path, o.threads, o.format, o.progress, o.progress_ctx, err);
    int gpus = 0;
    cuzk_error why;
    int rc = device_gpus(o.device, &gpus, &why);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "setup of %s: %s", r1cs_path, why.message);
    return setup_random(r1cs_path, zkey_path, &o, err);
}
