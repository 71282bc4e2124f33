/* Curve arithmetic against known answers from @noble/curves
 * (tests/vectors/{bls12_381,bn254}.json, made by tests/vectors/gen_vectors.mjs), group laws
 * on random points, subgroup checks, and the .zkey and ZCash encodings.
 * Usage: test_curve_<backend> VECTORS_DIR */
#include "test_vectors.h"

#include "ec/curves.h"
#include "test_util.h"


/* JSON values: big-endian hex field elements, Fp2 as [c0, c1]. */
#define DEFINE_PARSE_FP(F)                                                                      \
    static void parse_##F(F *r, json_t *j)                                                      \
    {                                                                                           \
        unsigned char b[sizeof(F)];                                                             \
        CHECK(json_is_string(j));                                                               \
        CHECK(test_hex_to_bytes(b, sizeof(b), json_string_value(j)) == 0);                      \
        CHECK(F##_from_bytes_be(r, b) == CUZK_OK);                                              \
    }
#define DEFINE_PARSE_FP2(F2, F)                                                                 \
    static void parse_##F2(F2 *r, json_t *j)                                                    \
    {                                                                                           \
        CHECK(json_is_array(j) && json_array_size(j) == 2);                                     \
        parse_##F(&r->c0, json_array_get(j, 0));                                                \
        parse_##F(&r->c1, json_array_get(j, 1));                                                \
    }
DEFINE_PARSE_FP(bls12_381_fp)
DEFINE_PARSE_FP(bn254_fp)
DEFINE_PARSE_FP2(bls12_381_fp2, bls12_381_fp)
DEFINE_PARSE_FP2(bn254_fp2, bn254_fp)

#define TG bls12_381_g1
#define TGF bls12_381_fp
#define TG_BASE bls12_381_fp
#define TG_JSON "g1"
#define TG_R BLS12_381_R_SCALAR
#define TG_H BLS12_381_G1_COFACTOR
#define TG_H_BITS 128
#define TG_NONMEMBER 1
#define TG_NONMEMBER_X {BLS12_381_G1_NONMEMBER_X}
#define TG_NONMEMBER_Y {BLS12_381_G1_NONMEMBER_Y}
#include "group_tests_impl.h"

#define TG bls12_381_g2
#define TGF bls12_381_fp2
#define TG_BASE bls12_381_fp
#define TG_JSON "g2"
#define TG_R BLS12_381_R_SCALAR
#define TG_H BLS12_381_G2_COFACTOR
#define TG_H_BITS 512
#define TG_NONMEMBER 1
#define TG_NONMEMBER_X BLS12_381_G2_NONMEMBER_X
#define TG_NONMEMBER_Y BLS12_381_G2_NONMEMBER_Y
#include "group_tests_impl.h"

#define TG bn254_g1
#define TGF bn254_fp
#define TG_BASE bn254_fp
#define TG_JSON "g1"
#define TG_R BN254_R_SCALAR
#define TG_NONMEMBER 0
#include "group_tests_impl.h"

#define TG bn254_g2
#define TGF bn254_fp2
#define TG_BASE bn254_fp
#define TG_JSON "g2"
#define TG_R BN254_R_SCALAR
#define TG_H BN254_G2_COFACTOR
#define TG_H_BITS 512
#define TG_NONMEMBER 1
#define TG_NONMEMBER_X BN254_G2_NONMEMBER_X
#define TG_NONMEMBER_Y BN254_G2_NONMEMBER_Y
#include "group_tests_impl.h"

/* Field known answers: square roots (either root accepted, non-residues
 * must be refused), inverses, Fp2 products. */
#define DEFINE_FIELD_VECTORS(C)                                                                  \
    static void test_##C##_field_vectors(json_t *vec)                                            \
    {                                                                                            \
        test_context = #C " field vectors";                                                      \
        json_t *e;                                                                               \
        size_t i;                                                                                \
        json_array_foreach(json_object_get(vec, "fp_sqrt"), i, e)                                \
        {                                                                                        \
            C##_fp a, r, s;                                                                      \
            parse_##C##_fp(&a, json_object_get(e, "a"));                                         \
            json_t *root = json_object_get(e, "sqrt");                                           \
            int ok = C##_fp_sqrt(&r, &a);                                                        \
            CHECK(ok == !json_is_null(root));                                                    \
            CHECK(C##_fp_is_square(&a) == ok);                                                   \
            if (ok) {                                                                            \
                parse_##C##_fp(&s, root);                                                        \
                C##_fp n;                                                                        \
                C##_fp_neg(&n, &s);                                                              \
                CHECK(C##_fp_eq(&r, &s) || C##_fp_eq(&r, &n));                                   \
            }                                                                                    \
        }                                                                                        \
        json_array_foreach(json_object_get(vec, "fp2_sqrt"), i, e)                               \
        {                                                                                        \
            C##_fp2 a, r, s, n;                                                                  \
            parse_##C##_fp2(&a, json_object_get(e, "a"));                                        \
            json_t *root = json_object_get(e, "sqrt");                                           \
            int ok = C##_fp2_sqrt(&r, &a);                                                       \
            CHECK(ok == !json_is_null(root));                                                    \
            CHECK(C##_fp2_is_square(&a) == ok);                                                  \
            if (ok) {                                                                            \
                parse_##C##_fp2(&s, root);                                                       \
                C##_fp2_neg(&n, &s);                                                             \
                CHECK(C##_fp2_eq(&r, &s) || C##_fp2_eq(&r, &n));                                 \
            }                                                                                    \
        }                                                                                        \
        json_array_foreach(json_object_get(vec, "fp_inv"), i, e)                                 \
        {                                                                                        \
            C##_fp a, r, s;                                                                      \
            parse_##C##_fp(&a, json_object_get(e, "a"));                                         \
            parse_##C##_fp(&s, json_object_get(e, "inv"));                                       \
            C##_fp_inv(&r, &a);                                                                  \
            CHECK(C##_fp_eq(&r, &s));                                                            \
            C##_fp_inv_var(&r, &a);                                                              \
            CHECK(C##_fp_eq(&r, &s));                                                            \
        }                                                                                        \
        json_array_foreach(json_object_get(vec, "fp2_mul"), i, e)                                \
        {                                                                                        \
            C##_fp2 a, b, r, s;                                                                  \
            parse_##C##_fp2(&a, json_object_get(e, "a"));                                        \
            parse_##C##_fp2(&b, json_object_get(e, "b"));                                        \
            parse_##C##_fp2(&s, json_object_get(e, "ab"));                                       \
            C##_fp2_mul(&r, &a, &b);                                                             \
            CHECK(C##_fp2_eq(&r, &s));                                                           \
        }                                                                                        \
        json_array_foreach(json_object_get(vec, "fp2_inv"), i, e)                                \
        {                                                                                        \
            C##_fp2 a, r, s;                                                                     \
            parse_##C##_fp2(&a, json_object_get(e, "a"));                                        \
            parse_##C##_fp2(&s, json_object_get(e, "inv"));                                      \
            C##_fp2_inv(&r, &a);                                                                 \
            CHECK(C##_fp2_eq(&r, &s));                                                           \
        }                                                                                        \
    }
DEFINE_FIELD_VECTORS(bls12_381)
DEFINE_FIELD_VECTORS(bn254)

static int reason_code(const char *reason)
{
    if (!strcmp(reason, "bad_flags") || !strcmp(reason, "bad_infinity"))
        return CUZK_ERR_BAD_FLAGS;
    if (!strcmp(reason, "not_canonical"))
        return CUZK_ERR_NOT_CANONICAL;
    if (!strcmp(reason, "not_on_curve"))
        return CUZK_ERR_NOT_ON_CURVE;
    if (!strcmp(reason, "not_in_subgroup"))
        return CUZK_ERR_NOT_IN_SUBGROUP;
    if (!strcmp(reason, "no_sqrt"))
        return CUZK_ERR_NO_SQRT;
    return -1;
}

/* ZCash encodings of BLS12-381 points, valid and invalid. */
#define DEFINE_ZCASH_VECTORS(G, NAME, ELEM)                                                      \
    static void test_##G##_zcash(json_t *vec)                                                    \
    {                                                                                            \
        test_context = #G " ZCash encoding";                                                     \
        json_t *e;                                                                               \
        size_t i;                                                                                \
        CHECK(json_array_size(json_object_get(vec, NAME "_encoding")) > 0);                      \
        json_array_foreach(json_object_get(vec, NAME "_encoding"), i, e)                         \
        {                                                                                        \
            G##_affine p, q;                                                                     \
            test_##G##_parse_point(&p, json_object_get(e, "P"));                                 \
            unsigned char want_c[ELEM], want_u[2 * (ELEM)], got[2 * (ELEM)];                     \
            CHECK(test_hex_to_bytes(want_c, ELEM,                                                \
                                    json_string_value(json_object_get(e, "compressed"))) == 0);  \
            CHECK(test_hex_to_bytes(want_u, 2 * (ELEM),                                          \
                                    json_string_value(json_object_get(e, "uncompressed"))) == 0);\
            G##_affine_to_zcash(got, &p, 1);                                                     \
            CHECK(memcmp(got, want_c, ELEM) == 0);                                               \
            G##_affine_to_zcash(got, &p, 0);                                                     \
            CHECK(memcmp(got, want_u, 2 * (ELEM)) == 0);                                         \
            CHECK(G##_affine_from_zcash(&q, want_c, 1, 1) == CUZK_OK && G##_affine_eq(&p, &q));  \
            CHECK(G##_affine_from_zcash(&q, want_u, 0, 1) == CUZK_OK && G##_affine_eq(&p, &q));  \
        }                                                                                        \
        CHECK(json_array_size(json_object_get(vec, NAME "_invalid")) > 0);                       \
        json_array_foreach(json_object_get(vec, NAME "_invalid"), i, e)                          \
        {                                                                                        \
            const char *fmt = json_string_value(json_object_get(e, "format"));                   \
            const char *reason = json_string_value(json_object_get(e, "reason"));                \
            int compressed = !strcmp(fmt, "compressed");                                         \
            size_t len = compressed ? (ELEM) : 2 * (ELEM);                                       \
            unsigned char in[2 * (ELEM)];                                                        \
            CHECK(test_hex_to_bytes(in, len, json_string_value(json_object_get(e, "bytes"))) == 0); \
            G##_affine q, untouched;                                                             \
            G##_affine_set_infinity(&q);                                                         \
            untouched = q;                                                                       \
            int err = G##_affine_from_zcash(&q, in, compressed, 1);                              \
            if (err != reason_code(reason))                                                      \
                fprintf(stderr, "entry %zu (%s, %s): got %s\n", i, fmt, reason,                  \
                        err == CUZK_OK ? "OK" : "another error");                                \
            CHECK(err == reason_code(reason));                                                   \
            CHECK(G##_affine_eq(&q, &untouched));                                                \
        }                                                                                        \
    }
DEFINE_ZCASH_VECTORS(bls12_381_g1, "g1", 48)
DEFINE_ZCASH_VECTORS(bls12_381_g2, "g2", 96)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
        return 2;
    }
    test_require_backend();
    test_init("test_curve");
    json_t *bls = load_vectors(argv[1], "bls12_381.json");
    json_t *bn = load_vectors(argv[1], "bn254.json");
    test_bls12_381_field_vectors(bls);
    test_bn254_field_vectors(bn);
    test_bls12_381_g1_run(bls);
    test_bls12_381_g2_run(bls);
    test_bn254_g1_run(bn);
    test_bn254_g2_run(bn);
    test_bls12_381_g1_zcash(bls);
    test_bls12_381_g2_zcash(bls);
    json_decref(bls);
    json_decref(bn);
    test_done("test_curve");
    return 0;
}
