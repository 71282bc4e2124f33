/* The proving engine's API (include/cuzk.h "engine"; the design is in
 * engine_impl.h and docs/engine.md): its configuration, the table of jobs,
 * submit, wait, result, cancel and release, the stats, create and destroy.
 * The stages run in workers.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../formats/zkey.h"
#include "../gpu/device.h"
#include "../groth16/timings.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "engine_impl.h"
#include "options.h"
#include "../util/cores.h"

#define ENGINE_MAX_POOL 256 /* threads in one pool */

static char *dup_str(const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

static job *find_job(cuzk_engine *e, unsigned long long id)
{
    for (job *j = e->buckets[id % ENGINE_JOB_BUCKETS]; j; j = j->next_in_bucket)
        if (j->info.id == id)
            return j;
    return NULL;
}

static void unlink_job(cuzk_engine *e, job *j)
{
    job **p = &e->buckets[j->info.id % ENGINE_JOB_BUCKETS];
    while (*p && *p != j)
        p = &(*p)->next_in_bucket;
    if (*p)
        *p = j->next_in_bucket;
}

/* An ended job (its key already let go), with its partitions. */
static void free_job(job *j)
{
    if (!j)
        return;
    for (unsigned k = 0; j->parts && k < j->n_parts; k++)
        free_job(j->parts[k]);
    free(j->parts);
    prove_state_free(j->ps);
    cuzk_wtns_free(j->w); /* before the bytes it maps */
    free(j->key_name);
    free(j->key_circuit);
    free(j->witness_path);
    free(j->witness);
    cuzk_free(j->proof);
    cuzk_free(j->pub);
    free(j->vk);
    free(j);
}

void engine_free_leftovers(cuzk_engine *e, leftovers *l)
{
    prove_state_free(l->ps);
    cuzk_wtns_free(l->w);
    free(l->witness);
    key_cache_free_evicted(e->keys, &l->evicted);
    memset(l, 0, sizeof(*l));
}

static int ended(const job *j)
{
    return j->info.state == CUZK_JOB_DONE || j->info.state == CUZK_JOB_FAILED || j->info.state == CUZK_JOB_CANCELLED;
}

/* A job of several partitions as it stands (under the lock): its
 * partitions' seconds summed (cuzk_job_info's comment). */
static void parent_view(const job *p, cuzk_job_info *out)
{
    *out = p->info;
    cuzk_timings *t = &out->timings;
    memset(t, 0, sizeof(*t));
    out->load = out->ready_wait = out->finalize_wait = out->witness = 0;
    out->queue_wait = p->parts[0]->info.queue_wait;
    out->partitions = p->n_parts;
    out->partitions_ended = p->n_parts - p->parts_left;
    int started = 0, first_open = 1;
    for (unsigned k = 0; k < p->n_parts; k++) {
        const cuzk_job_info *c = &p->parts[k]->info;
        started |= c->state != CUZK_JOB_QUEUED;
        if (first_open && !ended(p->parts[k])) {
            out->stage = c->stage;
            first_open = 0;
        }
        out->load += c->load;
        out->ready_wait += c->ready_wait;
        out->finalize_wait += c->finalize_wait;
        out->witness += c->witness;
        if (c->compute_worker >= 0)
            out->compute_worker = c->compute_worker;
        for (size_t f = 0; f < TIMING_FIELDS; f++)
            *(double *)(void *)((char *)t + timing_fields[f].offset) += timing_value(&c->timings, &timing_fields[f]);
        t->witness_ones += c->timings.witness_ones;
        t->witness_other += c->timings.witness_other;
        t->prepare += c->timings.prepare;
        t->compute += c->timings.compute;
        t->finalize += c->timings.finalize;
        if (!t->device[0])
            memcpy(t->device, c->timings.device, sizeof(t->device));
        if (!t->device_note[0])
            memcpy(t->device_note, c->timings.device_note, sizeof(t->device_note));
    }
    t->total = t->prepare + t->compute + t->finalize;
    if (!ended(p))
        out->state = started ? CUZK_JOB_RUNNING : CUZK_JOB_QUEUED;
}

/* "[" s_0 "," s_1 ... "]" of the partitions' proofs (which 0) or publics
 * (1), malloc'd (cuzk_free frees it); NULL: out of memory. */
static char *parts_array(const job *p, int which)
{
    size_t n = 3;
    for (unsigned k = 0; k < p->n_parts; k++)
        n += strlen(which ? p->parts[k]->pub : p->parts[k]->proof) + 1;
    char *out = malloc(n), *o = out;
    if (!out)
        return NULL;
    *o++ = '[';
    for (unsigned k = 0; k < p->n_parts; k++) {
        const char *x = which ? p->parts[k]->pub : p->parts[k]->proof;
        size_t len = strlen(x);
        if (k)
            *o++ = ',';
        memcpy(o, x, len);
        o += len;
    }
    *o++ = ']';
    *o = 0;
    return out;
}

/* Under the lock: partition j of job p ended. */
static void part_ended(cuzk_engine *e, job *p, const job *j, int state, int status, const char *error)
{
    p->parts_left--;
    if (state == CUZK_JOB_FAILED && p->info.status == CUZK_OK) {
        /* the job has failed: its other partitions stop at their next stage boundary */
        p->info.status = status;
        /* named as the request names it: a generated witness's partition
         * number, else its place in witness_paths */
        snprintf(p->info.error, sizeof(p->info.error), "partition %u: %s", j->generate_witness ? j->partition : j->part,
                 error ? error : "");
        for (unsigned k = 0; k < p->n_parts; k++)
            if (!ended(p->parts[k]))
                atomic_store(&p->parts[k]->cancel, 1);
    }
    if (p->parts_left)
        return;
    int any_cancelled = 0;
    for (unsigned k = 0; k < p->n_parts; k++)
        any_cancelled |= p->parts[k]->info.state == CUZK_JOB_CANCELLED;
    int final = p->info.status != CUZK_OK ? CUZK_JOB_FAILED : any_cancelled ? CUZK_JOB_CANCELLED : CUZK_JOB_DONE;
    if (final == CUZK_JOB_DONE) {
        /* one key for the whole job: a key file replaced while it ran
         * (each partition takes the cached key) fails it */
        for (unsigned k = 1; k < p->n_parts && final == CUZK_JOB_DONE; k++)
            if (p->parts[0]->vk && p->parts[k]->vk && strcmp(p->parts[0]->vk, p->parts[k]->vk)) {
                final = CUZK_JOB_FAILED;
                p->info.status = CUZK_ERR_IO;
                snprintf(p->info.error, sizeof(p->info.error),
                         "the key changed while the job ran (partitions 0 and %u were proved with different keys)", k);
            }
    }
    if (final == CUZK_JOB_DONE) {
        p->proof = parts_array(p, 0);
        p->pub = parts_array(p, 1);
        p->vk = dup_str(p->parts[0]->vk);
        if (!p->proof || !p->pub || (p->parts[0]->vk && !p->vk)) {
            final = CUZK_JOB_FAILED;
            p->info.status = CUZK_ERR_NO_MEMORY;
            snprintf(p->info.error, sizeof(p->info.error), "out of memory for the job's proofs");
        }
    }
    if (final == CUZK_JOB_CANCELLED)
        p->info.status = CUZK_ERR_CANCELLED;
    double t = cuzk_now();
    int first_stage = p->parts[0]->info.ended_in;
    parent_view(p, &p->info);
    p->info.state = final;
    p->info.ended_in = first_stage;
    for (unsigned k = 0; k < p->n_parts; k++) /* where it ended: its last stage reached by a partition */
        if (p->parts[k]->info.ended_in > p->info.ended_in)
            p->info.ended_in = p->parts[k]->info.ended_in;
    p->info.stage = CUZK_STAGE_ENDED;
    p->info.finish_seq = ++e->finish_seq;
    p->info.latency = t - p->t_submit;
}

void engine_end_job(cuzk_engine *e, job *j, int state, int status, const char *error, leftovers *left)
{
    double t = cuzk_now();
    if (j->info.state == CUZK_JOB_RUNNING)
        e->running--;
    e->active--;
    j->info.state = state;
    j->info.status = state == CUZK_JOB_DONE ? CUZK_OK : status;
    if (state == CUZK_JOB_FAILED)
        snprintf(j->info.error, sizeof(j->info.error), "%s", error ? error : "");
    j->info.ended_in = j->info.stage;
    j->info.stage = CUZK_STAGE_ENDED;
    j->info.finish_seq = ++e->finish_seq;
    j->info.latency = t - j->t_submit;
    if (state == CUZK_JOB_DONE) {
        e->done++;
        const cuzk_timings *tm = &j->info.timings;
        e->sum_queue_wait += j->info.queue_wait;
        e->sum_load += j->info.load;
        e->sum_prepare += tm->prepare;
        e->sum_ready_wait += j->info.ready_wait;
        e->sum_compute += tm->compute;
        e->sum_finalize_wait += j->info.finalize_wait;
        e->sum_finalize += tm->finalize;
        e->sum_verify += tm->verify;
        e->sum_latency += j->info.latency;
    } else if (state == CUZK_JOB_FAILED)
        e->failed++;
    else
        e->cancelled++;
    if (j->held_bytes) { /* a prepare worker may take the next job */
        e->job_bytes -= j->held_bytes;
        j->held_bytes = 0;
        pthread_cond_broadcast(&e->prepare_cv);
    }
    key_cache_release(e->keys, j->key, &left->evicted); /* fast: the freeing waits for *left */
    left->ps = j->ps;
    left->w = j->w;
    left->witness = j->witness; /* the bytes are not needed any more */
    j->key = NULL;
    j->ps = NULL;
    j->w = NULL;
    j->witness = NULL;
    if (j->parent)
        part_ended(e, j->parent, j, state, status, error);
    pthread_cond_broadcast(&e->ended);
}

/* The configuration with every default filled in, and the GPUs to prove
 * on. Bounds come from the option table (options.c). */
static int effective_config(const cuzk_engine_config *config, cuzk_engine_config *cfg, int *gpus, cuzk_error *err)
{
    *cfg = (cuzk_engine_config){0};
    *gpus = 0;
    if (config)
        *cfg = *config;
    int rc = engine_options_check(cfg, err);
    if (rc != CUZK_OK)
        return rc;
    if (cfg->workers == 0)
        cfg->workers = 1;
    if (cfg->max_jobs == 0)
        cfg->max_jobs = 1024;
    /* two per GPU: one computes while the other's witness goes up (pre-
     * staging); on the H200, 2^20 proofs/s 31.7 (one worker) -> 34.3 (two,
     * pre-staged) BLS12-381, 53.1 -> 59.1 BN254 (docs/history/benchmarks-log.md,
     * "BLS12-381 Fr's multiplication, pinned uploads, pre-staging") */
    if (cfg->gpu_workers_per_device == 0)
        cfg->gpu_workers_per_device = 2;
    /* With GPUs, compute means the GPU call: workers per GPU. Without
     * (device cpu, no CUDA, no GPU), CPU compute workers. With device gpu
     * and no GPU, jobs fail in prepare saying so, as cuzk_prove does. */
    int count = 0;
    cuzk_error ignored; /* device gpu without one: its jobs fail in prepare, saying so */
    if (device_gpus(cfg->proof.device, &count, &ignored) == CUZK_OK && count > 0)
        *gpus = count < CUZK_ENGINE_MAX_GPUS ? count : CUZK_ENGINE_MAX_GPUS;
    /* a budget for a GPU the engine does not have is a mistake (a typo's
     * GPU number); without GPUs the budgets do nothing and are accepted */
    for (int g = *gpus; *gpus && g < CUZK_ENGINE_MAX_GPUS; g++)
        if (cfg->gpu_memory_budgets[g])
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                                  "engine: a memory budget for GPU %d (gpu_memory_budgets), but the GPUs are "
                                  "numbered 0 to %d",
                                  g, *gpus - 1);
    int compute = *gpus ? *gpus * cfg->gpu_workers_per_device : cfg->workers;
    if (compute > ENGINE_MAX_POOL)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "engine: %d GPUs x %d workers per GPU is more than %d compute workers", *gpus,
                              cfg->gpu_workers_per_device, ENGINE_MAX_POOL);
    if (cfg->prepare_workers == 0)
        cfg->prepare_workers = compute;
    if (cfg->finalize_workers == 0)
        cfg->finalize_workers = 1;
    if (cfg->ready_queue_depth == 0)
        cfg->ready_queue_depth = (unsigned)compute;
    if (cfg->finalize_queue_depth == 0)
        cfg->finalize_queue_depth = 2u * (unsigned)compute;
    /* A GPU prepare (evaluation) takes seconds: done ahead, it overlaps the
     * GPU's work on the job before. A CPU prepare only loads: done ahead,
     * it would only let an early low-priority job pass a later critical
     * one. */
    if (cfg->prepare_ahead == 0)
        cfg->prepare_ahead = *gpus ? (int)cfg->ready_queue_depth : -1;
    /* The cores are shared by the pool doing the CPU's heavy work: the
     * compute workers without a GPU, the prepare workers (evaluation) with. */
    if (cfg->proof.threads == 0) {
        int cores = cpu_cores();
        int sharers = *gpus ? cfg->prepare_workers : cfg->workers;
        cfg->proof.threads = cores > sharers ? (int)(cores / sharers) : 1;
    }
    if (cfg->prepare_ahead < 0)
        cfg->prepare_ahead = 0;
    else if ((unsigned)cfg->prepare_ahead > cfg->ready_queue_depth)
        cfg->prepare_ahead = (int)cfg->ready_queue_depth;
    return CUZK_OK;
}

static const char *const state_names[] = {"queued", "running", "done", "failed", "cancelled"};
_Static_assert(sizeof(state_names) / sizeof(state_names[0]) == CUZK_JOB_CANCELLED + 1, "a name for every job state");

const char *cuzk_job_state_name(int state)
{
    return state >= CUZK_JOB_QUEUED && state <= CUZK_JOB_CANCELLED ? state_names[state] : "unknown";
}

int cuzk_job_state_from_name(const char *name)
{
    for (int s = CUZK_JOB_QUEUED; name && s <= CUZK_JOB_CANCELLED; s++)
        if (!strcmp(name, state_names[s]))
            return s;
    return -1;
}

int cuzk_engine_create(const cuzk_engine_config *config, cuzk_engine **out, cuzk_error *err)
{
    if (!out)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_create: NULL argument");
    *out = NULL;
    cuzk_engine_config cfg;
    int gpus = 0;
    int rc = effective_config(config, &cfg, &gpus, err);
    if (rc != CUZK_OK)
        return rc;
    cuzk_engine *e = calloc(1, sizeof(*e));
    if (!e)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    e->cfg = cfg;
    e->gpus = gpus;
    /* the directories, copied: the caller's may not outlive the engine */
    unsigned nk = cfg.key_dirs ? cfg.n_key_dirs : 0, nw = cfg.witness_dirs ? cfg.n_witness_dirs : 0;
    e->dirs = calloc((size_t)nk + nw + 1, sizeof(char *));
    for (unsigned i = 0; e->dirs && i < nk + nw; i++)
        if (!(e->dirs[i] = dup_str(i < nk ? cfg.key_dirs[i] : cfg.witness_dirs[i - nk]))) {
            for (unsigned k = 0; k < i; k++)
                free(e->dirs[k]);
            free(e->dirs);
            e->dirs = NULL;
        }
    if (!e->dirs) {
        free(e);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    e->key_limits = (file_limits){.within = (const char *const *)e->dirs, .n_within = nk};
    e->witness_limits = (file_limits){.within = (const char *const *)e->dirs + nk, .n_within = nw};
    e->cfg.key_dirs = e->key_limits.within;
    e->cfg.witness_dirs = e->witness_limits.within;
    e->next_id = 1;
    e->t_create = cuzk_now();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->prepare_cv, &ca);
    pthread_cond_init(&e->compute_cv, &ca);
    pthread_cond_init(&e->finalize_cv, &ca);
    pthread_cond_init(&e->ended, &ca);
    pthread_condattr_destroy(&ca);
    rc = gpu_plan_create(gpus, cfg.gpu_memory_budget, !cfg.no_prestage, &e->plan, err);
    for (int g = 0; rc == CUZK_OK && g < gpus; g++)
        rc = gpu_plan_set_budget(e->plan, g, cfg.gpu_memory_budgets[g], err);
    if (rc == CUZK_OK)
        gpu_plan_set_h_copies(e->plan, cfg.gpu_msm_copies);
    if (rc != CUZK_OK ||
        (rc = key_cache_create(cfg.key_cache_bytes, e->plan, cfg.progress, cfg.progress_ctx, &e->keys, err)) != CUZK_OK) {
        cuzk_engine_destroy(e);
        return rc;
    }
    e->n_prepare = cfg.prepare_workers;
    e->n_compute = gpus ? gpus * cfg.gpu_workers_per_device : cfg.workers;
    e->n_finalize = cfg.finalize_workers;
    e->n_workers = e->n_prepare + e->n_compute + e->n_finalize;
    e->workers = calloc((size_t)e->n_workers, sizeof(worker));
    if (!e->workers) {
        cuzk_engine_destroy(e);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    for (int i = 0; i < e->n_workers; i++) {
        worker *w = &e->workers[i];
        w->e = e;
        w->gpu = -1;
        if (i < e->n_prepare) {
            w->pool = POOL_PREPARE;
            w->index = i;
        } else if (i < e->n_prepare + e->n_compute) {
            w->pool = POOL_COMPUTE;
            w->index = i - e->n_prepare;
            /* worker k proves on GPU k mod gpus: the GPUs fill evenly */
            if (gpus)
                w->gpu = w->index % gpus;
        } else {
            w->pool = POOL_FINALIZE;
            w->index = i - e->n_prepare - e->n_compute;
        }
    }
    for (int i = 0; i < e->n_workers; i++) {
        if (pthread_create(&e->workers[i].thread, NULL, engine_worker_main, &e->workers[i]) != 0) {
            cuzk_engine_destroy(e);
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "engine: cannot start worker thread %d", i);
        }
        e->n_started++;
    }
    *out = e;
    return CUZK_OK;
}

void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    /* No worker takes a job from now on. Jobs in a stage end at its end
     * (their worker sees the flag, under this lock, before it would queue
     * them); jobs waiting in a queue end now. */
    e->stopping = 1;
    for (int b = 0; b < ENGINE_JOB_BUCKETS; b++)
        for (job *j = e->buckets[b]; j; j = j->next_in_bucket)
            for (unsigned k = 0; k < (j->n_parts ? j->n_parts : 1); k++) {
                job *x = j->n_parts ? j->parts[k] : j;
                if (x->info.stage == CUZK_STAGE_PREPARE || x->info.stage == CUZK_STAGE_COMPUTE ||
                    x->info.stage == CUZK_STAGE_FINALIZE)
                    atomic_store(&x->cancel, 1);
            }
    pqueue *queues[3] = {&e->q_in, &e->q_ready, &e->q_final};
    leftovers left = {0};
    for (int q = 0; q < 3; q++) {
        pq_node *x;
        while ((x = pq_pop(queues[q]))) {
            engine_end_job(e, PQ_OWNER(x, job, queued), CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, &left);
            /* workers may still be finishing stages: free outside the lock */
            pthread_mutex_unlock(&e->mu);
            engine_free_leftovers(e, &left);
            pthread_mutex_lock(&e->mu);
        }
    }
    pthread_cond_broadcast(&e->prepare_cv);
    pthread_cond_broadcast(&e->compute_cv);
    pthread_cond_broadcast(&e->finalize_cv);
    pthread_cond_broadcast(&e->ended);
    pthread_mutex_unlock(&e->mu);
    if (e->plan)
        gpu_plan_stop(e->plan); /* a job waiting for room on a GPU stops waiting */
    engine_hook(e, NULL, CUZK_STAGE_ENDED, CUZK_HOOK_STOP);
    for (int i = 0; i < e->n_started; i++)
        pthread_join(e->workers[i].thread, NULL);
    free(e->workers);
    for (int b = 0; b < ENGINE_JOB_BUCKETS; b++)
        while (e->buckets[b]) {
            job *n = e->buckets[b]->next_in_bucket;
            free_job(e->buckets[b]);
            e->buckets[b] = n;
        }
    key_cache_destroy(e->keys); /* before the plan the keys are counted in */
    gpu_plan_destroy(e->plan);
    for (unsigned i = 0; e->dirs && i < e->key_limits.n_within + e->witness_limits.n_within; i++)
        free(e->dirs[i]);
    free(e->dirs);
    pthread_cond_destroy(&e->prepare_cv);
    pthread_cond_destroy(&e->compute_cv);
    pthread_cond_destroy(&e->finalize_cv);
    pthread_cond_destroy(&e->ended);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

int cuzk_engine_key_files(cuzk_engine *e, const char *key_id, char **path, char **r1cs_path, cuzk_error *err)
{
    if (!e || !key_id || !path || !r1cs_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_key_files: NULL argument");
    char *p, *c;
    int rc = key_cache_files(e->keys, key_id, &p, &c);
    if (rc == CUZK_ERR_NOT_FOUND)
        return cuzk_error_set(err, rc, "no key was loaded under the id '%.100s'", key_id);
    if (rc != CUZK_OK)
        return cuzk_error_set(err, rc, "out of memory");
    /* cuzk_free's memory: the library's malloc */
    *path = p;
    *r1cs_path = c;
    return CUZK_OK;
}

int cuzk_engine_key_load(cuzk_engine *e, const char *key_id, const char *path, cuzk_error *err)
{
    if (!e || !key_id || !*key_id || !path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_key_load: NULL or empty argument");
    return key_cache_load(e->keys, key_id, path, NULL, err);
}

int cuzk_engine_key_load_params(cuzk_engine *e, const char *key_id, const char *params_path, const char *r1cs_path,
                                cuzk_error *err)
{
    if (!e || !key_id || !*key_id || !params_path || !r1cs_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_key_load_params: NULL or empty argument");
    return key_cache_load(e->keys, key_id, params_path, r1cs_path, err);
}

int cuzk_engine_key_evict(cuzk_engine *e, const char *key, cuzk_error *err)
{
    if (!e || !key)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_key_evict: NULL argument");
    return key_cache_evict(e->keys, key, err);
}

int cuzk_engine_key_known(cuzk_engine *e, const char *key_id)
{
    return e && key_id && key_cache_known(e->keys, key_id);
}

/* A job from the request's key and witness fields, its witness
 * witness_path or wtns (a partition of a job of several: the request's
 * entries for it). NULL: out of memory. */
static job *new_job(cuzk_engine *e, const cuzk_job_request *req, const engine_job_extra *x, const char *witness_path,
                    const cuzk_wtns *wtns)
{
    job *j = calloc(1, sizeof(*j));
    if (!j)
        return NULL;
    atomic_init(&j->cancel, 0);
    j->engine = e;
    if (x)
        j->x = *x;
    /* a caller's key is named by its file in the messages */
    j->key_name = dup_str(req->key_id ? req->key_id : req->key_path ? req->key_path : j->x.key->bf.name);
    j->key_is_id = req->key_id != NULL;
    j->key_circuit = req->r1cs_path ? dup_str(req->r1cs_path) : NULL;
    j->witness_path = dup_str(witness_path);
    j->confine = req->confine;
    /* the job's own options, or the engine's; its threads the engine's
     * share when it names none */
    j->opts = req->options ? *req->options : e->cfg.proof;
    if (j->opts.threads == 0)
        j->opts.threads = e->cfg.proof.threads;

    j->gpu_pin = req->options && req->options->device == CUZK_DEVICE_GPU ? req->options->gpu : -1;
    j->generate_witness = req->generate_witness != 0;
    j->partition = req->partition;
    j->witness_wtns = wtns;
    if (req->witness) {
        j->witness = malloc(req->witness_len ? req->witness_len : 1);
        if (j->witness)
            memcpy(j->witness, req->witness, req->witness_len);
        j->witness_len = req->witness_len;
    }
    if (!j->key_name || (witness_path && !j->witness_path) || (req->witness && !j->witness) ||
        (req->r1cs_path && !j->key_circuit)) {
        free_job(j);
        return NULL;
    }
    j->info.priority = req->priority;
    j->queued.priority = req->priority;
    j->info.state = CUZK_JOB_QUEUED;
    j->info.stage = CUZK_STAGE_QUEUED;
    j->info.ended_in = CUZK_STAGE_QUEUED;
    j->info.compute_worker = -1;
    j->info.partitions = 1;
    return j;
}

int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, unsigned long long *id, cuzk_error *err)
{
    return engine_submit(e, req, NULL, id, err);
}

int engine_submit(cuzk_engine *e, const cuzk_job_request *req, const engine_job_extra *x, unsigned long long *id,
                  cuzk_error *err)
{
    if (!e || !req || !id)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_submit: NULL argument");
    *id = 0;
    if (x && (x->key || x->make_witness || x->eval_a) && req->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a job of the library's is one proof");
    if (x && !x->eval_a != !x->eval_b)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "evaluations: give both a and b");
    if (!!req->key_path + !!req->key_id + !!(x && x->key) != 1)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a job names its key by key_path or by key_id (one)");
    if (req->r1cs_path && !req->key_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "r1cs_path goes with a key_path (a key id's circuit is given at its load)");
    if (!!req->witness_path + !!req->witness + !!req->generate_witness + !!req->witness_wtns +
            !!req->witness_paths + !!req->partition_wtns + !!(x && x->make_witness) != 1)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "a job gives its witness as witness_path, witness bytes, witness_wtns, "
                              "witness_paths, partition_wtns or generate_witness (one)");
    if (req->priority < CUZK_PRIORITY_LOW || req->priority > CUZK_PRIORITY_CRITICAL)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "priority must be 0 (low) to 3 (critical), got %d",
                              req->priority);
    unsigned parts = req->partitions ? req->partitions : 1;
    if (parts > CUZK_JOB_MAX_PARTITIONS)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "partitions expects 1 to %u, got %u",
                              CUZK_JOB_MAX_PARTITIONS, parts);
    if ((req->witness_paths || req->partition_wtns) && !req->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s goes with partitions (their count)",
                              req->witness_paths ? "witness_paths" : "partition_wtns");
    if (parts > 1 && !req->generate_witness && !req->witness_paths && !req->partition_wtns)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "a job of %u partitions gives its witnesses as witness_paths or partition_wtns (one a "
                              "partition) or generate_witness",
                              parts);
    if (req->generate_witness && (unsigned long long)req->partition + parts > UINT32_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "partitions %u to %u: past the last partition number",
                              req->partition, req->partition + (parts - 1));
    for (unsigned k = 0; (req->witness_paths || req->partition_wtns) && k < parts; k++)
        if (req->witness_paths ? !req->witness_paths[k] : !req->partition_wtns[k])
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s[%u] is NULL (%u partitions)",
                                  req->witness_paths ? "witness_paths" : "partition_wtns", k, parts);
    if (req->key_id && !key_cache_known(e->keys, req->key_id))
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no key was loaded under the id '%s'", req->key_id);
    if (req->options) { /* checked as the engine's own are (options.c) */
        cuzk_engine_config as = {.proof = *req->options};
        int rc = engine_options_check(&as, err);
        if (rc != CUZK_OK)
            return rc;
        if (req->options->device == CUZK_DEVICE_GPU && (req->options->gpu < 0 || req->options->gpu >= e->gpus))
            return cuzk_error_set(err, e->gpus ? CUZK_ERR_INVALID_ARGUMENT : CUZK_ERR_NO_DEVICE,
                                  "options: GPU %d asked for, but the engine proves on %d GPU%s",
                                  req->options->gpu, e->gpus, e->gpus == 1 ? "" : "s");
    }
    int split = req->partitions > 0; /* a parent and its partitions */
    job *j = new_job(e, req, x, split ? NULL : req->witness_path, split ? NULL : req->witness_wtns);
    if (j && split) {
        j->generate_witness = 0;
        j->parts = calloc(parts, sizeof(*j->parts));
        j->n_parts = j->parts_left = j->parts ? parts : 0;
        for (unsigned k = 0; j->parts && k < parts; k++) {
            job *c = new_job(e, req, NULL, req->witness_paths ? req->witness_paths[k] : NULL,
                             req->partition_wtns ? req->partition_wtns[k] : NULL);
            if (!c)
                break;
            c->parent = j;
            c->part = k;
            c->partition = req->partition + k;
            j->parts[k] = c;
        }
        if (!j->parts || !j->parts[parts - 1]) {
            free_job(j);
            j = NULL;
        }
    }
    if (!j)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    j->info.partitions = parts;
    pthread_mutex_lock(&e->mu);
    int rc = CUZK_OK;
    if (e->stopping)
        rc = cuzk_error_set(err, CUZK_ERR_BUSY, "the engine is shutting down");
    else if (e->active + parts > e->cfg.max_jobs)
        rc = parts == 1 ? cuzk_error_set(err, CUZK_ERR_BUSY, "%u jobs are queued or running (the limit): retry later",
                                         e->active)
                        : cuzk_error_set(err, CUZK_ERR_BUSY,
                                         "%u proofs are queued or running, and the limit is %u: no room for %u "
                                         "partitions; retry later",
                                         e->active, e->cfg.max_jobs, parts);
    if (rc != CUZK_OK) {
        pthread_mutex_unlock(&e->mu);
        free_job(j);
        return rc;
    }
    j->info.id = e->next_id++;
    j->t_submit = j->t_queued = cuzk_now();
    j->next_in_bucket = e->buckets[j->info.id % ENGINE_JOB_BUCKETS];
    e->buckets[j->info.id % ENGINE_JOB_BUCKETS] = j;
    if (!split) {
        pq_push(&e->q_in, &j->queued);
        e->active++;
    }
    for (unsigned k = 0; k < j->n_parts; k++) { /* in order: FIFO within the priority */
        job *c = j->parts[k];
        c->info.id = j->info.id;
        c->t_submit = c->t_queued = j->t_submit;
        pq_push(&e->q_in, &c->queued);
        e->active++;
    }
    *id = j->info.id;
    pthread_cond_broadcast(&e->prepare_cv);
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

/* Locks the engine and finds a job; *rc is CUZK_ERR_NOT_FOUND (with the
 * message) when there is none. The caller unlocks either way. */
static job *lock_job(cuzk_engine *e, unsigned long long id, int *rc, cuzk_error *err)
{
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, id);
    *rc = j ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job %llu", id);
    return j;
}

int cuzk_engine_wait(cuzk_engine *e, unsigned long long id, double timeout, cuzk_job_info *info, cuzk_error *err)
{
    if (!e || !info)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_wait: NULL argument");
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline); /* the condition variables' clock */
    if (timeout > 0) {
        double whole = (double)(long long)timeout;
        deadline.tv_sec += (time_t)whole;
        deadline.tv_nsec += (long)((timeout - whole) * 1e9);
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
    }
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, id);
    while (j && !ended(j) && timeout != 0) {
        int w = timeout < 0 ? pthread_cond_wait(&e->ended, &e->mu)
                            : pthread_cond_timedwait(&e->ended, &e->mu, &deadline);
        j = find_job(e, id); /* released meanwhile? */
        if (w != 0)
            break; /* timed out */
    }
    if (!j) {
        pthread_mutex_unlock(&e->mu);
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job %llu", id);
    }
    if (j->n_parts && !ended(j))
        parent_view(j, info);
    else
        *info = j->info;
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

int cuzk_engine_partition_info(cuzk_engine *e, unsigned long long id, unsigned k, cuzk_job_info *info,
                               cuzk_error *err)
{
    if (!e || !info)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_partition_info: NULL argument");
    int rc;
    job *j = lock_job(e, id, &rc, err);
    if (j && k >= (j->n_parts ? j->n_parts : 1))
        rc = cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "job %llu has %u partition%s: no partition %u", id,
                            j->n_parts ? j->n_parts : 1, j->n_parts > 1 ? "s" : "", k);
    else if (j)
        *info = j->n_parts ? j->parts[k]->info : j->info;
    pthread_mutex_unlock(&e->mu);
    return rc;
}

/* Under the lock: CUZK_OK when job j (NULL: none) has a result to give,
 * else why not. */
static int result_ready(const job *j, unsigned long long id, int rc, cuzk_error *err)
{
    if (!j)
        return rc; /* lock_job said so */
    if (!ended(j))
        return cuzk_error_set(err, CUZK_ERR_BUSY, "job %llu has not finished", id);
    if (j->info.state == CUZK_JOB_CANCELLED)
        return cuzk_error_set(err, CUZK_ERR_CANCELLED, "job %llu was cancelled", id);
    if (j->info.state == CUZK_JOB_FAILED)
        return cuzk_error_set(err, j->info.status, "%s", j->info.error);
    return CUZK_OK;
}

int engine_result_out(cuzk_engine *e, unsigned long long id, core_prove_out *out, cuzk_timings *t, cuzk_error *err)
{
    int rc;
    job *j = lock_job(e, id, &rc, err);
    if ((rc = result_ready(j, id, rc, err)) == CUZK_OK) {
        *out = j->out;
        if (t)
            *t = j->info.timings;
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int engine_wait_computed(cuzk_engine *e, unsigned long long id, cuzk_job_info *info, cuzk_error *err)
{
    pthread_mutex_lock(&e->mu);
    job *j = find_job(e, id);
    while (j && !ended(j) && j->info.stage < CUZK_STAGE_FINALIZE_WAIT) {
        pthread_cond_wait(&e->ended, &e->mu);
        j = find_job(e, id);
    }
    if (j)
        *info = j->info;
    pthread_mutex_unlock(&e->mu);
    return j ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job %llu", id);
}

int cuzk_engine_result(cuzk_engine *e, unsigned long long id, char **proof_json, char **public_json, cuzk_error *err)
{
    if (!e || !proof_json || !public_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_result: NULL argument");
    *proof_json = *public_json = NULL;
    int rc;
    job *j = lock_job(e, id, &rc, err);
    if ((rc = result_ready(j, id, rc, err)) == CUZK_OK) {
        *proof_json = dup_str(j->proof);
        *public_json = dup_str(j->pub);
        if (!*proof_json || !*public_json) {
            free(*proof_json);
            free(*public_json);
            *proof_json = *public_json = NULL;
            rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        }
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int cuzk_engine_result_bellperson(cuzk_engine *e, unsigned long long id, unsigned char **out, size_t *len,
                                  cuzk_error *err)
{
    if (!e || !out || !len)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_result_bellperson: NULL argument");
    *out = NULL;
    *len = 0;
    /* the partitions' proof.json texts, copied under the lock, converted without it */
    int rc;
    unsigned n = 0;
    char **texts = NULL;
    job *j = lock_job(e, id, &rc, err);
    if ((rc = result_ready(j, id, rc, err)) == CUZK_OK) {
        n = j->n_parts ? j->n_parts : 1;
        if ((texts = calloc(n, sizeof(char *))))
            for (unsigned k = 0; k < n; k++)
                texts[k] = dup_str(j->n_parts ? j->parts[k]->proof : j->proof);
    }
    pthread_mutex_unlock(&e->mu);
    unsigned char *bytes = rc == CUZK_OK ? malloc((size_t)n * CUZK_BELLPERSON_PROOF_BYTES) : NULL;
    if (rc == CUZK_OK && (!texts || !bytes))
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    for (unsigned k = 0; rc == CUZK_OK && k < n; k++) {
        if (!texts[k])
            rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        else if ((rc = cuzk_proof_to_bellperson(texts[k], strlen(texts[k]),
                                                bytes + (size_t)k * CUZK_BELLPERSON_PROOF_BYTES, err)) != CUZK_OK &&
                 n > 1) {
            char m[sizeof(err->message)];
            snprintf(m, sizeof(m), "%s", err->message);
            cuzk_error_set(err, rc, "partition %u: %s", k, m);
        }
    }
    for (unsigned k = 0; texts && k < n; k++)
        free(texts[k]);
    free(texts);
    if (rc != CUZK_OK) {
        free(bytes);
        return rc;
    }
    *out = bytes;
    *len = (size_t)n * CUZK_BELLPERSON_PROOF_BYTES;
    return CUZK_OK;
}

int cuzk_engine_result_vk(cuzk_engine *e, unsigned long long id, char **vk_json, cuzk_error *err)
{
    if (!e || !vk_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_result_vk: NULL argument");
    *vk_json = NULL;
    int rc;
    job *j = lock_job(e, id, &rc, err);
    if (!j) {
        /* rc and err say so */
    } else if (!ended(j) || j->info.state != CUZK_JOB_DONE)
        rc = cuzk_error_set(err, ended(j) ? CUZK_ERR_NOT_FOUND : CUZK_ERR_BUSY, "job %llu %s", id,
                            ended(j) ? "has no proof" : "has not finished");
    else if (!j->vk || !(*vk_json = dup_str(j->vk)))
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "job %llu: out of memory for its verification key", id);
    pthread_mutex_unlock(&e->mu);
    return rc;
}

/* Under the lock: cancels one queued or running job (not a parent): it
 * ends now when it waits in a queue (its data to *left), else its worker
 * ends it at the end of its stage. Returns whether the GPU plan should be
 * woken (it may be waiting for room). */
static int cancel_one(cuzk_engine *e, job *j, leftovers *left)
{
    if (j->info.stage == CUZK_STAGE_QUEUED && pq_remove(&e->q_in, &j->queued))
        engine_end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, left);
    else if (j->info.stage == CUZK_STAGE_READY && pq_remove(&e->q_ready, &j->queued)) {
        engine_end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, left);
        pthread_cond_broadcast(&e->prepare_cv);
    } else if (j->info.stage == CUZK_STAGE_FINALIZE_WAIT && pq_remove(&e->q_final, &j->queued)) {
        engine_end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, left);
        pthread_cond_broadcast(&e->compute_cv);
    } else {
        atomic_store(&j->cancel, 1);
        return 1;
    }
    return 0;
}

int cuzk_engine_cancel(cuzk_engine *e, unsigned long long id, cuzk_error *err)
{
    if (!e)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_cancel: NULL argument");
    int rc;
    leftovers left = {0};
    int wake_plan = 0;
    job *j = lock_job(e, id, &rc, err);
    if (j && !ended(j) && !j->n_parts)
        wake_plan = cancel_one(e, j, &left);
    /* a job of several partitions: each of them, the lock let go to free
     * one's data; the job is looked up again after (its last partition may
     * have ended it meanwhile, and a release freed it) */
    for (unsigned k = 0; j && k < j->n_parts; k++) {
        if (ended(j->parts[k]))
            continue;
        wake_plan |= cancel_one(e, j->parts[k], &left);
        pthread_mutex_unlock(&e->mu);
        engine_free_leftovers(e, &left);
        pthread_mutex_lock(&e->mu);
        j = find_job(e, id);
    }
    pthread_mutex_unlock(&e->mu);
    if (wake_plan)
        gpu_plan_wake(e->plan);
    engine_free_leftovers(e, &left);
    return rc;
}

int cuzk_engine_release(cuzk_engine *e, unsigned long long id, cuzk_error *err)
{
    if (!e)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_release: NULL argument");
    int rc;
    job *j = lock_job(e, id, &rc, err);
    if (!j) {
        /* rc and err say so */
    } else if (!ended(j))
        rc = cuzk_error_set(err, CUZK_ERR_BUSY, "job %llu has not ended: cancel it first", id);
    else
        unlink_job(e, j);
    pthread_mutex_unlock(&e->mu);
    if (rc == CUZK_OK)
        free_job(j);
    return rc;
}

void cuzk_engine_get_stats(cuzk_engine *e, cuzk_engine_stats *s)
{
    memset(s, 0, sizeof(*s));
    if (!e)
        return;
    key_cache_stats(e->keys, &s->keys_cached, &s->key_bytes);
    gpu_plan_stats(e->plan, s);
    pthread_mutex_lock(&e->mu);
    double t = cuzk_now();
    for (int p = 0; p < 4; p++)
        s->queued[p] = pq_count(&e->q_in, p);
    s->running = e->running;
    s->done = e->done;
    s->failed = e->failed;
    s->cancelled = e->cancelled;
    s->uptime = t - e->t_create;
    s->workers = e->n_compute;
    s->prepare_workers = e->n_prepare;
    s->finalize_workers = e->n_finalize;
    s->ready_queue_depth = e->cfg.ready_queue_depth;
    s->finalize_queue_depth = e->cfg.finalize_queue_depth;
    s->prepare_ahead = e->cfg.prepare_ahead;
    s->preparing = e->preparing;
    s->ready = e->q_ready.n;
    s->computing = e->computing;
    s->finalize_waiting = e->q_final.n;
    s->finalizing = e->finalizing;
    s->ready_max = e->q_ready.max_seen;
    s->finalize_queue_max = e->q_final.max_seen;
    s->gpus = e->gpus;
    s->job_bytes = e->job_bytes;
    s->job_bytes_max = e->job_bytes_max;
    double pool[3] = {0};
    for (int i = 0; i < e->n_workers; i++) {
        const worker *w = &e->workers[i];
        double b = w->busy + (w->busy_since > 0 ? t - w->busy_since : 0);
        pool[w->pool] += b;
        if (w->pool == POOL_COMPUTE && w->index < CUZK_ENGINE_MAX_WORKERS) {
            s->compute_worker_busy[w->index] = s->uptime > 0 ? b / s->uptime : 0;
            s->compute_worker_gpu[w->index] = w->gpu;
        }
    }
    if (s->uptime > 0) {
        s->prepare_busy = pool[POOL_PREPARE] / (s->uptime * e->n_prepare);
        s->worker_busy = pool[POOL_COMPUTE] / (s->uptime * e->n_compute);
        s->finalize_busy = pool[POOL_FINALIZE] / (s->uptime * e->n_finalize);
        for (int g = 0; g < e->gpus; g++)
            s->gpu_busy[g] = (e->gpu_busy[g] + (e->gpu_active[g] ? t - e->gpu_since[g] : 0)) / s->uptime;
    }
    if (e->done) {
        double n = (double)e->done;
        s->mean_queue_wait = e->sum_queue_wait / n;
        s->mean_load = e->sum_load / n;
        s->mean_prepare = e->sum_prepare / n;
        s->mean_ready_wait = e->sum_ready_wait / n;
        s->mean_compute = e->sum_compute / n;
        s->mean_finalize_wait = e->sum_finalize_wait / n;
        s->mean_finalize = e->sum_finalize / n;
        s->mean_verify = e->sum_verify / n;
        s->mean_latency = e->sum_latency / n;
    }
    pthread_mutex_unlock(&e->mu);
}
