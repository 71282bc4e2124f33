#include "parse.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"

int parse_int_text(const char *label, const char *s, long long lo, long long hi, long long *out, cuzk_error *err)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || end == s || v < lo || v > hi)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s expects an integer in [%lld, %lld], got '%s'", label,
                              lo, hi, s);
    *out = v;
    return CUZK_OK;
}

int parse_bytes_text(const char *label, const char *s, unsigned long long lo, unsigned long long hi,
                     unsigned long long *out, cuzk_error *err)
{
    char *end;
    unsigned long long v = 0;
    int ok = 0;
    errno = 0;
    if (s[0] == '2' && s[1] == '^') {
        unsigned long k = strtoul(s + 2, &end, 10);
        ok = !errno && !*end && end != s + 2 && s[2] != '-' && k < 64;
        if (ok)
            v = 1ull << k;
    } else if (s[0] >= '0' && s[0] <= '9') {
        v = strtoull(s, &end, 10);
        ok = !errno;
        int shift = 0;
        if (ok && *end) {
            const char *units = "KMGT";
            const char *u = strchr(units, *end);
            ok = u && *u && end[1] == 0;
            if (ok)
                shift = 10 * (int)(u - units + 1);
        }
        if (ok && shift) {
            ok = v <= (~0ull >> shift);
            v <<= shift;
        }
    }
    if (!ok || v < lo || v > hi)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s expects a size in [%llu, %llu] bytes (an integer, with an optional K, M, G or T "
                              "suffix, or 2^k), got '%s'",
                              label, lo, hi, s);
    *out = v;
    return CUZK_OK;
}

int parse_count_text(const char *label, const char *s, unsigned long long max, unsigned long long *out,
                     cuzk_error *err)
{
    char *end;
    errno = 0;
    unsigned long long v;
    if (s[0] == '2' && s[1] == '^') {
        unsigned long k = strtoul(s + 2, &end, 10);
        v = (errno || *end || end == s + 2 || k > 63) ? max + 1 : 1ull << k;
    } else {
        v = strtoull(s, &end, 10);
        if (errno || *end || end == s || s[0] == '-')
            v = max + 1;
    }
    if (v > max)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s expects an integer or 2^k in [0, %llu], got '%s'",
                              label, max, s);
    *out = v;
    return CUZK_OK;
}

int parse_device_text(const char *label, const char *s, int *out, cuzk_error *err)
{
    if (!strcmp(s, "auto"))
        *out = CUZK_DEVICE_AUTO;
    else if (!strcmp(s, "gpu"))
        *out = CUZK_DEVICE_GPU;
    else if (!strcmp(s, "cpu"))
        *out = CUZK_DEVICE_CPU;
    else
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s expects auto, gpu or cpu, got '%s'", label, s);
    return CUZK_OK;
}
