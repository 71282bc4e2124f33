/* The proving engine: a priority queue of proof jobs, worker threads, and a
 * cache of loaded keys (include/cuzk.h, "engine").
 *
 * One mutex guards the engine's state; nothing slow runs under it (keys and
 * witnesses are opened, and proofs computed, with it released). Two
 * condition variables: `work` wakes workers when a job is queued, `ended`
 * wakes waiters when a job ends.
 *
 * Overlap comes from the workers: with a GPU, a proof holds the GPU's
 * compute lock only for its GPU phase (src/groth16/prove.c), so a second
 * worker evaluates the next job's a and b on the CPU meanwhile. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../include/cuzk.h"
#include "../util/error.h"

#define ENGINE_JOB_BUCKETS 4096 /* job lookup hash: ids are sequential */

typedef struct key_entry {
    char *name;   /* the key id, or the path for keys named by path */
    char *path;
    cuzk_zkey *zk; /* NULL: known (an id from key_load) but not loaded now */
    unsigned refs; /* running jobs using it */
    double last_used;
    unsigned long long bytes;
    struct key_entry *next;
} key_entry;

typedef struct job {
    cuzk_job_info info;
    char *key_name, *key_path, *witness_path;
    void *witness;
    size_t witness_len;
    char *proof, *pub;
    double t_submit;
    int cancel_requested;
    struct job *next_queued; /* in its priority's FIFO */
    struct job *next_in_bucket;
} job;

struct cuzk_engine {
    cuzk_engine_config cfg;
    pthread_mutex_t mu;
    pthread_cond_t work, ended;
    job *head[4], *tail[4];
    job *buckets[ENGINE_JOB_BUCKETS];
    key_entry *keys;
    pthread_t *threads;
    int n_threads, stopping;
    unsigned active; /* queued + running */
    unsigned running;
    unsigned long long next_id, finish_seq, done, failed, cancelled;
    double t_create, busy;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

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

static void free_job(job *j)
{
    if (!j)
        return;
    free(j->key_name);
    free(j->key_path);
    free(j->witness_path);
    free(j->witness);
    cuzk_free(j->proof);
    cuzk_free(j->pub);
    free(j);
}

static key_entry *find_key(cuzk_engine *e, const char *name)
{
    for (key_entry *k = e->keys; k; k = k->next)
        if (!strcmp(k->name, name))
            return k;
    return NULL;
}

static unsigned long long cached_bytes(const cuzk_engine *e, unsigned *count)
{
    unsigned long long b = 0;
    unsigned n = 0;
    for (const key_entry *k = e->keys; k; k = k->next)
        if (k->zk) {
            b += k->bytes;
            n++;
        }
    if (count)
        *count = n;
    return b;
}

/* Under the lock: unloads least-recently-used keys no job uses until the
 * cache fits its budget. The keys to free are returned as a list (freeing
 * a key may free its GPU copy: done outside the lock). */
static cuzk_zkey **evict_over_budget(cuzk_engine *e, size_t *n_out)
{
    *n_out = 0;
    if (!e->cfg.key_cache_bytes)
        return NULL;
    cuzk_zkey **out = NULL;
    size_t n = 0;
    while (cached_bytes(e, NULL) > e->cfg.key_cache_bytes) {
        key_entry *lru = NULL;
        for (key_entry *k = e->keys; k; k = k->next)
            if (k->zk && k->refs == 0 && (!lru || k->last_used < lru->last_used))
                lru = k;
        if (!lru)
            break; /* every cached key is in use */
        cuzk_zkey **grown = realloc(out, (n + 1) * sizeof(*out));
        if (!grown)
            break;
        out = grown;
        out[n++] = lru->zk;
        lru->zk = NULL;
    }
    *n_out = n;
    return out;
}

static void free_keys(cuzk_zkey **list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cuzk_zkey_free(list[i]);
    free(list);
}

/* A job's key, loading it if needed (the file is opened without the
 * lock); counts a reference. */
static int acquire_key(cuzk_engine *e, const char *name, const char *path, key_entry **out, cuzk_error *err)
{
    pthread_mutex_lock(&e->mu);
    key_entry *k = find_key(e, name);
    if (k && k->zk) {
        k->refs++;
        pthread_mutex_unlock(&e->mu);
        *out = k;
        return CUZK_OK;
    }
    if (k && k->path)
        path = k->path; /* an id whose key was evicted: reload it */
    char *p = dup_str(path);
    pthread_mutex_unlock(&e->mu);
    if (!p)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    cuzk_zkey *zk = NULL;
    int rc = cuzk_zkey_open(&zk, p, err);
    if (rc != CUZK_OK) {
        free(p);
        return rc;
    }
    cuzk_zkey_info info;
    cuzk_zkey_get_info(zk, &info);
    pthread_mutex_lock(&e->mu);
    k = find_key(e, name);
    if (k && k->zk) { /* another worker loaded it meanwhile */
        k->refs++;
        pthread_mutex_unlock(&e->mu);
        cuzk_zkey_free(zk);
        free(p);
        *out = k;
        return CUZK_OK;
    }
    if (!k) {
        k = calloc(1, sizeof(*k));
        if (!k || !(k->name = dup_str(name))) {
            free(k);
            pthread_mutex_unlock(&e->mu);
            cuzk_zkey_free(zk);
            free(p);
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
        }
        k->next = e->keys;
        e->keys = k;
    }
    free(k->path);
    k->path = p;
    k->zk = zk;
    k->bytes = info.file_size;
    k->refs++;
    k->last_used = now();
    size_t n_free;
    cuzk_zkey **to_free = evict_over_budget(e, &n_free);
    pthread_mutex_unlock(&e->mu);
    free_keys(to_free, n_free);
    *out = k;
    return CUZK_OK;
}

static void run_job(cuzk_engine *e, job *j)
{
    double t0 = now();
    cuzk_error err = {0};
    key_entry *k = NULL;
    cuzk_wtns *w = NULL;
    char *proof = NULL, *pub = NULL;
    cuzk_timings t;
    memset(&t, 0, sizeof(t));
    int rc = acquire_key(e, j->key_name, j->key_path, &k, &err);
    if (rc == CUZK_OK)
        rc = j->witness ? cuzk_wtns_open_memory(&w, j->witness, j->witness_len, "witness", &err)
                        : cuzk_wtns_open(&w, j->witness_path, &err);
    double t1 = now();
    if (rc == CUZK_OK) {
        cuzk_prove_options opts = {
            .threads = e->cfg.threads_per_worker,
            .device = e->cfg.device,
        };
        rc = cuzk_prove(k->zk, w, &opts, &proof, &pub, &t, &err);
    }
    cuzk_wtns_free(w);
    double t2 = now();

    pthread_mutex_lock(&e->mu);
    if (k) {
        k->refs--;
        k->last_used = t2;
    }
    j->info.load = t1 - t0;
    j->info.timings = t;
    j->info.finish_seq = ++e->finish_seq;
    if (j->cancel_requested) {
        j->info.state = CUZK_JOB_CANCELLED;
        j->info.status = CUZK_ERR_CANCELLED;
        e->cancelled++;
        cuzk_free(proof);
        cuzk_free(pub);
    } else if (rc == CUZK_OK) {
        j->info.state = CUZK_JOB_DONE;
        j->proof = proof;
        j->pub = pub;
        e->done++;
    } else {
        j->info.state = CUZK_JOB_FAILED;
        j->info.status = rc;
        snprintf(j->info.error, sizeof(j->info.error), "%s", err.message);
        e->failed++;
    }
    free(j->witness); /* the bytes are not needed any more */
    j->witness = NULL;
    e->running--;
    e->active--;
    e->busy += t2 - t0;
    size_t n_free;
    cuzk_zkey **to_free = evict_over_budget(e, &n_free);
    pthread_cond_broadcast(&e->ended);
    pthread_mutex_unlock(&e->mu);
    free_keys(to_free, n_free);
}

static job *pop_job(cuzk_engine *e)
{
    for (int p = CUZK_PRIORITY_CRITICAL; p >= CUZK_PRIORITY_LOW; p--) {
        job *j = e->head[p];
        if (j) {
            e->head[p] = j->next_queued;
            if (!e->head[p])
                e->tail[p] = NULL;
            j->next_queued = NULL;
            return j;
        }
    }
    return NULL;
}

static void *worker_main(void *arg)
{
    cuzk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    for (;;) {
        job *j;
        while (!(j = pop_job(e)) && !e->stopping)
            pthread_cond_wait(&e->work, &e->mu);
        if (!j)
            break;
        j->info.state = CUZK_JOB_RUNNING;
        j->info.queue_wait = now() - j->t_submit;
        e->running++;
        pthread_mutex_unlock(&e->mu);
        run_job(e, j);
        pthread_mutex_lock(&e->mu);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

int cuzk_engine_create(const cuzk_engine_config *config, cuzk_engine **out, cuzk_error *err)
{
    if (!out)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_create: NULL argument");
    *out = NULL;
    cuzk_engine_config cfg = {0};
    if (config)
        cfg = *config;
    if (cfg.workers < 0 || cfg.workers > 256)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine: workers must be in [0, 256], got %d",
                              cfg.workers);
    if (cfg.threads_per_worker < 0 || cfg.threads_per_worker > 1024)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "engine: threads per worker must be in [0, 1024], got %d", cfg.threads_per_worker);
    if (cfg.device < CUZK_DEVICE_AUTO || cfg.device > CUZK_DEVICE_GPU)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine: unknown device choice %d", cfg.device);
    if (cfg.workers == 0)
        cfg.workers = 1;
    if (cfg.threads_per_worker == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        cfg.threads_per_worker = cores > cfg.workers ? (int)(cores / cfg.workers) : 1;
    }
    if (cfg.max_jobs == 0)
        cfg.max_jobs = 1024;
    cuzk_engine *e = calloc(1, sizeof(*e));
    if (!e)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    e->cfg = cfg;
    e->next_id = 1;
    e->t_create = now();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->work, &ca);
    pthread_cond_init(&e->ended, &ca);
    pthread_condattr_destroy(&ca);
    e->threads = calloc((size_t)cfg.workers, sizeof(pthread_t));
    if (!e->threads) {
        cuzk_engine_destroy(e);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    for (int i = 0; i < cfg.workers; i++) {
        if (pthread_create(&e->threads[i], NULL, worker_main, e) != 0) {
            cuzk_engine_destroy(e);
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "engine: cannot start worker thread %d", i);
        }
        e->n_threads++;
    }
    *out = e;
    return CUZK_OK;
}

void cuzk_engine_destroy(cuzk_engine *e)
{
    if (!e)
        return;
    pthread_mutex_lock(&e->mu);
    e->stopping = 1;
    job *j;
    while ((j = pop_job(e))) {
        j->info.state = CUZK_JOB_CANCELLED;
        j->info.status = CUZK_ERR_CANCELLED;
        e->active--;
    }
    pthread_cond_broadcast(&e->work);
    pthread_cond_broadcast(&e->ended);
    pthread_mutex_unlock(&e->mu);
    for (int i = 0; i < e->n_threads; i++)
        pthread_join(e->threads[i], NULL);
    free(e->threads);
    for (int b = 0; b < ENGINE_JOB_BUCKETS; b++)
        while (e->buckets[b]) {
            job *n = e->buckets[b]->next_in_bucket;
            free_job(e->buckets[b]);
            e->buckets[b] = n;
        }
    while (e->keys) {
        key_entry *n = e->keys->next;
        cuzk_zkey_free(e->keys->zk);
        free(e->keys->name);
        free(e->keys->path);
        free(e->keys);
        e->keys = n;
    }
    pthread_cond_destroy(&e->work);
    pthread_cond_destroy(&e->ended);
    pthread_mutex_destroy(&e->mu);
    free(e);
}

int cuzk_engine_key_load(cuzk_engine *e, const char *key_id, const char *path, cuzk_error *err)
{
    if (!e || !key_id || !*key_id || !path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_key_load: NULL or empty argument");
    /* a reload under the same id replaces the cached key once unused */
    pthread_mutex_lock(&e->mu);
    key_entry *k = find_key(e, key_id);
    cuzk_zkey *old = NULL;
    if (k && k->refs) {
        pthread_mutex_unlock(&e->mu);
        return cuzk_error_set(err, CUZK_ERR_BUSY, "key '%s' is in use by running jobs: load it again later",
                              key_id);
    }
    if (k) {
        old = k->zk;
        k->zk = NULL;
        free(k->path);
        k->path = NULL;
    }
    pthread_mutex_unlock(&e->mu);
    cuzk_zkey_free(old);
    key_entry *got;
    int rc = acquire_key(e, key_id, path, &got, err);
    if (rc != CUZK_OK)
        return rc;
    pthread_mutex_lock(&e->mu);
    got->refs--;
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

int cuzk_engine_key_evict(cuzk_engine *e, const char *key, cuzk_error *err)
{
    if (!e || !key)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_key_evict: NULL argument");
    pthread_mutex_lock(&e->mu);
    key_entry *k = find_key(e, key);
    if (!k || !k->zk) {
        pthread_mutex_unlock(&e->mu);
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "key '%s' is not loaded", key);
    }
    if (k->refs) {
        pthread_mutex_unlock(&e->mu);
        return cuzk_error_set(err, CUZK_ERR_BUSY, "key '%s' is in use by %u running job%s", key, k->refs,
                              k->refs == 1 ? "" : "s");
    }
    cuzk_zkey *zk = k->zk;
    k->zk = NULL;
    pthread_mutex_unlock(&e->mu);
    cuzk_zkey_free(zk);
    return CUZK_OK;
}

int cuzk_engine_submit(cuzk_engine *e, const cuzk_job_request *req, unsigned long long *id, cuzk_error *err)
{
    if (!e || !req || !id)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_submit: NULL argument");
    *id = 0;
    if (!!req->key_path == !!req->key_id)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a job names its key by key_path or by key_id (one)");
    if (!!req->witness_path == !!req->witness)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "a job gives its witness as witness_path or as witness bytes (one)");
    if (req->priority < CUZK_PRIORITY_LOW || req->priority > CUZK_PRIORITY_CRITICAL)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "priority must be 0 (low) to 3 (critical), got %d",
                              req->priority);
    job *j = calloc(1, sizeof(*j));
    if (!j)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    j->key_name = dup_str(req->key_id ? req->key_id : req->key_path);
    j->key_path = dup_str(req->key_path);
    j->witness_path = dup_str(req->witness_path);
    if (req->witness) {
        j->witness = malloc(req->witness_len ? req->witness_len : 1);
        if (j->witness)
            memcpy(j->witness, req->witness, req->witness_len);
        j->witness_len = req->witness_len;
    }
    if (!j->key_name || (req->witness_path && !j->witness_path) || (req->witness && !j->witness)) {
        free_job(j);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    j->info.priority = req->priority;
    j->info.state = CUZK_JOB_QUEUED;
    pthread_mutex_lock(&e->mu);
    int rc = CUZK_OK;
    if (e->stopping)
        rc = cuzk_error_set(err, CUZK_ERR_BUSY, "the engine is shutting down");
    else if (e->active >= e->cfg.max_jobs)
        rc = cuzk_error_set(err, CUZK_ERR_BUSY, "%u jobs are queued or running (the limit): retry later",
                            e->active);
    else if (req->key_id && !find_key(e, req->key_id))
        rc = cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no key was loaded under the id '%s'", req->key_id);
    if (rc != CUZK_OK) {
        pthread_mutex_unlock(&e->mu);
        free_job(j);
        return rc;
    }
    j->info.id = e->next_id++;
    j->t_submit = now();
    j->next_in_bucket = e->buckets[j->info.id % ENGINE_JOB_BUCKETS];
    e->buckets[j->info.id % ENGINE_JOB_BUCKETS] = j;
    int p = req->priority;
    if (e->tail[p])
        e->tail[p]->next_queued = j;
    else
        e->head[p] = j;
    e->tail[p] = j;
    e->active++;
    *id = j->info.id;
    pthread_cond_signal(&e->work);
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

static int ended(const job *j)
{
    return j->info.state == CUZK_JOB_DONE || j->info.state == CUZK_JOB_FAILED || j->info.state == CUZK_JOB_CANCELLED;
}

int cuzk_engine_wait(cuzk_engine *e, unsigned long long id, double timeout, cuzk_job_info *info, cuzk_error *err)
{
    if (!e || !info)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_wait: NULL argument");
    struct timespec deadline;
    clock_gettime(CLOCK_MONOTONIC, &deadline);
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
    *info = j->info;
    pthread_mutex_unlock(&e->mu);
    return CUZK_OK;
}

int cuzk_engine_result(cuzk_engine *e, unsigned long long id, char **proof_json, char **public_json, cuzk_error *err)
{
    if (!e || !proof_json || !public_json)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_result: NULL argument");
    *proof_json = *public_json = NULL;
    int rc;
    job *j = lock_job(e, id, &rc, err);
    if (!j) {
        /* rc and err say so */
    } else if (!ended(j))
        rc = cuzk_error_set(err, CUZK_ERR_BUSY, "job %llu has not finished", id);
    else if (j->info.state == CUZK_JOB_CANCELLED)
        rc = cuzk_error_set(err, CUZK_ERR_CANCELLED, "job %llu was cancelled", id);
    else if (j->info.state == CUZK_JOB_FAILED)
        rc = cuzk_error_set(err, j->info.status, "%s", j->info.error);
    else {
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

int cuzk_engine_cancel(cuzk_engine *e, unsigned long long id, cuzk_error *err)
{
    if (!e)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_engine_cancel: NULL argument");
    int rc;
    job *j = lock_job(e, id, &rc, err);
    if (!j) {
        /* rc and err say so */
    } else if (j->info.state == CUZK_JOB_QUEUED) {
        int p = j->info.priority;
        job **q = &e->head[p], *prev = NULL;
        while (*q && *q != j) {
            prev = *q;
            q = &(*q)->next_queued;
        }
        if (*q) {
            *q = j->next_queued;
            if (e->tail[p] == j)
                e->tail[p] = prev;
        }
        j->info.state = CUZK_JOB_CANCELLED;
        j->info.status = CUZK_ERR_CANCELLED;
        j->info.finish_seq = ++e->finish_seq;
        e->cancelled++;
        e->active--;
        pthread_cond_broadcast(&e->ended);
    } else if (j->info.state == CUZK_JOB_RUNNING)
        j->cancel_requested = 1;
    pthread_mutex_unlock(&e->mu);
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
    pthread_mutex_lock(&e->mu);
    for (int p = 0; p < 4; p++)
        for (job *j = e->head[p]; j; j = j->next_queued)
            s->queued[p]++;
    s->running = e->running;
    s->done = e->done;
    s->failed = e->failed;
    s->cancelled = e->cancelled;
    s->key_bytes = cached_bytes(e, &s->keys_cached);
    s->uptime = now() - e->t_create;
    s->workers = e->cfg.workers;
    s->worker_busy = s->uptime > 0 ? e->busy / (s->uptime * e->cfg.workers) : 0;
    pthread_mutex_unlock(&e->mu);
}
