/* rust-fil-proofs' own gadgets (storage-proofs-core's gadgets/ and the
 * stacked circuit's create_label), over the builder of src/cs/: 64-bit
 * words, bytes as bits, and the SDR labelling hash. */
#ifndef CUZK_FILECOIN_GADGETS_H
#define CUZK_FILECOIN_GADGETS_H

#include "../cs/num.h"
#include "../cs/uint32.h"

/* Parents a label hashes: 6 DRG and 8 expander parents, repeated to 37
 * (TOTAL_PARENTS), after the replica id and the layer and node. */
#define FC_TOTAL_PARENTS 37

typedef struct fc_u64 {
    cs_bool bits[64]; /* low bit first */
    uint64_t value;
} fc_u64;

fc_u64 fc_u64_const(uint64_t v);
fc_u64 fc_u64_alloc(cs_system *cs, uint64_t v);
/* the bits, most significant first */
void fc_u64_to_bits_be(const fc_u64 *x, cs_bool out[64]);
/* the 64 bits packed into one public input (UInt64::pack_into_input) */
void fc_u64_pack_into_input(cs_system *cs, const fc_u64 *x);

/* n bytes as 8n allocated bits, each byte's most significant bit first
 * (bytes_into_boolean_vec_be). */
void fc_bytes_to_bits_be(cs_system *cs, const unsigned char *bytes, size_t n, cs_bool *out);

/* The label of a node (create_label_circuit): SHA-256 of the replica id's
 * bits (up to 256, padded with constant zeros), the layer (32 bits) and
 * node (64 bits), most significant first, padded to 512 bits, then the
 * 37 parents' labels of 256 bits each; the digest's bits renumbered within
 * each byte and its first 254 packed into one number. */
cs_num fc_create_label(cs_system *cs, const cs_bool *replica_id, size_t id_bits, const cs_bool *const parents[37],
                       const cs_u32 *layer, const fc_u64 *node);

#endif
