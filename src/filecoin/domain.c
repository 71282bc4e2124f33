/* Filecoin's 32-byte values (domain.h). */
#include <string.h>

#include "../util/error.h"
#include "../util/sha256.h"
#include "domain.h"

int fc_domain_to_fr(const unsigned char d[32], fr *out)
{
    return bls12_381_fr_from_bytes_le(out, d);
}

void fc_fr_to_domain(const fr *x, unsigned char d[32])
{
    bls12_381_fr_to_bytes_le(d, x);
}

void fc_sha256_trim(const void *data, size_t n, unsigned char out[32])
{
    sha256_state s;
    sha256_init(&s);
    sha256_update(&s, data, n);
    sha256_final(&s, out);
    out[31] &= 0x3f;
}

void fc_sha256_node(const unsigned char a[32], const unsigned char b[32], unsigned char out[32])
{
    unsigned char m[64];
    memcpy(m, a, 32);
    memcpy(m + 32, b, 32);
    fc_sha256_trim(m, 64, out);
}

static int base32_value(char c)
{
    if (c >= 'a' && c <= 'z')
        return c - 'a';
    if (c >= '2' && c <= '7')
        return c - '2' + 26;
    return -1;
}

int fc_commitment_from_cid(const char *cid, int kind, unsigned char out[32], cuzk_error *err)
{
    /* CIDv1, the codec and the multihash as varints, the digest's length 32 */
    static const unsigned char sealed[] = {0x01, 0x82, 0xe2, 0x03, 0x81, 0xe8, 0x02, 0x20};
    static const unsigned char unsealed[] = {0x01, 0x81, 0xe2, 0x03, 0x92, 0x20, 0x20};
    const unsigned char *prefix = kind == FC_COMM_SEALED ? sealed : unsealed;
    size_t plen = kind == FC_COMM_SEALED ? sizeof sealed : sizeof unsealed;
    const char *what = kind == FC_COMM_SEALED ? "a sealed commitment CID (bagboea4b5abc...)"
                                              : "an unsealed commitment CID (baga6ea4sea...)";
    size_t n = strlen(cid);
    if (n < 2 || cid[0] != 'b')
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "'%.80s' is not %s: no base32 multibase prefix 'b'", cid, what);
    unsigned char bytes[64];
    size_t nb = 0;
    unsigned acc = 0, bits = 0;
    for (size_t i = 1; i < n; i++) {
        int v = base32_value(cid[i]);
        if (v < 0)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "'%.80s' is not %s: '%c' at %zu is not base32", cid, what,
                                  cid[i], i);
        acc = acc << 5 | (unsigned)v;
        bits += 5;
        if (bits >= 8) {
            if (nb == sizeof bytes)
                return cuzk_error_set(err, CUZK_ERR_FORMAT, "'%.80s' is not %s: too long", cid, what);
            bytes[nb++] = (unsigned char)(acc >> (bits - 8));
            bits -= 8;
            acc &= (1u << bits) - 1;
        }
    }
    if (nb != plen + 32 || memcmp(bytes, prefix, plen) != 0)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "'%.80s' is not %s: %zu bytes of another codec or hash (want %zu with its prefix)", cid,
                              what, nb, plen + 32);
    memcpy(out, bytes + plen, 32);
    return CUZK_OK;
}
