/* Groth16 circuit-specific setup from a prepared powers-of-tau file, as
 * snarkjs's `groth16 setup` (zkey new) computes it, stamped per curve.
 *
 * Before including, define SETUP_C as the curve prefix.
 *
 * With L_c, aL_c, bL_c the Lagrange points of the domain in G1 (and L2_c in
 * G2) times 1, alpha and beta, and the r1cs rows A, B, C plus one extra A
 * row "1 * signal s" for each public signal s (row nConstraints + s):
 *   A[s]  = sum_c A_cs L_c          B1[s] = sum_c B_cs L_c
 *   B2[s] = sum_c B_cs L2_c         X[s]  = sum_c (A_cs bL_c + B_cs aL_c + C_cs L_c)
 * X is IC for the public signals and the constant, C (divided by delta = 1
 * in a new key) for the others. Every sum is computed exactly, so the
 * affine results equal snarkjs's byte for byte.
 */

#define ST_(name) CUZK_CAT(SETUP_C, _##name)
#define ST_G1 CUZK_CAT(SETUP_C, _g1_jacobian)
#define ST_G2 CUZK_CAT(SETUP_C, _g2_jacobian)
#define ST_G1A CUZK_CAT(SETUP_C, _g1_affine)
#define ST_G2A CUZK_CAT(SETUP_C, _g2_affine)
#define ST_FR CUZK_CAT(SETUP_C, _fr)

#ifndef CUZK_SETUP_COMMON
#define CUZK_SETUP_COMMON
/* One term of a sum: a base point and its scalar (plain, 32 bytes). */
typedef struct setup_term {
    const unsigned char *base;
    const unsigned char *scalar;
} setup_term;

/* Terms grouped by output point (CSR). */
typedef struct setup_sums {
    uint32_t *start; /* n + 1 */
    setup_term *terms;
    size_t n;
} setup_sums;

CUZK_INLINE void setup_sums_free(setup_sums *s)
{
    free(s->start);
    free(s->terms);
    memset(s, 0, sizeof(*s));
}

static const unsigned char setup_one[32] = {1};
#endif

/* k * P with k below r: negated P times r - k when that is shorter (circom's
 * coefficients are small or small negatives). */
#define ST_DEFINE_TERM_MUL(G, GA)                                                                     \
    CUZK_INLINE void ST_(G##_term)(CUZK_CAT(SETUP_C, _##G##_jacobian) * r, const unsigned char *base,  \
                                   const unsigned char *scalar)                                       \
    {                                                                                                 \
        const limb_t *order = CUZK_CAT(SETUP_C, _r_scalar);                                          \
        limb_t k[4], nk[4];                                                                           \
        GA p;                                                                                         \
        CUZK_CAT(SETUP_C, _##G##_jacobian) pj;                                                        \
        memcpy(k, scalar, 32);                                                                        \
        memcpy(&p, base, sizeof(p));                                                                  \
        bn_sub(nk, order, k, 4);                                                                      \
        if (bn_bit_length_var(nk, 4) < bn_bit_length_var(k, 4)) {                                     \
            memcpy(k, nk, 32);                                                                        \
            CUZK_CAT(SETUP_C, _##G##_affine_neg)(&p, &p);                                             \
        }                                                                                             \
        CUZK_CAT(SETUP_C, _##G##_from_affine)(&pj, &p);                                               \
        CUZK_CAT(SETUP_C, _##G##_mul_var)(r, &pj, k, bn_bit_length_var(k, 4));                        \
    }
ST_DEFINE_TERM_MUL(g1, ST_G1A)
ST_DEFINE_TERM_MUL(g2, ST_G2A)
#undef ST_DEFINE_TERM_MUL

/* out[i] = sum of the terms of output i, affine (.zkey layout), for the n
 * outputs of s; the outputs are spread over threads. */
#define ST_DEFINE_SUMS(G, GA)                                                                         \
    CUZK_INLINE int ST_(G##_sums)(unsigned char *out, const setup_sums *s, int threads)              \
    {                                                                                                 \
        typedef CUZK_CAT(SETUP_C, _##G##_jacobian) J;                                                 \
        J *acc = malloc((s->n ? s->n : 1) * sizeof(J));                                               \
        if (!acc)                                                                                     \
            return CUZK_ERR_NO_MEMORY;                                                                \
        _Pragma("omp parallel for schedule(dynamic, 64) num_threads(threads)")                        \
        for (size_t i = 0; i < s->n; i++) {                                                           \
            J t;                                                                                      \
            CUZK_CAT(SETUP_C, _##G##_set_infinity)(&acc[i]);                                          \
            for (uint32_t j = s->start[i]; j < s->start[i + 1]; j++) {                                \
                ST_(G##_term)(&t, s->terms[j].base, s->terms[j].scalar);                              \
                CUZK_CAT(SETUP_C, _##G##_add_var)(&acc[i], &acc[i], &t);                              \
            }                                                                                         \
        }                                                                                             \
        enum { CH = 1024 }; /* out is only byte-aligned: convert through a buffer */                 \
        GA tmp[CH];                                                                                   \
        for (size_t b = 0; b < s->n; b += CH) {                                                       \
            size_t m = s->n - b < CH ? s->n - b : CH;                                                 \
            CUZK_CAT(SETUP_C, _##G##_batch_to_affine_var)(tmp, acc + b, m);                           \
            memcpy(out + b * sizeof(GA), tmp, m * sizeof(GA));                                        \
        }                                                                                             \
        free(acc);                                                                                    \
        return CUZK_OK;                                                                               \
    }
ST_DEFINE_SUMS(g1, ST_G1A)
ST_DEFINE_SUMS(g2, ST_G2A)
#undef ST_DEFINE_SUMS

/* The setup: fills out->a, b1, b2, ic, c and the coefficient entries. */
CUZK_INLINE int ST_(groth16_setup)(const core_setup_in *in, core_setup_out *out)
{
    size_t nv = in->n_vars, npub1 = (size_t)in->n_public + 1, g1 = sizeof(ST_G1A), g2 = sizeof(ST_G2A);
    int threads = in->threads > 0 ? in->threads : 1;
    /* pass 1: count the terms of every output; pass 2: place them */
    setup_sums A = {0}, B1 = {0}, B2 = {0}, X = {0};
    setup_sums *all[4] = {&A, &B1, &B2, &X};
    int rc = CUZK_OK;
    for (int k = 0; k < 4; k++) {
        all[k]->n = nv;
        all[k]->start = calloc(nv + 2, sizeof(uint32_t));
        if (!all[k]->start)
            rc = CUZK_ERR_NO_MEMORY;
    }
    const unsigned char *lag[4] = {in->lag_g1, in->lag_g2, in->lag_alpha_g1, in->lag_beta_g1};
    uint64_t n_coefs = 0;
    for (int pass = 0; pass < 2 && rc == CUZK_OK; pass++) {
        if (pass == 1) {
            for (int k = 0; k < 4; k++) {
                uint32_t total = 0;
                for (size_t i = 0; i <= nv; i++) {
                    uint32_t c = all[k]->start[i];
                    all[k]->start[i] = total;
                    total += c;
                }
                all[k]->terms = malloc((total ? total : 1) * sizeof(setup_term));
                if (!all[k]->terms)
                    rc = CUZK_ERR_NO_MEMORY;
            }
            if (rc != CUZK_OK)
                break;
        }
        /* add (or count) one term of output k for signal s */
#define ST_TERM(k, s, b, sc)                                                                          \
    do {                                                                                              \
        if (pass == 0)                                                                                \
            all[k]->start[(s)]++;                                                                     \
        else                                                                                          \
            all[k]->terms[all[k]->start[(s)]++] = (setup_term){(b), (sc)};                            \
    } while (0)
        const unsigned char *p = in->constraints;
        uint64_t nc = 0;
        for (uint32_t c = 0; c < in->n_constraints; c++) {
            for (int m = 0; m < 3; m++) {
                uint32_t nt;
                memcpy(&nt, p, 4);
                p += 4;
                for (uint32_t t = 0; t < nt; t++, p += 36) {
                    uint32_t s;
                    memcpy(&s, p, 4);
                    const unsigned char *sc = p + 4;
                    if (m == 0) {
                        ST_TERM(0, s, lag[0] + c * g1, sc);
                        ST_TERM(3, s, lag[3] + c * g1, sc);
                    } else if (m == 1) {
                        ST_TERM(1, s, lag[0] + c * g1, sc);
                        ST_TERM(2, s, lag[1] + c * g2, sc);
                        ST_TERM(3, s, lag[2] + c * g1, sc);
                    } else {
                        ST_TERM(3, s, lag[0] + c * g1, sc);
                    }
                    if (m < 2 && pass == 1) {
                        /* coefficient entry: value = coef * R^2 mod r, plain */
                        unsigned char *e = out->coefs + nc * 44;
                        uint32_t hdr[3] = {(uint32_t)m, c, s};
                        ST_FR v, r2;
                        limb_t raw[4];
                        memcpy(e, hdr, 12);
                        memcpy(raw, sc, 32);
                        ST_(fr_from_raw)(&v, raw);
                        ST_(fr_from_raw)(&r2, CUZK_CAT(SETUP_C, _fr_r2).l);
                        ST_(fr_mul)(&v, &v, &r2);
                        ST_(fr_to_raw)(raw, &v);
                        memcpy(e + 12, raw, 32);
                    }
                    nc += m < 2;
                }
            }
        }
        for (size_t s = 0; s < npub1; s++) {
            ST_TERM(0, s, lag[0] + (in->n_constraints + s) * g1, setup_one);
            ST_TERM(3, s, lag[3] + (in->n_constraints + s) * g1, setup_one);
            if (pass == 1) {
                unsigned char *e = out->coefs + nc * 44;
                uint32_t hdr[3] = {0, (uint32_t)(in->n_constraints + s), (uint32_t)s};
                memcpy(e, hdr, 12);
                memcpy(e + 12, CUZK_CAT(SETUP_C, _fr_r2).l, 32); /* 1 * R^2 */
            }
            nc++;
        }
#undef ST_TERM
        n_coefs = nc;
        if (pass == 1) /* start[] now holds the ends: shift back to the starts */
            for (int k = 0; k < 4; k++) {
                memmove(all[k]->start + 1, all[k]->start, nv * sizeof(uint32_t));
                all[k]->start[0] = 0;
            }
    }
    out->n_coefs = n_coefs;
    if (rc == CUZK_OK)
        rc = ST_(g1_sums)(out->a, &A, threads);
    if (rc == CUZK_OK)
        rc = ST_(g1_sums)(out->b1, &B1, threads);
    if (rc == CUZK_OK)
        rc = ST_(g2_sums)(out->b2, &B2, threads);
    if (rc == CUZK_OK) {
        /* X: the first nPublic + 1 outputs are IC, the rest C */
        unsigned char *x = malloc(nv * g1);
        if (!x)
            rc = CUZK_ERR_NO_MEMORY;
        else if ((rc = ST_(g1_sums)(x, &X, threads)) == CUZK_OK) {
            memcpy(out->ic, x, npub1 * g1);
            memcpy(out->c, x + npub1 * g1, (nv - npub1) * g1);
        }
        free(x);
    }
    for (int k = 0; k < 4; k++)
        setup_sums_free(all[k]);
    return rc;
}

/* out[i] = a[i] - b[i], affine (.zkey layout), for the circuit hash. */
CUZK_INLINE void ST_(g1_sub)(unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n)
{
    enum { CH = 1024 };
    ST_G1 j[CH];
    ST_G1A t[CH];
    for (size_t base = 0; base < n; base += CH) {
        size_t m = n - base < CH ? n - base : CH;
        for (size_t i = 0; i < m; i++) {
            ST_G1A pa, pb;
            memcpy(&pa, a + (base + i) * sizeof(pa), sizeof(pa));
            memcpy(&pb, b + (base + i) * sizeof(pb), sizeof(pb));
            ST_(g1_affine_neg)(&pb, &pb);
            ST_(g1_from_affine)(&j[i], &pa);
            ST_(g1_add_affine_var)(&j[i], &j[i], &pb);
        }
        ST_(g1_batch_to_affine_var)(t, j, m);
        memcpy(out + base * sizeof(ST_G1A), t, m * sizeof(ST_G1A));
    }
}

#undef ST_
#undef ST_G1
#undef ST_G2
#undef ST_G1A
#undef ST_G2A
#undef ST_FR
#undef SETUP_C
