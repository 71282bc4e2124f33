/* Merkle inclusion in a circuit (por.h). */
#include "../cs/sha256.h"
#include "domain.h"
#include "por.h"
#include "poseidon.h"

void fc_insert(cs_system *cs, const cs_num *node, const cs_bool *bits, const cs_num *sib, unsigned arity, cs_num *out)
{
    const cs_num *a = node;
    if (arity == 2) {
        out[0] = cs_num_pick(cs, bits[0], &sib[0], a);
        out[1] = cs_num_pick(cs, bits[0], a, &sib[0]);
        return;
    }
    cs_bool b0 = bits[0], b1 = bits[1];
    if (arity == 4) {
        const cs_num *b = &sib[0], *c = &sib[1], *d = &sib[2];
        cs_num x = cs_num_pick(cs, b0, b, a);
        out[0] = cs_num_pick(cs, b1, b, &x);
        x = cs_num_pick(cs, b0, a, b);
        out[1] = cs_num_pick(cs, b1, c, &x);
        x = cs_num_pick(cs, b0, d, a);
        out[2] = cs_num_pick(cs, b1, &x, c);
        x = cs_num_pick(cs, b0, a, d);
        out[3] = cs_num_pick(cs, b1, &x, d);
        return;
    }
    /* arity 8: b0 nor b1 and b0 and b1 first, then 20 picks in insert_8's order */
    cs_bool b2 = bits[2];
    cs_bool nor = cs_bool_and(cs, cs_bool_not(b0), cs_bool_not(b1)); /* AllocatedBit::nor */
    cs_bool and = cs_bool_and(cs, b0, b1);
    const cs_num *b = &sib[0], *c = &sib[1], *d = &sib[2], *e = &sib[3], *f = &sib[4], *g = &sib[5], *h = &sib[6];
    cs_num x, y;
    x = cs_num_pick(cs, nor, a, b);
    out[0] = cs_num_pick(cs, b2, b, &x);
    x = cs_num_pick(cs, b0, a, b);
    y = cs_num_pick(cs, b1, c, &x);
    out[1] = cs_num_pick(cs, b2, c, &y);
    x = cs_num_pick(cs, b0, d, a);
    y = cs_num_pick(cs, b1, &x, c);
    out[2] = cs_num_pick(cs, b2, d, &y);
    x = cs_num_pick(cs, and, a, d);
    out[3] = cs_num_pick(cs, b2, e, &x);
    x = cs_num_pick(cs, nor, a, f);
    out[4] = cs_num_pick(cs, b2, &x, e);
    x = cs_num_pick(cs, b0, a, f);
    y = cs_num_pick(cs, b1, g, &x);
    out[5] = cs_num_pick(cs, b2, &y, f);
    x = cs_num_pick(cs, b0, h, a);
    y = cs_num_pick(cs, b1, &x, g);
    out[6] = cs_num_pick(cs, b2, &y, g);
    x = cs_num_pick(cs, and, a, h);
    out[7] = cs_num_pick(cs, b2, &x, h);
}

cs_num fc_tree_hash_circuit(cs_system *cs, int tree, const cs_num *children, unsigned n)
{
    if (tree == FC_TREE_POSEIDON) {
        const poseidon_consts *c = poseidon_merkle(n);
        if (!c) {
            cs_fail(cs, CUZK_ERR_NO_MEMORY, "Poseidon of arity %u: no constants", n);
            return children[0];
        }
        return poseidon_circuit(cs, c, children);
    }
    /* each child's 255 bits (to_bits_le), a constant 0 as bit 255, each
     * byte's bits reversed: its 32 little-endian bytes, each byte's most
     * significant bit first; SHA-256 of them, the digest's bits renumbered
     * the same way and 254 of them packed */
    cs_bool bits[8 * 256], le[255], digest[256], renumbered[256];
    if (n > 8) {
        cs_fail(cs, CUZK_ERR_INTERNAL, "a SHA-256 tree level of %u children", n);
        return children[0];
    }
    for (unsigned k = 0; k < n; k++) {
        cs_num_to_bits_le(cs, &children[k], le);
        for (int i = 0; i < 256; i++) {
            int src = i / 8 * 8 + 7 - i % 8;
            bits[256 * k + (unsigned)i] = src < 255 ? le[src] : cs_bool_const(0);
        }
    }
    cs_sha256(cs, bits, 256 * (size_t)n, digest);
    for (int i = 0; i < 256; i++)
        renumbered[i] = digest[i / 8 * 8 + 7 - i % 8];
    return cs_pack_bits(cs, renumbered, 254);
}

cs_num fc_por(cs_system *cs, int tree, const fc_path *path, const cs_num *leaf, const cs_num *root, int public_root)
{
    cs_bool bits[3 * FC_PATH_MAX];
    unsigned n_bits = 0;
    cs_num cur = *leaf;
    for (unsigned l = 0; l < path->n; l++) {
        const fc_path_level *lv = &path->level[l];
        unsigned arity = lv->arity, k = arity == 2 ? 1 : arity == 4 ? 2 : 3;
        cs_bool *ib = bits + n_bits;
        for (unsigned i = 0; i < k; i++)
            ib[i] = cs_bit_alloc(cs, lv->index >> i & 1);
        n_bits += k;
        cs_num sib[7], children[8];
        for (unsigned i = 0; i + 1 < arity; i++) {
            fr v;
            if (fc_domain_to_fr(path->sib[lv->sib + i], &v) != CUZK_OK) {
                cs_fail(cs, CUZK_ERR_NOT_CANONICAL, "a Merkle path's sibling at level %u is not a field element", l);
                v = cs_fr_zero;
            }
            sib[i] = cs_num_alloc(cs, &v);
        }
        fc_insert(cs, &cur, ib, sib, arity, children);
        cur = fc_tree_hash_circuit(cs, tree, children, arity);
    }
    cs_pack_into_inputs(cs, bits, n_bits);
    cs_num rt;
    if (!root) { /* allocated here, after the path (Root::Val) */
        fr v;
        if (fc_domain_to_fr(path->root, &v) != CUZK_OK) {
            cs_fail(cs, CUZK_ERR_NOT_CANONICAL, "a Merkle path's root is not a field element");
            v = cs_fr_zero;
        }
        rt = cs_num_alloc(cs, &v);
        root = &rt;
    }
    cs_num_enforce_equal(cs, &cur, root);
    if (public_root)
        cs_num_inputize(cs, root);
    return cur;
}
