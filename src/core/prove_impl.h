/* The Groth16 prover on the CPU, stamped per curve (notes/snarkjs-groth16-
 * formats.md §4 has the math; snarkjs and rapidsnark compute the same).
 *
 * Before including, define PROVE_C as the curve prefix (bls12_381, bn254).
 *
 * Phases (timed in core_prove_out.seconds):
 *   eval     a = A w, b = B w from the key's coefficient section (or as
 *            given: core_prove_in.eval_a), c = a o b
 *   ntt      a, b, c to the odd coset of the 2n-domain; h = a b - c
 *   msm_*    A, B1 (G1), B2 (G2), C (private signals) and H; A, B1, B2 and
 *            C split the witness into 0 / 1 / other: the 1s are summed by
 *            batched affine additions, Pippenger runs on the rest
 *   blind    A += alpha + r delta, B += beta + s delta,
 *            C += H + s A + r B1 - r s delta (constant time: r, s secret)
 * Every section pointer may be unaligned (a mapped file): reads go through
 * memcpy.
 */

#define PV_(name) CUZK_CAT(PROVE_C, _##name)
#define PV_FR CUZK_CAT(PROVE_C, _fr)
#define PV_G1 CUZK_CAT(PROVE_C, _g1_jacobian)
#define PV_G2 CUZK_CAT(PROVE_C, _g2_jacobian)
#define PV_G1A CUZK_CAT(PROVE_C, _g1_affine)
#define PV_G2A CUZK_CAT(PROVE_C, _g2_affine)

#ifndef CUZK_PROVE_COMMON
#define CUZK_PROVE_COMMON
#include "matrices.h"

/* The witness split, shared by the CPU and GPU provers: indices of values 1
 * and of values other than 0 and 1, over all n_vars (A, B1, B2) and, for C,
 * over the private signals only, relative to the first of them. */
CUZK_INLINE void groth16_classify_var(const core_prove_in *in, uint32_t *ones, size_t *n_ones, uint32_t *tail,
                                  size_t *n_tail, uint32_t *ones_c, size_t *n_ones_c, uint32_t *tail_c,
                                  size_t *n_tail_c)
{
    const uint32_t npub1 = in->n_public + 1;
    msm_classify_var(in->witness, 0, in->n_vars, ones, n_ones, tail, n_tail);
    size_t no = 0, nt = 0;
    for (size_t i = 0; i < *n_ones; i++)
        if (ones[i] >= npub1)
            ones_c[no++] = ones[i] - npub1;
    for (size_t i = 0; i < *n_tail; i++)
        if (tail[i] >= npub1)
            tail_c[nt++] = tail[i] - npub1;
    *n_ones_c = no;
    *n_tail_c = nt;
}

/* A bellperson key's A or B scalars: scalar k is the witness value of
 * variable vars[k] (the points are only those of the variables the
 * density lists). */
CUZK_INLINE void groth16_gather(unsigned char *out, const unsigned char *witness, const uint32_t *vars, size_t n)
{
#pragma omp parallel for schedule(static) num_threads(ntt_threads(n))
    for (size_t k = 0; k < n; k++)
        memcpy(out + 32 * k, witness + 32 * (size_t)vars[k], 32);
}
#endif

/* a = A w and b = B w from the key's matrices (src/core/matrices.h),
 * row by row: a table value times a plain witness value as a Montgomery
 * product gives (coef R^2) w / R = coef w R, the Montgomery form of
 * coef * w. Rows past the matrices' are left as they are (zero). */
CUZK_INLINE int PV_(eval_abc)(PV_FR *a, PV_FR *b, const core_prove_in *in, core_prove_out *out, int threads)
{
    (void)out;
    const cs_matrices *mat = in->mat;
    if (!mat)
        return CUZK_ERR_INVALID_ARGUMENT;
    /* no more threads than CUZK_NTT_MIN_WORK entries each (see ntt_threads) */
    uint64_t nnz = mat->m[0].nnz + mat->m[1].nnz;
    if (threads > 1 && nnz / CUZK_NTT_MIN_WORK < (uint64_t)threads)
        threads = nnz / CUZK_NTT_MIN_WORK > 1 ? (int)(nnz / CUZK_NTT_MIN_WORK) : 1;
    const unsigned char *tab = mat->table, *wit = in->witness;
    for (int k = 0; k < 2; k++) {
        const cs_matrix *mk = &mat->m[k];
        PV_FR *dst = k ? b : a;
        const uint32_t *ptr = mk->row_ptr, *col = mk->col, *coef = mk->coef;
#pragma omp parallel for schedule(dynamic, 4096) num_threads(threads)
        for (size_t r = 0; r < mat->rows; r++) {
            PV_FR acc, v, w;
            memset(&acc, 0, sizeof(acc));
            for (uint32_t e = ptr[r], end = ptr[r + 1]; e < end; e++) {
                memcpy(v.l, tab + 32 * (size_t)coef[e], 32);
                memcpy(w.l, wit + 32 * (size_t)col[e], 32);
                PV_(fr_mul)(&v, &v, &w);
                PV_(fr_add)(&acc, &acc, &v);
            }
            dst[r] = acc;
        }
    }
    return CUZK_OK;
}

/* n Montgomery Fr values (blst's layout) to plain ones; the first not
 * below r in *bad. */
CUZK_INLINE int PV_(fr_from_mont_n)(unsigned char *out, const unsigned char *mont, size_t n, int threads,
                                    size_t *bad)
{
    size_t first = SIZE_MAX;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
        PV_FR v;
        memcpy(v.l, mont + 32 * i, 32);
        if (!(PV_(fr_raw_is_canonical_mask)(v.l) & 1)) {
#pragma omp critical
            if (i < first)
                first = i;
            continue;
        }
        PV_(fr_to_raw)(v.l, &v);
        memcpy(out + 32 * i, v.l, 32);
    }
    *bad = first;
    return first == SIZE_MAX ? CUZK_OK : CUZK_ERR_NOT_CANONICAL;
}

/* n plain values below r to Montgomery form. */
CUZK_INLINE void PV_(fr_to_mont_n)(unsigned char *out, const unsigned char *plain, size_t n, int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t i = 0; i < n; i++) {
        PV_FR v;
        limb_t l[4];
        memcpy(l, plain + 32 * i, 32);
        PV_(fr_from_raw)(&v, l);
        memcpy(out + 32 * i, v.l, 32);
    }
}

/* out_k = a_k b_k (Montgomery Fr, element-wise; out may be a or b): C w
 * of a satisfied circuit, as supraseal-c2's ABI takes it (bench_supraseal
 * hands it to an implementation that reads it). */
CUZK_INLINE void PV_(fr_mul_n)(unsigned char *out, const unsigned char *a, const unsigned char *b, size_t n,
                               int threads)
{
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t k = 0; k < n; k++) {
        PV_FR x, y;
        memcpy(x.l, a + 32 * k, 32);
        memcpy(y.l, b + 32 * k, 32);
        PV_(fr_mul)(&x, &x, &y);
        memcpy(out + 32 * k, x.l, 32);
    }
}

/* The first constraint k with a_k b_k != c_k (or a value not below r),
 * else n. */
CUZK_INLINE size_t PV_(first_unsatisfied)(const unsigned char *a, const unsigned char *b, const unsigned char *c,
                                          size_t n, int threads)
{
    size_t first = n;
#pragma omp parallel for schedule(static) num_threads(threads)
    for (size_t k = 0; k < n; k++) {
        PV_FR x, y, z;
        memcpy(x.l, a + 32 * k, 32);
        memcpy(y.l, b + 32 * k, 32);
        memcpy(z.l, c + 32 * k, 32);
        int ok = PV_(fr_raw_is_canonical_mask)(x.l) & PV_(fr_raw_is_canonical_mask)(y.l) &
                 PV_(fr_raw_is_canonical_mask)(z.l) & 1;
        if (ok) {
            PV_(fr_mul)(&x, &x, &y);
            ok = memcmp(x.l, z.l, sizeof(x.l)) == 0;
        }
        if (!ok) {
#pragma omp critical
            if (k < first)
                first = k;
        }
    }
    return first;
}

/* G1 MSM over the witness split: sum of the 1s plus Pippenger on the rest.
 * `first` is the witness index of base 0 (C's bases start after the
 * publics). */
CUZK_INLINE int PV_(msm_g1_split)(PV_G1 *r, const unsigned char *pts, const unsigned char *scalars,
                                  const uint32_t *ones, size_t n_ones, const uint32_t *tail, size_t n_tail,
                                  int threads)
{
    PV_G1 s, t;
    int rc = PV_(g1_msm_sum_var)(&s, pts, ones, n_ones);
    if (rc == CUZK_OK)
        rc = PV_(g1_msm_pippenger_var)(&t, pts, scalars, tail, n_tail, threads);
    if (rc == CUZK_OK)
        PV_(g1_add_var)(r, &s, &t);
    return rc;
}

/* The proof from the MSM results: A = pi_A + alpha + r delta,
 * B = pi_B + beta + s delta, C = pi_C + H + s A + r B1 - r s delta, in
 * constant time (r and s are the proof's secrets). */
CUZK_INLINE void PV_(blind)(const core_prove_in *in, const PV_G1 *pa, const PV_G1 *pb1, const PV_G2 *pb2,
                            const PV_G1 *pc, const PV_G1 *ph, core_prove_out *out)
{
    PV_G1A alpha1, beta1, delta1, aff;
    PV_G2A beta2, delta2, aff2;
    PV_G1 t, A, B1, C, d1;
    PV_G2 T, B, d2;
    limb_t r[4], s[4], rs[4];
    PV_FR fr, fs, frs;
    memcpy(&alpha1, in->alpha1, sizeof(alpha1));
    memcpy(&beta1, in->beta1, sizeof(beta1));
    memcpy(&delta1, in->delta1, sizeof(delta1));
    memcpy(&beta2, in->beta2, sizeof(beta2));
    memcpy(&delta2, in->delta2, sizeof(delta2));
    memcpy(r, in->r, 32);
    memcpy(s, in->s, 32);
    PV_(fr_from_raw)(&fr, r);
    PV_(fr_from_raw)(&fs, s);
    PV_(fr_mul)(&frs, &fr, &fs);
    PV_(fr_to_raw)(rs, &frs);
    PV_(g1_from_affine)(&d1, &delta1);
    PV_(g2_from_affine)(&d2, &delta2);
    /* A = pi_A + alpha + r delta */
    PV_(g1_from_affine)(&t, &alpha1);
    PV_(g1_add)(&A, pa, &t);
    PV_(g1_mul)(&t, &d1, r, 256);
    PV_(g1_add)(&A, &A, &t);
    /* B = pi_B + beta + s delta (G2), B1 the same in G1 */
    PV_(g2_from_affine)(&T, &beta2);
    PV_(g2_add)(&B, pb2, &T);
    PV_(g2_mul)(&T, &d2, s, 256);
    PV_(g2_add)(&B, &B, &T);
    PV_(g1_from_affine)(&t, &beta1);
    PV_(g1_add)(&B1, pb1, &t);
    PV_(g1_mul)(&t, &d1, s, 256);
    PV_(g1_add)(&B1, &B1, &t);
    /* C = pi_C + H + s A + r B1 - r s delta */
    PV_(g1_add)(&C, pc, ph);
    PV_(g1_mul)(&t, &A, s, 256);
    PV_(g1_add)(&C, &C, &t);
    PV_(g1_mul)(&t, &B1, r, 256);
    PV_(g1_add)(&C, &C, &t);
    PV_(g1_mul)(&t, &d1, rs, 256);
    PV_(g1_neg)(&t, &t);
    PV_(g1_add)(&C, &C, &t);
    PV_(g1_to_affine)(&aff, &A);
    memcpy(out->a, &aff, sizeof(aff));
    PV_(g1_to_affine)(&aff, &C);
    memcpy(out->c, &aff, sizeof(aff));
    PV_(g2_to_affine)(&aff2, &B);
    memcpy(out->b, &aff2, sizeof(aff2));
    cuzk_memzero(r, sizeof(r));
    cuzk_memzero(s, sizeof(s));
    cuzk_memzero(rs, sizeof(rs));
    cuzk_memzero(&fr, sizeof(fr));
    cuzk_memzero(&fs, sizeof(fs));
    cuzk_memzero(&frs, sizeof(frs));
}

/* The same from affine MSM results in the .zkey layout (the GPU's). */
CUZK_INLINE void PV_(blind_affine)(const core_prove_in *in, const core_msm_results *m, core_prove_out *out)
{
    PV_G1A a1;
    PV_G2A a2;
    PV_G1 pa, pb1, pc, ph;
    PV_G2 pb2;
    memcpy(&a1, m->a, sizeof(a1));
    PV_(g1_from_affine)(&pa, &a1);
    memcpy(&a1, m->b1, sizeof(a1));
    PV_(g1_from_affine)(&pb1, &a1);
    memcpy(&a1, m->c, sizeof(a1));
    PV_(g1_from_affine)(&pc, &a1);
    memcpy(&a1, m->h, sizeof(a1));
    PV_(g1_from_affine)(&ph, &a1);
    memcpy(&a2, m->b2, sizeof(a2));
    PV_(g2_from_affine)(&pb2, &a2);
    PV_(blind)(in, &pa, &pb1, &pb2, &pc, &ph, out);
}

/* H's scalars from the evaluations of a b - c on the odd coset (a): as
 * plain integers, in place. snarkjs's H points are the odd coset's
 * Lagrange basis: the evaluations themselves. bellperson's are the monomial
 * basis (tau^i Z(tau) / delta): the quotient's coefficients, (a b - c) / Z
 * brought back from the coset, Z = -2 there. Both are H's seven transforms
 * (bellperson's and supraseal's use the coset of 7; the coefficients do
 * not depend on the coset). */
CUZK_INLINE void PV_(h_scalars)(PV_FR *a, const CUZK_CAT(PROVE_C, _fr_ntt_domain) *dom, int monomial)
{
    size_t n = dom->n;
    if (monomial) {
        PV_FR f;
        PV_(fr_from_u64)(&f, 2);
        PV_(fr_inv_var)(&f, &f);
        PV_(fr_neg)(&f, &f); /* 1 / Z = -1/2 */
        PV_(fr_ntt_odd_coset_to_coefficients)(a, dom, &f);
    }
#pragma omp parallel for schedule(static) num_threads(ntt_threads(n))
    for (size_t i = 0; i < n; i++)
        PV_(fr_to_raw)(a[i].l, &a[i]);
}

CUZK_INLINE int PV_(groth16_prove)(const core_prove_in *in, core_prove_out *out)
{
    int threads = in->threads > 0 ? in->threads : 1;
    size_t n = in->domain_size, nv = in->n_vars, npub1 = (size_t)in->n_public + 1;
    const int bellperson = in->a_vars != NULL;
    const size_t n_a = bellperson ? in->n_a : nv, n_b = bellperson ? in->n_b : nv, n_h = bellperson ? n - 1 : n;
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < n)
        log_n++;
    double t0 = cuzk_now();
    int rc = CUZK_OK;
    PV_FR *a = calloc(n, sizeof(PV_FR)), *b = calloc(n, sizeof(PV_FR)), *c = malloc(n * sizeof(PV_FR));
    uint32_t *ones = malloc(nv * sizeof(uint32_t)), *tail = malloc(nv * sizeof(uint32_t));
    uint32_t *ones_c = malloc(nv * sizeof(uint32_t)), *tail_c = malloc(nv * sizeof(uint32_t));
    /* bellperson: A's and B's scalars gathered, B's split apart from A's */
    unsigned char *sa = bellperson ? malloc(n_a * 32 + 1) : NULL, *sb = bellperson ? malloc(n_b * 32 + 1) : NULL;
    uint32_t *ones_b = bellperson ? malloc(n_b * sizeof(uint32_t) + 1) : ones;
    uint32_t *tail_b = bellperson ? malloc(n_b * sizeof(uint32_t) + 1) : tail;
    CUZK_CAT(PROVE_C, _fr_ntt_domain) dom = {0};
    if (!a || !b || !c || !ones || !tail || !ones_c || !tail_c || !ones_b || !tail_b ||
        (bellperson && (!sa || !sb))) {
        rc = CUZK_ERR_NO_MEMORY;
        goto done;
    }
    omp_set_num_threads(threads);

    /* eval (or the evaluations given) */
    if (in->eval_a) {
        memcpy(a, in->eval_a, in->n_eval * sizeof(PV_FR));
        memcpy(b, in->eval_b, in->n_eval * sizeof(PV_FR));
    } else if ((rc = PV_(eval_abc)(a, b, in, out, threads)) != CUZK_OK)
        goto done;
#pragma omp parallel for schedule(static) num_threads(ntt_threads(n))
    for (size_t i = 0; i < n; i++)
        PV_(fr_mul)(&c[i], &a[i], &b[i]);
    double t1 = cuzk_now();
    out->seconds[PROOF_PHASE_EVAL] = t1 - t0;
    if (in->cancel && atomic_load(in->cancel)) {
        rc = CUZK_ERR_CANCELLED;
        goto done;
    }

    /* ntt: to the odd coset, then h = a b - c in plain form (the H MSM's
     * scalars) */
    if ((rc = PV_(fr_ntt_domain_init)(&dom, log_n, bellperson)) != CUZK_OK)
        goto done;
    PV_(fr_ntt_to_odd_coset)(a, &dom);
    PV_(fr_ntt_to_odd_coset)(b, &dom);
    PV_(fr_ntt_to_odd_coset)(c, &dom);
#pragma omp parallel for schedule(static) num_threads(ntt_threads(n))
    for (size_t i = 0; i < n; i++) {
        PV_(fr_mul)(&a[i], &a[i], &b[i]);
        PV_(fr_sub)(&a[i], &a[i], &c[i]);
    }
    PV_(h_scalars)(a, &dom, bellperson);
    double t2 = cuzk_now();
    out->seconds[PROOF_PHASE_NTT] = t2 - t1;
    if (in->cancel && atomic_load(in->cancel)) {
        rc = CUZK_ERR_CANCELLED;
        goto done;
    }

    /* msm: classify once for A, B1, B2; C uses the same lists past the
     * publics, shifted */
    size_t n_ones, n_tail, n_ones_c, n_tail_c, n_ones_b, n_tail_b;
    const unsigned char *wa = in->witness, *wb = in->witness; /* A's and B's scalars */
    if (bellperson) {
        groth16_gather(sa, in->witness, in->a_vars, n_a);
        groth16_gather(sb, in->witness, in->b_vars, n_b);
        wa = sa, wb = sb;
        msm_classify_var(sa, 0, n_a, ones, &n_ones, tail, &n_tail);
        msm_classify_var(sb, 0, n_b, ones_b, &n_ones_b, tail_b, &n_tail_b);
        msm_classify_var(in->witness, npub1, nv - npub1, ones_c, &n_ones_c, tail_c, &n_tail_c);
    } else {
        groth16_classify_var(in, ones, &n_ones, tail, &n_tail, ones_c, &n_ones_c, tail_c, &n_tail_c);
        n_ones_b = n_ones, n_tail_b = n_tail;
    }
    out->n_ones = n_ones;
    out->n_tail = n_tail;
    PV_G1 pa, pb1, pc, ph;
    PV_G2 pb2, s2, t2g;
    double tm = cuzk_now();
    if ((rc = PV_(msm_g1_split)(&pa, in->pts_a, wa, ones, n_ones, tail, n_tail, threads)) != CUZK_OK)
        goto done;
    out->seconds[PROOF_PHASE_MSM_A] = cuzk_now() - tm;
    if (in->cancel && atomic_load(in->cancel)) {
        rc = CUZK_ERR_CANCELLED;
        goto done;
    }
    tm = cuzk_now();
    if ((rc = PV_(msm_g1_split)(&pb1, in->pts_b1, wb, ones_b, n_ones_b, tail_b, n_tail_b, threads)) != CUZK_OK)
        goto done;
    out->seconds[PROOF_PHASE_MSM_B1] = cuzk_now() - tm;
    if (in->cancel && atomic_load(in->cancel)) {
        rc = CUZK_ERR_CANCELLED;
        goto done;
    }
    tm = cuzk_now();
    if ((rc = PV_(g2_msm_sum_var)(&s2, in->pts_b2, ones_b, n_ones_b)) != CUZK_OK ||
        (rc = PV_(g2_msm_pippenger_var)(&t2g, in->pts_b2, wb, tail_b, n_tail_b, threads)) != CUZK_OK)
        goto done;
    PV_(g2_add_var)(&pb2, &s2, &t2g);
    out->seconds[PROOF_PHASE_MSM_B2] = cuzk_now() - tm;
    if (in->cancel && atomic_load(in->cancel)) {
        rc = CUZK_ERR_CANCELLED;
        goto done;
    }
    tm = cuzk_now();
    if ((rc = PV_(msm_g1_split)(&pc, in->pts_c, in->witness + 32 * npub1, ones_c, n_ones_c, tail_c, n_tail_c,
                                threads)) != CUZK_OK)
        goto done;
    out->seconds[PROOF_PHASE_MSM_C] = cuzk_now() - tm;
    if (in->cancel && atomic_load(in->cancel)) {
        rc = CUZK_ERR_CANCELLED;
        goto done;
    }
    tm = cuzk_now();
    if ((rc = PV_(g1_msm_pippenger_var)(&ph, in->pts_h, (const unsigned char *)a, NULL, n_h, threads)) != CUZK_OK)
        goto done;
    out->seconds[PROOF_PHASE_MSM_H] = cuzk_now() - tm;

    /* blind, in constant time: r and s are the proof's secrets */
    tm = cuzk_now();
    PV_(blind)(in, &pa, &pb1, &pb2, &pc, &ph, out);
    out->seconds[PROOF_PHASE_BLIND] = cuzk_now() - tm;

done:
    PV_(fr_ntt_domain_free)(&dom);
    free(a);
    free(b);
    free(c);
    free(ones);
    free(tail);
    free(ones_c);
    free(tail_c);
    if (bellperson) {
        free(sa);
        free(sb);
        free(ones_b);
        free(tail_b);
    }
    return rc;
}

#undef PV_
#undef PV_FR
#undef PV_G1
#undef PV_G2
#undef PV_G1A
#undef PV_G2A
#undef PROVE_C
