/* cuzk_supraseal.h: supraseal-c2's C ABI, served by libcuzk.
 *
 * bellperson (and Curio's fork of it) proves Filecoin's circuits by handing
 * the evaluations a = A w, b = B w, c = C w, the densities and the
 * assignments to supraseal-c2 through these functions, with the key read
 * from a bellperson .params file. libcuzk exports the same names with the
 * same layouts, so bellperson links it where it links supraseal-c2 today;
 * behind them is cuzk's prover (the key resident on the GPU, the 0/1/other
 * split, GPU or CPU, every proof checked with the pairing before it is
 * returned). docs/filecoin.md §5 has the layouts with the lines of
 * supraseal's and bellperson's source that fix them, and how to link.
 *
 * Conventions, as supraseal-c2's:
 *   - scalars (a, b, c, the assignments, r and s) are BLS12-381 Fr
 *     elements in blst's layout: Montgomery form (R = 2^256), four
 *     little-endian 64-bit limbs;
 *   - proofs are affine points in blst's layout: coordinates in Montgomery
 *     form (R = 2^384), six little-endian limbs each, Fp2 as c0 then c1,
 *     the point at infinity as x = y = 0;
 *   - failures come back as a RustError by value: code 0 on success, else
 *     a cuzk status (include/cuzk.h's cuzk_status) and a message the
 *     caller frees with free() (sppark's Rust side does); nothing here
 *     aborts or exits on bad input.
 * The header needs nothing but the C standard library. */
#ifndef CUZK_SUPRASEAL_H
#define CUZK_SUPRASEAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define CUZK_SS_API __attribute__((visibility("default")))
#else
#define CUZK_SS_API
#endif

/* blst_fr: an Fr element, Montgomery form. */
typedef struct cuzk_ss_fr {
    uint64_t l[4];
} cuzk_ss_fr;

/* blst_p1_affine and blst_p2_affine (Montgomery coordinates; x[0] = c0). */
typedef struct cuzk_ss_g1_affine {
    uint64_t x[6], y[6];
} cuzk_ss_g1_affine;
typedef struct cuzk_ss_g2_affine {
    uint64_t x[2][6], y[2][6];
} cuzk_ss_g2_affine;

/* supraseal-c2's groth16_proof (384 bytes): bellperson's Proof<Bls12>. */
typedef struct groth16_proof {
    cuzk_ss_g1_affine a;
    cuzk_ss_g2_affine b;
    cuzk_ss_g1_affine c;
} groth16_proof;

/* supraseal-c2's Assignment<fr_t> (17 fields of 8 bytes), one circuit:
 * - the densities are bit vectors, variable i at bit i % 64 of word
 *   i / 64: a_aux over the aux variables (those in some A combination; every
 *   input is in A), b_inp over the inputs (the constant one at bit 0) and
 *   b_aux over the aux variables (those in some B combination); the
 *   popcounts are theirs;
 * - a, b, c: abc_size values each (the circuit's constraints, then one per
 *   input), at most the key's domain;
 * - the inputs (the constant one first) and the aux assignment.
 * Every circuit of a call proves with the same key, so the densities are
 * the same for all (bellperson passes one set); cuzk checks that they are
 * those the key was first used with. cuzk reads c only to explain a proof
 * that fails its check (c = a o b for an assignment that satisfies the
 * circuit, and H is computed from a and b). */
typedef struct cuzk_ss_assignment {
    const uint64_t *a_aux_density;
    size_t a_aux_bit_len, a_aux_popcount;
    const uint64_t *b_inp_density;
    size_t b_inp_bit_len, b_inp_popcount;
    const uint64_t *b_aux_density;
    size_t b_aux_bit_len, b_aux_popcount;
    const cuzk_ss_fr *a, *b, *c;
    size_t abc_size;
    const cuzk_ss_fr *inp_assignment_data;
    size_t inp_assignment_size;
    const cuzk_ss_fr *aux_assignment_data;
    size_t aux_assignment_size;
} cuzk_ss_assignment;

/* sppark's RustError, returned by value. */
typedef struct RustError {
    int code;
    char *message; /* NULL on success; free() it */
} RustError;

/* A key loaded from a .params file: a struct holding one pointer, passed
 * by pointer (supraseal-c2's SRS; its Rust side declares the same). A
 * reference count keeps the key until its last handle is dropped. */
typedef struct SRS {
    void *ptr;
} SRS;

/* Loads the .params file at srs_path into *ret (every point decoded and
 * checked on the curve, in parallel). With cache, handles to one path share
 * one key while its file is the one it was read from (a rewritten file is
 * read again); the cache keeps the 4 most recently used keys no handle
 * holds. On failure ret->ptr is NULL. */
CUZK_SS_API RustError create_SRS(SRS *ret, const char *srs_path, bool cache);
/* Removes the key's path from the cache (handles keep it alive). */
CUZK_SS_API void evict_SRS(const SRS *ref);
/* Drops one handle (ref->ptr becomes NULL); the last one frees the key,
 * its host memory and its copies on GPUs. */
CUZK_SS_API void drop_SRS(SRS *ref);
/* A second handle to the same key. */
CUZK_SS_API SRS clone_SRS(const SRS *rhs);

/* Proves num_circuits circuits (any number >= 1) with the key srs, circuit
 * i blinded with r_s[i] and s_s[i] (below r), into proofs[i]. The circuits
 * are pipelined: one's assignment is converted while another's MSMs run on
 * the GPU. Each proof is checked with the pairing against the key's
 * verification key; a call that fails writes no proof it did not check,
 * names the first failing circuit and returns its status. Without a GPU
 * the CPU proves. */
#ifndef CUZK_SUPRASEAL_CURIO
CUZK_SS_API RustError generate_groth16_proofs_c(const cuzk_ss_assignment provers[], size_t num_circuits,
                                                const cuzk_ss_fr r_s[], const cuzk_ss_fr s_s[],
                                                groth16_proof proofs[], SRS *srs);
#else
/* Curio's signature (generate_groth16_proofs_gpu_c's) under the name */
CUZK_SS_API RustError generate_groth16_proofs_c(const cuzk_ss_assignment provers[], size_t num_circuits,
                                                const cuzk_ss_fr r_s[], const cuzk_ss_fr s_s[],
                                                groth16_proof proofs[], SRS *srs, void *gpu_mtx, int gpu_index);
#endif

/* --- Curio's additions (its fork of supraseal-c2) ------------------------
 * Curio's generate_groth16_proofs_c takes two more parameters; its
 * signature is served under generate_groth16_proofs_gpu_c (a library built
 * with -DCUZK_SUPRASEAL_CURIO=ON serves it under Curio's name instead of the
 * upstream one: docs/filecoin.md). gpu_mtx (from create_gpu_mutex, or NULL)
 * is held around each circuit's GPU work, as Curio's code holds it;
 * gpu_index >= 0 proves every circuit on that GPU, -1 spreads the circuits
 * over the GPUs. */
CUZK_SS_API void *create_gpu_mutex(void);
CUZK_SS_API void destroy_gpu_mutex(void *mtx);
CUZK_SS_API RustError generate_groth16_proofs_gpu_c(const cuzk_ss_assignment provers[], size_t num_circuits,
                                                    const cuzk_ss_fr r_s[], const cuzk_ss_fr s_s[],
                                                    groth16_proof proofs[], SRS *srs, void *gpu_mtx, int gpu_index);
/* The same in two halves: start returns when the GPU's part of every
 * circuit is done (the CPU's last steps may still run) with *pending_out
 * the pending proofs; finalize waits for them, writes proofs[] and frees
 * the handle; destroy_pending_proof frees it without writing. Every array
 * the Assignments point to, and r_s, s_s, must live until then. On a
 * failed start *pending_out is NULL (nothing to finalize or destroy). */
CUZK_SS_API RustError generate_groth16_proofs_start_c(const cuzk_ss_assignment provers[], size_t num_circuits,
                                                      const cuzk_ss_fr r_s[], const cuzk_ss_fr s_s[], SRS *srs,
                                                      void *gpu_mtx, int gpu_index, void **pending_out);
CUZK_SS_API RustError finalize_groth16_proof_c(void *pending, groth16_proof proofs[]);
CUZK_SS_API void destroy_pending_proof(void *pending);

#ifdef __cplusplus
}
#endif

#endif
