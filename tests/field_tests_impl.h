/* Tests of one prime field against GMP, stamped per field by test_field.c.
 * Define TF (field prefix) and TF_C (constant prefix) before including. */

#define T_(name) CUZK_CAT(TF, _##name)
#define TC_(name) CUZK_CAT(TF_C, _##name)
#define TN TC_(LIMBS)
#define TFN(name) CUZK_CAT(test_, CUZK_CAT(TF, _##name))

/* GMP <-> field element (through the plain integer, not the limbs). */
static void TFN(to_mpz)(mpz_t r, const TF *a)
{
    limb_t raw[TN];
    T_(to_raw)(raw, a);
    mpz_import(r, TN, -1, 8, 0, 0, raw);
}

static void TFN(from_mpz)(TF *r, const mpz_t v)
{
    limb_t raw[TN] = {0};
    size_t count = 0;
    CHECK(mpz_sizeinbase(v, 2) <= 64 * TN);
    mpz_export(raw, &count, -1, 8, 0, 0, v);
    T_(from_raw)(r, raw);
}

static void TFN(check_eq_mpz)(const TF *a, const mpz_t expect)
{
    mpz_t got;
    mpz_init(got);
    TFN(to_mpz)(got, a);
    CHECK(mpz_cmp(got, expect) == 0);
    mpz_clear(got);
}

/* Random element: random limbs (runs of bits included) reduced below p. */
static void TFN(rand_mpz)(mpz_t r, const mpz_t p)
{
    limb_t raw[TN];
    test_rand_limbs(raw, TN);
    mpz_import(r, TN, -1, 8, 0, 0, raw);
    mpz_mod(r, r, p);
}

static void TFN(run)(void)
{
    char ctx[128];
    snprintf(ctx, sizeof(ctx), "%s", CUZK_STR(TF));
    test_context = ctx;
    mpz_t p, a, b, e, t, u, rr;
    mpz_inits(p, a, b, e, t, u, rr, NULL);
    mpz_import(p, TN, -1, 8, 0, 0, T_(modulus).l);
    mpz_set_ui(rr, 1);
    mpz_mul_2exp(rr, rr, 64 * TN);
    mpz_mod(rr, rr, p); /* R mod p */

    /* The modulus and its constants against independent derivations. */
    CHECK(mpz_probab_prime_p(p, 30) > 0);
    CHECK(mpz_sizeinbase(p, 2) == TC_(BITS));
    {
        mpz_t n0;
        mpz_init(n0);
        mpz_set_ui(t, 1);
        mpz_mul_2exp(t, t, 64);
        mpz_invert(n0, p, t);
        mpz_sub(n0, t, n0); /* -p^-1 mod 2^64 */
        CHECK(mpz_get_ui(n0) == TC_(N0));
        mpz_clear(n0);
    }

    /* Edge values: 0, 1, 2, p-1, p-2, (p-1)/2, (p+1)/2, R mod p, 2^64-1,
     * 2^64, 2^(bits-1)-1, long runs of 0s and 1s. */
    enum { NEDGE = 14 };
    mpz_t edge[NEDGE];
    for (int i = 0; i < NEDGE; i++)
        mpz_init(edge[i]);
    mpz_set_ui(edge[0], 0);
    mpz_set_ui(edge[1], 1);
    mpz_set_ui(edge[2], 2);
    mpz_sub_ui(edge[3], p, 1);
    mpz_sub_ui(edge[4], p, 2);
    mpz_sub_ui(edge[5], p, 1);
    mpz_fdiv_q_2exp(edge[5], edge[5], 1);
    mpz_add_ui(edge[6], p, 1);
    mpz_fdiv_q_2exp(edge[6], edge[6], 1);
    mpz_set(edge[7], rr);
    mpz_set_ui(edge[8], 0);
    mpz_setbit(edge[8], 64);
    mpz_sub_ui(edge[8], edge[8], 1);
    mpz_set_ui(edge[9], 0);
    mpz_setbit(edge[9], 64);
    mpz_set_ui(edge[10], 0);
    mpz_setbit(edge[10], TC_(BITS) - 2);
    mpz_sub_ui(edge[10], edge[10], 1);
    mpz_set_ui(edge[11], 0);
    mpz_setbit(edge[11], TC_(BITS) - 2); /* 1000...0 */
    mpz_set_str(edge[12], "ffffffffffffffff0000000000000000ffffffffffffffff", 16);
    mpz_mod(edge[12], edge[12], p);
    mpz_set_ui(edge[13], 0);
    mpz_setbit(edge[13], 128);
    mpz_sub_ui(edge[13], edge[13], 1); /* 2^128 - 1 */

    long iters = test_iters(3000);
    long total = NEDGE * NEDGE + iters;
    for (long it = 0; it < total; it++) {
        if (it < NEDGE * NEDGE) {
            mpz_set(a, edge[it / NEDGE]);
            mpz_set(b, edge[it % NEDGE]);
        } else {
            TFN(rand_mpz)(a, p);
            TFN(rand_mpz)(b, p);
        }
        TF fa, fb, fr, fs;
        TFN(from_mpz)(&fa, a);
        TFN(from_mpz)(&fb, b);

        /* Montgomery in/out: the limbs hold a*R mod p; to_raw gives a back. */
        mpz_mul(t, a, rr);
        mpz_mod(t, t, p);
        mpz_import(u, TN, -1, 8, 0, 0, fa.l);
        CHECK(mpz_cmp(t, u) == 0);
        TFN(check_eq_mpz)(&fa, a);

        T_(add)(&fr, &fa, &fb);
        mpz_add(t, a, b);
        mpz_mod(t, t, p);
        TFN(check_eq_mpz)(&fr, t);

        T_(sub)(&fr, &fa, &fb);
        mpz_sub(t, a, b);
        mpz_mod(t, t, p);
        TFN(check_eq_mpz)(&fr, t);

        T_(mul)(&fr, &fa, &fb);
        mpz_mul(t, a, b);
        mpz_mod(t, t, p);
        TFN(check_eq_mpz)(&fr, t);

        /* r may alias an input */
        fs = fa;
        T_(mul)(&fs, &fs, &fb);
        CHECK(T_(eq)(&fs, &fr));

        T_(sqr)(&fr, &fa);
        mpz_mul(t, a, a);
        mpz_mod(t, t, p);
        TFN(check_eq_mpz)(&fr, t);

        T_(neg)(&fr, &fa);
        mpz_neg(t, a);
        mpz_mod(t, t, p);
        TFN(check_eq_mpz)(&fr, t);

        T_(dbl)(&fr, &fa);
        mpz_mul_2exp(t, a, 1);
        mpz_mod(t, t, p);
        TFN(check_eq_mpz)(&fr, t);

        T_(half)(&fr, &fa);
        mpz_mul_2exp(t, t, 0);
        mpz_set_ui(u, 2);
        mpz_invert(u, u, p);
        mpz_mul(t, a, u);
        mpz_mod(t, t, p);
        TFN(check_eq_mpz)(&fr, t);

        CHECK(T_(eq)(&fa, &fb) == (mpz_cmp(a, b) == 0));
        CHECK(T_(is_zero)(&fa) == (mpz_sgn(a) == 0));
        CHECK(T_(is_one)(&fa) == (mpz_cmp_ui(a, 1) == 0));

        fr = fa;
        T_(cmov)(&fr, &fb, 0);
        CHECK(T_(eq)(&fr, &fa));
        T_(cmov)(&fr, &fb, ~(limb_t)0);
        CHECK(T_(eq)(&fr, &fb));

        /* inverses: 1/0 = 0 by convention */
        T_(inv)(&fr, &fa);
        T_(inv_var)(&fs, &fa);
        if (mpz_sgn(a) == 0) {
            CHECK(T_(is_zero)(&fr) && T_(is_zero)(&fs));
        } else {
            mpz_invert(t, a, p);
            TFN(check_eq_mpz)(&fr, t);
            TFN(check_eq_mpz)(&fs, t);
        }

        /* square roots and Euler's criterion */
        if (it < NEDGE * NEDGE || it % 4 == 0) {
            int legendre = mpz_legendre(a, p);
            CHECK(T_(is_square)(&fa) == (legendre >= 0));
            int ok = T_(sqrt)(&fr, &fa);
            CHECK(ok == (legendre >= 0));
            if (ok) {
                T_(sqr)(&fs, &fr);
                CHECK(T_(eq)(&fs, &fa));
            }
        }

        /* pow with a random exponent of random length, and e = 0, 1 */
        if (it < NEDGE * NEDGE || it % 8 == 0) {
            limb_t exp[TN];
            test_rand_limbs(exp, TN);
            size_t nbits = (size_t)(test_rand64() % (64 * TN + 1));
            if (it % 3 == 0)
                nbits = 64 * TN;
            mpz_import(e, TN, -1, 8, 0, 0, exp);
            mpz_fdiv_r_2exp(e, e, nbits);
            T_(pow)(&fr, &fa, exp, nbits);
            mpz_powm(t, a, e, p);
            TFN(check_eq_mpz)(&fr, t);
        }

        /* bytes, both orders */
        unsigned char le[8 * TN], be[8 * TN], ref[8 * TN];
        T_(to_bytes_le)(le, &fa);
        T_(to_bytes_be)(be, &fa);
        memset(ref, 0, sizeof(ref));
        size_t cnt;
        mpz_export(ref, &cnt, -1, 1, 0, 0, a); /* little-endian bytes */
        CHECK(memcmp(le, ref, sizeof(ref)) == 0);
        for (size_t k = 0; k < sizeof(ref); k++)
            CHECK(be[k] == ref[sizeof(ref) - 1 - k]);
        CHECK(T_(from_bytes_le)(&fr, le) == CUZK_OK && T_(eq)(&fr, &fa));
        CHECK(T_(from_bytes_be)(&fr, be) == CUZK_OK && T_(eq)(&fr, &fa));
        T_(to_mont_bytes_le)(le, &fa);
        CHECK(T_(from_mont_bytes_le)(&fr, le) == CUZK_OK && T_(eq)(&fr, &fa));

        /* decimal strings */
        char dec[200], *gmp_dec = mpz_get_str(NULL, 10, a);
        size_t n = T_(to_decimal)(dec, sizeof(dec), &fa);
        CHECK(n == strlen(gmp_dec) && strcmp(dec, gmp_dec) == 0);
        CHECK(T_(from_decimal)(&fr, gmp_dec, strlen(gmp_dec)) == CUZK_OK && T_(eq)(&fr, &fa));
        free(gmp_dec);
    }

    /* Non-canonical inputs are refused: p, p+1, 2^(64N)-1. */
    {
        unsigned char le[8 * TN], be[8 * TN];
        const char *label[3] = {"p", "p+1", "2^(64N)-1"};
        for (int k = 0; k < 3; k++) {
            (void)label[k];
            if (k == 0)
                mpz_set(t, p);
            else if (k == 1)
                mpz_add_ui(t, p, 1);
            else {
                mpz_set_ui(t, 0);
                mpz_setbit(t, 64 * TN);
                mpz_sub_ui(t, t, 1);
            }
            memset(le, 0, sizeof(le));
            size_t cnt;
            mpz_export(le, &cnt, -1, 1, 0, 0, t);
            for (size_t i = 0; i < sizeof(le); i++)
                be[i] = le[sizeof(le) - 1 - i];
            TF fr = {{0}};
            CHECK(T_(from_bytes_le)(&fr, le) == CUZK_ERR_NOT_CANONICAL);
            CHECK(T_(from_bytes_be)(&fr, be) == CUZK_ERR_NOT_CANONICAL);
            CHECK(T_(from_mont_bytes_le)(&fr, le) == CUZK_ERR_NOT_CANONICAL);
            char *s = mpz_get_str(NULL, 10, t);
            CHECK(T_(from_decimal)(&fr, s, strlen(s)) == CUZK_ERR_NOT_CANONICAL);
            free(s);
        }
        /* malformed and oversized decimal strings */
        TF fr;
        CHECK(T_(from_decimal)(&fr, "", 0) == CUZK_ERR_FORMAT);
        CHECK(T_(from_decimal)(&fr, "12a", 3) == CUZK_ERR_FORMAT);
        CHECK(T_(from_decimal)(&fr, "-1", 2) == CUZK_ERR_FORMAT);
        CHECK(T_(from_decimal)(&fr, " 1", 2) == CUZK_ERR_FORMAT);
        CHECK(T_(from_decimal)(&fr, "0x10", 4) == CUZK_ERR_FORMAT);
        char big[400];
        memset(big, '9', sizeof(big));
        CHECK(T_(from_decimal)(&fr, big, sizeof(big)) == CUZK_ERR_NOT_CANONICAL);
        memset(big, '0', sizeof(big));
        big[sizeof(big) - 1] = '7';
        CHECK(T_(from_decimal)(&fr, big, sizeof(big)) == CUZK_OK);
        TF seven;
        T_(from_u64)(&seven, 7);
        CHECK(T_(eq)(&fr, &seven));
        char small[4];
        CHECK(T_(to_decimal)(small, sizeof(small), &fr) == 1 && strcmp(small, "7") == 0);
        TF big_value;
        T_(neg)(&big_value, &seven);
        CHECK(T_(to_decimal)(small, sizeof(small), &big_value) == 0); /* buffer too small */
    }

    /* batch inversion, zeros included, against one-by-one */
    {
        enum { NB = 37 };
        TF in[NB], out[NB], out_var[NB], one_by_one;
        for (int i = 0; i < NB; i++) {
            TFN(rand_mpz)(a, p);
            if (i % 7 == 3)
                mpz_set_ui(a, 0);
            TFN(from_mpz)(&in[i], a);
        }
        T_(batch_inv)(out, in, NB);
        T_(batch_inv_var)(out_var, in, NB);
        for (int i = 0; i < NB; i++) {
            T_(inv_var)(&one_by_one, &in[i]);
            CHECK(T_(eq)(&out[i], &one_by_one));
            CHECK(T_(eq)(&out_var[i], &one_by_one));
        }
        T_(batch_inv)(out, in, 0); /* n = 0 is a no-op */
    }

    for (int i = 0; i < NEDGE; i++)
        mpz_clear(edge[i]);
    mpz_clears(p, a, b, e, t, u, rr, NULL);
}

#undef TFN
#undef TN
#undef TC_
#undef T_
#undef TF
#undef TF_C
