/* The library side of proving: checks that key and witness belong
 * together, draws r and s, runs the core prover, verifies the result.
 *
 * A proof runs as three stages so that the engine (src/engine/engine.c) can
 * give each its own workers and overlap one job's CPU work with another's
 * GPU work; cuzk_prove runs them back to back:
 *
 *   prove_prepare   CPU: checks key and witness, picks the device; on the
 *                   GPU path also a = A w, b = B w and the witness split
 *                   (every host array the GPU call reads)
 *   prove_compute   GPU path: the key's first upload, then cuzk_gpu_prove
 *                   (it holds the GPU's compute lock); CPU path: the whole
 *                   core proof (evaluation, transforms, MSMs, blinding)
 *   prove_finalize  CPU: GPU path: finishing the MSMs and blinding; both:
 *                   the pairing check (in auto mode a GPU proof failing it
 *                   is proved again on the CPU), proof.json and public.json
 *
 * The key and the witness must outlive the state. The stages of one state
 * run one after another, on any threads. */
#ifndef CUZK_GROTH16_PROVE_H
#define CUZK_GROTH16_PROVE_H

#include <stdatomic.h>

#include "../core.h"
#include "../formats/wtns.h"
#include "../formats/zkey.h"

/* cuzk_prove with r and s given (plain 32-byte little-endian, below r):
 * the test hook for comparing proofs bit for bit. The proof's points land in
 * out (the .zkey layout). */
int groth16_prove_with(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char r[32],
                       const unsigned char s[32], const cuzk_prove_options *opts, core_prove_out *out,
                       cuzk_timings *timings, cuzk_error *err);

/* The core prover's input for a key and witness (the key's sections and
 * verification points, the witness values), with r and s (plain 32 bytes,
 * kept by the caller), threads and an optional cancel flag. */
core_prove_in prove_core_input(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *r,
                               const unsigned char *s, int threads, const atomic_int *cancel);

/* One proof between stages. */
typedef struct prove_state prove_state;

/* Stage 1. r and s may be NULL: drawn from the OS CSPRNG. cancel may be
 * NULL; when it becomes nonzero, prepare and compute return
 * CUZK_ERR_CANCELLED at their next check (between evaluation and the
 * witness split, before the GPU call, before a CPU proof). opts may be
 * NULL (the defaults). On success *out holds the state (free it with
 * prove_state_free whatever happens next). */
int prove_prepare(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *r,
                  const unsigned char *s, const cuzk_prove_options *opts, const atomic_int *cancel,
                  prove_state **out, cuzk_error *err);
/* Stage 2. gpu >= 0 names the GPU that proves a GPU-path state (the
 * engine's compute worker's); -1 keeps the one prepare chose. */
int prove_compute(prove_state *st, int gpu, cuzk_error *err);

/* The engine's device-memory plan (src/engine/engine.c).
 * What a key needs on GPU `device` (computed on the host; all 0 without
 * CUDA): its points and tables, its constraint matrices when they go up
 * too, one proof's peak working set, and whether (with how many bytes) it
 * is resident there now. */
typedef struct prove_gpu_plan {
    uint64_t key_bytes, matrix_bytes, work_bytes;
    int resident;
    uint64_t resident_bytes;
    uint64_t stage_bytes; /* a pre-staged witness (0: the key cannot pre-stage, e.g. not resident yet) */
} prove_gpu_plan;
void prove_gpu_footprint(const struct cuzk_zkey *zk, int device, uint64_t msm_chunk, prove_gpu_plan *plan);
/* Frees the key's copy on GPU `device` (after the proof running there, if
 * any); returns the bytes it held (0: none was there). The caller makes
 * sure no job of this key computes there meanwhile. */
uint64_t prove_gpu_key_drop(const struct cuzk_zkey *zk, int device);
/* Stage 2 with the key's first upload held to `budget` bytes of the GPU
 * (0: as prove_compute, its free memory); with stage, the witness is
 * pre-staged outside the GPU's compute lock (while another proof computes)
 * when the key allows it; msm_chunk > 0: the MSMs over at most that many
 * points at a time (the streamed, lower-memory path). */
int prove_compute_budget(prove_state *st, int gpu, uint64_t budget, int stage, uint64_t msm_chunk, cuzk_error *err);
/* Whether compute pre-staged the witness. */
int prove_state_staged(const prove_state *st);
/* Sends a GPU-path state to the CPU (its compute stage runs the whole
 * proof there); note (may be NULL) is kept as the timings' device_note. */
void prove_route_cpu(prove_state *st, const char *note);
/* Free and total memory of GPU g (device-global: before proofs run);
 * CUZK_ERR_NO_DEVICE without CUDA. */
int prove_gpu_memory(int g, uint64_t *free_bytes, uint64_t *total_bytes);
/* Stage 3. proof_json and public_json may both be NULL (no JSON; the test
 * hooks read the points). */
int prove_finalize(prove_state *st, char **proof_json, char **public_json, cuzk_error *err);

/* The proof's phase times so far (cuzk_timings; total is left 0), and its
 * points (valid after prove_finalize). */
const cuzk_timings *prove_state_timings(const prove_state *st);
const core_prove_out *prove_state_out(const prove_state *st);
/* -1: the state is on the CPU path (compute runs the core prover); else
 * the GPU prepare chose. */
int prove_state_gpu(const prove_state *st);
/* Wipes r and s, frees the host arrays. NULL is a no-op. */
void prove_state_free(prove_state *st);

#endif
