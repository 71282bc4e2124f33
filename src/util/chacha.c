#include "chacha.h"

#include <string.h>

#define ROTL(x, n) ((x) << (n) | (x) >> (32 - (n)))
#define QR(a, b, c, d)                                                                                                 \
    a += b, d ^= a, d = ROTL(d, 16), c += d, b ^= c, b = ROTL(b, 12), a += b, d ^= a, d = ROTL(d, 8), c += d, b ^= c,  \
        b = ROTL(b, 7)

void chacha_block(const uint32_t key[8], const uint32_t tail[4], int rounds, unsigned char out[64])
{
    uint32_t x[16], s[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574}; /* "expand 32-byte k" */
    memcpy(s + 4, key, 8 * sizeof *key);
    memcpy(s + 12, tail, 4 * sizeof *tail);
    memcpy(x, s, sizeof x);
    for (int r = 0; r < rounds; r += 2) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++) {
        uint32_t w = x[i] + s[i];
        for (int b = 0; b < 4; b++)
            out[4 * i + b] = (unsigned char)(w >> (8 * b));
    }
}

static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

void chacha_key(const unsigned char bytes[32], uint32_t key[8])
{
    for (int i = 0; i < 8; i++)
        key[i] = le32(bytes + 4 * i);
}

void chacha20_keystream(const uint32_t key[8], const unsigned char nonce[12], uint64_t at, unsigned char *out,
                        size_t n)
{
    uint32_t tail[4] = {(uint32_t)(at / 64), le32(nonce), le32(nonce + 4), le32(nonce + 8)};
    unsigned char block[64];
    size_t skip = (size_t)(at % 64);
    while (n) {
        chacha_block(key, tail, 20, block);
        tail[0]++;
        size_t k = 64 - skip < n ? 64 - skip : n;
        memcpy(out, block + skip, k);
        out += k;
        n -= k;
        skip = 0;
    }
}
