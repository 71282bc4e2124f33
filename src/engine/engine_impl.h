/* The engine's insides, shared by its files (include/cuzk.h "engine" is
 * the API; docs/engine.md the design):
 *
 *   engine.c     configuration, the job table, submit/wait/result/cancel/
 *                release, the stats, create and destroy
 *   workers.c    the worker pools and the three stages a job runs through
 *   queue.c      the priority queues between the stages
 *   key_cache.c  the keys the jobs share
 *   src/gpu/     each GPU's memory plan (plan.c) and the keys' copies on
 *                GPUs (residency.c)
 *
 * A job goes through three stages (src/groth16/prove.h), each with its own
 * pool of threads, and through bounded priority queues between them:
 *
 *   in (admission, max_jobs) -> prepare workers -> ready (ready_queue_depth)
 *   -> compute workers -> finalize queue (finalize_queue_depth)
 *   -> finalize workers -> ended
 *
 * Prepare (CPU) loads the key and witness and, for a GPU, evaluates a and b
 * and splits the witness; compute runs the GPU call (gpu_workers_per_device
 * compute workers per GPU) or, without a GPU, the whole CPU proof; finalize
 * (CPU) finishes the GPU's MSMs, blinds, verifies and writes the JSON. So
 * the CPU prepares job n+1 and finalizes job n-1 while the GPU computes
 * job n.
 *
 * Bounds: a stage takes a job only when the next queue has room for it
 * (the queue's bound counts the jobs in the stage feeding it), so a job
 * waits in the earlier queue, where a higher-priority job that arrives
 * later can still pass it; prepared data in host memory is bounded by the
 * ready queue's depth plus the jobs computing.
 *
 * One mutex guards the engine's state; nothing slow runs under it: keys and
 * witnesses are opened, stages run and prepared data is freed with it
 * released. While a worker runs a stage, the job's key, witness and prove
 * state belong to that worker; while the job waits in a queue, they belong
 * to the engine (the lock), so cancel can free them at once. The key cache
 * and the memory plan have locks of their own; the engine's may be held
 * when the key cache's is taken (never the other way), the plan's is never
 * taken with the engine's held. */
#ifndef CUZK_ENGINE_IMPL_H
#define CUZK_ENGINE_IMPL_H

#include <pthread.h>
#include <stdatomic.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"
#include "../gpu/residency.h"
#include "../groth16/prove.h"
#include "../util/file.h"
#include "key_cache.h"
#include "queue.h"
#include "submit.h"

#define ENGINE_JOB_BUCKETS 4096 /* job lookup hash: ids are sequential */

typedef struct job {
    cuzk_job_info info;
    struct cuzk_engine *engine;
    char *key_name;    /* its key's id (key_is_id) or path: two namespaces (key_cache.h) */
    int key_is_id;
    char *key_circuit; /* with a path: a .params key's .r1cs (NULL: a .zkey) */
    char *witness_path;
    int confine;       /* cuzk_job_request.confine */
    cuzk_prove_options opts; /* its proofs' options (the request's, or the engine's), threads resolved */
    int gpu_pin;       /* the GPU it must run on (its options say device gpu), -1 any */
    engine_job_extra x;      /* what a caller inside the library gave (engine_submit); zeros: none */
    const struct cuzk_zkey *zk; /* its key from prepare on: the cached copy's, or the caller's (x.key) */
    core_prove_out out;       /* a done job's proof as the prover left it (engine_result_out) */
    void *witness; /* the witness's bytes, when given as bytes (w maps them) */
    size_t witness_len;
    int generate_witness; /* made by the prepare worker: partition `partition` of the key's circuit */
    unsigned partition;
    const cuzk_wtns *witness_wtns; /* the caller's, open until the job ends */
    char *proof, *pub;
    char *vk;          /* when done: its key's verification key JSON (cuzk_engine_result_vk) */
    double t_submit;
    double t_queued;   /* when it entered the queue it is in */
    atomic_int cancel; /* read by the stage running it, without the lock */
    key_entry *key;    /* held from prepare to the end */
    cuzk_wtns *w;
    prove_state *ps;
    pq_node queued;    /* in its queue's priority FIFO */
    struct job *next_in_bucket;
    /* A job of several partitions is a parent that never enters a queue
     * and n_parts partition jobs that do (info.id the parent's; not in the
     * table: found through the parent). The parent ends when its last
     * partition does (engine_end_job). */
    struct job *parent;  /* a partition: its job */
    struct job **parts;  /* a parent: its partitions, in order */
    unsigned n_parts, parts_left;
    unsigned part;       /* a partition: its index */
    uint64_t held_bytes; /* host memory counted against job_memory_budget (prepare to end) */
    int busy_gpu;        /* in compute: the GPU whose busy time it counts (its worker's, or the one
                            the memory plan sent it to), -1 none */
} job;

enum { POOL_PREPARE, POOL_COMPUTE, POOL_FINALIZE };

typedef struct worker {
    struct cuzk_engine *e;
    pthread_t thread;
    int pool, index;
    int gpu;                 /* compute workers: the GPU it proves on, -1 the CPU */
    double busy, busy_since; /* under the lock; busy_since 0: idle */
} worker;

struct cuzk_engine {
    cuzk_engine_config cfg; /* with the defaults filled in */
    pthread_mutex_t mu;
    pthread_cond_t prepare_cv, compute_cv, finalize_cv, ended;
    pqueue q_in, q_ready, q_final;
    unsigned preparing, computing, finalizing;
    job *buckets[ENGINE_JOB_BUCKETS];
    key_cache *keys;
    gpu_plan *plan; /* the device-memory plan (src/gpu/plan.c) */
    /* where confined jobs' keys and witnesses must lie (cfg's key_dirs,
     * witness_dirs, copied into dirs[]) */
    file_limits key_limits, witness_limits;
    char **dirs;
    worker *workers;
    int n_workers, n_started, n_prepare, n_compute, n_finalize;
    int gpus;
    int gpu_active[CUZK_ENGINE_MAX_GPUS]; /* jobs in compute on each GPU */
    double gpu_since[CUZK_ENGINE_MAX_GPUS], gpu_busy[CUZK_ENGINE_MAX_GPUS];
    int stopping;
    unsigned active; /* queued + running */
    unsigned running;
    unsigned long long next_id, finish_seq, done, failed, cancelled;
    /* job_memory_budget: bytes the jobs in the pipeline hold (estimated at
     * prepare's start as the last prepared job's size, then its own), the
     * most so far, the last prepared job's */
    uint64_t job_bytes, job_bytes_max, job_bytes_last;
    double t_create;
    /* sums over the jobs done, for the means in the stats */
    double sum_queue_wait, sum_load, sum_prepare, sum_ready_wait, sum_compute, sum_finalize_wait, sum_finalize,
        sum_verify, sum_latency;
};

/* What an ended job leaves to free once the engine's lock is released. */
typedef struct leftovers {
    prove_state *ps;
    cuzk_wtns *w;
    void *witness;
    key_evicted evicted; /* keys the job's end pushed out of the cache */
} leftovers;

/* engine.c */
/* Under the lock: the job ends (state DONE, FAILED or CANCELLED); it lets
 * go of its key (the cache's budget applies at once) and its prepared data
 * goes to *left. A partition's end counts towards its job's: the first
 * failure fails the job and cancels its other partitions (at their next
 * stage boundary), the last partition's end ends the job. */
void engine_end_job(cuzk_engine *e, job *j, int state, int status, const char *error, leftovers *left);
/* Without the lock. */
void engine_free_leftovers(cuzk_engine *e, leftovers *l);

/* workers.c */
void *engine_worker_main(void *arg);
/* The testing hook (cuzk_engine_config.stage_hook), outside the lock. */
void engine_hook(cuzk_engine *e, const job *j, int stage, int event);

#endif
