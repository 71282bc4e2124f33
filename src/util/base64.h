/* Base64 (RFC 4648): what the daemon's API carries witnesses and
 * bellperson's proof bytes in, and cuzk submit uploads with. */
#ifndef CUZK_UTIL_BASE64_H
#define CUZK_UTIL_BASE64_H

#include <stddef.h>

/* Characters base64_encode writes for n bytes (padded, no NUL). */
static inline size_t base64_len(unsigned long long n)
{
    return (size_t)((n + 2) / 3 * 4);
}

/* Standard alphabet, padded; returns the characters written (no NUL). */
size_t base64_encode(const unsigned char *in, size_t n, char *out);

/* Standard or URL-safe, padding optional: the bytes written to out (room
 * for len * 3 / 4 + 3), or -1 at a character of neither alphabet. */
long long base64_decode(const char *in, size_t len, unsigned char *out);

#endif
