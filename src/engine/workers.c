/* The engine's worker pools and the stages of a job (engine_impl.h):
 * prepare (CPU: key, witness, and for a GPU the evaluation and witness
 * split), compute (the GPU call within the GPU's memory plan, or the whole
 * CPU proof), finalize (CPU: the MSMs' last step, blinding, the pairing
 * check, the JSON). Each pool waits on its own condition variable; a stage
 * takes a job only when the next queue has room for it. */
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../formats/wtns.h"
#include "../groth16/key.h"
#include "engine_impl.h"

void engine_hook(cuzk_engine *e, const job *j, int stage, int event)
{
    if (e->cfg.stage_hook)
        e->cfg.stage_hook(e->cfg.stage_hook_ctx, j ? j->info.id : 0, stage, event);
}

/* Under the lock: a worker starts or stops being busy. */
static void busy_start(worker *w, double t)
{
    w->busy_since = t;
}

static void busy_stop(worker *w, double t)
{
    w->busy += t - w->busy_since;
    w->busy_since = 0;
}

static void gpu_start(cuzk_engine *e, int gpu, double t)
{
    if (gpu >= 0 && e->gpu_active[gpu]++ == 0)
        e->gpu_since[gpu] = t;
}

static void gpu_stop(cuzk_engine *e, int gpu, double t)
{
    if (gpu >= 0 && --e->gpu_active[gpu] == 0)
        e->gpu_busy[gpu] += t - e->gpu_since[gpu];
}

/* The job's stage times so far, from its prove state (under the lock; the
 * state's owner is the caller). */
static void copy_timings(job *j)
{
    if (!j->ps)
        return;
    j->info.timings = *prove_state_timings(j->ps);
    cuzk_timings *t = &j->info.timings;
    t->total = t->prepare + t->compute + t->finalize;
}

/* Ends a job whose stage failed or was cancelled, or hands it to the next
 * queue. Under the lock. */
static void stage_done(cuzk_engine *e, job *j, int rc, const cuzk_error *err, pqueue *next, int next_stage,
                       pthread_cond_t *next_cv, leftovers *left)
{
    if (atomic_load(&j->cancel)) /* whatever the stage returned */
        engine_end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, left);
    else if (rc != CUZK_OK)
        engine_end_job(e, j, CUZK_JOB_FAILED, rc, err->message, left);
    else {
        j->info.stage = next_stage;
        j->t_queued = cuzk_now();
        pq_push(next, &j->queued);
        pthread_cond_broadcast(next_cv);
        if (next_stage == CUZK_STAGE_FINALIZE_WAIT)
            pthread_cond_broadcast(&e->ended); /* engine_wait_computed */
    }
}

/* A proof's key upload, reported to the engine's progress with the key's
 * name. */
static void job_progress(void *ctx, const char *stage, unsigned long long done, unsigned long long total)
{
    const job *j = ctx;
    char s[360];
    snprintf(s, sizeof(s), "%s (key %.300s)", stage, j->key_name);
    j->engine->cfg.progress(j->engine->cfg.progress_ctx, s, done, total);
}

/* Job j's proof options: its own (cuzk_job_request.options) or the
 * engine's; a key's upload reported to the job's progress, else the
 * engine's. */
static cuzk_prove_options proof_options(const cuzk_engine *e, job *j)
{
    cuzk_prove_options o = j->opts;
    if (!o.progress) { /* the job's own, else the engine's with the key's name */
        o.progress = e->cfg.progress ? job_progress : NULL;
        o.progress_ctx = j;
    }
    if (j->gpu_pin >= 0)
        o.gpu = j->gpu_pin;
    return o;
}

/* A generated witness's threads: the job's (by default the prepare
 * worker's share of the cores, resolved at the engine's creation). */
static int witness_threads(const job *j)
{
    return j->opts.threads > 0 ? j->opts.threads : 1;
}

static void run_prepare(cuzk_engine *e, worker *wk, job *j)
{
    engine_hook(e, j, CUZK_STAGE_PREPARE, CUZK_HOOK_ENTER);
    cuzk_error err = {0};
    int rc = CUZK_OK;
    double t0 = cuzk_now(), t1 = t0;
    if (atomic_load(&j->cancel))
        rc = CUZK_ERR_CANCELLED;
    else {
        if (j->x.key) /* the caller's */
            j->zk = j->x.key;
        else {
            key_evicted gone;
            rc = key_cache_acquire(e->keys, j->key_is_id, j->key_name, j->key_circuit,
                                   j->confine & CUZK_CONFINE_KEY ? &e->key_limits : NULL, &j->key, &gone, &err);
            key_cache_free_evicted(e->keys, &gone); /* copies replaced or over the budget */
            if (rc == CUZK_OK)
                j->zk = key_entry_zkey(j->key);
        }
        double tw = cuzk_now();
        if (rc == CUZK_OK && j->x.make_witness)
            rc = j->x.make_witness(j->x.witness_ctx, witness_threads(j), &j->witness_wtns, &err);
        else if (rc == CUZK_OK && j->generate_witness)
            rc = key_make_witness(j->zk, j->partition, witness_threads(j), &j->w, &err);
        else if (rc == CUZK_OK && j->witness)
            rc = cuzk_wtns_open_memory(&j->w, j->witness, j->witness_len, "witness", &err);
        else if (rc == CUZK_OK && j->witness_path) {
            /* no larger than a witness of this key: a file of anything
             * else is refused before it is read */
            char what[96];
            uint32_t n = j->zk->n_vars;
            snprintf(what, sizeof(what), "a witness of this key (%u values)", n);
            file_limits lim = e->witness_limits;
            if (!(j->confine & CUZK_CONFINE_WITNESS))
                lim.n_within = 0;
            lim.max_bytes = wtns_file_bytes(n) + WTNS_EXTRA_BYTES;
            lim.what = what;
            rc = cuzk_wtns_open_limited(&j->w, j->witness_path, &lim, NULL, &err);
        }
        t1 = cuzk_now();
        if (j->generate_witness)
            j->info.witness = t1 - tw;
        if (rc == CUZK_OK) {
            cuzk_prove_options opts = proof_options(e, j);
            rc = prove_prepare_evaluated(j->zk, j->w ? j->w : j->witness_wtns, j->x.eval_a, j->x.eval_b, j->x.n_eval,
                                         j->x.r, j->x.s, &opts, &j->cancel, &j->ps, &err);
        }
    }
    engine_hook(e, j, CUZK_STAGE_PREPARE, CUZK_HOOK_LEAVE);
    /* what it holds from now to its end: its witness (the engine's copy
     * or reading; a borrowed one is the caller's) and prepared arrays */
    uint64_t held = (j->witness ? j->witness_len : j->w ? (uint64_t)j->w->n_witness * 32 : 0) +
                    (j->ps ? prove_state_host_bytes(j->ps) : 0);
    leftovers left = {0};
    pthread_mutex_lock(&e->mu);
    double t = cuzk_now();
    busy_stop(wk, t);
    e->preparing--;
    e->job_bytes += held - j->held_bytes; /* the estimate taken at the start, now the size */
    j->held_bytes = held;
    if (held)
        e->job_bytes_last = held;
    if (e->job_bytes > e->job_bytes_max)
        e->job_bytes_max = e->job_bytes;
    j->info.load = t1 - t0;
    copy_timings(j);
    stage_done(e, j, rc, &err, &e->q_ready, CUZK_STAGE_READY, &e->compute_cv, &left);
    pthread_cond_broadcast(&e->prepare_cv); /* a failed job frees its ready slot */
    pthread_mutex_unlock(&e->mu);
    engine_free_leftovers(e, &left);
}

/* A GPU-path job on GPU g: room in the memory plan, then the GPU call (or
 * the CPU, when nothing fits). */
static int compute_planned(cuzk_engine *e, job *j, int g, cuzk_error *err)
{
    gpu_plan_hold hold;
    /* evaluations given: the key's matrices never go up */
    int cpu_eval = j->opts.gpu_eval == CUZK_GPU_EVAL_CPU || j->x.eval_a;
    int rc = gpu_plan_begin(e->plan, g, j->zk, cpu_eval, &j->cancel, j->opts.device == CUZK_DEVICE_GPU,
                            j->gpu_pin < 0, &hold, err);
    if (rc != CUZK_OK)
        return rc;
    if (hold.to_cpu) {
        prove_route_cpu(j->ps, hold.note);
        return prove_compute(j->ps, NULL, err);
    }
    if (hold.gpu != g) { /* this GPU can never hold the key: another one's plan had room */
        prove_set_note(j->ps, hold.note);
        pthread_mutex_lock(&e->mu); /* its busy time is the other GPU's */
        double t = cuzk_now();
        gpu_stop(e, j->busy_gpu, t);
        gpu_start(e, hold.gpu, t);
        j->busy_gpu = hold.gpu;
        pthread_mutex_unlock(&e->mu);
    }
    prove_gpu_grant grant = {.gpu = hold.gpu, .with_matrices = hold.with_matrices && !j->x.eval_a,
                             .h_copies = hold.h_copies, .stage = hold.stage, .msm_chunk = hold.msm_chunk};
    if (j->x.gpu_enter)
        j->x.gpu_enter(j->x.gpu_ctx);
    rc = prove_compute(j->ps, &grant, err);
    if (j->x.gpu_leave)
        j->x.gpu_leave(j->x.gpu_ctx);
    gpu_plan_end(e->plan, &hold, prove_state_gpu(j->ps) >= 0, prove_state_staged(j->ps));
    return rc;
}

static void run_compute(cuzk_engine *e, worker *wk, job *j)
{
    engine_hook(e, j, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    cuzk_error err = {0};
    int rc;
    if (atomic_load(&j->cancel))
        rc = CUZK_ERR_CANCELLED;
    else if (wk->gpu >= 0 && prove_state_gpu(j->ps) >= 0)
        rc = compute_planned(e, j, wk->gpu, &err);
    else
        rc = prove_compute(j->ps, NULL, &err); /* the CPU path */
    engine_hook(e, j, CUZK_STAGE_COMPUTE, CUZK_HOOK_LEAVE);
    leftovers left = {0};
    pthread_mutex_lock(&e->mu);
    double t = cuzk_now();
    busy_stop(wk, t);
    gpu_stop(e, j->busy_gpu, t);
    j->busy_gpu = -1;
    e->computing--;
    copy_timings(j);
    stage_done(e, j, rc, &err, &e->q_final, CUZK_STAGE_FINALIZE_WAIT, &e->finalize_cv, &left);
    pthread_cond_broadcast(&e->compute_cv); /* a failed job frees its finalize slot */
    pthread_cond_broadcast(&e->prepare_cv); /* a compute worker is free */
    pthread_mutex_unlock(&e->mu);
    engine_free_leftovers(e, &left);
}

static void run_finalize(cuzk_engine *e, worker *wk, job *j)
{
    engine_hook(e, j, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    cuzk_error err = {0};
    char *proof = NULL, *pub = NULL, *vk = NULL;
    int rc = atomic_load(&j->cancel) ? CUZK_ERR_CANCELLED : prove_finalize(j->ps, &proof, &pub, &err);
    if (rc == CUZK_OK)
        j->out = *prove_state_out(j->ps); /* the job's alone: no lock needed */
    if (rc == CUZK_OK && j->key) { /* what its proof verifies against, for whoever stores it (a miss is not the proof's) */
        cuzk_error verr;
        if (key_entry_vk(e->keys, j->key, &vk, &verr) != CUZK_OK)
            vk = NULL; /* cuzk_engine_result_vk reports it */
    }
    if (j->x.witness_done)
        j->x.witness_done(j->x.witness_ctx);
    engine_hook(e, j, CUZK_STAGE_FINALIZE, CUZK_HOOK_LEAVE);
    leftovers left = {0};
    pthread_mutex_lock(&e->mu);
    busy_stop(wk, cuzk_now());
    e->finalizing--;
    copy_timings(j);
    if (atomic_load(&j->cancel)) {
        engine_end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, &left);
    } else if (rc != CUZK_OK)
        engine_end_job(e, j, CUZK_JOB_FAILED, rc, err.message, &left);
    else {
        j->proof = proof;
        j->pub = pub;
        j->vk = vk;
        proof = pub = vk = NULL;
        engine_end_job(e, j, CUZK_JOB_DONE, CUZK_OK, NULL, &left);
    }
    pthread_mutex_unlock(&e->mu);
    cuzk_free(proof); /* a cancelled job's result is dropped */
    cuzk_free(pub);
    free(vk);
    engine_free_leftovers(e, &left);
}

static job *pop_job(pqueue *q)
{
    pq_node *x = pq_pop(q);
    return x ? PQ_OWNER(x, job, queued) : NULL;
}

/* A ready job a compute worker of GPU *ctx (-1: the CPU) may take: any
 * but one held to another GPU. */
static int fits_worker(const pq_node *x, const void *ctx)
{
    const job *j = PQ_OWNER(x, job, queued);
    int gpu = *(const int *)ctx;
    return j->gpu_pin < 0 || j->gpu_pin == gpu;
}

/* Under the lock: the job this worker should take now, or NULL. A stage
 * takes a job only when the next queue has room for it. */
static job *take_job(cuzk_engine *e, worker *wk)
{
    double t = cuzk_now();
    job *j = NULL;
    switch (wk->pool) {
    case POOL_PREPARE: {
        /* within the ready queue's bound, and for a free compute worker
         * or one of the jobs prepared ahead */
        unsigned staged = e->q_ready.n + e->preparing;
        unsigned wanted = (unsigned)(e->n_compute - (int)e->computing) + (unsigned)e->cfg.prepare_ahead;
        /* within the host memory the jobs may hold: the next one's size
         * taken to be the last one's (one job always) */
        uint64_t budget = e->cfg.job_memory_budget;
        if (budget && ((!e->job_bytes_last && e->preparing) || /* the size is learnt from the first */
                       (e->job_bytes && e->job_bytes + e->job_bytes_last > budget)))
            return NULL;
        if (staged >= e->cfg.ready_queue_depth || staged >= wanted || !(j = pop_job(&e->q_in)))
            return NULL;
        e->preparing++;
        j->held_bytes = e->job_bytes_last;
        e->job_bytes += j->held_bytes;
        if (e->job_bytes > e->job_bytes_max)
            e->job_bytes_max = e->job_bytes;
        j->info.state = CUZK_JOB_RUNNING;
        j->info.queue_wait = t - j->t_submit;
        e->running++;
        break;
    }
    case POOL_COMPUTE:
        if (e->q_final.n + e->computing >= e->cfg.finalize_queue_depth)
            return NULL;
        pq_node *x = pq_pop_first(&e->q_ready, fits_worker, &wk->gpu);
        if (!x)
            return NULL;
        j = PQ_OWNER(x, job, queued);
        e->computing++;
        j->info.ready_wait = t - j->t_queued;
        j->info.compute_worker = wk->index;
        gpu_start(e, wk->gpu, t);
        j->busy_gpu = wk->gpu;
        pthread_cond_broadcast(&e->prepare_cv); /* a ready slot is free */
        break;
    default:
        if (!(j = pop_job(&e->q_final)))
            return NULL;
        e->finalizing++;
        j->info.finalize_wait = t - j->t_queued;
        pthread_cond_broadcast(&e->compute_cv); /* a finalize slot is free */
        break;
    }
    j->info.stage = wk->pool == POOL_PREPARE   ? CUZK_STAGE_PREPARE
                    : wk->pool == POOL_COMPUTE ? CUZK_STAGE_COMPUTE
                                               : CUZK_STAGE_FINALIZE;
    busy_start(wk, t);
    return j;
}

void *engine_worker_main(void *arg)
{
    worker *wk = arg;
    cuzk_engine *e = wk->e;
    pthread_cond_t *cv = wk->pool == POOL_PREPARE   ? &e->prepare_cv
                         : wk->pool == POOL_COMPUTE ? &e->compute_cv
                                                    : &e->finalize_cv;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        job *j = NULL;
        while (!e->stopping && !(j = take_job(e, wk)))
            pthread_cond_wait(cv, &e->mu);
        if (!j)
            break;
        pthread_mutex_unlock(&e->mu);
        if (wk->pool == POOL_PREPARE)
            run_prepare(e, wk, j);
        else if (wk->pool == POOL_COMPUTE)
            run_compute(e, wk, j);
        else
            run_finalize(e, wk, j);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
