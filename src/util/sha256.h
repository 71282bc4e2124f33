/* SHA-256 (FIPS 180-4), plain and simple: the reference the sha256-chain
 * circuit generator checks its R1CS gadgets against. Not used where speed
 * matters. */
#ifndef CUZK_UTIL_SHA256_H
#define CUZK_UTIL_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sha256_state {
    uint32_t h[8];
    unsigned char block[64];
    size_t fill;     /* bytes in block */
    uint64_t length; /* bytes hashed */
} sha256_state;

extern const uint32_t sha256_k[64];  /* the round constants */
extern const uint32_t sha256_iv[8];  /* the initial hash value */

void sha256_init(sha256_state *s);
void sha256_update(sha256_state *s, const void *data, size_t len);
void sha256_final(sha256_state *s, unsigned char digest[32]);
/* One compression: h = h + f(h, block). */
void sha256_compress(uint32_t h[8], const unsigned char block[64]);

#endif
