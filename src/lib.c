/* The public API's entry points that do not compute: status strings,
 * version, the choice of CPU backend, GPU discovery. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "../include/cuzk.h"
#include "core.h"
#include "formats/curve.h"
#include "util/util.h"

#if CUZK_HAVE_CUDA
int cuzk_cuda_device_count(int *count);
#endif

const char *cuzk_strerror(int status)
{
    switch (status) {
    case CUZK_OK:
        return "success";
    case CUZK_ERR_INVALID_ARGUMENT:
        return "invalid argument";
    case CUZK_ERR_NO_MEMORY:
        return "out of memory";
    case CUZK_ERR_IO:
        return "input/output error";
    case CUZK_ERR_FORMAT:
        return "malformed input";
    case CUZK_ERR_NOT_CANONICAL:
        return "value is not below its modulus";
    case CUZK_ERR_NOT_ON_CURVE:
        return "point is not on the curve";
    case CUZK_ERR_NOT_IN_SUBGROUP:
        return "point is not in the prime-order subgroup";
    case CUZK_ERR_BAD_FLAGS:
        return "point encoding has inconsistent flag bits";
    case CUZK_ERR_NO_SQRT:
        return "no curve point has this x-coordinate";
    case CUZK_ERR_RANDOM:
        return "the operating system's random number source failed";
    case CUZK_ERR_UNSUPPORTED:
        return "not supported by this build or machine";
    case CUZK_ERR_CUDA:
        return "a CUDA call failed";
    case CUZK_ERR_NO_DEVICE:
        return "no usable GPU";
    case CUZK_ERR_INTERNAL:
        return "internal error in cuzk (please report it)";
    case CUZK_ERR_INVALID_PROOF:
        return "the proof does not verify";
    case CUZK_ERR_BUSY:
        return "busy: the queue is full";
    case CUZK_ERR_NOT_FOUND:
        return "not found";
    case CUZK_ERR_CANCELLED:
        return "cancelled";
    default:
        return "unknown status code";
    }
}

const char *cuzk_version(void)
{
    return CUZK_STR(CUZK_VERSION_MAJOR) "." CUZK_STR(CUZK_VERSION_MINOR) "." CUZK_STR(CUZK_VERSION_PATCH);
}

int cuzk_version_number(void)
{
    return CUZK_VERSION_MAJOR * 10000 + CUZK_VERSION_MINOR * 100 + CUZK_VERSION_PATCH;
}

/* 1 when the CPU has BMI2 (MULX) and ADX (ADCX/ADOX): CPUID leaf 7,
 * subleaf 0, EBX bits 8 and 19. */
static int cpu_has_adx(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
        return 0;
    return (b >> 8 & 1) && (b >> 19 & 1);
#else
    return 0;
#endif
}

static const struct cuzk_core_ops *chosen_core;
static pthread_once_t choose_once = PTHREAD_ONCE_INIT;

static void choose_core(void)
{
    const char *force = getenv("CUZK_CPU_BACKEND");
    chosen_core = &cuzk_core_portable;
#if defined(__x86_64__)
    if (cpu_has_adx() && !(force && strcmp(force, "portable") == 0))
        chosen_core = &cuzk_core_adx;
#else
    (void)force;
    (void)cpu_has_adx;
#endif
}

const struct cuzk_core_ops *cuzk_core(void)
{
    pthread_once(&choose_once, choose_core);
    return chosen_core;
}

const char *cuzk_cpu_backend(void)
{
    return cuzk_core()->name;
}

int cuzk_selftest(void)
{
    return cuzk_core()->selftest();
}

const char *cuzk_curve_name(int curve)
{
    const curve_desc *c = curve_by_id(curve);
    return c ? c->name : NULL;
}

void cuzk_free(void *p)
{
    free(p);
}

int cuzk_has_cuda(void)
{
#if CUZK_HAVE_CUDA
    return 1;
#else
    return 0;
#endif
}

int cuzk_gpu_count(int *count)
{
    if (!count)
        return CUZK_ERR_INVALID_ARGUMENT;
    *count = 0;
#if CUZK_HAVE_CUDA
    return cuzk_cuda_device_count(count);
#else
    return CUZK_OK;
#endif
}
