/* Tests of one group, stamped per group by test_curve.c. Define:
 *   TG        group prefix (bls12_381_g1)
 *   TGF       coordinate field prefix (bls12_381_fp or _fp2)
 *   TG_BASE   the prime field under TGF (bls12_381_fp)
 *   TG_JSON   the vector file's section prefix ("g1" or "g2")
 *   TG_R      the group order as 4 limbs
 *   TG_H, TG_H_BITS   the cofactor (limbs, bits)
 *   TG_NONMEMBER      1 when TG_NONMEMBER_X/Y give a curve point outside the
 *                     subgroup (0 for BN254 G1: cofactor 1)
 */
#define G_(name) CUZK_CAT(TG, _##name)
#define GF_(name) CUZK_CAT(TGF, _##name)
#define GT_(name) CUZK_CAT(test_, CUZK_CAT(TG, _##name))

typedef G_(affine) GT_(affine_t);
typedef G_(jacobian) GT_(jac_t);

static void GT_(parse_point)(G_(affine) *r, json_t *j)
{
    if (json_is_null(j)) {
        G_(affine_set_infinity)(r);
        return;
    }
    CHECK(json_is_object(j));
    CUZK_CAT(parse_, TGF)(&r->x, json_object_get(j, "x"));
    CUZK_CAT(parse_, TGF)(&r->y, json_object_get(j, "y"));
    CHECK(G_(affine_is_on_curve)(r));
}

static int GT_(jac_eq_affine)(const G_(jacobian) *a, const G_(affine) *b)
{
    G_(affine) t;
    G_(to_affine)(&t, a);
    return G_(affine_eq)(&t, b);
}

static void GT_(random_point)(G_(jacobian) *r, limb_t k[4])
{
    G_(jacobian) g;
    G_(generator)(&g);
    test_rand_limbs(k, 4);
    k[3] &= 0x3fffffffffffffffULL; /* < 2^254: sums of two stay below 2^256 */
    G_(mul_var)(r, &g, k, 256);
}

static void GT_(run)(json_t *vec)
{
    char ctx[160];
    snprintf(ctx, sizeof(ctx), "%s vectors", CUZK_STR(TG));
    test_context = ctx;
    static const limb_t order[4] = TG_R;

    /* generator */
    {
        G_(affine) g;
        GT_(parse_point)(&g, json_object_get(json_object_get(vec, "generators"), TG_JSON));
        CHECK(G_(affine_eq)(&g, &G_(generator_affine)));
    }

    /* [k]P from @noble/curves, constant-time and variable-time */
    json_t *arr = json_object_get(vec, TG_JSON "_mul"), *e;
    size_t i;
    CHECK(json_array_size(arr) > 0);
    json_array_foreach(arr, i, e)
    {
        G_(affine) p, kp;
        GT_(parse_point)(&p, json_object_get(e, "P"));
        GT_(parse_point)(&kp, json_object_get(e, "kP"));
        limb_t k[4];
        unsigned char kb[32];
        CHECK(test_hex_to_bytes(kb, 32, json_string_value(json_object_get(e, "k"))) == 0);
        bn_from_bytes_be(k, kb, 4);
        G_(jacobian) pj, r;
        G_(from_affine)(&pj, &p);
        G_(mul)(&r, &pj, k, 256);
        CHECK(GT_(jac_eq_affine)(&r, &kp));
        G_(mul_var)(&r, &pj, k, 256);
        CHECK(GT_(jac_eq_affine)(&r, &kp));
    }

    /* P + Q from @noble/curves through every addition formula */
    arr = json_object_get(vec, TG_JSON "_add");
    CHECK(json_array_size(arr) > 0);
    json_array_foreach(arr, i, e)
    {
        G_(affine) p, q, sum;
        GT_(parse_point)(&p, json_object_get(e, "P"));
        GT_(parse_point)(&q, json_object_get(e, "Q"));
        GT_(parse_point)(&sum, json_object_get(e, "sum"));
        G_(jacobian) pj, qj, r;
        G_(from_affine)(&pj, &p);
        G_(from_affine)(&qj, &q);
        G_(add)(&r, &pj, &qj);
        CHECK(GT_(jac_eq_affine)(&r, &sum));
        G_(add_var)(&r, &pj, &qj);
        CHECK(GT_(jac_eq_affine)(&r, &sum));
        G_(add_affine_var)(&r, &pj, &q);
        CHECK(GT_(jac_eq_affine)(&r, &sum));
        G_(xyzz) px, qx, sx;
        G_(xyzz_set_infinity)(&px);
        G_(xyzz_add_affine_var)(&px, &px, &p);
        G_(xyzz_add_affine_var)(&sx, &px, &q);
        G_(xyzz_to_jacobian)(&r, &sx);
        CHECK(GT_(jac_eq_affine)(&r, &sum));
        G_(xyzz_set_infinity)(&qx);
        G_(xyzz_add_affine_var)(&qx, &qx, &q);
        G_(xyzz_add_var)(&sx, &px, &qx);
        G_(xyzz_to_jacobian)(&r, &sx);
        CHECK(GT_(jac_eq_affine)(&r, &sum));
    }

    /* subgroup membership: the fast check and [r]P = O agree with noble */
    arr = json_object_get(vec, TG_JSON "_subgroup");
    CHECK(json_array_size(arr) > 0);
    json_array_foreach(arr, i, e)
    {
        G_(affine) p;
        GT_(parse_point)(&p, json_object_get(e, "P"));
        int truth = json_is_true(json_object_get(e, "in_subgroup"));
        G_(jacobian) pj;
        G_(from_affine)(&pj, &p);
        CHECK(G_(is_on_curve)(&pj));
        CHECK(G_(in_subgroup_var)(&pj) == truth);
        CHECK(G_(in_subgroup_by_order_var)(&pj, order) == truth);
    }

    snprintf(ctx, sizeof(ctx), "%s group laws", CUZK_STR(TG));
    long iters = test_iters(3000) / 60 + 2;
    for (long it = 0; it < iters; it++) {
        limb_t a[4], b[4], c[4], s[4];
        G_(jacobian) P, Q, R, t1, t2, t3, inf;
        GT_(random_point)(&P, a);
        GT_(random_point)(&Q, b);
        GT_(random_point)(&R, c);
        G_(set_infinity)(&inf);
        CHECK(G_(is_on_curve)(&P) && G_(is_on_curve)(&Q));
        /* associativity and commutativity */
        G_(add)(&t1, &P, &Q);
        G_(add)(&t1, &t1, &R);
        G_(add)(&t2, &Q, &R);
        G_(add)(&t2, &P, &t2);
        CHECK(G_(eq)(&t1, &t2));
        G_(add_var)(&t3, &R, &Q);
        G_(add_var)(&t3, &t3, &P);
        CHECK(G_(eq)(&t1, &t3));
        /* identity and inverse */
        G_(add)(&t1, &P, &inf);
        CHECK(G_(eq)(&t1, &P));
        G_(add)(&t1, &inf, &P);
        CHECK(G_(eq)(&t1, &P));
        G_(neg)(&t2, &P);
        G_(add)(&t1, &P, &t2);
        CHECK(G_(is_infinity)(&t1));
        G_(add_var)(&t1, &t2, &P);
        CHECK(G_(is_infinity)(&t1));
        /* doubling = adding to itself, in every representation */
        G_(double)(&t1, &P);
        G_(add)(&t2, &P, &P);
        CHECK(G_(eq)(&t1, &t2));
        G_(add_var)(&t2, &P, &P);
        CHECK(G_(eq)(&t1, &t2));
        G_(affine) pa, qa;
        G_(to_affine)(&pa, &P);
        G_(to_affine)(&qa, &Q);
        G_(add_affine_var)(&t2, &P, &pa);
        CHECK(G_(eq)(&t1, &t2));
        G_(xyzz) x1, x2;
        G_(xyzz_set_infinity)(&x1);
        G_(xyzz_add_affine_var)(&x1, &x1, &pa);
        G_(xyzz_double)(&x2, &x1);
        G_(xyzz_to_jacobian)(&t2, &x2);
        CHECK(G_(eq)(&t1, &t2));
        G_(xyzz_add_var)(&x2, &x1, &x1);
        G_(xyzz_to_jacobian)(&t2, &x2);
        CHECK(G_(eq)(&t1, &t2));
        /* mixed vs full addition, with a non-trivial Z */
        G_(double)(&t3, &Q); /* Z != 1 */
        G_(affine) t3a;
        G_(to_affine)(&t3a, &t3);
        G_(add_var)(&t1, &P, &t3);
        G_(from_affine)(&t2, &pa);
        G_(add_affine_var)(&t2, &t3, &pa);
        CHECK(G_(eq)(&t1, &t2));
        G_(add_affine_var)(&t2, &P, &t3a);
        CHECK(G_(eq)(&t1, &t2));
        /* scalar multiplication distributes: [a+b]G = [a]G + [b]G,
         * [c](P + Q) = [c]P + [c]Q; constant time = variable time */
        bn_add(s, a, b, 4);
        G_(jacobian) g;
        G_(generator)(&g);
        G_(mul)(&t1, &g, s, 256);
        G_(add)(&t2, &P, &Q);
        CHECK(G_(eq)(&t1, &t2));
        G_(mul_var)(&t1, &t2, c, 256);
        G_(mul)(&t3, &P, c, 256);
        G_(mul_var)(&t2, &Q, c, 256);
        G_(add_var)(&t2, &t2, &t3);
        CHECK(G_(eq)(&t1, &t2));
        /* XYZZ accumulation of affine points equals Jacobian accumulation */
        G_(xyzz_set_infinity)(&x1);
        G_(set_infinity)(&t1);
        G_(affine) pts[3] = {pa, qa, pa};
        for (int k = 0; k < 3; k++) {
            G_(xyzz_add_affine_var)(&x1, &x1, &pts[k]);
            G_(add_affine_var)(&t1, &t1, &pts[k]);
        }
        G_(xyzz_to_jacobian)(&t2, &x1);
        CHECK(G_(eq)(&t1, &t2));
        /* XYZZ formulas with ZZ, ZZZ != 1 on both sides: x1 = 2P + Q (from
         * above), x2 = Q + P */
        G_(xyzz_set_infinity)(&x2);
        G_(xyzz_add_affine_var)(&x2, &x2, &qa);
        G_(xyzz_add_affine_var)(&x2, &x2, &pa);
        G_(xyzz) x3;
        G_(xyzz_double)(&x3, &x1);
        G_(double)(&t3, &t1);
        G_(xyzz_to_jacobian)(&t2, &x3);
        CHECK(G_(eq)(&t2, &t3));
        G_(xyzz_add_var)(&x3, &x1, &x2);
        G_(add_var)(&t3, &P, &Q);
        G_(add_var)(&t3, &t3, &t1);
        G_(xyzz_to_jacobian)(&t2, &x3);
        CHECK(G_(eq)(&t2, &t3));
        G_(xyzz_add_var)(&x3, &x1, &x1); /* doubling through the addition */
        G_(double)(&t3, &t1);
        G_(xyzz_to_jacobian)(&t2, &x3);
        CHECK(G_(eq)(&t2, &t3));
        G_(xyzz) negx2 = x2;
        GF_(neg)(&negx2.y, &negx2.y);
        G_(xyzz_add_var)(&x3, &x2, &negx2); /* opposite points */
        CHECK(G_(xyzz_is_infinity)(&x3));
    }

    /* edge scalars: 0, 1, 2, r-1, r, r+1, 2^256-1 (mod r: 2^256-1-3r... just
     * compare constant-time with variable-time and with the group law) */
    {
        G_(jacobian) P, t1, t2, negP;
        limb_t k[4];
        GT_(random_point)(&P, k);
        G_(neg)(&negP, &P);
        limb_t edge[7][4] = {{0}, {1}, {2}, {0}, {0}, {0}, {~0ULL, ~0ULL, ~0ULL, ~0ULL}};
        static const limb_t one[4] = {1};
        memcpy(edge[3], order, sizeof(edge[3]));
        bn_sub(edge[3], edge[3], one, 4);
        memcpy(edge[4], order, sizeof(edge[4]));
        memcpy(edge[5], order, sizeof(edge[5]));
        bn_add(edge[5], edge[5], one, 4);
        for (int j = 0; j < 7; j++) {
            G_(mul)(&t1, &P, edge[j], 256);
            G_(mul_var)(&t2, &P, edge[j], 256);
            CHECK(G_(eq)(&t1, &t2));
        }
        G_(mul)(&t1, &P, edge[0], 256);
        CHECK(G_(is_infinity)(&t1));
        G_(mul)(&t1, &P, edge[1], 256);
        CHECK(G_(eq)(&t1, &P));
        G_(mul)(&t1, &P, edge[3], 256);
        CHECK(G_(eq)(&t1, &negP));
        G_(mul)(&t1, &P, edge[4], 256);
        CHECK(G_(is_infinity)(&t1));
        G_(mul_var)(&t1, &P, edge[5], 256);
        CHECK(G_(eq)(&t1, &P));
        G_(set_infinity)(&t2);
        G_(mul)(&t1, &t2, edge[6], 256);
        CHECK(G_(is_infinity)(&t1));
    }

    /* batch conversion to affine equals one by one, infinity included */
    {
        enum { NB = 150 }; /* more than one internal chunk */
        static G_(jacobian) in[NB];
        static G_(affine) out[NB];
        G_(jacobian) acc;
        limb_t k[4];
        GT_(random_point)(&acc, k);
        for (int j = 0; j < NB; j++) {
            G_(double)(&acc, &acc);
            in[j] = acc;
            if (j % 17 == 5)
                G_(set_infinity)(&in[j]);
        }
        G_(batch_to_affine_var)(out, in, NB);
        for (int j = 0; j < NB; j++) {
            G_(affine) one;
            G_(to_affine)(&one, &in[j]);
            CHECK(G_(affine_eq)(&one, &out[j]));
            CHECK(G_(affine_is_infinity)(&out[j]) == G_(is_infinity)(&in[j]));
        }
    }

#if TG_NONMEMBER
    /* points outside the subgroup: both checks say no; [h]P is inside */
    {
        static const limb_t cofactor[] = TG_H;
        G_(jacobian) n, m, t;
        n.x = (TGF)TG_NONMEMBER_X;
        n.y = (TGF)TG_NONMEMBER_Y;
        GF_(one)(&n.z);
        CHECK(G_(is_on_curve)(&n));
        for (int j = 0; j < 8; j++) {
            limb_t k[4];
            test_rand_limbs(k, 4);
            k[0] |= 1;
            G_(mul_var)(&m, &n, k, 64); /* small multiples of a non-member */
            CHECK(!G_(in_subgroup_var)(&m));
            CHECK(!G_(in_subgroup_by_order_var)(&m, order));
            G_(mul_var)(&t, &m, cofactor, TG_H_BITS);
            CHECK(G_(in_subgroup_var)(&t));
            CHECK(G_(in_subgroup_by_order_var)(&t, order));
        }
    }
#endif

    /* the .zkey encoding */
    snprintf(ctx, sizeof(ctx), "%s zkey encoding", CUZK_STR(TG));
    {
        enum { SZ = sizeof(G_(affine)) };
        unsigned char buf[SZ], zeros[SZ] = {0};
        G_(jacobian) P;
        G_(affine) pa, back;
        limb_t k[4];
        GT_(random_point)(&P, k);
        G_(to_affine)(&pa, &P);
        G_(affine_to_zkey)(buf, &pa);
        CHECK(memcmp(buf, &pa, SZ) == 0); /* the in-memory layout */
        CHECK(G_(affine_from_zkey)(&back, buf, 1) == CUZK_OK && G_(affine_eq)(&back, &pa));
        CHECK(G_(affine_from_zkey)(&back, zeros, 1) == CUZK_OK && G_(affine_is_infinity)(&back));
        /* x coordinate's first limb set to p: not canonical */
        unsigned char bad[SZ];
        memcpy(bad, buf, SZ);
        bn_to_bytes_le(bad, CUZK_CAT(TG_BASE, _modulus).l, CUZK_ARRAY_LEN(CUZK_CAT(TG_BASE, _modulus).l));
        CHECK(G_(affine_from_zkey)(&back, bad, 1) == CUZK_ERR_NOT_CANONICAL);
        /* y changed: off the curve */
        memcpy(bad, buf, SZ);
        bad[SZ - 20] ^= 1;
        int err = G_(affine_from_zkey)(&back, bad, 1);
        CHECK(err == CUZK_ERR_NOT_ON_CURVE || err == CUZK_ERR_NOT_CANONICAL);
        memcpy(bad, buf, SZ);
        bad[SZ / 2] ^= 4; /* lowest byte of y: stays canonical */
        CHECK(G_(affine_from_zkey)(&back, bad, 1) == CUZK_ERR_NOT_ON_CURVE);
#if TG_NONMEMBER
        G_(affine) nm = {TG_NONMEMBER_X, TG_NONMEMBER_Y};
        G_(affine_to_zkey)(buf, &nm);
        CHECK(G_(affine_from_zkey)(&back, buf, 1) == CUZK_ERR_NOT_IN_SUBGROUP);
        CHECK(G_(affine_from_zkey)(&back, buf, 0) == CUZK_OK);
#endif
    }
}

#undef GT_
#undef GF_
#undef G_
#undef TG
#undef TGF
#undef TG_JSON
#undef TG_BASE
#undef TG_R
#undef TG_H
#undef TG_H_BITS
#undef TG_NONMEMBER
#undef TG_NONMEMBER_X
#undef TG_NONMEMBER_Y
