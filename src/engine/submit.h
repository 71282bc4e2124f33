/* Jobs from inside the library: what cuzk_prove and supraseal-c2's ABI
 * give the engine besides a cuzk_job_request, the proof's points back, and
 * the library's engine those two share. One scheduler proves everything:
 * the engine's stages, workers and GPU memory plan (docs/engine.md). */
#ifndef CUZK_ENGINE_SUBMIT_H
#define CUZK_ENGINE_SUBMIT_H

#include <stddef.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"
#include "../core/core.h"

struct cuzk_zkey;
struct cuzk_wtns;
struct key_entry;

typedef struct engine_job_extra {
    /* the key, the caller's, open until the job ends (the request names
     * none: no key_path, no key_id); no verification key is kept for it
     * (cuzk_engine_result_vk: CUZK_ERR_NOT_FOUND) */
    const struct cuzk_zkey *key;
    /* the witness, made by the prepare worker with its share of the cores
     * (the request gives none): *w, the caller's, stays valid until the
     * job ends (its values until witness_done) */
    int (*make_witness)(void *ctx, int threads, const struct cuzk_wtns **w, cuzk_error *err);
    /* called (NULL: not) by the finalize worker once the proof is done
     * with the witness, before the job's end is published: the caller may
     * free it there, hidden behind the GPU's next proofs, instead of after
     * the last one (a 2^20 witness is 32 MiB to clear) */
    void (*witness_done)(void *ctx);
    void *witness_ctx;
    /* a = A w and b = B w given (n_eval Montgomery Fr each, the caller's
     * until the job ends): the key may hold no matrices */
    const unsigned char *eval_a, *eval_b;
    size_t n_eval;
    /* r and s given (plain 32 bytes each, below r); NULL: drawn */
    const unsigned char *r, *s;
    /* around the job's GPU part (supraseal-c2's caller's mutex), on the
     * compute worker; NULL: none */
    void (*gpu_enter)(void *ctx);
    void (*gpu_leave)(void *ctx);
    void *gpu_ctx;
} engine_job_extra;

/* cuzk_engine_submit with extra (NULL: none). A job of one proof only. */
int engine_submit(cuzk_engine *e, const cuzk_job_request *req, const engine_job_extra *x, unsigned long long *id,
                  cuzk_error *err);

/* A done job's proof as the prover left it (the library's layout:
 * core_prove_out's a, b, c) and its timings. CUZK_ERR_BUSY while it runs,
 * its status if it failed. */
int engine_result_out(cuzk_engine *e, unsigned long long id, core_prove_out *out, cuzk_timings *t, cuzk_error *err);

/* Waits until the job's GPU part is over (it is past compute, or ended);
 * its info in *info. */
int engine_wait_computed(cuzk_engine *e, unsigned long long id, cuzk_job_info *info, cuzk_error *err);

/* The library's engine, made at its first use with the defaults (every
 * GPU, every core) and kept for the life of the process: cuzk_prove's and
 * supraseal-c2's ABI's jobs go there, each with its own options. */
int engine_shared(cuzk_engine **out, cuzk_error *err);

/* A key the caller is about to free leaves the library's engine's memory
 * plan (when that engine was made; its GPU copies are the key's to free). */
void engine_shared_forget_key(const struct cuzk_zkey *zk);

/* supraseal-c2's keys (create_SRS ...) in the library's engine's key
 * cache, which keeps SS_IDLE_KEYS of them that nobody holds: the .params
 * key at path read alone, held (cached: shared with every holder of the
 * path's current copy, read again when the file changed; not: the
 * caller's alone). Hold, release and retire (the path's next acquire
 * reads the file again; holders keep this copy) as key_cache.h says. */
#define SS_IDLE_KEYS 4
int engine_shared_srs_acquire(const char *path, int cached, struct key_entry **out, cuzk_error *err);
void engine_shared_srs_hold(struct key_entry *k);
void engine_shared_srs_release(struct key_entry *k);
void engine_shared_srs_retire(struct key_entry *k);

/* One proof through the library's engine with r and s given (the test
 * hook for comparing proofs bit for bit): its points in out, its timings
 * in t (may be NULL). */
int engine_prove_with(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char r[32],
                      const unsigned char s[32], const cuzk_prove_options *opts, core_prove_out *out,
                      cuzk_timings *t, cuzk_error *err);

#endif
