/* Poseidon (poseidon.h): neptune 11's constants derived, the optimized
 * hash, and its legacy circuit. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "poseidon.h"

#define FULL_ROUNDS 8
#define HALF 4
#define MAX_T 37

struct poseidon_consts {
    unsigned arity, t, rp;
    fr tag;
    fr *rc;         /* (FULL_ROUNDS + rp) * t plain round keys */
    fr *mds;        /* t * t, [i * t + j] */
    fr *crc;        /* 8t + rp compressed round keys */
    fr *pre_sparse; /* t * t */
    fr *w_hat;      /* rp * t: the sparse matrices' first columns, by partial round */
    fr *v_rest;     /* rp * (t - 1): their first rows past [0][0] */
};

static const struct {
    unsigned arity, rp;
} partial_rounds[] = {{2, 55}, {4, 56}, {8, 57}, {11, 57}, {16, 59}, {24, 59}, {36, 60}};
#define N_ARITIES (sizeof partial_rounds / sizeof partial_rounds[0])

/* ---- the Grain LFSR of the round constants ---- */

typedef struct grain {
    uint8_t s[80];
} grain;

static int grain_step(grain *g)
{
    int b = g->s[62] ^ g->s[51] ^ g->s[38] ^ g->s[23] ^ g->s[13] ^ g->s[0];
    memmove(g->s, g->s + 1, 79);
    g->s[79] = (uint8_t)b;
    return b;
}

/* the self-shrinking output: pairs (a, b), b kept when a is 1 */
static int grain_bit(grain *g)
{
    while (!grain_step(g))
        grain_step(g);
    return grain_step(g);
}

static void grain_init(grain *g, unsigned t, unsigned rp)
{
    /* field 1 (2 bits), S-box 1 (4), field size 255 (12), t (12), full
     * rounds (10), partial rounds (10), then 30 ones; each most significant
     * bit first */
    const struct {
        unsigned bits, v;
    } f[] = {{2, 1}, {4, 1}, {12, 255}, {12, t}, {10, FULL_ROUNDS}, {10, rp}, {30, (1u << 30) - 1}};
    unsigned k = 0;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
        for (unsigned b = f[i].bits; b-- > 0;)
            g->s[k++] = (uint8_t)(f[i].v >> b & 1);
    for (int i = 0; i < 160; i++)
        grain_step(g);
}

/* 255 bits, most significant first, drawn again while not below r */
static void grain_field(grain *g, fr *out)
{
    for (;;) {
        limb_t v[4] = {0};
        for (int i = 254; i >= 0; i--)
            v[i / 64] |= (limb_t)grain_bit(g) << (i % 64);
        if (bls12_381_fr_raw_is_canonical_mask(v) & 1) {
            bls12_381_fr_from_raw(out, v);
            return;
        }
    }
}

/* ---- small matrices over fr, row-major, row vector times matrix ---- */

static void vec_mat(const fr *v, const fr *m, unsigned n, fr *out)
{
    fr r[MAX_T];
    for (unsigned j = 0; j < n; j++) {
        bls12_381_fr_zero(&r[j]);
        for (unsigned i = 0; i < n; i++) {
            fr t;
            bls12_381_fr_mul(&t, &v[i], &m[i * n + j]);
            bls12_381_fr_add(&r[j], &r[j], &t);
        }
    }
    memcpy(out, r, n * sizeof *r);
}

static void mat_mul(const fr *a, const fr *b, unsigned n, fr *out)
{
    fr *r = malloc((size_t)n * n * sizeof *r);
    if (!r)
        return;
    for (unsigned i = 0; i < n; i++)
        vec_mat(&a[i * n], b, n, &r[i * n]);
    memcpy(out, r, (size_t)n * n * sizeof *r);
    free(r);
}

/* Gauss-Jordan; 0 when singular (never for these matrices) */
static int mat_inv(const fr *m, unsigned n, fr *out)
{
    fr *a = malloc((size_t)n * n * sizeof *a);
    if (!a)
        return 0;
    memcpy(a, m, (size_t)n * n * sizeof *a);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            out[i * n + j] = i == j ? cs_fr_one : cs_fr_zero;
    for (unsigned c = 0; c < n; c++) {
        unsigned p = c;
        while (p < n && bls12_381_fr_is_zero(&a[p * n + c]))
            p++;
        if (p == n) {
            free(a);
            return 0;
        }
        for (unsigned j = 0; j < n; j++) {
            fr t = a[c * n + j];
            a[c * n + j] = a[p * n + j];
            a[p * n + j] = t;
            t = out[c * n + j];
            out[c * n + j] = out[p * n + j];
            out[p * n + j] = t;
        }
        fr inv;
        bls12_381_fr_inv_var(&inv, &a[c * n + c]);
        for (unsigned j = 0; j < n; j++) {
            bls12_381_fr_mul(&a[c * n + j], &a[c * n + j], &inv);
            bls12_381_fr_mul(&out[c * n + j], &out[c * n + j], &inv);
        }
        for (unsigned r = 0; r < n; r++) {
            if (r == c || bls12_381_fr_is_zero(&a[r * n + c]))
                continue;
            fr f = a[r * n + c], t;
            for (unsigned j = 0; j < n; j++) {
                bls12_381_fr_mul(&t, &f, &a[c * n + j]);
                bls12_381_fr_sub(&a[r * n + j], &a[r * n + j], &t);
                bls12_381_fr_mul(&t, &f, &out[c * n + j]);
                bls12_381_fr_sub(&out[r * n + j], &out[r * n + j], &t);
            }
        }
    }
    free(a);
    return 1;
}

/* ---- the constants ---- */

/* neptune's compress_round_constants: the keys after the first moved
 * through the inverse MDS matrix so that each lands after an S-box, the
 * partial rounds' folded into one scalar a round */
static void compress(poseidon_consts *c, const fr *mds_inv)
{
    unsigned t = c->t, rp = c->rp;
    fr *out = c->crc, acc[MAX_T], inv[MAX_T];
#define KEY(r) (&c->rc[(size_t)(r) * t])
    memcpy(out, KEY(0), t * sizeof(fr));
    out += t;
    for (unsigned i = 0; i < HALF - 1; i++, out += t)
        vec_mat(KEY(i + 1), mds_inv, t, out);
    memcpy(acc, KEY(HALF + rp), t * sizeof(fr));
    fr *partial = out + t; /* after round 3's keys, in reverse */
    for (unsigned i = 0; i < rp; i++) {
        vec_mat(acc, mds_inv, t, inv);
        partial[rp - 1 - i] = inv[0];
        bls12_381_fr_zero(&inv[0]);
        for (unsigned j = 0; j < t; j++)
            bls12_381_fr_add(&acc[j], &KEY(HALF + rp - i - 1)[j], &inv[j]);
    }
    vec_mat(acc, mds_inv, t, out);
    out += t + rp;
    for (unsigned i = 1; i < HALF; i++, out += t)
        vec_mat(KEY(i + HALF + rp), mds_inv, t, out);
#undef KEY
}

/* neptune's factor_to_sparse_matrixes: M = M' M'' repeatedly, the
 * sparse M'' kept (its first column and first row), the last product
 * the pre-sparse matrix of the round before the partial ones */
static int factor(poseidon_consts *c)
{
    unsigned t = c->t, n = t - 1, rp = c->rp;
    fr *curr = malloc((size_t)t * t * sizeof *curr), *prime = malloc((size_t)t * t * sizeof *prime);
    fr *hat = malloc((size_t)n * n * sizeof *hat), *hat_inv = malloc((size_t)n * n * sizeof *hat_inv);
    int ok = curr && prime && hat && hat_inv;
    if (ok)
        memcpy(curr, c->mds, (size_t)t * t * sizeof *curr);
    for (unsigned k = 0; ok && k < rp; k++) {
        for (unsigned i = 0; i < n; i++)
            for (unsigned j = 0; j < n; j++)
                hat[i * n + j] = curr[(i + 1) * t + j + 1];
        if (!mat_inv(hat, n, hat_inv)) {
            ok = 0;
            break;
        }
        fr w[MAX_T], w_hat[MAX_T];
        for (unsigned i = 0; i < n; i++)
            w[i] = curr[(i + 1) * t];
        vec_mat(w, hat_inv, n, w_hat);
        /* kept in the order the partial rounds use them: the last first */
        fr *col = &c->w_hat[(size_t)(rp - 1 - k) * t], *row = &c->v_rest[(size_t)(rp - 1 - k) * n];
        col[0] = curr[0];
        memcpy(col + 1, w_hat, n * sizeof(fr));
        memcpy(row, curr + 1, n * sizeof(fr));
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++)
                prime[i * t + j] = i == 0 || j == 0 ? (i == j ? cs_fr_one : cs_fr_zero) : curr[i * t + j];
        mat_mul(c->mds, prime, t, curr);
    }
    if (ok)
        memcpy(c->pre_sparse, curr, (size_t)t * t * sizeof *curr);
    free(curr);
    free(prime);
    free(hat);
    free(hat_inv);
    return ok;
}

static poseidon_consts *consts_make(unsigned arity, unsigned rp)
{
    poseidon_consts *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    unsigned t = arity + 1;
    c->arity = arity;
    c->t = t;
    c->rp = rp;
    bls12_381_fr_from_u64(&c->tag, 0);
    for (unsigned i = 0; i < arity; i++) { /* 2^arity - 1 */
        bls12_381_fr_dbl(&c->tag, &c->tag);
        bls12_381_fr_add(&c->tag, &c->tag, &cs_fr_one);
    }
    size_t n_rc = (size_t)(FULL_ROUNDS + rp) * t;
    c->rc = malloc(n_rc * sizeof(fr));
    c->mds = malloc((size_t)t * t * sizeof(fr));
    c->crc = malloc((8 * (size_t)t + rp) * sizeof(fr));
    c->pre_sparse = malloc((size_t)t * t * sizeof(fr));
    c->w_hat = malloc((size_t)rp * t * sizeof(fr));
    c->v_rest = malloc((size_t)rp * (t - 1) * sizeof(fr));
    fr *mds_inv = malloc((size_t)t * t * sizeof(fr));
    int ok = c->rc && c->mds && c->crc && c->pre_sparse && c->w_hat && c->v_rest && mds_inv;
    if (ok) {
        grain g;
        grain_init(&g, t, rp);
        for (size_t i = 0; i < n_rc; i++)
            grain_field(&g, &c->rc[i]);
        for (unsigned i = 0; i < t; i++) /* Cauchy: 1 / (i + j + t) */
            for (unsigned j = 0; j < t; j++) {
                fr x;
                bls12_381_fr_from_u64(&x, i + j + t);
                bls12_381_fr_inv_var(&c->mds[i * t + j], &x);
            }
        ok = mat_inv(c->mds, t, mds_inv) && factor(c);
        if (ok)
            compress(c, mds_inv);
    }
    free(mds_inv);
    if (!ok) {
        free(c->rc);
        free(c->mds);
        free(c->crc);
        free(c->pre_sparse);
        free(c->w_hat);
        free(c->v_rest);
        free(c);
        return NULL;
    }
    return c;
}

static poseidon_consts *made[N_ARITIES];
static pthread_once_t once[N_ARITIES] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                         PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT};
#define MAKE_FN(k)                                                                                                     \
    static void make_##k(void)                                                                                         \
    {                                                                                                                  \
        made[k] = consts_make(partial_rounds[k].arity, partial_rounds[k].rp);                                          \
    }
MAKE_FN(0)
MAKE_FN(1)
MAKE_FN(2)
MAKE_FN(3)
MAKE_FN(4)
MAKE_FN(5)
MAKE_FN(6)
static void (*const make_fns[N_ARITIES])(void) = {make_0, make_1, make_2, make_3, make_4, make_5, make_6};

const poseidon_consts *poseidon_merkle(unsigned arity)
{
    for (size_t k = 0; k < N_ARITIES; k++)
        if (partial_rounds[k].arity == arity) {
            pthread_once(&once[k], make_fns[k]);
            return made[k];
        }
    return NULL;
}

unsigned poseidon_arity(const poseidon_consts *c)
{
    return c->arity;
}

/* ---- the hash ---- */

static void quintic(fr *x)
{
    fr x2, x4;
    bls12_381_fr_sqr(&x2, x);
    bls12_381_fr_sqr(&x4, &x2);
    bls12_381_fr_mul(x, &x4, x);
}

/* the sparse matrix of partial round k: new[0] = w_hat . s, new[j] =
 * s[j] + v_rest[j-1] s[0] */
static void sparse_mix(const poseidon_consts *c, unsigned k, fr *s)
{
    const fr *w = &c->w_hat[(size_t)k * c->t], *v = &c->v_rest[(size_t)k * (c->t - 1)];
    fr s0, t;
    bls12_381_fr_zero(&s0);
    for (unsigned i = 0; i < c->t; i++) {
        bls12_381_fr_mul(&t, &w[i], &s[i]);
        bls12_381_fr_add(&s0, &s0, &t);
    }
    for (unsigned j = 1; j < c->t; j++) {
        bls12_381_fr_mul(&t, &v[j - 1], &s[0]);
        bls12_381_fr_add(&s[j], &s[j], &t);
    }
    s[0] = s0;
}

void poseidon_hash(const poseidon_consts *c, const fr *in, fr *out)
{
    unsigned t = c->t, rp = c->rp;
    fr s[MAX_T];
    const fr *k = c->crc;
    s[0] = c->tag;
    memcpy(s + 1, in, c->arity * sizeof(fr));
    for (unsigned i = 0; i < t; i++)
        bls12_381_fr_add(&s[i], &s[i], &k[i]);
    k += t;
    for (unsigned r = 0; r < FULL_ROUNDS + rp; r++) {
        int full = r < HALF || r >= HALF + rp, last = r == FULL_ROUNDS + rp - 1;
        for (unsigned i = 0; i < (full ? t : 1); i++) {
            quintic(&s[i]);
            if (!last)
                bls12_381_fr_add(&s[i], &s[i], &k[i]);
        }
        k += last ? 0 : full ? t : 1;
        if (r == HALF - 1)
            vec_mat(s, c->pre_sparse, t, s);
        else if (!full)
            sparse_mix(c, r - HALF, s);
        else
            vec_mat(s, c->mds, t, s);
    }
    *out = s[1];
}

void poseidon_hash_plain(const poseidon_consts *c, const fr *in, fr *out)
{
    unsigned t = c->t, rp = c->rp;
    fr s[MAX_T];
    s[0] = c->tag;
    memcpy(s + 1, in, c->arity * sizeof(fr));
    for (unsigned r = 0; r < FULL_ROUNDS + rp; r++) {
        int full = r < HALF || r >= HALF + rp;
        for (unsigned i = 0; i < t; i++)
            bls12_381_fr_add(&s[i], &s[i], &c->rc[(size_t)r * t + i]);
        for (unsigned i = 0; i < (full ? t : 1); i++)
            quintic(&s[i]);
        vec_mat(s, c->mds, t, s);
    }
    *out = s[1];
}

/* ---- the legacy circuit ---- */

/* A state element: an allocated variable, or a linear combination with
 * its value (neptune's Elt) */
typedef struct elt {
    int allocated;
    cs_num num; /* allocated */
    cs_lcnum lc;
} elt;

static void elt_set_var(elt *e, cs_num n)
{
    e->allocated = 1;
    e->num = n;
    lc_clear(&e->lc.lc);
}

static const fr *elt_value(const elt *e)
{
    return e->allocated ? &e->num.value : &e->lc.value;
}

/* acc += s * e (value and, when built, the combination) */
static void elt_add_scaled(cs_system *cs, cs_lcnum *acc, const elt *e, const fr *s)
{
    fr t;
    bls12_381_fr_mul(&t, elt_value(e), s);
    bls12_381_fr_add(&acc->value, &acc->value, &t);
    if (!cs_lcs(cs))
        return;
    if (e->allocated)
        lc_add(cs, &acc->lc, e->num.var, s);
    else
        lc_add_lc(cs, &acc->lc, &e->lc.lc, s);
}

/* neptune's ensure_allocated: an element as a variable, a combination
 * allocated with lc * 1 = v */
static cs_num ensure_allocated(cs_system *cs, const elt *e)
{
    if (e->allocated)
        return e->num;
    cs_num v = cs_num_alloc(cs, &e->lc.value);
    if (cs_lcs(cs)) {
        lc_add_lc(cs, cs_a(cs), &e->lc.lc, NULL);
        lc_add_one(cs, cs_b(cs), CS_ONE);
        lc_add_one(cs, cs_c(cs), v.var);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return v;
}

/* x^2 as its own variable: x * x = y */
static cs_num square(cs_system *cs, const cs_num *x)
{
    return cs_num_square(cs, x);
}

/* neptune's mul_sum: y = a (b + pre) + post, (b + pre) * a = y - post */
static cs_num mul_sum(cs_system *cs, const cs_num *a, const cs_num *b, const fr *pre, const fr *post)
{
    fr v = b->value;
    if (pre)
        bls12_381_fr_add(&v, &v, pre);
    bls12_381_fr_mul(&v, &v, &a->value);
    if (post)
        bls12_381_fr_add(&v, &v, post);
    cs_num y = cs_num_alloc(cs, &v);
    if (cs_lcs(cs)) {
        lc_add_one(cs, cs_a(cs), b->var);
        if (pre)
            lc_add(cs, cs_a(cs), CS_ONE, pre);
        lc_add_one(cs, cs_b(cs), a->var);
        lc_add_one(cs, cs_c(cs), y.var);
        if (post) {
            fr neg;
            bls12_381_fr_neg(&neg, post);
            lc_add(cs, cs_c(cs), CS_ONE, &neg);
        }
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return y;
}

/* quintic_s_box: l = ensure_allocated(e), l^2, l^4, l^4 l + post */
static void sbox(cs_system *cs, elt *e, const fr *post)
{
    cs_num l = ensure_allocated(cs, e);
    cs_num l2 = square(cs, &l), l4 = square(cs, &l2);
    elt_set_var(e, mul_sum(cs, &l4, &l, NULL, post));
}

/* quintic_s_box_pre_add (the first round's inputs): (l + pre)^2 with one
 * constraint, its square, then l^4 (l + pre) + post */
static void sbox_pre(cs_system *cs, elt *e, const fr *pre, const fr *post)
{
    cs_num l = ensure_allocated(cs, e);
    fr v;
    bls12_381_fr_add(&v, &l.value, pre);
    bls12_381_fr_sqr(&v, &v);
    cs_num l2 = cs_num_alloc(cs, &v);
    if (cs_lcs(cs)) {
        for (int m = 0; m < 2; m++) {
            cs_lc *x = m ? cs_b(cs) : cs_a(cs);
            lc_add_one(cs, x, l.var);
            lc_add(cs, x, CS_ONE, pre);
        }
        lc_add_one(cs, cs_c(cs), l2.var);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    cs_num l4 = square(cs, &l2);
    elt_set_var(e, mul_sum(cs, &l4, &l, pre, post));
}

/* the elements times a dense matrix (row vector times m) */
static void mix_dense(cs_system *cs, const poseidon_consts *c, elt *el, elt *tmp, const fr *m)
{
    unsigned t = c->t;
    for (unsigned j = 0; j < t; j++) {
        tmp[j].allocated = 0;
        lc_clear(&tmp[j].lc.lc);
        bls12_381_fr_zero(&tmp[j].lc.value);
        for (unsigned i = 0; i < t; i++)
            elt_add_scaled(cs, &tmp[j].lc, &el[i], &m[i * t + j]);
    }
    for (unsigned j = 0; j < t; j++) { /* swap, keeping both sets' buffers */
        elt x = el[j];
        el[j] = tmp[j];
        tmp[j] = x;
    }
}

static void mix_sparse(cs_system *cs, const poseidon_consts *c, unsigned k, elt *el, elt *tmp)
{
    unsigned t = c->t;
    const fr *w = &c->w_hat[(size_t)k * t], *v = &c->v_rest[(size_t)k * (t - 1)];
    tmp[0].allocated = 0;
    lc_clear(&tmp[0].lc.lc);
    bls12_381_fr_zero(&tmp[0].lc.value);
    for (unsigned i = 0; i < t; i++)
        elt_add_scaled(cs, &tmp[0].lc, &el[i], &w[i]);
    for (unsigned j = 1; j < t; j++) /* a combination after every full round's mix */
        elt_add_scaled(cs, &el[j].lc, &el[0], &v[j - 1]);
    elt x = el[0];
    el[0] = tmp[0];
    tmp[0] = x;
}

static void mix(cs_system *cs, const poseidon_consts *c, unsigned round, elt *el, elt *tmp)
{
    if (round == HALF - 1)
        mix_dense(cs, c, el, tmp, c->pre_sparse);
    else if (round >= HALF && round < HALF + c->rp)
        mix_sparse(cs, c, round - HALF, el, tmp);
    else
        mix_dense(cs, c, el, tmp, c->mds);
}

cs_num poseidon_circuit(cs_system *cs, const poseidon_consts *c, const cs_num *in)
{
    unsigned t = c->t, rp = c->rp, round = 0;
    elt el[MAX_T], tmp[MAX_T];
    memset(el, 0, sizeof el);
    memset(tmp, 0, sizeof tmp);
    const fr *k = c->crc;
    /* round 0: the tag's S-box is a constant; each input's adds its key first */
    fr c0;
    bls12_381_fr_add(&c0, &c->tag, &k[0]);
    quintic(&c0);
    bls12_381_fr_add(&c0, &c0, &k[t]);
    el[0].lc.value = c0;
    if (cs_lcs(cs))
        lc_add(cs, &el[0].lc.lc, CS_ONE, &c0);
    for (unsigned i = 1; i < t; i++) {
        elt_set_var(&el[i], in[i - 1]);
        sbox_pre(cs, &el[i], &k[i], &k[t + i]);
    }
    k += 2 * t;
    mix(cs, c, round++, el, tmp);
    for (unsigned r = 1; r < FULL_ROUNDS + rp; r++) {
        int full = r < HALF || r >= HALF + rp, last = r == FULL_ROUNDS + rp - 1;
        for (unsigned i = 0; i < (full ? t : 1); i++)
            sbox(cs, &el[i], last ? NULL : &k[i]);
        k += last ? 0 : full ? t : 1;
        mix(cs, c, round++, el, tmp);
    }
    cs_num out = ensure_allocated(cs, &el[1]);
    for (unsigned i = 0; i < t; i++) {
        cs_lcnum_free(&el[i].lc);
        cs_lcnum_free(&tmp[i].lc);
    }
    return out;
}
