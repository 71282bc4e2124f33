/* cuzk: a Groth16 zk-SNARK prover for BLS12-381 and BN254 (CPU and CUDA).
 *
 * This is the library's only public header. Conventions:
 *   - every function that can fail returns a cuzk status (0 = CUZK_OK);
 *     cuzk_strerror() turns a status into a sentence;
 *   - the library never exits or aborts on bad input, and reads no
 *     environment variable: every setting is a field of an options struct
 *     (or cuzk_set_cpu_backend), which the cuzk command fills from its
 *     flags and environment;
 *   - libcuzk.a exports the names declared CUZK_API here and nothing else.
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

/* ------------------------------------------------------------ circuits */

typedef struct cuzk_circuit_options {
    int curve;                      /* CUZK_CURVE_*; 0 = BN254 */
    unsigned long long constraints; /* the size to aim for; the circuit has whole blocks */
    unsigned long long seed;        /* picks the message */
    unsigned n_public;              /* public outputs: the first n_public digest bits (0..256) */
    const char *message_path;       /* if not NULL, the message is written there too */
    cuzk_progress_fn progress;      /* may be NULL; stage "blocks" */
    void *progress_ctx;
} cuzk_circuit_options;

typedef struct cuzk_circuit_info {
    unsigned long long blocks, constraints, wires;
    unsigned long long witness_binary, witness_other; /* witness values in {0, 1}, and the rest */
    unsigned char digest[32];                          /* SHA-256 of the message */
} cuzk_circuit_info;

/* A satisfied circuit of any size, for tests and benchmarks: SHA-256 of a
 * message of B 64-byte blocks (bytes from splitmix64(seed)), as R1CS
 * gadgets over bits, with B chosen so the circuit has about
 * opts->constraints constraints (about 27,000 per block, 2 blocks at
 * least). The message words are private inputs, the first n_public digest
 * bits (most significant bit of byte 0 first) public outputs; every other
 * witness value is a bit. Writes the .r1cs and .wtns (circom's formats)
 * as streams, checks the digest against a plain SHA-256, and fills info
 * (may be NULL). On failure neither file is left behind. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_circuit_sha256_chain(const char *r1cs_path, const char *wtns_path,
                                                               const cuzk_circuit_options *opts,
                                                               cuzk_circuit_info *info, cuzk_error *err);

/* The 32 GiB-sector PoRep partition's shape (the defaults): constraints,
 * partitions; the most constraints porep-shape writes as a .r1cs, and in
 * its native form (a domain of 2^31 with the 328 input constraints). */
#define CUZK_POREP_CONSTRAINTS 130278869ull
#define CUZK_POREP_PARTITIONS 10u
#define CUZK_POREP_R1CS_MAX (1ull << 24)
#define CUZK_POREP_NATIVE_MAX ((1ull << 31) - 328)

/* How porep-shape writes the circuit: AUTO is R1CS up to
 * CUZK_POREP_R1CS_MAX constraints, NATIVE above. */
enum { CUZK_POREP_FORMAT_AUTO = 0, CUZK_POREP_FORMAT_R1CS = 1, CUZK_POREP_FORMAT_NATIVE = 2 };

typedef struct cuzk_porep_shape_options {
    unsigned long long constraints; /* 0: CUZK_POREP_CONSTRAINTS */
    unsigned partitions;            /* 0: CUZK_POREP_PARTITIONS */
    unsigned long long seed;        /* picks the witnesses (the circuit is the same for every seed) */
    int format;                     /* CUZK_POREP_FORMAT_* */
    int witness_files;              /* NATIVE: 1 writes partition_K.wtns too (R1CS always does) */
    cuzk_progress_fn progress;      /* may be NULL */
    void *progress_ctx;
} cuzk_porep_shape_options;

typedef struct cuzk_porep_shape_info {
    unsigned long long constraints, wires, n_public, aux, partitions;
    int format;                            /* the format written: R1CS or NATIVE */
    unsigned long long nonzeros[3];        /* of A, B, C */
    unsigned long long aux_in_a, aux_in_b; /* aux variables in some A, in some B */
    unsigned long long witness_binary, witness_values; /* aux values in {0, 1}, of all, over the files written */
} cuzk_porep_shape_info;

/* A satisfied BLS12-381 circuit with the shape of a PoRep partition
 * (src/circuit/porep_shape.c: 327 public inputs, an aux variable a
 * constraint, A/B/C nonzeros, A and B densities and the witness's 0/1
 * share in the PoRep's proportions) and the witnesses of P partitions
 * (the directory is made if missing). R1CS: out_dir/circuit.r1cs and
 * out_dir/partition_K.wtns. NATIVE: out_dir/circuit.porep, a description
 * of five lines from which every reader of circuits (cuzk_setup,
 * cuzk_params_open, where a .r1cs path goes) makes the rows again, and
 * the prover each partition's witness; partition_K.wtns only with
 * witness_files. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_circuit_porep_shape(const char *out_dir,
                                                              const cuzk_porep_shape_options *opts,
                                                              cuzk_porep_shape_info *info, cuzk_error *err);

/* Whether JSON input (verify) is built in. */
CUZK_API int cuzk_has_json(void);

/* ------------------------------------------------------------ engine
 *
 * A proving engine: a queue of proof jobs, a pipeline of worker pools that
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

/* ------------------------------------------------------------ daemon */

/* `cuzk serve` (src/server/, docs/api.md, docs/security.md): the engine
 * behind an HTTP/JSON API on host:port (port 0: a free one, printed on
 * stdout), journaling jobs in state_dir so that none is lost across a
 * crash. Blocks until SIGTERM or SIGINT, then stops taking requests,
 * answers long polls, leaves queued jobs journaled for the next start,
 * gives running proofs shutdown_grace seconds to finish (then leaves them
 * journaled too), and returns CUZK_OK. CUZK_ERR_UNSUPPORTED where the
 * build lacks libmicrohttpd or jansson. */
/* What the daemon says as it runs (started, listening, stopping, a
 * journal that cannot be written, a stored proof proved again): one line
 * each, without a newline, passed to cuzk_serve_config.log; the library
 * prints nothing itself. */
typedef enum cuzk_log_level { CUZK_LOG_ERROR = 0, CUZK_LOG_WARN = 1, CUZK_LOG_INFO = 2 } cuzk_log_level;
typedef void (*cuzk_log_fn)(void *arg, cuzk_log_level level, const char *message);

typedef struct cuzk_serve_config {
    const char *host;       /* an IPv4 address, e.g. "127.0.0.1" */
    unsigned port;
    const char *state_dir;  /* created if missing */
    cuzk_engine_config engine;
    unsigned long long max_body; /* request bodies; 0: 256 MiB */
    double result_ttl;           /* seconds results are kept; 0: 3600 */
    /* Connections: what one client can hold. */
    unsigned max_connections;          /* open at once; 0: 4096 */
    unsigned max_connections_per_ip;   /* from one address; 0: a quarter of max_connections */
    double idle_timeout;               /* seconds a connection may be silent; 0: 30 */
    /* seconds a request's headers may take from a connection's start (a
     * kept-alive one's next request: idle_timeout); its body must then
     * arrive at 256 KiB/s at least. A connection past it is closed however
     * much it trickles. 0: 10 */
    double header_timeout;
    unsigned http_threads;             /* threads polling the connections; 0: 8 */
    unsigned long long max_body_total; /* request bodies buffered at once; 0: 4 x max_body, at least 1 GiB */
    double shutdown_grace;             /* seconds running proofs get to finish at SIGTERM; 0: 30; < 0: none */
    /* What a client can make the daemon open: key_path and witness_path
     * must lie in one of these directories (after resolving links);
     * without any, client paths are refused (uploaded witnesses and
     * preloaded key ids always work). allow_any_path: any file the daemon
     * can read (a trusted network only). */
    const char *const *key_dirs;
    unsigned n_key_dirs;
    const char *const *witness_dirs;
    unsigned n_witness_dirs;
    int allow_any_path;
    /* Authentication: a file holding the bearer token every request but
     * GET /healthz must carry (Authorization: Bearer TOKEN); TLS: a PEM
     * certificate (chain) and its key. Both are required when host is not
     * a loopback address. NULL: none. */
    const char *token_file;
    const char *tls_cert_file, *tls_key_file;
    /* Keys the operator loads at the start, key_ids[i] from key_paths[i]
     * (any readable file: the directories above bind clients only). */
    const char *const *key_ids;
    const char *const *key_paths;
    unsigned n_keys;
    /* Where its messages go (NULL: nowhere) and the callback's argument;
     * called from any of its threads, one message at a time. */
    cuzk_log_fn log;
    void *log_arg;
    /* key_r1cs_paths[i]: key_paths[i] is a
     * bellperson .params key of this circuit (cuzk_engine_key_load_params);
     * NULL (the array or an entry): a .zkey */
    const char *const *key_r1cs_paths;
    /* Many daemons on one PostgreSQL job queue
     * (docs/cluster.md). queue: a libpq connection string or
     * postgresql:// URI (NULL: the local journal in state_dir); node: this
     * daemon's name among them (NULL: the host name); lease: seconds a
     * claimed job is this node's without a renewal (0: 30); max_attempts:
     * claims before a job fails (0: 3); queue_max_witness: bytes of
     * uploaded witnesses a job may store in the database (0: 64 MiB; larger
     * ones go by path on storage the nodes share); queue_max_queued: jobs
     * waiting unclaimed beyond which a POST is refused with 429 (0:
     * 100,000). */
    const char *queue;
    const char *node;
    double lease;
    unsigned max_attempts;
    unsigned long long queue_max_witness;
    unsigned queue_max_queued;
} cuzk_serve_config;

CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_serve(const cuzk_serve_config *config, cuzk_error *err);
/* Whether the daemon is built in. */
CUZK_API int cuzk_has_server(void);
/* Whether the daemon can keep its jobs on a PostgreSQL queue
 * (cuzk_serve_config.queue; docs/cluster.md): built with libpq. */
CUZK_API int cuzk_has_queue(void);

#ifdef __cplusplus
}
#endif

#endif
