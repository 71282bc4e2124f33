/* Merkle inclusion paths (merkle.h). */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "domain.h"
#include "merkle.h"
#include "poseidon.h"

int fc_path_push(fc_path *p, unsigned arity, unsigned index, const unsigned char (*sib)[32], cuzk_error *err)
{
    if (arity != 2 && arity != 4 && arity != 8)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "a Merkle path level of arity %u (2, 4 or 8 expected)", arity);
    if (index >= arity)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "a Merkle path level's position %u is not below its arity %u",
                              index, arity);
    if (p->n == FC_PATH_MAX)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "a Merkle path of more than %d levels", FC_PATH_MAX);
    void *q = realloc(p->sib, (p->n_sib + arity - 1) * sizeof *p->sib);
    if (!q)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a Merkle path)");
    p->sib = q;
    memcpy(p->sib + p->n_sib, sib, (arity - 1) * sizeof *p->sib);
    p->level[p->n++] = (fc_path_level){.arity = (uint8_t)arity, .index = (uint8_t)index, .sib = p->n_sib};
    p->n_sib += arity - 1;
    return CUZK_OK;
}

int fc_path_append(fc_path *dst, const fc_path *src, cuzk_error *err)
{
    for (unsigned l = 0; l < src->n; l++) {
        const fc_path_level *lv = &src->level[l];
        int rc = fc_path_push(dst, lv->arity, lv->index, (const unsigned char(*)[32])src->sib + lv->sib, err);
        if (rc)
            return rc;
    }
    return CUZK_OK;
}

void fc_path_free(fc_path *p)
{
    free(p->sib);
    memset(p, 0, sizeof *p);
}

int fc_path_root(const fc_path *p, int tree, unsigned char root[32], cuzk_error *err)
{
    unsigned char cur[32];
    memcpy(cur, p->leaf, 32);
    for (unsigned l = 0; l < p->n; l++) {
        const fc_path_level *lv = &p->level[l];
        const unsigned char(*sib)[32] = p->sib + lv->sib;
        if (tree == FC_TREE_SHA256) { /* trim(SHA-256 of the children's bytes) */
            unsigned char m[8 * 32];
            for (unsigned i = 0, s = 0; i < lv->arity; i++)
                memcpy(m + 32 * i, i == lv->index ? cur : sib[s++], 32);
            fc_sha256_trim(m, 32 * (size_t)lv->arity, cur);
            continue;
        }
        fr in[8];
        for (unsigned i = 0, s = 0; i < lv->arity; i++) {
            const unsigned char *x = i == lv->index ? cur : sib[s++];
            if (fc_domain_to_fr(x, &in[i]) != CUZK_OK)
                return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL,
                                      "level %u of a Poseidon tree's path: a node is not below the field's modulus", l);
        }
        const poseidon_consts *c = poseidon_merkle(lv->arity);
        if (!c)
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (Poseidon's constants)");
        fr out;
        poseidon_hash(c, in, &out);
        fc_fr_to_domain(&out, cur);
    }
    memcpy(root, cur, 32);
    return CUZK_OK;
}

uint64_t fc_path_index(const fc_path *p)
{
    uint64_t idx = 0, scale = 1;
    for (unsigned l = 0; l < p->n; l++) {
        idx += p->level[l].index * scale;
        scale *= p->level[l].arity;
    }
    return idx;
}
