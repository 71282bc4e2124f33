#include "zkey.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core.h"
#include "../util/error.h"
#include "json_out.h"
#include "snarkjs_json.h"

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
    return CUZK_OK;
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

/* The points of one section, checked by `threads` threads taking chunks
 * in turn; the calling thread checks chunks too and reports progress
 * between them (a callback on the caller's thread). */
enum { CHECK_CHUNK = 4096 }; /* points: ~0.2 s of subgroup checks on one core */

typedef struct point_pool {
    const struct cuzk_zkey *zk;
    const unsigned char *pts;
    size_t n, point_bytes;
    int group, subgroup;
    atomic_size_t next;   /* the next chunk's first point */
    atomic_size_t done;   /* points checked */
    atomic_int failed;    /* a bad point was found: stop taking chunks */
    pthread_mutex_t mu;
    int rc;               /* the lowest bad point's status */
    size_t bad;
} point_pool;

/* One chunk; 0 when there is none left. */
static int check_chunk(point_pool *pp)
{
    if (atomic_load(&pp->failed))
        return 0;
    size_t begin = atomic_fetch_add(&pp->next, CHECK_CHUNK);
    if (begin >= pp->n)
        return 0;
    size_t end = pp->n - begin < CHECK_CHUNK ? pp->n : begin + CHECK_CHUNK, bad = 0;
    int rc = cuzk_core()->check_points(pp->zk->curve->id, pp->group, pp->pts + begin * pp->point_bytes, end - begin,
                                       pp->subgroup, &bad);
    if (rc != CUZK_OK) {
        pthread_mutex_lock(&pp->mu);
        if (pp->rc == CUZK_OK || begin + bad < pp->bad) {
            pp->rc = rc;
            pp->bad = begin + bad;
        }
        pthread_mutex_unlock(&pp->mu);
        atomic_store(&pp->failed, 1);
    }
    atomic_fetch_add(&pp->done, end - begin);
    return 1;
}

static void *point_worker(void *arg)
{
    while (check_chunk(arg))
        ;
    return NULL;
}

/* Checks n points with `threads` threads; reports the first bad one
 * found. base/total: the points before this section and in all, for
 * progress. */
static int check_section(const struct cuzk_zkey *zk, const unsigned char *pts, size_t n, int group, int subgroup,
                         int threads, uint32_t id, const char *what, const progress_sink *progress,
                         unsigned long long base, unsigned long long total, cuzk_error *err)
{
    enum { MAX_THREADS = 256 };
    pthread_t tids[MAX_THREADS];
    int started[MAX_THREADS] = {0};
    point_pool pp = {.zk = zk, .pts = pts, .n = n, .group = group, .subgroup = subgroup, .rc = CUZK_OK};
    pp.point_bytes = group == 1 ? zk->curve->g1_bytes : zk->curve->g2_bytes;
    atomic_init(&pp.next, 0);
    atomic_init(&pp.done, 0);
    atomic_init(&pp.failed, 0);
    pthread_mutex_init(&pp.mu, NULL);
    if (threads > MAX_THREADS)
        threads = MAX_THREADS;
    size_t chunks = (n + CHECK_CHUNK - 1) / CHECK_CHUNK;
    if ((size_t)threads > chunks)
        threads = chunks ? (int)chunks : 1;
    for (int t = 1; t < threads; t++)
        started[t] = pthread_create(&tids[t], NULL, point_worker, &pp) == 0;
    progress_report(progress, base, total);
    while (check_chunk(&pp))
        progress_report(progress, base + atomic_load(&pp.done), total);
    for (int t = 1; t < threads; t++)
        if (started[t])
            pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&pp.mu);
    if (pp.rc != CUZK_OK)
        return cuzk_error_set(err, pp.rc, "%s: section %u (%s): point %zu of %zu: %s", zk->bf.name, id, what, pp.bad,
                              n, cuzk_strerror(pp.rc));
    progress_report(progress, base + n, total);
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
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    for (uint64_t i = 0; i < zk->n_coefs; i++) {
        zkey_coef c = zkey_coef_at(zk->coefs, i);
        if (!zkey_coef_indices_ok(&c, zk->domain_size, zk->n_vars) || !bytes_below(c.value, zk->curve->r, 32))
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: section 4 (coefficients): entry %llu (matrix %u, constraint %u, signal %u) is "
                                  "out of range: expected matrix 0 or 1, constraint < %u, signal < %u, value < r",
                                  zk->bf.name, (unsigned long long)i, c.matrix, c.constraint, c.signal,
                                  zk->domain_size, zk->n_vars);
    }
    size_t nv = zk->n_vars, nc = zk->n_vars - zk->n_public - 1;
    const struct {
        const unsigned char *pts;
        size_t n;
        int group;
        uint32_t id;
        const char *what, *stage;
    } sec[] = {
        {zk->a, nv, 1, ZKEY_SEC_A, "A", "checking A"},
        {zk->b1, nv, 1, ZKEY_SEC_B1, "B1", "checking B1"},
        {zk->b2, nv, 2, ZKEY_SEC_B2, "B2", "checking B2"},
        {zk->c, nc, 1, ZKEY_SEC_C, "C", "checking C"},
        {zk->h, zk->domain_size, 1, ZKEY_SEC_H, "H", "checking H"},
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
    size_t n8 = zk->curve->n8q;
    unsigned char e[12 * 48];
    cuzk_core()->pairing(zk->curve->id, e, zk->alpha1, zk->beta2);
    json_out j;
    jo_init(&j);
    jo_object_begin(&j);
    jo_key(&j, "protocol");
    jo_string(&j, "groth16");
    jo_key(&j, "curve");
    jo_string(&j, zk->curve->name);
    jo_key(&j, "nPublic");
    jo_uint(&j, zk->n_public);
    jo_key(&j, "vk_alpha_1");
    jo_g1(&j, zk->curve, zk->alpha1);
    jo_key(&j, "vk_beta_2");
    jo_g2(&j, zk->curve, zk->beta2);
    jo_key(&j, "vk_gamma_2");
    jo_g2(&j, zk->curve, zk->gamma2);
    jo_key(&j, "vk_delta_2");
    jo_g2(&j, zk->curve, zk->delta2);
    jo_key(&j, "vk_alphabeta_12");
    jo_array_begin(&j);
    for (int c6 = 0; c6 < 2; c6++) {
        jo_array_begin(&j);
        for (int c2 = 0; c2 < 3; c2++)
            jo_fq2(&j, zk->curve, e + (size_t)(c6 * 3 + c2) * 2 * n8);
        jo_array_end(&j);
    }
    jo_array_end(&j);
    jo_key(&j, "IC");
    jo_array_begin(&j);
    for (uint32_t i = 0; i <= zk->n_public; i++)
        jo_g1(&j, zk->curve, zk->ic + (size_t)i * zk->curve->g1_bytes);
    jo_array_end(&j);
    jo_object_end(&j);
    char *text = jo_finish(&j);
    if (!text)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory writing the verification key", zk->bf.name);
    *json = text;
    return CUZK_OK;
}
