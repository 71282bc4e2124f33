/* The interface between the arithmetic core (src/core/core.c, compiled once per
 * CPU backend) and the rest of the library. Only coarse operations cross
 * it, so the backend is chosen once per call of a whole algorithm, never
 * per field operation.
 *
 * Points cross as bytes in the .zkey layout (affine; coordinates as
 * Montgomery images, little-endian; Fp2 as c0 || c1; infinity all zero).
 * Curves are cuzk_curve values. */
#ifndef CUZK_CORE_H
#define CUZK_CORE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "phases.h"

/* A Groth16 verification key and proof, as points in the .zkey layout. */
typedef struct core_vk {
    const unsigned char *alpha1, *beta2, *gamma2, *delta2;
    const unsigned char *ic; /* n_ic G1 points */
    size_t n_ic;
} core_vk;

typedef struct core_proof {
    const unsigned char *a, *b, *c; /* G1, G2, G1 */
} core_proof;

/* A proving key's sections and a witness, as the file readers hand them
 * over (pointers into mapped files, possibly unaligned), its constraint
 * matrices, plus r and s. */
typedef struct core_prove_in {
    int curve, threads;
    unsigned n_vars, n_public, domain_size;
    const struct cs_matrices *mat; /* A and B (src/core/matrices.h); may be NULL with eval_a/eval_b */
    const unsigned char *pts_a, *pts_b1, *pts_b2, *pts_c, *pts_h; /* sections 5-9 */
    const unsigned char *alpha1, *beta1, *beta2, *delta1, *delta2;
    const unsigned char *witness; /* n_vars plain 32-byte values, below r */
    const unsigned char *r, *s;   /* the blinding scalars, plain 32 bytes, below r */
    /* A key with bellperson's conventions (a .params key, src/groth16/
     * params_key.c) when a_vars is not NULL: A holds n_a points, those of
     * the variables a_vars lists, B1 and B2 n_b (b_vars), H domain_size - 1
     * points of the monomial basis. NULL: snarkjs's (n_vars points each, H
     * the odd coset's Lagrange basis). */
    const uint32_t *a_vars, *b_vars;
    unsigned n_a, n_b;
    /* a = A w and b = B w given (n_eval <= domain_size Montgomery Fr each,
     * the rest zero: supraseal's ABI hands them over, src/abi/supraseal.c)
     * instead of evaluated from mat; NULL: evaluated */
    const unsigned char *eval_a, *eval_b;
    size_t n_eval;
    /* may be NULL; when it becomes nonzero, groth16_prove returns
     * CUZK_ERR_CANCELLED at its next phase boundary (after the evaluation,
     * the transforms, each MSM) */
    const atomic_int *cancel;
} core_prove_in;

typedef struct core_prove_out {
    unsigned char a[96], b[192], c[96]; /* the proof, .zkey layout */
    double seconds[PROOF_PHASES]; /* src/core/phases.h */
    size_t n_ones, n_tail;       /* witness values equal to 1, and neither 0 nor 1 */
} core_prove_out;

/* The MSM results of a proof before blinding, affine in the .zkey layout:
 * sum w_i A_i, sum w_i B_i (G1 and G2), the C sum over the private
 * signals, and the H sum. */
typedef struct core_msm_results {
    const unsigned char *a, *b1, *b2, *c, *h;
} core_msm_results;

/* Circuit-specific setup from a prepared powers of tau (snarkjs's zkey new). */
typedef struct core_setup_in {
    int curve, threads;
    unsigned n_vars, n_public, n_constraints;
    const unsigned char *constraints; /* r1cs section 2, validated */
    /* the domain's level of ptau sections 12-15: L, L2 (G2), alpha L, beta L */
    const unsigned char *lag_g1, *lag_g2, *lag_alpha_g1, *lag_beta_g1;
    /* a .params key (bellperson's rows: row k takes the basis point at
     * bellperson_index(k), src/ntt/ntt_impl.h) of a 2^log_n domain */
    int bellperson;
    unsigned log_n;
} core_setup_in;

typedef struct core_setup_out {
    /* caller-allocated: nVars G1, nVars G1, nVars G2, nPublic + 1 G1,
     * nVars - nPublic - 1 G1 */
    unsigned char *a, *b1, *b2, *ic, *c;
} core_setup_out;

/* A setup from fresh randomness (no ptau): the driver keeps this state
 * between calls and writes the key section by section, chunk by chunk. */
/* SETUP_KIND_H: snarkjs's H (the odd points of the 2n-domain's Lagrange
 * basis over delta); SETUP_KIND_H_MONOMIAL: bellperson's (tau^i Z(tau) /
 * delta, i < n - 1). The others are both formats' (C is bellperson's L). */
enum { SETUP_KIND_A, SETUP_KIND_B1, SETUP_KIND_B2, SETUP_KIND_IC, SETUP_KIND_C, SETUP_KIND_H, SETUP_KIND_VK,
       SETUP_KIND_H_MONOMIAL };

typedef struct core_random_setup {
    int curve, threads;
    unsigned n_vars, n_public, n_constraints, domain_size;
    int bellperson; /* a .params key: the domain's root is bellperson's (src/ntt/ntt_impl.h) */
    const struct circuit_source *source; /* the rows (src/core/circuit.h) */
    void (*progress)(void *ctx, const char *stage, unsigned long long done, unsigned long long total); /* may be NULL */
    void *progress_ctx;
    /* the toxic waste: plain 32-byte scalars, nonzero, below r */
    unsigned char tau[32], alpha[32], beta[32], gamma[32], delta[32];
    /* filled by setup_random_scalars: A_s(tau), B_s(tau), C_s(tau) as
     * Montgomery Fr, n_vars each (malloc'd; the driver frees them) */
    unsigned char *a, *b, *c;
} core_random_setup;

struct cuzk_core_ops {
    const char *name; /* "portable" or "x86_64-adx" */
    int (*selftest)(void);
    /* Checks n points of G1 (group 1) or G2 (group 2): coordinates below p,
     * on the curve, and with subgroup != 0 in the prime-order subgroup.
     * CUZK_OK, or the first failure's status with its index in *bad. */
    int (*check_points)(int curve, int group, const unsigned char *pts, size_t n, int subgroup, size_t *bad);
    /* The same for BLS12-381 points in the ZCash encoding (big-endian,
     * flags in the top bits; bellperson .params files use it); with out
     * not NULL, the points decoded into it in the library's layout (a
     * .zkey's: x, y in Montgomery form, little-endian; infinity zeros). */
    int (*check_zcash_points)(int group, const unsigned char *pts, size_t n, int compressed, int subgroup,
                              unsigned char *out, size_t *bad);
    /* The other way: n BLS12-381 points in the library's layout to the
     * ZCash encoding (uncompressed 96/192 bytes, or compressed 48/96). */
    void (*zcash_from_points)(int group, const unsigned char *pts, size_t n, int compressed, unsigned char *out);
    /* Base-field elements between plain little-endian integers (< p) and
     * their Montgomery images, n8q bytes each. */
    void (*fq_to_mont)(int curve, unsigned char *out, const unsigned char *plain);
    void (*fq_from_mont)(int curve, unsigned char *out, const unsigned char *mont);
    /* out = e(g1, g2): 12 base-field elements in Montgomery form, in the
     * order c0.c0.c0, c0.c0.c1, c0.c1.c0, ... of Fp12 = Fp6[w], Fp6 = Fp2[v]. */
    void (*pairing)(int curve, unsigned char *out, const unsigned char *g1, const unsigned char *g2);
    /* Groth16: e(-A, B) e(IC0 + sum pub_i IC_i, gamma) e(C, delta)
     * e(alpha, beta) == 1. Points already checked; publics are n_ic - 1
     * plain 32-byte little-endian scalars below r. CUZK_OK,
     * CUZK_ERR_INVALID_PROOF (also for A, B or C at infinity), or
     * CUZK_ERR_FORMAT for a degenerate key (alpha, beta, gamma or delta at
     * infinity: formats/point_check.h says why); readers refuse those first,
     * with the point named. */
    int (*groth16_verify)(int curve, const core_vk *vk, const unsigned char *publics, const core_proof *proof);
    /* A Groth16 proof (src/core/prove_impl.h). CUZK_OK, CUZK_ERR_NO_MEMORY
     * or CUZK_ERR_UNSUPPORTED (a domain too large for the field). */
    int (*groth16_prove)(const core_prove_in *in, core_prove_out *out);
    /* The CPU's parts of a proof whose transforms and MSMs run elsewhere
     * (the GPU): a = A w, b = B w into zeroed buffers of domain_size Fr
     * (Montgomery); the witness split
     * (arrays of n_vars entries); and the blinding, from the MSM results. */
    int (*groth16_eval)(const core_prove_in *in, unsigned char *a, unsigned char *b, core_prove_out *out);
    void (*groth16_classify_var)(const core_prove_in *in, uint32_t *ones, size_t *n_ones, uint32_t *tail,
                             size_t *n_tail, uint32_t *ones_c, size_t *n_ones_c, uint32_t *tail_c,
                             size_t *n_tail_c);
    void (*groth16_blind)(const core_prove_in *in, const core_msm_results *m, core_prove_out *out);
    /* n Fr elements from Montgomery form (blst's fr_t) to plain 32-byte
     * values, with `threads` threads; CUZK_ERR_NOT_CANONICAL with the first
     * one not below r in *bad. */
    int (*fr_from_mont)(int curve, unsigned char *out, const unsigned char *mont, size_t n, int threads,
                        size_t *bad);
    /* The other way: n plain values below r to their Montgomery form. */
    void (*fr_to_mont)(int curve, unsigned char *out, const unsigned char *plain, size_t n, int threads);
    /* out_k = a_k b_k for n Montgomery Fr values (out may be a or b). */
    void (*fr_mul)(int curve, unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n,
                   int threads);
    /* The first k < n with a_k b_k != c_k or a value not below r (Montgomery
     * Fr), or n: why a proof from given evaluations failed its check. */
    size_t (*groth16_first_unsatisfied)(int curve, const unsigned char *a, const unsigned char *b,
                                        const unsigned char *c, size_t n, int threads);
    /* Finishes an MSM computed elsewhere (the GPU): out = sum over w < nwin
     * of 2^(c w) windows[w] (`stride` bytes apart), plus *extra (may be
     * NULL); inputs are XYZZ
     * points (X, Y, ZZ, ZZZ in Montgomery form, ZZ = 0 for infinity) of
     * group 1 or 2, the output affine in the .zkey layout. Public data. */
    void (*msm_combine)(int curve, int group, const unsigned char *windows, size_t stride, unsigned nwin,
                        unsigned c, const unsigned char *extra, unsigned char *out);
    /* src/core/setup_impl.h. CUZK_OK or CUZK_ERR_NO_MEMORY. */
    int (*groth16_setup_ptau)(const core_setup_in *in, core_setup_out *out);
    /* Section 4 of a new key, in pieces (setup_impl.h, ST_(coefs)): rows
     * [row0, row0 + n_rows), then the public entries at publics_row unless
     * that is UINT32_MAX. Returns the entry count. */
    unsigned long long (*setup_coefs)(int curve, unsigned char *out, const unsigned char *constraints,
                                      unsigned row0, unsigned n_rows, unsigned publics_row, unsigned n_public);
    /* Fills st->a, b, c (allocating them). CUZK_OK, CUZK_ERR_NO_MEMORY. */
    int (*setup_random_scalars)(core_random_setup *st);
    /* Points [start, start + count) of one section kind (SETUP_*; SETUP_KIND_VK:
     * alpha1, beta1, beta2, gamma2, delta1, delta2, count ignored) into out
     * (.zkey layout). CUZK_OK, CUZK_ERR_NO_MEMORY. */
    int (*setup_random_points)(const core_random_setup *st, int kind, size_t start, size_t count, unsigned char *out);
    /* The scalars of those points (not SETUP_KIND_VK): point i is k_i G;
     * out: count plain 32-byte values (for a GPU's fixed-base products). */
    int (*setup_random_point_scalars)(const core_random_setup *st, int kind, size_t start, size_t count,
                                      unsigned char *out);
    /* The generators of G1 and G2 (.zkey layout). */
    void (*generators)(int curve, unsigned char *g1, unsigned char *g2);
    /* out[i] = a[i] - b[i] for n G1 points (.zkey layout). */
    void (*g1_sub)(int curve, unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n);
};

extern const struct cuzk_core_ops cuzk_core_portable;
#if defined(__x86_64__)
extern const struct cuzk_core_ops cuzk_core_adx;
#endif

/* The backend chosen for this process (src/lib.c). */
const struct cuzk_core_ops *cuzk_core(void);

#endif
