/* 32-bit words and the equality accumulator (uint32.h). */
#include "uint32.h"

/* The field's capacity: bits a value below r always has room for. */
#define FR_CAPACITY 254

static void multieq_accumulate(cs_system *cs, cs_multieq *me)
{
    if (cs_lcs(cs)) { /* lhs * 1 = rhs */
        lc_add_lc(cs, cs_a(cs), &me->lhs, NULL);
        lc_add_one(cs, cs_b(cs), CS_ONE);
        lc_add_lc(cs, cs_c(cs), &me->rhs, NULL);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    lc_clear(&me->lhs);
    lc_clear(&me->rhs);
    me->bits_used = 0;
    me->coeff = cs_fr_one;
}

void cs_multieq_enforce_equal(cs_system *cs, cs_multieq *me, unsigned num_bits, const cs_lc *lhs, const cs_lc *rhs)
{
    if (FR_CAPACITY <= me->bits_used + num_bits)
        multieq_accumulate(cs, me);
    if (me->bits_used == 0)
        me->coeff = cs_fr_one;
    if (cs_lcs(cs)) {
        lc_add_lc(cs, &me->lhs, lhs, &me->coeff);
        lc_add_lc(cs, &me->rhs, rhs, &me->coeff);
        for (unsigned i = 0; i < num_bits; i++)
            bls12_381_fr_dbl(&me->coeff, &me->coeff);
    }
    me->bits_used += num_bits;
}

void cs_multieq_finish(cs_system *cs, cs_multieq *me)
{
    if (me->bits_used > 0)
        multieq_accumulate(cs, me);
    lc_free(&me->lhs);
    lc_free(&me->rhs);
}

cs_u32 cs_u32_const(uint32_t v)
{
    cs_u32 x;
    x.value = v;
    for (int i = 0; i < 32; i++)
        x.bits[i] = cs_bool_const((int)(v >> i & 1));
    return x;
}

cs_u32 cs_u32_alloc(cs_system *cs, uint32_t v)
{
    cs_u32 x;
    x.value = v;
    for (int i = 0; i < 32; i++)
        x.bits[i] = cs_bit_alloc(cs, (int)(v >> i & 1));
    return x;
}

cs_u32 cs_u32_from_bits_be(const cs_bool bits[32])
{
    cs_u32 x;
    x.value = 0;
    for (int i = 0; i < 32; i++) {
        x.bits[i] = bits[31 - i];
        x.value |= (uint32_t)bits[31 - i].value << i;
    }
    return x;
}

void cs_u32_to_bits_be(const cs_u32 *x, cs_bool out[32])
{
    for (int i = 0; i < 32; i++)
        out[i] = x->bits[31 - i];
}

cs_u32 cs_u32_rotr(const cs_u32 *x, unsigned by)
{
    by %= 32;
    cs_u32 r;
    for (unsigned i = 0; i < 32; i++)
        r.bits[i] = x->bits[(i + by) % 32];
    r.value = by ? x->value >> by | x->value << (32 - by) : x->value;
    return r;
}

cs_u32 cs_u32_shr(const cs_u32 *x, unsigned by)
{
    by %= 32;
    cs_u32 r;
    for (unsigned i = 0; i < 32; i++)
        r.bits[i] = i + by < 32 ? x->bits[i + by] : cs_bool_const(0);
    r.value = x->value >> by;
    return r;
}

cs_u32 cs_u32_xor(cs_system *cs, const cs_u32 *a, const cs_u32 *b)
{
    cs_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = cs_bool_xor(cs, a->bits[i], b->bits[i]);
    r.value = a->value ^ b->value;
    return r;
}

cs_u32 cs_u32_sha256_ch(cs_system *cs, const cs_u32 *a, const cs_u32 *b, const cs_u32 *c)
{
    cs_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = cs_bool_sha256_ch(cs, a->bits[i], b->bits[i], c->bits[i]);
    r.value = (a->value & b->value) ^ (~a->value & c->value);
    return r;
}

cs_u32 cs_u32_sha256_maj(cs_system *cs, const cs_u32 *a, const cs_u32 *b, const cs_u32 *c)
{
    cs_u32 r;
    for (int i = 0; i < 32; i++)
        r.bits[i] = cs_bool_sha256_maj(cs, a->bits[i], b->bits[i], c->bits[i]);
    r.value = (a->value & b->value) ^ (a->value & c->value) ^ (b->value & c->value);
    return r;
}

cs_u32 cs_u32_addmany(cs_system *cs, cs_multieq *me, const cs_u32 *ops, unsigned n)
{
    if (n < 2 || n > 10) {
        cs_fail(cs, CUZK_ERR_INTERNAL, "constraint system: addmany of %u words", n);
        return cs_u32_const(0);
    }
    uint64_t max_value = (uint64_t)n * UINT32_MAX, sum = 0;
    int all_constants = 1;
    cs_lc lhs = {0};
    for (unsigned k = 0; k < n; k++) {
        sum += ops[k].value;
        fr coeff = cs_fr_one;
        for (int i = 0; i < 32; i++) {
            if (cs_lcs(cs))
                cs_bool_lc(cs, &lhs, ops[k].bits[i], &coeff);
            all_constants &= ops[k].bits[i].kind == CS_BOOL_CONST;
            bls12_381_fr_dbl(&coeff, &coeff);
        }
    }
    if (all_constants) {
        lc_free(&lhs);
        return cs_u32_const((uint32_t)sum);
    }
    cs_u32 r;
    r.value = (uint32_t)sum;
    cs_lc rhs = {0};
    fr coeff = cs_fr_one;
    unsigned i = 0;
    for (; max_value != 0; i++, max_value >>= 1) {
        cs_bool b = cs_bit_alloc(cs, (int)(sum >> i & 1));
        if (cs_lcs(cs))
            lc_add(cs, &rhs, b.var, &coeff);
        if (i < 32)
            r.bits[i] = b;
        bls12_381_fr_dbl(&coeff, &coeff);
    }
    cs_multieq_enforce_equal(cs, me, i, &lhs, &rhs);
    lc_free(&lhs);
    lc_free(&rhs);
    return r;
}
