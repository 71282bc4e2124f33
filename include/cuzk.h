/* cuzk: a Groth16 zk-SNARK prover for BLS12-381 and BN254 (CPU and CUDA).
 *
 * This is the library's only public header. Conventions:
 *   - every function that can fail returns a cuzk status (0 = CUZK_OK);
 *     cuzk_strerror() turns a status into a sentence;
 *   - the library never exits or aborts on bad input.
 */
#ifndef CUZK_H
#define CUZK_H

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
    CUZK_ERR_INTERNAL = 14         /* a bug in cuzk: please report it */
} cuzk_status;

/* A constant English sentence describing a status; never NULL (unknown codes
 * get a generic sentence). */
CUZK_API const char *cuzk_strerror(int status);

/* "MAJOR.MINOR.PATCH" of the library that is linked, and the same as
 * MAJOR*10000 + MINOR*100 + PATCH. */
CUZK_API const char *cuzk_version(void);
CUZK_API int cuzk_version_number(void);

/* Name of the CPU arithmetic backend chosen for this process:
 * "x86_64-adx" (MULX/ADCX/ADOX, picked when CPUID reports BMI2 and ADX) or
 * "portable". Setting the environment variable CUZK_CPU_BACKEND=portable
 * before the first cuzk call forces the portable one. */
CUZK_API const char *cuzk_cpu_backend(void);

/* Whether this build has CUDA support (1) or not (0). */
CUZK_API int cuzk_has_cuda(void);

/* Number of CUDA devices usable by this process. Without CUDA support, or
 * with no driver or device, *count is 0 and the result is CUZK_OK;
 * CUZK_ERR_CUDA is returned only when the CUDA runtime reports a failure
 * other than "no device". */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_gpu_count(int *count);

/* Runs known-answer checks of the CPU arithmetic with the chosen backend
 * (field multiplication, curve generators, a scalar multiplication).
 * CUZK_OK or CUZK_ERR_INTERNAL. */
CUZK_API CUZK_WARN_UNUSED_RESULT int cuzk_selftest(void);

#ifdef __cplusplus
}
#endif

#endif
