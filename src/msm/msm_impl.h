/* Multi-scalar multiplication on the CPU, stamped per group (G1 and G2 of
 * each curve). Public inputs only (_var throughout).
 *
 * Before including, define:
 *   MSM_G    the group prefix, e.g. bn254_g1
 *   MSM_F    its coordinate field prefix, e.g. bn254_fp (or _fp2)
 *
 * Bases are affine points in the .zkey layout (infinity = (0, 0)), used in
 * place; scalars are plain little-endian 256-bit integers below 2^255 (every
 * Fr value of both curves), also used in place. Both are byte pointers read
 * through memcpy, since sections of a mapped file need not be 8-byte
 * aligned. An optional index list picks which (base, scalar) pairs take
 * part, so the caller never copies points.
 *
 * Three pieces, which the prover and the GPU engine combine:
 *   classify     scalars into 0, 1 and the rest (the "tail");
 *   sum          points whose scalar is 1: a tree of affine additions whose
 *                slopes share one inversion per batch (about 6 field
 *                multiplications per point instead of 10 for a mixed add);
 *   pippenger    the tail: signed-digit windows, XYZZ buckets, one task per
 *                (window, chunk of points) spread over OpenMP threads.
 */

#define MS_(name) CUZK_CAT(MSM_G, _msm_##name)
#define MG_(name) CUZK_CAT(MSM_G, _##name)
#define MF_(name) CUZK_CAT(MSM_F, _##name)
#define MSM_AFF CUZK_CAT(MSM_G, _affine)
#define MSM_JAC CUZK_CAT(MSM_G, _jacobian)
#define MSM_XYZZ CUZK_CAT(MSM_G, _xyzz)

#ifndef CUZK_MSM_COMMON
#define CUZK_MSM_COMMON
/* Scalar classes, per witness value. */
enum { MSM_ZERO = 0, MSM_ONE = 1, MSM_OTHER = 2 };

CUZK_INLINE void msm_load_scalar(limb_t k[4], const unsigned char *scalars, size_t i)
{
    memcpy(k, scalars + 32 * i, 32);
}

CUZK_INLINE int msm_scalar_class(const unsigned char *scalars, size_t i)
{
    limb_t k[4];
    msm_load_scalar(k, scalars, i);
    limb_t hi = k[1] | k[2] | k[3];
    if (hi)
        return MSM_OTHER;
    return k[0] == 0 ? MSM_ZERO : k[0] == 1 ? MSM_ONE : MSM_OTHER;
}

/* Splits indices [first, first + n) by scalar class: ones[] and tail[] get
 * the indices (relative to `first`) of scalars 1 and of the others. */
CUZK_INLINE void msm_classify(const unsigned char *scalars, size_t first, size_t n, uint32_t *ones, size_t *n_ones,
                              uint32_t *tail, size_t *n_tail)
{
    size_t no = 0, nt = 0;
    for (size_t i = 0; i < n; i++) {
        int c = msm_scalar_class(scalars, first + i);
        if (c == MSM_ONE)
            ones[no++] = (uint32_t)i;
        else if (c == MSM_OTHER)
            tail[nt++] = (uint32_t)i;
    }
    *n_ones = no;
    *n_tail = nt;
}

/* Window size for n points: minimizes windows * (n + 1.5 * 2^(c-1)) (the
 * mixed additions into buckets plus about three full additions per bucket
 * in the reduction, which cost 1.5 mixed ones), c in [2, 18]. */
CUZK_INLINE unsigned msm_window_bits(size_t n)
{
    unsigned best = 2;
    double best_cost = 1e300;
    for (unsigned c = 2; c <= 18; c++) {
        double windows = (double)((257 + c - 1) / c);
        double cost = windows * ((double)n + 1.5 * (double)((size_t)1 << (c - 1)));
        if (cost < best_cost) {
            best_cost = cost;
            best = c;
        }
    }
    return best;
}

/* Signed digit of window w: with K' = k + sum_w 2^(c-1) 2^(cw), the digit is
 * window w of K' minus 2^(c-1), in [-2^(c-1), 2^(c-1)); no carry chain. */
CUZK_INLINE int msm_digit(const limb_t kp[5], unsigned w, unsigned c)
{
    size_t bit = (size_t)w * c;
    size_t limb = bit / 64, off = bit % 64;
    limb_t v = kp[limb] >> off;
    if (off + c > 64 && limb + 1 < 5)
        v |= kp[limb + 1] << (64 - off);
    return (int)(v & (((limb_t)1 << c) - 1)) - (1 << (c - 1));
}

CUZK_INLINE void msm_half_offsets(limb_t h[5], unsigned c, unsigned windows)
{
    memset(h, 0, 5 * sizeof(limb_t));
    for (unsigned w = 0; w < windows; w++) {
        size_t bit = (size_t)w * c + c - 1;
        if (bit < 320)
            h[bit / 64] |= (limb_t)1 << (bit % 64);
    }
}
#endif

CUZK_INLINE void MS_(load)(MSM_AFF *p, const unsigned char *pts, size_t i)
{
    memcpy(p, pts + i * sizeof(MSM_AFF), sizeof(MSM_AFF));
}

/* r = sum of pts[idx[i]] (or pts[i] without idx) for i < n. Infinity points
 * are skipped; equal and opposite points are handled. Uses 2 * ceil(n/2)
 * affine points of scratch memory; CUZK_ERR_NO_MEMORY if unavailable. */
CUZK_INLINE int MS_(sum)(MSM_JAC *r, const unsigned char *pts, const uint32_t *idx, size_t n)
{
    enum { BATCH = 1024 };
    MG_(set_infinity)(r);
    if (n == 0)
        return CUZK_OK;
    MSM_AFF *cur = malloc(n * sizeof(MSM_AFF)), *next = malloc((n / 2 + 1) * sizeof(MSM_AFF));
    if (!cur || !next) {
        free(cur);
        free(next);
        return CUZK_ERR_NO_MEMORY;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        MS_(load)(&cur[m], pts, idx ? idx[i] : i);
        m += !MG_(affine_is_infinity)(&cur[m]);
    }
    while (m > 1) {
        size_t pairs = m / 2, batches = (pairs + BATCH - 1) / BATCH;
#pragma omp parallel for schedule(dynamic) if (batches > 1)
        for (size_t bt = 0; bt < batches; bt++) {
            MSM_F den[BATCH], inv[BATCH];
            unsigned char kind[BATCH]; /* 0 add, 1 double, 2 result is infinity */
            size_t lo = bt * BATCH, hi = lo + BATCH < pairs ? lo + BATCH : pairs;
            for (size_t i = lo; i < hi; i++) {
                const MSM_AFF *p = &cur[2 * i], *q = &cur[2 * i + 1];
                MSM_F *d = &den[i - lo];
                if (!MF_(eq)(&p->x, &q->x)) {
                    kind[i - lo] = 0;
                    MF_(sub)(d, &q->x, &p->x);
                } else if (MF_(eq)(&p->y, &q->y) && !MF_(is_zero)(&p->y)) {
                    kind[i - lo] = 1;
                    MF_(dbl)(d, &p->y);
                } else {
                    kind[i - lo] = 2;
                    MF_(one)(d);
                }
            }
            MF_(batch_inv_var)(inv, den, hi - lo);
            for (size_t i = lo; i < hi; i++) {
                const MSM_AFF *p = &cur[2 * i], *q = &cur[2 * i + 1];
                MSM_AFF *o = &next[i];
                MSM_F lambda, t;
                if (kind[i - lo] == 2) {
                    MG_(affine_set_infinity)(o);
                    continue;
                }
                if (kind[i - lo] == 0) {
                    MF_(sub)(&lambda, &q->y, &p->y);
                } else {
                    MF_(sqr)(&lambda, &p->x);
                    MF_(dbl)(&t, &lambda);
                    MF_(add)(&lambda, &lambda, &t);
                }
                MF_(mul)(&lambda, &lambda, &inv[i - lo]);
                MF_(sqr)(&t, &lambda); /* x3 = lambda^2 - x1 - x2 */
                MF_(sub)(&t, &t, &p->x);
                MF_(sub)(&o->x, &t, &q->x);
                MF_(sub)(&t, &p->x, &o->x); /* y3 = lambda (x1 - x3) - y1 */
                MF_(mul)(&t, &lambda, &t);
                MF_(sub)(&o->y, &t, &p->y);
            }
        }
        /* compact: drop the infinities, carry an odd last point */
        size_t k = 0;
        for (size_t i = 0; i < pairs; i++)
            if (!MG_(affine_is_infinity)(&next[i]))
                cur[k++] = next[i];
        if (m & 1)
            cur[k++] = cur[m - 1];
        m = k;
    }
    if (m == 1)
        MG_(from_affine)(r, &cur[0]);
    free(cur);
    free(next);
    return CUZK_OK;
}

/* One task: window w of points [lo, hi) into 2^(c-1) buckets, reduced to
 * sum_d d * bucket_d. */
CUZK_INLINE void MS_(window_task)(MSM_XYZZ *out, MSM_XYZZ *buckets, const unsigned char *pts,
                                  const unsigned char *scalars,
                                  const uint32_t *idx, size_t lo, size_t hi, unsigned w, unsigned c,
                                  const limb_t half[5])
{
    size_t nb = (size_t)1 << (c - 1);
    for (size_t i = 0; i < nb; i++)
        MG_(xyzz_set_infinity)(&buckets[i]);
    for (size_t i = lo; i < hi; i++) {
        size_t j = idx ? idx[i] : i;
        limb_t kp[5], k[5] = {0};
        msm_load_scalar(k, scalars, j);
        bn_add(kp, k, half, 5);
        int d = msm_digit(kp, w, c);
        if (d == 0)
            continue;
        MSM_AFF p;
        MS_(load)(&p, pts, j);
        if (d < 0) {
            MF_(neg)(&p.y, &p.y);
            d = -d;
        }
        MG_(xyzz_add_affine_var)(&buckets[d - 1], &buckets[d - 1], &p);
    }
    /* sum_d d * B_d = sum over d of the running sums from the top */
    MSM_XYZZ running, total;
    MG_(xyzz_set_infinity)(&running);
    MG_(xyzz_set_infinity)(&total);
    for (size_t i = nb; i-- > 0;) {
        MG_(xyzz_add_var)(&running, &running, &buckets[i]);
        MG_(xyzz_add_var)(&total, &total, &running);
    }
    *out = total;
}

/* r = sum k_i P_i over the n selected pairs (all n pairs when idx is NULL).
 * CUZK_ERR_NO_MEMORY if the buckets cannot be allocated. */
CUZK_INLINE int MS_(pippenger)(MSM_JAC *r, const unsigned char *pts, const unsigned char *scalars,
                               const uint32_t *idx, size_t n, int threads)
{
    MG_(set_infinity)(r);
    if (n == 0)
        return CUZK_OK;
    if (threads < 1)
        threads = 1;
    unsigned c = msm_window_bits(n);
    unsigned windows = (257 + c - 1) / c;
    /* enough tasks for the threads: split the points when windows alone
     * would leave threads idle */
    size_t chunks = 1;
    while (chunks * windows < 2 * (size_t)threads && n / (chunks * 2) >= 1024)
        chunks *= 2;
    size_t tasks = chunks * windows, nb = (size_t)1 << (c - 1);
    limb_t half[5];
    msm_half_offsets(half, c, windows);
    MSM_XYZZ *partial = malloc(tasks * sizeof(MSM_XYZZ));
    if (!partial)
        return CUZK_ERR_NO_MEMORY;
    int failed = 0;
#pragma omp parallel num_threads(threads)
    {
        MSM_XYZZ *buckets = malloc(nb * sizeof(MSM_XYZZ));
        if (!buckets) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic)
        for (size_t t = 0; t < tasks; t++) {
            if (!buckets)
                continue;
            size_t w = t / chunks, ch = t % chunks;
            size_t lo = n * ch / chunks, hi = n * (ch + 1) / chunks;
            MS_(window_task)(&partial[t], buckets, pts, scalars, idx, lo, hi, (unsigned)w, c, half);
        }
        free(buckets);
    }
    if (failed) {
        free(partial);
        return CUZK_ERR_NO_MEMORY;
    }
    /* Horner over the windows, top down: acc = 2^c acc + S_w */
    MSM_XYZZ acc;
    MG_(xyzz_set_infinity)(&acc);
    for (size_t w = windows; w-- > 0;) {
        for (unsigned b = 0; b < c && !MG_(xyzz_is_infinity)(&acc); b++)
            MG_(xyzz_double)(&acc, &acc);
        for (size_t ch = 0; ch < chunks; ch++)
            MG_(xyzz_add_var)(&acc, &acc, &partial[w * chunks + ch]);
    }
    free(partial);
    if (MG_(xyzz_is_infinity)(&acc))
        MG_(set_infinity)(r);
    else
        MG_(xyzz_to_jacobian)(r, &acc);
    return CUZK_OK;
}

/* The straightforward reference: sum of k_i * P_i by double-and-add. For
 * tests of the fast paths. */
CUZK_INLINE void MS_(naive)(MSM_JAC *r, const unsigned char *pts, const unsigned char *scalars, size_t n)
{
    MG_(set_infinity)(r);
    for (size_t i = 0; i < n; i++) {
        MSM_JAC p, t;
        MSM_AFF a;
        limb_t k[4];
        MS_(load)(&a, pts, i);
        msm_load_scalar(k, scalars, i);
        MG_(from_affine)(&p, &a);
        MG_(mul_var)(&t, &p, k, 256);
        MG_(add_var)(r, r, &t);
    }
}

#undef MS_
#undef MG_
#undef MF_
#undef MSM_AFF
#undef MSM_JAC
#undef MSM_XYZZ
#undef MSM_G
#undef MSM_F
