#include "prove.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../cuda/gpu.h"
#include "../formats/snarkjs_json.h"
#include "../util/error.h"
#include "../util/util.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int check_pair(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, cuzk_error *err)
{
    if (zk->curve != w->curve)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s is a %s witness, but %s is a %s key", w->bf.name,
                              w->curve->display, zk->bf.name, zk->curve->display);
    if (w->n_witness != zk->n_vars)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s has %u values, but %s expects %u (nVars)", w->bf.name,
                              w->n_witness, zk->bf.name, zk->n_vars);
    static const unsigned char one[32] = {1};
    if (memcmp(w->values, one, 32) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: value 0 (the constant signal) must be 1; is this a witness of this circuit?",
                              w->bf.name);
    unsigned log_n = 0;
    while ((1u << log_n) < zk->domain_size)
        log_n++;
    unsigned max_log = zk->curve->id == CUZK_CURVE_BN254 ? 27 : 31;
    if (log_n > max_log)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: domain 2^%u is too large: the odd coset needs a 2^%u-th root of unity (%s has "
                              "up to 2^%u)",
                              zk->bf.name, log_n, log_n + 1, zk->curve->display, max_log + 1);
    return CUZK_OK;
}

static int thread_count(const cuzk_prove_options *opts)
{
    if (opts && opts->threads > 0)
        return opts->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int core_error(const struct cuzk_zkey *zk, int rc, const core_prove_out *out, cuzk_error *err)
{
    if (rc == CUZK_ERR_FORMAT)
        return cuzk_error_set(err, rc, "%s: section 4 (coefficients): entry %llu is out of range", zk->bf.name,
                              out->bad_coef);
    if (rc == CUZK_ERR_NO_MEMORY)
        return cuzk_error_set(err, rc, "out of memory proving with %s (domain %u)", zk->bf.name, zk->domain_size);
    return cuzk_error_set(err, rc, "proving with %s failed: %s", zk->bf.name, cuzk_strerror(rc));
}

#if CUZK_HAVE_CUDA
/* The key's points go to the GPU with its first GPU proof and stay there
 * until cuzk_zkey_free: one lock for every key's first upload. */
static pthread_mutex_t gpu_key_lock = PTHREAD_MUTEX_INITIALIZER;

static int gpu_key_get(const struct cuzk_zkey *zkc, int device, cuzk_timings *t, cuzk_error *err)
{
    struct cuzk_zkey *zk = (struct cuzk_zkey *)zkc; /* a cache: the key itself does not change */
    pthread_mutex_lock(&gpu_key_lock);
    if (zk->gpu_key_state == 0) {
        double t0 = now();
        cuzk_gpu_key_in in = {
            .curve = zk->curve->id,
            .device = device,
            .n_vars = zk->n_vars,
            .n_public = zk->n_public,
            .domain_size = zk->domain_size,
            .pts_a = zk->a,
            .pts_b1 = zk->b1,
            .pts_b2 = zk->b2,
            .pts_c = zk->c,
            .pts_h = zk->h,
            .coefs = zk->coefs,
            .n_coefs = zk->n_coefs,
        };
        /* CUZK_GPU_EVAL=cpu keeps the constraint matrices off the GPU (less
         * device memory; the CPU evaluates a and b for every proof) */
        const char *where = getenv("CUZK_GPU_EVAL");
        if (where && !strcmp(where, "cpu"))
            in.coefs = NULL, in.n_coefs = 0;
        cuzk_gpu_msg m = {{0}};
        zk->gpu_key_rc = cuzk_gpu_key_upload(&in, &zk->gpu_key, &m);
        zk->gpu_key_state = zk->gpu_key_rc == CUZK_OK ? 1 : 2;
        zk->gpu_key_free = cuzk_gpu_key_free;
        snprintf(zk->gpu_key_error, sizeof(zk->gpu_key_error), "%s", m.text);
        if (t)
            t->key_upload = now() - t0;
    }
    int rc = zk->gpu_key_rc;
    pthread_mutex_unlock(&gpu_key_lock);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "GPU %d cannot hold %s: %s", device, zk->bf.name, zk->gpu_key_error);
    return CUZK_OK;
}

/* With the key's matrices on the GPU, the GPU evaluates a and b and
 * splits the witness; otherwise the CPU does both first. The GPU runs H's
 * transforms and every MSM; the CPU blinds. */
static int prove_gpu(const struct cuzk_zkey *zk, const core_prove_in *in, int device, core_prove_out *out,
                     cuzk_timings *t, cuzk_error *err)
{
    int rc = gpu_key_get(zk, device, t, err);
    if (rc != CUZK_OK)
        return rc;
    const int on_device = cuzk_gpu_key_evaluates(zk->gpu_key);
    size_t n = on_device ? 0 : zk->domain_size, nv = on_device ? 0 : zk->n_vars;
    unsigned char *a = NULL, *b = NULL;
    uint32_t *ones = NULL, *tail = NULL, *ones_c = NULL, *tail_c = NULL;
    cuzk_gpu_prove_out *gout = NULL;
    const struct cuzk_core_ops *core = cuzk_core();
    cuzk_gpu_prove_in gin = {.witness = in->witness};
    if (!on_device) {
        a = calloc(n, 32), b = calloc(n, 32);
        ones = malloc(nv * 4), tail = malloc(nv * 4), ones_c = malloc(nv * 4), tail_c = malloc(nv * 4);
        if (!a || !b || !ones || !tail || !ones_c || !tail_c) {
            rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory proving with %s (domain %u)", zk->bf.name,
                                zk->domain_size);
            goto done;
        }
        double t0 = now();
        if ((rc = core->groth16_eval(in, a, b, out)) != CUZK_OK) {
            rc = core_error(zk, rc, out, err);
            goto done;
        }
        gin.a = a, gin.b = b, gin.ones = ones, gin.tail = tail, gin.ones_c = ones_c, gin.tail_c = tail_c;
        core->groth16_classify(in, ones, &gin.n_ones, tail, &gin.n_tail, ones_c, &gin.n_ones_c, tail_c,
                               &gin.n_tail_c);
        out->seconds[CORE_PHASE_EVAL] = now() - t0;
    }
    cuzk_gpu_msg m = {{0}};
    if (!(gout = malloc(sizeof(*gout)))) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        goto done;
    }
    if ((rc = cuzk_gpu_prove(zk->gpu_key, &gin, gout, &m)) != CUZK_OK) {
        rc = cuzk_error_set(err, rc, "GPU %d: %s", device, m.text);
        goto done;
    }
    out->n_ones = gout->n_ones;
    out->n_tail = gout->n_tail;
    if (on_device)
        out->seconds[CORE_PHASE_EVAL] = gout->ms[GPU_PHASE_EVAL] / 1e3;
    out->seconds[CORE_PHASE_NTT] = gout->ms[GPU_PHASE_NTT] / 1e3;
    out->seconds[CORE_PHASE_MSM_H] = gout->ms[GPU_PHASE_MSM_H] / 1e3;
    out->seconds[CORE_PHASE_MSM_A] = gout->ms[GPU_PHASE_MSM_A] / 1e3;
    out->seconds[CORE_PHASE_MSM_B1] = gout->ms[GPU_PHASE_MSM_B1] / 1e3;
    out->seconds[CORE_PHASE_MSM_B2] = gout->ms[GPU_PHASE_MSM_B2] / 1e3;
    out->seconds[CORE_PHASE_MSM_C] = gout->ms[GPU_PHASE_MSM_C] / 1e3;
    if (t)
        t->gpu_upload = gout->ms[GPU_PHASE_UPLOAD] / 1e3;
    /* the GPU leaves window sums: the CPU finishes each MSM (Horner, one
     * inversion), then blinds */
    double tb = now();
    unsigned char pa[96], pb1[96], pb2[192], pc[96], ph[96];
    unsigned char *dst[GPU_MSMS] = {pa, pb1, pb2, pc, ph};
    for (int k = 0; k < GPU_MSMS; k++) {
        const cuzk_gpu_msm_result *r = &gout->msm[k];
        core->msm_combine(in->curve, k == GPU_MSM_B2 ? 2 : 1, r->windows[0], sizeof(r->windows[0]), r->nwin, r->c,
                          k == GPU_MSM_H ? NULL : r->sum, dst[k]);
    }
    core_msm_results mr = {pa, pb1, pb2, pc, ph};
    core->groth16_blind(in, &mr, out);
    out->seconds[CORE_PHASE_BLIND] = now() - tb;
done:
    free(gout);
    free(a);
    free(b);
    free(ones);
    free(tail);
    free(ones_c);
    free(tail_c);
    return rc;
}
#endif

static void fill_timings(cuzk_timings *t, const core_prove_out *out)
{
    if (!t)
        return;
    t->eval = out->seconds[CORE_PHASE_EVAL];
    t->ntt = out->seconds[CORE_PHASE_NTT];
    t->msm_a = out->seconds[CORE_PHASE_MSM_A];
    t->msm_b1 = out->seconds[CORE_PHASE_MSM_B1];
    t->msm_b2 = out->seconds[CORE_PHASE_MSM_B2];
    t->msm_c = out->seconds[CORE_PHASE_MSM_C];
    t->msm_h = out->seconds[CORE_PHASE_MSM_H];
    t->blind = out->seconds[CORE_PHASE_BLIND];
    t->witness_ones = out->n_ones;
    t->witness_other = out->n_tail;
}

/* The pairing check of a proof with the key's own verification key. */
static int self_verify(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const core_prove_out *out)
{
    core_vk vk = {zk->alpha1, zk->beta2, zk->gamma2, zk->delta2, zk->ic, (size_t)zk->n_public + 1};
    core_proof proof = {out->a, out->b, out->c};
    return cuzk_core()->groth16_verify(zk->curve->id, &vk, w->values + 32, &proof);
}

/* Picks CPU or GPU for opts->device; *gpu_index = -1 for the CPU. */
static int choose_device(const cuzk_prove_options *opts, int *gpu_index, cuzk_error *err)
{
    int want = opts ? opts->device : CUZK_DEVICE_AUTO;
    *gpu_index = -1;
    if (want == CUZK_DEVICE_CPU)
        return CUZK_OK;
    if (want != CUZK_DEVICE_AUTO && want != CUZK_DEVICE_GPU)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "unknown device choice %d", want);
    int count = 0;
    int rc = cuzk_gpu_count(&count);
    if (rc != CUZK_OK && want == CUZK_DEVICE_GPU)
        return cuzk_error_set(err, rc, "cannot list the GPUs: the CUDA runtime failed");
    if (rc != CUZK_OK || count == 0) {
        if (want == CUZK_DEVICE_GPU)
            return cuzk_error_set(err, CUZK_ERR_NO_DEVICE, "%s",
                                  cuzk_has_cuda() ? "no CUDA GPU found (device gpu was asked for)"
                                                  : "this cuzk was built without CUDA (device gpu was asked for)");
        return CUZK_OK;
    }
    int idx = opts ? opts->gpu : 0;
    if (idx < 0 || idx >= count)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "GPU %d does not exist (found %d)", idx, count);
    *gpu_index = idx;
    return CUZK_OK;
}

int groth16_prove_with(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char r[32],
                       const unsigned char s[32], const cuzk_prove_options *opts, core_prove_out *out,
                       cuzk_timings *t, cuzk_error *err)
{
    int rc = check_pair(zk, w, err);
    if (rc != CUZK_OK)
        return rc;
    int gpu = -1;
    if ((rc = choose_device(opts, &gpu, err)) != CUZK_OK)
        return rc;
    core_prove_in in = {
        .curve = zk->curve->id,
        .threads = thread_count(opts),
        .n_vars = zk->n_vars,
        .n_public = zk->n_public,
        .domain_size = zk->domain_size,
        .n_coefs = zk->n_coefs,
        .coefs = zk->coefs,
        .pts_a = zk->a,
        .pts_b1 = zk->b1,
        .pts_b2 = zk->b2,
        .pts_c = zk->c,
        .pts_h = zk->h,
        .alpha1 = zk->alpha1,
        .beta1 = zk->beta1,
        .beta2 = zk->beta2,
        .delta1 = zk->delta1,
        .delta2 = zk->delta2,
        .witness = w->values,
        .r = r,
        .s = s,
    };
    memset(out, 0, sizeof(*out));
    if (t) {
        snprintf(t->device, sizeof(t->device), "cpu");
        t->device_note[0] = 0;
    }
#if CUZK_HAVE_CUDA
    if (gpu >= 0) {
        rc = prove_gpu(zk, &in, gpu, out, t, err);
        if (rc == CUZK_ERR_NO_MEMORY && zk->gpu_key_state == 2 && (!opts || opts->device == CUZK_DEVICE_AUTO)) {
            /* the key does not fit this GPU: the CPU proves instead */
            if (t)
                snprintf(t->device_note, sizeof(t->device_note), "%.190s", err ? err->message : "");
            gpu = -1;
            memset(out, 0, sizeof(*out));
        } else if (rc != CUZK_OK)
            return rc;
        else if (t)
            snprintf(t->device, sizeof(t->device), "gpu %d", gpu);
    }
#endif
    if (gpu < 0) {
        rc = cuzk_core()->groth16_prove(&in, out);
        if (rc != CUZK_OK)
            return core_error(zk, rc, out, err);
    }
    fill_timings(t, out);
    if (opts && opts->no_verify)
        return CUZK_OK;
    double tv = now();
    rc = self_verify(zk, w, out);
#if CUZK_HAVE_CUDA
    if (rc == CUZK_ERR_INVALID_PROOF && gpu >= 0 && (!opts || opts->device == CUZK_DEVICE_AUTO)) {
        /* A GPU fault must not cost the caller the proof: the CPU proves
         * again. (A witness that does not satisfy the circuit fails there
         * too, with the message below.) */
        memset(out, 0, sizeof(*out));
        rc = cuzk_core()->groth16_prove(&in, out);
        if (rc != CUZK_OK)
            return core_error(zk, rc, out, err);
        fill_timings(t, out);
        if (t) {
            snprintf(t->device, sizeof(t->device), "cpu");
            snprintf(t->device_note, sizeof(t->device_note),
                     "GPU %d's proof failed its pairing check, so the CPU proved again (please report this)", gpu);
        }
        rc = self_verify(zk, w, out);
    }
#endif
    if (t)
        t->verify = now() - tv;
    if (rc == CUZK_ERR_INVALID_PROOF)
        return cuzk_error_set(err, CUZK_ERR_INTERNAL,
                              "the proof failed its own verification and was not written: is %s a witness for %s "
                              "(its values do not satisfy the circuit's constraints)?",
                              w->bf.name, zk->bf.name);
    return rc;
}

int cuzk_prove(const cuzk_zkey *zk, const cuzk_wtns *w, const cuzk_prove_options *opts, char **proof_json,
               char **public_json, cuzk_timings *timings, cuzk_error *err)
{
    if (!zk || !w || !proof_json || !public_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_prove: NULL argument");
    *proof_json = *public_json = NULL;
    double t0 = now();
    cuzk_timings t;
    memset(&t, 0, sizeof(t));
    unsigned char r[32], s[32];
    int rc = curve_random_scalar(r, zk->curve);
    if (rc == CUZK_OK)
        rc = curve_random_scalar(s, zk->curve);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "cannot draw the proof's random blinding: %s", cuzk_strerror(rc));
    core_prove_out out;
    rc = groth16_prove_with(zk, w, r, s, opts, &out, &t, err);
    cuzk_memzero(r, sizeof(r));
    cuzk_memzero(s, sizeof(s));
    if (rc != CUZK_OK)
        return rc;
    double tj = now();
    *proof_json = snarkjs_proof_json(zk->curve, out.a, out.b, out.c);
    *public_json = snarkjs_public_json(w->values + 32, zk->n_public);
    if (!*proof_json || !*public_json) {
        free(*proof_json);
        free(*public_json);
        *proof_json = *public_json = NULL;
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory writing the proof");
    }
    t.json = now() - tj;
    t.total = now() - t0;
    if (timings)
        *timings = t;
    return CUZK_OK;
}
