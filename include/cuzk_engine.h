/* cuzk's proving engine (part of libcuzk; cuzk.h's conventions hold). */
#ifndef CUZK_ENGINE_H
#define CUZK_ENGINE_H

#include "cuzk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A proving engine: a queue of proof jobs, a pipeline of worker pools that
 * run them (prepare on the CPU -> compute on a GPU or the CPU -> finalize
 * on the CPU, with bounded queues between), and a cache of loaded keys
 * shared by the jobs (src/engine/, docs/engine.md). Every queue
 * serves jobs in priority order (CRITICAL first: a WindowPoSt deadline must
 * not wait behind PoRep work), first-in first-out within a priority. A
 * job's key comes from a path (loaded on first use and cached under that
 * path) or from an id given to cuzk_engine_key_load (ids and paths are
 * separate namespaces: an id never stands for a path's key); a cached key
 * whose file changed since it was read (device, inode, size or times) is
 * read again for the next job, while running jobs keep the copy they
 * hold. Keys not used by a running job are evicted least-recently-used
 * when the cache exceeds its byte budget. Every job records where its time
 * went. All functions are thread-safe. */

typedef struct cuzk_engine cuzk_engine;

#define CUZK_ENGINE_MAX_GPUS 16    /* GPUs an engine proves on (the first 16) */
#define CUZK_ENGINE_MAX_WORKERS 64 /* compute workers reported one by one in the stats */

typedef enum cuzk_priority {
    CUZK_PRIORITY_LOW = 0,
    CUZK_PRIORITY_NORMAL = 1,
    CUZK_PRIORITY_HIGH = 2,
    CUZK_PRIORITY_CRITICAL = 3
} cuzk_priority;

typedef enum cuzk_job_state {
    CUZK_JOB_QUEUED = 0,
    CUZK_JOB_RUNNING = 1,
    CUZK_JOB_DONE = 2,
    CUZK_JOB_FAILED = 3,
    CUZK_JOB_CANCELLED = 4
} cuzk_job_state;

/* A state's name, the one spelling the daemon's API, its journal, its
 * PostgreSQL queue and `cuzk submit` use: "queued", "running", "done",
 * "failed", "cancelled"; "unknown" for any other value. */
CUZK_API const char *cuzk_job_state_name(int state);
/* The state a name spells (exactly), or -1. */
CUZK_API int cuzk_job_state_from_name(const char *name);

/* Where a job is in the engine's pipeline (docs/engine.md):
 * queued -> prepare -> ready -> compute -> finalize wait -> finalize -> ended.
 * The *_WAIT stages and READY are bounded queues between worker pools. */
typedef enum cuzk_job_stage {
    CUZK_STAGE_QUEUED = 0,        /* admitted, waiting for a prepare worker (state QUEUED) */
    CUZK_STAGE_PREPARE = 1,       /* key and witness loaded; checks, and with a GPU eval + witness split */
    CUZK_STAGE_READY = 2,         /* prepared, waiting for a compute worker */
    CUZK_STAGE_COMPUTE = 3,       /* the GPU call, or the whole CPU proof */
    CUZK_STAGE_FINALIZE_WAIT = 4, /* computed, waiting for a finalize worker */
    CUZK_STAGE_FINALIZE = 5,      /* finishing the MSMs, blinding, verifying, JSON */
    CUZK_STAGE_ENDED = 6,         /* done, failed or cancelled */
    CUZK_STAGES = 7
} cuzk_job_stage;

/* Testing hook events: a worker took a job into a stage (ENTER, before its
 * work) or finished the stage's work (LEAVE, before the job moves on); STOP
 * is sent once by cuzk_engine_destroy before it waits for the workers. */
enum { CUZK_HOOK_ENTER = 0, CUZK_HOOK_LEAVE = 1, CUZK_HOOK_STOP = 2 };
typedef void (*cuzk_stage_hook)(void *ctx, unsigned long long job, int stage, int event);

typedef struct cuzk_engine_config {
    int workers;            /* CPU compute workers (proofs computed at once without a GPU); 0: 1 */
    /* Every proof's options unless its job gives its own
     * (cuzk_job_request.options): device, threads (0: cores / workers,
     * with GPUs cores / prepare_workers), gpu_upload, gpu_eval,
     * gpu_msm_chunk (testing: MSMs over at most that many points whatever
     * the plan chose), random, no_verify, progress (a key's first upload
     * to a GPU; NULL: the engine's, below); gpu is unused (the workers'
     * GPUs). */
    cuzk_prove_options proof;
    unsigned long long key_cache_bytes; /* budget for cached keys (their file sizes); 0: no limit */
    unsigned max_jobs;      /* jobs queued or running at once; 0: 1024; beyond: CUZK_ERR_BUSY */
    /* The pipeline (docs/engine.md); 0 picks the default. */
    int prepare_workers;          /* load + prepare (CPU); 0: one per compute worker */
    int finalize_workers;         /* finalize (CPU); 0: 1 */
    int gpu_workers_per_device;   /* compute workers per GPU when proving on GPUs; 0: 2 */
    unsigned ready_queue_depth;   /* prepared jobs (incl. those being prepared) waiting for compute;
                                     0: one per compute worker */
    unsigned finalize_queue_depth; /* computed jobs (incl. those computing) waiting for finalize;
                                      0: two per compute worker */
    int prepare_ahead; /* jobs prepared before a compute worker is free for them (at most
                          ready_queue_depth); 0: with GPUs all of ready_queue_depth (keeps them
                          fed), without none (prepare is just loading: jobs leave the admission
                          queue strictly by priority); -1: none */
    /* Testing only (NULL in production): called by the workers at each
     * stage's start and end, outside the engine's lock; it may block to
     * hold a job in a stage. */
    cuzk_stage_hook stage_hook;
    void *stage_hook_ctx;
    /* Device memory each GPU may hold for keys and proofs (the plan in
     * docs/engine.md); 0: its free memory at cuzk_engine_create less 1 GiB */
    unsigned long long gpu_memory_budget;
    /* 1: no pre-staging: every GPU proof's witness goes up inside the
     * GPU's compute lock. 0 (the default): it goes up outside the lock
     * while another proof computes, when the plan has room (docs/engine.md;
     * faster with the default pinned uploads: BENCHMARKS.md, the engine). */
    int no_prestage;
    /* Key loads and a key's first upload to each GPU (stages "reading key
     * NAME" and "uploading the key to GPU N (key NAME)", NAME the id or
     * path), called on the worker doing it; NULL: none.
     * cuzk_serve logs them (cuzk_serve_config.log) when this is NULL. */
    cuzk_progress_fn progress;
    void *progress_ctx;
    /* Host memory the jobs in the pipeline may hold at once: their
     * witnesses (read, uploaded or made) and prepared arrays, from prepare
     * to their end. A prepare worker takes the next job only when the last
     * prepared job's size fits beside what is held (one job always runs);
     * 0: no limit. A 10-partition PoRep job holds
     * 4.2 GB a partition in flight beside its key (BENCHMARKS.md). */
    unsigned long long job_memory_budget;
    /* GPU g's own device-memory budget where nonzero, else
     * gpu_memory_budget's. A proof that cannot
     * fit on its GPU even alone goes to another GPU whose plan can hold
     * it, and only when none can to the CPU (device auto) or fails
     * (device gpu). */
    unsigned long long gpu_memory_budgets[CUZK_ENGINE_MAX_GPUS];
    /* Shifted copies of a key's H points kept with its copy on each GPU
     * H's MSM then merges its windows (one set
     * of buckets, larger windows: BENCHMARKS.md). 0: as many as pay, in at
     * most half the room the GPU's plan leaves after the key, its
     * matrices, a proof's working set and a staged witness; 1: none; k: at
     * most k. */
    unsigned gpu_msm_copies;
    /* The directories a confined job's files must lie beneath
     * (cuzk_job_request.confine; cuzk serve's --key-dir and --witness-dir),
     * absolute paths without links as realpath makes them; copied. */
    const char *const *key_dirs;
    unsigned n_key_dirs;
    const char *const *witness_dirs;
    unsigned n_witness_dirs;
} cuzk_engine_config;

typedef struct cuzk_job_request {
    const char *key_path;     /* the key: a .zkey path, */
    const char *key_id;       /* or the id of a key loaded with cuzk_engine_key_load */
    const char *witness_path; /* the witness: a .wtns path, */
    const void *witness;      /* or a .wtns file's bytes (copied) */
    size_t witness_len;
    int priority;             /* cuzk_priority */
    /* with key_path: the key is a bellperson
     * .params key of this circuit (cuzk_params_open); NULL: a .zkey */
    const char *r1cs_path;
    /* Instead of witness_path or witness, the
     * witness made by the prepare worker from the key's circuit
     * (generate_witness: partition `partition` of porep-shape's native
     * form, whose key was opened with it), or a witness the caller keeps
     * open until the job ends (witness_wtns: not copied). */
    int generate_witness;
    unsigned partition;
    const cuzk_wtns *witness_wtns;
    /* A job of several partitions, one key and
     * `partitions` proofs (Filecoin's PoRep: 10) through the pipeline one
     * after another, so that partition k + 1's witness and upload overlap
     * partition k's GPU work. With generate_witness: partitions partition,
     * partition + 1, ... of the key's circuit; with witness_paths: one .wtns
     * a partition; with partition_wtns: one open witness a partition, kept
     * by the caller until the job ends (witness_path, witness and
     * witness_wtns NULL). The job
     * ends done when every partition's proof is done, failed as soon as one
     * fails (the others are cancelled; its error names the partition: the
     * number a generated witness has, else the place in witness_paths), and
     * takes `partitions` of max_jobs;
     * its results are arrays, one entry a partition (cuzk_engine_result).
     * 0 (witness_paths NULL): one proof, as before. */
    unsigned partitions;
    const char *const *witness_paths;
    const cuzk_wtns *const *partition_wtns;
    /* This job's proof options (copied); NULL: the engine's
     * (cuzk_engine_config.proof). With device CUZK_DEVICE_GPU the job
     * runs on GPU options->gpu only. */
    const cuzk_prove_options *options;
    /* CUZK_CONFINE_KEY: key_path and r1cs_path are read only when the file
     * opened lies beneath one of the engine's key_dirs;
     * CUZK_CONFINE_WITNESS: witness_path(s) beneath its witness_dirs
     * (cuzk_engine_config). Checked on the descriptor opened, so a link
     * swapped in after the job was accepted cannot lead outside. 0: any
     * file. */
    int confine;
} cuzk_job_request;

enum { CUZK_CONFINE_KEY = 1, CUZK_CONFINE_WITNESS = 2 };

#define CUZK_JOB_MAX_PARTITIONS 1024 /* partitions of one job */

typedef struct cuzk_job_info {
    unsigned long long id;
    int state;    /* cuzk_job_state */
    int priority;
    int status;   /* with CUZK_JOB_FAILED: what went wrong, and error: */
    char error[512];
    unsigned long long finish_seq; /* 1, 2, ... in the order jobs finished (0: not yet) */
    double queue_wait;             /* seconds from submission to a (prepare) worker taking it */
    double load;                   /* key from the cache (or loaded) and witness opened */
    cuzk_timings timings;          /* the proof's phases and stages (prepare, compute, finalize) */
    int stage;                     /* cuzk_job_stage: where it is now (CUZK_STAGE_ENDED once ended) */
    int ended_in;                  /* cuzk_job_stage it was in when it ended (failed, cancelled, done) */
    double ready_wait;             /* seconds prepared, waiting for a compute worker */
    double finalize_wait;          /* seconds computed, waiting for a finalize worker */
    double latency;                /* seconds from submission to the end */
    int compute_worker;            /* which compute worker computed it (-1: none) */
    double witness;                /* seconds making the witness (generate_witness) */
    /* A job of several partitions has `partitions`
     * > 1, of which partitions_ended have ended; its info sums the
     * partitions' seconds (load, witness, ready and finalize waits,
     * timings), its queue_wait is its first partition's, its stage that of
     * its first partition not ended, compute_worker the last one's, and an
     * error names the failing partition. cuzk_engine_partition_info gives
     * each partition's own. One proof: partitions 1. */
    unsigned partitions, partitions_ended;
} cuzk_job_info;

typedef struct cuzk_engine_stats {
    unsigned queued[4];             /* in the admission queue, by priority */
    unsigned running;               /* past admission, not ended (any stage or queue after it) */
    unsigned long long done, failed, cancelled; /* proofs (a job of P partitions counts P), as queued, running */
    unsigned keys_cached;
    unsigned long long key_bytes;   /* of the cached keys */
    double uptime;                  /* seconds since cuzk_engine_create */
    double worker_busy;             /* fraction of uptime x compute workers spent computing */
    int workers;                    /* compute workers */
    /* The pipeline. */
    int prepare_workers, finalize_workers;
    unsigned ready_queue_depth, finalize_queue_depth; /* the bounds (effective values) */
    int prepare_ahead;                                /* effective value (0: none) */
    unsigned preparing, ready, computing, finalize_waiting, finalizing; /* jobs in each stage now */
    unsigned ready_max, finalize_queue_max; /* most jobs each queue has held at once */
    double prepare_busy, finalize_busy;     /* fraction of uptime x pool size at work */
    int gpus;                               /* GPUs proving (0: compute on the CPU) */
    double gpu_busy[CUZK_ENGINE_MAX_GPUS];  /* fraction of uptime with a job in compute on GPU i */
    double compute_worker_busy[CUZK_ENGINE_MAX_WORKERS]; /* the first CUZK_ENGINE_MAX_WORKERS */
    int compute_worker_gpu[CUZK_ENGINE_MAX_WORKERS];     /* its GPU, -1: CPU */
    /* means over the jobs done so far, seconds */
    double mean_queue_wait, mean_load, mean_prepare, mean_ready_wait, mean_compute, mean_finalize_wait,
        mean_finalize, mean_verify, mean_latency;
    /* The device-memory plan, per GPU: budget, bytes of resident keys, and
     * working memory the pool keeps (the largest working set so far); how
     * often a proof waited for room, a key's GPU copy was dropped to make
     * room, and a proof went to the CPU because it did not fit alone. */
    unsigned long long gpu_budget[CUZK_ENGINE_MAX_GPUS], gpu_key_bytes[CUZK_ENGINE_MAX_GPUS],
        gpu_pool_bytes[CUZK_ENGINE_MAX_GPUS];
    unsigned long long plan_waits, plan_drops, plan_cpu;
    /* GPU proofs whose witness went up before the GPU was theirs (outside
     * its compute lock, while another proof computed), and those that
     * uploaded it inside because the plan had no room for both */
    unsigned long long plan_staged, plan_unstaged;
    /* GPU proofs that fitted only on the streamed path: their MSMs over
     * chunks of points (less device memory, some speed) */
    unsigned long long plan_chunked;
    /* Host bytes the jobs in the pipeline hold now and the most they have
     * held (job_memory_budget's count) */
    unsigned long long job_bytes, job_bytes_max;
    /* GPU proofs that went to another GPU because theirs could not hold
     * the key and a working set even alone */
    unsigned long long plan_other_gpu;
} cuzk_engine_stats;

CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_create(const cuzk_engine_config *config, cuzk_engine **out,
                                                        cuzk_error *err);
/* Cancels every job: queued ones and those waiting between stages at
 * once, those inside a stage at its end; waits for the workers, frees
 * everything. */
CUZK_API void cuzk_engine_destroy(cuzk_engine *engine);
/* Loads a key under an id, ahead of jobs that name it; an id already
 * loaded gets the new key (jobs running with the old one finish with it;
 * when the load fails the id keeps its key). An evicted key is reloaded
 * from its path when a job needs it again. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_key_load(cuzk_engine *engine, const char *key_id, const char *path,
                                                          cuzk_error *err);
/* The same for a bellperson .params key with its circuit's .r1cs
 * (cuzk_params_open), read again when either file changes. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_key_load_params(cuzk_engine *engine, const char *key_id,
                                                                 const char *params_path, const char *r1cs_path,
                                                                 cuzk_error *err);
/* Drops a cached key (by id or path) once no running job uses it;
 * CUZK_ERR_NOT_FOUND if it is not cached. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_key_evict(cuzk_engine *engine, const char *key, cuzk_error *err);
/* Whether jobs may name key_id: it was loaded (cached now, or evicted and
 * read again when a job needs it). 1 or 0. */
CUZK_API int cuzk_engine_key_known(cuzk_engine *engine, const char *key_id);
/* The files key_id was loaded from: *path, and *r1cs_path the circuit of a
 * .params key (NULL for a .zkey); free both with cuzk_free. What a fleet
 * compares to bind an id to one key (docs/cluster.md).
 * CUZK_ERR_NOT_FOUND for an id never loaded. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_key_files(cuzk_engine *engine, const char *key_id, char **path,
                                                           char **r1cs_path, cuzk_error *err);
/* Queues a job: *id identifies it. CUZK_ERR_BUSY when max_jobs are queued
 * or running; CUZK_ERR_NOT_FOUND for an unknown key_id; problems with the
 * files themselves show when the job runs (CUZK_JOB_FAILED, with the
 * message). */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_submit(cuzk_engine *engine, const cuzk_job_request *req,
                                                        unsigned long long *id, cuzk_error *err);
/* Waits up to timeout seconds (< 0: forever) for the job to end; fills
 * info either way (info->state says whether it ended). */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_wait(cuzk_engine *engine, unsigned long long id, double timeout,
                                                      cuzk_job_info *info, cuzk_error *err);
/* A finished job's proof.json and public.json (free with cuzk_free);
 * CUZK_ERR_BUSY while it runs, its status if it failed,
 * CUZK_ERR_CANCELLED. A job of several partitions: JSON arrays of them,
 * in partition order ([proof 0, proof 1, ...] and [public 0, ...]). */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_result(cuzk_engine *engine, unsigned long long id, char **proof_json,
                                                        char **public_json, cuzk_error *err);
/* A job of several partitions: its k-th partition's own info (0 <= k <
 * partitions; its id is the job's; a job of one proof: k = 0, the job's).
 * CUZK_ERR_NOT_FOUND for an unknown job or k past its partitions. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_partition_info(cuzk_engine *engine, unsigned long long id,
                                                                unsigned k, cuzk_job_info *info, cuzk_error *err);
/* A done job's proofs as bellperson serializes them: 192 bytes a
 * partition (cuzk_proof_to_bellperson), in partition order, 1,920 for a
 * PoRep (*out: free with cuzk_free). CUZK_ERR_UNSUPPORTED for BN254 or
 * a build without jansson; otherwise as cuzk_engine_result. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_result_bellperson(cuzk_engine *engine, unsigned long long id,
                                                                   unsigned char **out, size_t *len,
                                                                   cuzk_error *err);
/* The verification key (snarkjs's verification_key.json) of the key a done
 * job was proved with, so that whoever stores the proof can check it later
 * (the daemon does, after a restart); free with cuzk_free. CUZK_ERR_BUSY
 * while the job runs, CUZK_ERR_NOT_FOUND when it did not end done. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_result_vk(cuzk_engine *engine, unsigned long long id, char **vk_json,
                                                           cuzk_error *err);
/* Cancels a job: at once when it waits in a queue (queued, ready, finalize
 * wait; its prepared data is freed), at the end of its stage when a worker
 * runs it (prepare also checks between its evaluation and witness split, a
 * CPU proof between its phases: evaluation, transforms, each MSM; a GPU
 * call runs to its end). */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_cancel(cuzk_engine *engine, unsigned long long id, cuzk_error *err);
/* Forgets an ended job and its result. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_engine_release(cuzk_engine *engine, unsigned long long id,
                                                         cuzk_error *err);
CUZK_API void cuzk_engine_get_stats(cuzk_engine *engine, cuzk_engine_stats *stats);

#ifdef __cplusplus
}
#endif

#endif
