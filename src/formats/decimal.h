/* Plain little-endian integers of n8 bytes (n8 a multiple of 8, at most 48)
 * to and from decimal strings, as snarkjs writes them in JSON. */
#ifndef CUZK_FORMATS_DECIMAL_H
#define CUZK_FORMATS_DECIMAL_H

#include <stddef.h>

/* Writes the decimal digits and a NUL; returns the digit count, or 0 when
 * cap is too small (cap >= 120 always suffices). */
size_t decimal_from_le(char *out, size_t cap, const unsigned char *le, size_t n8);

/* Parses digits only (no sign, no spaces; leading zeros allowed) into n8
 * bytes. CUZK_OK, CUZK_ERR_FORMAT (empty or a non-digit) or
 * CUZK_ERR_NOT_CANONICAL (does not fit in n8 bytes). */
int decimal_to_le(unsigned char *out, size_t n8, const char *s, size_t len);

#endif
