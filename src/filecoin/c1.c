/* The C1 output (c1.h): read with the JSON pull reader (formats/json_pull.h),
 * the checks, and the writer of test sealing's output. */
#include <stdlib.h>
#include <string.h>

#include "../formats/json_pull.h"
#include "../util/base64.h"
#include "../util/error.h"
#include "c1.h"
#include "domain.h"
#include "graph.h"
#include "poseidon.h"

/* ------------------------------------------------------------ the reader */

/* an InclusionPath: {"path": [{"hashes": [...], "index": n}, ...]} */
static void read_inclusion_path(jp *j, fc_path *p)
{
    JP_OBJECT(j, key)
    {
        if (strcmp(key, "path")) {
            jp_skip_value(j);
            continue;
        }
        size_t o = jp_path_push(j, "path", -1);
        JP_ARRAY(j, i)
        {
            size_t o2 = jp_path_push(j, NULL, i);
            unsigned char sib[7][32];
            unsigned n_sib = 0;
            uint64_t index = 0;
            int have_index = 0;
            JP_OBJECT(j, k2)
            {
                if (!strcmp(k2, "hashes")) {
                    size_t o3 = jp_path_push(j, "hashes", -1);
                    JP_ARRAY(j, h)
                    {
                        if (n_sib == 7) {
                            jp_fail(j, "more than 7 sibling hashes");
                            break;
                        }
                        jp_read_bytes32(j, sib[n_sib++]);
                    }
                    jp_path_pop(j, o3);
                } else if (!strcmp(k2, "index")) {
                    index = jp_read_u64(j, 7);
                    have_index = 1;
                } else
                    jp_skip_value(j);
            }
            if (!j->rc && (!have_index || (n_sib != 1 && n_sib != 3 && n_sib != 7)))
                jp_fail(j, "a path element needs \"index\" and 1, 3 or 7 \"hashes\" (found %u)", n_sib);
            cuzk_error e;
            if (!j->rc && fc_path_push(p, n_sib + 1, (unsigned)index, (const unsigned char(*)[32])sib, &e))
                jp_fail(j, "%s", e.message);
            jp_path_pop(j, o2);
        }
        jp_path_pop(j, o);
    }
}

/* a MerkleProof: {"data": {"Single"|"Sub"|"Top": {...}}} */
static void read_merkle_proof(jp *j, fc_path *p)
{
    JP_OBJECT(j, key)
    {
        if (strcmp(key, "data")) {
            jp_skip_value(j);
            continue;
        }
        size_t o = jp_path_push(j, "data", -1);
        JP_OBJECT(j, kind)
        {
            if (strcmp(kind, "Single") && strcmp(kind, "Sub") && strcmp(kind, "Top")) {
                jp_fail(j, "a Merkle proof of kind \"%s\" (Single, Sub or Top)", kind);
                break;
            }
            size_t o2 = jp_path_push(j, kind, -1);
            fc_path part[3] = {{0}};
            int have[3] = {0};
            JP_OBJECT(j, k)
            {
                size_t o3 = jp_path_push(j, k, -1);
                int which = !strcmp(k, "path") || !strcmp(k, "base_proof") ? 0
                            : !strcmp(k, "sub_proof")                      ? 1
                            : !strcmp(k, "top_proof")                      ? 2
                                                                           : -1;
                if (which >= 0) {
                    read_inclusion_path(j, &part[which]);
                    have[which] = 1;
                } else if (!strcmp(k, "root"))
                    jp_read_bytes32(j, p->root);
                else if (!strcmp(k, "leaf"))
                    jp_read_bytes32(j, p->leaf);
                else
                    jp_skip_value(j);
                jp_path_pop(j, o3);
            }
            int want = !strcmp(kind, "Single") ? 1 : !strcmp(kind, "Sub") ? 2 : 3;
            for (int i = 0; i < 3; i++) {
                if (!j->rc && have[i] != (i < want))
                    jp_fail(j, "a %s proof with%s its %s path", kind, have[i] ? "" : "out",
                            i == 0 ? "base" : i == 1 ? "sub" : "top");
                if (!j->rc && i > 0 && have[i] && part[i].n != 1)
                    jp_fail(j, "a %s path of %u levels (1 expected)", i == 1 ? "sub" : "top", part[i].n);
                cuzk_error e;
                if (!j->rc && fc_path_append(p, &part[i], &e))
                    jp_fail(j, "%s", e.message);
                fc_path_free(&part[i]);
            }
            jp_path_pop(j, o2);
        }
        jp_path_pop(j, o);
    }
}

/* a ColumnProof: {"column": {"index", "rows", "_h"}, "inclusion_proof"} */
static void read_column_proof(jp *j, fc_column_proof *cp, uint64_t *index, unsigned *n_rows)
{
    JP_OBJECT(j, key)
    {
        size_t o = jp_path_push(j, key, -1);
        if (!strcmp(key, "column")) {
            JP_OBJECT(j, k)
            {
                size_t o2 = jp_path_push(j, k, -1);
                if (!strcmp(k, "index"))
                    *index = jp_read_u64(j, UINT32_MAX);
                else if (!strcmp(k, "rows")) {
                    *n_rows = 0;
                    JP_ARRAY(j, i)
                    {
                        unsigned char b[32];
                        jp_read_bytes32(j, b);
                        if (*n_rows == FC_MAX_LAYERS) {
                            jp_fail(j, "more than %d rows", FC_MAX_LAYERS);
                            break;
                        }
                        if (!j->rc && fc_domain_to_fr(b, &cp->rows[*n_rows]) != CUZK_OK)
                            jp_fail(j, "row %ld is not below the field's modulus", i);
                        ++*n_rows;
                    }
                } else
                    jp_skip_value(j);
                jp_path_pop(j, o2);
            }
        } else if (!strcmp(key, "inclusion_proof"))
            read_merkle_proof(j, &cp->path);
        else
            jp_skip_value(j);
        jp_path_pop(j, o);
    }
}

/* a LabelingProof or EncodingProof: {"parents": [37], "layer_index", "node"} */
static void read_labeling(jp *j, unsigned char parents[37][32], uint64_t *layer, uint64_t *node)
{
    int n = -1;
    JP_OBJECT(j, key)
    {
        size_t o = jp_path_push(j, key, -1);
        if (!strcmp(key, "parents")) {
            n = 0;
            JP_ARRAY(j, i)
            {
                if (n == 37) {
                    jp_fail(j, "more than 37 parents");
                    break;
                }
                jp_read_bytes32(j, parents[n++]);
            }
        } else if (!strcmp(key, "layer_index"))
            *layer = jp_read_u64(j, UINT32_MAX);
        else if (!strcmp(key, "node"))
            *node = jp_read_u64(j, UINT64_MAX);
        else
            jp_skip_value(j);
        jp_path_pop(j, o);
    }
    if (!j->rc && n != 37)
        jp_fail(j, "a labeling proof with %d parents (37 expected)", n);
}

typedef struct reading {
    fc_c1 *c;
    size_t cap;
    unsigned layers;
} reading;

static void read_challenge(jp *j, reading *r, fc_c1_challenge *x)
{
    unsigned rows = 0, rows_seen[FC_DRG_PARENTS + FC_EXP_PARENTS + 1] = {0}, n_label = 0;
    int n_drg = -1, n_exp = -1;
    JP_OBJECT(j, key)
    {
        size_t o = jp_path_push(j, key, -1);
        if (!strcmp(key, "comm_d_proofs"))
            read_merkle_proof(j, &x->p.comm_d_path);
        else if (!strcmp(key, "comm_r_last_proof"))
            read_merkle_proof(j, &x->p.comm_r_last_path);
        else if (!strcmp(key, "replica_column_proofs")) {
            JP_OBJECT(j, k)
            {
                size_t o2 = jp_path_push(j, k, -1);
                if (!strcmp(k, "c_x")) {
                    fc_column_proof cx = {0};
                    read_column_proof(j, &cx, &x->c_x_index, &rows_seen[0]);
                    memcpy(x->c_x_rows, cx.rows, sizeof cx.rows);
                    x->p.comm_c_path = cx.path;
                } else if (!strcmp(k, "drg_parents") || !strcmp(k, "exp_parents")) {
                    int drg = k[0] == 'd';
                    int *n = drg ? &n_drg : &n_exp, max = drg ? FC_DRG_PARENTS : FC_EXP_PARENTS;
                    *n = 0;
                    JP_ARRAY(j, i)
                    {
                        if (*n == max) {
                            jp_fail(j, "more than %d parents", max);
                            break;
                        }
                        size_t o3 = jp_path_push(j, NULL, i);
                        read_column_proof(j, drg ? &x->p.drg[*n] : &x->p.exp[*n],
                                          drg ? &x->drg_index[*n] : &x->exp_index[*n],
                                          &rows_seen[1 + (drg ? 0 : FC_DRG_PARENTS) + (unsigned)*n]);
                        ++*n;
                        jp_path_pop(j, o3);
                    }
                } else
                    jp_skip_value(j);
                jp_path_pop(j, o2);
            }
        } else if (!strcmp(key, "labeling_proofs")) {
            JP_ARRAY(j, i)
            {
                if (n_label == FC_MAX_LAYERS) {
                    jp_fail(j, "more than %d labeling proofs", FC_MAX_LAYERS);
                    break;
                }
                size_t o2 = jp_path_push(j, NULL, i);
                read_labeling(j, x->label_parents[n_label], &x->label_layer[n_label], &x->label_node[n_label]);
                n_label++;
                jp_path_pop(j, o2);
            }
        } else if (!strcmp(key, "encoding_proof"))
            read_labeling(j, x->enc_parents, &x->enc_layer, &x->enc_node);
        else
            jp_skip_value(j);
        jp_path_pop(j, o);
    }
    if (j->rc)
        return;
    if (n_drg != FC_DRG_PARENTS || n_exp != FC_EXP_PARENTS)
        jp_fail(j, "%d DRG and %d expander parents' columns (6 and 8 expected)", n_drg, n_exp);
    rows = rows_seen[0];
    for (int i = 1; i <= FC_DRG_PARENTS + FC_EXP_PARENTS && !j->rc; i++)
        if (rows_seen[i] != rows)
            jp_fail(j, "columns of %u and %u rows", rows, rows_seen[i]);
    if (!j->rc && n_label != rows)
        jp_fail(j, "%u labeling proofs for columns of %u rows (one a layer)", n_label, rows);
    if (!j->rc && r->layers && rows != r->layers)
        jp_fail(j, "columns of %u rows where the others have %u", rows, r->layers);
    r->layers = rows;
}

static void read_vanilla(jp *j, reading *r)
{
    JP_OBJECT(j, key) /* the one member named by the sector size: StackedDrg32GiBV1 */
    {
        if (strncmp(key, "StackedDrg", 10)) {
            jp_fail(j, "vanilla proofs of kind \"%s\" (StackedDrg<size>V1 expected)", key);
            break;
        }
        size_t o = jp_path_push(j, key, -1);
        unsigned per = 0;
        JP_ARRAY(j, k)
        {
            size_t o2 = jp_path_push(j, NULL, k);
            unsigned n = 0;
            JP_ARRAY(j, i)
            {
                size_t o3 = jp_path_push(j, NULL, i);
                fc_c1 *c = r->c;
                size_t at = (size_t)c->partitions * per + n;
                if (at >= 64 * 1024) {
                    jp_fail(j, "more than 65,536 challenges");
                    break;
                }
                if (at >= r->cap) {
                    size_t cap = r->cap ? 2 * r->cap : 16;
                    fc_c1_challenge *p = realloc(c->ch, cap * sizeof *p);
                    if (!p) {
                        jp_fail(j, "out of memory");
                        break;
                    }
                    memset(p + r->cap, 0, (cap - r->cap) * sizeof *p);
                    c->ch = p;
                    r->cap = c->n_alloc = cap;
                }
                read_challenge(j, r, &c->ch[at]);
                n++;
                jp_path_pop(j, o3);
            }
            if (!j->rc && k > 0 && n != per)
                jp_fail(j, "a partition of %u challenges where the first has %u", n, per);
            if (!j->rc && n == 0)
                jp_fail(j, "a partition without challenges");
            per = n;
            r->c->challenges = n;
            r->c->partitions++;
            jp_path_pop(j, o2);
        }
        jp_path_pop(j, o);
    }
}

static int read_top(jp *j, fc_c1 *c, uint64_t *sector_size, int depth);

static void read_wrapper_inner(jp *j, fc_c1 *c, const char *b64, size_t n, int depth)
{
    unsigned char *bytes = malloc(n / 4 * 3 + 4);
    if (!bytes) {
        jp_fail(j, "out of memory");
        return;
    }
    long long len = base64_decode(b64, n, bytes);
    if (len < 0) {
        free(bytes);
        jp_fail(j, "Phase1Out is not base64");
        return;
    }
    jp in;
    jp_init(&in, (const char *)bytes, (size_t)len, "Phase1Out", j->err);
    uint64_t unused;
    j->rc = read_top(&in, c, &unused, depth + 1);
    free(bytes);
}

static int read_top(jp *j, fc_c1 *c, uint64_t *sector_size, int depth)
{
    reading r = {.c = c};
    int have[7] = {0};
    static const char *const fields[7] = {"registered_proof", "vanilla_proofs", "comm_r", "comm_d",
                                          "replica_id",       "seed",           "ticket"};
    unsigned char *dest[7] = {NULL, NULL, c->comm_r, c->comm_d, c->replica_id, c->seed, c->ticket};
    int wrapper = 0;
    JP_OBJECT(j, key)
    {
        size_t o = jp_path_push(j, key, -1);
        int f = 0;
        while (f < 7 && strcmp(key, fields[f]))
            f++;
        if (f == 0) {
            const char *s;
            size_t n;
            char name[96];
            jp_read_span(j, &s, &n);
            snprintf(name, sizeof name, "%.*s", (int)(n < 90 ? n : 90), s);
            if (!j->rc && !(c->config = fc_porep_config_by_name(name)))
                jp_fail(j, "\"%s\" is not a registered seal proof", name);
        } else if (f == 1)
            read_vanilla(j, &r);
        else if (f < 7)
            jp_read_bytes32(j, dest[f]);
        else if (!strcmp(key, "Phase1Out") && depth == 0) {
            const char *s;
            size_t n;
            jp_read_span(j, &s, &n);
            if (!j->rc)
                read_wrapper_inner(j, c, s, n, depth);
            wrapper = 1;
        } else if (!strcmp(key, "SectorSize") && depth == 0)
            *sector_size = jp_read_u64(j, UINT64_MAX);
        else
            jp_skip_value(j);
        if (f < 7)
            have[f] = 1;
        jp_path_pop(j, o);
    }
    jp_end(j, "the C1 output's object");
    if (j->rc || wrapper)
        return j->rc;
    for (int f = 0; f < 7; f++)
        if (!have[f])
            jp_fail(j, "the field \"%s\" is missing", fields[f]);
    return j->rc;
}

void fc_c1_free(fc_c1 *c)
{
    for (size_t i = 0; c->ch && i < c->n_alloc; i++)
        fc_challenge_proof_free(&c->ch[i].p);
    free(c->ch);
    memset(c, 0, sizeof *c);
}

int fc_c1_read(const char *text, size_t len, const char *name, fc_c1 *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    jp j;
    jp_init(&j, text, len, name, err);
    uint64_t sector_size = 0;
    int rc = read_top(&j, out, &sector_size, 0);
    if (!rc && sector_size && out->config && sector_size != out->config->sector_size)
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: SectorSize %llu, but the C1 output is of %s (%llu bytes)",
                            name, (unsigned long long)sector_size, out->config->name,
                            (unsigned long long)out->config->sector_size);
    const fc_porep_config *cf = out->config;
    if (!rc && (out->partitions != cf->partitions || out->challenges != cf->shape.challenges))
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT,
                            "%s: %u partitions of %u challenges; %s has %u of %u", name, out->partitions,
                            out->challenges, cf->name, cf->partitions, cf->shape.challenges);
    if (rc)
        fc_c1_free(out);
    return rc;
}

/* ------------------------------------------------------------ the checks */

#define CFAIL(...) return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, __VA_ARGS__)

static int path_shape_ok(const fc_path *p, const unsigned *arity, unsigned n)
{
    if (p->n != n)
        return 0;
    for (unsigned l = 0; l < n; l++)
        if (p->level[l].arity != arity[l])
            return 0;
    return 1;
}

static int column_hash(const fr *rows, unsigned layers, unsigned char out[32])
{
    fr h;
    const poseidon_consts *pc = poseidon_merkle(layers);
    if (!pc)
        return 0;
    poseidon_hash(pc, rows, &h);
    fc_fr_to_domain(&h, out);
    return 1;
}

int fc_c1_check(const fc_c1 *c, cuzk_error *err)
{
    const fc_porep_config *cf = c->config;
    const fc_porep_shape *sh = &cf->shape;
    unsigned L = sh->layers, d_arity[FC_PATH_MAX], rc_arity[FC_PATH_MAX], nd = 0, nrc = 0;
    for (unsigned l = 0; l < fc_tree_d_levels(sh); l++)
        d_arity[nd++] = 2;
    for (unsigned l = 0; l < fc_tree_base_levels(sh); l++)
        rc_arity[nrc++] = sh->arity[0];
    for (int k = 1; k < 3; k++)
        if (sh->arity[k])
            rc_arity[nrc++] = sh->arity[k];
    fr x;
    const unsigned char *v[3] = {c->replica_id, c->comm_d, c->comm_r};
    static const char *const vn[3] = {"replica_id", "comm_d", "comm_r"};
    for (int i = 0; i < 3; i++)
        if (fc_domain_to_fr(v[i], &x) != CUZK_OK)
            CFAIL("the C1 output's %s is not below the field's modulus", vn[i]);
    if (c->ch[0].p.comm_r_last_path.n == 0 || c->ch[0].p.comm_c_path.n == 0)
        CFAIL("partition 0, challenge 0: an empty path");
    /* comm_r_last and comm_c: the roots of trees R and C, hashing to comm_r */
    const unsigned char *comm_r_last = c->ch[0].p.comm_r_last_path.root, *comm_c = c->ch[0].p.comm_c_path.root;
    fr in[2], h;
    unsigned char hb[32];
    if (fc_domain_to_fr(comm_c, &in[0]) || fc_domain_to_fr(comm_r_last, &in[1]))
        CFAIL("partition 0, challenge 0: tree C's or tree R's root is not below the field's modulus");
    poseidon_hash(poseidon_merkle(2), in, &h);
    fc_fr_to_domain(&h, hb);
    if (memcmp(hb, c->comm_r, 32))
        CFAIL("comm_r is not Poseidon(comm_c, comm_r_last) of the roots of trees C and R in the vanilla proofs");
    unsigned char porep_id[32];
    fc_porep_id(cf, porep_id);
    fc_graph g;
    fc_graph_init(&g, sh->nodes, porep_id, cf->api_1_0);
    uint64_t *want = calloc(sh->challenges, sizeof *want);
    if (!want)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    int rc = CUZK_OK;
    for (unsigned k = 0; k < c->partitions && !rc; k++) {
        rc = fc_porep_challenges(cf, c->replica_id, c->comm_r, c->seed, k, want, err);
        for (unsigned i = 0; i < c->challenges && !rc; i++) {
            const fc_c1_challenge *x = &c->ch[(size_t)k * c->challenges + i];
            const fc_challenge_proof *p = &x->p;
            char where[64];
            snprintf(where, sizeof where, "partition %u, challenge %u", k, i);
            uint64_t ch = want[i];
#define BAD(...) (rc = cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, __VA_ARGS__))
            unsigned char root[32];
            /* the challenge the seed gives, in every path and the column */
            if (x->c_x_index != ch || fc_path_index(&p->comm_d_path) != ch ||
                fc_path_index(&p->comm_r_last_path) != ch || fc_path_index(&p->comm_c_path) != ch) {
                BAD("%s: the proof is of node %llu; the seed challenges node %llu", where,
                    (unsigned long long)x->c_x_index, (unsigned long long)ch);
                break;
            }
            if (!path_shape_ok(&p->comm_d_path, d_arity, nd) || !path_shape_ok(&p->comm_r_last_path, rc_arity, nrc) ||
                !path_shape_ok(&p->comm_c_path, rc_arity, nrc)) {
                BAD("%s: a path of another tree shape than %s's", where, cf->name);
                break;
            }
            if (fc_path_root(&p->comm_d_path, FC_TREE_SHA256, root, err) || memcmp(root, c->comm_d, 32) ||
                memcmp(p->comm_d_path.root, c->comm_d, 32)) {
                BAD("%s: comm_d_proofs: the data leaf's path does not lead to comm_d", where);
                break;
            }
            if (fc_path_root(&p->comm_r_last_path, FC_TREE_POSEIDON, root, err) || memcmp(root, comm_r_last, 32) ||
                memcmp(p->comm_r_last_path.root, comm_r_last, 32)) {
                BAD("%s: comm_r_last_proof: the replica node's path does not lead to comm_r_last", where);
                break;
            }
            if (fc_path_root(&p->comm_c_path, FC_TREE_POSEIDON, root, err) || memcmp(root, comm_c, 32) ||
                memcmp(p->comm_c_path.root, comm_c, 32) || !column_hash(x->c_x_rows, L, root) ||
                memcmp(root, p->comm_c_path.leaf, 32)) {
                BAD("%s: replica_column_proofs.c_x: the column does not hash along its path to comm_c", where);
                break;
            }
            uint32_t par[14];
            fc_graph_drg_parents(&g, ch, par);
            fc_graph_exp_parents(&g, ch, par + 6);
            for (int q = 0; q < 14 && !rc; q++) {
                const fc_column_proof *cp = q < 6 ? &p->drg[q] : &p->exp[q - 6];
                uint64_t idx = q < 6 ? x->drg_index[q] : x->exp_index[q - 6];
                const char *kind = q < 6 ? "drg_parents" : "exp_parents";
                int at = q < 6 ? q : q - 6;
                if (idx != par[q] || fc_path_index(&cp->path) != par[q])
                    BAD("%s: replica_column_proofs.%s[%d]: node %llu; the graph's parent is %u", where, kind, at,
                        (unsigned long long)idx, par[q]);
                else if (!path_shape_ok(&cp->path, rc_arity, nrc) ||
                         fc_path_root(&cp->path, FC_TREE_POSEIDON, root, err) || memcmp(root, comm_c, 32) ||
                         !column_hash(cp->rows, L, root) || memcmp(root, cp->path.leaf, 32))
                    BAD("%s: replica_column_proofs.%s[%d]: the column does not hash along its path to comm_c", where,
                        kind, at);
            }
            /* the labels: recomputed from the parents, which are the parents'
             * columns' rows, equal to the challenged column's rows */
            for (unsigned l = 1; l <= L && !rc; l++) {
                unsigned char lab[32], want_row[32];
                if (x->label_layer[l - 1] != l || x->label_node[l - 1] != ch) {
                    BAD("%s: labeling_proofs[%u]: layer %llu, node %llu (layer %u, node %llu expected)", where, l - 1,
                        (unsigned long long)x->label_layer[l - 1], (unsigned long long)x->label_node[l - 1], l,
                        (unsigned long long)ch);
                    break;
                }
                unsigned np = l == 1 ? 6 : 14;
                for (unsigned s = 0; s < 37 && !rc; s++) {
                    unsigned q = s % np;
                    const fr *row = q < 6 ? &p->drg[q].rows[l - 1] : &p->exp[q - 6].rows[l - 2];
                    fc_fr_to_domain(row, want_row);
                    if (memcmp(want_row, x->label_parents[l - 1][s], 32))
                        BAD("%s: labeling_proofs[%u].parents[%u] is not the parent's label in its column", where,
                            l - 1, s);
                }
                if (rc)
                    break;
                fc_label_hash(c->replica_id, l, ch, (const unsigned char(*)[32])x->label_parents[l - 1], lab);
                fc_fr_to_domain(&x->c_x_rows[l - 1], want_row);
                if (memcmp(lab, want_row, 32))
                    BAD("%s: the label of layer %u recomputed from its parents differs from the column's row", where,
                        l);
            }
            if (rc)
                break;
            /* the encoding: the last label plus the data leaf is the replica's node */
            fr key, data, rep;
            if (x->enc_layer != L || x->enc_node != ch ||
                memcmp(x->enc_parents, x->label_parents[L - 1], sizeof x->enc_parents)) {
                BAD("%s: encoding_proof differs from the last layer's labeling proof", where);
                break;
            }
            if (fc_domain_to_fr(p->comm_d_path.leaf, &data) || fc_domain_to_fr(p->comm_r_last_path.leaf, &rep)) {
                BAD("%s: a leaf is not below the field's modulus", where);
                break;
            }
            key = x->c_x_rows[L - 1];
            bls12_381_fr_add(&key, &key, &data);
            if (!bls12_381_fr_eq(&key, &rep))
                BAD("%s: the replica's node is not the last label plus the data leaf (encoding)", where);
#undef BAD
        }
    }
    free(want);
    return rc;
}

int fc_c1_partition(const fc_c1 *c, unsigned k, fc_stacked_partition *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    if (k >= c->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "partition %u of %u", k, c->partitions);
    out->shape = c->config->shape;
    const fc_c1_challenge *x = &c->ch[(size_t)k * c->challenges];
    if (fc_domain_to_fr(c->replica_id, &out->replica_id) || fc_domain_to_fr(c->comm_d, &out->comm_d) ||
        fc_domain_to_fr(c->comm_r, &out->comm_r) || fc_domain_to_fr(x->p.comm_r_last_path.root, &out->comm_r_last) ||
        fc_domain_to_fr(x->p.comm_c_path.root, &out->comm_c))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a commitment is not below the field's modulus");
    if (!(out->proofs = calloc(c->challenges, sizeof *out->proofs)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    int rc = CUZK_OK;
    for (unsigned i = 0; i < c->challenges && !rc; i++) {
        const fc_challenge_proof *s = &x[i].p;
        fc_challenge_proof *d = &out->proofs[i];
        d->challenge = x[i].c_x_index;
        const fc_path *from[17] = {&s->comm_d_path, &s->comm_r_last_path, &s->comm_c_path};
        fc_path *to[17] = {&d->comm_d_path, &d->comm_r_last_path, &d->comm_c_path};
        for (int q = 0; q < 14; q++) {
            const fc_column_proof *sc = q < 6 ? &s->drg[q] : &s->exp[q - 6];
            fc_column_proof *dc = q < 6 ? &d->drg[q] : &d->exp[q - 6];
            memcpy(dc->rows, sc->rows, sizeof dc->rows);
            from[3 + q] = &sc->path;
            to[3 + q] = &dc->path;
        }
        for (int q = 0; q < 17 && !rc; q++) {
            *to[q] = *from[q];
            to[q]->sib = NULL;
            to[q]->n = 0;
            to[q]->n_sib = 0;
            rc = fc_path_append(to[q], from[q], err);
        }
    }
    if (rc)
        fc_stacked_free(out);
    return rc;
}

/* ------------------------------------------------------------ the writer */

static void put_bytes(FILE *f, const unsigned char b[32])
{
    fputc('[', f);
    for (int i = 0; i < 32; i++)
        fprintf(f, i ? ",%u" : "%u", b[i]);
    fputc(']', f);
}

static void put_fr(FILE *f, const fr *x)
{
    unsigned char b[32];
    fc_fr_to_domain(x, b);
    put_bytes(f, b);
}

static void put_inclusion(FILE *f, const fc_path *p, unsigned from, unsigned to)
{
    fputs("{\"path\":[", f);
    for (unsigned l = from; l < to; l++) {
        const fc_path_level *lv = &p->level[l];
        fputs(l > from ? ",{\"hashes\":[" : "{\"hashes\":[", f);
        for (unsigned s = 0; s + 1 < lv->arity; s++) {
            if (s)
                fputc(',', f);
            put_bytes(f, p->sib[lv->sib + s]);
        }
        fprintf(f, "],\"index\":%u}", lv->index);
    }
    fputs("]}", f);
}

/* a MerkleProof of a tree whose last `extra` levels are its sub and top */
static void put_merkle(FILE *f, const fc_path *p, unsigned extra)
{
    unsigned base = p->n - extra;
    if (extra == 0) {
        fputs("{\"data\":{\"Single\":{\"root\":", f);
        put_bytes(f, p->root);
        fputs(",\"leaf\":", f);
        put_bytes(f, p->leaf);
        fputs(",\"path\":", f);
        put_inclusion(f, p, 0, p->n);
        fputs("}}}", f);
        return;
    }
    fprintf(f, "{\"data\":{\"%s\":{\"base_proof\":", extra == 1 ? "Sub" : "Top");
    put_inclusion(f, p, 0, base);
    fputs(",\"sub_proof\":", f);
    put_inclusion(f, p, base, base + 1);
    if (extra == 2) {
        fputs(",\"top_proof\":", f);
        put_inclusion(f, p, base + 1, base + 2);
    }
    fputs(",\"root\":", f);
    put_bytes(f, p->root);
    fputs(",\"leaf\":", f);
    put_bytes(f, p->leaf);
    fputs("}}}", f);
}

static void put_column(FILE *f, const fc_column_proof *cp, uint64_t index, unsigned layers, unsigned extra)
{
    fprintf(f, "{\"column\":{\"index\":%llu,\"rows\":[", (unsigned long long)index);
    for (unsigned l = 0; l < layers; l++) {
        if (l)
            fputc(',', f);
        put_fr(f, &cp->rows[l]);
    }
    fputs("],\"_h\":null},\"inclusion_proof\":", f);
    put_merkle(f, &cp->path, extra);
    fputc('}', f);
}

static void put_labeling(FILE *f, const fc_sealed *s, const uint32_t par[14], unsigned layer, uint64_t node)
{
    unsigned np = layer == 1 ? 6 : 14;
    fputs("{\"parents\":[", f);
    for (unsigned k = 0; k < 37; k++) {
        unsigned q = k % np;
        unsigned char label[32];
        if (k)
            fputc(',', f);
        fc_sealed_label(s, q < 6 ? layer : layer - 1, par[q], label);
        put_bytes(f, label);
    }
    fprintf(f, "],\"layer_index\":%u,\"node\":%llu}", layer, (unsigned long long)node);
}

int fc_c1_write(FILE *f, const fc_sealed *s, const unsigned char seed[32], cuzk_error *err)
{
    const fc_porep_config *cf = s->config;
    unsigned extra = (cf->shape.arity[1] != 0) + (cf->shape.arity[2] != 0), L = cf->shape.layers;
    unsigned char porep_id[32];
    fc_porep_id(cf, porep_id);
    fc_graph g;
    fc_graph_init(&g, cf->shape.nodes, porep_id, cf->api_1_0);
    fprintf(f, "{\"registered_proof\":\"%s\",\"vanilla_proofs\":{\"StackedDrg%sV1\":[", cf->name, cf->size_name);
    int rc = CUZK_OK;
    for (unsigned k = 0; k < cf->partitions && !rc; k++) {
        fc_stacked_partition part;
        if ((rc = fc_sealed_partition(s, seed, k, &part, err)))
            break;
        fputs(k ? ",[" : "[", f);
        for (unsigned i = 0; i < cf->shape.challenges; i++) {
            const fc_challenge_proof *p = &part.proofs[i];
            uint64_t ch = p->challenge;
            uint32_t par[14];
            fc_graph_drg_parents(&g, ch, par);
            fc_graph_exp_parents(&g, ch, par + 6);
            fputs(i ? ",{\"comm_d_proofs\":" : "{\"comm_d_proofs\":", f);
            put_merkle(f, &p->comm_d_path, 0);
            fputs(",\"comm_r_last_proof\":", f);
            put_merkle(f, &p->comm_r_last_path, extra);
            fputs(",\"replica_column_proofs\":{\"c_x\":", f);
            fc_column_proof cx = {.path = p->comm_c_path};
            for (unsigned l = 0; l < L; l++) {
                unsigned char label[32];
                fc_sealed_label(s, l + 1, ch, label);
                fc_domain_to_fr(label, &cx.rows[l]);
            }
            put_column(f, &cx, ch, L, extra);
            fputs(",\"drg_parents\":[", f);
            for (int q = 0; q < 6; q++) {
                if (q)
                    fputc(',', f);
                put_column(f, &p->drg[q], par[q], L, extra);
            }
            fputs("],\"exp_parents\":[", f);
            for (int q = 0; q < 8; q++) {
                if (q)
                    fputc(',', f);
                put_column(f, &p->exp[q], par[6 + q], L, extra);
            }
            fputs("]},\"labeling_proofs\":[", f);
            for (unsigned l = 1; l <= L; l++) {
                if (l > 1)
                    fputc(',', f);
                put_labeling(f, s, par, l, ch);
            }
            fputs("],\"encoding_proof\":", f);
            put_labeling(f, s, par, L, ch);
            fputc('}', f);
        }
        fputc(']', f);
        fc_stacked_free(&part);
    }
    if (rc)
        return rc;
    fputs("]},\"comm_r\":", f);
    put_bytes(f, s->comm_r);
    fputs(",\"comm_d\":", f);
    put_bytes(f, s->comm_d);
    fputs(",\"replica_id\":", f);
    put_bytes(f, s->replica_id);
    fputs(",\"seed\":", f);
    put_bytes(f, seed);
    fputs(",\"ticket\":", f);
    put_bytes(f, s->ticket);
    fputs("}", f);
    if (ferror(f))
        return cuzk_error_set(err, CUZK_ERR_IO, "writing the C1 output failed");
    return CUZK_OK;
}
