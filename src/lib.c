/* The public API's entry points that do not compute: status strings,
 * version, the choice of CPU backend, GPU discovery. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

#include "../include/cuzk.h"
#include "core/core.h"
#include "ec/curve_desc.h"
#include "util/error.h"
#include "util/util.h"

#if CUZK_HAVE_CUDA
int cuzk_cuda_device_count(int *count);
int cuzk_cuda_device_properties(int device, cuzk_gpu_properties *out);
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

/* The backend in use: NULL until the first call picks the automatic one
 * (or cuzk_set_cpu_backend another). Swapped atomically: a call in flight
 * keeps the table it loaded. */
static _Atomic(const struct cuzk_core_ops *) chosen_core;

static const struct cuzk_core_ops *auto_core(void)
{
#if defined(__x86_64__)
    if (cpu_has_adx())
        return &cuzk_core_adx;
#else
    (void)cpu_has_adx;
#endif
    return &cuzk_core_portable;
}

const struct cuzk_core_ops *cuzk_core(void)
{
    const struct cuzk_core_ops *c = atomic_load(&chosen_core);
    if (!c) {
        const struct cuzk_core_ops *none = NULL;
        c = auto_core();
        if (!atomic_compare_exchange_strong(&chosen_core, &none, c))
            c = none; /* another thread chose first */
    }
    return c;
}

int cuzk_set_cpu_backend(int backend, cuzk_error *err)
{
    const struct cuzk_core_ops *c;
    switch (backend) {
    case CUZK_CPU_BACKEND_AUTO:
        c = auto_core();
        break;
    case CUZK_CPU_BACKEND_PORTABLE:
        c = &cuzk_core_portable;
        break;
    case CUZK_CPU_BACKEND_ADX:
#if defined(__x86_64__)
        if (cpu_has_adx()) {
            c = &cuzk_core_adx;
            break;
        }
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "CPU backend x86_64-adx: this CPU lacks BMI2 or ADX");
#else
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "CPU backend x86_64-adx: this build is not for x86-64");
#endif
    default:
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "CPU backend: expected CUZK_CPU_BACKEND_AUTO, _PORTABLE or _ADX (0-2), got %d", backend);
    }
    atomic_store(&chosen_core, c);
    return CUZK_OK;
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

int cuzk_gpu_get_properties(int device, cuzk_gpu_properties *out)
{
    if (!out)
        return CUZK_ERR_INVALID_ARGUMENT;
    memset(out, 0, sizeof(*out));
#if CUZK_HAVE_CUDA
    int count = 0, rc = cuzk_cuda_device_count(&count);
    if (rc != CUZK_OK)
        return rc;
    if (device < 0 || device >= count)
        return CUZK_ERR_INVALID_ARGUMENT;
    return cuzk_cuda_device_properties(device, out);
#else
    (void)device;
    return CUZK_ERR_UNSUPPORTED;
#endif
}
