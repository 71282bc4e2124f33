/* 32-bit words in a circuit (bellpepper's uint32.rs) and the equality
 * accumulator their additions go through (multieq.rs): many equalities
 * of small sums are packed into one constraint, 254 bits (the field's
 * capacity) at a time, the constraint enforced when the next equality
 * would not fit and once more when the accumulator is finished. */
#ifndef CUZK_CS_UINT32_H
#define CUZK_CS_UINT32_H

#include "boolean.h"

typedef struct cs_u32 {
    cs_bool bits[32]; /* low bit first */
    uint32_t value;
} cs_u32;

typedef struct cs_multieq {
    cs_lc lhs, rhs;
    unsigned bits_used;
    fr coeff; /* 2^bits_used */
} cs_multieq;

/* lhs == rhs, both below 2^num_bits. */
void cs_multieq_enforce_equal(cs_system *cs, cs_multieq *me, unsigned num_bits, const cs_lc *lhs, const cs_lc *rhs);
/* Enforces what is left and frees the accumulator (MultiEq's drop). */
void cs_multieq_finish(cs_system *cs, cs_multieq *me);

cs_u32 cs_u32_const(uint32_t v);
/* 32 allocated bits, low bit first */
cs_u32 cs_u32_alloc(cs_system *cs, uint32_t v);
/* From 32 bits, the most significant first, and back. */
cs_u32 cs_u32_from_bits_be(const cs_bool bits[32]);
void cs_u32_to_bits_be(const cs_u32 *x, cs_bool out[32]);
cs_u32 cs_u32_rotr(const cs_u32 *x, unsigned by);
cs_u32 cs_u32_shr(const cs_u32 *x, unsigned by);
cs_u32 cs_u32_xor(cs_system *cs, const cs_u32 *a, const cs_u32 *b);
cs_u32 cs_u32_sha256_ch(cs_system *cs, const cs_u32 *a, const cs_u32 *b, const cs_u32 *c);
cs_u32 cs_u32_sha256_maj(cs_system *cs, const cs_u32 *a, const cs_u32 *b, const cs_u32 *c);
/* The sum of n (2 to 10) words mod 2^32: the sum's bits allocated, its
 * equality with the operands' bits accumulated in me. */
cs_u32 cs_u32_addmany(cs_system *cs, cs_multieq *me, const cs_u32 *ops, unsigned n);

#endif
