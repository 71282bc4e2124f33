/* The library side of proving: checks that key and witness belong
 * together, draws r and s, runs the core prover, verifies the result.
 *
 * A proof runs as three stages so that the engine (src/engine/workers.c) can
 * give each its own workers and overlap one job's CPU work with another's
 * GPU work; the engine is their only driver (cuzk_prove too submits to it):
 *
 *   prove_prepare   CPU: checks key and witness, picks the device; on the
 *                   GPU path also a = A w, b = B w and the witness split
 *                   (every host array the GPU call reads)
 *   prove_compute   GPU path: the key's copy on the GPU (uploaded by its
 *                   first proof there: src/gpu/residency.c), then
 *                   cuzk_gpu_prove (it holds the GPU's compute lock); CPU
 *                   path: the whole core proof (evaluation, transforms,
 *                   MSMs, blinding)
 *   prove_finalize  CPU: GPU path: finishing the MSMs and blinding; both:
 *                   the pairing check (in auto mode a GPU proof failing it
 *                   is proved again on the CPU), proof.json and public.json
 *
 * The key and the witness must outlive the state. The stages of one state
 * run one after another, on any threads, all with the CPU backend that was
 * in use at prepare. */
#ifndef CUZK_GROTH16_PROVE_H
#define CUZK_GROTH16_PROVE_H

#include <stdatomic.h>
#include <stdint.h>

#include "../core/core.h"
#include "../formats/wtns.h"
#include "../formats/zkey.h"

/* The core prover's input for a key and witness (the key's sections and
 * verification points, its matrices (a .zkey's made by the first call),
 * the witness values), with r and s (plain 32 bytes, kept by the caller),
 * threads and an optional cancel flag. */
core_prove_in prove_core_input(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *r,
                               const unsigned char *s, int threads, const atomic_int *cancel);

/* One proof between stages. */
typedef struct prove_state prove_state;

/* Host bytes a prepared proof holds besides its key and witness (a, b and
 * the witness split when the CPU evaluates for a GPU). */
uint64_t prove_state_host_bytes(const prove_state *st);

/* Stage 1. r and s may be NULL: drawn from opts->random (the OS CSPRNG
 * without one). cancel may be
 * NULL; when it becomes nonzero, prepare and compute return
 * CUZK_ERR_CANCELLED at their next check (between evaluation and the
 * witness split, before the GPU call, before a CPU proof). opts may be
 * NULL (the defaults). On success *out holds the state (free it with
 * prove_state_free whatever happens next). */
int prove_prepare(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *r,
                  const unsigned char *s, const cuzk_prove_options *opts, const atomic_int *cancel,
                  prove_state **out, cuzk_error *err);

/* The same with a = A w and b = B w given (n_eval Montgomery Fr each, at
 * most the domain; the rest taken as zero) instead of evaluated from the
 * key's matrices: supraseal's ABI (src/abi/supraseal.c). eval_a and
 * eval_b must outlive the state; the key may hold no matrices. */
int prove_prepare_evaluated(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char *eval_a,
                            const unsigned char *eval_b, size_t n_eval, const unsigned char *r,
                            const unsigned char *s, const cuzk_prove_options *opts, const atomic_int *cancel,
                            prove_state **out, cuzk_error *err);

/* How stage 2 runs a GPU-path proof that the engine's memory plan placed
 * (src/gpu/plan.c). Without one (NULL: cuzk_prove), the GPU is prepare's,
 * the key's copy goes up within the GPU's free memory, the MSMs run whole
 * and the witness goes up inside the compute lock. */
typedef struct prove_gpu_grant {
    int gpu;            /* the GPU: the engine's compute worker's */
    int with_matrices;  /* the key's copy, when absent, goes up with its matrices */
    unsigned h_copies;  /* and with this many shifted copies of H (0, 1: none) */
    int stage;          /* the witness may be pre-staged outside the GPU's compute lock */
    uint64_t msm_chunk; /* MSMs over at most this many points at a time (0: whole) */
} prove_gpu_grant;

/* Stage 2: on a GPU-path state, the key's copy (uploaded on first use:
 * src/gpu/residency.c) and the GPU call; on a CPU-path state the whole
 * core proof. grant: see prove_gpu_grant (ignored on the CPU path). */
int prove_compute(prove_state *st, const prove_gpu_grant *grant, cuzk_error *err);
/* Whether compute pre-staged the witness. */
int prove_state_staged(const prove_state *st);
/* Sends a GPU-path state to the CPU (its compute stage runs the whole
 * proof there); note (may be NULL) is kept as the timings' device_note. */
void prove_route_cpu(prove_state *st, const char *note);
/* Why the proof runs where it does (its timings' device_note), e.g. on
 * another GPU than the one its worker serves. */
void prove_set_note(prove_state *st, const char *note);

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
