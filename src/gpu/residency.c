/* Each key's copy on each GPU (residency.h): a registry of the keys that
 * have, or had, a copy somewhere, under one lock. No upload, free or CUDA
 * call runs under the lock: a slot in UPLOADING or DROPPING stands for the
 * work in progress, and whoever wants that slot waits on `changed`. */
#include "residency.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../cuda/gpu.h"
#include "../core/core.h"
#include "../formats/zkey.h"
#include "../core/matrices.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "../util/size_text.h"

/* Device memory left to the driver and other processes when no plan gives
 * a budget: the free memory less this. */
#define RESIDENCY_HEADROOM ((uint64_t)1 << 30)

int residency_fits(const residency_footprint *fp, uint64_t room, int *with_matrices, unsigned *h_copies)
{
    *with_matrices = fp->matrix_bytes && fp->key_bytes + fp->matrix_bytes + fp->work_bytes <= room;
    const uint64_t need =
        fp->key_bytes + fp->work_bytes + (*with_matrices ? fp->matrix_bytes + fp->witness_bytes : 0);
    if (h_copies) {
        *h_copies = 1;
        if (fp->h_copies_max > 1 && fp->h_copy_bytes && need < room) {
            uint64_t more = (room - need) / 2 / fp->h_copy_bytes;
            *h_copies = 1 + (more < fp->h_copies_max - 1 ? (unsigned)more : fp->h_copies_max - 1);
        }
    }
    return fp->key_bytes + fp->work_bytes <= room;
}

uint64_t residency_h_copies_bytes(const residency_footprint *fp, unsigned h_copies)
{
    return h_copies > 1 ? (uint64_t)(h_copies - 1) * fp->h_copy_bytes : 0;
}

#if CUZK_HAVE_CUDA

typedef struct copy_slot {
    residency_state state;
    cuzk_gpu_key *copy; /* RESIDENT, DROPPING */
    unsigned users;     /* proofs holding it (residency_acquire .. residency_release) */
    int rc;             /* FAILED: its status and message */
    char error[sizeof(((cuzk_error *)0)->message)];
} copy_slot;

typedef struct key_copies {
    const struct cuzk_zkey *zk;
    copy_slot slot[RESIDENCY_MAX_GPUS];
    struct key_copies *next;
} key_copies;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER; /* a slot left UPLOADING or DROPPING, or lost a user */
static key_copies *keys;

static key_copies *find(const struct cuzk_zkey *zk)
{
    for (key_copies *k = keys; k; k = k->next)
        if (k->zk == zk)
            return k;
    return NULL;
}

static int busy(residency_state s)
{
    return s == RESIDENCY_UPLOADING || s == RESIDENCY_DROPPING;
}

static int gpu_ok(int gpu)
{
    return gpu >= 0 && gpu < RESIDENCY_MAX_GPUS;
}

/* What the GPU layer needs of a key (with its matrices or not). The
 * matrices are the key's as its proofs' prepare made them (key_matrices,
 * src/groth16/key.c, before any proof reaches a GPU); asking what a key
 * takes never builds them: a key without them goes up without them. */
static cuzk_gpu_key_in key_input(const struct cuzk_zkey *zk, int gpu, int with_matrices, int pinned,
                                  unsigned h_copies)
{
    const cs_matrices *mat = with_matrices ? zk->mat : NULL;
    return (cuzk_gpu_key_in){
        .curve = zk->curve->id,
        .device = gpu,
        .n_vars = zk->n_vars,
        .n_public = zk->n_public,
        .domain_size = zk->domain_size,
        .pts_a = zk->a,
        .pts_b1 = zk->b1,
        .pts_b2 = zk->b2,
        .pts_c = zk->c,
        .pts_h = zk->h,
        .a_vars = zk->kind == ZKEY_KIND_BELLPERSON ? zk->a_vars : NULL,
        .b_vars = zk->b_vars,
        .n_a = zk->n_a,
        .n_b = zk->n_b,
        .mat = mat,
        .pinned_upload = pinned,
        .h_copies = h_copies,
    };
}

void residency_footprint_of(const struct cuzk_zkey *zk, int gpu, int cpu_eval, uint64_t msm_chunk,
                            residency_footprint *fp)
{
    memset(fp, 0, sizeof(*fp));
    cuzk_gpu_key_in in = key_input(zk, gpu, !cpu_eval, 0, 0);
    cuzk_gpu_key_footprint(&in, msm_chunk, &fp->key_bytes, &fp->matrix_bytes, &fp->work_bytes);
    fp->h_copies_max = cuzk_gpu_key_h_copies_max(&in, &fp->h_copy_bytes);
    fp->witness_bytes = (uint64_t)zk->n_vars * 32;
    fp->state = RESIDENCY_ABSENT;
    if (!gpu_ok(gpu))
        return;
    pthread_mutex_lock(&lock);
    key_copies *k = find(zk);
    if (k) {
        const copy_slot *s = &k->slot[gpu];
        fp->state = s->state;
        if (s->state == RESIDENCY_RESIDENT) {
            fp->resident_bytes = cuzk_gpu_key_bytes(s->copy);
            /* a, b staged too when the proof brings them */
            fp->stage_bytes = cuzk_gpu_stage_bytes(s->copy, cpu_eval || !cuzk_gpu_key_evaluates(s->copy));
        }
    }
    pthread_mutex_unlock(&lock);
}

static void upload_progress(void *ctx, uint64_t done, uint64_t total)
{
    progress_report(ctx, done, total);
}

/* H's shifted copies as the GPU made them, checked on the CPU through
 * their sums: copy j's is 2^c times copy j - 1's (the GPU summed each copy
 * with additions, while it made the copies by doublings), so a copy the
 * GPU got wrong fails here instead of giving wrong proofs. */
static int check_h_copies(const struct cuzk_zkey *zk, int gpu, const cuzk_gpu_key *copy, cuzk_error *err)
{
    unsigned copies = 1, c = 0;
    unsigned char(*sums)[384] = calloc(CUZK_GPU_MAX_WINDOWS, 384);
    if (!sums)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    cuzk_gpu_key_h_copies(copy, &copies, &c, sums);
    int rc = CUZK_OK;
    for (unsigned j = 1; j < copies && rc == CUZK_OK; j++) {
        unsigned char prev[2][384], want[192], got[192];
        memset(prev[0], 0, sizeof(prev[0])); /* infinity: window 0 of 2^c * sums[j - 1] */
        memcpy(prev[1], sums[j - 1], sizeof(prev[1]));
        memset(want, 0, sizeof(want));
        memset(got, 0, sizeof(got));
        cuzk_core()->msm_combine(zk->curve->id, 1, prev[0], sizeof(prev[0]), 2, c, NULL, want);
        cuzk_core()->msm_combine(zk->curve->id, 1, sums[j], sizeof(sums[j]), 1, c, NULL, got);
        if (memcmp(want, got, sizeof(want)) != 0)
            rc = cuzk_error_set(err, CUZK_ERR_CUDA,
                                "GPU %d made shifted copy %u of H's points wrong (its sum is not 2^%u times "
                                "copy %u's): a GPU fault; the key was not kept",
                                gpu, j, c, j - 1);
    }
    free(sums);
    return rc;
}

/* Outside the lock: the upload of a slot this thread set UPLOADING. */
static int upload(const struct cuzk_zkey *zk, const residency_request *req, cuzk_gpu_key **copy, cuzk_error *err)
{
    int with_matrices = !req->cpu_eval && req->with_matrices;
    unsigned h_copies = req->h_copies;
    if (!req->planned) {
        /* no plan: the GPU's free memory now decides (device-global, but
         * asked only at a key's first upload, before its proofs run) */
        uint64_t free_b = 0, total_b = 0;
        cuzk_gpu_msg m = {{0}};
        int rc = cuzk_gpu_memory(req->gpu, &free_b, &total_b, &m);
        if (rc != CUZK_OK)
            return cuzk_error_set(err, rc, "%s", m.text);
        residency_footprint fp;
        residency_footprint_of(zk, req->gpu, req->cpu_eval, 0, &fp);
        uint64_t room = free_b > RESIDENCY_HEADROOM ? free_b - RESIDENCY_HEADROOM : 0;
        if (!residency_fits(&fp, room, &with_matrices, &h_copies))
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY,
                                  "the key (%s) and one proof's working set (%s) do not fit in the %s of the GPU's "
                                  "free memory (less 1 GiB)",
                                  cuzk_size_str(fp.key_bytes).s, cuzk_size_str(fp.work_bytes).s,
                                  cuzk_size_str(room).s);
    }
    cuzk_gpu_key_in in = key_input(zk, req->gpu, with_matrices, req->pinned, h_copies);
    if (req->progress && req->progress->fn) {
        in.progress = upload_progress;
        in.progress_ctx = (void *)req->progress;
    }
    cuzk_gpu_msg m = {{0}};
    int rc = cuzk_gpu_key_upload(&in, copy, &m);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "%s", m.text);
    if ((rc = check_h_copies(zk, req->gpu, *copy, err)) != CUZK_OK) {
        cuzk_gpu_key_free(*copy);
        *copy = NULL;
    }
    return rc;
}

int residency_acquire(const struct cuzk_zkey *zk, const residency_request *req, struct cuzk_gpu_key **copy,
                      double *upload_seconds, cuzk_error *err)
{
    *copy = NULL;
    if (upload_seconds)
        *upload_seconds = 0;
    if (!gpu_ok(req->gpu))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "GPU %d: at most %d GPUs are supported", req->gpu,
                              RESIDENCY_MAX_GPUS);
    pthread_mutex_lock(&lock);
    key_copies *k = find(zk);
    if (!k) {
        if (!(k = calloc(1, sizeof(*k)))) {
            pthread_mutex_unlock(&lock);
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        }
        k->zk = zk;
        k->next = keys;
        keys = k;
    }
    copy_slot *s = &k->slot[req->gpu];
    while (busy(s->state))
        pthread_cond_wait(&changed, &lock);
    if (s->state == RESIDENCY_RESIDENT) {
        s->users++;
        *copy = s->copy;
        pthread_mutex_unlock(&lock);
        return CUZK_OK;
    }
    if (s->state == RESIDENCY_FAILED) {
        int rc = cuzk_error_set(err, s->rc, "%s", s->error);
        pthread_mutex_unlock(&lock);
        return rc;
    }
    s->state = RESIDENCY_UPLOADING; /* this thread uploads; others wait */
    pthread_mutex_unlock(&lock);

    double t0 = cuzk_now();
    cuzk_gpu_key *got = NULL;
    cuzk_error e = {0};
    int rc = upload(zk, req, &got, &e);

    pthread_mutex_lock(&lock);
    if (rc == CUZK_OK) {
        s->state = RESIDENCY_RESIDENT;
        s->copy = got;
        s->users = 1;
        *copy = got;
    } else if (!req->planned) {
        s->state = RESIDENCY_FAILED;
        s->rc = rc;
        snprintf(s->error, sizeof(s->error), "%s", e.message);
    } else
        s->state = RESIDENCY_ABSENT; /* the plan may try again when there is room */
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "%s", e.message);
    if (upload_seconds)
        *upload_seconds = cuzk_now() - t0;
    return CUZK_OK;
}

void residency_release(const struct cuzk_zkey *zk, int gpu)
{
    if (!gpu_ok(gpu))
        return;
    pthread_mutex_lock(&lock);
    key_copies *k = find(zk);
    if (k && k->slot[gpu].users) {
        k->slot[gpu].users--;
        pthread_cond_broadcast(&changed);
    }
    pthread_mutex_unlock(&lock);
}

static residency_state state_of(const struct cuzk_zkey *zk, int gpu, int *evaluates, int settled)
{
    if (evaluates)
        *evaluates = 0;
    if (!gpu_ok(gpu))
        return RESIDENCY_ABSENT;
    pthread_mutex_lock(&lock);
    key_copies *k = find(zk);
    while (settled && k && busy(k->slot[gpu].state))
        pthread_cond_wait(&changed, &lock);
    residency_state st = k ? k->slot[gpu].state : RESIDENCY_ABSENT;
    if (st == RESIDENCY_RESIDENT && evaluates)
        *evaluates = cuzk_gpu_key_evaluates(k->slot[gpu].copy);
    pthread_mutex_unlock(&lock);
    return st;
}

residency_state residency_state_of(const struct cuzk_zkey *zk, int gpu, int *evaluates)
{
    return state_of(zk, gpu, evaluates, 0);
}

residency_state residency_state_settled(const struct cuzk_zkey *zk, int gpu, int *evaluates)
{
    return state_of(zk, gpu, evaluates, 1);
}

int residency_failure(const struct cuzk_zkey *zk, int gpu, cuzk_error *err)
{
    if (!gpu_ok(gpu))
        return CUZK_OK;
    pthread_mutex_lock(&lock);
    key_copies *k = find(zk);
    int rc = CUZK_OK;
    if (k && k->slot[gpu].state == RESIDENCY_FAILED)
        rc = cuzk_error_set(err, k->slot[gpu].rc, "%s", k->slot[gpu].error);
    pthread_mutex_unlock(&lock);
    return rc;
}

uint64_t residency_drop(const struct cuzk_zkey *zk, int gpu)
{
    if (!gpu_ok(gpu))
        return 0;
    pthread_mutex_lock(&lock);
    key_copies *k = find(zk);
    while (k && busy(k->slot[gpu].state))
        pthread_cond_wait(&changed, &lock);
    copy_slot *s = k ? &k->slot[gpu] : NULL;
    if (!s || s->state != RESIDENCY_RESIDENT || s->users) {
        pthread_mutex_unlock(&lock);
        return 0;
    }
    cuzk_gpu_key *gone = s->copy;
    s->state = RESIDENCY_DROPPING;
    pthread_mutex_unlock(&lock);
    uint64_t bytes = cuzk_gpu_key_bytes(gone);
    cuzk_gpu_key_free(gone); /* waits for the GPU's compute lock */
    pthread_mutex_lock(&lock);
    s->state = RESIDENCY_ABSENT;
    s->copy = NULL;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
    return bytes;
}

void residency_forget(const struct cuzk_zkey *zk)
{
    pthread_mutex_lock(&lock);
    key_copies *k = find(zk);
    if (!k) {
        pthread_mutex_unlock(&lock);
        return;
    }
    for (;;) { /* uploads, drops and proofs with its copies end first */
        int waiting = 0;
        for (int g = 0; g < RESIDENCY_MAX_GPUS; g++)
            waiting |= busy(k->slot[g].state) || k->slot[g].users;
        if (!waiting)
            break;
        pthread_cond_wait(&changed, &lock);
    }
    for (key_copies **p = &keys; *p; p = &(*p)->next)
        if (*p == k) {
            *p = k->next;
            break;
        }
    pthread_mutex_unlock(&lock);
    for (int g = 0; g < RESIDENCY_MAX_GPUS; g++)
        if (k->slot[g].state == RESIDENCY_RESIDENT)
            cuzk_gpu_key_free(k->slot[g].copy);
    free(k);
}

#else /* no CUDA: no copies, ever */

void residency_footprint_of(const struct cuzk_zkey *zk, int gpu, int cpu_eval, uint64_t msm_chunk,
                            residency_footprint *fp)
{
    (void)zk, (void)gpu, (void)cpu_eval, (void)msm_chunk;
    memset(fp, 0, sizeof(*fp));
}

int residency_acquire(const struct cuzk_zkey *zk, const residency_request *req, struct cuzk_gpu_key **copy,
                      double *upload_seconds, cuzk_error *err)
{
    (void)zk, (void)req;
    *copy = NULL;
    if (upload_seconds)
        *upload_seconds = 0;
    return cuzk_error_set(err, CUZK_ERR_NO_DEVICE, "this cuzk was built without CUDA");
}

void residency_release(const struct cuzk_zkey *zk, int gpu)
{
    (void)zk, (void)gpu;
}

residency_state residency_state_of(const struct cuzk_zkey *zk, int gpu, int *evaluates)
{
    (void)zk, (void)gpu;
    if (evaluates)
        *evaluates = 0;
    return RESIDENCY_ABSENT;
}

residency_state residency_state_settled(const struct cuzk_zkey *zk, int gpu, int *evaluates)
{
    return residency_state_of(zk, gpu, evaluates);
}

int residency_failure(const struct cuzk_zkey *zk, int gpu, cuzk_error *err)
{
    (void)zk, (void)gpu, (void)err;
    return CUZK_OK;
}

uint64_t residency_drop(const struct cuzk_zkey *zk, int gpu)
{
    (void)zk, (void)gpu;
    return 0;
}

void residency_forget(const struct cuzk_zkey *zk)
{
    (void)zk;
}

#endif
