/* Booleans in a circuit, as bellpepper-core's boolean.rs builds them: a
 * Boolean is a constant, an allocated bit, or the negation of one, and
 * every operation folds constants the way bellpepper does (an operand
 * that is a constant allocates nothing), so the same calls allocate the
 * same variables and enforce the same constraints in the same order. */
#ifndef CUZK_CS_BOOLEAN_H
#define CUZK_CS_BOOLEAN_H

#include "cs.h"

enum { CS_BOOL_CONST, CS_BOOL_IS, CS_BOOL_NOT };

typedef struct cs_bool {
    cs_var var;    /* the allocated bit (CS_BOOL_IS, CS_BOOL_NOT) */
    uint8_t kind;
    uint8_t value; /* the Boolean's value (a CS_BOOL_NOT's is its bit's negation) */
} cs_bool;

static inline cs_bool cs_bool_const(int v)
{
    return (cs_bool){.var = 0, .kind = CS_BOOL_CONST, .value = (uint8_t)(v != 0)};
}
static inline cs_bool cs_bool_not(cs_bool b)
{
    if (b.kind != CS_BOOL_CONST)
        b.kind = b.kind == CS_BOOL_IS ? CS_BOOL_NOT : CS_BOOL_IS;
    b.value ^= 1;
    return b;
}

/* An allocated bit (1 aux variable, 1 constraint (1 - b) * b = 0). */
cs_bool cs_bit_alloc(cs_system *cs, int value);
/* An allocated bit that is 0 whenever must_be_false's bit is 1:
 * (1 - must_be_false - b) * b = 0. */
cs_bool cs_bit_alloc_conditionally(cs_system *cs, int value, cs_bool must_be_false);

/* lc += coeff * b (a constant true: coeff * ONE; a negation: coeff * ONE
 * - coeff * bit). */
void cs_bool_lc(cs_system *cs, cs_lc *lc, cs_bool b, const fr *coeff);

cs_bool cs_bool_xor(cs_system *cs, cs_bool a, cs_bool b);
cs_bool cs_bool_and(cs_system *cs, cs_bool a, cs_bool b);
cs_bool cs_bool_or(cs_system *cs, cs_bool a, cs_bool b);
/* SHA-256's Ch(a, b, c) = (a & b) ^ (!a & c) and Maj(a, b, c). */
cs_bool cs_bool_sha256_ch(cs_system *cs, cs_bool a, cs_bool b, cs_bool c);
cs_bool cs_bool_sha256_maj(cs_system *cs, cs_bool a, cs_bool b, cs_bool c);
/* a == b: one constraint 0 * 0 = a - b (or a - 1, or a, against a
 * constant); two constants that differ fail the system. */
void cs_bool_enforce_equal(cs_system *cs, cs_bool a, cs_bool b);

/* 64 bits of v, low bit first, each allocated (u64_into_boolean_vec_le). */
void cs_u64_to_bits_le(cs_system *cs, uint64_t v, cs_bool out[64]);
/* The 255 bits of a field element, low bit first, each allocated
 * (field_into_allocated_bits_le). */
void cs_fr_to_bits_le(cs_system *cs, const fr *v, cs_bool out[255]);

#endif
