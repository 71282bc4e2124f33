/* Field elements and bit packing in a circuit (num.h). */
#include "num.h"

#define FR_CAPACITY 254

cs_num cs_num_alloc(cs_system *cs, const fr *value)
{
    return (cs_num){.var = cs_alloc(cs, value), .value = *value};
}

cs_num cs_num_alloc_input(cs_system *cs, const fr *value)
{
    return (cs_num){.var = cs_alloc_input(cs, value), .value = *value};
}

/* a * b = c, each a variable (or ONE) with coefficient 1 */
static void enforce_vars(cs_system *cs, cs_var a, cs_var b, cs_var c)
{
    if (cs_lcs(cs)) {
        lc_add_one(cs, cs_a(cs), a);
        lc_add_one(cs, cs_b(cs), b);
        lc_add_one(cs, cs_c(cs), c);
        cs_enforce(cs);
    } else
        cs_skip(cs);
}

void cs_num_inputize(cs_system *cs, const cs_num *x)
{
    cs_var in = cs_alloc_input(cs, &x->value);
    enforce_vars(cs, in, CS_ONE, x->var);
}

void cs_num_to_bits_le(cs_system *cs, const cs_num *x, cs_bool out[255])
{
    cs_fr_to_bits_le(cs, &x->value, out);
    if (!cs_lcs(cs)) {
        cs_skip(cs);
        return;
    }
    fr coeff = cs_fr_one;
    for (int i = 0; i < 255; i++) {
        lc_add(cs, cs_c(cs), out[i].var, &coeff);
        bls12_381_fr_dbl(&coeff, &coeff);
    }
    lc_sub_one(cs, cs_c(cs), x->var);
    cs_enforce(cs);
}

cs_num cs_num_add(cs_system *cs, const cs_num *a, const cs_num *b)
{
    fr v;
    bls12_381_fr_add(&v, &a->value, &b->value);
    cs_num r = cs_num_alloc(cs, &v);
    if (cs_lcs(cs)) {
        lc_add_one(cs, cs_a(cs), a->var);
        lc_add_one(cs, cs_a(cs), b->var);
        lc_add_one(cs, cs_b(cs), CS_ONE);
        lc_add_one(cs, cs_c(cs), r.var);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return r;
}

cs_num cs_num_mul(cs_system *cs, const cs_num *a, const cs_num *b)
{
    fr v;
    bls12_381_fr_mul(&v, &a->value, &b->value);
    cs_num r = cs_num_alloc(cs, &v);
    enforce_vars(cs, a->var, b->var, r.var);
    return r;
}

cs_num cs_num_square(cs_system *cs, const cs_num *a)
{
    fr v;
    bls12_381_fr_sqr(&v, &a->value);
    cs_num r = cs_num_alloc(cs, &v);
    enforce_vars(cs, a->var, a->var, r.var);
    return r;
}

cs_num cs_num_pick(cs_system *cs, cs_bool condition, const cs_num *a, const cs_num *b)
{
    cs_num c = cs_num_alloc(cs, condition.value ? &a->value : &b->value);
    if (cs_lcs(cs)) {
        lc_add_one(cs, cs_a(cs), b->var);
        lc_sub_one(cs, cs_a(cs), a->var);
        cs_bool_lc(cs, cs_b(cs), condition, &cs_fr_one);
        lc_add_one(cs, cs_c(cs), b->var);
        lc_sub_one(cs, cs_c(cs), c.var);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    return c;
}

void cs_num_conditionally_reverse(cs_system *cs, const cs_num *a, const cs_num *b, cs_bool condition, cs_num *c,
                                  cs_num *d)
{
    *c = cs_num_pick(cs, condition, b, a);
    *d = cs_num_pick(cs, condition, a, b);
}

void cs_num_enforce_equal(cs_system *cs, const cs_num *x, const cs_num *y)
{
    enforce_vars(cs, x->var, CS_ONE, y->var);
}

void cs_lcnum_zero(cs_lcnum *n)
{
    n->lc = (cs_lc){0};
    n->value = cs_fr_zero;
}

void cs_lcnum_free(cs_lcnum *n)
{
    lc_free(&n->lc);
}

void cs_lcnum_add_bool(cs_system *cs, cs_lcnum *n, cs_bool bit, const fr *coeff)
{
    if (bit.value)
        bls12_381_fr_add(&n->value, &n->value, coeff);
    if (cs_lcs(cs))
        cs_bool_lc(cs, &n->lc, bit, coeff);
}

/* sum 2^i bits[i] as a cs_lcnum */
static void pack(cs_system *cs, cs_lcnum *num, const cs_bool *bits, size_t n)
{
    cs_lcnum_zero(num);
    fr coeff = cs_fr_one;
    for (size_t i = 0; i < n; i++) {
        cs_lcnum_add_bool(cs, num, bits[i], &coeff);
        bls12_381_fr_dbl(&coeff, &coeff);
    }
}

/* num * 1 = var */
static void enforce_packing(cs_system *cs, const cs_lcnum *num, cs_var var)
{
    if (cs_lcs(cs)) {
        lc_add_lc(cs, cs_a(cs), &num->lc, NULL);
        lc_add_one(cs, cs_b(cs), CS_ONE);
        lc_add_one(cs, cs_c(cs), var);
        cs_enforce(cs);
    } else
        cs_skip(cs);
}

void cs_pack_into_inputs(cs_system *cs, const cs_bool *bits, size_t n)
{
    for (size_t i = 0; i < n; i += FR_CAPACITY) {
        cs_lcnum num;
        pack(cs, &num, bits + i, n - i < FR_CAPACITY ? n - i : FR_CAPACITY);
        cs_var in = cs_alloc_input(cs, &num.value);
        enforce_packing(cs, &num, in);
        cs_lcnum_free(&num);
    }
}

cs_num cs_pack_bits(cs_system *cs, const cs_bool *bits, size_t n)
{
    cs_lcnum num;
    pack(cs, &num, bits, n < FR_CAPACITY ? n : FR_CAPACITY);
    cs_num r = cs_num_alloc(cs, &num.value);
    enforce_packing(cs, &num, r.var);
    cs_lcnum_free(&num);
    return r;
}
