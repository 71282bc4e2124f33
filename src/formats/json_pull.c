/* The JSON pull reader (json_pull.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "../util/error.h"
#include "json_pull.h"

void jp_init(jp *j, const char *text, size_t len, const char *name, cuzk_error *err)
{
    memset(j, 0, sizeof *j);
    j->p = j->start = text;
    j->end = text + len;
    j->name = name;
    j->err = err;
}

void jp_fail(jp *j, const char *fmt, ...)
{
    if (j->rc)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    j->rc = cuzk_error_set(j->err, CUZK_ERR_FORMAT, "%s: byte %zu, at %s: %s", j->name, (size_t)(j->p - j->start),
                           j->plen ? j->path : "the top", msg);
    j->p = j->end; /* stop */
}

size_t jp_path_push(jp *j, const char *key, long index)
{
    size_t old = j->plen;
    int n = index >= 0 ? snprintf(j->path + old, sizeof j->path - old, "[%ld]", index)
                       : snprintf(j->path + old, sizeof j->path - old, "%s%s", old ? "." : "", key);
    if (n > 0 && (size_t)n < sizeof j->path - old)
        j->plen += (size_t)n;
    return old;
}

void jp_path_pop(jp *j, size_t old)
{
    j->plen = old;
    j->path[old] = 0;
}

void jp_ws(jp *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t'))
        j->p++;
}

int jp_eat(jp *j, char c)
{
    jp_ws(j);
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return 1;
    }
    return 0;
}

void jp_expect(jp *j, char c, const char *what)
{
    if (!jp_eat(j, c))
        jp_fail(j, "expected %s", what);
}

/* a string without escapes (the schema's keys, names and base64) */
void jp_read_span(jp *j, const char **s, size_t *n)
{
    *s = "";
    *n = 0;
    if (!jp_eat(j, '"')) {
        jp_fail(j, "expected a string");
        return;
    }
    const char *b = j->p;
    while (j->p < j->end && *j->p != '"') {
        if (*j->p == '\\' || (unsigned char)*j->p < 0x20) {
            jp_fail(j, "a string with an escape or a control character where none is expected");
            return;
        }
        j->p++;
    }
    if (j->p == j->end) {
        jp_fail(j, "a string that does not end");
        return;
    }
    *s = b;
    *n = (size_t)(j->p - b);
    j->p++;
}

void jp_read_key(jp *j, char *out, size_t cap)
{
    const char *s;
    size_t n;
    jp_read_span(j, &s, &n);
    if (n >= cap) {
        jp_fail(j, "a key of %zu characters", n);
        n = 0;
    }
    memcpy(out, s, n);
    out[n] = 0;
    jp_expect(j, ':', "':' after a key");
}

uint64_t jp_read_u64(jp *j, uint64_t max)
{
    jp_ws(j);
    uint64_t v = 0;
    const char *b = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
        unsigned d = (unsigned)(*j->p++ - '0');
        if (v > (UINT64_MAX - d) / 10) {
            jp_fail(j, "a number beyond 2^64");
            return 0;
        }
        v = v * 10 + d;
    }
    if (j->p == b)
        jp_fail(j, "expected a non-negative integer");
    else if (v > max)
        jp_fail(j, "%llu where at most %llu is valid", (unsigned long long)v, (unsigned long long)max);
    return v;
}

size_t jp_read_bytes(jp *j, unsigned char *out, size_t cap)
{
    size_t n = 0;
    JP_ARRAY(j, i)
    {
        if (n == cap) {
            jp_fail(j, "more than %zu bytes", cap);
            break;
        }
        out[n++] = (unsigned char)jp_read_u64(j, 255);
    }
    return j->rc ? 0 : n;
}

void jp_read_bytes32(jp *j, unsigned char out[32])
{
    jp_expect(j, '[', "an array of 32 numbers (a 32-byte value)");
    for (int i = 0; i < 32 && !j->rc; i++) {
        if (i)
            jp_expect(j, ',', "32 numbers in the array of a 32-byte value");
        out[i] = (unsigned char)jp_read_u64(j, 255);
    }
    jp_expect(j, ']', "the end of a 32-byte value's array after 32 numbers");
}

void jp_skip_value(jp *j)
{
    jp_ws(j);
    if (j->p == j->end || ++j->depth > 64) {
        jp_fail(j, "a value is missing or nested too deep");
        return;
    }
    char c = *j->p;
    if (c == '{' || c == '[') {
        j->p++;
        char close = c == '{' ? '}' : ']';
        if (!jp_eat(j, close))
            do {
                if (c == '{') {
                    char k[128];
                    jp_read_key(j, k, sizeof k);
                }
                jp_skip_value(j);
            } while (!j->rc && jp_eat(j, ','));
        if (!j->rc)
            jp_expect(j, close, c == '{' ? "'}'" : "']'");
    } else if (c == '"') {
        const char *s;
        size_t n;
        jp_read_span(j, &s, &n);
    } else if (!strncmp(j->p, "null", 4) || !strncmp(j->p, "true", 4))
        j->p += 4;
    else if (!strncmp(j->p, "false", 5))
        j->p += 5;
    else
        jp_read_u64(j, UINT64_MAX);
    j->depth--;
}

void jp_end(jp *j, const char *what)
{
    jp_ws(j);
    if (!j->rc && j->p != j->end)
        jp_fail(j, "text after %s", what);
}
