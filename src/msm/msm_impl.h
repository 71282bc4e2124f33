/* Multi-scalar multiplication on the CPU, stamped per group (G1 and G2 of
 * each curve). Variable time in the scalars, which are the witness (and
 * h): which points are summed, and every bucket index, depend on them —
 * _var throughout. docs/prover.md says what that reveals and why it is the
 * accepted trade (the blinding, r and s, never meets this code).
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
CUZK_INLINE void msm_classify_var(const unsigned char *scalars, size_t first, size_t n, uint32_t *ones, size_t *n_ones,
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
    /* 1.5: the bucket reduction's two additions per bucket cost about 1.5
     * bucket additions; bench_msm at 2^13-2^16 finds weights 1.5, 3 and 4.5
     * within noise of each other (BENCHMARKS.md). */
    const double weight = 1.5;
    for (unsigned c = 2; c <= 18; c++) {
        double windows = (double)((257 + c - 1) / c);
        double cost = windows * ((double)n + weight * (double)((size_t)1 << (c - 1)));
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

/* out[k] = in[2k] + in[2k + 1] for k < count, affine, with one batched
 * inversion for all the slopes; either side may be infinity, equal or
 * opposite. count <= MSM_PAIR_BATCH. */
#ifndef MSM_PAIR_BATCH
#define MSM_PAIR_BATCH 1024
#endif
CUZK_INLINE void MS_(add_pairs)(MSM_AFF *out, const MSM_AFF *in, size_t count)
{
    MSM_F den[MSM_PAIR_BATCH], inv[MSM_PAIR_BATCH];
    unsigned char kind[MSM_PAIR_BATCH]; /* 0 add, 1 double, 2 infinity, 3 copy left, 4 copy right */
    for (size_t k = 0; k < count; k++) {
        const MSM_AFF *p = &in[2 * k], *q = &in[2 * k + 1];
        MSM_F *d = &den[k];
        if (MG_(affine_is_infinity)(q)) {
            kind[k] = 3;
            MF_(one)(d);
        } else if (MG_(affine_is_infinity)(p)) {
            kind[k] = 4;
            MF_(one)(d);
        } else if (!MF_(eq)(&p->x, &q->x)) {
            kind[k] = 0;
            MF_(sub)(d, &q->x, &p->x);
        } else if (MF_(eq)(&p->y, &q->y) && !MF_(is_zero)(&p->y)) {
            kind[k] = 1;
            MF_(dbl)(d, &p->y);
        } else {
            kind[k] = 2;
            MF_(one)(d);
        }
    }
    if (count)
        MF_(batch_inv_nonzero_var)(inv, den, count); /* no zero: special cases use 1 */
    for (size_t k = 0; k < count; k++) {
        const MSM_AFF *p = &in[2 * k], *q = &in[2 * k + 1];
        MSM_AFF o;
        MSM_F lambda, t;
        switch (kind[k]) {
        case 2:
            MG_(affine_set_infinity)(&out[k]);
            continue;
        case 3:
            out[k] = *p;
            continue;
        case 4:
            out[k] = *q;
            continue;
        case 0:
            MF_(sub)(&lambda, &q->y, &p->y);
            break;
        default: /* doubling: lambda = 3 x^2 / 2y */
            MF_(sqr)(&lambda, &p->x);
            MF_(dbl)(&t, &lambda);
            MF_(add)(&lambda, &lambda, &t);
        }
        MF_(mul)(&lambda, &lambda, &inv[k]);
        MF_(sqr)(&t, &lambda); /* x3 = lambda^2 - x1 - x2 */
        MF_(sub)(&t, &t, &p->x);
        MF_(sub)(&o.x, &t, &q->x);
        MF_(sub)(&t, &p->x, &o.x); /* y3 = lambda (x1 - x3) - y1 */
        MF_(mul)(&t, &lambda, &t);
        MF_(sub)(&o.y, &t, &p->y);
        out[k] = o;
    }
}

/* r = sum of pts[idx[i]] (or pts[i] without idx) for i < n on the calling
 * thread: a tree of batched affine additions. Infinity points are skipped;
 * equal and opposite points are handled. Uses 2 * ceil(n/2) affine points
 * of scratch memory; CUZK_ERR_NO_MEMORY if unavailable. */
CUZK_INLINE int MS_(sum_serial_var)(MSM_JAC *r, const unsigned char *pts, const uint32_t *idx, size_t n)
{
    MG_(set_infinity)(r);
    if (n == 0)
        return CUZK_OK;
    MSM_AFF *cur = malloc((n + 1) * sizeof(MSM_AFF)), *next = malloc((n / 2 + 1) * sizeof(MSM_AFF));
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
        size_t pairs = m / 2;
        for (size_t lo = 0; lo < pairs; lo += MSM_PAIR_BATCH)
            MS_(add_pairs)(&next[lo], &cur[2 * lo], pairs - lo < MSM_PAIR_BATCH ? pairs - lo : MSM_PAIR_BATCH);
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

/* The same over the OpenMP threads: each sums a contiguous share of at
 * least MSM_SUM_MIN_SHARE points by itself, then the shares' sums are
 * added. (Before, the threads split each level of one tree: the levels
 * below MSM_PAIR_BATCH pairs and every compaction ran on one thread.) */
#ifndef MSM_SUM_MIN_SHARE
#define MSM_SUM_MIN_SHARE 1024
#endif
CUZK_INLINE int MS_(sum_var)(MSM_JAC *r, const unsigned char *pts, const uint32_t *idx, size_t n)
{
    size_t shares = (size_t)omp_get_max_threads();
    if (shares > n / MSM_SUM_MIN_SHARE)
        shares = n / MSM_SUM_MIN_SHARE;
    if (shares <= 1)
        return MS_(sum_serial_var)(r, pts, idx, n);
    MSM_JAC *part = malloc(shares * sizeof(MSM_JAC));
    if (!part)
        return CUZK_ERR_NO_MEMORY;
    int rc = CUZK_OK;
#pragma omp parallel for schedule(static) num_threads((int)shares)
    for (size_t t = 0; t < shares; t++) {
        size_t lo = n * t / shares, hi = n * (t + 1) / shares;
        const unsigned char *p = idx ? pts : pts + lo * sizeof(MSM_AFF);
        if (MS_(sum_serial_var)(&part[t], p, idx ? idx + lo : NULL, hi - lo) != CUZK_OK) {
#pragma omp atomic write
            rc = CUZK_ERR_NO_MEMORY;
        }
    }
    MG_(set_infinity)(r);
    for (size_t t = 0; rc == CUZK_OK && t < shares; t++)
        MG_(add_var)(r, r, &part[t]);
    free(part);
    return rc;
}

/* Scratch for one batch-affine window task over up to `cap` points. */
typedef struct {
    MSM_AFF *cur, *next, *fin; /* fin: each bucket's sum once it is down to one point */
    uint32_t *len, *off;
    int *digit;
} MS_(scratch);

CUZK_INLINE void MS_(scratch_free)(MS_(scratch) *s)
{
    free(s->cur);
    free(s->next);
    free(s->fin);
    free(s->len);
    free(s->off);
    free(s->digit);
    memset(s, 0, sizeof(*s));
}

CUZK_INLINE int MS_(scratch_alloc)(MS_(scratch) *s, size_t cap, size_t nb)
{
    memset(s, 0, sizeof(*s));
    s->cur = malloc((cap + nb) * sizeof(MSM_AFF));
    s->next = malloc((cap / 2 + nb) * sizeof(MSM_AFF));
    s->fin = malloc(nb * sizeof(MSM_AFF));
    s->len = malloc(nb * sizeof(uint32_t));
    s->off = malloc((nb + 1) * sizeof(uint32_t));
    s->digit = malloc(cap * sizeof(int));
    if (!s->cur || !s->next || !s->fin || !s->len || !s->off || !s->digit) {
        MS_(scratch_free)(s);
        return CUZK_ERR_NO_MEMORY;
    }
    return CUZK_OK;
}

/* One task, batch-affine: window w of points [lo, hi). The points are
 * sorted into their buckets (counting sort; negative digits store -P), each
 * bucket padded to an even length with infinity; then rounds of pairwise
 * affine additions, all buckets' pairs sharing one inversion per batch,
 * halve every bucket until each holds one point. About 6 multiplications per
 * point, against 10 for an XYZZ mixed addition. Then sum_d d * bucket_d by
 * running sums. */
CUZK_INLINE void MS_(window_task_affine)(MSM_XYZZ *out, MS_(scratch) *s, const unsigned char *pts,
                                         const unsigned char *scalars, const uint32_t *idx, size_t lo, size_t hi,
                                         unsigned w, unsigned c, const limb_t half[5])
{
    size_t nb = (size_t)1 << (c - 1), m = hi - lo;
    memset(s->len, 0, nb * sizeof(uint32_t));
    for (size_t i = 0; i < m; i++) {
        size_t j = idx ? idx[lo + i] : lo + i;
        limb_t kp[5], k[5] = {0};
        msm_load_scalar(k, scalars, j);
        bn_add(kp, k, half, 5);
        int d = msm_digit(kp, w, c);
        s->digit[i] = d;
        if (d)
            s->len[(d > 0 ? d : -d) - 1]++;
    }
    /* Buckets are contiguous and of even length, padded with infinity, so
     * that pairs (2k, 2k + 1) never straddle two buckets; a bucket down to
     * one point moves to fin[] and leaves the arrays. */
    uint32_t total = 0;
    for (size_t b = 0; b < nb; b++) {
        MG_(affine_set_infinity)(&s->fin[b]);
        s->off[b] = total;
        if (s->len[b] >= 2) {
            total += s->len[b] + (s->len[b] & 1);
            if (s->len[b] & 1)
                MG_(affine_set_infinity)(&s->cur[total - 1]);
        }
    }
    for (size_t i = 0; i < m; i++) {
        int d = s->digit[i];
        if (!d)
            continue;
        size_t b = (size_t)(d > 0 ? d : -d) - 1, j = idx ? idx[lo + i] : lo + i;
        MSM_AFF *p = s->len[b] == 1 ? &s->fin[b] : &s->cur[s->off[b]++];
        MS_(load)(p, pts, j);
        if (d < 0)
            MF_(neg)(&p->y, &p->y);
    }
    for (size_t b = 0; b < nb; b++)
        s->len[b] = s->len[b] < 2 ? 0 : s->len[b] + (s->len[b] & 1);
    /* halve until every bucket is in fin[] */
    while (total > 0) {
        size_t pairs = total / 2;
        for (size_t k = 0; k < pairs; k += MSM_PAIR_BATCH)
            MS_(add_pairs)(&s->next[k], &s->cur[2 * k], pairs - k < MSM_PAIR_BATCH ? pairs - k : MSM_PAIR_BATCH);
        uint32_t pos = 0, src = 0;
        for (size_t b = 0; b < nb; b++) {
            uint32_t l = s->len[b] / 2;
            if (l == 1) {
                s->fin[b] = s->next[src];
                l = 0;
                src++;
            } else if (l > 1) {
                memmove(&s->cur[pos], &s->next[src], l * sizeof(MSM_AFF));
                src += l;
                pos += l;
                if (l & 1) {
                    MG_(affine_set_infinity)(&s->cur[pos++]);
                    l++;
                }
            }
            s->len[b] = l;
        }
        total = pos;
    }
    MSM_XYZZ running, sum;
    MG_(xyzz_set_infinity)(&running);
    MG_(xyzz_set_infinity)(&sum);
    for (size_t b = nb; b-- > 0;) {
        MG_(xyzz_add_affine_var)(&running, &running, &s->fin[b]);
        MG_(xyzz_add_var)(&sum, &sum, &running);
    }
    *out = sum;
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

#ifndef CUZK_MSM_MODES
#define CUZK_MSM_MODES
enum { MSM_AUTO, MSM_XYZZ_BUCKETS, MSM_AFFINE_BUCKETS };
#endif

/* r = sum k_i P_i over the n selected pairs (all n pairs when idx is NULL),
 * with `mode` choosing the bucket arithmetic (MSM_AUTO: batch-affine when a
 * task has enough points per bucket to amortize its inversions).
 * CUZK_ERR_NO_MEMORY if the buckets cannot be allocated. */
CUZK_INLINE int MS_(pippenger_mode_var)(MSM_JAC *r, const unsigned char *pts, const unsigned char *scalars,
                                    const uint32_t *idx, size_t n, int threads, int mode)
{
    MG_(set_infinity)(r);
    if (n == 0)
        return CUZK_OK;
    if (threads < 1)
        threads = 1;
    /* enough tasks for the threads: split the points when windows alone
     * would leave threads idle; each chunk has its own buckets, so the
     * window size is chosen for the points of one chunk */
    unsigned c = msm_window_bits(n), windows = (257 + c - 1) / c;
    size_t chunks = 1;
    while (chunks * windows < 2 * (size_t)threads && n / (chunks * 2) >= 1024) {
        chunks *= 2;
        c = msm_window_bits(n / chunks);
        windows = (257 + c - 1) / c;
    }
    size_t tasks = chunks * windows, nb = (size_t)1 << (c - 1), cap = (n + chunks - 1) / chunks;
    if (mode == MSM_AUTO) /* batch-affine pays once buckets average a few points (bench_msm) */
        mode = cap >= 4 * nb ? MSM_AFFINE_BUCKETS : MSM_XYZZ_BUCKETS;
    limb_t half[5];
    msm_half_offsets(half, c, windows);
    MSM_XYZZ *partial = malloc(tasks * sizeof(MSM_XYZZ));
    if (!partial)
        return CUZK_ERR_NO_MEMORY;
    int failed = 0;
#pragma omp parallel num_threads(threads)
    {
        MSM_XYZZ *buckets = NULL;
        MS_(scratch) scratch;
        memset(&scratch, 0, sizeof(scratch));
        int ok = mode == MSM_AFFINE_BUCKETS ? MS_(scratch_alloc)(&scratch, cap, nb) == CUZK_OK
                                            : (buckets = malloc(nb * sizeof(MSM_XYZZ))) != NULL;
        if (!ok) {
#pragma omp atomic write
            failed = 1;
        }
#pragma omp for schedule(dynamic)
        for (size_t t = 0; t < tasks; t++) {
            if (!ok)
                continue;
            size_t w = t / chunks, ch = t % chunks;
            size_t lo = n * ch / chunks, hi = n * (ch + 1) / chunks;
            if (mode == MSM_AFFINE_BUCKETS)
                MS_(window_task_affine)(&partial[t], &scratch, pts, scalars, idx, lo, hi, (unsigned)w, c, half);
            else
                MS_(window_task)(&partial[t], buckets, pts, scalars, idx, lo, hi, (unsigned)w, c, half);
        }
        free(buckets);
        MS_(scratch_free)(&scratch);
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

CUZK_INLINE int MS_(pippenger_var)(MSM_JAC *r, const unsigned char *pts, const unsigned char *scalars,
                               const uint32_t *idx, size_t n, int threads)
{
    return MS_(pippenger_mode_var)(r, pts, scalars, idx, n, threads, MSM_AUTO);
}

/* The straightforward reference: sum of k_i * P_i by double-and-add. For
 * tests of the fast paths. */
CUZK_INLINE void MS_(naive_var)(MSM_JAC *r, const unsigned char *pts, const unsigned char *scalars, size_t n)
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
