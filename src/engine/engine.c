/* The proving engine: a priority queue of proof jobs, a pipeline of worker
 * pools, and a cache of loaded keys (include/cuzk.h, "engine";
 * docs/engine.md).
 *
 * A job goes through three stages (src/groth16/prove.h), each with its own
 * pool of threads, and through bounded priority queues between them:
 *
 *   in (admission, max_jobs) -> prepare workers -> ready (ready_queue_depth)
 *   -> compute workers -> finalize queue (finalize_queue_depth)
 *   -> finalize workers -> ended
 *
 * Prepare (CPU) loads the key and witness and, for a GPU, evaluates a and b
 * and splits the witness; compute runs the GPU call (a compute worker per
 * GPU, or more: gpu_workers_per_device) or, without a GPU, the whole CPU
 * proof; finalize (CPU) finishes the GPU's MSMs, blinds, verifies and
 * writes the JSON. So the CPU prepares job n+1 and finalizes job n-1 while
 * the GPU computes job n.
 *
 * Bounds: a stage takes a job only when the next queue has room for it
 * (the queue's bound counts the jobs in the stage feeding it), so a job
 * waits in the earlier queue, where a higher-priority job that arrives
 * later can still pass it; prepared data in host memory is bounded by the
 * ready queue's depth plus the jobs computing.
 *
 * One mutex guards the engine's state; nothing slow runs under it: keys and
 * witnesses are opened, stages run and prepared data is freed with it
 * released. While a worker runs a stage, the job's key reference, witness
 * and prove state belong to that worker; while the job waits in a queue,
 * they belong to the engine (the lock), so cancel can free them at once. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../include/cuzk.h"
#include "../groth16/prove.h"
#include "../util/error.h"
#include "../util/size_text.h"

#define ENGINE_JOB_BUCKETS 4096 /* job lookup hash: ids are sequential */
#define ENGINE_MAX_POOL 256     /* threads in one pool */
/* the smallest MSM chunk the streamed path uses: below it the per-chunk
 * work (digits, sort, bucket reduction of a whole window set) dominates */
#define ENGINE_MIN_MSM_CHUNK ((uint64_t)1 << 14)

typedef struct key_entry {
    char *name;   /* the key id, or the path for keys named by path */
    char *path;
    cuzk_zkey *zk; /* NULL: known (an id from key_load) but not loaded now */
    unsigned refs; /* running jobs using it */
    double last_used;
    unsigned long long bytes;
    /* the device-memory plan: bytes its copy holds on each GPU (0: none,
     * as far as the plan knows) and jobs computing with it there */
    uint64_t gpu_bytes[CUZK_ENGINE_MAX_GPUS];
    unsigned gpu_users[CUZK_ENGINE_MAX_GPUS];
    unsigned char gpu_dropping[CUZK_ENGINE_MAX_GPUS]; /* its copy there is being freed: plans wait */
    struct key_entry *next;
} key_entry;

typedef struct job {
    cuzk_job_info info;
    char *key_name, *key_path, *witness_path;
    void *witness; /* the witness's bytes, when given as bytes (w maps them) */
    size_t witness_len;
    char *proof, *pub;
    double t_submit;
    double t_queued;   /* when it entered the queue it is in */
    atomic_int cancel; /* read by the stage running it, without the lock */
    key_entry *key;    /* a reference, from load to the end */
    cuzk_wtns *w;
    prove_state *ps;
    struct job *next_queued; /* in its queue's priority FIFO */
    struct job *next_in_bucket;
} job;

/* A priority queue: one FIFO per priority. */
typedef struct pqueue {
    job *head[4], *tail[4];
    unsigned n, max_seen;
} pqueue;

enum { POOL_PREPARE, POOL_COMPUTE, POOL_FINALIZE };

typedef struct worker {
    struct cuzk_engine *e;
    pthread_t thread;
    int pool, index;
    int gpu;                /* compute workers: the GPU it proves on, -1 the CPU */
    double busy, busy_since; /* under the lock; busy_since 0: idle */
} worker;

struct cuzk_engine {
    cuzk_engine_config cfg; /* with the defaults filled in */
    pthread_mutex_t mu;
    pthread_cond_t prepare_cv, compute_cv, finalize_cv, ended;
    pqueue q_in, q_ready, q_final;
    unsigned preparing, computing, finalizing;
    job *buckets[ENGINE_JOB_BUCKETS];
    key_entry *keys;
    worker *workers;
    int n_workers, n_started, n_prepare, n_compute, n_finalize;
    int gpus;
    int gpu_active[CUZK_ENGINE_MAX_GPUS]; /* jobs in compute on each GPU */
    double gpu_since[CUZK_ENGINE_MAX_GPUS], gpu_busy[CUZK_ENGINE_MAX_GPUS];
    /* The device-memory plan, per GPU: the budget, the bytes of the keys
     * resident there, and the proofs' working memory, which the GPU's
     * stream-ordered pool keeps once grown (the largest working set so
     * far). A proof enters the GPU only when its key (if not there) and its
     * working set fit beside what is there; idle keys' copies are dropped
     * to make room; a proof that fits only alone waits for the GPU; one
     * that does not fit even alone takes the CPU path (device auto). */
    uint64_t gpu_budget[CUZK_ENGINE_MAX_GPUS], gpu_keys_bytes[CUZK_ENGINE_MAX_GPUS],
        gpu_pool_bytes[CUZK_ENGINE_MAX_GPUS];
    int gpu_planned[CUZK_ENGINE_MAX_GPUS]; /* proofs holding a plan on each GPU */
    pthread_cond_t gpu_cv;                 /* a plan ended */
    unsigned long long plan_waits, plan_drops, plan_cpu;
    unsigned long long plan_staged, plan_unstaged; /* GPU proofs with the witness pre-staged, and without */
    unsigned long long plan_chunked;               /* GPU proofs on the streamed path (MSMs in chunks) */
    int stopping;
    unsigned active; /* queued + running */
    unsigned running;
    unsigned long long next_id, finish_seq, done, failed, cancelled;
    double t_create;
    /* sums over the jobs done, for the means in the stats */
    double sum_queue_wait, sum_load, sum_prepare, sum_ready_wait, sum_compute, sum_finalize_wait, sum_finalize,
        sum_verify, sum_latency;
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

static void pq_push(pqueue *q, job *j)
{
    int p = j->info.priority;
    j->next_queued = NULL;
    if (q->tail[p])
        q->tail[p]->next_queued = j;
    else
        q->head[p] = j;
    q->tail[p] = j;
    if (++q->n > q->max_seen)
        q->max_seen = q->n;
}

static job *pq_pop(pqueue *q)
{
    for (int p = CUZK_PRIORITY_CRITICAL; p >= CUZK_PRIORITY_LOW; p--) {
        job *j = q->head[p];
        if (j) {
            q->head[p] = j->next_queued;
            if (!q->head[p])
                q->tail[p] = NULL;
            j->next_queued = NULL;
            q->n--;
            return j;
        }
    }
    return NULL;
}

/* 1 if j was in q (and is now out of it). */
static int pq_remove(pqueue *q, job *j)
{
    int p = j->info.priority;
    job **link = &q->head[p], *prev = NULL;
    while (*link && *link != j) {
        prev = *link;
        link = &(*link)->next_queued;
    }
    if (!*link)
        return 0;
    *link = j->next_queued;
    if (q->tail[p] == j)
        q->tail[p] = prev;
    j->next_queued = NULL;
    q->n--;
    return 1;
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
    prove_state_free(j->ps);
    cuzk_wtns_free(j->w); /* before the bytes it maps */
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

/* Under the lock: a key leaving the cache takes its GPU copies along
 * (cuzk_zkey_free frees them). */
static void forget_gpu_copies(cuzk_engine *e, key_entry *k)
{
    for (int g = 0; g < CUZK_ENGINE_MAX_GPUS; g++) {
        e->gpu_keys_bytes[g] -= k->gpu_bytes[g] < e->gpu_keys_bytes[g] ? k->gpu_bytes[g] : e->gpu_keys_bytes[g];
        k->gpu_bytes[g] = 0;
    }
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
        forget_gpu_copies(e, lru);
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

/* What an ended job leaves to free once the lock is released. */
typedef struct leftovers {
    prove_state *ps;
    cuzk_wtns *w;
    void *witness;
    cuzk_zkey **keys;
    size_t n_keys;
} leftovers;

static void free_leftovers(leftovers *l)
{
    prove_state_free(l->ps);
    cuzk_wtns_free(l->w);
    free(l->witness);
    free_keys(l->keys, l->n_keys);
    memset(l, 0, sizeof(*l));
}

/* Under the lock: the job ends (state DONE, FAILED or CANCELLED). Its key
 * reference is dropped and its prepared data handed to *left. */
static void end_job(cuzk_engine *e, job *j, int state, int status, const char *error, leftovers *left)
{
    double t = now();
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
    if (j->key) {
        j->key->refs--;
        j->key->last_used = t;
        j->key = NULL;
    }
    left->ps = j->ps;
    left->w = j->w;
    left->witness = j->witness; /* the bytes are not needed any more */
    j->ps = NULL;
    j->w = NULL;
    j->witness = NULL;
    left->keys = evict_over_budget(e, &left->n_keys);
    pthread_cond_broadcast(&e->ended);
}

static void hook(cuzk_engine *e, const job *j, int stage, int event)
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
        end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, left);
    else if (rc != CUZK_OK)
        end_job(e, j, CUZK_JOB_FAILED, rc, err->message, left);
    else {
        j->info.stage = next_stage;
        j->t_queued = now();
        pq_push(next, j);
        pthread_cond_broadcast(next_cv);
    }
}

static void run_prepare(cuzk_engine *e, worker *wk, job *j)
{
    hook(e, j, CUZK_STAGE_PREPARE, CUZK_HOOK_ENTER);
    cuzk_error err = {0};
    int rc = CUZK_OK;
    double t0 = now(), t1 = t0;
    if (atomic_load(&j->cancel))
        rc = CUZK_ERR_CANCELLED;
    else {
        rc = acquire_key(e, j->key_name, j->key_path, &j->key, &err);
        if (rc == CUZK_OK)
            rc = j->witness ? cuzk_wtns_open_memory(&j->w, j->witness, j->witness_len, "witness", &err)
                            : cuzk_wtns_open(&j->w, j->witness_path, &err);
        t1 = now();
        if (rc == CUZK_OK) {
            cuzk_prove_options opts = {.threads = e->cfg.threads_per_worker, .device = e->cfg.device};
            rc = prove_prepare(j->key->zk, j->w, NULL, NULL, &opts, &j->cancel, &j->ps, &err);
        }
    }
    hook(e, j, CUZK_STAGE_PREPARE, CUZK_HOOK_LEAVE);
    leftovers left = {0};
    pthread_mutex_lock(&e->mu);
    double t = now();
    busy_stop(wk, t);
    e->preparing--;
    j->info.load = t1 - t0;
    copy_timings(j);
    stage_done(e, j, rc, &err, &e->q_ready, CUZK_STAGE_READY, &e->compute_cv, &left);
    pthread_cond_broadcast(&e->prepare_cv); /* a failed job frees its ready slot */
    pthread_mutex_unlock(&e->mu);
    free_leftovers(&left);
}

/* The device-memory plan for one proof on GPU g (see struct cuzk_engine).
 * Called without the lock; takes it. Returns the upload budget to pass to
 * prove_compute_budget (0: the job goes to the CPU, with *note saying why,
 * or fails with *rc set when the device is "gpu"). On a budget > 0 the
 * job holds a plan on g until plan_end. */
typedef struct gpu_plan_hold {
    int g, active, uploading, stage;
    uint64_t chunk; /* the streamed path's MSM chunk (0: whole) */
    uint64_t work, provisional; /* working set; key bytes counted before the upload */
} gpu_plan_hold;

static uint64_t plan_begin(cuzk_engine *e, job *j, int g, gpu_plan_hold *h, char *note, size_t note_len, int *rc,
                           cuzk_error *err)
{
    memset(h, 0, sizeof(*h));
    h->g = g;
    *rc = CUZK_OK;
    key_entry *k = j->key;
    uint64_t chunk = 0; /* the MSMs' chunk: 0 whole, else the streamed path */
    int searched = 0;
    for (;;) {
        prove_gpu_plan p;
        prove_gpu_footprint(k->zk, g, chunk, &p);
        pthread_mutex_lock(&e->mu);
        if (atomic_load(&j->cancel)) { /* cancelled while it waited for room */
            pthread_mutex_unlock(&e->mu);
            *rc = cuzk_error_set(err, CUZK_ERR_CANCELLED, "the proof was cancelled");
            return 0;
        }
        if (k->gpu_dropping[g]) {
            /* another plan is freeing this key's copy there: the footprint
             * above may be stale, and the copy must not be used */
            pthread_cond_wait(&e->gpu_cv, &e->mu);
            pthread_mutex_unlock(&e->mu);
            continue;
        }
        const uint64_t budget = e->gpu_budget[g];
        uint64_t pool = p.work_bytes > e->gpu_pool_bytes[g] ? p.work_bytes : e->gpu_pool_bytes[g];
        const uint64_t keys = e->gpu_keys_bytes[g] - (p.resident ? k->gpu_bytes[g] : 0);
        const uint64_t key_need = p.resident ? (k->gpu_bytes[g] ? k->gpu_bytes[g] : p.resident_bytes) : p.key_bytes;
        if (keys + key_need + pool <= budget) {
            /* fits: the key's matrices too when they fit as well (the
             * upload decides within the budget it is given) */
            h->active = 1;
            h->work = p.work_bytes;
            h->chunk = chunk;
            if (chunk)
                e->plan_chunked++;
            /* pre-staging: this proof's witness goes up while another
             * computes, so the pool then holds a working set and a staged
             * witness at once; only when that fits too (else the proof
             * uploads inside the lock) */
            const uint64_t with_stage = p.work_bytes + p.stage_bytes;
            if (e->cfg.prestage >= 0 && p.resident && p.stage_bytes &&
                keys + key_need + (with_stage > pool ? with_stage : pool) <= budget) {
                h->stage = 1;
                if (with_stage > pool)
                    pool = with_stage;
            }
            if (!p.resident) {
                h->uploading = 1;
                uint64_t with = key_need + p.matrix_bytes;
                h->provisional = keys + with + pool <= budget ? with : key_need;
                e->gpu_keys_bytes[g] += h->provisional;
            } else if (!k->gpu_bytes[g]) { /* uploaded outside the plan (a proof before the engine): count it */
                k->gpu_bytes[g] = p.resident_bytes;
                e->gpu_keys_bytes[g] += p.resident_bytes;
            }
            if (pool > e->gpu_pool_bytes[g])
                e->gpu_pool_bytes[g] = pool;
            k->gpu_users[g]++;
            e->gpu_planned[g]++;
            uint64_t upload_budget = budget - (e->gpu_keys_bytes[g] - h->provisional) - pool + p.work_bytes;
            pthread_mutex_unlock(&e->mu);
            return upload_budget ? upload_budget : 1;
        }
        /* make room: drop the least recently used idle key's copy */
        key_entry *idle = NULL;
        for (key_entry *o = e->keys; o; o = o->next)
            if (o != k && o->zk && o->gpu_bytes[g] && !o->gpu_users[g] && !o->gpu_dropping[g] &&
                (!idle || o->last_used < idle->last_used))
                idle = o;
        if (idle) {
            uint64_t b = idle->gpu_bytes[g];
            idle->gpu_bytes[g] = 0;
            e->gpu_keys_bytes[g] -= b < e->gpu_keys_bytes[g] ? b : e->gpu_keys_bytes[g];
            idle->refs++; /* keeps its zkey alive while its copy is dropped */
            idle->gpu_dropping[g] = 1;
            e->plan_drops++;
            pthread_mutex_unlock(&e->mu);
            prove_gpu_key_drop(idle->zk, g);
            pthread_mutex_lock(&e->mu);
            idle->gpu_dropping[g] = 0;
            idle->refs--;
            pthread_cond_broadcast(&e->gpu_cv);
            pthread_mutex_unlock(&e->mu);
            continue;
        }
        if (e->gpu_planned[g] > 0 && !e->stopping) {
            /* fits once the proofs planned on this GPU are done */
            e->plan_waits++;
            pthread_cond_wait(&e->gpu_cv, &e->mu);
            pthread_mutex_unlock(&e->mu);
            continue;
        }
        /* does not fit even alone as a whole: the streamed path, MSMs
         * over the largest chunk of points that lets the proof fit (their
         * scratch is most of a large proof's working set) */
        if (!searched) {
            /* the footprints are computed without the engine's lock (they
             * take the key lock, which an upload holds for its duration);
             * the loop's next round checks the chosen chunk under it */
            searched = 1;
            const uint64_t room = budget > keys + key_need ? budget - keys - key_need : 0;
            const uint64_t pool_now = e->gpu_pool_bytes[g];
            pthread_mutex_unlock(&e->mu);
            for (uint64_t c = (uint64_t)1 << 26; c >= ENGINE_MIN_MSM_CHUNK; c >>= 1) {
                prove_gpu_plan pc;
                prove_gpu_footprint(k->zk, g, c, &pc);
                uint64_t pool_c = pc.work_bytes > pool_now ? pc.work_bytes : pool_now;
                if (pc.work_bytes < p.work_bytes && pool_c <= room) {
                    chunk = c;
                    break;
                }
            }
            continue;
        }
        /* does not fit even alone */
        e->plan_cpu++;
        snprintf(note, note_len,
                 "GPU %d's memory budget (%s) cannot hold this key (%s) and a proof's working set (%s) beside %s "
                 "of other keys",
                 g, cuzk_size_str(budget).s, cuzk_size_str(key_need).s, cuzk_size_str(p.work_bytes).s,
                 cuzk_size_str(keys).s);
        if (e->cfg.device == CUZK_DEVICE_GPU)
            *rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s", note);
        pthread_mutex_unlock(&e->mu);
        return 0;
    }
}

static void plan_end(cuzk_engine *e, job *j, gpu_plan_hold *h)
{
    if (!h->active)
        return;
    const int g = h->g;
    key_entry *k = j->key;
    prove_gpu_plan p;
    prove_gpu_footprint(k->zk, g, 0, &p);
    pthread_mutex_lock(&e->mu);
    if (h->uploading) { /* replace the provisional count with what went up (0 if nothing) */
        e->gpu_keys_bytes[g] -= h->provisional;
        uint64_t got = p.resident ? p.resident_bytes : 0;
        if (!k->gpu_bytes[g]) {
            k->gpu_bytes[g] = got;
            e->gpu_keys_bytes[g] += got;
        }
    }
    k->gpu_users[g]--;
    e->gpu_planned[g]--;
    if (prove_state_staged(j->ps))
        e->plan_staged++;
    else if (prove_state_gpu(j->ps) >= 0)
        e->plan_unstaged++;
    pthread_cond_broadcast(&e->gpu_cv);
    pthread_mutex_unlock(&e->mu);
}

static void run_compute(cuzk_engine *e, worker *wk, job *j)
{
    hook(e, j, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    cuzk_error err = {0};
    int rc = CUZK_OK;
    gpu_plan_hold hold = {0};
    if (atomic_load(&j->cancel))
        rc = CUZK_ERR_CANCELLED;
    else if (wk->gpu >= 0 && prove_state_gpu(j->ps) >= 0) {
        char note[200] = "";
        uint64_t budget = plan_begin(e, j, wk->gpu, &hold, note, sizeof(note), &rc, &err);
        if (rc == CUZK_OK && budget == 0)
            prove_route_cpu(j->ps, note);
        if (rc == CUZK_OK)
            rc = budget ? prove_compute_budget(j->ps, wk->gpu, budget, hold.stage, hold.chunk, &err)
                        : prove_compute(j->ps, -1, &err);
        plan_end(e, j, &hold);
    } else
        rc = prove_compute(j->ps, wk->gpu, &err);
    hook(e, j, CUZK_STAGE_COMPUTE, CUZK_HOOK_LEAVE);
    leftovers left = {0};
    pthread_mutex_lock(&e->mu);
    double t = now();
    busy_stop(wk, t);
    gpu_stop(e, wk->gpu, t);
    e->computing--;
    copy_timings(j);
    stage_done(e, j, rc, &err, &e->q_final, CUZK_STAGE_FINALIZE_WAIT, &e->finalize_cv, &left);
    pthread_cond_broadcast(&e->compute_cv); /* a failed job frees its finalize slot */
    pthread_cond_broadcast(&e->prepare_cv); /* a compute worker is free */
    pthread_mutex_unlock(&e->mu);
    free_leftovers(&left);
}

static void run_finalize(cuzk_engine *e, worker *wk, job *j)
{
    hook(e, j, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    cuzk_error err = {0};
    char *proof = NULL, *pub = NULL;
    int rc = atomic_load(&j->cancel) ? CUZK_ERR_CANCELLED : prove_finalize(j->ps, &proof, &pub, &err);
    hook(e, j, CUZK_STAGE_FINALIZE, CUZK_HOOK_LEAVE);
    leftovers left = {0};
    pthread_mutex_lock(&e->mu);
    busy_stop(wk, now());
    e->finalizing--;
    copy_timings(j);
    if (atomic_load(&j->cancel)) {
        end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, &left);
    } else if (rc != CUZK_OK)
        end_job(e, j, CUZK_JOB_FAILED, rc, err.message, &left);
    else {
        j->proof = proof;
        j->pub = pub;
        proof = pub = NULL;
        end_job(e, j, CUZK_JOB_DONE, CUZK_OK, NULL, &left);
    }
    pthread_mutex_unlock(&e->mu);
    cuzk_free(proof); /* a cancelled job's result is dropped */
    cuzk_free(pub);
    free_leftovers(&left);
}

/* Under the lock: the job this worker should take now, or NULL. A stage
 * takes a job only when the next queue has room for it. */
static job *take_job(cuzk_engine *e, worker *wk)
{
    double t = now();
    job *j = NULL;
    switch (wk->pool) {
    case POOL_PREPARE: {
        /* within the ready queue's bound, and for a free compute worker
         * or one of the jobs prepared ahead */
        unsigned staged = e->q_ready.n + e->preparing;
        unsigned wanted = (unsigned)(e->n_compute - (int)e->computing) + (unsigned)e->cfg.prepare_ahead;
        if (staged >= e->cfg.ready_queue_depth || staged >= wanted || !(j = pq_pop(&e->q_in)))
            return NULL;
        e->preparing++;
        j->info.state = CUZK_JOB_RUNNING;
        j->info.queue_wait = t - j->t_submit;
        e->running++;
        break;
    }
    case POOL_COMPUTE:
        if (e->q_final.n + e->computing >= e->cfg.finalize_queue_depth || !(j = pq_pop(&e->q_ready)))
            return NULL;
        e->computing++;
        j->info.ready_wait = t - j->t_queued;
        j->info.compute_worker = wk->index;
        gpu_start(e, wk->gpu, t);
        pthread_cond_broadcast(&e->prepare_cv); /* a ready slot is free */
        break;
    default:
        if (!(j = pq_pop(&e->q_final)))
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

static void *worker_main(void *arg)
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

static int check_range(const char *what, int v, int hi, cuzk_error *err)
{
    if (v < 0 || v > hi)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine: %s must be in [0, %d], got %d", what, hi, v);
    return CUZK_OK;
}

/* The configuration with every default filled in, and the GPUs to prove
 * on. */
static int effective_config(const cuzk_engine_config *config, cuzk_engine_config *cfg, int *gpus, cuzk_error *err)
{
    *cfg = (cuzk_engine_config){0};
    *gpus = 0;
    if (config)
        *cfg = *config;
    int rc;
    if ((rc = check_range("workers", cfg->workers, ENGINE_MAX_POOL, err)) != CUZK_OK ||
        (rc = check_range("threads per worker", cfg->threads_per_worker, 1024, err)) != CUZK_OK ||
        (rc = check_range("prepare workers", cfg->prepare_workers, ENGINE_MAX_POOL, err)) != CUZK_OK ||
        (rc = check_range("finalize workers", cfg->finalize_workers, ENGINE_MAX_POOL, err)) != CUZK_OK ||
        (rc = check_range("GPU workers per device", cfg->gpu_workers_per_device, 64, err)) != CUZK_OK)
        return rc;
    if (cfg->prepare_ahead < -1 || cfg->prepare_ahead > 65536)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine: prepare ahead must be in [-1, 65536], got %d",
                              cfg->prepare_ahead);
    if (cfg->device < CUZK_DEVICE_AUTO || cfg->device > CUZK_DEVICE_GPU)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine: unknown device choice %d", cfg->device);
    if (cfg->prestage < -1 || cfg->prestage > 1)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "engine: prestage must be -1 (off), 0 (the default: on) or 1 (on), got %d", cfg->prestage);
    if (cfg->ready_queue_depth > 65536 || cfg->finalize_queue_depth > 65536)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "engine: queue depths must be at most 65536");
    if (cfg->workers == 0)
        cfg->workers = 1;
    if (cfg->max_jobs == 0)
        cfg->max_jobs = 1024;
    /* two per GPU: one computes while the other's witness goes up (pre-
     * staging); session 6 on the H200 (BENCHMARKS.md): 2^20 proofs/s 31.7
     * (one worker) -> 34.3 (two, pre-staged) BLS12-381, 53.1 -> 59.1 BN254 */
    if (cfg->gpu_workers_per_device == 0)
        cfg->gpu_workers_per_device = 2;
    /* With GPUs, compute means the GPU call: workers per GPU. Without
     * (device cpu, no CUDA, no GPU), CPU compute workers. With device gpu
     * and no GPU, jobs fail in prepare saying so, as cuzk_prove does. */
    int count = 0;
    if (cfg->device != CUZK_DEVICE_CPU && cuzk_gpu_count(&count) == CUZK_OK && count > 0)
        *gpus = count < CUZK_ENGINE_MAX_GPUS ? count : CUZK_ENGINE_MAX_GPUS;
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
    if (cfg->threads_per_worker == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        int sharers = *gpus ? cfg->prepare_workers : cfg->workers;
        cfg->threads_per_worker = cores > sharers ? (int)(cores / sharers) : 1;
    }
    if (cfg->prepare_ahead < 0)
        cfg->prepare_ahead = 0;
    else if ((unsigned)cfg->prepare_ahead > cfg->ready_queue_depth)
        cfg->prepare_ahead = (int)cfg->ready_queue_depth;
    return CUZK_OK;
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
    e->next_id = 1;
    e->t_create = now();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->prepare_cv, &ca);
    pthread_cond_init(&e->compute_cv, &ca);
    pthread_cond_init(&e->finalize_cv, &ca);
    pthread_cond_init(&e->ended, &ca);
    pthread_cond_init(&e->gpu_cv, &ca);
    pthread_condattr_destroy(&ca);
    for (int g = 0; g < gpus; g++) {
        /* the plan's budget: given, or the free memory now (before any
         * proof: the one device-global query) less 1 GiB of headroom */
        uint64_t free_b = 0, total_b = 0;
        if (cfg.gpu_memory_budget)
            e->gpu_budget[g] = cfg.gpu_memory_budget;
        else if (prove_gpu_memory(g, &free_b, &total_b) == CUZK_OK && free_b > ((uint64_t)1 << 30))
            e->gpu_budget[g] = free_b - ((uint64_t)1 << 30);
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
        if (pthread_create(&e->workers[i].thread, NULL, worker_main, &e->workers[i]) != 0) {
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
    pthread_cond_broadcast(&e->gpu_cv);
    for (int b = 0; b < ENGINE_JOB_BUCKETS; b++)
        for (job *j = e->buckets[b]; j; j = j->next_in_bucket)
            if (j->info.stage == CUZK_STAGE_PREPARE || j->info.stage == CUZK_STAGE_COMPUTE ||
                j->info.stage == CUZK_STAGE_FINALIZE)
                atomic_store(&j->cancel, 1);
    pqueue *queues[3] = {&e->q_in, &e->q_ready, &e->q_final};
    leftovers left = {0};
    for (int q = 0; q < 3; q++) {
        job *j;
        while ((j = pq_pop(queues[q]))) {
            end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, &left);
            /* workers may still be finishing stages: free outside the lock */
            pthread_mutex_unlock(&e->mu);
            free_leftovers(&left);
            pthread_mutex_lock(&e->mu);
        }
    }
    pthread_cond_broadcast(&e->prepare_cv);
    pthread_cond_broadcast(&e->compute_cv);
    pthread_cond_broadcast(&e->finalize_cv);
    pthread_cond_broadcast(&e->ended);
    pthread_mutex_unlock(&e->mu);
    hook(e, NULL, CUZK_STAGE_ENDED, CUZK_HOOK_STOP);
    for (int i = 0; i < e->n_started; i++)
        pthread_join(e->workers[i].thread, NULL);
    free(e->workers);
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
    pthread_cond_destroy(&e->prepare_cv);
    pthread_cond_destroy(&e->compute_cv);
    pthread_cond_destroy(&e->finalize_cv);
    pthread_cond_destroy(&e->ended);
    pthread_cond_destroy(&e->gpu_cv);
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
        forget_gpu_copies(e, k);
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
    forget_gpu_copies(e, k);
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
    atomic_init(&j->cancel, 0);
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
    j->info.stage = CUZK_STAGE_QUEUED;
    j->info.ended_in = CUZK_STAGE_QUEUED;
    j->info.compute_worker = -1;
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
    j->t_submit = j->t_queued = now();
    j->next_in_bucket = e->buckets[j->info.id % ENGINE_JOB_BUCKETS];
    e->buckets[j->info.id % ENGINE_JOB_BUCKETS] = j;
    pq_push(&e->q_in, j);
    e->active++;
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
    leftovers left = {0};
    job *j = lock_job(e, id, &rc, err);
    if (j && !ended(j)) {
        /* waiting in a queue: it ends now and its slot frees; in a stage:
         * the worker ends it when the stage's work returns */
        if (j->info.stage == CUZK_STAGE_QUEUED && pq_remove(&e->q_in, j))
            end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, &left);
        else if (j->info.stage == CUZK_STAGE_READY && pq_remove(&e->q_ready, j)) {
            end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, &left);
            pthread_cond_broadcast(&e->prepare_cv);
        } else if (j->info.stage == CUZK_STAGE_FINALIZE_WAIT && pq_remove(&e->q_final, j)) {
            end_job(e, j, CUZK_JOB_CANCELLED, CUZK_ERR_CANCELLED, NULL, &left);
            pthread_cond_broadcast(&e->compute_cv);
        } else {
            atomic_store(&j->cancel, 1);
            pthread_cond_broadcast(&e->gpu_cv); /* it may be waiting for room on a GPU */
        }
    }
    pthread_mutex_unlock(&e->mu);
    free_leftovers(&left);
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
    double t = now();
    for (int p = 0; p < 4; p++)
        for (job *j = e->q_in.head[p]; j; j = j->next_queued)
            s->queued[p]++;
    s->running = e->running;
    s->done = e->done;
    s->failed = e->failed;
    s->cancelled = e->cancelled;
    s->key_bytes = cached_bytes(e, &s->keys_cached);
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
    for (int g = 0; g < e->gpus; g++) {
        s->gpu_budget[g] = e->gpu_budget[g];
        s->gpu_key_bytes[g] = e->gpu_keys_bytes[g];
        s->gpu_pool_bytes[g] = e->gpu_pool_bytes[g];
    }
    s->plan_waits = e->plan_waits;
    s->plan_drops = e->plan_drops;
    s->plan_cpu = e->plan_cpu;
    s->plan_staged = e->plan_staged;
    s->plan_unstaged = e->plan_unstaged;
    s->plan_chunked = e->plan_chunked;
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
