#include "prove.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cuda/gpu.h"
#include "../gpu/residency.h"
#include "key.h"
#include "../formats/snarkjs_json.h"
#include "../util/clock.h"
#include "../gpu/device.h"
#include "../util/error.h"
#include "../util/progress.h"
#include "../util/rand.h"
#include "../util/util.h"
#include "../util/cores.h"

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
    unsigned max_log = zk->curve->two_adicity - 1; /* the odd coset of the 2n-domain */
    if (log_n > max_log)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: domain 2^%u is too large: the odd coset needs a 2^%u-th root of unity (%s has "
                              "up to 2^%u)",
                              zk->bf.name, log_n, log_n + 1, zk->curve->display, max_log + 1);
    return CUZK_OK;
}

static int thread_count(const cuzk_prove_options *opts)
{
    return opts && opts->threads > 0 ? opts->threads : cpu_cores();
}

static int core_error(const struct cuzk_zkey *zk, int rc, const core_prove_out *out, cuzk_error *err)
{
    (void)out;
    if (rc == CUZK_ERR_CANCELLED)
        return cuzk_error_set(err, rc, "the proof was cancelled");
    if (rc == CUZK_ERR_NO_MEMORY)
        return cuzk_error_set(err, rc, "out of memory proving with %s (domain %u)", zk->bf.name, zk->domain_size);
    return cuzk_error_set(err, rc, "proving with %s failed: %s", zk->bf.name, cuzk_strerror(rc));
}

struct prove_state {
    const struct cuzk_zkey *zk;
    const struct cuzk_wtns *w;
    const struct cuzk_core_ops *core; /* the CPU backend, chosen at prepare for every stage */
    int auto_device; /* CUZK_DEVICE_AUTO: a GPU that cannot prove hands over to the CPU */
    int no_verify;
    int pinned;        /* GPU uploads through the pinned slots (CUZK_GPU_UPLOAD_PINNED) */
    int cpu_eval;      /* the CPU evaluates a, b for the GPU (CUZK_GPU_EVAL_CPU) */
    uint64_t forced_chunk; /* opts->gpu_msm_chunk (testing): the MSMs' chunk whatever the plan says */
    cuzk_progress_fn progress; /* opts->progress: the key's first upload to a GPU */
    void *progress_ctx;
    const atomic_int *cancel;
    unsigned char r[32], s[32]; /* in.r and in.s point here */
    core_prove_in in;
    core_prove_out out;
    cuzk_timings t;
    int gpu;        /* -1: the CPU path */
    int gpu_proved; /* compute ran on the GPU: finalize finishes the MSMs and blinds */
    int staged;     /* compute pre-staged the witness */
#if CUZK_HAVE_CUDA
    unsigned char *a, *b; /* A w, B w (domain_size Fr each) */
    uint32_t *ones, *tail, *ones_c, *tail_c;
    cuzk_gpu_prove_in gin;
    cuzk_gpu_prove_out *gout;
#endif
};

uint64_t prove_state_host_bytes(const prove_state *st)
{
    uint64_t n = 0;
#if CUZK_HAVE_CUDA
    if (st->a)
        n += 2ull * st->in.domain_size * 32;
    if (st->ones)
        n += 4ull * st->in.n_vars * 4;
#else
    (void)st;
#endif
    return n;
}

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

/* Whether the key's copy on the state's GPU evaluates a, b itself. An
 * upload of it in progress (another proof's) is waited for: the GPU's
 * evaluation is much faster than the CPU's, and with it the witness can be
 * pre-staged. */
static int gpu_evaluates(const prove_state *st)
{
    int evaluates = 0;
    return !st->cpu_eval && residency_state_settled(st->zk, st->gpu, &evaluates) == RESIDENCY_RESIDENT && evaluates;
}

/* The GPU path's CPU part, unless the key's matrices are on the GPU:
 * a = A w, b = B w, and the witness split into the indices of its 1s and
 * of the rest (for A/B and for C). */
static int prepare_gpu_inputs(prove_state *st, cuzk_error *err)
{
    const struct cuzk_zkey *zk = st->zk;
    if (st->in.eval_a) {
        /* the evaluations came with the witness (supraseal's ABI); a
         * bellperson key's splits are the GPU's */
        st->gin = (cuzk_gpu_prove_in){.a = st->in.eval_a, .b = st->in.eval_b, .n_ab = st->in.n_eval,
                                      .witness = st->in.witness};
        return CUZK_OK;
    }
    if (gpu_evaluates(st)) {
        /* the key's matrices are on the GPU: nothing to do here (before a
         * key's first upload this is not known yet, so its first proof is
         * evaluated here, which the GPU accepts as well) */
        st->gin = (cuzk_gpu_prove_in){.witness = st->in.witness};
        return CUZK_OK;
    }
    size_t n = zk->domain_size, nv = zk->n_vars;
    /* a bellperson key's splits are the GPU's (over its gathered A and B
     * scalars): no host lists */
    const int lists = !st->in.a_vars;
    st->a = calloc(n, 32);
    st->b = calloc(n, 32);
    if (lists) {
        st->ones = malloc(nv * 4);
        st->tail = malloc(nv * 4);
        st->ones_c = malloc(nv * 4);
        st->tail_c = malloc(nv * 4);
    }
    if (!st->a || !st->b || (lists && (!st->ones || !st->tail || !st->ones_c || !st->tail_c)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory proving with %s (domain %u)", zk->bf.name,
                              zk->domain_size);
    double t0 = cuzk_now();
    int rc = st->core->groth16_eval(&st->in, st->a, st->b, &st->out);
    if (rc != CUZK_OK)
        return core_error(zk, rc, &st->out, err);
    if ((rc = cancelled(st, err)) != CUZK_OK)
        return rc;
    cuzk_gpu_prove_in *g = &st->gin;
    *g = (cuzk_gpu_prove_in){.a = st->a, .b = st->b, .witness = st->in.witness, .ones = st->ones,
                             .tail = st->tail, .ones_c = st->ones_c, .tail_c = st->tail_c};
    if (lists)
        st->core->groth16_classify_var(&st->in, st->ones, &g->n_ones, st->tail, &g->n_tail, st->ones_c,
                                       &g->n_ones_c, st->tail_c, &g->n_tail_c);
    st->out.n_ones = g->n_ones;
    st->out.n_tail = g->n_tail;
    st->out.seconds[PROOF_PHASE_EVAL] = cuzk_now() - t0;
    return CUZK_OK;
}

/* The GPU runs H's transforms and every MSM with the key's copy `key`; it
 * leaves window sums. */
static int compute_gpu(prove_state *st, cuzk_gpu_key *key, int stage, uint64_t msm_chunk, cuzk_error *err)
{
    if (!(st->gout = malloc(sizeof(*st->gout))))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    cuzk_gpu_msg m = {{0}};
    int rc;
    /* prepared for a GPU that evaluates, but this copy of the key came
     * without its matrices: the CPU evaluates now */
    if (!st->gin.a && !cuzk_gpu_key_evaluates(key) && (rc = prepare_gpu_inputs(st, err)) != CUZK_OK)
        return rc;
    const int gpu_evaluated = st->gin.a == NULL;
    st->gin.pinned_upload = st->pinned;
    /* pre-staging (the engine's plan allows it): the witness, and a and b
     * when they were not evaluated on the GPU, go up outside the compute
     * lock while another proof computes */
    cuzk_gpu_staged *staged = NULL;
    if (stage && (!gpu_evaluated || cuzk_gpu_key_evaluates(key))) {
        cuzk_gpu_msg sm = {{0}};
        if (cuzk_gpu_stage(key, st->in.witness, st->gin.a, st->gin.b, st->gin.n_ab, st->pinned, &staged, &sm) ==
            CUZK_OK)
            st->gin.staged = staged;
        /* else the proof uploads them itself, as without a plan */
    }
    st->gin.msm_chunk = st->forced_chunk ? st->forced_chunk : msm_chunk;
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
    for (int p = 0; p < PROOF_PHASES; p++)
        if (p != PROOF_PHASE_EVAL || gpu_evaluated) /* else the CPU's time stays */
            out->seconds[p] = g->ms[p] / 1e3;
    st->t.gpu_upload = g->upload_ms / 1e3;
    st->gpu_proved = 1;
    snprintf(st->t.device, sizeof(st->t.device), "gpu %d", st->gpu);
    return CUZK_OK;
}

/* Stage 2 on the GPU path: the key's copy (uploaded now if absent), then
 * the GPU call. A key that does not fit sends an auto-device proof to the
 * CPU (st->gpu becomes -1). */
static int compute_gpu_path(prove_state *st, const prove_gpu_grant *grant, cuzk_error *err)
{
    if (grant)
        st->gpu = grant->gpu;
    char stage[48];
    snprintf(stage, sizeof(stage), "uploading the key to GPU %d", st->gpu);
    progress_sink upload_progress = {st->progress, st->progress_ctx, stage};
    residency_request req = {
        .gpu = st->gpu,
        .pinned = st->pinned,
        .cpu_eval = st->cpu_eval,
        .planned = grant != NULL,
        .with_matrices = grant ? grant->with_matrices : 1,
        .h_copies = grant ? grant->h_copies : 0,
        .progress = &upload_progress,
    };
    cuzk_gpu_key *key = NULL;
    cuzk_error kerr = {0};
    int rc = residency_acquire(st->zk, &req, &key, &st->t.key_upload, &kerr);
    if (rc == CUZK_ERR_NO_MEMORY && st->auto_device) {
        /* the key does not fit this GPU: the CPU proves instead */
        cuzk_error note;
        cuzk_error_set(&note, rc, "GPU %d cannot hold %s: %s", st->gpu, st->zk->bf.name, kerr.message);
        prove_route_cpu(st, note.message);
        return CUZK_OK;
    }
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "GPU %d cannot hold %s: %s", st->gpu, st->zk->bf.name, kerr.message);
    rc = compute_gpu(st, key, grant && grant->stage, grant ? grant->msm_chunk : 0, err);
    residency_release(st->zk, st->gpu);
    return rc;
}

/* The CPU finishes each MSM (Horner over the window sums, one inversion),
 * then blinds. */
static void finish_gpu(prove_state *st)
{
    double tb = cuzk_now();
    unsigned char pa[96], pb1[96], pb2[192], pc[96], ph[96];
    unsigned char *dst[GPU_MSMS] = {pa, pb1, pb2, pc, ph};
    for (int k = 0; k < GPU_MSMS; k++) {
        const cuzk_gpu_msm_result *r = &st->gout->msm[k];
        st->core->msm_combine(st->in.curve, k == GPU_MSM_B2 ? 2 : 1, r->windows[0], sizeof(r->windows[0]), r->nwin,
                              r->c, k == GPU_MSM_H ? NULL : r->sum, dst[k]);
    }
    core_msm_results mr = {pa, pb1, pb2, pc, ph};
    st->core->groth16_blind(&st->in, &mr, &st->out);
    st->out.seconds[PROOF_PHASE_BLIND] = cuzk_now() - tb;
    free(st->gout);
    st->gout = NULL;
}
#endif

/* The core's phase times into the caller's timings, with the witness
 * counts. */
static void fill_timings(cuzk_timings *t, const core_prove_out *out)
{
#define FILL_CORE(ID, field) t->field = out->seconds[PROOF_PHASE_##ID];
#define FILL_GPU(ID, field)
#define FILL_LIB(ID, field)
#define FILL(ID, field, label, kind) FILL_##kind(ID, field)
    CUZK_TIMINGS(FILL)
#undef FILL
#undef FILL_LIB
#undef FILL_GPU
#undef FILL_CORE
    t->witness_ones = out->n_ones;
    t->witness_other = out->n_tail;
}

/* The pairing check of a proof with the key's own verification key. */
static int self_verify(const prove_state *st)
{
    const struct cuzk_zkey *zk = st->zk;
    core_vk vk = {zk->alpha1, zk->beta2, zk->gamma2, zk->delta2, zk->ic, (size_t)zk->n_public + 1};
    core_proof proof = {st->out.a, st->out.b, st->out.c};
    return st->core->groth16_verify(zk->curve->id, &vk, st->w->values + 32, &proof);
}


/* The options' enum fields, checked before any work. */
static int check_options(const cuzk_prove_options *opts, cuzk_error *err)
{
    if (!opts)
        return CUZK_OK;
    if (opts->gpu_upload != CUZK_GPU_UPLOAD_PINNED && opts->gpu_upload != CUZK_GPU_UPLOAD_PAGEABLE)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "prove options: gpu_upload must be CUZK_GPU_UPLOAD_PINNED (0) or "
                              "CUZK_GPU_UPLOAD_PAGEABLE (1), got %d",
                              opts->gpu_upload);
    if (opts->gpu_eval != CUZK_GPU_EVAL_GPU && opts->gpu_eval != CUZK_GPU_EVAL_CPU)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "prove options: gpu_eval must be CUZK_GPU_EVAL_GPU (0) or CUZK_GPU_EVAL_CPU (1), got %d",
                              opts->gpu_eval);
    return CUZK_OK;
}

core_prove_in prove_core_input(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *r,
                               const unsigned char *s, int threads, const atomic_int *cancel)
{
    const cs_matrices *mat = NULL;
    if (key_matrices(zk, &mat, NULL) != CUZK_OK) /* a key without a circuit: a, b come with the proof */
        mat = NULL;
    return (core_prove_in){
        .curve = zk->curve->id,
        .threads = threads,
        .n_vars = zk->n_vars,
        .n_public = zk->n_public,
        .domain_size = zk->domain_size,
        .mat = mat,
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
        .a_vars = zk->kind == ZKEY_KIND_BELLPERSON ? zk->a_vars : NULL,
        .b_vars = zk->b_vars,
        .n_a = zk->n_a,
        .n_b = zk->n_b,
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
    return prove_prepare_evaluated(zk, w, NULL, NULL, 0, r, s, opts, cancel, out, err);
}

int prove_prepare_evaluated(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *eval_a,
                            const unsigned char *eval_b, size_t n_eval, const unsigned char *r,
                            const unsigned char *s, const cuzk_prove_options *opts, const atomic_int *cancel,
                            prove_state **out, cuzk_error *err)
{
    if (!zk || !w || !out || !eval_a != !eval_b)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "prove_prepare: NULL argument");
    *out = NULL;
    if (eval_a && n_eval > zk->domain_size)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: %zu evaluations given, the domain holds %u",
                              zk->bf.name, n_eval, zk->domain_size);
    if (zk->kind == ZKEY_KIND_BELLPERSON && (!zk->a_vars || (!eval_a && !zk->mat)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s holds no circuit (%s): open it with its circuit (cuzk_params_open), "
                              "or prove through supraseal's ABI",
                              zk->bf.name, zk->a_vars ? "no constraint matrices" : "no densities");
    double t0 = cuzk_now();
    int rc = check_options(opts, err);
    if (rc == CUZK_OK)
        rc = check_pair(zk, w, err);
    if (rc != CUZK_OK)
        return rc;
    /* a .zkey's matrices are made from its section 4 by its first proof */
    const cs_matrices *mat = NULL;
    if (!eval_a && (rc = key_matrices(zk, &mat, err)) != CUZK_OK)
        return rc;
    int gpu = -1;
    if ((rc = device_choose(opts ? opts->device : CUZK_DEVICE_AUTO, opts ? opts->gpu : 0, &gpu, err)) != CUZK_OK)
        return rc;
    prove_state *st = calloc(1, sizeof(*st));
    if (!st)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    st->zk = zk;
    st->w = w;
    st->core = cuzk_core();
    st->auto_device = !opts || opts->device == CUZK_DEVICE_AUTO;
    st->no_verify = opts && opts->no_verify;
    st->pinned = !opts || opts->gpu_upload == CUZK_GPU_UPLOAD_PINNED;
    st->cpu_eval = opts && opts->gpu_eval == CUZK_GPU_EVAL_CPU;
    st->progress = opts ? opts->progress : NULL;
    st->progress_ctx = opts ? opts->progress_ctx : NULL;
    st->forced_chunk = opts ? opts->gpu_msm_chunk : 0;
    st->cancel = cancel;
    st->gpu = gpu;
    if (r && s) {
        memcpy(st->r, r, 32);
        memcpy(st->s, s, 32);
    } else {
        cuzk_random_fn random = opts ? opts->random : NULL;
        void *ctx = opts ? opts->random_ctx : NULL;
        if ((rc = curve_random_scalar(st->r, zk->curve, random, ctx)) != CUZK_OK ||
            (rc = curve_random_scalar(st->s, zk->curve, random, ctx)) != CUZK_OK) {
            prove_state_free(st);
            return cuzk_error_set(err, rc, "cannot draw the proof's random blinding: %s", cuzk_strerror(rc));
        }
    }
    st->in = prove_core_input(zk, w, st->r, st->s, thread_count(opts), cancel);
    st->in.mat = mat;
    st->in.eval_a = eval_a;
    st->in.eval_b = eval_b;
    st->in.n_eval = eval_a ? n_eval : 0;
    snprintf(st->t.device, sizeof(st->t.device), "cpu");
#if CUZK_HAVE_CUDA
    cuzk_error kerr = {0};
    if (st->gpu >= 0 && (rc = residency_failure(zk, st->gpu, &kerr)) != CUZK_OK) {
        /* an earlier upload of this key there failed for good: decide now,
         * as compute would, rather than evaluate for a GPU that cannot
         * take it */
        if (rc == CUZK_ERR_NO_MEMORY && st->auto_device) {
            cuzk_error note;
            cuzk_error_set(&note, rc, "GPU %d cannot hold %s: %s", st->gpu, zk->bf.name, kerr.message);
            snprintf(st->t.device_note, sizeof(st->t.device_note), "%.190s", note.message);
            st->gpu = -1;
        } else {
            prove_state_free(st);
            return cuzk_error_set(err, rc, "GPU %d cannot hold %s: %s", gpu, zk->bf.name, kerr.message);
        }
    }
    if (st->gpu >= 0 && (rc = prepare_gpu_inputs(st, err)) != CUZK_OK) {
        prove_state_free(st);
        return rc;
    }
#endif
    st->t.prepare = cuzk_now() - t0;
    *out = st;
    return CUZK_OK;
}

int prove_compute(prove_state *st, const prove_gpu_grant *grant, cuzk_error *err)
{
    if (!st)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "prove_compute: NULL argument");
    double t0 = cuzk_now();
    int rc = cancelled(st, err);
    if (rc != CUZK_OK)
        return rc;
#if CUZK_HAVE_CUDA
    if (st->gpu >= 0 && (rc = compute_gpu_path(st, grant, err)) != CUZK_OK)
        return rc;
#else
    (void)grant;
#endif
    if (st->gpu < 0) {
        if ((rc = cancelled(st, err)) != CUZK_OK)
            return rc;
        if ((rc = st->core->groth16_prove(&st->in, &st->out)) != CUZK_OK)
            return core_error(st->zk, rc, &st->out, err);
    }
    st->t.compute = cuzk_now() - t0;
    return CUZK_OK;
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

void prove_set_note(prove_state *st, const char *note)
{
    if (st && note)
        snprintf(st->t.device_note, sizeof(st->t.device_note), "%.190s", note);
}

int prove_finalize(prove_state *st, char **proof_json, char **public_json, cuzk_error *err)
{
    if (!st || !proof_json != !public_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "prove_finalize: bad argument");
    const struct cuzk_zkey *zk = st->zk;
    const struct cuzk_wtns *w = st->w;
    double t0 = cuzk_now();
    int rc = CUZK_OK;
#if CUZK_HAVE_CUDA
    if (st->gpu_proved && st->gout)
        finish_gpu(st);
#endif
    fill_timings(&st->t, &st->out);
    if (!st->no_verify) {
        double tv = cuzk_now();
        rc = self_verify(st);
#if CUZK_HAVE_CUDA
        if (rc == CUZK_ERR_INVALID_PROOF && st->gpu_proved && st->auto_device) {
            /* A GPU fault must not cost the caller the proof: the CPU proves
             * again. (A witness that does not satisfy the circuit fails there
             * too, with the message below.) */
            if ((rc = cancelled(st, err)) != CUZK_OK)
                return rc;
            memset(&st->out, 0, sizeof(st->out));
            rc = st->core->groth16_prove(&st->in, &st->out);
            if (rc != CUZK_OK)
                return core_error(zk, rc, &st->out, err);
            fill_timings(&st->t, &st->out);
            snprintf(st->t.device, sizeof(st->t.device), "cpu");
            snprintf(st->t.device_note, sizeof(st->t.device_note),
                     "GPU %d's proof failed its pairing check, so the CPU proved again (please report this)",
                     st->gpu);
            rc = self_verify(st);
        }
#endif
        st->t.verify = cuzk_now() - tv;
        if (rc == CUZK_ERR_INVALID_PROOF) {
            /* the witness or the key: a damaged key (a point off the curve,
             * a coordinate out of range) is found by checking its points,
             * which costs about one proof's MSMs (only on this path) */
            cuzk_error kerr = {0};
            int krc = cuzk_zkey_check(zk, 0, st->in.threads, &kerr);
            if (krc != CUZK_OK)
                return cuzk_error_set(err, krc,
                                      "the proof failed its own verification and was not written: the key is "
                                      "damaged: %.400s",
                                      kerr.message);
            return cuzk_error_set(err, CUZK_ERR_INTERNAL,
                                  "the proof failed its own verification and was not written: is %s a witness for "
                                  "%s (its values do not satisfy the circuit's constraints)? (the key's points are "
                                  "all on the curve%s)",
                                  w->bf.name, zk->bf.name,
                                  zk->kind == ZKEY_KIND_BELLPERSON
                                      ? "; a .params key set up by cuzk before 2026-12-03 has its rows on snarkjs's "
                                        "domain, not bellperson's, and proves nothing: set it up again"
                                      : "");
        }
        if (rc != CUZK_OK)
            return rc;
    }
    if (proof_json) {
        double tj = cuzk_now();
        *proof_json = snarkjs_proof_json(zk->curve, st->out.a, st->out.b, st->out.c);
        *public_json = snarkjs_public_json(w->values + 32, zk->n_public);
        if (!*proof_json || !*public_json) {
            free(*proof_json);
            free(*public_json);
            *proof_json = *public_json = NULL;
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory writing the proof");
        }
        st->t.json = cuzk_now() - tj;
    }
    st->t.finalize = cuzk_now() - t0;
    return CUZK_OK;
}
