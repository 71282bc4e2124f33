/* Filecoin's 32-byte values: a "domain" holds a field element as its
 * canonical little-endian bytes (a Poseidon node, comm_r, a label) or a
 * SHA-256 digest with its top two bits cleared so that it is one too
 * (comm_d, tree D's nodes, replica_id). Commitments also travel as CIDs
 * (a sealed sector's comm_r: bagboea4b5abc...; an unsealed one's comm_d:
 * baga6ea4sea...). */
#ifndef CUZK_FILECOIN_DOMAIN_H
#define CUZK_FILECOIN_DOMAIN_H

#include <stddef.h>

#include "../cs/cs.h"

/* CUZK_ERR_NOT_CANONICAL when the bytes are r or more. */
int fc_domain_to_fr(const unsigned char d[32], fr *out);
void fc_fr_to_domain(const fr *x, unsigned char d[32]);
/* SHA-256 with the digest's top two bits cleared (trim_to_fr32). */
void fc_sha256_trim(const void *data, size_t n, unsigned char out[32]);
/* A node of a SHA-256 tree: trim(SHA-256(a || b)). */
void fc_sha256_node(const unsigned char a[32], const unsigned char b[32], unsigned char out[32]);

enum { FC_COMM_SEALED, FC_COMM_UNSEALED };
/* The 32 bytes of a commitment CID (base32 multibase "b", CIDv1, the
 * sealed codec 0xf102 with Poseidon's multihash 0xb401, or the unsealed
 * 0xf101 with sha2-256-trunc254-padded 0x1012). CUZK_ERR_FORMAT naming
 * what differs. */
int fc_commitment_from_cid(const char *cid, int kind, unsigned char out[32], cuzk_error *err);

#endif
