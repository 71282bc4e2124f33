/* SHA-256 in a circuit (sha256.h), in bellpepper's order of allocation. */
#include <stdlib.h>

#include "../util/sha256.h"
#include "sha256.h"

/* A working variable whose value is a sum not yet computed (bellpepper's
 * Maybe::Deferred) or a word. */
typedef struct deferred {
    cs_u32 ops[10];
    unsigned n; /* 0: ops[0] is the word */
} deferred;

/* rotr(x, r0) ^ rotr(x, r1) ^ (shift ? x >> r2 : rotr(x, r2)), in
 * bellpepper's order */
static cs_u32 sigma(cs_system *cs, const cs_u32 *x, unsigned r0, unsigned r1, unsigned r2, int shift)
{
    cs_u32 t = cs_u32_rotr(x, r0), u = cs_u32_rotr(x, r1);
    cs_u32 s = cs_u32_xor(cs, &t, &u);
    u = shift ? cs_u32_shr(x, r2) : cs_u32_rotr(x, r2);
    return cs_u32_xor(cs, &s, &u);
}

static cs_u32 deferred_compute(cs_system *cs, cs_multieq *me, deferred *d, const cs_u32 *more, unsigned n_more)
{
    if (d->n == 0)
        return d->ops[0];
    for (unsigned i = 0; i < n_more; i++)
        d->ops[d->n++] = more[i];
    return cs_u32_addmany(cs, me, d->ops, d->n);
}

void cs_sha256_iv(cs_u32 out[8])
{
    for (int i = 0; i < 8; i++)
        out[i] = cs_u32_const(sha256_iv[i]);
}

void cs_sha256_compress(cs_system *cs, const cs_bool in[512], const cs_u32 cur[8], cs_u32 out[8])
{
    cs_u32 *w = malloc(64 * sizeof *w);
    if (!w) {
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory (SHA-256)");
        for (int i = 0; i < 8; i++)
            out[i] = cs_u32_const(0);
        return;
    }
    for (int i = 0; i < 16; i++)
        w[i] = cs_u32_from_bits_be(in + 32 * i);
    cs_multieq me = {0};
    for (int i = 16; i < 64; i++) {
        cs_u32 s0 = sigma(cs, &w[i - 15], 7, 18, 3, 1);
        cs_u32 s1 = sigma(cs, &w[i - 2], 17, 19, 10, 1);
        cs_u32 ops[4] = {w[i - 16], s0, w[i - 7], s1};
        w[i] = cs_u32_addmany(cs, &me, ops, 4);
    }
    deferred *a = malloc(2 * sizeof *a), *e = a + 1;
    if (!a) {
        free(w);
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory (SHA-256)");
        for (int i = 0; i < 8; i++)
            out[i] = cs_u32_const(0);
        return;
    }
    a->ops[0] = cur[0];
    a->n = 0;
    e->ops[0] = cur[4];
    e->n = 0;
    cs_u32 b = cur[1], c = cur[2], d = cur[3], f = cur[5], g = cur[6], h = cur[7];
    for (int i = 0; i < 64; i++) {
        cs_u32 new_e = deferred_compute(cs, &me, e, NULL, 0);
        cs_u32 s1 = sigma(cs, &new_e, 6, 11, 25, 0);
        cs_u32 ch = cs_u32_sha256_ch(cs, &new_e, &f, &g);
        cs_u32 new_a = deferred_compute(cs, &me, a, NULL, 0);
        cs_u32 s0 = sigma(cs, &new_a, 2, 13, 22, 0);
        cs_u32 maj = cs_u32_sha256_maj(cs, &new_a, &b, &c);
        /* temp1 = h + S1 + ch + k[i] + w[i]; e = d + temp1; a = temp1 + S0 + maj */
        cs_u32 temp1[5] = {h, s1, ch, cs_u32_const(sha256_k[i]), w[i]};
        h = g;
        g = f;
        f = new_e;
        for (int j = 0; j < 5; j++)
            e->ops[j] = temp1[j];
        e->ops[5] = d;
        e->n = 6;
        d = c;
        c = b;
        b = new_a;
        for (int j = 0; j < 5; j++)
            a->ops[j] = temp1[j];
        a->ops[5] = s0;
        a->ops[6] = maj;
        a->n = 7;
    }
    out[0] = deferred_compute(cs, &me, a, &cur[0], 1);
    cs_u32 pair[2];
    const cs_u32 *last[8] = {NULL, &b, &c, &d, NULL, &f, &g, &h};
    for (int j = 1; j < 8; j++) {
        if (j == 4) {
            out[4] = deferred_compute(cs, &me, e, &cur[4], 1);
            continue;
        }
        pair[0] = cur[j];
        pair[1] = *last[j];
        out[j] = cs_u32_addmany(cs, &me, pair, 2);
    }
    free(a);
    free(w);
    cs_multieq_finish(cs, &me);
}

void cs_sha256_block_no_padding(cs_system *cs, const cs_bool in[512], cs_bool out[256])
{
    cs_u32 iv[8], st[8];
    cs_sha256_iv(iv);
    cs_sha256_compress(cs, in, iv, st);
    for (int i = 0; i < 8; i++)
        cs_u32_to_bits_be(&st[i], out + 32 * i);
}

void cs_sha256(cs_system *cs, const cs_bool *in, size_t n_bits, cs_bool out[256])
{
    size_t total = (n_bits + 1 + 64 + 511) / 512 * 512;
    cs_bool *padded = malloc(total * sizeof *padded);
    if (!padded) {
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "constraint system: out of memory (SHA-256 of %zu bits)", n_bits);
        for (int i = 0; i < 256; i++)
            out[i] = cs_bool_const(0);
        return;
    }
    for (size_t i = 0; i < n_bits; i++)
        padded[i] = in[i];
    padded[n_bits] = cs_bool_const(1);
    for (size_t i = n_bits + 1; i < total - 64; i++)
        padded[i] = cs_bool_const(0);
    for (int i = 0; i < 64; i++)
        padded[total - 64 + i] = cs_bool_const((int)((uint64_t)n_bits >> (63 - i) & 1));
    cs_u32 st[8], next[8];
    cs_sha256_iv(st);
    for (size_t blk = 0; blk < total / 512; blk++) {
        cs_sha256_compress(cs, padded + 512 * blk, st, next);
        for (int i = 0; i < 8; i++)
            st[i] = next[i];
    }
    free(padded);
    for (int i = 0; i < 8; i++)
        cs_u32_to_bits_be(&st[i], out + 32 * i);
}
