/* SHA-256 in a circuit, as bellpepper's sha256.rs builds it: the message
 * schedule and rounds over cs_u32 words, additions deferred and summed at
 * once (addmany), their equalities accumulated per compression. A
 * message of constant bits costs nothing; 25,840 constraints a block of
 * allocated bits with the IV's constant state. */
#ifndef CUZK_CS_SHA256_H
#define CUZK_CS_SHA256_H

#include "uint32.h"

/* One compression of 512 bits (each word's most significant bit first)
 * from the state cur into out. */
void cs_sha256_compress(cs_system *cs, const cs_bool in[512], const cs_u32 cur[8], cs_u32 out[8]);
/* The state before the first block: the IV, constant. */
void cs_sha256_iv(cs_u32 out[8]);
/* SHA-256 of n_bits bits (a multiple of 8, each byte's most significant
 * bit first), padded as the standard says with constant bits; the digest's
 * 256 bits, each byte's most significant bit first. */
void cs_sha256(cs_system *cs, const cs_bool *in, size_t n_bits, cs_bool out[256]);
/* One block without padding: the compression of 512 bits from the IV,
 * the digest's 256 bits as cs_sha256 gives them. */
void cs_sha256_block_no_padding(cs_system *cs, const cs_bool in[512], cs_bool out[256]);

#endif
