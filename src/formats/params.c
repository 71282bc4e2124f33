#include "params.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../core/core.h"
#include "../util/error.h"
#include "../util/file.h"
#include "../util/util.h"
#include "point_check.h"
#include "snarkjs_json.h"

const char *const params_vector_name[PARAMS_VECTORS] = {"IC", "H", "L", "A", "B_G1", "B_G2"};

/* the verification key's points in file order */
static const char *const params_vk_name[6] = {"alpha_g1", "beta_g1", "beta_g2", "gamma_g2", "delta_g1", "delta_g2"};

enum { G1_UNCOMPRESSED = 96, G2_UNCOMPRESSED = 192, VK_BYTES = 3 * 96 + 3 * 192 };

static uint32_t read_u32be(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* bytes [off, off + n) of the file: copied from memory, or read (a file
 * that shrinks while it is read is an error here, where a mapping would
 * take SIGBUS) */
static int read_at(const params_file *pf, uint64_t off, void *buf, size_t n, cuzk_error *err)
{
    if (pf->data) {
        memcpy(buf, pf->data + off, n);
        return CUZK_OK;
    }
    unsigned char *b = buf;
    while (n > 0) {
        ssize_t got = pread(pf->fd, b, n, (off_t)off);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot read byte %llu: %s", pf->name,
                                  (unsigned long long)off,
                                  got < 0 ? strerror(errno) : "the file ended (was it truncated while being read?)");
        b += got;
        off += (uint64_t)got;
        n -= (size_t)got;
    }
    return CUZK_OK;
}

/* The layout against the size: the verification key, then six counts and
 * their points filling the file exactly. */
static int parse_layout(params_file *pf, cuzk_error *err)
{
    const char *name = pf->name;
    uint64_t size = pf->size;
    if (size < VK_BYTES)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: %llu bytes, too short for a Groth16 parameter file (864-byte verification key)",
                              name, (unsigned long long)size);
    int rc = read_at(pf, 0, pf->vk_bytes, VK_BYTES, err);
    if (rc != CUZK_OK)
        return rc;
    pf->vk = pf->vk_bytes;
    uint64_t pos = VK_BYTES;
    const int vectors = pf->vk_only ? 1 : PARAMS_VECTORS;
    for (int v = 0; v < vectors; v++) {
        if (size - pos < 4)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: file ends before the %s count (byte %llu)", name,
                                  params_vector_name[v], (unsigned long long)pos);
        unsigned char c[4];
        if ((rc = read_at(pf, pos, c, 4, err)) != CUZK_OK)
            return rc;
        pf->count[v] = read_u32be(c);
        pos += 4;
        uint64_t bytes = (uint64_t)pf->count[v] * (v == PARAMS_B_G2 ? G2_UNCOMPRESSED : G1_UNCOMPRESSED);
        if (bytes > size - pos)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: the %s vector declares %u points (%llu bytes) at byte %llu, but the file ends "
                                  "%llu bytes later",
                                  name, params_vector_name[v], pf->count[v], (unsigned long long)bytes,
                                  (unsigned long long)pos, (unsigned long long)(size - pos));
        pf->off[v] = pos;
        pf->vec[v] = pf->data ? pf->data + pos : NULL;
        pos += bytes;
    }
    if (pos != size)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %llu bytes after the last vector (%s), expected none%s", name,
                              (unsigned long long)(size - pos), params_vector_name[vectors - 1],
                              pf->vk_only ? " (is it a .params key? a .vk holds the verifying key alone)" : "");
    static const struct {
        const char *what;
        int group;
        size_t offset;
    } vk[6] = {{"alpha_g1", 1, 0}, {"beta_g1", 1, 96}, {"beta_g2", 2, 192},
               {"gamma_g2", 2, 384}, {"delta_g1", 1, 576}, {"delta_g2", 2, 672}};
    for (int i = 0; i < 6; i++) {
        size_t bad;
        rc = cuzk_core()->check_zcash_points(vk[i].group, pf->vk + vk[i].offset, 1, 0, 1, NULL, &bad);
        if (rc != CUZK_OK)
            return cuzk_error_set(err, rc, "%s: verification key %s: %s", name, vk[i].what, cuzk_strerror(rc));
    }
    return CUZK_OK;
}

int params_parse(params_file *pf, const void *data, size_t size, const char *name, cuzk_error *err)
{
    static const unsigned char empty[1];
    memset(pf, 0, sizeof(*pf));
    snprintf(pf->name, sizeof(pf->name), "%s", name);
    pf->data = data ? data : empty;
    pf->size = size;
    pf->fd = -1;
    return parse_layout(pf, err);
}

int params_open(params_file *pf, const char *path, cuzk_error *err)
{
    return params_open_limited(pf, path, NULL, err);
}

static int open_file(params_file *pf, const char *path, const file_limits *lim, int vk_only, cuzk_error *err)
{
    memset(pf, 0, sizeof(*pf));
    pf->vk_only = vk_only;
    pf->fd = -1;
    snprintf(pf->name, sizeof(pf->name), "%s", path);
    struct stat st;
    int rc = file_open_regular_limited(path, lim, &pf->fd, &st, err);
    if (rc != CUZK_OK) {
        pf->fd = -1;
        return rc;
    }
    pf->size = (uint64_t)st.st_size;
    if ((rc = parse_layout(pf, err)) != CUZK_OK)
        params_close(pf);
    return rc;
}

int params_open_limited(params_file *pf, const char *path, const file_limits *lim, cuzk_error *err)
{
    return open_file(pf, path, lim, 0, err);
}

int params_open_vk(params_file *pf, const char *path, cuzk_error *err)
{
    return open_file(pf, path, NULL, 1, err);
}

void params_close(params_file *pf)
{
    if (pf->fd >= 0)
        close(pf->fd);
    pf->fd = -1;
}

int params_read_points(const params_file *pf, int vector, size_t first, size_t n, unsigned char *out, cuzk_error *err)
{
    size_t psz = vector == PARAMS_B_G2 ? G2_UNCOMPRESSED : G1_UNCOMPRESSED;
    if (first > pf->count[vector] || n > pf->count[vector] - first)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: points %zu..%zu of the %s vector (%u points)",
                              pf->name, first, first + n, params_vector_name[vector], pf->count[vector]);
    return read_at(pf, pf->off[vector] + (uint64_t)first * psz, out, n * psz, err);
}

/* Points a chunk: read (and checked or decoded) at a time, in parallel
 * within it; 12 MiB of G2. */
enum { CHUNK_POINTS = 1 << 16 };

/* fn over every point of a vector, chunk by chunk (in place in memory);
 * chunk_start tells fn's context where a chunk begins. A point's failure:
 * its status, with *bad its index and err untouched; a read's: its
 * status with err filled and *bad = SIZE_MAX. */
static int over_chunks(const params_file *pf, int vector, point_check_fn fn, void *ctx,
                       void (*chunk_start)(void *ctx, const unsigned char *pts, size_t first), int threads,
                       const progress_sink *progress, unsigned long long base, unsigned long long total, size_t *bad,
                       cuzk_error *err)
{
    size_t psz = vector == PARAMS_B_G2 ? G2_UNCOMPRESSED : G1_UNCOMPRESSED, count = pf->count[vector];
    unsigned char *buf = NULL;
    if (!pf->data && count && !(buf = malloc((count < CHUNK_POINTS ? count : CHUNK_POINTS) * psz)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", pf->name);
    int rc = CUZK_OK;
    for (size_t first = 0; first < count && rc == CUZK_OK; first += CHUNK_POINTS) {
        size_t k = count - first < CHUNK_POINTS ? count - first : CHUNK_POINTS;
        const unsigned char *pts = pf->data ? pf->vec[vector] + first * psz : buf;
        if (!pf->data && (rc = params_read_points(pf, vector, first, k, buf, err)) != CUZK_OK) {
            *bad = SIZE_MAX;
            break;
        }
        if (chunk_start)
            chunk_start(ctx, pts, first);
        size_t b = 0;
        rc = point_check_parallel(pts, k, psz, fn, ctx, threads, progress, base + first, total, &b);
        if (rc != CUZK_OK)
            *bad = first + b;
    }
    free(buf);
    return rc;
}

/* ------------------------------------------------------------ full check */

enum { ZCASH_INFINITY = 0x40 }; /* the flag bit of a point at infinity */

static int check_params_points(const void *ctx, const unsigned char *pts, size_t n, size_t *bad)
{
    int group = *(const int *)ctx;
    size_t size = group == 1 ? G1_UNCOMPRESSED : G2_UNCOMPRESSED;
    for (size_t i = 0; i < n; i++)
        if (pts[i * size] & ZCASH_INFINITY) { /* bellperson's reader refuses it (its PointAtInfinity) */
            *bad = i;
            return CUZK_ERR_FORMAT;
        }
    return cuzk_core()->check_zcash_points(group, pts, n, 0, 1, NULL, bad);
}

int params_check(const params_file *pf, int threads, const progress_sink *progress, cuzk_error *err)
{
    unsigned char vk[3 * 96 + 3 * 192];
    int vrc = params_decode_vk(pf, vk, vk + 96, vk + 192, vk + 384, vk + 576, vk + 672, err);
    if (vrc != CUZK_OK)
        return vrc;
    unsigned long long total = 0, base = 0;
    for (int v = 0; v < PARAMS_VECTORS; v++)
        total += pf->count[v];
    for (int v = 0; v < PARAMS_VECTORS; v++) {
        int group = v == PARAMS_B_G2 ? 2 : 1;
        char stage[32];
        snprintf(stage, sizeof(stage), "checking %s", params_vector_name[v]);
        progress_sink ps = {progress ? progress->fn : NULL, progress ? progress->ctx : NULL, stage};
        size_t bad = 0;
        int rc = over_chunks(pf, v, check_params_points, &group, NULL, threads, &ps, base, total, &bad, err);
        if (rc != CUZK_OK && bad == SIZE_MAX)
            return rc; /* reading */
        if (rc != CUZK_OK)
            return cuzk_error_set(err, rc, "%s: the %s vector: point %zu of %u: %s", pf->name, params_vector_name[v],
                                  bad, pf->count[v],
                                  rc == CUZK_ERR_FORMAT ? "the point at infinity (bellperson refuses it in a key)"
                                                        : cuzk_strerror(rc));
        base += pf->count[v];
    }
    return CUZK_OK;
}

/* ------------------------------------------------------------ decoding */

typedef struct decode_ctx {
    int group;
    const unsigned char *in; /* the chunk's first point */
    unsigned char *out;      /* where it goes decoded */
    unsigned char *vec_out;  /* the vector's first point decoded */
} decode_ctx;

static void decode_chunk_start(void *ctx, const unsigned char *pts, size_t first)
{
    decode_ctx *d = ctx;
    d->in = pts;
    d->out = d->vec_out + first * (d->group == 1 ? 96 : 192);
}

/* As bellperson's unchecked read (blst's decoding: canonical, on the
 * curve; no subgroup check), and like every read of it, no point at
 * infinity. */
static int decode_params_points(const void *ctx, const unsigned char *pts, size_t n, size_t *bad)
{
    const decode_ctx *d = ctx;
    size_t size = d->group == 1 ? G1_UNCOMPRESSED : G2_UNCOMPRESSED;
    size_t out_size = d->group == 1 ? 96 : 192; /* the library's layout has the same sizes */
    for (size_t i = 0; i < n; i++)
        if (pts[i * size] & ZCASH_INFINITY) {
            *bad = i;
            return CUZK_ERR_FORMAT;
        }
    size_t first = (size_t)(pts - d->in) / size;
    return cuzk_core()->check_zcash_points(d->group, pts, n, 0, 0, d->out + first * out_size, bad);
}

int params_decode(const params_file *pf, int vector, unsigned char *out, int threads, const progress_sink *progress,
                  unsigned long long base, unsigned long long total, cuzk_error *err)
{
    decode_ctx d = {vector == PARAMS_B_G2 ? 2 : 1, NULL, out, out};
    size_t bad = 0;
    int rc = over_chunks(pf, vector, decode_params_points, &d, decode_chunk_start, threads, progress, base, total, &bad,
                         err);
    if (rc != CUZK_OK && bad == SIZE_MAX)
        return rc; /* reading */
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "%s: the %s vector: point %zu of %u: %s", pf->name, params_vector_name[vector],
                              bad, pf->count[vector],
                              rc == CUZK_ERR_FORMAT ? "the point at infinity (bellperson refuses it in a key)"
                                                    : cuzk_strerror(rc));
    return CUZK_OK;
}

int params_decode_vk(const params_file *pf, unsigned char *alpha1, unsigned char *beta1, unsigned char *beta2,
                     unsigned char *gamma2, unsigned char *delta1, unsigned char *delta2, cuzk_error *err)
{
    unsigned char *dst[6] = {alpha1, beta1, beta2, gamma2, delta1, delta2};
    static const size_t at[6] = {0, 96, 192, 384, 576, 672};
    static const int group[6] = {1, 1, 2, 2, 1, 2};
    for (int i = 0; i < 6; i++) {
        size_t bad;
        int rc = cuzk_core()->check_zcash_points(group[i], pf->vk + at[i], 1, 0, 1, dst[i], &bad);
        if (rc != CUZK_OK)
            return cuzk_error_set(err, rc, "%s: verification key: %s: %s", pf->name, params_vk_name[i],
                                  cuzk_strerror(rc));
        if ((rc = key_point_not_infinity(dst[i], group[i] == 1 ? 96 : 192, pf->name, params_vk_name[i], err)))
            return rc;
    }
    return CUZK_OK;
}

/* ------------------------------------------------------------ the vk */

int params_read_vk(const params_file *pf, params_vk *vk, cuzk_error *err)
{
    memset(vk, 0, sizeof *vk);
    if (pf->count[PARAMS_IC] == 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: the IC vector is empty; expected one point for the constant one and one per "
                              "public input",
                              pf->name);
    size_t n_ic = pf->count[PARAMS_IC];
    int rc = params_decode_vk(pf, vk->alpha1, vk->beta1, vk->beta2, vk->gamma2, vk->delta1, vk->delta2, err);
    if (rc != CUZK_OK)
        return rc;
    unsigned char *raw = malloc(n_ic * G1_UNCOMPRESSED);
    vk->ic = malloc(n_ic * G1_UNCOMPRESSED); /* the library's layout: 96 bytes a point too */
    if (!raw || !vk->ic) {
        free(raw);
        params_vk_free(vk);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", pf->name);
    }
    size_t bad;
    if ((rc = params_read_points(pf, PARAMS_IC, 0, n_ic, raw, err)) == CUZK_OK &&
        (rc = cuzk_core()->check_zcash_points(1, raw, n_ic, 0, 1, vk->ic, &bad)) != CUZK_OK)
        cuzk_error_set(err, rc, "%s: the IC vector: point %zu of %zu: %s", pf->name, bad, n_ic, cuzk_strerror(rc));
    free(raw);
    if (rc != CUZK_OK) {
        params_vk_free(vk);
        return rc;
    }
    vk->n_ic = n_ic;
    return CUZK_OK;
}

void params_vk_free(params_vk *vk)
{
    free(vk->ic);
    vk->ic = NULL;
    vk->n_ic = 0;
}

int params_export_vk(const params_file *pf, char **json, cuzk_error *err)
{
    *json = NULL;
    params_vk vk;
    int rc = params_read_vk(pf, &vk, err);
    if (rc != CUZK_OK)
        return rc;
    *json = snarkjs_vk_json(curve_by_id(CUZK_CURVE_BLS12_381), vk.alpha1, vk.beta2, vk.gamma2, vk.delta2, vk.ic,
                            vk.n_ic);
    params_vk_free(&vk);
    if (!*json)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory writing the verification key", pf->name);
    return CUZK_OK;
}

int params_write_vk(const params_file *pf, const char *path, cuzk_error *err)
{
    /* the key's first bytes: the 864 of the verifying key, IC's count and
     * points (bellperson's VerifyingKey::write) */
    size_t len = VK_BYTES + 4 + (size_t)pf->count[PARAMS_IC] * G1_UNCOMPRESSED;
    unsigned char *buf = malloc(len);
    if (!buf)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", pf->name);
    int rc = read_at(pf, 0, buf, len, err);
    if (rc == CUZK_OK)
        rc = write_file_atomic(path, buf, len, err);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------ proofs */

int cuzk_proof_to_bellperson(const char *proof_json, size_t len, unsigned char out[CUZK_BELLPERSON_PROOF_BYTES],
                             cuzk_error *err)
{
    if (!proof_json || !out)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_proof_to_bellperson: NULL argument");
    const curve_desc *c = curve_by_id(CUZK_CURVE_BLS12_381);
    snarkjs_proof p;
    int rc = snarkjs_proof_parse(&p, proof_json, len, "proof.json", c, err);
    if (rc != CUZK_OK)
        return rc;
    if (p.curve != c)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "proof.json: a %s proof; bellperson's proofs are BLS12-381's", p.curve->display);
    cuzk_core()->zcash_from_points(1, p.a, 1, 1, out);
    cuzk_core()->zcash_from_points(2, p.b, 1, 1, out + 48);
    cuzk_core()->zcash_from_points(1, p.c, 1, 1, out + 144);
    return CUZK_OK;
}

int params_proof_decode(const unsigned char proof[CUZK_BELLPERSON_PROOF_BYTES], const char *name, unsigned char a[96],
                        unsigned char b[192], unsigned char c[96], cuzk_error *err)
{
    static const struct {
        const char *what;
        int group;
        size_t at;
    } part[3] = {{"A", 1, 0}, {"B", 2, 48}, {"C", 1, 144}};
    unsigned char *out[3] = {a, b, c};
    for (int i = 0; i < 3; i++) {
        size_t bad;
        int rc = cuzk_core()->check_zcash_points(part[i].group, proof + part[i].at, 1, 1, 1, out[i], &bad);
        if (rc != CUZK_OK)
            return cuzk_error_set(err, rc, "%s: the proof's %s: %s", name, part[i].what, cuzk_strerror(rc));
    }
    return CUZK_OK;
}

/* ------------------------------------------------------------ writing */

enum { WRITE_CHUNK = 1 << 14 }; /* points encoded at a time (3 MiB of G2) */

static void write_u32be(binwriter *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                          (unsigned char)v};
    binwriter_write(w, b, 4);
}

static void write_zcash(binwriter *w, unsigned char *buf, int group, const unsigned char *pts, size_t n)
{
    cuzk_core()->zcash_from_points(group, pts, n, 0, buf);
    binwriter_write(w, buf, n * (group == 1 ? G1_UNCOMPRESSED : G2_UNCOMPRESSED));
}

int params_writer_open(params_writer *pw, const char *path, const unsigned char *alpha1, const unsigned char *beta1,
                       const unsigned char *beta2, const unsigned char *gamma2, const unsigned char *delta1,
                       const unsigned char *delta2, cuzk_error *err)
{
    memset(pw, 0, sizeof(*pw));
    pw->vector = -1;
    pw->buf = malloc((size_t)WRITE_CHUNK * G2_UNCOMPRESSED);
    if (!pw->buf)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
    int rc = binwriter_open_raw(&pw->w, path, err);
    if (rc != CUZK_OK) {
        free(pw->buf);
        return rc;
    }
    write_zcash(&pw->w, pw->buf, 1, alpha1, 1);
    write_zcash(&pw->w, pw->buf, 1, beta1, 1);
    write_zcash(&pw->w, pw->buf, 2, beta2, 1);
    write_zcash(&pw->w, pw->buf, 2, gamma2, 1);
    write_zcash(&pw->w, pw->buf, 1, delta1, 1);
    write_zcash(&pw->w, pw->buf, 2, delta2, 1);
    return CUZK_OK;
}

void params_vector_begin(params_writer *pw, int vector)
{
    pw->vector = vector;
    pw->count = 0;
    pw->count_at = binwriter_tell(&pw->w);
    write_u32be(&pw->w, 0); /* patched at the end */
}

void params_vector_points(params_writer *pw, const unsigned char *pts, size_t n, int skip_infinity)
{
    const curve_desc *c = curve_by_id(CUZK_CURVE_BLS12_381);
    int group = pw->vector == PARAMS_B_G2 ? 2 : 1;
    size_t in_bytes = group == 1 ? c->g1_bytes : c->g2_bytes;
    for (size_t i = 0; i < n;) {
        /* the next run of points to keep, at most a chunk */
        size_t k = 0;
        if (skip_infinity) {
            while (i < n && bytes_all_zero(pts + i * in_bytes, in_bytes))
                i++;
            while (i + k < n && k < WRITE_CHUNK && !bytes_all_zero(pts + (i + k) * in_bytes, in_bytes))
                k++;
        } else
            k = n - i < WRITE_CHUNK ? n - i : WRITE_CHUNK;
        if (k)
            write_zcash(&pw->w, pw->buf, group, pts + i * in_bytes, k);
        pw->count += k;
        i += k;
    }
}

void params_vector_end(params_writer *pw)
{
    if (pw->count > UINT32_MAX && !pw->w.failed) {
        cuzk_error_set(&pw->w.err, CUZK_ERR_UNSUPPORTED, "%s: the %s vector has %llu points; a .params count holds "
                                                         "at most 2^32 - 1",
                       pw->w.path, params_vector_name[pw->vector], pw->count);
        pw->w.failed = 1;
    }
    unsigned char b[4] = {(unsigned char)(pw->count >> 24), (unsigned char)(pw->count >> 16),
                          (unsigned char)(pw->count >> 8), (unsigned char)pw->count};
    binwriter_patch(&pw->w, pw->count_at, b, 4);
    pw->vector = -1;
}

int params_writer_commit(params_writer *pw, cuzk_error *err)
{
    free(pw->buf);
    pw->buf = NULL;
    return binwriter_commit(&pw->w, err);
}

void params_writer_abort(params_writer *pw)
{
    free(pw->buf);
    pw->buf = NULL;
    binwriter_abort(&pw->w);
}
