/* Pairings and the Fp12 tower against @noble/curves known answers
 * (tests/vectors/{bls12_381,bn254}.json: pairing, fp12_mul, fp12_frobenius, fp12_final_exp)
 * and the pairing's defining properties on random points: bilinearity,
 * non-degeneracy, e(P, -Q) e(P, Q) = 1, multi-pairing = product of
 * pairings. Usage: test_pairing_<backend> VECTORS_DIR */
#include "test_vectors.h"

#include "pairing/pairings.h"
#include "test_util.h"


#define PAIRING_TESTS(C)                                                                            \
    static void C##_parse_fp(C##_fp *r, json_t *j)                                                  \
    {                                                                                               \
        unsigned char b[sizeof(C##_fp)];                                                            \
        CHECK(json_is_string(j) && test_hex_to_bytes(b, sizeof(b), json_string_value(j)) == 0);     \
        CHECK(C##_fp_from_bytes_be(r, b) == CUZK_OK);                                               \
    }                                                                                               \
    static void C##_parse_fp2(C##_fp2 *r, json_t *j)                                                \
    {                                                                                               \
        CHECK(json_is_array(j) && json_array_size(j) == 2);                                         \
        C##_parse_fp(&r->c0, json_array_get(j, 0));                                                 \
        C##_parse_fp(&r->c1, json_array_get(j, 1));                                                 \
    }                                                                                               \
    static void C##_parse_fp12(C##_fp12 *r, json_t *j)                                              \
    {                                                                                               \
        CHECK(json_is_array(j) && json_array_size(j) == 2);                                         \
        C##_fp6 *half[2] = {&r->c0, &r->c1};                                                        \
        for (int h = 0; h < 2; h++) {                                                               \
            json_t *a = json_array_get(j, h);                                                       \
            CHECK(json_is_array(a) && json_array_size(a) == 3);                                     \
            C##_parse_fp2(&half[h]->c0, json_array_get(a, 0));                                      \
            C##_parse_fp2(&half[h]->c1, json_array_get(a, 1));                                      \
            C##_parse_fp2(&half[h]->c2, json_array_get(a, 2));                                      \
        }                                                                                           \
    }                                                                                               \
    static void C##_parse_g1(C##_g1_affine *r, json_t *j)                                           \
    {                                                                                               \
        if (json_is_null(j)) {                                                                      \
            C##_g1_affine_set_infinity(r);                                                          \
            return;                                                                                 \
        }                                                                                           \
        C##_parse_fp(&r->x, json_object_get(j, "x"));                                               \
        C##_parse_fp(&r->y, json_object_get(j, "y"));                                               \
    }                                                                                               \
    static void C##_parse_g2(C##_g2_affine *r, json_t *j)                                           \
    {                                                                                               \
        if (json_is_null(j)) {                                                                      \
            C##_g2_affine_set_infinity(r);                                                          \
            return;                                                                                 \
        }                                                                                           \
        C##_parse_fp2(&r->x, json_object_get(j, "x"));                                              \
        C##_parse_fp2(&r->y, json_object_get(j, "y"));                                              \
    }                                                                                               \
    static void C##_random_points(C##_g1_affine *p, C##_g2_affine *q, limb_t a[4], limb_t b[4])    \
    {                                                                                               \
        C##_g1_jacobian g1, t1;                                                                     \
        C##_g2_jacobian g2, t2;                                                                     \
        C##_g1_generator(&g1);                                                                      \
        C##_g2_generator(&g2);                                                                      \
        test_rand_limbs(a, 4);                                                                      \
        test_rand_limbs(b, 4);                                                                      \
        a[3] &= 0x0fffffffffffffffULL;                                                              \
        b[3] &= 0x0fffffffffffffffULL;                                                              \
        C##_g1_mul_var(&t1, &g1, a, 256);                                                           \
        C##_g2_mul_var(&t2, &g2, b, 256);                                                           \
        C##_g1_to_affine(p, &t1);                                                                   \
        C##_g2_to_affine(q, &t2);                                                                   \
    }                                                                                               \
    static void C##_run(json_t *vec)                                                                \
    {                                                                                               \
        test_context = #C " Fp12 vectors";                                                          \
        json_t *e;                                                                                  \
        size_t i;                                                                                   \
        CHECK(json_array_size(json_object_get(vec, "fp12_mul")) > 0);                               \
        json_array_foreach(json_object_get(vec, "fp12_mul"), i, e)                                  \
        {                                                                                           \
            C##_fp12 a, b, ab, r;                                                                   \
            C##_parse_fp12(&a, json_object_get(e, "a"));                                            \
            C##_parse_fp12(&b, json_object_get(e, "b"));                                            \
            C##_parse_fp12(&ab, json_object_get(e, "ab"));                                          \
            C##_fp12_mul(&r, &a, &b);                                                               \
            CHECK(C##_fp12_eq(&r, &ab));                                                            \
            C##_fp12_sqr(&r, &a);                                                                   \
            C##_fp12_mul(&ab, &a, &a);                                                              \
            CHECK(C##_fp12_eq(&r, &ab));                                                            \
            C##_fp12_inv_var(&r, &a);                                                               \
            C##_fp12_mul(&r, &r, &a);                                                               \
            CHECK(C##_fp12_is_one(&r));                                                             \
        }                                                                                           \
        CHECK(json_array_size(json_object_get(vec, "fp12_frobenius")) > 0);                         \
        json_array_foreach(json_object_get(vec, "fp12_frobenius"), i, e)                            \
        {                                                                                           \
            C##_fp12 a, ap, r;                                                                      \
            C##_parse_fp12(&a, json_object_get(e, "a"));                                            \
            C##_parse_fp12(&ap, json_object_get(e, "a_p"));                                         \
            C##_fp12_frobenius(&r, &a);                                                             \
            CHECK(C##_fp12_eq(&r, &ap));                                                            \
            /* a^(p^6) is the conjugate */                                                          \
            C##_fp12_frobenius_k(&r, &a, 6);                                                        \
            C##_fp12_conj(&ap, &a);                                                                 \
            CHECK(C##_fp12_eq(&r, &ap));                                                            \
        }                                                                                           \
        CHECK(json_array_size(json_object_get(vec, "fp12_final_exp")) > 0);                         \
        json_array_foreach(json_object_get(vec, "fp12_final_exp"), i, e)                            \
        {                                                                                           \
            C##_fp12 f, fe, r;                                                                      \
            C##_parse_fp12(&f, json_object_get(e, "f"));                                            \
            C##_parse_fp12(&fe, json_object_get(e, "fe"));                                          \
            C##_final_exponentiation(&r, &f);                                                       \
            CHECK(C##_fp12_eq(&r, &fe));                                                            \
        }                                                                                           \
        test_context = #C " pairing vectors";                                                       \
        CHECK(json_array_size(json_object_get(vec, "pairing")) > 0);                                \
        json_array_foreach(json_object_get(vec, "pairing"), i, e)                                   \
        {                                                                                           \
            C##_g1_affine p;                                                                        \
            C##_g2_affine q;                                                                        \
            C##_fp12 want, got;                                                                     \
            C##_parse_g1(&p, json_object_get(e, "P"));                                              \
            C##_parse_g2(&q, json_object_get(e, "Q"));                                              \
            C##_parse_fp12(&want, json_object_get(e, "e"));                                         \
            C##_pairing_var(&got, &p, &q);                                                          \
            CHECK(C##_fp12_eq(&got, &want));                                                        \
        }                                                                                           \
        test_context = #C " pairing properties";                                                    \
        static const limb_t order[4] = C##_R_SCALAR_INIT;                                           \
        long iters = test_iters(3000) / 500 + 2;                                                    \
        for (long it = 0; it < iters; it++) {                                                       \
            C##_g1_affine p, pa, pneg;                                                              \
            C##_g2_affine q, qb, qneg;                                                              \
            limb_t a[4], b[4], x[4], y[4];                                                          \
            C##_random_points(&p, &q, x, y);                                                        \
            test_rand_limbs(a, 4);                                                                  \
            test_rand_limbs(b, 4);                                                                  \
            C##_g1_jacobian pj, t1;                                                                 \
            C##_g2_jacobian qj, t2;                                                                 \
            C##_g1_from_affine(&pj, &p);                                                            \
            C##_g2_from_affine(&qj, &q);                                                            \
            C##_g1_mul_var(&t1, &pj, a, 256);                                                       \
            C##_g2_mul_var(&t2, &qj, b, 256);                                                       \
            C##_g1_to_affine(&pa, &t1);                                                             \
            C##_g2_to_affine(&qb, &t2);                                                             \
            C##_fp12 e1, e2, t;                                                                     \
            /* bilinearity: e(aP, bQ) = e(P, Q)^(ab) */                                             \
            C##_pairing_var(&e1, &pa, &qb);                                                         \
            C##_pairing_var(&e2, &p, &q);                                                           \
            CHECK(!C##_fp12_is_one(&e2)); /* non-degenerate */                                      \
            C##_fp12_pow_var(&t, &e2, order, 256);                                                  \
            CHECK(C##_fp12_is_one(&t)); /* in the order-r subgroup */                               \
            C##_fp12_pow_var(&t, &e2, a, 256);                                                      \
            C##_fp12_pow_var(&t, &t, b, 256);                                                       \
            CHECK(C##_fp12_eq(&t, &e1));                                                            \
            /* e(P, -Q) e(P, Q) = 1 and e(-P, Q) = e(P, -Q) */                                      \
            C##_g2_affine_neg(&qneg, &q);                                                           \
            C##_g1_affine_neg(&pneg, &p);                                                           \
            C##_g1_affine ps[2] = {p, p};                                                           \
            C##_g2_affine qs[2] = {qneg, q};                                                        \
            C##_multi_pairing_var(&t, ps, qs, 2);                                                   \
            CHECK(C##_fp12_is_one(&t));                                                             \
            C##_pairing_var(&e1, &pneg, &q);                                                        \
            C##_pairing_var(&t, &p, &qneg);                                                         \
            CHECK(C##_fp12_eq(&e1, &t));                                                            \
        }                                                                                           \
        /* a product longer than one Miller-loop batch, with points at infinity, equals the        \
         * product of single pairings */                                                            \
        enum { NP = 21 };                                                                           \
        static C##_g1_affine ps[NP];                                                                \
        static C##_g2_affine qs[NP];                                                                \
        C##_fp12 prod, one, t;                                                                      \
        C##_fp12_one(&prod);                                                                        \
        for (int k = 0; k < NP; k++) {                                                              \
            limb_t a[4], b[4];                                                                      \
            C##_random_points(&ps[k], &qs[k], a, b);                                                \
            if (k == 3)                                                                             \
                C##_g1_affine_set_infinity(&ps[k]);                                                 \
            if (k == 11)                                                                            \
                C##_g2_affine_set_infinity(&qs[k]);                                                 \
            C##_pairing_var(&one, &ps[k], &qs[k]);                                                  \
            C##_fp12_mul(&prod, &prod, &one);                                                       \
        }                                                                                           \
        C##_multi_pairing_var(&t, ps, qs, NP);                                                      \
        CHECK(C##_fp12_eq(&t, &prod));                                                              \
        C##_multi_pairing_var(&t, ps, qs, 0);                                                       \
        CHECK(C##_fp12_is_one(&t));                                                                 \
    }

#define bls12_381_R_SCALAR_INIT BLS12_381_R_SCALAR
#define bn254_R_SCALAR_INIT BN254_R_SCALAR
PAIRING_TESTS(bls12_381)
PAIRING_TESTS(bn254)

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s VECTORS_DIR\n", argv[0]);
        return 2;
    }
    test_require_backend();
    test_init("test_pairing");
    json_t *bls = load_vectors(argv[1], "bls12_381.json");
    json_t *bn = load_vectors(argv[1], "bn254.json");
    bls12_381_run(bls);
    bn254_run(bn);
    json_decref(bls);
    json_decref(bn);
    test_done("test_pairing");
    return 0;
}
