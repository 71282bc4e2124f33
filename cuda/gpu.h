/* The GPU layer's C interface (the .cu files under cuda/). Every function returns a cuzk
 * status (CUZK_OK, CUZK_ERR_CUDA with the failing call, file and line in
 * `msg`, CUZK_ERR_NO_MEMORY when device memory does not suffice,
 * CUZK_ERR_NO_DEVICE, CUZK_ERR_INVALID_ARGUMENT); no C++ exception crosses
 * it. Points and scalars are in the .zkey layout (Montgomery coordinates,
 * little-endian; infinity all zero), the same bytes on host and device.
 *
 * Built only with CUDA (CUZK_HAVE_CUDA); callers check that first. */
#ifndef CUZK_CUDA_GPU_H
#define CUZK_CUDA_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "../include/cuzk.h"
#include "../src/core/phases.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cuzk_gpu_msg {
    char text[320];
} cuzk_gpu_msg;

int cuzk_cuda_device_count(int *count);
/* cuzk_gpu_get_properties for a device known to exist */
int cuzk_cuda_device_properties(int device, cuzk_gpu_properties *out);

/* With on, every GPU MSM and NTT times its steps with events and prints
 * them to stderr ("[gpu profile] ..."; synchronizes: for measuring, never
 * in production). Off by default; bench_gpu turns it on for
 * CUZK_GPU_PROFILE=1. */
void cuzk_gpu_set_profile(int on);

/* --- tests: one operation over n inputs, on the device ------------------ */
enum {
    GPU_FIELD_BLS12_381_FP,
    GPU_FIELD_BLS12_381_FR,
    GPU_FIELD_BN254_FP,
    GPU_FIELD_BN254_FR,
    GPU_FIELD_BLS12_381_FP2,
    GPU_FIELD_BN254_FP2
};
enum {
    GPU_OP_ADD,
    GPU_OP_SUB,
    GPU_OP_MUL,
    GPU_OP_SQR,
    GPU_OP_NEG,
    GPU_OP_INV,
    GPU_OP_FROM_MONT,
    GPU_OP_TO_MONT
};
/* out[i] = op(a[i], b[i]), elements of `field` (Montgomery). This, the
 * other cuzk_gpu_test_*, cuzk_gpu_msm, cuzk_gpu_ntt, cuzk_gpu_bench_* and
 * cuzk_gpu_copy_roundtrip live in the test kit (the cuda/LAYER/NAME_test.cu files: the
 * cuzk_gpu_testkit library test_gpu and bench_gpu link), not in libcuzk. */
int cuzk_gpu_test_field(int field, int op, const void *a, const void *b, void *out, size_t n, cuzk_gpu_msg *msg);

/* Points: group 1 or 2 of `curve` (cuzk_curve). out[i] = a[i] + b[i] and
 * dbl[i] = 2 a[i] (affine, through XYZZ). */
int cuzk_gpu_test_ec(int curve, int group, const void *a, const void *b, void *sum, void *dbl, size_t n,
                     cuzk_gpu_msg *msg);

/* An MSM's result as the GPU leaves it: the nwin window sums of a c-bit
 * Pippenger (the sum is sum_w 2^(c w) windows[w]) plus `sum` (a batch sum,
 * or infinity), XYZZ points (X, Y, ZZ, ZZZ; Montgomery; ZZ = 0 is
 * infinity). The CPU finishes it (cuzk_core()->msm_combine): the serial
 * doublings and the inversion take milliseconds on one GPU thread and
 * microseconds on the CPU. */
#define CUZK_GPU_MAX_WINDOWS 64
typedef struct cuzk_gpu_msm_result {
    unsigned nwin, c;
    unsigned char windows[CUZK_GPU_MAX_WINDOWS][384];
    unsigned char sum[384];
} cuzk_gpu_msm_result;

/* Pippenger's knobs, 0 (or a NULL pointer) = chosen from the size: window
 * bits (4..24), sorted entries per accumulation thread (>= 1), buckets per
 * reduction segment (a power of two), accumulation kernel variant (1, 3,
 * 10 or 11: cuda/msm/msm.cuh), and shifted copies of the bases (0, 1: none; k:
 * the device first makes 2^(j c) base_i for j < k, then merges windows:
 * cuda/msm/msm.cuh's msm_tuning). Tests and benchmarks set them. */
typedef struct cuzk_gpu_msm_tuning {
    unsigned window, slice, segment, accumulate, copies;
} cuzk_gpu_msm_tuning;

/* MSM: sum over k < n of scalar[i_k] * base[i_k] with i_k = idx[k]
 * (idx NULL: i_k = k); scalars plain 32-byte integers below 2^255. With
 * ones_only, every scalar is taken as 1 (the batch sum, in out->sum). */
int cuzk_gpu_msm(int curve, int group, const void *bases, size_t n_bases, const void *scalars, const uint32_t *idx,
                 size_t n, int ones_only, const cuzk_gpu_msm_tuning *tune, cuzk_gpu_msm_result *out, double *ms,
                 cuzk_gpu_msg *msg);

/* NTTs over Fr, data in Montgomery form, n = 2^log_n:
 *   GPU_NTT_FORWARD   natural order evaluations of a coefficient vector
 *   GPU_NTT_INVERSE   the inverse
 *   GPU_NTT_ODD_COSET evaluations on the n-domain -> on the odd coset of
 *                     the 2n-domain (the prover's step; src/ntt/ntt_impl.h) */
enum { GPU_NTT_FORWARD, GPU_NTT_INVERSE, GPU_NTT_ODD_COSET };
/* kernel and pass_bits as in cuzk_gpu_bench_ntt (-1, 0: the prover's). */
int cuzk_gpu_ntt(int curve, int kind, void *data, unsigned log_n, int kernel, unsigned pass_bits, double *ms,
                 cuzk_gpu_msg *msg);

/* --- setup ------------------------------------------------------------- */
/* out[i] = k_i G for the group's generator (affine, .zkey layout, as
 * generator is given), scalars n plain 32-byte values; on GPU 0.
 * Variable time: for the random testing setup (src/groth16/setup.c). */
int cuzk_gpu_fixed_base(int curve, int group, const void *generator, const void *scalars, size_t n, void *out,
                        cuzk_gpu_msg *msg);
/* --- benchmarks: data made on the device, timed with events ------------- */
/* n distinct points: point i = hi[i >> 13] + lo[i & 8191] from two host
 * tables of 8192 affine points each (n <= 2^26). Runs the MSM `reps` times
 * over the host scalars (n plain 32-byte values) and returns the median in
 * ms[0]; with ones (indices of scalars equal to 1) and tail (of the other
 * nonzero ones), also the split: the batch sum plus Pippenger on the tail
 * in ms[1], the batch sum alone in ms[2]. */
int cuzk_gpu_bench_msm(int curve, int group, const void *table_lo, const void *table_hi, size_t n,
                       const void *scalars, const uint32_t *ones, size_t n_ones, const uint32_t *tail, size_t n_tail,
                       const cuzk_gpu_msm_tuning *tune, int reps, double ms[3], cuzk_gpu_msg *msg);
/* Copies len bytes of src to device 0 through lane (0: compute, 1: copy;
 * pinned: through its pinned slots) and back into out: the upload path's
 * test. */
int cuzk_gpu_copy_roundtrip(const void *src, size_t len, int lane, int pinned, void *out, cuzk_gpu_msg *msg);
/* Field operations per second (median of reps, in billions) of op
 * (GPU_OP_MUL, GPU_OP_SQR, GPU_OP_ADD) on `field`, every thread running
 * four independent chains in registers: the rate the floors in
 * BENCHMARKS.md divide by. */
int cuzk_gpu_bench_field(int field, int op, int reps, double *gops, cuzk_gpu_msg *msg);
/* Products per second (billions) with `chains` (1, 2 or 4) dependent
 * chains a thread, one wave of 2 blocks of 256 threads an SM: the batch-
 * affine accumulation's occupancy. Coordinate fields only (Fp, Fp2). */
int cuzk_gpu_bench_field_chains(int field, unsigned chains, int reps, double *gops, cuzk_gpu_msg *msg);
/* Medians over reps of a forward NTT (natural -> bit-reversed) and of the
 * prover's odd-coset step (two transforms and the coset scale), on 2^log_n
 * device-resident random values of `field` (GPU_FIELD_BLS12_381_FR or
 * GPU_FIELD_BN254_FR). kernel -1: the prover's; 1: radix-2
 * passes of up to 10 stages; 0 / 2: 8 / 4 elements a thread in registers,
 * passes of at most pass_bits stages (3..11; 0: 10); 2 also skips the
 * multiplications by 1 of the pass holding stage 1. */
int cuzk_gpu_bench_ntt(int field, unsigned log_n, int reps, int kernel, unsigned pass_bits, double *forward_ms,
                       double *coset_ms, cuzk_gpu_msg *msg);

/* Median over reps of the prover's whole H step on 2^log_n device-resident
 * random a and b of `curve`: c = a o b, the three odd-coset steps (six
 * transforms), a b - c on the coset. */
int cuzk_gpu_bench_h(int curve, unsigned log_n, int reps, double *ms, cuzk_gpu_msg *msg);

/* --- the prover --------------------------------------------------------- */
/* A proving key's points, resident on one GPU across proofs. */
typedef struct cuzk_gpu_key cuzk_gpu_key;

typedef struct cuzk_gpu_key_in {
    int curve, device;
    unsigned n_vars, n_public, domain_size;
    const unsigned char *pts_a, *pts_b1, *pts_b2, *pts_c, *pts_h; /* host, possibly unaligned */
    /* bellperson's conventions when a_vars is not NULL (core.h's
     * core_prove_in): A holds n_a points, of the variables a_vars lists,
     * B1/B2 n_b (b_vars), H domain_size - 1 of the monomial basis; the
     * witness split is then always the device's (the prove call's lists are
     * ignored) */
    const uint32_t *a_vars, *b_vars;
    unsigned n_a, n_b;
    /* the key's constraint matrices (src/core/matrices.h, validated);
     * NULL: they stay on the host and the CPU evaluates a and b. Whether
     * the copy fits is decided before the upload (src/gpu/residency.c) */
    const struct cs_matrices *mat;
    /* 1: host-to-device copies go through the device's pinned staging
     * slots, filled by several host threads (CUZK_GPU_UPLOAD_PINNED); 0:
     * straight from pageable memory, staged by the driver */
    int pinned_upload;
    /* 0, 1: H's points alone; k > 1: with k - 1 shifted copies for its MSM
     * (cuda/msm/msm.cuh's msm_tuning: 2^(j c) H_i, j < k, made on the
     * device; at most cuzk_gpu_key_h_copies_max) */
    unsigned h_copies;
    /* called after each section of points is copied (bytes so far of the
     * points' total), on the uploading thread; NULL: none */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
} cuzk_gpu_key_in;

int cuzk_gpu_key_upload(const cuzk_gpu_key_in *in, cuzk_gpu_key **key, cuzk_gpu_msg *msg);
void cuzk_gpu_key_free(cuzk_gpu_key *key);
/* What a key needs on a GPU, computed on the host without a CUDA call
 * (for src/gpu/residency.c, which decides what fits): its points and NTT tables (key_bytes); its
 * constraint matrices and the witness split's buffers, when resident
 * (matrix_bytes; 0 without coefs); one proof's peak working set
 * (work_bytes) with MSMs over at most msm_chunk points at a time (0: all). */
void cuzk_gpu_key_footprint(const cuzk_gpu_key_in *in, uint64_t msm_chunk, uint64_t *key_bytes,
                            uint64_t *matrix_bytes, uint64_t *work_bytes);
/* The shifted copies of H that pay (k: H's MSM then reduces one set of
 * buckets; more are never read) and the bytes of one copy; h_copies is
 * ignored. */
unsigned cuzk_gpu_key_h_copies_max(const cuzk_gpu_key_in *in, uint64_t *copy_bytes);
/* The key's copies of H as they went up: *copies (1: none), their window
 * c, and in sums[j] (XYZZ, as cuzk_gpu_msm_result's windows) the GPU's
 * plain sum of copy j's points, for the check 2^c sums[j-1] = sums[j]
 * that the caller makes on the CPU before the key's first proof. */
void cuzk_gpu_key_h_copies(const cuzk_gpu_key *key, unsigned *copies, unsigned *c,
                           unsigned char sums[CUZK_GPU_MAX_WINDOWS][384]);
/* Bytes the key holds on its GPU (key_bytes, plus matrix_bytes when they
 * went up). */
uint64_t cuzk_gpu_key_bytes(const cuzk_gpu_key *key);
/* Total and free memory of GPU `device` (cudaMemGetInfo, device-global:
 * call before proofs run, never beside them; src/gpu/ asks once per plan
 * and once per key uploaded without one). */
int cuzk_gpu_memory(int device, uint64_t *free_bytes, uint64_t *total_bytes, cuzk_gpu_msg *msg);
/* 1 when the key's constraint matrices are on the device (the GPU
 * evaluates a, b and splits the witness itself); 0 when the coefficient
 * section was not given or did not validate. */
int cuzk_gpu_key_evaluates(const cuzk_gpu_key *key);

/* A proof's witness copied to the key's GPU ahead of the proof, outside
 * the compute lock (on a copy stream of its own), while another proof
 * computes; cuzk_gpu_prove then skips its upload. */
typedef struct cuzk_gpu_staged cuzk_gpu_staged;
typedef struct cuzk_gpu_prove_in {
    /* A w and B w per constraint row: domain_size Montgomery Fr each; NULL
     * (with the lists below unused) when cuzk_gpu_key_evaluates(key) */
    const unsigned char *a, *b;
    size_t n_ab; /* entries given in a and b (the rest up to domain_size are 0); 0: domain_size */
    const unsigned char *witness; /* n_vars plain 32-byte values */
    const uint32_t *ones, *tail;  /* witness indices of value 1 and of values other than 0 and 1 */
    size_t n_ones, n_tail;
    const uint32_t *ones_c, *tail_c; /* the same past the publics, relative to index n_public + 1 */
    size_t n_ones_c, n_tail_c;
    const cuzk_gpu_staged *staged; /* the witness (and a, b), already on the device (cuzk_gpu_stage); NULL: uploaded */
    /* the MSMs over at most this many points at a time, their window sums
     * added on the device (0: each at once): less device memory, the
     * streamed path the engine's memory plan takes when a proof does not
     * fit (cuzk_gpu_key_footprint gives the working set for a chunk) */
    uint64_t msm_chunk;
    int pinned_upload; /* as in cuzk_gpu_key_in */
} cuzk_gpu_prove_in;

/* The MSMs, in this order: sum w_i A_i, sum w_i B_i (G1), the same in G2,
 * the C sum over the private signals, the H sum (no blinding). */
enum { GPU_MSM_A, GPU_MSM_B1, GPU_MSM_B2, GPU_MSM_C, GPU_MSM_H, GPU_MSMS };

typedef struct cuzk_gpu_prove_out {
    cuzk_gpu_msm_result msm[GPU_MSMS];
    /* milliseconds of the phases the GPU ran (src/core/phases.h: eval
     * only when it evaluated, ntt, the MSMs), and of the upload */
    double ms[PROOF_PHASES];
    double upload_ms;
    size_t n_ones, n_tail; /* the witness split (as given, or as the GPU found it) */
} cuzk_gpu_prove_out;

/* The MSMs of a proof (and H's NTTs); the caller blinds. Holds the GPU's
 * compute lock for the duration. */
int cuzk_gpu_prove(cuzk_gpu_key *key, const cuzk_gpu_prove_in *in, cuzk_gpu_prove_out *out, cuzk_gpu_msg *msg);
/* Device bytes a staged witness of this key takes (n_vars 32-byte values),
 * with its evaluations a and b when they are staged too (the domain's
 * rows each). */
uint64_t cuzk_gpu_stage_bytes(const cuzk_gpu_key *key, int with_evaluations);
/* Copies a proof's inputs to the key's GPU without taking its compute
 * lock, while another proof computes: the witness (n_vars plain 32-byte
 * values) and, for a proof whose a and b are given (a key without its
 * matrices there, or evaluated on the CPU), a and b (n_ab rows, 0: the
 * domain). The copy may still run when this returns (an event orders it
 * before the proof that uses it). a and b NULL: only a key that evaluates
 * them (cuzk_gpu_key_evaluates). */
int cuzk_gpu_stage(const cuzk_gpu_key *key, const unsigned char *witness, const unsigned char *a,
                   const unsigned char *b, size_t n_ab, int pinned_upload, cuzk_gpu_staged **out, cuzk_gpu_msg *msg);
/* After the proof that used it (or instead of one). NULL is a no-op. */
void cuzk_gpu_staged_free(cuzk_gpu_staged *staged);

#ifdef __cplusplus
}
#endif

#endif
