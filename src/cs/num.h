/* Field elements in a circuit (bellpepper-core's num.rs: AllocatedNum, a
 * variable with its value; Num, a linear combination with its value) and
 * bit packing (bellpepper's multipack.rs). */
#ifndef CUZK_CS_NUM_H
#define CUZK_CS_NUM_H

#include "boolean.h"

typedef struct cs_num {
    cs_var var;
    fr value;
} cs_num;

/* A linear combination and its value (only its value in CS_WITNESS). */
typedef struct cs_lcnum {
    cs_lc lc;
    fr value;
} cs_lcnum;

cs_num cs_num_alloc(cs_system *cs, const fr *value);
cs_num cs_num_alloc_input(cs_system *cs, const fr *value);
/* A new input equal to x: input * 1 = x. */
void cs_num_inputize(cs_system *cs, const cs_num *x);
/* x's 255 bits, low bit first, allocated, and one constraint 0 * 0 =
 * sum 2^i b_i - x (AllocatedNum::to_bits_le). */
void cs_num_to_bits_le(cs_system *cs, const cs_num *x, cs_bool out[255]);
cs_num cs_num_add(cs_system *cs, const cs_num *a, const cs_num *b); /* (a + b) * 1 = r */
cs_num cs_num_mul(cs_system *cs, const cs_num *a, const cs_num *b); /* a * b = r */
cs_num cs_num_square(cs_system *cs, const cs_num *a);              /* a * a = r */
/* c = condition ? a : b, with (b - a) * condition = b - c (rust-fil-proofs'
 * pick; conditional reversal is two of them). */
cs_num cs_num_pick(cs_system *cs, cs_bool condition, const cs_num *a, const cs_num *b);
/* (c, d) = condition ? (b, a) : (a, b), two variables and two
 * constraints: (a - b) * condition = a - c, (b - a) * condition = b - d. */
void cs_num_conditionally_reverse(cs_system *cs, const cs_num *a, const cs_num *b, cs_bool condition, cs_num *c,
                                  cs_num *d);
/* x == y: x * 1 = y */
void cs_num_enforce_equal(cs_system *cs, const cs_num *x, const cs_num *y);

void cs_lcnum_zero(cs_lcnum *n);
void cs_lcnum_free(cs_lcnum *n);
/* n += coeff * bit */
void cs_lcnum_add_bool(cs_system *cs, cs_lcnum *n, cs_bool bit, const fr *coeff);

/* Packs bits (low bit first) into public inputs, 254 a chunk, each an
 * input and a constraint sum * 1 = input (multipack::pack_into_inputs). */
void cs_pack_into_inputs(cs_system *cs, const cs_bool *bits, size_t n);
/* Packs the first 254 of the bits (low bit first) into one allocated
 * number: sum * 1 = num (multipack::pack_bits). */
cs_num cs_pack_bits(cs_system *cs, const cs_bool *bits, size_t n);

#endif
