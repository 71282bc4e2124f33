/* BLAKE2b (RFC 7693): snarkjs's circuit hash (the csHash of a .zkey's
 * section 10), Filecoin's Feistel rounds, and keyed, its synthetic PoRep
 * challenges' keys. */
#ifndef CUZK_UTIL_BLAKE2B_H
#define CUZK_UTIL_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

typedef struct blake2b_state {
    uint64_t h[8], t[2];
    unsigned char buf[128];
    size_t buflen, outlen;
} blake2b_state;

void blake2b_init(blake2b_state *s, size_t outlen); /* 1 <= outlen <= 64 */
/* Keyed: 1 <= keylen <= 64. */
void blake2b_init_key(blake2b_state *s, size_t outlen, const void *key, size_t keylen);
void blake2b_update(blake2b_state *s, const void *data, size_t len);
void blake2b_final(blake2b_state *s, unsigned char *out);

#endif
