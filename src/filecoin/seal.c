/* Test sealing (seal.h). */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/sha256.h"
#include "domain.h"
#include "graph.h"
#include "poseidon.h"
#include "seal.h"

int fc_tree_build(fc_tree *t, int hash, const unsigned char (*leaves)[32], uint64_t n, const unsigned *arity,
                  unsigned n_levels, cuzk_error *err)
{
    memset(t, 0, sizeof *t);
    t->hash = hash;
    t->n_levels = n_levels;
    t->count[0] = n;
    if (n_levels > FC_PATH_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a tree of %u levels", n_levels);
    if (!(t->node[0] = malloc(n * 32)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a tree of %llu leaves)", (unsigned long long)n);
    memcpy(t->node[0], leaves, n * 32);
    for (unsigned l = 0; l < n_levels; l++) {
        unsigned a = arity[l];
        t->arity[l] = a;
        if (t->count[l] % a)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a tree level of %llu nodes in groups of %u",
                                  (unsigned long long)t->count[l], a);
        uint64_t m = t->count[l + 1] = t->count[l] / a;
        if (!(t->node[l + 1] = malloc(m * 32)))
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a tree)");
        const poseidon_consts *pc = hash == FC_TREE_POSEIDON ? poseidon_merkle(a) : NULL;
        for (uint64_t i = 0; i < m; i++) {
            const unsigned char(*kids)[32] = t->node[l] + i * a;
            if (hash == FC_TREE_SHA256) {
                fc_sha256_trim(kids, 32 * (size_t)a, t->node[l + 1][i]);
                continue;
            }
            fr in[8], out;
            for (unsigned k = 0; k < a; k++)
                if (fc_domain_to_fr(kids[k], &in[k]) != CUZK_OK)
                    return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "a tree's node is not a field element");
            poseidon_hash(pc, in, &out);
            fc_fr_to_domain(&out, t->node[l + 1][i]);
        }
    }
    return CUZK_OK;
}

void fc_tree_free(fc_tree *t)
{
    for (unsigned l = 0; l <= FC_PATH_MAX; l++)
        free(t->node[l]);
    memset(t, 0, sizeof *t);
}

const unsigned char *fc_tree_root(const fc_tree *t)
{
    return t->node[t->n_levels][0];
}

int fc_tree_path(const fc_tree *t, uint64_t i, fc_path *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (i >= t->count[0])
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "leaf %llu of %llu", (unsigned long long)i,
                              (unsigned long long)t->count[0]);
    memcpy(out->leaf, t->node[0][i], 32);
    memcpy(out->root, fc_tree_root(t), 32);
    for (unsigned l = 0; l < t->n_levels; l++) {
        unsigned a = t->arity[l], pos = (unsigned)(i % a);
        unsigned char sib[7][32];
        for (unsigned k = 0, s = 0; k < a; k++)
            if (k != pos)
                memcpy(sib[s++], t->node[l][i - pos + k], 32);
        int rc = fc_path_push(out, a, pos, (const unsigned char(*)[32])sib, err);
        if (rc) {
            fc_path_free(out);
            return rc;
        }
        i /= a;
    }
    return CUZK_OK;
}

void fc_label_hash(const unsigned char replica_id[32], unsigned layer, uint64_t node,
                   const unsigned char (*parents)[32], unsigned char out[32])
{
    unsigned char hdr[32] = {0};
    for (int i = 0; i < 4; i++)
        hdr[i] = (unsigned char)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        hdr[4 + i] = (unsigned char)(node >> (56 - 8 * i));
    sha256_state s;
    sha256_init(&s);
    sha256_update(&s, replica_id, 32);
    sha256_update(&s, hdr, 32);
    if (parents)
        sha256_update(&s, parents, 37 * 32);
    sha256_final(&s, out);
    out[31] &= 0x3f;
}

/* the levels' arities of trees R and C, or of tree D */
static unsigned tree_arities(const fc_porep_shape *sh, int tree_d, unsigned *arity)
{
    unsigned n = 0;
    if (tree_d) {
        for (unsigned l = 0; l < fc_tree_d_levels(sh); l++)
            arity[n++] = 2;
        return n;
    }
    for (unsigned l = 0; l < fc_tree_base_levels(sh); l++)
        arity[n++] = sh->arity[0];
    for (int k = 1; k < 3; k++)
        if (sh->arity[k])
            arity[n++] = sh->arity[k];
    return n;
}

int fc_seal(const fc_porep_config *c, const unsigned char (*data)[32], const unsigned char prover_id[32],
            uint64_t sector_id, const unsigned char ticket[32], fc_sealed *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    const fc_porep_shape *sh = &c->shape;
    uint64_t n = sh->nodes;
    unsigned L = sh->layers, arity[FC_PATH_MAX], levels;
    out->config = c;
    out->sector_id = sector_id;
    memcpy(out->prover_id, prover_id, 32);
    memcpy(out->ticket, ticket, 32);
    for (uint64_t i = 0; i < n; i++)
        if (data[i][31] & 0xc0)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "data node %llu is not below 2^254 (fr32 padding)",
                                  (unsigned long long)i);
    out->data = malloc(n * 32);
    out->labels = malloc(n * L * 32);
    unsigned char(*leaves)[32] = malloc(n * 32), (*parents)[32] = malloc(37 * 32);
    int rc = out->data && out->labels && leaves && parents ? CUZK_OK
                                                           : cuzk_error_set(err, CUZK_ERR_NO_MEMORY,
                                                                            "out of memory (sealing %llu nodes)",
                                                                            (unsigned long long)n);
    if (!rc) {
        memcpy(out->data, data, n * 32);
        levels = tree_arities(sh, 1, arity);
        rc = fc_tree_build(&out->tree_d, FC_TREE_SHA256, data, n, arity, levels, err);
    }
    if (!rc) {
        memcpy(out->comm_d, fc_tree_root(&out->tree_d), 32);
        unsigned char porep_id[32];
        fc_porep_id(c, porep_id);
        fc_replica_id(prover_id, sector_id, ticket, out->comm_d, porep_id, out->replica_id);
        fc_graph g;
        fc_graph_init(&g, n, porep_id, c->api_1_0);
        /* PC1: each layer's labels; DRG parents from the layer itself, the
         * expander parents (past layer 1) from the layer below */
        for (unsigned layer = 1; layer <= L; layer++) {
            unsigned char(*cur)[32] = out->labels + (layer - 1) * n, (*prev)[32] = cur - n;
            for (uint64_t v = 0; v < n; v++) {
                if (v == 0) {
                    fc_label_hash(out->replica_id, layer, 0, NULL, cur[0]);
                    continue;
                }
                uint32_t p[14];
                fc_graph_drg_parents(&g, v, p);
                unsigned np = 6;
                if (layer > 1) {
                    fc_graph_exp_parents(&g, v, p + 6);
                    np = 14;
                }
                for (unsigned k = 0; k < 37; k++) {
                    unsigned q = k % np;
                    memcpy(parents[k], q < 6 ? cur[p[q]] : prev[p[q]], 32);
                }
                fc_label_hash(out->replica_id, layer, v, (const unsigned char(*)[32])parents, cur[v]);
            }
        }
        /* PC2: tree C over the columns' hashes, tree R over the replica */
        const poseidon_consts *pc = poseidon_merkle(L);
        for (uint64_t v = 0; v < n && !rc; v++) {
            fr col[FC_MAX_LAYERS], h;
            for (unsigned l = 0; l < L; l++)
                if (fc_domain_to_fr(out->labels[l * n + v], &col[l]) != CUZK_OK)
                    rc = cuzk_error_set(err, CUZK_ERR_INTERNAL, "a label is not a field element");
            poseidon_hash(pc, col, &h);
            fc_fr_to_domain(&h, leaves[v]);
        }
        levels = tree_arities(sh, 0, arity);
        if (!rc)
            rc = fc_tree_build(&out->tree_c, FC_TREE_POSEIDON, (const unsigned char(*)[32])leaves, n, arity, levels,
                               err);
        for (uint64_t v = 0; v < n && !rc; v++) {
            fr key, d;
            fc_domain_to_fr(out->labels[(L - 1) * n + v], &key);
            fc_domain_to_fr(data[v], &d);
            bls12_381_fr_add(&key, &key, &d);
            fc_fr_to_domain(&key, leaves[v]);
        }
        if (!rc)
            rc = fc_tree_build(&out->tree_r, FC_TREE_POSEIDON, (const unsigned char(*)[32])leaves, n, arity, levels,
                               err);
    }
    if (!rc) {
        memcpy(out->comm_c, fc_tree_root(&out->tree_c), 32);
        memcpy(out->comm_r_last, fc_tree_root(&out->tree_r), 32);
        fr in[2], h;
        fc_domain_to_fr(out->comm_c, &in[0]);
        fc_domain_to_fr(out->comm_r_last, &in[1]);
        poseidon_hash(poseidon_merkle(2), in, &h);
        fc_fr_to_domain(&h, out->comm_r);
    }
    free(leaves);
    free(parents);
    if (rc)
        fc_sealed_free(out);
    return rc;
}

void fc_sealed_free(fc_sealed *s)
{
    free(s->data);
    free(s->labels);
    fc_tree_free(&s->tree_d);
    fc_tree_free(&s->tree_c);
    fc_tree_free(&s->tree_r);
    memset(s, 0, sizeof *s);
}

/* a node's column (its label in each layer) and its path in tree C */
static int column_proof(const fc_sealed *s, uint64_t node, fc_column_proof *out, cuzk_error *err)
{
    const fc_porep_shape *sh = &s->config->shape;
    for (unsigned l = 0; l < sh->layers; l++)
        fc_domain_to_fr(s->labels[l * sh->nodes + node], &out->rows[l]);
    return fc_tree_path(&s->tree_c, node, &out->path, err);
}

int fc_sealed_partition(const fc_sealed *s, const unsigned char seed[32], unsigned k, fc_stacked_partition *out,
                        cuzk_error *err)
{
    const fc_porep_config *c = s->config;
    memset(out, 0, sizeof *out);
    out->shape = c->shape;
    uint64_t *ch = calloc(c->shape.challenges, sizeof *ch);
    out->proofs = calloc(c->shape.challenges, sizeof *out->proofs);
    if (!ch || !out->proofs) {
        free(ch);
        free(out->proofs);
        out->proofs = NULL;
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a partition)");
    }
    int rc = fc_porep_challenges(c, s->replica_id, s->comm_r, seed, k, ch, err);
    fc_domain_to_fr(s->replica_id, &out->replica_id);
    fc_domain_to_fr(s->comm_d, &out->comm_d);
    fc_domain_to_fr(s->comm_r, &out->comm_r);
    fc_domain_to_fr(s->comm_r_last, &out->comm_r_last);
    fc_domain_to_fr(s->comm_c, &out->comm_c);
    unsigned char porep_id[32];
    fc_porep_id(c, porep_id);
    fc_graph g;
    fc_graph_init(&g, c->shape.nodes, porep_id, c->api_1_0);
    for (unsigned i = 0; i < c->shape.challenges && !rc; i++) {
        fc_challenge_proof *cp = &out->proofs[i];
        uint64_t x = cp->challenge = ch[i];
        rc = fc_tree_path(&s->tree_d, x, &cp->comm_d_path, err);
        if (!rc)
            rc = fc_tree_path(&s->tree_r, x, &cp->comm_r_last_path, err);
        if (!rc)
            rc = fc_tree_path(&s->tree_c, x, &cp->comm_c_path, err);
        uint32_t p[14];
        fc_graph_drg_parents(&g, x, p);
        fc_graph_exp_parents(&g, x, p + 6);
        for (int j = 0; j < 6 && !rc; j++)
            rc = column_proof(s, p[j], &cp->drg[j], err);
        for (int j = 0; j < 8 && !rc; j++)
            rc = column_proof(s, p[6 + j], &cp->exp[j], err);
    }
    free(ch);
    if (rc)
        fc_stacked_free(out);
    return rc;
}
