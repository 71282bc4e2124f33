/* Test sealing (seal.h). */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "../util/sha256.h"
#include "domain.h"
#include "graph.h"
#include "poseidon.h"
#include "seal.h"

/* trim(SHA-256(key, level, index)): a made-up node, a field element */
static void made_up_node(const void *key, unsigned level, uint64_t index, unsigned char out[32])
{
    unsigned char m[44];
    memcpy(m, key, 32);
    for (int i = 0; i < 4; i++)
        m[32 + i] = (unsigned char)(level >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        m[36 + i] = (unsigned char)(index >> (56 - 8 * i));
    fc_sha256_trim(m, sizeof m, out);
}

/* where x is in the ascending v[0, n), or n */
static size_t find_u64(const uint64_t *v, size_t n, uint64_t x)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (v[mid] < x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == x ? lo : n;
}

/* a node of a tree from its a children */
static int hash_children(int hash, unsigned a, const unsigned char (*kids)[32], unsigned char out[32], cuzk_error *err)
{
    if (hash == FC_TREE_SHA256) {
        fc_sha256_trim(kids, 32 * (size_t)a, out);
        return CUZK_OK;
    }
    fr in[8], h;
    for (unsigned k = 0; k < a; k++)
        if (fc_domain_to_fr(kids[k], &in[k]) != CUZK_OK)
            return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "a tree's node is not a field element");
    poseidon_hash(poseidon_merkle(a), in, &h);
    fc_fr_to_domain(&h, out);
    return CUZK_OK;
}

static int tree_start(fc_tree *t, int hash, uint64_t n, const unsigned *arity, unsigned n_levels, cuzk_error *err)
{
    memset(t, 0, sizeof *t);
    t->hash = hash;
    t->n_levels = n_levels;
    t->count[0] = n;
    if (n_levels > FC_PATH_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a tree of %u levels", n_levels);
    for (unsigned l = 0; l < n_levels; l++) {
        unsigned a = t->arity[l] = arity[l];
        if (t->count[l] % a)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a tree level of %llu nodes in groups of %u",
                                  (unsigned long long)t->count[l], a);
        t->count[l + 1] = t->count[l] / a;
    }
    if (t->count[n_levels] != 1)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a tree of %llu leaves with %llu roots",
                              (unsigned long long)n, (unsigned long long)t->count[n_levels]);
    return CUZK_OK;
}

int fc_tree_build(fc_tree *t, int hash, const unsigned char (*leaves)[32], uint64_t n, const unsigned *arity,
                  unsigned n_levels, cuzk_error *err)
{
    int rc = tree_start(t, hash, n, arity, n_levels, err);
    if (rc)
        return rc;
    for (unsigned l = 0; l <= n_levels; l++)
        if (!(t->node[l] = malloc(t->count[l] * 32)))
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a tree of %llu leaves)",
                                  (unsigned long long)n);
    memcpy(t->node[0], leaves, n * 32);
    for (unsigned l = 0; l < n_levels; l++)
        for (uint64_t i = 0; i < t->count[l + 1]; i++)
            if ((rc = hash_children(hash, t->arity[l], t->node[l] + i * t->arity[l], t->node[l + 1][i], err)))
                return rc;
    memcpy(t->root, t->node[n_levels][0], 32);
    return CUZK_OK;
}

/* node i of level l, kept or made up */
static void tree_node(const fc_tree *t, unsigned l, uint64_t i, unsigned char out[32])
{
    if (!t->index[l] && !t->dflt) {
        memcpy(out, t->node[l][i], 32);
        return;
    }
    size_t j = find_u64(t->index[l], t->kept[l], i);
    if (j < t->kept[l])
        memcpy(out, t->node[l][j], 32);
    else
        t->dflt(t->dflt_ctx, l, i, out);
}

int fc_tree_build_sparse(fc_tree *t, int hash, const uint64_t *idx, const unsigned char (*leaves)[32],
                         size_t n_listed, uint64_t n, const unsigned *arity, unsigned n_levels,
                         fc_tree_default_fn dflt, const void *ctx, size_t ctx_len, cuzk_error *err)
{
    int rc = tree_start(t, hash, n, arity, n_levels, err);
    if (rc)
        return rc;
    t->dflt = dflt;
    if (!(t->dflt_ctx = malloc(ctx_len)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a sparse tree)");
    memcpy(t->dflt_ctx, ctx, ctx_len);
    size_t m = n_listed ? n_listed : 1;
    for (unsigned l = 0; l <= n_levels; l++)
        if (!(t->index[l] = malloc(m * sizeof(uint64_t))) || !(t->node[l] = malloc(m * 32)))
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a sparse tree)");
    for (size_t j = 0; j < n_listed; j++) {
        if (idx[j] >= n || (j && idx[j] <= idx[j - 1]))
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a sparse tree's leaves are not ascending below %llu",
                                  (unsigned long long)n);
        t->index[0][j] = idx[j];
        memcpy(t->node[0][j], leaves[j], 32);
    }
    t->kept[0] = n_listed;
    for (unsigned l = 0; l < n_levels; l++) {
        unsigned a = t->arity[l];
        size_t k = 0;
        for (size_t j = 0; j < t->kept[l]; j++) {
            uint64_t p = t->index[l][j] / a;
            if (k && t->index[l + 1][k - 1] == p)
                continue;
            unsigned char kids[8][32];
            for (unsigned q = 0; q < a; q++)
                tree_node(t, l, p * a + q, kids[q]);
            t->index[l + 1][k] = p;
            if ((rc = hash_children(hash, a, (const unsigned char(*)[32])kids, t->node[l + 1][k], err)))
                return rc;
            k++;
        }
        t->kept[l + 1] = k;
    }
    tree_node(t, n_levels, 0, t->root);
    return CUZK_OK;
}

void fc_tree_free(fc_tree *t)
{
    for (unsigned l = 0; l <= FC_PATH_MAX; l++) {
        free(t->node[l]);
        free(t->index[l]);
    }
    free(t->dflt_ctx);
    memset(t, 0, sizeof *t);
}

const unsigned char *fc_tree_root(const fc_tree *t)
{
    return t->root;
}

int fc_tree_path(const fc_tree *t, uint64_t i, fc_path *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (i >= t->count[0])
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "leaf %llu of %llu", (unsigned long long)i,
                              (unsigned long long)t->count[0]);
    tree_node(t, 0, i, out->leaf);
    memcpy(out->root, t->root, 32);
    for (unsigned l = 0; l < t->n_levels; l++) {
        unsigned a = t->arity[l], pos = (unsigned)(i % a);
        unsigned char sib[7][32];
        for (unsigned k = 0, s = 0; k < a; k++)
            if (k != pos)
                tree_node(t, l, i - pos + k, sib[s++]);
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

/* comm_c, comm_r_last and comm_r = Poseidon(comm_c, comm_r_last) */
static void comm_r_of(fc_sealed *s)
{
    memcpy(s->comm_c, fc_tree_root(&s->tree_c), 32);
    memcpy(s->comm_r_last, fc_tree_root(&s->tree_r), 32);
    fr in[2], h;
    fc_domain_to_fr(s->comm_c, &in[0]);
    fc_domain_to_fr(s->comm_r_last, &in[1]);
    poseidon_hash(poseidon_merkle(2), in, &h);
    fc_fr_to_domain(&h, s->comm_r);
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
    if (!rc)
        comm_r_of(out);
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
    free(s->chal);
    fc_tree_free(&s->tree_d);
    fc_tree_free(&s->tree_c);
    fc_tree_free(&s->tree_r);
    memset(s, 0, sizeof *s);
}

void fc_sealed_label(const fc_sealed *s, unsigned layer, uint64_t node, unsigned char out[32])
{
    if (!s->chal) {
        memcpy(out, s->labels[(uint64_t)(layer - 1) * s->config->shape.nodes + node], 32);
        return;
    }
    size_t j = find_u64(s->chal, s->n_chal, node);
    if (j < s->n_chal)
        memcpy(out, s->labels[(size_t)(layer - 1) * s->n_chal + j], 32);
    else
        made_up_node(s->label_key, layer, node, out);
}

/* ---- the sparse sector ---- */

/* tree D of zero data: each level's nodes all alike */
static void zero_tree_node(const void *levels, unsigned level, uint64_t index, unsigned char out[32])
{
    (void)index;
    memcpy(out, (const unsigned char(*)[32])levels + level, 32);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* sorts and drops repeats: the count left */
static size_t sort_unique(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (!k || v[i] != v[k - 1])
            v[k++] = v[i];
    return k;
}

/* the key of a kind of made-up value: SHA-256(tag, replica_id) */
static void sparse_key(const unsigned char replica_id[32], const char *tag, unsigned char out[32])
{
    sha256_state st;
    sha256_init(&st);
    sha256_update(&st, tag, strlen(tag));
    sha256_update(&st, replica_id, 32);
    sha256_final(&st, out);
}

int fc_seal_sparse(const fc_porep_config *c, const unsigned char prover_id[32], uint64_t sector_id,
                   const unsigned char ticket[32], const unsigned char seed[32], fc_sealed *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (c->kind != FC_POREP_INTERACTIVE)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: a sparse sector is made for interactive proofs only (this proof's challenges "
                              "depend on comm_r, which depends on the challenged nodes)",
                              c->name);
    const fc_porep_shape *sh = &c->shape;
    const unsigned L = sh->layers;
    const size_t n_ch = (size_t)sh->challenges * c->partitions;
    const uint64_t n = sh->nodes;
    unsigned arity[FC_PATH_MAX], levels;
    out->config = c;
    out->sector_id = sector_id;
    memcpy(out->prover_id, prover_id, 32);
    memcpy(out->ticket, ticket, 32);
    unsigned char zero[FC_PATH_MAX + 1][32] = {{0}}, key[32], porep_id[32];
    uint64_t *cols = malloc(n_ch * 15 * sizeof *cols);
    unsigned char(*leaves)[32] = malloc(n_ch * 15 * 32), (*parents)[32] = malloc(37 * 32);
    out->chal = malloc(n_ch * sizeof *out->chal);
    out->labels = malloc(n_ch * L * 32);
    int rc = CUZK_OK;
    if (!cols || !leaves || !parents || !out->chal || !out->labels)
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a sparse sector)");
    /* tree D of zero data, the empty sector's: comm_d its root */
    levels = tree_arities(sh, 1, arity);
    for (unsigned l = 0; l < levels; l++) {
        unsigned char two[2][32];
        memcpy(two[0], zero[l], 32);
        memcpy(two[1], zero[l], 32);
        fc_sha256_trim(two, sizeof two, zero[l + 1]);
    }
    if (!rc)
        rc = fc_tree_build_sparse(&out->tree_d, FC_TREE_SHA256, NULL, NULL, 0, n, arity, levels, zero_tree_node, zero,
                                  sizeof zero, err);
    fc_porep_id(c, porep_id);
    fc_graph g;
    fc_graph_init(&g, n, porep_id, c->api_1_0);
    if (!rc) {
        memcpy(out->comm_d, fc_tree_root(&out->tree_d), 32);
        fc_replica_id(prover_id, sector_id, ticket, out->comm_d, porep_id, out->replica_id);
        sparse_key(out->replica_id, "cuzk sparse sector: labels", out->label_key);
        for (unsigned k = 0; k < c->partitions && !rc; k++)
            rc = fc_porep_challenges(c, out->replica_id, NULL, seed, k, out->chal + (size_t)k * sh->challenges, err);
    }
    if (!rc) {
        /* the challenged nodes' labels, layer by layer and in ascending
         * order: a DRG parent is of the same layer and below its node (made
         * before it), an expander parent of the layer below */
        size_t m = out->n_chal = sort_unique(out->chal, n_ch);
        for (unsigned layer = 1; layer <= L; layer++)
            for (size_t j = 0; j < m; j++) {
                uint32_t p[14];
                unsigned np = layer > 1 ? 14 : 6;
                fc_graph_drg_parents(&g, out->chal[j], p);
                fc_graph_exp_parents(&g, out->chal[j], p + 6);
                for (unsigned q = 0; q < 37; q++)
                    fc_sealed_label(out, q % np < 6 ? layer : layer - 1, p[q % np], parents[q]);
                fc_label_hash(out->replica_id, layer, out->chal[j], (const unsigned char(*)[32])parents,
                              out->labels[(size_t)(layer - 1) * m + j]);
            }
        /* tree C over the columns of the challenged nodes and their
         * parents */
        size_t n_cols = 0;
        for (size_t j = 0; j < m; j++) {
            uint32_t p[14];
            fc_graph_drg_parents(&g, out->chal[j], p);
            fc_graph_exp_parents(&g, out->chal[j], p + 6);
            cols[n_cols++] = out->chal[j];
            for (int q = 0; q < 14; q++)
                cols[n_cols++] = p[q];
        }
        n_cols = sort_unique(cols, n_cols);
        const poseidon_consts *pc = poseidon_merkle(L);
        for (size_t j = 0; j < n_cols; j++) {
            fr col[FC_MAX_LAYERS], h;
            for (unsigned l = 0; l < L; l++) {
                unsigned char label[32];
                fc_sealed_label(out, l + 1, cols[j], label);
                fc_domain_to_fr(label, &col[l]);
            }
            poseidon_hash(pc, col, &h);
            fc_fr_to_domain(&h, leaves[j]);
        }
        levels = tree_arities(sh, 0, arity);
        sparse_key(out->replica_id, "cuzk sparse sector: tree C", key);
        rc = fc_tree_build_sparse(&out->tree_c, FC_TREE_POSEIDON, cols, (const unsigned char(*)[32])leaves, n_cols, n,
                                  arity, levels, made_up_node, key, sizeof key, err);
        /* tree R over the challenged replica nodes: the last layer's
         * labels, the data being zero */
        sparse_key(out->replica_id, "cuzk sparse sector: tree R", key);
        if (!rc)
            rc = fc_tree_build_sparse(&out->tree_r, FC_TREE_POSEIDON, out->chal,
                                      (const unsigned char(*)[32])out->labels + (size_t)(L - 1) * m, m, n, arity,
                                      levels, made_up_node, key, sizeof key, err);
    }
    if (!rc)
        comm_r_of(out);
    free(parents);
    free(cols);
    free(leaves);
    if (rc)
        fc_sealed_free(out);
    return rc;
}

/* a node's column (its label in each layer) and its path in tree C */
static int column_proof(const fc_sealed *s, uint64_t node, fc_column_proof *out, cuzk_error *err)
{
    const fc_porep_shape *sh = &s->config->shape;
    for (unsigned l = 0; l < sh->layers; l++) {
        unsigned char label[32];
        fc_sealed_label(s, l + 1, node, label);
        fc_domain_to_fr(label, &out->rows[l]);
    }
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
