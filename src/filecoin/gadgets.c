/* rust-fil-proofs' gadgets (gadgets.h). */
#include <stdlib.h>

#include "../cs/sha256.h"
#include "gadgets.h"

fc_u64 fc_u64_const(uint64_t v)
{
    fc_u64 x;
    x.value = v;
    for (int i = 0; i < 64; i++)
        x.bits[i] = cs_bool_const((int)(v >> i & 1));
    return x;
}

fc_u64 fc_u64_alloc(cs_system *cs, uint64_t v)
{
    fc_u64 x;
    x.value = v;
    cs_u64_to_bits_le(cs, v, x.bits);
    return x;
}

void fc_u64_to_bits_be(const fc_u64 *x, cs_bool out[64])
{
    for (int i = 0; i < 64; i++)
        out[i] = x->bits[63 - i];
}

void fc_u64_pack_into_input(cs_system *cs, const fc_u64 *x)
{
    cs_pack_into_inputs(cs, x->bits, 64);
}

void fc_bytes_to_bits_be(cs_system *cs, const unsigned char *bytes, size_t n, cs_bool *out)
{
    for (size_t i = 0; i < 8 * n; i++)
        out[i] = cs_bit_alloc(cs, bytes[i / 8] >> (7 - i % 8) & 1);
}

cs_num fc_create_label(cs_system *cs, const cs_bool *replica_id, size_t id_bits, const cs_bool *const parents[37],
                       const cs_u32 *layer, const fc_u64 *node)
{
    enum { BITS = (2 + FC_TOTAL_PARENTS) * 256 };
    cs_bool *m = malloc(BITS * sizeof *m), digest[256], renumbered[256];
    if (!m || id_bits > 256) {
        free(m);
        cs_fail(cs, m ? CUZK_ERR_INTERNAL : CUZK_ERR_NO_MEMORY, "create_label: %s",
                m ? "a replica id of more than 256 bits" : "out of memory");
        return cs_num_alloc(cs, &cs_fr_zero);
    }
    size_t k = 0;
    for (; k < id_bits; k++)
        m[k] = replica_id[k];
    for (; k < 256; k++)
        m[k] = cs_bool_const(0);
    cs_u32_to_bits_be(layer, m + 256);
    fc_u64_to_bits_be(node, m + 288);
    for (k = 352; k < 512; k++)
        m[k] = cs_bool_const(0);
    for (int p = 0; p < FC_TOTAL_PARENTS; p++)
        for (int i = 0; i < 256; i++)
            m[512 + 256 * p + i] = parents[p][i];
    cs_sha256(cs, m, BITS, digest);
    free(m);
    for (int i = 0; i < 256; i++) /* reverse_bit_numbering: each byte's bits reversed */
        renumbered[i] = digest[i / 8 * 8 + 7 - i % 8];
    return cs_pack_bits(cs, renumbered, 254);
}
