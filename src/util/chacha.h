/* The ChaCha block function (Bernstein's; RFC 8439's layout), with the
 * round count a parameter: Filecoin draws its SDR graph's DRG parents
 * from ChaCha8 (rand_chacha's ChaCha8Rng: a 64-bit block counter, stream
 * 0) and its synthetic PoRep challenges from ChaCha20 (RFC 8439: a 32-bit
 * counter, a 96-bit nonce). No branch or memory index depends on the
 * key. */
#ifndef CUZK_UTIL_CHACHA_H
#define CUZK_UTIL_CHACHA_H

#include <stddef.h>
#include <stdint.h>

/* One 64-byte block: key (8 words), then words 12-15 of the state (the
 * counter and the nonce as the variant lays them out), rounds 8 or 20. */
void chacha_block(const uint32_t key[8], const uint32_t tail[4], int rounds, unsigned char out[64]);
/* The 8 key words of 32 little-endian bytes. */
void chacha_key(const unsigned char bytes[32], uint32_t key[8]);
/* RFC 8439's ChaCha20 keystream from byte offset `at` (its counter at 0
 * for byte 0), n bytes. */
void chacha20_keystream(const uint32_t key[8], const unsigned char nonce[12], uint64_t at, unsigned char *out,
                        size_t n);

#endif
