/* GPU residency: the one home of what stays on a GPU between proofs and of
 * the decisions about GPU memory.
 *
 *   copies      each key's copy on each GPU (its points and NTT tables, and
 *               its constraint matrices when the GPU evaluates a, b):
 *               uploaded by the key's first proof there, kept until the key
 *               is freed (cuzk_zkey_free calls residency_forget) or a memory
 *               plan drops it to make room (residency.c)
 *   footprints  what a copy and one proof with it take on a GPU, computed
 *               on the host without a CUDA call
 *   plans       a GPU's memory plan as the engine keeps it (plan.c): its
 *               budget, the copies it counts, the proofs' working memory,
 *               and the decision whether a proof fits, waits for room,
 *               streams its MSMs in chunks or goes to the CPU
 *
 * The file readers know nothing of GPUs; the prover (src/groth16/prove.c)
 * asks here for a key's copy, the engine for room in its plan. Every
 * function is thread-safe. Without CUDA no copy is ever resident and
 * residency_acquire answers CUZK_ERR_NO_DEVICE. */
#ifndef CUZK_GPU_RESIDENCY_H
#define CUZK_GPU_RESIDENCY_H

#include <stdatomic.h>
#include <stdint.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"
#include "../util/progress.h"

struct cuzk_zkey;
struct cuzk_gpu_key;

/* GPUs a key can be resident on at once (the engine's CUZK_ENGINE_MAX_GPUS). */
#define RESIDENCY_MAX_GPUS CUZK_ENGINE_MAX_GPUS

/* A key's copy on one GPU. */
typedef enum residency_state {
    RESIDENCY_ABSENT,    /* no copy: never uploaded there, or dropped */
    RESIDENCY_UPLOADING, /* a proof is uploading it; others wanting it wait */
    RESIDENCY_RESIDENT,  /* there, with its matrices or without */
    RESIDENCY_DROPPING,  /* being freed to make room; others wait */
    /* an upload outside any plan failed: that failure answers again,
     * without a second try on this GPU (a plan's failed uploads go back to
     * ABSENT, to be tried when there is room) */
    RESIDENCY_FAILED
} residency_state;

/* What a key takes on one GPU, and what is there now. */
typedef struct residency_footprint {
    uint64_t key_bytes;    /* points and NTT tables */
    uint64_t matrix_bytes; /* constraint matrices and the witness split's buffers (0: the CPU evaluates) */
    uint64_t work_bytes;   /* one proof's peak working set, its MSMs over at most msm_chunk points at a time */
    uint64_t stage_bytes;  /* a proof's inputs pre-staged beside another proof: its witness, and a, b when given (0: no copy there) */
    /* H's shifted copies (precomputation for its MSM): the copies that
     * pay most (1: none) and the bytes of one; residency_fits decides how
     * many go up */
    unsigned h_copies_max;
    uint64_t h_copy_bytes;
    uint64_t witness_bytes; /* a staged witness of this key (kept free of copies when the matrices go up) */
    residency_state state; /* of the copy there */
    uint64_t resident_bytes; /* with state RESIDENT: what the copy holds */
} residency_footprint;

/* The footprint of zk on GPU gpu, with its matrices unless cpu_eval, and
 * MSMs over at most msm_chunk points at a time (0: each MSM at once). */
void residency_footprint_of(const struct cuzk_zkey *zk, int gpu, int cpu_eval, uint64_t msm_chunk,
                            residency_footprint *fp);

/* 1 when the key's copy plus one proof's working set fit in room bytes;
 * *with_matrices then says whether the matrices fit as well, and *h_copies
 * how many shifted copies of H go up with the copy (1: none): as many as
 * pay, within half the room left after the key, its matrices, the working
 * set and (with the matrices) a staged witness; the other half stays for
 * other keys and proofs. The one fit rule:
 * residency_acquire applies it to a GPU's free memory, plans to their
 * budgets. */
int residency_fits(const residency_footprint *fp, uint64_t room, int *with_matrices, unsigned *h_copies);
/* The bytes a copy with h_copies copies of H holds beyond fp->key_bytes. */
uint64_t residency_h_copies_bytes(const residency_footprint *fp, unsigned h_copies);

/* How a proof asks for its key's copy on a GPU. */
typedef struct residency_request {
    int gpu;
    int pinned;   /* uploads through the pinned slots (CUZK_GPU_UPLOAD_PINNED) */
    int cpu_eval; /* the matrices stay on the host (CUZK_GPU_EVAL_CPU) */
    /* 0: no plan: the copy and one proof's working set must fit in the
     * GPU's free memory less 1 GiB (asked of the GPU here, at the upload; a
     * failure is final for this key and GPU). 1: a plan made room for the
     * copy, with its matrices when with_matrices; a failure is not final */
    int planned, with_matrices;
    unsigned h_copies; /* planned: H's shifted copies that go up with the key (0, 1: none) */
    const progress_sink *progress; /* the upload's bytes (may be NULL) */
} residency_request;

/* The key's copy on req->gpu in *copy (uploaded now, in *upload_seconds,
 * when absent; 0 when it was there), held for the caller until
 * residency_release. CUZK_ERR_NO_MEMORY when it does not fit (err names the
 * sizes), the upload's status otherwise; err's message is the reason alone
 * (the caller names the key and GPU). */
int residency_acquire(const struct cuzk_zkey *zk, const residency_request *req, struct cuzk_gpu_key **copy,
                      double *upload_seconds, cuzk_error *err);
void residency_release(const struct cuzk_zkey *zk, int gpu);

/* The state of the key's copy on gpu; with RESIDENT, *evaluates (may be
 * NULL) says whether its matrices are there. */
residency_state residency_state_of(const struct cuzk_zkey *zk, int gpu, int *evaluates);
/* The same once no upload or drop of it is in progress (waits for them):
 * what a proof about to use the copy will find. */
residency_state residency_state_settled(const struct cuzk_zkey *zk, int gpu, int *evaluates);
/* With state FAILED: the stored failure's status, its message in err;
 * else CUZK_OK. */
int residency_failure(const struct cuzk_zkey *zk, int gpu, cuzk_error *err);

/* Frees the key's copy on gpu when no proof holds it; returns the bytes it
 * held (0: none was there, or one is in use). */
uint64_t residency_drop(const struct cuzk_zkey *zk, int gpu);

/* Frees every copy of the key (after the proofs holding them): the key is
 * being freed. */
void residency_forget(const struct cuzk_zkey *zk);

/* ------------------------------------------------------------ plans */

/* A memory plan over an engine's GPUs (plan.c). A proof enters a GPU only
 * when its key's copy (if not there) and its working set fit beside what
 * the plan holds there; idle keys' copies are dropped to make room; a proof
 * that fits only alone waits for the GPU; one that does not fit whole even
 * alone takes the streamed path (its MSMs over chunks of points); one that
 * does not fit at all goes to the CPU. The working memory counted is the
 * largest working set so far: the GPU's stream-ordered pool keeps it. */
typedef struct gpu_plan gpu_plan;

/* budget: device bytes each GPU may hold for keys and proofs; 0: its free
 * memory now less 1 GiB (the plan's one device-global query, made before
 * any proof runs). prestage: planned proofs may pre-stage their witness
 * when the plan has room for it beside the working set. */
int gpu_plan_create(int gpus, uint64_t budget, int prestage, gpu_plan **out, cuzk_error *err);
/* At most `most` shifted copies of H with a key's copy on every GPU (0:
 * as many as residency_fits gives; 1: none). Before any proof. */
void gpu_plan_set_h_copies(gpu_plan *p, unsigned most);
/* GPU g's own budget (after gpu_plan_create, before any proof; 0 keeps
 * the one it has). */
int gpu_plan_set_budget(gpu_plan *p, int g, uint64_t budget, cuzk_error *err);
void gpu_plan_destroy(gpu_plan *p);

/* A proof's place in a plan, from gpu_plan_begin to gpu_plan_end. */
typedef struct gpu_plan_hold {
    int gpu;
    int active;         /* the proof holds room on gpu */
    int to_cpu;         /* nothing fits: the proof goes to the CPU, note says why */
    int with_matrices;  /* the key's copy goes up with its matrices (when absent) */
    unsigned h_copies;  /* and with this many shifted copies of H (1: none) */
    int stage;          /* the witness may be pre-staged */
    uint64_t msm_chunk; /* the streamed path's chunk (0: MSMs whole) */
    char note[256];
    /* the plan's own */
    struct plan_key *key;
    int uploading;
    uint64_t provisional;
} gpu_plan_hold;

/* Room for one proof of zk on GPU g (with its matrices unless cpu_eval).
 * Without the caller's locks: it may wait, and drop other keys' copies.
 * When g cannot hold it even alone and other_gpus is set, the plan's
 * other GPUs are tried in turn (g + 1, ...), and h->gpu says where it
 * holds room (h->note why it moved). CUZK_OK with h->active (proceed) or
 * h->to_cpu (no GPU can); CUZK_ERR_NO_MEMORY instead of to_cpu when
 * fail_if_none (device gpu); CUZK_ERR_CANCELLED when *cancel becomes
 * nonzero while it waits. */
int gpu_plan_begin(gpu_plan *p, int g, const struct cuzk_zkey *zk, int cpu_eval, const atomic_int *cancel,
                   int fail_if_none, int other_gpus, gpu_plan_hold *h, cuzk_error *err);
/* The proof left the GPU: proved_on_gpu (it did not go to the CPU after
 * all) and staged (its witness went up pre-staged) are counted. */
void gpu_plan_end(gpu_plan *p, gpu_plan_hold *h, int proved_on_gpu, int staged);
/* The key leaves its owner's cache (it is about to be freed, which frees
 * its copies): the plan stops counting them. Waits for a drop of its copy
 * in progress. */
void gpu_plan_forget(gpu_plan *p, const struct cuzk_zkey *zk);
/* Planning waits look at their cancel flags again. */
void gpu_plan_wake(gpu_plan *p);
/* From now on no planning waits for room (the engine is stopping). */
void gpu_plan_stop(gpu_plan *p);
/* The plan's per-GPU figures and event counts into the engine's stats. */
void gpu_plan_stats(gpu_plan *p, cuzk_engine_stats *st);

#endif
