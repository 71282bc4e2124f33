/* Point encodings.
 *
 * 1. snarkjs .zkey ("LEM"), both curves: affine x || y, every coordinate its
 *    Montgomery image in little-endian bytes (Fp2 as c0 || c1), the point at
 *    infinity all zero bytes. This is the in-memory affine layout, so
 *    encoding is a copy; decoding checks each coordinate is below p, the
 *    point is on the curve and, when asked, in the subgroup.
 *
 * 2. ZCash (BLS12-381 only; bellman/bellperson .params files, blst, noble):
 *    big-endian, three flags in the top bits of the first byte:
 *      0x80 compressed, 0x40 point at infinity, 0x20 y is the larger of
 *      y and -y ("lexicographically largest"; compressed form only).
 *    G1: x (48 bytes) compressed, x || y (96) uncompressed.
 *    G2: x.c1 || x.c0 (96) compressed, x.c1 || x.c0 || y.c1 || y.c0 (192).
 *
 * Decoders return CUZK_OK or the check that failed: CUZK_ERR_BAD_FLAGS,
 * CUZK_ERR_NOT_CANONICAL, CUZK_ERR_NO_SQRT, CUZK_ERR_NOT_ON_CURVE,
 * CUZK_ERR_NOT_IN_SUBGROUP. On failure the output is left untouched.
 */

enum {
    BLS12_381_G1_ZKEY_BYTES = 96,
    BLS12_381_G2_ZKEY_BYTES = 192,
    BN254_G1_ZKEY_BYTES = 64,
    BN254_G2_ZKEY_BYTES = 128,
    BLS12_381_G1_COMPRESSED_BYTES = 48,
    BLS12_381_G1_UNCOMPRESSED_BYTES = 96,
    BLS12_381_G2_COMPRESSED_BYTES = 96,
    BLS12_381_G2_UNCOMPRESSED_BYTES = 192,
};

#define CUZK_DEFINE_ZKEY_CODEC(G, F)                                                                   \
    CUZK_INLINE int G##_affine_from_zkey(G##_affine *r, const unsigned char *in, int check_subgroup) \
    {                                                                                                  \
        G##_affine t;                                                                                  \
        if (F##_from_mont_bytes_le(&t.x, in) != CUZK_OK ||                                             \
            F##_from_mont_bytes_le(&t.y, in + sizeof(F)) != CUZK_OK)                                   \
            return CUZK_ERR_NOT_CANONICAL;                                                             \
        if (!G##_affine_is_on_curve(&t)) /* (0, 0), infinity, passes */                               \
            return CUZK_ERR_NOT_ON_CURVE;                                                              \
        if (check_subgroup && !G##_affine_in_subgroup_var(&t))                                         \
            return CUZK_ERR_NOT_IN_SUBGROUP;                                                           \
        *r = t;                                                                                        \
        return CUZK_OK;                                                                                \
    }                                                                                                  \
    CUZK_INLINE void G##_affine_to_zkey(unsigned char *out, const G##_affine *a)                      \
    {                                                                                                  \
        F##_to_mont_bytes_le(out, &a->x);                                                              \
        F##_to_mont_bytes_le(out + sizeof(F), &a->y);                                                  \
    }

CUZK_DEFINE_ZKEY_CODEC(bls12_381_g1, bls12_381_fp)
CUZK_DEFINE_ZKEY_CODEC(bls12_381_g2, bls12_381_fp2)
CUZK_DEFINE_ZKEY_CODEC(bn254_g1, bn254_fp)
CUZK_DEFINE_ZKEY_CODEC(bn254_g2, bn254_fp2)
#undef CUZK_DEFINE_ZKEY_CODEC

/* ------------------------------------------------------------ ZCash */

enum { ZCASH_FLAG_COMPRESSED = 0x80, ZCASH_FLAG_INFINITY = 0x40, ZCASH_FLAG_SORT = 0x20, ZCASH_FLAGS = 0xe0 };

/* y > (p-1)/2, i.e. y is the larger of y and -y as integers. */
CUZK_INLINE int bls12_381_fp_is_lexicographically_largest(const bls12_381_fp *y)
{
    limb_t raw[6];
    bls12_381_fp_to_raw(raw, y);
    return (int)(bn_lt_mask(bls12_381_fp_p_minus_1_half, raw, 6) & 1);
}

/* Fp2: decided by c1, or by c0 when c1 = 0. */
CUZK_INLINE int bls12_381_fp2_is_lexicographically_largest(const bls12_381_fp2 *y)
{
    if (!bls12_381_fp_is_zero(&y->c1))
        return bls12_381_fp_is_lexicographically_largest(&y->c1);
    return bls12_381_fp_is_lexicographically_largest(&y->c0);
}

/* An Fp2 element as c1 || c0, 48 bytes each, big-endian. */
CUZK_INLINE int bls12_381_fp2_from_bytes_be(bls12_381_fp2 *r, const unsigned char in[96])
{
    bls12_381_fp c0, c1;
    if (bls12_381_fp_from_bytes_be(&c1, in) != CUZK_OK || bls12_381_fp_from_bytes_be(&c0, in + 48) != CUZK_OK)
        return CUZK_ERR_NOT_CANONICAL;
    r->c0 = c0;
    r->c1 = c1;
    return CUZK_OK;
}

CUZK_INLINE void bls12_381_fp2_to_bytes_be(unsigned char out[96], const bls12_381_fp2 *a)
{
    bls12_381_fp_to_bytes_be(out, &a->c1);
    bls12_381_fp_to_bytes_be(out + 48, &a->c0);
}

/* Checks the flag byte against the format and, for infinity, that nothing
 * else is set. Returns CUZK_OK and sets *infinity / *sort, or BAD_FLAGS. */
CUZK_INLINE int zcash_read_flags(const unsigned char *in, size_t len, int compressed, int *infinity, int *sort)
{
    unsigned char f = in[0];
    if (!!(f & ZCASH_FLAG_COMPRESSED) != !!compressed)
        return CUZK_ERR_BAD_FLAGS;
    *infinity = !!(f & ZCASH_FLAG_INFINITY);
    *sort = !!(f & ZCASH_FLAG_SORT);
    if (*sort && (!compressed || *infinity))
        return CUZK_ERR_BAD_FLAGS;
    if (*infinity) {
        unsigned char acc = f & (unsigned char)~ZCASH_FLAGS;
        for (size_t i = 1; i < len; i++)
            acc |= in[i];
        if (acc)
            return CUZK_ERR_BAD_FLAGS;
    }
    return CUZK_OK;
}

/* One decoder/encoder pair per group: G1 over Fp (48-byte elements) and G2
 * over Fp2 (96-byte elements). */
#define CUZK_DEFINE_ZCASH_CODEC(G, F, ELEM)                                                              \
    CUZK_INLINE int G##_affine_from_zcash(G##_affine *r, const unsigned char *in, int compressed,       \
                                          int check_subgroup)                                           \
    {                                                                                                    \
        unsigned char buf[2 * (ELEM)];                                                                   \
        size_t len = compressed ? (ELEM) : 2 * (ELEM);                                                   \
        int infinity, sort;                                                                              \
        int err = zcash_read_flags(in, len, compressed, &infinity, &sort);                               \
        if (err != CUZK_OK)                                                                              \
            return err;                                                                                  \
        if (infinity) {                                                                                  \
            G##_affine_set_infinity(r);                                                                  \
            return CUZK_OK;                                                                              \
        }                                                                                                \
        memcpy(buf, in, len);                                                                            \
        buf[0] &= (unsigned char)~ZCASH_FLAGS;                                                           \
        G##_affine t;                                                                                    \
        if (F##_from_bytes_be(&t.x, buf) != CUZK_OK)                                                     \
            return CUZK_ERR_NOT_CANONICAL;                                                               \
        if (compressed) {                                                                                \
            G##_rhs(&t.y, &t.x);                                                                         \
            if (!F##_sqrt(&t.y, &t.y))                                                                   \
                return CUZK_ERR_NO_SQRT;                                                                 \
            if (F##_is_lexicographically_largest(&t.y) != sort)                                          \
                F##_neg(&t.y, &t.y);                                                                     \
        } else {                                                                                         \
            if (F##_from_bytes_be(&t.y, buf + (ELEM)) != CUZK_OK)                                        \
                return CUZK_ERR_NOT_CANONICAL;                                                           \
            if (!G##_affine_is_on_curve(&t) || G##_affine_is_infinity(&t))                               \
                return CUZK_ERR_NOT_ON_CURVE;                                                            \
        }                                                                                                \
        if (check_subgroup && !G##_affine_in_subgroup_var(&t))                                           \
            return CUZK_ERR_NOT_IN_SUBGROUP;                                                             \
        *r = t;                                                                                          \
        return CUZK_OK;                                                                                  \
    }                                                                                                    \
    CUZK_INLINE void G##_affine_to_zcash(unsigned char *out, const G##_affine *a, int compressed)       \
    {                                                                                                    \
        size_t len = compressed ? (ELEM) : 2 * (ELEM);                                                   \
        if (G##_affine_is_infinity(a)) {                                                                 \
            memset(out, 0, len);                                                                         \
            out[0] = (unsigned char)(ZCASH_FLAG_INFINITY | (compressed ? ZCASH_FLAG_COMPRESSED : 0));    \
            return;                                                                                      \
        }                                                                                                \
        F##_to_bytes_be(out, &a->x);                                                                     \
        if (compressed) {                                                                                \
            out[0] |= ZCASH_FLAG_COMPRESSED;                                                             \
            if (F##_is_lexicographically_largest(&a->y))                                                 \
                out[0] |= ZCASH_FLAG_SORT;                                                               \
        } else {                                                                                         \
            F##_to_bytes_be(out + (ELEM), &a->y);                                                        \
        }                                                                                                \
    }

CUZK_DEFINE_ZCASH_CODEC(bls12_381_g1, bls12_381_fp, 48)
CUZK_DEFINE_ZCASH_CODEC(bls12_381_g2, bls12_381_fp2, 96)
#undef CUZK_DEFINE_ZCASH_CODEC
