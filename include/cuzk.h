/* cuzk: a Groth16 zk-SNARK prover for BLS12-381 and BN254 (CPU and CUDA).
 *
 * The library's public headers, one a product: this one (keys, witnesses,
 * proving, verification, setup), cuzk_engine.h (the proving engine: a
 * queue of jobs over the GPUs), cuzk_serve.h (the daemon, `cuzk serve`)
 * and cuzk_supraseal.h (supraseal-c2's C ABI, for bellperson). Conventions:
 *   - every function that can fail returns a cuzk status (0 = CUZK_OK);
 *     cuzk_strerror() turns a status into a sentence;
 *   - the library never exits or aborts on bad input, and reads no
 *     environment variable: every setting is a field of an options struct
 *     (or cuzk_set_cpu_backend), which the cuzk command fills from its
 *     flags and environment;
 *   - libcuzk.a exports the names declared CUZK_API in them and nothing
 *     else.
 */
#ifndef CUZK_H
#define CUZK_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_VERSION_MAJOR 0
#define CUZK_VERSION_MINOR 1
#define CUZK_VERSION_PATCH 0

#if defined(__GNUC__)
#define CUZK_API __attribute__((visibility("default")))
#define CUZK_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#else
#define CUZK_API
#define CUZK_WARN_UNUSED_RESULT
#endif

/* Status codes. Stable: new codes are only ever appended. */
typedef enum cuzk_status {
    CUZK_OK = 0,
    CUZK_ERR_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad length, an option out of range */
    CUZK_ERR_NO_MEMORY = 2,        /* an allocation failed */
    CUZK_ERR_IO = 3,               /* reading or writing a file failed */
    CUZK_ERR_FORMAT = 4,           /* a file, string or encoding is malformed */
    CUZK_ERR_NOT_CANONICAL = 5,    /* a field element or scalar is not below its modulus */
    CUZK_ERR_NOT_ON_CURVE = 6,     /* a point's coordinates do not satisfy the curve equation */
    CUZK_ERR_NOT_IN_SUBGROUP = 7,  /* a curve point is outside the prime-order subgroup */
    CUZK_ERR_BAD_FLAGS = 8,        /* a point encoding's flag bits are inconsistent */
    CUZK_ERR_NO_SQRT = 9,          /* no curve point has the encoded x-coordinate */
    CUZK_ERR_RANDOM = 10,          /* the operating system's random source failed */
    CUZK_ERR_UNSUPPORTED = 11,     /* valid, but not supported by this build or machine */
    CUZK_ERR_CUDA = 12,            /* a CUDA call failed */
    CUZK_ERR_NO_DEVICE = 13,       /* no usable GPU */
    CUZK_ERR_INTERNAL = 14,        /* a bug in cuzk: please report it */
    CUZK_ERR_INVALID_PROOF = 15,   /* the inputs are well formed but the proof does not verify */
    CUZK_ERR_BUSY = 16,            /* a bounded queue is full: retry later */
    CUZK_ERR_NOT_FOUND = 17,       /* no such job or key */
    CUZK_ERR_CANCELLED = 18        /* the job was cancelled */
} cuzk_status;

/* Details of a failure: the status and a sentence naming the input (file,
 * section, JSON key), what was expected and what was found. Functions that
 * take a `cuzk_error *` fill it when they fail (it may be NULL). */
typedef struct cuzk_error {
    int code;
    char message[512];
} cuzk_error;

typedef enum cuzk_curve {
    CUZK_CURVE_BN254 = 1,    /* circom's "bn128" / alt_bn128 */
    CUZK_CURVE_BLS12_381 = 2 /* circom's "bls12381" */
} cuzk_curve;

/* "bn128" or "bls12381", as snarkjs names them in JSON; NULL if unknown. */
CUZK_API const char *cuzk_curve_name(int curve);

/* Frees memory the library returned (strings, buffers). NULL is a no-op. */
CUZK_API void cuzk_free(void *p);

/* A constant English sentence describing a status; never NULL (unknown codes
 * get a generic sentence). */
CUZK_API const char *cuzk_strerror(int status);

/* "MAJOR.MINOR.PATCH" of the library that is linked, and the same as
 * MAJOR*10000 + MINOR*100 + PATCH. */
CUZK_API const char *cuzk_version(void);
CUZK_API int cuzk_version_number(void);

/* Name of the CPU arithmetic backend this process uses: "x86_64-adx"
 * (MULX/ADCX/ADOX, picked when CPUID reports BMI2 and ADX) or "portable". */
CUZK_API const char *cuzk_cpu_backend(void);

/* The CPU arithmetic backends: the same results, bit for bit, at different
 * speeds. */
typedef enum cuzk_cpu_backend_choice {
    CUZK_CPU_BACKEND_AUTO = 0,     /* x86_64-adx where the CPU has BMI2 and ADX, else portable */
    CUZK_CPU_BACKEND_PORTABLE = 1, /* C with unsigned __int128 */
    CUZK_CPU_BACKEND_ADX = 2       /* x86-64 MULX/ADCX/ADOX */
} cuzk_cpu_backend_choice;

/* Picks the CPU backend for the whole process (the library reads no
 * environment variable; the cuzk command maps CUZK_CPU_BACKEND=portable to
 * this call). Call it before other cuzk calls: work already running keeps
 * the backend it started with. CUZK_ERR_UNSUPPORTED for ADX on a CPU or
 * build without it, CUZK_ERR_INVALID_ARGUMENT for an unknown choice. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_set_cpu_backend(int backend, cuzk_error *err);

/* A source of random bytes: fills out[0, len) and returns CUZK_OK, or a
 * status on failure. Options that take one are FOR TESTING ONLY: a
 * predictable source makes a proof's blinding (r, s) or a setup's toxic
 * waste predictable, which reveals the witness or lets anyone forge
 * proofs. NULL there means the operating system's CSPRNG. */
typedef int (*cuzk_random_fn)(void *ctx, unsigned char *out, size_t len);

/* Whether this build has CUDA support (1) or not (0). */
CUZK_API int cuzk_has_cuda(void);

/* Number of CUDA devices usable by this process. Without CUDA support, or
 * with no driver or device, *count is 0 and the result is CUZK_OK;
 * CUZK_ERR_CUDA is returned only when the CUDA runtime reports a failure
 * other than "no device". */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_gpu_count(int *count);

/* What one CUDA device is (for `cuzk version`, logs and status pages). */
typedef struct cuzk_gpu_properties {
    char name[256];                  /* e.g. "NVIDIA H200" */
    unsigned long long memory_bytes; /* the device's total memory */
    int multiprocessors;             /* streaming multiprocessors */
    int compute_major;               /* compute capability, e.g. 9 and 0 for sm_90 */
    int compute_minor;
    char pci_bus_id[32];             /* "domain:bus:device.function" */
} cuzk_gpu_properties;

/* Fills *out for device `device` (0 <= device < cuzk_gpu_count()).
 * CUZK_ERR_INVALID_ARGUMENT for a NULL out or a device out of range,
 * CUZK_ERR_UNSUPPORTED in a build without CUDA, CUZK_ERR_CUDA when the
 * runtime fails. Does not start the device's proving context. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_gpu_get_properties(int device, cuzk_gpu_properties *out);

/* Runs known-answer checks of the CPU arithmetic with the chosen backend
 * (field multiplication, curve generators, a scalar multiplication).
 * CUZK_OK or CUZK_ERR_INTERNAL. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_selftest(void);

/* ------------------------------------------------------------ files
 *
 * snarkjs/circom binary files (.zkey, .wtns, .r1cs) are read whole into the
 * process's own memory at the open (only regular files; a FIFO or a device
 * is refused without blocking): a file truncated or rewritten in place
 * afterwards (a plain `cp` over a key in use does that) cannot touch an
 * opened handle, where a mapping would die of SIGBUS. Every open checks
 * the magic, the version, that each section lies inside the file and has
 * the size its header implies, which curve the primes name, and every count
 * and index it depends on. The verification-key points of a .zkey are
 * checked (canonical, on the curve, in the subgroup) at open; the large
 * point sections are checked by cuzk_zkey_check. A failure names the file,
 * the section and what was expected and found.
 *
 * The *_open_memory variants read a caller's buffer, which must outlive the
 * handle; `name` is used in messages. */

/* Progress of long work (reading and checking a key, a setup, a circuit,
 * a key's first upload to a GPU, the engine's key loads): stage names the
 * step, done of total counts its items so far: bytes where the stage
 * begins with "reading" or "uploading", else points, blocks or steps.
 * Called on the thread doing the work (the caller's, or an engine
 * worker's), as often as every few milliseconds: the callback decides
 * what to show; it must not call back into the library. The library
 * itself never prints. */
typedef void (*cuzk_progress_fn)(void *ctx, const char *stage, unsigned long long done, unsigned long long total);

typedef struct cuzk_zkey cuzk_zkey;
typedef struct cuzk_wtns cuzk_wtns;
typedef struct cuzk_r1cs cuzk_r1cs;

typedef struct cuzk_zkey_info {
    int curve;              /* cuzk_curve */
    unsigned version;       /* file format version (1 or 2) */
    unsigned n_vars;        /* signals, the constant 1 included */
    unsigned n_public;      /* public signals (outputs then inputs) */
    unsigned domain_size;   /* power of two */
    unsigned long long n_coefs;
    unsigned long long file_size;
} cuzk_zkey_info;

CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_zkey_open(cuzk_zkey **out, const char *path, cuzk_error *err);
/* The same, reporting the read (stage "reading the key") to progress
 * (may be NULL): a key of gigabytes takes seconds to read. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_zkey_open_progress(cuzk_zkey **out, const char *path,
                                                             cuzk_progress_fn progress, void *progress_ctx,
                                                             cuzk_error *err);
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_zkey_open_memory(cuzk_zkey **out, const void *data, size_t len,
                                                           const char *name, cuzk_error *err);
/* A bellperson .params key (Filecoin's Groth16 parameters,
 * docs/filecoin.md) with the circuit's .r1cs, which the key does not hold:
 * the handle proves wherever a .zkey's does (cuzk_prove, the engine), with
 * bellperson's conventions (docs/filecoin.md §2-3). Every count of the key
 * is checked against the circuit; the points are decoded into memory
 * (about the file's size again) and checked canonical and on the curve
 * (bellperson's unchecked read; the subgroup check is cuzk info --check's).
 * BLS12-381 only. Progress stages: "reading the circuit" (bytes),
 * "decoding IC", ..., "decoding B_G2" (points of all six vectors). Free
 * with cuzk_zkey_free. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_params_open(cuzk_zkey **out, const char *params_path,
                                                      const char *r1cs_path, cuzk_progress_fn progress,
                                                      void *progress_ctx, cuzk_error *err);
CUZK_API void cuzk_zkey_free(cuzk_zkey *zkey);
CUZK_API void cuzk_zkey_get_info(const cuzk_zkey *zkey, cuzk_zkey_info *info);

/* Checks every point of every section (canonical coordinates, on the curve,
 * and with subgroup != 0 in the prime-order subgroup) and every coefficient
 * entry, using `threads` threads (0: one per core). Slow for large keys:
 * subgroup checks cost tens of microseconds per point. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_zkey_check(const cuzk_zkey *zkey, int subgroup, int threads,
                                                     cuzk_error *err);
/* The same, reporting the points checked (stages "checking A", "checking
 * B1", ...; done and total count all sections' points) to progress (may
 * be NULL). */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_zkey_check_progress(const cuzk_zkey *zkey, int subgroup, int threads,
                                                              cuzk_progress_fn progress, void *progress_ctx,
                                                              cuzk_error *err);

/* The verification key as snarkjs's `zkey export verificationkey` writes it
 * (verification_key.json). *json is NUL-terminated; free it with cuzk_free. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_zkey_export_vk(const cuzk_zkey *zkey, char **json, cuzk_error *err);

typedef struct cuzk_wtns_info {
    int curve;
    unsigned version;
    unsigned n_witness;
} cuzk_wtns_info;

CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_wtns_open(cuzk_wtns **out, const char *path, cuzk_error *err);
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_wtns_open_memory(cuzk_wtns **out, const void *data, size_t len,
                                                           const char *name, cuzk_error *err);
CUZK_API void cuzk_wtns_free(cuzk_wtns *wtns);
CUZK_API void cuzk_wtns_get_info(const cuzk_wtns *wtns, cuzk_wtns_info *info);

typedef struct cuzk_r1cs_info {
    int curve;
    unsigned version;
    unsigned n_wires;
    unsigned n_pub_out, n_pub_in, n_prv_in;
    unsigned long long n_labels;
    unsigned n_constraints;
    unsigned long long n_terms; /* non-zero coefficients in A, B and C */
} cuzk_r1cs_info;

CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_r1cs_open(cuzk_r1cs **out, const char *path, cuzk_error *err);
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_r1cs_open_memory(cuzk_r1cs **out, const void *data, size_t len,
                                                           const char *name, cuzk_error *err);
CUZK_API void cuzk_r1cs_free(cuzk_r1cs *r1cs);
CUZK_API void cuzk_r1cs_get_info(const cuzk_r1cs *r1cs, cuzk_r1cs_info *info);

/* ------------------------------------------------------------ verify
 *
 * Groth16 verification of snarkjs JSON: verification_key.json,
 * public.json, proof.json (the order of `snarkjs groth16 verify`).
 * Returns CUZK_OK when the proof is valid, CUZK_ERR_INVALID_PROOF when it
 * is not (a proof point at infinity, off its curve or outside the
 * prime-order subgroup included: snarkjs rejects those too), another
 * status (with err filled) for malformed input: CUZK_ERR_FORMAT for a
 * verification key whose alpha, beta, gamma or delta is the point at
 * infinity (such a key accepts forged proofs). Stricter than snarkjs
 * where snarkjs would accept: every number must be canonical (below its
 * modulus). Needs a build with JSON support (jansson):
 * CUZK_ERR_UNSUPPORTED otherwise. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_verify_json(const char *vk_json, size_t vk_len, const char *public_json,
                                                      size_t public_len, const char *proof_json, size_t proof_len,
                                                      cuzk_error *err);
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_verify_files(const char *vk_path, const char *public_path,
                                                       const char *proof_path, cuzk_error *err);

/* ------------------------------------------------------------ prove */

/* Where a proof's transforms and MSMs run. */
typedef enum cuzk_device {
    CUZK_DEVICE_AUTO = 0, /* the GPU when one is present (and the key fits), else the CPU */
    CUZK_DEVICE_CPU = 1,
    CUZK_DEVICE_GPU = 2 /* a GPU or an error (CUZK_ERR_NO_DEVICE) */
} cuzk_device;

/* How host data goes to a GPU. */
typedef enum cuzk_gpu_upload {
    /* copies of 16 MiB or more through pinned staging slots filled by
     * several host threads (5x faster for a 2^24 witness on the H200) */
    CUZK_GPU_UPLOAD_PINNED = 0,
    CUZK_GPU_UPLOAD_PAGEABLE = 1 /* straight from the host's memory, staged by the driver */
} cuzk_gpu_upload;

/* Who computes a = A w, b = B w and splits the witness of a GPU proof. */
typedef enum cuzk_gpu_eval {
    /* the GPU, from the key's constraint matrices kept on it beside its
     * points (when they fit; else the CPU) */
    CUZK_GPU_EVAL_GPU = 0,
    CUZK_GPU_EVAL_CPU = 1 /* the CPU, for every proof: the matrices stay off the GPU (less device memory) */
} cuzk_gpu_eval;

typedef struct cuzk_prove_options {
    int threads;   /* worker threads; 0 = one per core */
    int no_verify; /* 1 skips verifying the proof before returning it (not recommended) */
    int device;    /* cuzk_device */
    int gpu;       /* which GPU (CUDA device index) */
    /* The GPU path (the cuzk command fills them from CUZK_GPU_UPLOAD,
     * CUZK_GPU_EVAL and CUZK_GPU_MSM_CHUNK). */
    int gpu_upload; /* cuzk_gpu_upload */
    /* cuzk_gpu_eval; it takes effect with the key's first upload to a GPU
     * (the key's copy there has its matrices or not until it is freed) */
    int gpu_eval;
    /* testing: a GPU proof's MSMs over at most this many points at a time
     * (the streamed, lower-memory path the engine takes when a proof does
     * not fit); 0: each MSM at once */
    unsigned long long gpu_msm_chunk;
    /* testing only (see cuzk_random_fn): where r and s come from; NULL:
     * the OS CSPRNG */
    cuzk_random_fn random;
    void *random_ctx;
    /* The key's first upload to a GPU (stage "uploading the key to GPU
     * N"); NULL: none. */
    cuzk_progress_fn progress;
    void *progress_ctx;
} cuzk_prove_options;

/* Wall time of each phase of a proof, in seconds, and what the witness
 * looked like. */
typedef struct cuzk_timings {
    double eval;   /* a = A w, b = B w, c = a o b from the key's coefficients */
    double ntt;    /* a, b, c to the odd coset; h = a b - c */
    double msm_a, msm_b1, msm_b2, msm_c, msm_h;
    double blind;  /* adding alpha, beta, r delta, s delta, ... */
    double verify; /* the pairing check of the result */
    double json;   /* writing proof.json and public.json texts */
    double total;
    unsigned long long witness_ones;  /* witness values equal to 1 */
    unsigned long long witness_other; /* neither 0 nor 1 (the MSMs' Pippenger part) */
    /* where it ran: "cpu", or "gpu N"; with CUZK_DEVICE_AUTO and a GPU
     * that could not take the key, device_note says why the CPU ran */
    char device[16];
    char device_note[200];
    double key_upload; /* the first GPU proof with a key: copying its points to the GPU */
    double gpu_upload; /* a, b, the witness and the split lists to the GPU */
    /* The proof's three stages (src/groth16/prove.h), each including the
     * phases above that run in it: prepare (checks; with a GPU also eval
     * and the witness split), compute (the GPU call, or the whole CPU
     * proof), finalize (with a GPU finishing the MSMs and blind; verify,
     * json). In the engine they run on different workers, and total is
     * their sum (the waits between them are in cuzk_job_info). */
    double prepare, compute, finalize;
} cuzk_timings;

/* Proves that `wtns` satisfies the circuit of `zkey` (snarkjs's groth16
 * prove). On success *proof_json and *public_json hold proof.json and
 * public.json exactly as snarkjs writes them (free with cuzk_free). r and
 * s come from the OS CSPRNG; the proof is checked with the pairing before it
 * is returned (unless opts->no_verify), so a wrong proof is never handed
 * out. opts and timings may be NULL. Errors: CUZK_ERR_FORMAT (witness and key
 * disagree: curve, count, constant signal; a bad coefficient entry),
 * CUZK_ERR_UNSUPPORTED, CUZK_ERR_NO_MEMORY, CUZK_ERR_RANDOM,
 * CUZK_ERR_INTERNAL (the self-check failed). */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_prove(const cuzk_zkey *zkey, const cuzk_wtns *wtns,
                                                const cuzk_prove_options *opts, char **proof_json,
                                                char **public_json, cuzk_timings *timings, cuzk_error *err);

/* A BLS12-381 proof.json as bellperson serializes a proof (its
 * Proof::write, 192 bytes: A, B, C compressed in the ZCash encoding,
 * docs/filecoin.md §4), for Filecoin's tools. CUZK_ERR_FORMAT for a
 * proof.json that is not one (named in the message), CUZK_ERR_UNSUPPORTED
 * for a BN254 proof or a build without jansson. */
#define CUZK_BELLPERSON_PROOF_BYTES 192
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_proof_to_bellperson(const char *proof_json, size_t len,
                                                              unsigned char out[CUZK_BELLPERSON_PROOF_BYTES],
                                                              cuzk_error *err);

/* ------------------------------------------------------------ setup */

/* Circuit-specific Groth16 setup: reads the circuit (.r1cs) and a powers of
 * tau prepared for phase 2 (.ptau, as `snarkjs powersoftau prepare phase2`
 * makes), writes the proving key (.zkey) exactly as `snarkjs groth16 setup`
 * does — the same bytes. threads: 0 = one per core. The key is written
 * through a temporary file: a failure leaves nothing at zkey_path.
 * Errors name the file: curve mismatch and a circuit too large for the ptau
 * are CUZK_ERR_FORMAT. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_setup_ptau(const char *r1cs_path, const char *ptau_path,
                                                     const char *zkey_path, int threads, cuzk_error *err);


/* Circuit-specific Groth16 setup from fresh randomness, without a ceremony:
 * tau, alpha, beta, gamma and delta are drawn from the OS CSPRNG, used and
 * wiped. FOR TESTING AND BENCHMARKING ONLY: whoever runs it could have kept
 * the toxic waste and forge proofs, and the scalar multiplications are not
 * constant-time. The key is a standard .zkey (snarkjs proves and verifies
 * with it; its circuit hash is zero, as there is no ceremony to record) and
 * is written in pieces, so memory stays near 100 bytes per wire plus the
 * .r1cs. threads: 0 = one per core; progress may be NULL. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_setup_random(const char *r1cs_path, const char *zkey_path, int threads,
                                                       cuzk_progress_fn progress, void *progress_ctx,
                                                       cuzk_error *err);

/* The proving key a setup writes: snarkjs's .zkey, or a bellperson .params
 * key (BLS12-381 only; bellperson's conventions: docs/filecoin.md). */
typedef enum cuzk_key_format { CUZK_KEY_ZKEY = 0, CUZK_KEY_PARAMS = 1 } cuzk_key_format;

typedef struct cuzk_setup_options {
    int threads; /* 0 = one per core */
    /* cuzk_device: where a setup from fresh randomness computes the key's
     * points (AUTO: a GPU when present, else the CPU; the same points);
     * the cuzk command maps CUZK_SETUP_DEVICE=cpu to CUZK_DEVICE_CPU */
    int device;
    cuzk_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    /* testing only (see cuzk_random_fn): where a setup from fresh
     * randomness draws tau, alpha, beta, gamma and delta; NULL: the OS
     * CSPRNG */
    cuzk_random_fn random;
    void *random_ctx;
    int format; /* cuzk_key_format */
} cuzk_setup_options;

/* Both setups behind one call: from the prepared powers of tau at
 * ptau_path (cuzk_setup_ptau; device and random unused), or,
 * with ptau_path NULL, from fresh randomness (cuzk_setup_random). opts may
 * be NULL (the defaults). */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_setup(const char *r1cs_path, const char *ptau_path, const char *zkey_path,
                                                const cuzk_setup_options *opts, cuzk_error *err);

/* Whether JSON input (verify) is built in. */
CUZK_API int cuzk_has_json(void);

#ifdef __cplusplus
}
#endif

#endif
