/* The library's engine (submit.h): made at its first use with the
 * defaults, kept for the life of the process; cuzk_prove's jobs (and
 * supraseal-c2's ABI's, src/abi/supraseal.c) go through it, so the whole
 * library has one scheduler, one GPU memory plan and one set of workers. */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "engine_impl.h"
#include "../util/cores.h"

static pthread_once_t shared_once = PTHREAD_ONCE_INIT;
static _Atomic(cuzk_engine *) shared; /* read without the once: engine_shared_forget_key */
static cuzk_error shared_err;

static void shared_init(void)
{
    cuzk_engine_config cfg = {0};
    cuzk_engine *e = NULL;
    if (cuzk_engine_create(&cfg, &e, &shared_err) == CUZK_OK) {
        key_cache_set_idle_max(e->keys, SS_IDLE_KEYS);
        atomic_store(&shared, e);
    }
}

int engine_shared(cuzk_engine **out, cuzk_error *err)
{
    pthread_once(&shared_once, shared_init);
    *out = atomic_load(&shared);
    if (*out)
        return CUZK_OK;
    if (err)
        *err = shared_err;
    return shared_err.code ? shared_err.code : CUZK_ERR_INTERNAL;
}

void engine_shared_forget_key(const struct cuzk_zkey *zk)
{
    cuzk_engine *e = atomic_load(&shared); /* never made: nothing of the key is in its plan */
    if (e)
        gpu_plan_forget(e->plan, zk);
}

int engine_shared_srs_acquire(const char *path, int cached, key_entry **out, cuzk_error *err)
{
    *out = NULL;
    cuzk_engine *e;
    int rc = engine_shared(&e, err);
    if (rc != CUZK_OK)
        return rc;
    if (!cached)
        return key_cache_load_srs_private(e->keys, path, out, err);
    key_evicted gone;
    rc = key_cache_acquire_srs(e->keys, path, out, &gone, err);
    key_cache_free_evicted(e->keys, &gone);
    return rc;
}

/* The next three: k came from engine_shared_srs_acquire, so the engine is made. */
void engine_shared_srs_hold(key_entry *k)
{
    key_cache_hold(atomic_load(&shared)->keys, k);
}

void engine_shared_srs_release(key_entry *k)
{
    cuzk_engine *e = atomic_load(&shared);
    key_evicted gone;
    key_cache_release(e->keys, k, &gone);
    key_cache_free_evicted(e->keys, &gone);
}

void engine_shared_srs_retire(key_entry *k)
{
    cuzk_engine *e = atomic_load(&shared);
    key_evicted gone;
    key_cache_retire(e->keys, k, &gone);
    key_cache_free_evicted(e->keys, &gone);
}

/* One proof of the library's engine to its end, the caller waiting for
 * it: its CPU work on every core unless opts says otherwise (the
 * engine's share of the cores is for jobs in flight together). Its info
 * in *info, its status (with the job's message in err) returned. The job
 * is released by the caller once it has read the result. */
static int run_to_end(cuzk_engine *e, const struct cuzk_wtns *w, const cuzk_prove_options *opts,
                      const engine_job_extra *x, unsigned long long *id, cuzk_job_info *info, cuzk_error *err)
{
    cuzk_prove_options o = opts ? *opts : (cuzk_prove_options){0};
    if (o.threads == 0)
        o.threads = cpu_cores();
    cuzk_job_request req = {.witness_wtns = w, .priority = CUZK_PRIORITY_NORMAL, .options = &o};
    int rc = engine_submit(e, &req, x, id, err);
    if (rc != CUZK_OK)
        return rc;
    rc = cuzk_engine_wait(e, *id, -1, info, err);
    if (rc == CUZK_OK && info->state != CUZK_JOB_DONE)
        rc = cuzk_error_set(err, info->status ? info->status : CUZK_ERR_INTERNAL, "%s", info->error);
    return rc;
}

int cuzk_prove(const cuzk_zkey *zk, const cuzk_wtns *w, const cuzk_prove_options *opts, char **proof_json,
               char **public_json, cuzk_timings *timings, cuzk_error *err)
{
    if (!zk || !w || !proof_json || !public_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_prove: NULL argument");
    *proof_json = *public_json = NULL;
    double t0 = cuzk_now();
    cuzk_engine *e;
    int rc = engine_shared(&e, err);
    if (rc != CUZK_OK)
        return rc;
    engine_job_extra x = {.key = zk};
    unsigned long long id = 0;
    cuzk_job_info info;
    rc = run_to_end(e, w, opts, &x, &id, &info, err);
    if (rc == CUZK_OK)
        rc = cuzk_engine_result(e, id, proof_json, public_json, err);
    if (rc == CUZK_OK && timings) {
        *timings = info.timings;
        timings->total = cuzk_now() - t0;
    }
    cuzk_error ignored;
    if (id && cuzk_engine_release(e, id, &ignored) != CUZK_OK) {
        /* nothing to free: the job is gone already */
    }
    return rc;
}

int engine_prove_with(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char r[32],
                      const unsigned char s[32], const cuzk_prove_options *opts, core_prove_out *out,
                      cuzk_timings *t, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    cuzk_engine *e;
    int rc = engine_shared(&e, err);
    if (rc != CUZK_OK)
        return rc;
    engine_job_extra x = {.key = zk, .r = r, .s = s};
    unsigned long long id = 0;
    cuzk_job_info info;
    rc = run_to_end(e, w, opts, &x, &id, &info, err);
    if (rc == CUZK_OK)
        rc = engine_result_out(e, id, out, t, err);
    cuzk_error ignored;
    if (id && cuzk_engine_release(e, id, &ignored) != CUZK_OK) {
        /* nothing to free: the job is gone already */
    }
    return rc;
}
