/* The times of a proof, written once. Every list of them comes from here:
 * the core prover's and the GPU's timer slots, the cuzk_timings fields
 * they fill, and every rendering (cuzk prove --timings and --json, the
 * daemon's job JSON, cuzk bench).
 *
 * CUZK_TIMINGS(X) lists the cuzk_timings fields a proof spends time in, in
 * the order a proof spends it: X(ID, field, label, kind), where kind is
 *   CORE  a phase the core prover (src/core/prove_impl.h) and the GPU
 *         (cuda/groth16/prove.cu) time: it has a slot PROOF_PHASE_<ID>
 *   GPU   GPU proofs only (0 on the CPU path)
 *   LIB   the library's own steps around the core (src/groth16/prove.c)
 * Plain C, no includes: the CUDA code includes it too. */
#ifndef CUZK_GROTH16_PHASES_H
#define CUZK_GROTH16_PHASES_H

#define CUZK_TIMINGS(X)                                                                                 \
    X(KEY_UPLOAD, key_upload, "key upload", GPU) /* a key's first GPU proof: its copy goes up */        \
    X(EVAL, eval, "eval", CORE)                  /* a = A w, b = B w (and the witness split) */          \
    X(GPU_UPLOAD, gpu_upload, "gpu upload", GPU) /* the witness (and CPU-evaluated a, b) to the GPU */   \
    X(NTT, ntt, "ntt", CORE)                     /* a, b, c to the odd coset; h = a b - c */            \
    X(MSM_A, msm_a, "msm A", CORE)                                                                      \
    X(MSM_B1, msm_b1, "msm B1", CORE)                                                                   \
    X(MSM_B2, msm_b2, "msm B2", CORE)                                                                   \
    X(MSM_C, msm_c, "msm C", CORE)                                                                      \
    X(MSM_H, msm_h, "msm H", CORE)                                                                      \
    X(BLIND, blind, "blind", CORE)               /* alpha, beta, r delta, s delta, ... */                \
    X(VERIFY, verify, "verify", LIB)             /* the pairing check of the result */                   \
    X(JSON, json, "json", LIB)                   /* proof.json and public.json */

/* The core's phase slots: PROOF_PHASE_EVAL, ..., PROOF_PHASE_BLIND. */
#define PROOF_PHASE_SLOT_CORE(ID) PROOF_PHASE_##ID,
#define PROOF_PHASE_SLOT_GPU(ID)
#define PROOF_PHASE_SLOT_LIB(ID)
#define PROOF_PHASE_SLOT(ID, field, label, kind) PROOF_PHASE_SLOT_##kind(ID)
enum { CUZK_TIMINGS(PROOF_PHASE_SLOT) PROOF_PHASES };
#undef PROOF_PHASE_SLOT

#endif
