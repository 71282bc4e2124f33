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
#include "circuit.h"
enum { ST_SCALAR_ROWS = 1 << 16 }; /* rows of the circuit read at a time */
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

/* Section 4's entries, as snarkjs writes them: every A term then every B
 * term of each constraint as (matrix, row, signal, coef R^2 mod r), then
 * (0, nConstraints + s, s, R^2) for the public signals and the constant.
 * This call covers rows [row0, row0 + n_rows) (constraints points at row
 * row0) and, when publics_row is not UINT32_MAX, the n_public + 1 public
 * entries starting at that row, so a large key is written in pieces.
 * Returns the number of entries written to out (44 bytes each). */
CUZK_INLINE uint64_t ST_(coefs)(unsigned char *out, const unsigned char *constraints, uint32_t row0, uint32_t n_rows,
                                uint32_t publics_row, uint32_t n_public)
{
    ST_FR r2;
    ST_(fr_from_raw)(&r2, CUZK_CAT(SETUP_C, _fr_r2).l);
    const unsigned char *p = constraints;
    uint64_t nc = 0;
    for (uint32_t c = row0; c < row0 + n_rows; c++)
        for (uint32_t m = 0; m < 3; m++) {
            uint32_t nt;
            memcpy(&nt, p, 4);
            p += 4;
            for (uint32_t t = 0; t < nt; t++, p += 36) {
                if (m == 2)
                    continue;
                unsigned char *e = out + nc++ * 44;
                uint32_t hdr[3] = {m, c, 0};
                ST_FR v;
                limb_t raw[4];
                memcpy(&hdr[2], p, 4);
                memcpy(e, hdr, 12);
                memcpy(raw, p + 4, 32);
                ST_(fr_from_raw)(&v, raw);
                ST_(fr_mul)(&v, &v, &r2);
                ST_(fr_to_raw)(raw, &v);
                memcpy(e + 12, raw, 32);
            }
        }
    if (publics_row != UINT32_MAX)
        for (uint32_t s = 0; s <= n_public; s++) {
            unsigned char *e = out + nc++ * 44;
            uint32_t hdr[3] = {0, publics_row + s, s};
            memcpy(e, hdr, 12);
            memcpy(e + 12, CUZK_CAT(SETUP_C, _fr_r2).l, 32); /* 1 R^2 */
        }
    return nc;
}

/* The setup: fills out->a, b1, b2, ic, c. */
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
        for (uint32_t row = 0; row < in->n_constraints; row++) {
            size_t c = in->bellperson ? CUZK_CAT(SETUP_C, _fr_ntt_bellperson_index)(row, in->log_n) : row;
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
                }
            }
        }
        for (size_t s = 0; s < npub1; s++) {
            size_t row = in->n_constraints + s;
            size_t c = in->bellperson ? CUZK_CAT(SETUP_C, _fr_ntt_bellperson_index)(row, in->log_n) : row;
            ST_TERM(0, s, lag[0] + c * g1, setup_one);
            ST_TERM(3, s, lag[3] + c * g1, setup_one);
        }
#undef ST_TERM
        if (pass == 1) /* start[] now holds the ends: shift back to the starts */
            for (int k = 0; k < 4; k++) {
                memmove(all[k]->start + 1, all[k]->start, nv * sizeof(uint32_t));
                all[k]->start[0] = 0;
            }
    }
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

/* ------------------------------------------------------------ random setup */

/* Fixed-base scalar multiplication by the generator: 32 windows of 8 bits,
 * table[w][d - 1] = d 2^(8w) G affine, so k G is at most 32 mixed additions
 * (no doublings). The table is built per call (8160 points: a few ms).
 * Variable-time in the scalars, which come from the toxic waste: this
 * setup is for testing, where a timing side channel does not matter (the
 * CLI says so); a production key comes from a ceremony's ptau. */
#define ST_DEFINE_FIXED_BASE(G, GA)                                                                   \
    CUZK_INLINE int ST_(G##_fixed_base_var)(unsigned char *out, const limb_t *scalars, size_t count, int threads) \
    {                                                                                                 \
        typedef CUZK_CAT(SETUP_C, _##G##_jacobian) J;                                                 \
        enum { WINDOWS = 32, ENTRIES = 255, CH = 256 };                                               \
        GA *table = malloc((size_t)WINDOWS * ENTRIES * sizeof(GA));                                   \
        J *tj = malloc((size_t)ENTRIES * sizeof(J));                                                  \
        if (!table || !tj) {                                                                          \
            free(table);                                                                              \
            free(tj);                                                                                 \
            return CUZK_ERR_NO_MEMORY;                                                                \
        }                                                                                             \
        J base;                                                                                       \
        CUZK_CAT(SETUP_C, _##G##_generator)(&base);                                                   \
        for (int w = 0; w < WINDOWS; w++) {                                                           \
            tj[0] = base;                                                                             \
            for (int d = 1; d < ENTRIES; d++)                                                         \
                CUZK_CAT(SETUP_C, _##G##_add_var)(&tj[d], &tj[d - 1], &base);                         \
            CUZK_CAT(SETUP_C, _##G##_batch_to_affine_var)(table + (size_t)w * ENTRIES, tj, ENTRIES);  \
            for (int k = 0; k < 8; k++)                                                               \
                CUZK_CAT(SETUP_C, _##G##_double)(&base, &base);                                       \
        }                                                                                             \
        free(tj);                                                                                     \
        _Pragma("omp parallel for schedule(dynamic) num_threads(threads)")                           \
        for (size_t b = 0; b < count; b += CH) {                                                      \
            size_t m = count - b < CH ? count - b : CH;                                               \
            J acc[CH];                                                                                \
            GA aff[CH];                                                                               \
            for (size_t i = 0; i < m; i++) {                                                          \
                const limb_t *k = scalars + 4 * (b + i);                                              \
                CUZK_CAT(SETUP_C, _##G##_set_infinity)(&acc[i]);                                      \
                for (int w = 0; w < WINDOWS; w++) {                                                   \
                    unsigned d = (unsigned)(k[w / 8] >> (8 * (w % 8))) & 0xff;                        \
                    if (d)                                                                            \
                        CUZK_CAT(SETUP_C, _##G##_add_affine_var)(&acc[i], &acc[i],                    \
                                                                 &table[(size_t)w * ENTRIES + d - 1]); \
                }                                                                                     \
            }                                                                                         \
            CUZK_CAT(SETUP_C, _##G##_batch_to_affine_var)(aff, acc, m);                               \
            memcpy(out + b * sizeof(GA), aff, m * sizeof(GA));                                        \
        }                                                                                             \
        free(table);                                                                                  \
        return CUZK_OK;                                                                               \
    }
ST_DEFINE_FIXED_BASE(g1, ST_G1A)
ST_DEFINE_FIXED_BASE(g2, ST_G2A)
#undef ST_DEFINE_FIXED_BASE

CUZK_INLINE void ST_(fr_load)(ST_FR *r, const unsigned char *plain)
{
    limb_t t[4];
    memcpy(t, plain, 32);
    ST_(fr_from_raw)(r, t);
}

/* L_k(tau) for the size-m domain with root w (bellperson's or snarkjs's:
 * src/ntt/ntt_impl.h), for k in [start, start + count) with step `step` in
 * the exponent: w^(k step) (tau^m - 1) / (m (tau - w^(k step)) ) (times
 * `scale`), one batched inversion. */
CUZK_INLINE int ST_(lagrange_at)(ST_FR *out, const ST_FR *tau, unsigned log_m, int bellperson, size_t first,
                                 size_t step, size_t count, const ST_FR *scale)
{
    ST_FR w, num, t;
    size_t m = (size_t)1 << log_m;
    CUZK_CAT(SETUP_C, _fr_ntt_root)(&w, log_m, bellperson);
    limb_t e[1] = {m};
    ST_(fr_pow)(&num, tau, e, 64); /* tau^m - 1, over m, times scale */
    ST_FR one;
    ST_(fr_one)(&one);
    ST_(fr_sub)(&num, &num, &one);
    if (ST_(fr_is_zero)(&num)) /* tau is an m-th root of unity: probability m / r */
        return CUZK_ERR_INTERNAL;
    ST_(fr_from_u64)(&t, m);
    ST_(fr_inv_var)(&t, &t);
    ST_(fr_mul)(&num, &num, &t);
    ST_(fr_mul)(&num, &num, scale);
    /* in ranges, one a thread, each with its own starting power and
     * batched inversion */
    ST_FR wstep;
    limb_t st[1] = {step};
    ST_(fr_pow)(&wstep, &w, st, 64);
    int parts = count >= ((size_t)1 << 14) ? omp_get_max_threads() : 1;
    int failed = 0;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
    for (int part = 0; part < parts; part++) {
        size_t i0 = count * (size_t)part / (size_t)parts, i1 = count * (size_t)(part + 1) / (size_t)parts;
        size_t len = i1 - i0;
        ST_FR *d = malloc((len ? len : 1) * sizeof(ST_FR)), *inv = malloc((len ? len : 1) * sizeof(ST_FR));
        if (!d || !inv) {
            free(d);
            free(inv);
#pragma omp atomic write
            failed = 1;
            continue;
        }
        ST_FR wk;
        limb_t k0[1] = {(limb_t)(first + i0 * step)};
        ST_(fr_pow)(&wk, &w, k0, 64);
        for (size_t i = 0; i < len; i++) { /* out = w^k for now */
            out[i0 + i] = wk;
            ST_(fr_sub)(&d[i], tau, &wk);
            ST_(fr_mul)(&wk, &wk, &wstep);
        }
        ST_(fr_batch_inv_var)(inv, d, len); /* tau is random: never a root of unity (checked by the driver) */
        for (size_t i = 0; i < len; i++) {
            ST_(fr_mul)(&out[i0 + i], &out[i0 + i], &inv[i]);
            ST_(fr_mul)(&out[i0 + i], &out[i0 + i], &num);
        }
        free(d);
        free(inv);
    }
    return failed ? CUZK_ERR_NO_MEMORY : CUZK_OK;
}

CUZK_INLINE unsigned ST_(log2)(size_t n)
{
    unsigned l = 0;
    while (((size_t)1 << l) < n)
        l++;
    return l;
}

/* One chunk's terms of matrix `which` (0 A, 1 B, 2 C) into its sums:
 * dst[wire] += coef L[row]. */
CUZK_INLINE void ST_(accumulate)(ST_FR *dst, const unsigned char *p, uint32_t row0, uint32_t n, int which,
                                 const ST_FR *L)
{
    for (uint32_t row = row0; row < row0 + n; row++)
        for (int m = 0; m < 3; m++) {
            uint32_t nt;
            memcpy(&nt, p, 4);
            p += 4;
            if (m != which) {
                p += (size_t)nt * 36;
                continue;
            }
            for (uint32_t t = 0; t < nt; t++, p += 36) {
                uint32_t s;
                ST_FR k;
                memcpy(&s, p, 4);
                ST_(fr_load)(&k, p + 4);
                ST_(fr_mul)(&k, &k, &L[row]);
                ST_(fr_add)(&dst[s], &dst[s], &k);
            }
        }
}

/* a_s = A_s(tau), b_s = B_s(tau), c_s = C_s(tau), with the public rows:
 * the rows read from the source a chunk at a time, each chunk's three
 * matrices summed by three threads (each matrix's sums are its own). */
CUZK_INLINE int ST_(random_scalars)(core_random_setup *st)
{
    size_t nv = st->n_vars, n = st->domain_size;
    ST_FR tau, one, *L = malloc(n * sizeof(ST_FR));
    ST_FR *a = calloc(nv, sizeof(ST_FR)), *b = calloc(nv, sizeof(ST_FR)), *c = calloc(nv, sizeof(ST_FR));
    source_buf buf = {0};
    if (!L || !a || !b || !c) {
        free(L);
        free(a);
        free(b);
        free(c);
        return CUZK_ERR_NO_MEMORY;
    }
    ST_(fr_load)(&tau, st->tau);
    ST_(fr_one)(&one);
    int rc = ST_(lagrange_at)(L, &tau, ST_(log2)(n), st->bellperson, 0, 1, n, &one);
    const circuit_source *src = st->source;
    uint32_t chunk = src->chunk_rows ? src->chunk_rows : 1;
    while (chunk < ST_SCALAR_ROWS)
        chunk *= 2;
    for (uint32_t row0 = 0; rc == CUZK_OK && row0 < st->n_constraints; row0 += chunk) {
        uint32_t m = st->n_constraints - row0 < chunk ? st->n_constraints - row0 : chunk;
        if ((rc = src->rows(src, row0, m, &buf)) != CUZK_OK)
            break;
#pragma omp parallel for num_threads(3) schedule(static, 1)
        for (int which = 0; which < 3; which++)
            ST_(accumulate)(which == 0 ? a : which == 1 ? b : c, buf.p, row0, m, which, L);
        if (st->progress)
            st->progress(st->progress_ctx, "evaluating the circuit at tau", (unsigned long long)row0 + m,
                         st->n_constraints);
    }
    if (rc == CUZK_OK)
        for (size_t s = 0; s <= st->n_public; s++)
            ST_(fr_add)(&a[s], &a[s], &L[st->n_constraints + s]);
    source_buf_free(&buf);
    free(L);
    st->a = (unsigned char *)a;
    st->b = (unsigned char *)b;
    st->c = (unsigned char *)c;
    return rc;
}

/* The scalars of points [start, start + count) of one section (not
 * SETUP_KIND_VK): k[i] (4 limbs, plain) such that point i = k[i] G. */
CUZK_INLINE int ST_(random_point_scalars)(const core_random_setup *st, int kind, size_t start, size_t count,
                                          limb_t *k)
{
    const int threads = st->threads > 0 ? st->threads : 1;
    ST_FR tau, alpha, beta, gamma, delta;
    ST_(fr_load)(&tau, st->tau);
    ST_(fr_load)(&alpha, st->alpha);
    ST_(fr_load)(&beta, st->beta);
    ST_(fr_load)(&gamma, st->gamma);
    ST_(fr_load)(&delta, st->delta);
    ST_FR *f = malloc((count ? count : 1) * sizeof(ST_FR));
    if (!f)
        return CUZK_ERR_NO_MEMORY;
    const ST_FR *a = (const ST_FR *)(const void *)st->a, *b = (const ST_FR *)(const void *)st->b,
                *c = (const ST_FR *)(const void *)st->c;
    int rc = CUZK_OK;
    if (kind == SETUP_KIND_H) {
        /* L^(2n)_(2j+1)(tau) / delta: the odd points of the 2n-domain */
        ST_FR dinv;
        ST_(fr_inv_var)(&dinv, &delta);
        rc = ST_(lagrange_at)(f, &tau, ST_(log2)(st->domain_size) + 1, 0, 2 * start + 1, 2, count, &dinv);
    } else if (kind == SETUP_KIND_H_MONOMIAL) {
        /* tau^i (tau^n - 1) / delta: bellperson's H, the monomial basis */
        ST_FR z, one, dinv;
        limb_t e[1] = {(limb_t)st->domain_size};
        ST_(fr_pow)(&z, &tau, e, 64);
        ST_(fr_one)(&one);
        ST_(fr_sub)(&z, &z, &one);
        ST_(fr_inv_var)(&dinv, &delta);
        ST_(fr_mul)(&z, &z, &dinv);
        /* in ranges, one a thread, each from its own power of tau */
        int parts = count >= 4096 ? threads : 1;
#pragma omp parallel for num_threads(parts) schedule(static, 1)
        for (int part = 0; part < parts; part++) {
            size_t i0 = count * (size_t)part / (size_t)parts, i1 = count * (size_t)(part + 1) / (size_t)parts;
            ST_FR q;
            limb_t s0[1] = {(limb_t)(start + i0)};
            ST_(fr_pow)(&q, &tau, s0, 64);
            for (size_t i = i0; i < i1; i++) {
                ST_(fr_mul)(&f[i], &q, &z);
                ST_(fr_mul)(&q, &q, &tau);
            }
        }
    } else if (kind == SETUP_KIND_IC || kind == SETUP_KIND_C) {
        /* (beta a + alpha b + c) / gamma (IC) or / delta (C, signals after the publics) */
        ST_FR inv;
        ST_(fr_inv_var)(&inv, kind == SETUP_KIND_IC ? &gamma : &delta);
        size_t off = kind == SETUP_KIND_C ? (size_t)st->n_public + 1 : 0;
#pragma omp parallel for num_threads(count >= 4096 ? threads : 1) schedule(static)
        for (size_t i = 0; i < count; i++) {
            ST_FR u;
            size_t s = off + start + i;
            ST_(fr_mul)(&f[i], &beta, &a[s]);
            ST_(fr_mul)(&u, &alpha, &b[s]);
            ST_(fr_add)(&f[i], &f[i], &u);
            ST_(fr_add)(&f[i], &f[i], &c[s]);
            ST_(fr_mul)(&f[i], &f[i], &inv);
        }
    } else {
        const ST_FR *src = kind == SETUP_KIND_A ? a : b;
        memcpy(f, src + start, count * sizeof(ST_FR));
    }
    if (rc == CUZK_OK) {
#pragma omp parallel for num_threads(count >= 4096 ? threads : 1) schedule(static)
        for (size_t i = 0; i < count; i++)
            ST_(fr_to_raw)(k + 4 * i, &f[i]);
    }
    free(f);
    return rc;
}

/* Points [start, start + count) of one section. */
CUZK_INLINE int ST_(random_points)(const core_random_setup *st, int kind, size_t start, size_t count,
                                   unsigned char *out)
{
    int threads = st->threads > 0 ? st->threads : 1;
    if (kind == SETUP_KIND_VK) {
        ST_FR alpha, beta, gamma, delta;
        ST_(fr_load)(&alpha, st->alpha);
        ST_(fr_load)(&beta, st->beta);
        ST_(fr_load)(&gamma, st->gamma);
        ST_(fr_load)(&delta, st->delta);
        limb_t k[6][4];
        ST_(fr_to_raw)(k[0], &alpha);
        ST_(fr_to_raw)(k[1], &beta);
        ST_(fr_to_raw)(k[2], &delta);
        ST_(fr_to_raw)(k[3], &beta);
        ST_(fr_to_raw)(k[4], &gamma);
        ST_(fr_to_raw)(k[5], &delta);
        size_t g1 = sizeof(ST_G1A), g2 = sizeof(ST_G2A);
        unsigned char p1[3 * sizeof(ST_G1A)], p2[3 * sizeof(ST_G2A)];
        int rc = ST_(g1_fixed_base_var)(p1, k[0], 3, 1); /* alpha, beta, delta in G1 */
        if (rc == CUZK_OK)
            rc = ST_(g2_fixed_base_var)(p2, k[3], 3, 1); /* beta, gamma, delta in G2 */
        /* the header's order: alpha1, beta1, beta2, gamma2, delta1, delta2 */
        memcpy(out, p1, 2 * g1);
        memcpy(out + 2 * g1, p2, 2 * g2);
        memcpy(out + 2 * g1 + 2 * g2, p1 + 2 * g1, g1);
        memcpy(out + 3 * g1 + 2 * g2, p2 + 2 * g2, g2);
        return rc;
    }
    limb_t *k = malloc((count ? count : 1) * 32);
    if (!k)
        return CUZK_ERR_NO_MEMORY;
    int rc = ST_(random_point_scalars)(st, kind, start, count, k);
    if (rc == CUZK_OK)
        rc = kind == SETUP_KIND_B2 ? ST_(g2_fixed_base_var)(out, k, count, threads) : ST_(g1_fixed_base_var)(out, k, count, threads);
    free(k);
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
