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
    if (rc == CUZK_ERR_CANCELLED)
        return cuzk_error_set(err, rc, "the proof was cancelled");
    if (rc == CUZK_ERR_FORMAT)
        return cuzk_error_set(err, rc, "%s: section 4 (coefficients): entry %llu is out of range", zk->bf.name,
                              out->bad_coef);
    if (rc == CUZK_ERR_NO_MEMORY)
        return cuzk_error_set(err, rc, "out of memory proving with %s (domain %u)", zk->bf.name, zk->domain_size);
    return cuzk_error_set(err, rc, "proving with %s failed: %s", zk->bf.name, cuzk_strerror(rc));
}

#if CUZK_HAVE_CUDA
/* The key's points go to a GPU with the first proof there and stay until
 * cuzk_zkey_free or prove_gpu_key_drop: one lock for every key's uploads. */
static pthread_mutex_t gpu_key_lock = PTHREAD_MUTEX_INITIALIZER;

static int gpu_index_ok(int device)
{
    return device >= 0 && device < ZKEY_MAX_GPUS;
}

/* CUZK_GPU_UPLOAD: how host data goes to the GPU. "pageable" (the
 * default, measured: the driver stages the copy) or "pinned" (through the
 * device's pinned slots, filled by several host threads; to be measured
 * against it). Returns 0 or 1, or -1 (and err set) for anything else. */
static int gpu_upload_pinned(cuzk_error *err)
{
    const char *v = getenv("CUZK_GPU_UPLOAD");
    /* pinned by default: session 6, run 2 (H200), 2^24 BLS12-381 proof's
     * witness upload 64.5 -> 12.2 ms, the proof 0.443 -> 0.391 s */
    if (!v || !*v || !strcmp(v, "pinned"))
        return 1;
    if (!strcmp(v, "pageable"))
        return 0;
    cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "CUZK_GPU_UPLOAD: expected 'pageable' or 'pinned', found '%.40s'",
                   v);
    return -1;
}

static cuzk_gpu_key_in gpu_key_input(const struct cuzk_zkey *zk, int device, uint64_t budget, uint64_t msm_chunk)
{
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
        .budget = budget,
        .msm_chunk = msm_chunk,
        .pinned_upload = gpu_upload_pinned(NULL) == 1,
    };
    /* CUZK_GPU_EVAL=cpu keeps the constraint matrices off the GPU (less
     * device memory; the CPU evaluates a and b for every proof) */
    const char *where = getenv("CUZK_GPU_EVAL");
    if (where && !strcmp(where, "cpu"))
        in.coefs = NULL, in.n_coefs = 0;
    return in;
}

/* The key on GPU `device`, uploading it on first use within `budget`
 * bytes (0: the device's free memory) beside a proof whose MSMs take at
 * most msm_chunk points at a time (0: all). Without a budget, a failed upload
 * is not tried again: the stored status and message come back. With one
 * (the engine's plan) it may be tried again later. */
static int gpu_key_get(const struct cuzk_zkey *zkc, int device, uint64_t budget, uint64_t msm_chunk, cuzk_timings *t,
                       cuzk_error *err)
{
    struct cuzk_zkey *zk = (struct cuzk_zkey *)zkc; /* a cache: the key itself does not change */
    if (!gpu_index_ok(device))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "GPU %d: at most %d GPUs are supported", device,
                              ZKEY_MAX_GPUS);
    if (gpu_upload_pinned(err) < 0)
        return CUZK_ERR_INVALID_ARGUMENT;
    pthread_mutex_lock(&gpu_key_lock);
    if (zk->gpu_key_state[device] == 0) {
        double t0 = now();
        cuzk_gpu_key_in in = gpu_key_input(zk, device, budget, msm_chunk);
        cuzk_gpu_msg m = {{0}};
        int rc = cuzk_gpu_key_upload(&in, &zk->gpu_key[device], &m);
        zk->gpu_key_free = cuzk_gpu_key_free;
        if (rc == CUZK_OK || !budget) {
            zk->gpu_key_rc[device] = rc;
            zk->gpu_key_state[device] = rc == CUZK_OK ? 1 : 2;
        }
        if (rc != CUZK_OK) {
            snprintf(zk->gpu_key_error, sizeof(zk->gpu_key_error), "%s", m.text);
            pthread_mutex_unlock(&gpu_key_lock);
            return cuzk_error_set(err, rc, "GPU %d cannot hold %s: %s", device, zk->bf.name, m.text);
        }
        if (t)
            t->key_upload = now() - t0;
    }
    int rc = zk->gpu_key_rc[device];
    if (rc != CUZK_OK)
        cuzk_error_set(err, rc, "GPU %d cannot hold %s: %s", device, zk->bf.name, zk->gpu_key_error);
    pthread_mutex_unlock(&gpu_key_lock);
    return rc;
}

/* Whether the key is on GPU `device` with its constraint matrices: then
 * the GPU evaluates a, b and splits the witness itself. */
static int gpu_key_evaluates(const struct cuzk_zkey *zk, int device)
{
    if (!gpu_index_ok(device))
        return 0;
    pthread_mutex_lock(&gpu_key_lock);
    int yes = zk->gpu_key_state[device] == 1 && cuzk_gpu_key_evaluates(zk->gpu_key[device]);
    pthread_mutex_unlock(&gpu_key_lock);
    return yes;
}

/* Whether an earlier upload of this key to `device` failed for good (then
 * gpu_key_get answers without touching the GPU). */
static int gpu_key_failed(const struct cuzk_zkey *zk, int device)
{
    if (!gpu_index_ok(device))
        return 0;
    pthread_mutex_lock(&gpu_key_lock);
    int failed = zk->gpu_key_state[device] == 2;
    pthread_mutex_unlock(&gpu_key_lock);
    return failed;
}

void prove_gpu_footprint(const struct cuzk_zkey *zk, int device, uint64_t msm_chunk, prove_gpu_plan *plan)
{
    memset(plan, 0, sizeof(*plan));
    cuzk_gpu_key_in in = gpu_key_input(zk, device, 0, 0);
    cuzk_gpu_key_footprint(&in, msm_chunk, &plan->key_bytes, &plan->matrix_bytes, &plan->work_bytes);
    if (!gpu_index_ok(device))
        return;
    pthread_mutex_lock(&gpu_key_lock);
    if (zk->gpu_key_state[device] == 1) {
        plan->resident = 1;
        plan->resident_bytes = cuzk_gpu_key_bytes(zk->gpu_key[device]);
        if (cuzk_gpu_key_evaluates(zk->gpu_key[device]))
            plan->stage_bytes = cuzk_gpu_stage_bytes(zk->gpu_key[device]);
    }
    pthread_mutex_unlock(&gpu_key_lock);
}

uint64_t prove_gpu_key_drop(const struct cuzk_zkey *zkc, int device)
{
    struct cuzk_zkey *zk = (struct cuzk_zkey *)zkc;
    if (!gpu_index_ok(device))
        return 0;
    pthread_mutex_lock(&gpu_key_lock);
    struct cuzk_gpu_key *gone = NULL;
    if (zk->gpu_key_state[device] == 1) {
        gone = zk->gpu_key[device];
        zk->gpu_key[device] = NULL;
        zk->gpu_key_state[device] = 0;
    }
    pthread_mutex_unlock(&gpu_key_lock);
    uint64_t freed = cuzk_gpu_key_bytes(gone);
    cuzk_gpu_key_free(gone); /* outside the lock: it waits for the GPU's compute lock */
    return freed;
}
int prove_gpu_memory(int g, uint64_t *free_bytes, uint64_t *total_bytes)
{
    cuzk_gpu_msg m = {{0}};
    return cuzk_gpu_memory(g, free_bytes, total_bytes, &m);
}
#else
int prove_gpu_memory(int g, uint64_t *free_bytes, uint64_t *total_bytes)
{
    (void)g;
    *free_bytes = *total_bytes = 0;
    return CUZK_ERR_NO_DEVICE;
}

void prove_gpu_footprint(const struct cuzk_zkey *zk, int device, uint64_t msm_chunk, prove_gpu_plan *plan)
{
    (void)zk;
    (void)device;
    (void)msm_chunk;
    memset(plan, 0, sizeof(*plan));
}

uint64_t prove_gpu_key_drop(const struct cuzk_zkey *zk, int device)
{
    (void)zk;
    (void)device;
    return 0;
}
#endif

struct prove_state {
    const struct cuzk_zkey *zk;
    const struct cuzk_wtns *w;
    int auto_device; /* CUZK_DEVICE_AUTO: a GPU that cannot prove hands over to the CPU */
    int no_verify;
    const atomic_int *cancel;
    unsigned char r[32], s[32]; /* in.r and in.s point here */
    core_prove_in in;
    core_prove_out out;
    cuzk_timings t;
    int gpu;        /* -1: the CPU path */
    int gpu_proved; /* compute ran on the GPU: finalize finishes the MSMs and blinds */
    int stage;      /* the engine's plan lets compute pre-stage the witness */
    uint64_t msm_chunk; /* the engine's plan: MSMs over at most this many points at a time (0: all) */
    int staged;     /* it did */
#if CUZK_HAVE_CUDA
    unsigned char *a, *b; /* A w, B w (domain_size Fr each) */
    uint32_t *ones, *tail, *ones_c, *tail_c;
    cuzk_gpu_prove_in gin;
    cuzk_gpu_prove_out *gout;
#endif
};

static int cancelled(const prove_state *st, cuzk_error *err)
{
    if (st->cancel && atomic_load(st->cancel))
        return cuzk_error_set(err, CUZK_ERR_CANCELLED, "the proof was cancelled");
    return CUZK_OK;
}

#if CUZK_HAVE_CUDA
/* The arrays only the GPU call reads: freed as soon as it returns. */
static void free_gpu_inputs(prove_state *st)
{
    free(st->a);
    free(st->b);
    free(st->ones);
    free(st->tail);
    free(st->ones_c);
    free(st->tail_c);
    st->a = st->b = NULL;
    st->ones = st->tail = st->ones_c = st->tail_c = NULL;
}

/* The GPU path's CPU part, unless the key's matrices are on the GPU:
 * a = A w, b = B w, and the witness split into the indices of its 1s and
 * of the rest (for A/B and for C). */
static int prepare_gpu_inputs(prove_state *st, cuzk_error *err)
{
    const struct cuzk_zkey *zk = st->zk;
    if (gpu_key_evaluates(zk, st->gpu)) {
        /* the key's matrices are on the GPU: nothing to do here (before a
         * key's first upload this is not known yet, so its first proof is
         * evaluated here, which the GPU accepts as well) */
        st->gin = (cuzk_gpu_prove_in){.witness = st->in.witness};
        return CUZK_OK;
    }
    size_t n = zk->domain_size, nv = zk->n_vars;
    st->a = calloc(n, 32);
    st->b = calloc(n, 32);
    st->ones = malloc(nv * 4);
    st->tail = malloc(nv * 4);
    st->ones_c = malloc(nv * 4);
    st->tail_c = malloc(nv * 4);
    if (!st->a || !st->b || !st->ones || !st->tail || !st->ones_c || !st->tail_c)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory proving with %s (domain %u)", zk->bf.name,
                              zk->domain_size);
    const struct cuzk_core_ops *core = cuzk_core();
    double t0 = now();
    int rc = core->groth16_eval(&st->in, st->a, st->b, &st->out);
    if (rc != CUZK_OK)
        return core_error(zk, rc, &st->out, err);
    if ((rc = cancelled(st, err)) != CUZK_OK)
        return rc;
    cuzk_gpu_prove_in *g = &st->gin;
    *g = (cuzk_gpu_prove_in){.a = st->a, .b = st->b, .witness = st->in.witness, .ones = st->ones,
                             .tail = st->tail, .ones_c = st->ones_c, .tail_c = st->tail_c};
    core->groth16_classify(&st->in, st->ones, &g->n_ones, st->tail, &g->n_tail, st->ones_c, &g->n_ones_c,
                           st->tail_c, &g->n_tail_c);
    st->out.n_ones = g->n_ones;
    st->out.n_tail = g->n_tail;
    st->out.seconds[CORE_PHASE_EVAL] = now() - t0;
    return CUZK_OK;
}

/* The GPU runs H's transforms and every MSM; it leaves window sums. */
static int compute_gpu(prove_state *st, cuzk_error *err)
{
    if (!(st->gout = malloc(sizeof(*st->gout))))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    cuzk_gpu_msg m = {{0}};
    int rc;
    /* prepared for a GPU that evaluates, but this one's copy of the key
     * came without its matrices: the CPU evaluates now */
    if (!st->gin.a && !gpu_key_evaluates(st->zk, st->gpu) && (rc = prepare_gpu_inputs(st, err)) != CUZK_OK)
        return rc;
    const int gpu_evaluated = st->gin.a == NULL;
    pthread_mutex_lock(&gpu_key_lock);
    cuzk_gpu_key *key = st->zk->gpu_key[st->gpu]; /* gpu_key_get succeeded: resident until the engine's plan
                                                     drops it, which it does not while a job computes */
    pthread_mutex_unlock(&gpu_key_lock);
    /* pre-staging (the engine's plan allows it): the witness goes up
     * outside the compute lock, while another proof computes */
    const int pinned = gpu_upload_pinned(err);
    if (pinned < 0)
        return CUZK_ERR_INVALID_ARGUMENT;
    st->gin.pinned_upload = pinned;
    cuzk_gpu_staged *staged = NULL;
    if (st->stage && gpu_evaluated && cuzk_gpu_key_evaluates(key)) {
        cuzk_gpu_msg sm = {{0}};
        if (cuzk_gpu_stage(key, st->in.witness, pinned, &staged, &sm) == CUZK_OK)
            st->gin.staged = staged;
        /* else the proof uploads the witness itself, as without a plan */
    }
    /* CUZK_GPU_MSM_CHUNK (testing): the streamed path at any size */
    uint64_t chunk = st->msm_chunk;
    const char *env = getenv("CUZK_GPU_MSM_CHUNK");
    if (env && *env) {
        char *end;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end || env[0] == '-' || v < 1) {
            cuzk_gpu_staged_free(staged);
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                                  "CUZK_GPU_MSM_CHUNK: expected a positive number of points, found '%.40s'", env);
        }
        chunk = v;
    }
    st->gin.msm_chunk = chunk;
    rc = cuzk_gpu_prove(key, &st->gin, st->gout, &m);
    st->gin.staged = NULL;
    cuzk_gpu_staged_free(staged);
    st->staged = staged != NULL;
    free_gpu_inputs(st);
    st->gin.a = st->gin.b = NULL;
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "GPU %d: %s", st->gpu, m.text);
    const cuzk_gpu_prove_out *g = st->gout;
    core_prove_out *out = &st->out;
    out->n_ones = g->n_ones;
    out->n_tail = g->n_tail;
    if (gpu_evaluated)
        out->seconds[CORE_PHASE_EVAL] = g->ms[GPU_PHASE_EVAL] / 1e3;
    out->seconds[CORE_PHASE_NTT] = g->ms[GPU_PHASE_NTT] / 1e3;
    out->seconds[CORE_PHASE_MSM_H] = g->ms[GPU_PHASE_MSM_H] / 1e3;
    out->seconds[CORE_PHASE_MSM_A] = g->ms[GPU_PHASE_MSM_A] / 1e3;
    out->seconds[CORE_PHASE_MSM_B1] = g->ms[GPU_PHASE_MSM_B1] / 1e3;
    out->seconds[CORE_PHASE_MSM_B2] = g->ms[GPU_PHASE_MSM_B2] / 1e3;
    out->seconds[CORE_PHASE_MSM_C] = g->ms[GPU_PHASE_MSM_C] / 1e3;
    st->t.gpu_upload = g->ms[GPU_PHASE_UPLOAD] / 1e3;
    st->gpu_proved = 1;
    snprintf(st->t.device, sizeof(st->t.device), "gpu %d", st->gpu);
    return CUZK_OK;
}

/* The CPU finishes each MSM (Horner over the window sums, one inversion),
 * then blinds. */
static void finish_gpu(prove_state *st)
{
    const struct cuzk_core_ops *core = cuzk_core();
    double tb = now();
    unsigned char pa[96], pb1[96], pb2[192], pc[96], ph[96];
    unsigned char *dst[GPU_MSMS] = {pa, pb1, pb2, pc, ph};
    for (int k = 0; k < GPU_MSMS; k++) {
        const cuzk_gpu_msm_result *r = &st->gout->msm[k];
        core->msm_combine(st->in.curve, k == GPU_MSM_B2 ? 2 : 1, r->windows[0], sizeof(r->windows[0]), r->nwin,
                          r->c, k == GPU_MSM_H ? NULL : r->sum, dst[k]);
    }
    core_msm_results mr = {pa, pb1, pb2, pc, ph};
    core->groth16_blind(&st->in, &mr, &st->out);
    st->out.seconds[CORE_PHASE_BLIND] = now() - tb;
    free(st->gout);
    st->gout = NULL;
}
#endif

static void fill_timings(cuzk_timings *t, const core_prove_out *out)
{
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

core_prove_in prove_core_input(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *r,
                               const unsigned char *s, int threads, const atomic_int *cancel)
{
    return (core_prove_in){
        .curve = zk->curve->id,
        .threads = threads,
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
        .cancel = cancel,
    };
}

void prove_state_free(prove_state *st)
{
    if (!st)
        return;
#if CUZK_HAVE_CUDA
    free_gpu_inputs(st);
    free(st->gout);
#endif
    cuzk_memzero(st->r, sizeof(st->r));
    cuzk_memzero(st->s, sizeof(st->s));
    free(st);
}

const cuzk_timings *prove_state_timings(const prove_state *st)
{
    return &st->t;
}

const core_prove_out *prove_state_out(const prove_state *st)
{
    return &st->out;
}

int prove_state_gpu(const prove_state *st)
{
    return st->gpu;
}

int prove_prepare(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *r,
                  const unsigned char *s, const cuzk_prove_options *opts, const atomic_int *cancel,
                  prove_state **out, cuzk_error *err)
{
    if (!zk || !w || !out)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "prove_prepare: NULL argument");
    *out = NULL;
    double t0 = now();
    int rc = check_pair(zk, w, err);
    if (rc != CUZK_OK)
        return rc;
    int gpu = -1;
    if ((rc = choose_device(opts, &gpu, err)) != CUZK_OK)
        return rc;
    prove_state *st = calloc(1, sizeof(*st));
    if (!st)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    st->zk = zk;
    st->w = w;
    st->auto_device = !opts || opts->device == CUZK_DEVICE_AUTO;
    st->no_verify = opts && opts->no_verify;
    st->cancel = cancel;
    st->gpu = gpu;
    if (r && s) {
        memcpy(st->r, r, 32);
        memcpy(st->s, s, 32);
    } else if ((rc = curve_random_scalar(st->r, zk->curve)) != CUZK_OK ||
               (rc = curve_random_scalar(st->s, zk->curve)) != CUZK_OK) {
        prove_state_free(st);
        return cuzk_error_set(err, rc, "cannot draw the proof's random blinding: %s", cuzk_strerror(rc));
    }
    st->in = prove_core_input(zk, w, st->r, st->s, thread_count(opts), cancel);
    snprintf(st->t.device, sizeof(st->t.device), "cpu");
#if CUZK_HAVE_CUDA
    if (st->gpu >= 0 && gpu_key_failed(zk, st->gpu)) {
        /* an earlier upload of this key failed: decide now, as compute
         * would, rather than evaluate for a GPU that cannot take it */
        cuzk_error kerr = {0};
        rc = gpu_key_get(zk, st->gpu, 0, 0, NULL, &kerr);
        if (rc == CUZK_ERR_NO_MEMORY && st->auto_device) {
            snprintf(st->t.device_note, sizeof(st->t.device_note), "%.190s", kerr.message);
            st->gpu = -1;
        } else if (rc != CUZK_OK) {
            prove_state_free(st);
            return cuzk_error_set(err, rc, "%s", kerr.message);
        }
    }
    if (st->gpu >= 0 && (rc = prepare_gpu_inputs(st, err)) != CUZK_OK) {
        prove_state_free(st);
        return rc;
    }
#endif
    st->t.prepare = now() - t0;
    *out = st;
    return CUZK_OK;
}

static int compute(prove_state *st, int gpu, uint64_t budget, int stage, uint64_t msm_chunk, cuzk_error *err)
{
    if (!st)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "prove_compute: NULL argument");
    st->stage = stage;
    st->msm_chunk = msm_chunk;
    double t0 = now();
    int rc = cancelled(st, err);
    if (rc != CUZK_OK)
        return rc;
#if CUZK_HAVE_CUDA
    if (st->gpu >= 0) {
        if (gpu >= 0)
            st->gpu = gpu;
        cuzk_error kerr = {0};
        rc = gpu_key_get(st->zk, st->gpu, budget, msm_chunk, &st->t, &kerr);
        if (rc == CUZK_ERR_NO_MEMORY && st->auto_device) {
            /* the key does not fit this GPU: the CPU proves instead */
            prove_route_cpu(st, kerr.message);
        } else if (rc != CUZK_OK) {
            return cuzk_error_set(err, rc, "%s", kerr.message);
        } else if ((rc = compute_gpu(st, err)) != CUZK_OK)
            return rc;
    }
#else
    (void)gpu;
    (void)budget;
#endif
    if (st->gpu < 0) {
        if ((rc = cancelled(st, err)) != CUZK_OK)
            return rc;
        if ((rc = cuzk_core()->groth16_prove(&st->in, &st->out)) != CUZK_OK)
            return core_error(st->zk, rc, &st->out, err);
    }
    st->t.compute = now() - t0;
    return CUZK_OK;
}

int prove_compute(prove_state *st, int gpu, cuzk_error *err)
{
    return compute(st, gpu, 0, 0, 0, err);
}

int prove_compute_budget(prove_state *st, int gpu, uint64_t budget, int stage, uint64_t msm_chunk, cuzk_error *err)
{
    return compute(st, gpu, budget, stage, msm_chunk, err);
}

int prove_state_staged(const prove_state *st)
{
    return st && st->staged;
}

void prove_route_cpu(prove_state *st, const char *note)
{
    if (!st || st->gpu < 0)
        return;
#if CUZK_HAVE_CUDA
    free_gpu_inputs(st);
#endif
    st->gpu = -1;
    memset(&st->out, 0, sizeof(st->out));
    if (note)
        snprintf(st->t.device_note, sizeof(st->t.device_note), "%.190s", note);
}

int prove_finalize(prove_state *st, char **proof_json, char **public_json, cuzk_error *err)
{
    if (!st || !proof_json != !public_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "prove_finalize: bad argument");
    const struct cuzk_zkey *zk = st->zk;
    const struct cuzk_wtns *w = st->w;
    double t0 = now();
    int rc = CUZK_OK;
#if CUZK_HAVE_CUDA
    if (st->gpu_proved && st->gout)
        finish_gpu(st);
#endif
    fill_timings(&st->t, &st->out);
    if (!st->no_verify) {
        double tv = now();
        rc = self_verify(zk, w, &st->out);
#if CUZK_HAVE_CUDA
        if (rc == CUZK_ERR_INVALID_PROOF && st->gpu_proved && st->auto_device) {
            /* A GPU fault must not cost the caller the proof: the CPU proves
             * again. (A witness that does not satisfy the circuit fails there
             * too, with the message below.) */
            if ((rc = cancelled(st, err)) != CUZK_OK)
                return rc;
            memset(&st->out, 0, sizeof(st->out));
            rc = cuzk_core()->groth16_prove(&st->in, &st->out);
            if (rc != CUZK_OK)
                return core_error(zk, rc, &st->out, err);
            fill_timings(&st->t, &st->out);
            snprintf(st->t.device, sizeof(st->t.device), "cpu");
            snprintf(st->t.device_note, sizeof(st->t.device_note),
                     "GPU %d's proof failed its pairing check, so the CPU proved again (please report this)",
                     st->gpu);
            rc = self_verify(zk, w, &st->out);
        }
#endif
        st->t.verify = now() - tv;
        if (rc == CUZK_ERR_INVALID_PROOF)
            return cuzk_error_set(err, CUZK_ERR_INTERNAL,
                                  "the proof failed its own verification and was not written: is %s a witness for "
                                  "%s (its values do not satisfy the circuit's constraints)?",
                                  w->bf.name, zk->bf.name);
        if (rc != CUZK_OK)
            return rc;
    }
    if (proof_json) {
        double tj = now();
        *proof_json = snarkjs_proof_json(zk->curve, st->out.a, st->out.b, st->out.c);
        *public_json = snarkjs_public_json(w->values + 32, zk->n_public);
        if (!*proof_json || !*public_json) {
            free(*proof_json);
            free(*public_json);
            *proof_json = *public_json = NULL;
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory writing the proof");
        }
        st->t.json = now() - tj;
    }
    st->t.finalize = now() - t0;
    return CUZK_OK;
}

int groth16_prove_with(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char r[32],
                       const unsigned char s[32], const cuzk_prove_options *opts, core_prove_out *out,
                       cuzk_timings *t, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    prove_state *st = NULL;
    int rc = prove_prepare(zk, w, r, s, opts, NULL, &st, err);
    if (rc == CUZK_OK)
        rc = prove_compute(st, -1, err);
    if (rc == CUZK_OK)
        rc = prove_finalize(st, NULL, NULL, err);
    if (rc == CUZK_OK) {
        *out = st->out;
        if (t)
            *t = st->t;
    }
    prove_state_free(st);
    return rc;
}

int cuzk_prove(const cuzk_zkey *zk, const cuzk_wtns *w, const cuzk_prove_options *opts, char **proof_json,
               char **public_json, cuzk_timings *timings, cuzk_error *err)
{
    if (!zk || !w || !proof_json || !public_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_prove: NULL argument");
    *proof_json = *public_json = NULL;
    double t0 = now();
    prove_state *st = NULL;
    int rc = prove_prepare(zk, w, NULL, NULL, opts, NULL, &st, err);
    if (rc == CUZK_OK)
        rc = prove_compute(st, -1, err);
    if (rc == CUZK_OK)
        rc = prove_finalize(st, proof_json, public_json, err);
    if (rc == CUZK_OK && timings) {
        *timings = st->t;
        timings->total = now() - t0;
    }
    prove_state_free(st);
    return rc;
}
