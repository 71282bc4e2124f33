/* The sha256-chain circuit: SHA-256 of a B-block message as R1CS, with a
 * satisfying witness, streamed to a .r1cs and a .wtns.
 *
 * Wires: 0 the constant 1; 1..K the public outputs (the first K digest
 * bits, most significant bit of byte 0 first); then the 16 B message words
 * (private inputs, each a 32-bit value); then everything the gadgets make.
 * Every gadget output is a bit, so the witness is 0/1 apart from the
 * message words: the shape of a PoRep partition, which is what the MSM's
 * 0/1 split is for.
 *
 * A bit is a wire, its negation 1 - wire, or a constant; XOR with a
 * constant, rotations and shifts are free, and anything computed from
 * constants alone (the IV's first round, the padding block's message
 * schedule) costs no constraints. Gadgets, per bit:
 *   xor  z = x + y - 2xy:      (2x) * (y) = x + y - z
 *   ch   z = g + e (f - g):    (e) * (f - g) = z - g
 *   maj  u = ab, z = u + c (a + b - 2u): two constraints
 *   add  sum of k words + K = sum 2^i r_i + 2^32 sum 2^j c_j: one linear
 *        constraint and a booleanity constraint r (r - 1) = 0 per new bit
 * which makes about 27,000 constraints per block (see BENCHMARKS.md). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../../include/cuzk_testcircuits.h"
#include "../formats/binwriter.h"
#include "../ec/curve_desc.h"
#include "../util/error.h"
#include "../util/file.h"
#include "../util/sha256.h"

enum { LC_MAX = 256 };

typedef struct term {
    uint32_t wire;
    int64_t k;
} term;

typedef struct lc {
    int n;
    term t[LC_MAX];
} lc;

typedef struct bit {
    uint32_t w;    /* 0: the constant v */
    uint8_t neg;   /* the bit is 1 - wire w */
    uint8_t v;     /* its value in the witness */
} bit;

typedef struct word {
    bit b[32]; /* b[0] the least significant */
} word;

typedef struct builder {
    const curve_desc *curve;
    int count_only; /* a dry run: count, write nothing */
    binwriter *r1cs, *wtns;
    uint64_t n_constraints, n_binary, n_other;
    uint32_t n_wires;
    int overflow; /* an LC outgrew LC_MAX: a bug */
    word schedule[64];
    unsigned char buf[4 + 3 * (4 + LC_MAX * 36)];
} builder;

/* ------------------------------------------------------------ wires */

static uint32_t new_wire(builder *b, uint64_t value)
{
    if (value <= 1)
        b->n_binary++;
    else
        b->n_other++;
    if (!b->count_only) {
        unsigned char v[32] = {0};
        for (int i = 0; i < 8; i++)
            v[i] = (unsigned char)(value >> (8 * i));
        binwriter_write(b->wtns, v, 32);
    }
    return b->n_wires++;
}

static bit new_bit(builder *b, unsigned v)
{
    return (bit){new_wire(b, v & 1), 0, (uint8_t)(v & 1)};
}

static bit bit_const(unsigned v)
{
    return (bit){0, 0, (uint8_t)(v & 1)};
}

static bit bit_not(bit x)
{
    if (x.w)
        x.neg ^= 1;
    x.v ^= 1;
    return x;
}

/* ------------------------------------------------------------ constraints */

static void lc_term(builder *b, lc *l, uint32_t wire, int64_t k)
{
    if (l->n == LC_MAX) {
        b->overflow = 1;
        return;
    }
    l->t[l->n++] = (term){wire, k};
}

static void lc_bit(builder *b, lc *l, bit x, int64_t k)
{
    if (!x.w)
        lc_term(b, l, 0, k * x.v);
    else if (x.neg) {
        lc_term(b, l, 0, k);
        lc_term(b, l, x.w, -k);
    } else
        lc_term(b, l, x.w, k);
}

/* Sorted by wire, equal wires merged, zeros dropped. */
static void lc_normalize(lc *l)
{
    for (int i = 1; i < l->n; i++) {
        term t = l->t[i];
        int j = i;
        for (; j > 0 && l->t[j - 1].wire > t.wire; j--)
            l->t[j] = l->t[j - 1];
        l->t[j] = t;
    }
    int m = 0;
    for (int i = 0; i < l->n; i++) {
        if (m && l->t[m - 1].wire == l->t[i].wire)
            l->t[m - 1].k += l->t[i].k;
        else
            l->t[m++] = l->t[i];
        if (l->t[m - 1].k == 0)
            m--;
    }
    l->n = m;
}

/* |k| or r - |k|, 32 bytes little-endian */
static void coef_bytes(unsigned char out[32], const curve_desc *c, int64_t k)
{
    uint64_t mag = k < 0 ? (uint64_t)0 - (uint64_t)k : (uint64_t)k, limb[4] = {mag, 0, 0, 0};
    if (k < 0) {
        unsigned __int128 borrow = 0;
        for (int i = 0; i < 4; i++) {
            unsigned __int128 d = (unsigned __int128)c->r[i] - limb[i] - borrow;
            limb[i] = (uint64_t)d;
            borrow = (d >> 64) & 1;
        }
    }
    for (int i = 0; i < 32; i++)
        out[i] = (unsigned char)(limb[i / 8] >> (8 * (i % 8)));
}

/* A * B = C */
static void emit(builder *b, lc *A, lc *B, lc *C)
{
    b->n_constraints++;
    if (b->count_only)
        return;
    size_t at = 0;
    lc *m[3] = {A, B, C};
    for (int i = 0; i < 3; i++) {
        lc_normalize(m[i]);
        uint32_t n = (uint32_t)m[i]->n;
        memcpy(b->buf + at, &n, 4);
        at += 4;
        for (int j = 0; j < m[i]->n; j++) {
            memcpy(b->buf + at, &m[i]->t[j].wire, 4);
            coef_bytes(b->buf + at + 4, b->curve, m[i]->t[j].k);
            at += 36;
        }
    }
    binwriter_write(b->r1cs, b->buf, at);
}

/* r (r - 1) = 0 */
static void emit_boolean(builder *b, bit r)
{
    lc A = {0}, B = {0}, C = {0};
    lc_bit(b, &A, r, 1);
    lc_bit(b, &B, r, 1);
    lc_term(b, &B, 0, -1);
    emit(b, &A, &B, &C);
}

/* ------------------------------------------------------------ gadgets */

static bit g_xor(builder *b, bit x, bit y)
{
    if (!x.w)
        return x.v ? bit_not(y) : y;
    if (!y.w)
        return y.v ? bit_not(x) : x;
    bit z = new_bit(b, x.v ^ y.v);
    lc A = {0}, B = {0}, C = {0};
    lc_bit(b, &A, x, 2);
    lc_bit(b, &B, y, 1);
    lc_bit(b, &C, x, 1);
    lc_bit(b, &C, y, 1);
    lc_bit(b, &C, z, -1);
    emit(b, &A, &B, &C);
    return z;
}

static bit g_and(builder *b, bit x, bit y)
{
    if (!x.w)
        return x.v ? y : bit_const(0);
    if (!y.w)
        return y.v ? x : bit_const(0);
    bit z = new_bit(b, x.v & y.v);
    lc A = {0}, B = {0}, C = {0};
    lc_bit(b, &A, x, 1);
    lc_bit(b, &B, y, 1);
    lc_bit(b, &C, z, 1);
    emit(b, &A, &B, &C);
    return z;
}

static bit g_ch(builder *b, bit e, bit f, bit g)
{
    if (!e.w)
        return e.v ? f : g;
    bit z = new_bit(b, e.v ? f.v : g.v);
    lc A = {0}, B = {0}, C = {0};
    lc_bit(b, &A, e, 1);
    lc_bit(b, &B, f, 1);
    lc_bit(b, &B, g, -1);
    lc_bit(b, &C, z, 1);
    lc_bit(b, &C, g, -1);
    emit(b, &A, &B, &C);
    return z;
}

static bit g_maj(builder *b, bit x, bit y, bit c)
{
    unsigned v = (x.v & y.v) | (x.v & c.v) | (y.v & c.v);
    if (!x.w && !y.w && !c.w)
        return bit_const(v);
    bit u = g_and(b, x, y), z = new_bit(b, v);
    lc A = {0}, B = {0}, C = {0};
    lc_bit(b, &A, c, 1);
    lc_bit(b, &B, x, 1);
    lc_bit(b, &B, y, 1);
    lc_bit(b, &B, u, -2);
    lc_bit(b, &C, z, 1);
    lc_bit(b, &C, u, -1);
    emit(b, &A, &B, &C);
    return z;
}

static uint32_t word_value(const word *x)
{
    uint32_t v = 0;
    for (int i = 0; i < 32; i++)
        v |= (uint32_t)x->b[i].v << i;
    return v;
}

static word word_const(uint32_t v)
{
    word x;
    for (int i = 0; i < 32; i++)
        x.b[i] = bit_const(v >> i);
    return x;
}

static word rotr(const word *x, int n)
{
    word r;
    for (int i = 0; i < 32; i++)
        r.b[i] = x->b[(i + n) % 32];
    return r;
}

static word shr(const word *x, int n)
{
    word r;
    for (int i = 0; i < 32; i++)
        r.b[i] = i + n < 32 ? x->b[i + n] : bit_const(0);
    return r;
}

static word xor3(builder *b, word x, word y, word z)
{
    word r;
    for (int i = 0; i < 32; i++)
        r.b[i] = g_xor(b, g_xor(b, x.b[i], y.b[i]), z.b[i]);
    return r;
}

/* sum of n words plus k, mod 2^32 */
static word g_add(builder *b, const word *const *x, int n, uint32_t k)
{
    uint64_t sum = k;
    int constant = 1;
    for (int j = 0; j < n; j++) {
        sum += word_value(x[j]);
        for (int i = 0; i < 32; i++)
            constant &= x[j]->b[i].w == 0;
    }
    if (constant)
        return word_const((uint32_t)sum);
    word r;
    lc A = {0}, B = {0}, C = {0};
    for (int j = 0; j < n; j++)
        for (int i = 0; i < 32; i++)
            lc_bit(b, &A, x[j]->b[i], (int64_t)1 << i);
    lc_term(b, &A, 0, k);
    lc_term(b, &B, 0, 1);
    int carry_bits = 0; /* the carry is at most n (k < 2^32) */
    while ((1u << carry_bits) <= (unsigned)n)
        carry_bits++;
    bit carry[4];
    for (int i = 0; i < 32; i++) {
        r.b[i] = new_bit(b, (unsigned)(sum >> i));
        lc_bit(b, &C, r.b[i], (int64_t)1 << i);
    }
    for (int j = 0; j < carry_bits; j++) {
        carry[j] = new_bit(b, (unsigned)(sum >> (32 + j)));
        lc_bit(b, &C, carry[j], (int64_t)1 << (32 + j));
    }
    emit(b, &A, &B, &C);
    for (int i = 0; i < 32; i++)
        emit_boolean(b, r.b[i]);
    for (int j = 0; j < carry_bits; j++)
        emit_boolean(b, carry[j]);
    return r;
}

/* A message word: the input wire (already made) split into bits. */
static word g_unpack(builder *b, uint32_t wire, uint32_t value)
{
    word r;
    lc A = {0}, B = {0}, C = {0};
    for (int i = 0; i < 32; i++) {
        r.b[i] = new_bit(b, value >> i);
        lc_bit(b, &A, r.b[i], (int64_t)1 << i);
    }
    lc_term(b, &B, 0, 1);
    lc_term(b, &C, wire, 1);
    emit(b, &A, &B, &C);
    for (int i = 0; i < 32; i++)
        emit_boolean(b, r.b[i]);
    return r;
}

static void g_compress(builder *b, word h[8], const word m[16])
{
    word *w = b->schedule; /* 48 KiB: off the stack */
    memcpy(w, m, 16 * sizeof(word));
    for (int t = 16; t < 64; t++) {
        word s0 = xor3(b, rotr(&w[t - 15], 7), rotr(&w[t - 15], 18), shr(&w[t - 15], 3));
        word s1 = xor3(b, rotr(&w[t - 2], 17), rotr(&w[t - 2], 19), shr(&w[t - 2], 10));
        const word *sum[4] = {&s1, &w[t - 7], &s0, &w[t - 16]};
        w[t] = g_add(b, sum, 4, 0);
    }
    word s[8];
    memcpy(s, h, sizeof(s));
    for (int t = 0; t < 64; t++) {
        word S1 = xor3(b, rotr(&s[4], 6), rotr(&s[4], 11), rotr(&s[4], 25));
        word S0 = xor3(b, rotr(&s[0], 2), rotr(&s[0], 13), rotr(&s[0], 22));
        word ch, maj;
        for (int i = 0; i < 32; i++) {
            ch.b[i] = g_ch(b, s[4].b[i], s[5].b[i], s[6].b[i]);
            maj.b[i] = g_maj(b, s[0].b[i], s[1].b[i], s[2].b[i]);
        }
        /* e' = d + T1, a' = T1 + T2, T1 = h + S1 + ch + K + W, T2 = S0 + maj */
        const word *e_sum[5] = {&s[3], &s[7], &S1, &ch, &w[t]};
        const word *a_sum[6] = {&s[7], &S1, &ch, &w[t], &S0, &maj};
        word e = g_add(b, e_sum, 5, sha256_k[t]);
        word a = g_add(b, a_sum, 6, sha256_k[t]);
        memmove(s + 1, s, 7 * sizeof(word));
        s[0] = a;
        s[4] = e;
    }
    for (int i = 0; i < 8; i++) {
        const word *sum[2] = {&h[i], &s[i]};
        h[i] = g_add(b, sum, 2, 0);
    }
}

/* ------------------------------------------------------------ the circuit */

/* The message: splitmix64(seed) outputs, little-endian, 64 bytes a block. */
static void message_block(uint64_t *state, unsigned char out[64])
{
    for (int i = 0; i < 8; i++) {
        uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        z ^= z >> 31;
        for (int k = 0; k < 8; k++)
            out[8 * i + k] = (unsigned char)(z >> (8 * k));
    }
}

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

typedef struct chain_run {
    uint64_t blocks, seed;
    unsigned n_public;
    FILE *message_out; /* or NULL */
    cuzk_progress_fn progress;
    void *progress_ctx;
    unsigned char digest[32]; /* out: from the witness */
    uint32_t *public_wires;   /* out: the wires of the K outputs' digest bits (n_public) */
} chain_run;

/* The whole circuit on b. Returns the digest bits in run->digest; the
 * output wires 1..K must be patched by the caller (values = digest bits). */
static void build_chain(builder *b, chain_run *run)
{
    new_wire(b, 1); /* wire 0: one */
    for (unsigned j = 0; j < run->n_public; j++)
        new_wire(b, 0); /* patched */
    uint32_t first_input = b->n_wires;
    uint64_t seed = run->seed;
    unsigned char block[64];
    /* the message words first, as circom places inputs before intermediates */
    for (uint64_t k = 0; k < run->blocks; k++) {
        message_block(&seed, block);
        if (run->message_out && !b->count_only)
            fwrite(block, 1, 64, run->message_out);
        for (int i = 0; i < 16; i++)
            new_wire(b, be32(block + 4 * i));
    }
    word h[8], m[16];
    for (int i = 0; i < 8; i++)
        h[i] = word_const(sha256_iv[i]);
    seed = run->seed;
    for (uint64_t k = 0; k < run->blocks; k++) {
        message_block(&seed, block);
        for (int i = 0; i < 16; i++)
            m[i] = g_unpack(b, first_input + (uint32_t)(16 * k + (uint64_t)i), be32(block + 4 * i));
        g_compress(b, h, m);
        if (run->progress && !b->count_only)
            run->progress(run->progress_ctx, "blocks", k + 1, run->blocks + 1);
    }
    /* padding: 0x80, zeros, the length in bits (the message fills whole blocks) */
    uint64_t bits = run->blocks * 512;
    memset(block, 0, 64);
    block[0] = 0x80;
    for (int i = 0; i < 8; i++)
        block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
    for (int i = 0; i < 16; i++)
        m[i] = word_const(be32(block + 4 * i));
    g_compress(b, h, m);
    for (int i = 0; i < 8; i++) {
        uint32_t v = word_value(&h[i]);
        for (int k = 0; k < 4; k++)
            run->digest[4 * i + k] = (unsigned char)(v >> (24 - 8 * k));
    }
    /* output j = digest bit j, most significant first: (out_j - d) * 1 = 0 */
    for (unsigned j = 0; j < run->n_public; j++) {
        bit d = h[j / 32].b[31 - j % 32];
        lc A = {0}, B = {0}, C = {0};
        lc_term(b, &A, 1 + j, 1);
        lc_bit(b, &A, d, -1);
        lc_term(b, &B, 0, 1);
        emit(b, &A, &B, &C);
    }
    if (run->progress && !b->count_only)
        run->progress(run->progress_ctx, "blocks", run->blocks + 1, run->blocks + 1);
}

/* constraints of a B-block circuit, from dry runs of 1 and 2 blocks */
static void chain_shape(const curve_desc *c, unsigned n_public, uint64_t *fixed, uint64_t *per_block,
                        uint64_t *wires_fixed, uint64_t *wires_per_block)
{
    uint64_t cons[2], wires[2];
    for (int k = 0; k < 2; k++) {
        builder *b = calloc(1, sizeof(builder));
        if (!b) {
            *fixed = *per_block = *wires_fixed = *wires_per_block = 0;
            return;
        }
        b->curve = c;
        b->count_only = 1;
        chain_run run = {.blocks = (uint64_t)k + 1, .seed = 0, .n_public = n_public};
        build_chain(b, &run);
        cons[k] = b->n_constraints;
        wires[k] = b->n_wires;
        free(b);
    }
    *per_block = cons[1] - cons[0];
    *fixed = cons[0] - *per_block;
    *wires_per_block = wires[1] - wires[0];
    *wires_fixed = wires[0] - *wires_per_block;
}

int cuzk_circuit_sha256_chain(const char *r1cs_path, const char *wtns_path, const cuzk_circuit_options *opts,
                              cuzk_circuit_info *info, cuzk_error *err)
{
    if (!r1cs_path || !wtns_path || !opts)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_circuit_sha256_chain: NULL argument");
    const curve_desc *c = curve_by_id(opts->curve ? opts->curve : CUZK_CURVE_BN254);
    if (!c)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "sha256-chain: unknown curve %d", opts->curve);
    if (opts->n_public > 256)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "sha256-chain: %u public outputs asked for, but the digest has 256 bits",
                              opts->n_public);
    if (!strcmp(r1cs_path, wtns_path))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "sha256-chain: the .r1cs and .wtns are both %s",
                              r1cs_path);
    uint64_t fixed, per_block, wires_fixed, wires_per_block;
    chain_shape(c, opts->n_public, &fixed, &per_block, &wires_fixed, &wires_per_block);
    if (!per_block)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "sha256-chain: out of memory");
    uint64_t blocks = 1;
    if (opts->constraints > fixed + per_block)
        blocks = (opts->constraints - fixed + per_block / 2) / per_block;
    if (wires_fixed + blocks * wires_per_block >= ((uint64_t)1 << 32) ||
        fixed + blocks * per_block >= ((uint64_t)1 << 32))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "sha256-chain: %llu constraints is too many (an r1cs counts wires and constraints "
                              "in 32 bits)",
                              (unsigned long long)opts->constraints);

    builder *b = calloc(1, sizeof(builder));
    binwriter r1, wt;
    int rc, open_r1 = 0, open_wt = 0;
    FILE *mo = NULL;
    chain_run run = {.blocks = blocks,
                     .seed = opts->seed,
                     .n_public = opts->n_public,
                     .progress = opts->progress,
                     .progress_ctx = opts->progress_ctx};
    if (!b) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "sha256-chain: out of memory");
        goto done;
    }
    if (opts->message_path && (rc = check_output_path(opts->message_path, err)) != CUZK_OK)
        goto done;
    if (opts->message_path && !(mo = fopen(opts->message_path, "wb"))) {
        rc = cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot write: %s", opts->message_path, strerror(errno));
        goto done;
    }
    if ((rc = binwriter_open(&r1, r1cs_path, "r1cs", 1, 3, err)) != CUZK_OK)
        goto done;
    open_r1 = 1;
    if ((rc = binwriter_open(&wt, wtns_path, "wtns", 2, 2, err)) != CUZK_OK)
        goto done;
    open_wt = 1;
    b->curve = c;
    b->r1cs = &r1;
    b->wtns = &wt;
    run.message_out = mo;

    /* headers, with the counts patched in at the end */
    unsigned char prime[32];
    curve_prime_bytes(prime, c->r, 32);
    binwriter_section_begin(&r1, 1);
    long long r1_counts = binwriter_tell(&r1) + 4 + 32;
    binwriter_u32(&r1, 32);
    binwriter_write(&r1, prime, 32);
    unsigned char zeros[28] = {0};
    binwriter_write(&r1, zeros, 28); /* nWires, nPubOut, nPubIn, nPrvIn, nLabels (u64), mConstraints */
    binwriter_section_end(&r1);
    binwriter_section_begin(&wt, 1);
    binwriter_u32(&wt, 32);
    binwriter_write(&wt, prime, 32);
    long long wt_count = binwriter_tell(&wt);
    binwriter_u32(&wt, 0);
    binwriter_section_end(&wt);
    binwriter_section_begin(&wt, 2);
    long long wt_values = binwriter_tell(&wt);
    binwriter_section_begin(&r1, 2);

    build_chain(b, &run);

    binwriter_section_end(&r1);
    binwriter_section_end(&wt);
    if (b->overflow) {
        rc = cuzk_error_set(err, CUZK_ERR_INTERNAL, "sha256-chain: a linear combination outgrew %d terms", LC_MAX);
        goto done;
    }
    /* the witness must hash like SHA-256 itself */
    sha256_state sh;
    unsigned char want[32], block[64];
    uint64_t seed = opts->seed;
    sha256_init(&sh);
    for (uint64_t k = 0; k < blocks; k++) {
        message_block(&seed, block);
        sha256_update(&sh, block, 64);
    }
    sha256_final(&sh, want);
    if (memcmp(want, run.digest, 32) != 0) {
        rc = cuzk_error_set(err, CUZK_ERR_INTERNAL, "sha256-chain: the circuit's digest differs from SHA-256's");
        goto done;
    }
    /* section 3: wire j has label j */
    binwriter_section_begin(&r1, 3);
    for (uint32_t j = 0; j < b->n_wires; j++) {
        uint64_t label = j;
        binwriter_write(&r1, &label, 8);
    }
    binwriter_section_end(&r1);
    uint32_t n_inputs = (uint32_t)(16 * blocks);
    uint32_t counts[7] = {b->n_wires, opts->n_public, 0, n_inputs, b->n_wires, 0, (uint32_t)b->n_constraints};
    binwriter_patch(&r1, r1_counts, counts, 4 * 4);
    binwriter_patch(&r1, r1_counts + 16, &counts[4], 4); /* nLabels: a u64, high half 0 */
    binwriter_patch(&r1, r1_counts + 24, &counts[6], 4);
    binwriter_patch(&wt, wt_count, &b->n_wires, 4);
    for (unsigned j = 0; j < opts->n_public; j++) {
        unsigned char v[32] = {0};
        v[0] = (run.digest[j / 8] >> (7 - j % 8)) & 1;
        binwriter_patch(&wt, wt_values + 32 * (1 + (long long)j), v, 32);
    }
    if (mo) {
        int bad = ferror(mo);
        bad |= fclose(mo) != 0;
        mo = NULL;
        if (bad) {
            rc = cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot write", opts->message_path);
            goto done;
        }
    }
    open_r1 = 0;
    if ((rc = binwriter_commit(&r1, err)) != CUZK_OK)
        goto done;
    open_wt = 0;
    if ((rc = binwriter_commit(&wt, err)) != CUZK_OK) {
        remove(r1cs_path); /* both or neither */
        goto done;
    }
    if (info) {
        info->blocks = blocks;
        info->constraints = b->n_constraints;
        info->wires = b->n_wires;
        info->witness_binary = b->n_binary;
        info->witness_other = b->n_other;
        memcpy(info->digest, run.digest, 32);
    }
done:
    if (open_r1)
        binwriter_abort(&r1);
    if (open_wt)
        binwriter_abort(&wt);
    if (mo) {
        fclose(mo);
        remove(opts->message_path);
    }
    free(b);
    return rc;
}
