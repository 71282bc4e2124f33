/* Number-theoretic transforms over a scalar field, stamped per field
 * (bls12_381_fr, bn254_fr).
 *
 * Before including, define:
 *   NTT_FR  the field prefix, e.g. bn254_fr
 *   NTT_C   its constant prefix, e.g. BN254_FR (for TWO_ADICITY,
 *           ROOT_OF_UNITY, the 2^s-th root from generator 5 as snarkjs uses,
 *           and ROOT_OF_UNITY_7, from 7 as bellperson does)
 *
 * A domain's root follows its key's convention: a .zkey's rows are the
 * powers of snarkjs's root, a .params key's those of bellperson's (the
 * same points in another order); the transforms are the same either way. 
 *
 * Two butterflies cover every use without a bit-reversal pass:
 *   dif: natural order in, bit-reversed out (Gentleman-Sande);
 *   dit: bit-reversed in, natural order out (Cooley-Tukey).
 * The prover's step "evaluations on the n-domain -> evaluations on the odd
 * coset of the 2n-domain" (notes/snarkjs-groth16-formats.md §4, step 2) is
 *   dif with w^-1  (bit-reversed coefficients times n),
 *   times t[j] = inc^bitrev(j) / n  (inc = w_2n: the coset shift, and 1/n),
 *   dit with w     (natural-order evaluations at inc w^k),
 * each stage a parallel loop over its n/2 butterflies (OpenMP).
 */

#define NT_(name) CUZK_CAT(NTT_FR, _ntt_##name)
#define NF_(name) CUZK_CAT(NTT_FR, _##name)
#define NTT_DOMAIN CUZK_CAT(NTT_FR, _ntt_domain)

typedef struct {
    unsigned log_n;
    size_t n;
    int bellperson; /* the root: bellperson's (7) or snarkjs's (5) */
    NTT_FR *tw;    /* w^i, i < n/2, w a primitive n-th root of unity */
    NTT_FR *itw;   /* w^-i */
    NTT_FR *scale; /* inc^bitrev(j) / n, j < n */
} NTT_DOMAIN;

/* The primitive 2^log_n-th root of unity of a key's convention: snarkjs's
 * 5^((r-1)/2^log_n), or with bellperson 7^((r-1)/2^log_n). */
CUZK_INLINE void NT_(root)(NTT_FR *w, unsigned log_n, int bellperson)
{
    static const NTT_FR root5 = {CUZK_CAT(NTT_C, _ROOT_OF_UNITY)}, root7 = {CUZK_CAT(NTT_C, _ROOT_OF_UNITY_7)};
    *w = bellperson ? root7 : root5;
    for (unsigned i = log_n; i < CUZK_CAT(NTT_C, _TWO_ADICITY); i++)
        NF_(sqr)(w, w);
}

/* Where bellperson's row k (the point w7^k of a 2^log_n domain) is among
 * snarkjs's points (w5^j): j = k K mod 2^log_n, w5^K = w7 (K odd: a
 * permutation). A ptau's Lagrange basis is snarkjs's, so a .params key set
 * up from one takes row k's from there. */
CUZK_INLINE size_t NT_(bellperson_index)(size_t k, unsigned log_n)
{
    return (size_t)(((uint64_t)k * CUZK_CAT(NTT_C, _ROOT_7_LOG5)) & (((uint64_t)1 << log_n) - 1));
}

CUZK_INLINE size_t NT_(bitrev)(size_t x, unsigned log_n)
{
    size_t r = 0;
    for (unsigned i = 0; i < log_n; i++, x >>= 1)
        r = (r << 1) | (x & 1);
    return r;
}

CUZK_INLINE void NT_(domain_free)(NTT_DOMAIN *d)
{
    free(d->tw);
    free(d->itw);
    free(d->scale);
    memset(d, 0, sizeof(*d));
}

#ifndef CUZK_NTT_COMMON
#define CUZK_NTT_COMMON
/* Threads for a parallel loop of `items` butterflies (or pointwise
 * products): each thread gets CUZK_NTT_MIN_WORK of them at least, so small
 * transforms do not pay more for waking threads than they gain
 * (BENCHMARKS.md: a 2^15 prover on 16 cores). */
#ifndef CUZK_NTT_MIN_WORK
#define CUZK_NTT_MIN_WORK 2048
#endif
CUZK_INLINE int ntt_threads(size_t items)
{
    int t = omp_get_max_threads();
    size_t cap = items / CUZK_NTT_MIN_WORK;
    if (cap < 1)
        cap = 1;
    return (size_t)t < cap ? t : (int)cap;
}
#endif

/* out[i] = first * base^i for i < count (at index bitrev(i) when
 * bitrev_log is non-zero), the threads each from a power of its own: a
 * serial table of 2^20 entries took about as long as an odd-coset
 * transform on 16 threads (docs/history/benchmarks-log.md, "The NTT's
 * tables built by the threads"). */
CUZK_INLINE void NT_(powers)(NTT_FR *out, const NTT_FR *base, const NTT_FR *first, size_t count, unsigned bitrev_log)
{
#pragma omp parallel num_threads(ntt_threads(count))
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t lo = count * t / nt, hi = count * (t + 1) / nt;
        limb_t e = lo;
        NTT_FR p;
        NF_(pow)(&p, base, &e, 64);
        NF_(mul)(&p, &p, first);
        for (size_t i = lo; i < hi; i++) {
            out[bitrev_log ? NT_(bitrev)(i, bitrev_log) : i] = p;
            NF_(mul)(&p, &p, base);
        }
    }
}

/* Twiddles and coset scale for n = 2^log_n, 1 <= log_n < two-adicity (the
 * coset needs a 2n-th root), with the root of a key's convention. */
CUZK_INLINE int NT_(domain_init)(NTT_DOMAIN *d, unsigned log_n, int bellperson)
{
    memset(d, 0, sizeof(*d));
    if (log_n < 1 || log_n >= CUZK_CAT(NTT_C, _TWO_ADICITY))
        return CUZK_ERR_UNSUPPORTED;
    size_t n = (size_t)1 << log_n;
    d->log_n = log_n;
    d->bellperson = bellperson;
    d->n = n;
    d->tw = malloc(n / 2 * sizeof(NTT_FR));
    d->itw = malloc(n / 2 * sizeof(NTT_FR));
    d->scale = malloc(n * sizeof(NTT_FR));
    if (!d->tw || !d->itw || !d->scale) {
        NT_(domain_free)(d);
        return CUZK_ERR_NO_MEMORY;
    }
    NTT_FR w, wi, inc, ninv;
    NT_(root)(&w, log_n, bellperson);
    NF_(inv_var)(&wi, &w);
    NT_(root)(&inc, log_n + 1, bellperson);
    NF_(from_u64)(&ninv, n);
    NF_(inv_var)(&ninv, &ninv);
    NTT_FR one;
    NF_(one)(&one);
    NT_(powers)(d->tw, &w, &one, n / 2, 0);
    NT_(powers)(d->itw, &wi, &one, n / 2, 0);
    NT_(powers)(d->scale, &inc, &ninv, n, log_n);
    return CUZK_OK;
}

/* Gentleman-Sande: natural in, bit-reversed out. tw holds n/2 powers of
 * the root for size n (a smaller n' uses every (n/n')-th one). */
CUZK_INLINE void NT_(dif)(NTT_FR *a, unsigned log_n, const NTT_FR *tw, unsigned log_tw)
{
    size_t n = (size_t)1 << log_n;
    for (unsigned s = log_n; s > 0; s--) {
        size_t m = (size_t)1 << (s - 1); /* half the block */
        size_t stride = (size_t)1 << (log_tw - s);
#pragma omp parallel for schedule(static) num_threads(ntt_threads(n / 2))
        for (size_t b = 0; b < n / 2; b++) {
            size_t j = b & (m - 1), k = ((b >> (s - 1)) << s) + j;
            NTT_FR u = a[k], v = a[k + m];
            NF_(add)(&a[k], &u, &v);
            if (j == 0) { /* twiddle 1: every butterfly of the last stage, half of the one before, ... */
                NF_(sub)(&a[k + m], &u, &v);
                continue;
            }
            NF_(sub)(&v, &u, &v);
            NF_(mul)(&a[k + m], &v, &tw[j * stride]);
        }
    }
}

/* Cooley-Tukey: bit-reversed in, natural out. */
CUZK_INLINE void NT_(dit)(NTT_FR *a, unsigned log_n, const NTT_FR *tw, unsigned log_tw)
{
    size_t n = (size_t)1 << log_n;
    for (unsigned s = 1; s <= log_n; s++) {
        size_t m = (size_t)1 << (s - 1);
        size_t stride = (size_t)1 << (log_tw - s);
#pragma omp parallel for schedule(static) num_threads(ntt_threads(n / 2))
        for (size_t b = 0; b < n / 2; b++) {
            size_t j = b & (m - 1), k = ((b >> (s - 1)) << s) + j;
            NTT_FR u = a[k], v;
            if (j == 0) /* twiddle 1 */
                v = a[k + m];
            else
                NF_(mul)(&v, &a[k + m], &tw[j * stride]);
            NF_(add)(&a[k], &u, &v);
            NF_(sub)(&a[k + m], &u, &v);
        }
    }
}

/* Forward and inverse NTT in natural order (for tests and tools): two
 * passes plus a bit-reversal permutation. */
CUZK_INLINE void NT_(permute)(NTT_FR *a, unsigned log_n)
{
    size_t n = (size_t)1 << log_n;
    /* each swap is its pair's smaller index's: no two threads touch one element */
#pragma omp parallel for schedule(static) num_threads(ntt_threads(n))
    for (size_t i = 0; i < n; i++) {
        size_t j = NT_(bitrev)(i, log_n);
        if (i < j) {
            NTT_FR t = a[i];
            a[i] = a[j];
            a[j] = t;
        }
    }
}

CUZK_INLINE void NT_(forward)(NTT_FR *a, const NTT_DOMAIN *d)
{
    NT_(dif)(a, d->log_n, d->tw, d->log_n);
    NT_(permute)(a, d->log_n);
}

CUZK_INLINE void NT_(inverse)(NTT_FR *a, const NTT_DOMAIN *d)
{
    NTT_FR ninv;
    NF_(from_u64)(&ninv, d->n);
    NF_(inv_var)(&ninv, &ninv);
    NT_(dif)(a, d->log_n, d->itw, d->log_n);
    NT_(permute)(a, d->log_n);
    for (size_t i = 0; i < d->n; i++)
        NF_(mul)(&a[i], &a[i], &ninv);
}

/* a: evaluations on the n-domain (natural order) -> evaluations on the odd
 * coset inc * w^k of the same polynomial (natural order). */
CUZK_INLINE void NT_(to_odd_coset)(NTT_FR *a, const NTT_DOMAIN *d)
{
    NT_(dif)(a, d->log_n, d->itw, d->log_n);
#pragma omp parallel for schedule(static) num_threads(ntt_threads(d->n))
    for (size_t i = 0; i < d->n; i++)
        NF_(mul)(&a[i], &a[i], &d->scale[i]);
    NT_(dit)(a, d->log_n, d->tw, d->log_n);
}

/* The way back from the odd coset to coefficients: a holds the
 * evaluations at inc w^k (natural order) of a polynomial of degree < n;
 * out, in place, its coefficients times `factor` (natural order): c_i =
 * factor inc^-i / n sum_k a_k w^-ik. bellperson's H is the quotient's
 * coefficients (docs/filecoin.md §3.2); any coset disjoint from the domain
 * gives the same ones, and on this one Z is the constant -2. */
CUZK_INLINE void NT_(odd_coset_to_coefficients)(NTT_FR *a, const NTT_DOMAIN *d, const NTT_FR *factor)
{
    NTT_FR inc, inc_inv, ninv, first;
    NT_(root)(&inc, d->log_n + 1, d->bellperson);
    NF_(inv_var)(&inc_inv, &inc);
    NF_(from_u64)(&ninv, d->n);
    NF_(inv_var)(&ninv, &ninv);
    NF_(mul)(&first, factor, &ninv);
    NT_(dif)(a, d->log_n, d->itw, d->log_n); /* sum_k a_k w^-ik at bitrev(i) */
#pragma omp parallel num_threads(ntt_threads(d->n))
    {
        size_t nt = (size_t)omp_get_num_threads(), t = (size_t)omp_get_thread_num();
        size_t lo = d->n * t / nt, hi = d->n * (t + 1) / nt;
        limb_t e = lo;
        NTT_FR p;
        NF_(pow)(&p, &inc_inv, &e, 64);
        NF_(mul)(&p, &p, &first);
        for (size_t i = lo; i < hi; i++) {
            NTT_FR *x = &a[NT_(bitrev)(i, d->log_n)];
            NF_(mul)(x, x, &p);
            NF_(mul)(&p, &p, &inc_inv);
        }
    }
    NT_(permute)(a, d->log_n);
}

#undef NT_
#undef NF_
#undef NTT_DOMAIN
#undef NTT_FR
#undef NTT_C
