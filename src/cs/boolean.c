/* Booleans (boolean.h): bellpepper-core's AllocatedBit and Boolean, case
 * for case in its order. */
#include "boolean.h"

/* the allocated bit's own value */
static inline int bit_value(cs_bool b)
{
    return b.kind == CS_BOOL_NOT ? !b.value : b.value;
}

static inline cs_bool is_bit(cs_var v, int value)
{
    return (cs_bool){.var = v, .kind = CS_BOOL_IS, .value = (uint8_t)value};
}

cs_bool cs_bit_alloc_conditionally(cs_system *cs, int value, cs_bool must_be_false)
{
    cs_var v = cs_alloc_bit(cs, value);
    if (cs_lcs(cs)) { /* (1 - f - v) * v = 0 */
        lc_add_one(cs, cs_a(cs), CS_ONE);
        cs_bool_lc(cs, cs_a(cs), must_be_false, &cs_fr_minus_one);
        lc_sub_one(cs, cs_a(cs), v);
        lc_add_one(cs, cs_b(cs), v);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return is_bit(v, value);
}

/* (1 - v) * v = 0: the same with a constant false f */
cs_bool cs_bit_alloc(cs_system *cs, int value)
{
    return cs_bit_alloc_conditionally(cs, value, cs_bool_const(0));
}

void cs_bool_lc(cs_system *cs, cs_lc *lc, cs_bool b, const fr *coeff)
{
    switch (b.kind) {
    case CS_BOOL_CONST:
        if (b.value)
            lc_add(cs, lc, CS_ONE, coeff);
        break;
    case CS_BOOL_IS:
        lc_add(cs, lc, b.var, coeff);
        break;
    default: {
        fr neg;
        bls12_381_fr_neg(&neg, coeff);
        lc_add(cs, lc, CS_ONE, coeff);
        lc_add(cs, lc, b.var, &neg);
    }
    }
}

/* AllocatedBit::xor: (2a) * b = a + b - r */
static cs_bool abit_xor(cs_system *cs, cs_bool a, cs_bool b)
{
    int r = bit_value(a) ^ bit_value(b);
    cs_var v = cs_alloc_bit(cs, r);
    if (cs_lcs(cs)) {
        lc_add_one(cs, cs_a(cs), a.var);
        lc_add_one(cs, cs_a(cs), a.var);
        lc_add_one(cs, cs_b(cs), b.var);
        lc_add_one(cs, cs_c(cs), a.var);
        lc_add_one(cs, cs_c(cs), b.var);
        lc_sub_one(cs, cs_c(cs), v);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return is_bit(v, r);
}

/* The gates whose result is C alone: (sa_one ONE + sa x) * (sb_one ONE +
 * sb y) = r, with r the gate's value allocated first. */
static cs_bool gate(cs_system *cs, int r, int sa_one, int sa, cs_var x, int sb_one, int sb, cs_var y)
{
    cs_var v = cs_alloc_bit(cs, r);
    if (cs_lcs(cs)) {
        if (sa_one)
            lc_add_one(cs, cs_a(cs), CS_ONE);
        lc_add(cs, cs_a(cs), x, sa > 0 ? &cs_fr_one : &cs_fr_minus_one);
        if (sb_one)
            lc_add_one(cs, cs_b(cs), CS_ONE);
        lc_add(cs, cs_b(cs), y, sb > 0 ? &cs_fr_one : &cs_fr_minus_one);
        lc_add_one(cs, cs_c(cs), v);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return is_bit(v, r);
}

/* AllocatedBit::and: a * b = r */
static cs_bool abit_and(cs_system *cs, cs_bool a, cs_bool b)
{
    return gate(cs, bit_value(a) & bit_value(b), 0, 1, a.var, 0, 1, b.var);
}

/* AllocatedBit::and_not: a * (1 - b) = r */
static cs_bool abit_and_not(cs_system *cs, cs_bool a, cs_bool b)
{
    return gate(cs, bit_value(a) & (bit_value(b) ^ 1), 0, 1, a.var, 1, -1, b.var);
}

/* AllocatedBit::nor: (1 - a) * (1 - b) = r */
static cs_bool abit_nor(cs_system *cs, cs_bool a, cs_bool b)
{
    return gate(cs, (bit_value(a) ^ 1) & (bit_value(b) ^ 1), 1, -1, a.var, 1, -1, b.var);
}

cs_bool cs_bool_xor(cs_system *cs, cs_bool a, cs_bool b)
{
    if (a.kind == CS_BOOL_CONST && !a.value)
        return b;
    if (b.kind == CS_BOOL_CONST && !b.value)
        return a;
    if (a.kind == CS_BOOL_CONST)
        return cs_bool_not(b);
    if (b.kind == CS_BOOL_CONST)
        return cs_bool_not(a);
    if (a.kind != b.kind) { /* Is ^ Not: !(Is ^ Is) */
        cs_bool is = a.kind == CS_BOOL_IS ? a : b, not = a.kind == CS_BOOL_IS ? b : a;
        return cs_bool_not(abit_xor(cs, is, cs_bool_not(not)));
    }
    return abit_xor(cs, a, b); /* Is ^ Is, or Not ^ Not of the two bits */
}

cs_bool cs_bool_and(cs_system *cs, cs_bool a, cs_bool b)
{
    if ((a.kind == CS_BOOL_CONST && !a.value) || (b.kind == CS_BOOL_CONST && !b.value))
        return cs_bool_const(0);
    if (a.kind == CS_BOOL_CONST)
        return b;
    if (b.kind == CS_BOOL_CONST)
        return a;
    if (a.kind == CS_BOOL_IS && b.kind == CS_BOOL_NOT)
        return abit_and_not(cs, a, b);
    if (a.kind == CS_BOOL_NOT && b.kind == CS_BOOL_IS)
        return abit_and_not(cs, b, a);
    if (a.kind == CS_BOOL_NOT)
        return abit_nor(cs, a, b);
    return abit_and(cs, a, b);
}

cs_bool cs_bool_or(cs_system *cs, cs_bool a, cs_bool b)
{
    return cs_bool_not(cs_bool_and(cs, cs_bool_not(a), cs_bool_not(b)));
}

static inline int is_const(cs_bool b, int v)
{
    return b.kind == CS_BOOL_CONST && b.value == v;
}

cs_bool cs_bool_sha256_ch(cs_system *cs, cs_bool a, cs_bool b, cs_bool c)
{
    int value = (a.value & b.value) ^ ((a.value ^ 1) & c.value);
    if (a.kind == CS_BOOL_CONST && b.kind == CS_BOOL_CONST && c.kind == CS_BOOL_CONST)
        return cs_bool_const(value);
    if (is_const(a, 0))
        return c;
    if (is_const(b, 0))
        return cs_bool_and(cs, cs_bool_not(a), c);
    if (is_const(c, 0))
        return cs_bool_and(cs, a, b);
    if (is_const(c, 1))
        return cs_bool_not(cs_bool_and(cs, a, cs_bool_not(b)));
    if (is_const(b, 1))
        return cs_bool_not(cs_bool_and(cs, cs_bool_not(a), cs_bool_not(c)));
    /* a constant true a, or none constant: (b - c) * a = ch - c */
    cs_var ch = cs_alloc_bit(cs, value);
    if (cs_lcs(cs)) {
        cs_bool_lc(cs, cs_a(cs), b, &cs_fr_one);
        cs_bool_lc(cs, cs_a(cs), c, &cs_fr_minus_one);
        cs_bool_lc(cs, cs_b(cs), a, &cs_fr_one);
        lc_add_one(cs, cs_c(cs), ch);
        cs_bool_lc(cs, cs_c(cs), c, &cs_fr_minus_one);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return is_bit(ch, value);
}

cs_bool cs_bool_sha256_maj(cs_system *cs, cs_bool a, cs_bool b, cs_bool c)
{
    int value = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);
    if (a.kind == CS_BOOL_CONST && b.kind == CS_BOOL_CONST && c.kind == CS_BOOL_CONST)
        return cs_bool_const(value);
    if (is_const(a, 0))
        return cs_bool_and(cs, b, c);
    if (is_const(b, 0))
        return cs_bool_and(cs, a, c);
    if (is_const(c, 0))
        return cs_bool_and(cs, a, b);
    if (is_const(c, 1))
        return cs_bool_not(cs_bool_and(cs, cs_bool_not(a), cs_bool_not(b)));
    if (is_const(b, 1))
        return cs_bool_not(cs_bool_and(cs, cs_bool_not(a), cs_bool_not(c)));
    if (is_const(a, 1))
        return cs_bool_not(cs_bool_and(cs, cs_bool_not(b), cs_bool_not(c)));
    /* maj first, then b & c: (2bc - b - c) * a = bc - maj */
    cs_var maj = cs_alloc_bit(cs, value);
    cs_bool bc = cs_bool_and(cs, b, c);
    if (cs_lcs(cs)) {
        fr two;
        bls12_381_fr_dbl(&two, &cs_fr_one);
        cs_bool_lc(cs, cs_a(cs), bc, &two);
        cs_bool_lc(cs, cs_a(cs), b, &cs_fr_minus_one);
        cs_bool_lc(cs, cs_a(cs), c, &cs_fr_minus_one);
        cs_bool_lc(cs, cs_b(cs), a, &cs_fr_one);
        cs_bool_lc(cs, cs_c(cs), bc, &cs_fr_one);
        lc_sub_one(cs, cs_c(cs), maj);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return is_bit(maj, value);
}

void cs_bool_enforce_equal(cs_system *cs, cs_bool a, cs_bool b)
{
    if (a.kind == CS_BOOL_CONST && b.kind == CS_BOOL_CONST) {
        if (a.value != b.value)
            cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "constraint system: two constant bits that differ are enforced equal");
        return;
    }
    if (!cs_lcs(cs)) {
        cs_skip(cs);
        return;
    }
    if (is_const(a, 1) || is_const(b, 1)) { /* 0 * 0 = 1 - x */
        cs_bool x = is_const(a, 1) ? b : a;
        lc_add_one(cs, cs_c(cs), CS_ONE);
        cs_bool_lc(cs, cs_c(cs), x, &cs_fr_minus_one);
    } else if (is_const(a, 0) || is_const(b, 0)) { /* 0 * 0 = x */
        cs_bool_lc(cs, cs_c(cs), is_const(a, 0) ? b : a, &cs_fr_one);
    } else { /* 0 * 0 = a - b */
        cs_bool_lc(cs, cs_c(cs), a, &cs_fr_one);
        cs_bool_lc(cs, cs_c(cs), b, &cs_fr_minus_one);
    }
    cs_enforce(cs);
}

void cs_u64_to_bits_le(cs_system *cs, uint64_t v, cs_bool out[64])
{
    for (int i = 0; i < 64; i++)
        out[i] = cs_bit_alloc(cs, (int)(v >> i & 1));
}

void cs_fr_to_bits_le(cs_system *cs, const fr *v, cs_bool out[255])
{
    unsigned char le[32];
    bls12_381_fr_to_bytes_le(le, v);
    for (int i = 0; i < 255; i++)
        out[i] = cs_bit_alloc(cs, le[i / 8] >> (i % 8) & 1);
}
