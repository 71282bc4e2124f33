/* Filecoin's PoRep circuit (stacked.h), in the order of rust-fil-proofs'
 * StackedCircuit::synthesize and Proof::synthesize. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "domain.h"
#include "gadgets.h"
#include "por.h"
#include "poseidon.h"
#include "stacked.h"

static unsigned log_of(uint64_t n, unsigned base)
{
    unsigned k = 0;
    while (n > 1) {
        n /= base;
        k++;
    }
    return k;
}

unsigned fc_tree_d_levels(const fc_porep_shape *s)
{
    return log_of(s->nodes, 2);
}

unsigned fc_tree_base_levels(const fc_porep_shape *s)
{
    uint64_t n = s->nodes;
    for (int i = 1; i < 3; i++)
        if (s->arity[i])
            n /= s->arity[i];
    return log_of(n, s->arity[0]);
}

/* a path's leaf or a domain value as a number (0 when it is not a field
 * element, which fails the system) */
static fr value_of(cs_system *cs, const unsigned char d[32], const char *what)
{
    fr v;
    if (fc_domain_to_fr(d, &v) != CUZK_OK) {
        cs_fail(cs, CUZK_ERR_NOT_CANONICAL, "the PoRep circuit: %s is not below the field's modulus", what);
        return cs_fr_zero;
    }
    return v;
}

/* reverse_bit_numbering(x.to_bits_le()): x's 32 little-endian bytes, each
 * most significant bit first (bit 255, a constant 0, leads the last byte) */
static void num_to_bytes_bits(cs_system *cs, const cs_num *x, cs_bool out[256])
{
    cs_bool le[255];
    cs_num_to_bits_le(cs, x, le);
    for (int i = 0; i < 256; i++) {
        int src = i / 8 * 8 + 7 - i % 8;
        out[i] = src < 255 ? le[src] : cs_bool_const(0);
    }
}

/* hash_single_column: Poseidon of the layers' labels */
static cs_num column_hash(cs_system *cs, const cs_num *rows, unsigned layers)
{
    const poseidon_consts *c = poseidon_merkle(layers);
    if (!c) {
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "the PoRep circuit: no Poseidon constants of arity %u", layers);
        return rows[0];
    }
    return poseidon_circuit(cs, c, rows);
}

/* a parent's column allocated, hashed, and its hash's inclusion in tree C */
static void parent_column(cs_system *cs, const fc_porep_shape *s, const fc_column_proof *cp, const cs_num *comm_c,
                          cs_num *rows)
{
    for (unsigned l = 0; l < s->layers; l++)
        rows[l] = cs_num_alloc(cs, &cp->rows[l]);
    cs_num h = column_hash(cs, rows, s->layers);
    fc_por(cs, FC_TREE_POSEIDON, &cp->path, &h, comm_c, 0);
}

/* A challenge's circuit in three parts, each a run of variables: its
 * head (the data leaf and its path in tree D, the parents' columns and
 * theirs in tree C, the challenge as an input), a label a layer, and its
 * tail (the replica's node and its path in tree R, the challenged column
 * and its path in tree C). What one part hands the next: */
typedef struct challenge_vars {
    cs_num data_leaf;
    cs_num drg[FC_DRG_PARENTS][FC_MAX_LAYERS], exp[FC_EXP_PARENTS][FC_MAX_LAYERS];
    fc_u64 challenge;
    cs_num labels[FC_MAX_LAYERS];
} challenge_vars;

static void challenge_head(cs_system *cs, const fc_porep_shape *s, const fc_challenge_proof *cp, const cs_num *comm_d,
                           const cs_num *comm_c, challenge_vars *cv)
{
    fr v = value_of(cs, cp->comm_d_path.leaf, "a data leaf");
    cv->data_leaf = cs_num_alloc(cs, &v);
    fc_por(cs, FC_TREE_SHA256, &cp->comm_d_path, &cv->data_leaf, comm_d, 0);
    for (int i = 0; i < FC_DRG_PARENTS; i++)
        parent_column(cs, s, &cp->drg[i], comm_c, cv->drg[i]);
    for (int i = 0; i < FC_EXP_PARENTS; i++)
        parent_column(cs, s, &cp->exp[i], comm_c, cv->exp[i]);
    cv->challenge = fc_u64_alloc(cs, cp->challenge);
    fc_u64_pack_into_input(cs, &cv->challenge);
}

/* the label of a layer (1-based) */
static void challenge_label(cs_system *cs, challenge_vars *cv, unsigned layer, const cs_bool replica_id_bits[256])
{
    cs_bool(*bits)[256] = malloc((FC_DRG_PARENTS + FC_EXP_PARENTS) * sizeof *bits);
    if (!bits) {
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "the PoRep circuit: out of memory");
        return;
    }
    /* the DRG parents' labels of this layer, then (past the first) the
     * expander parents' of the layer below */
    unsigned n = 0;
    for (int i = 0; i < FC_DRG_PARENTS; i++)
        num_to_bytes_bits(cs, &cv->drg[i][layer - 1], bits[n++]);
    if (layer > 1)
        for (int i = 0; i < FC_EXP_PARENTS; i++)
            num_to_bytes_bits(cs, &cv->exp[i][layer - 2], bits[n++]);
    /* repeated to 37: 6 x 6 + the first, or 14 + 14 + 9 */
    const cs_bool *parents[FC_TOTAL_PARENTS];
    for (int k = 0; k < FC_TOTAL_PARENTS; k++)
        parents[k] = bits[(unsigned)k % n];
    cs_u32 layer_num = cs_u32_const(layer);
    cv->labels[layer - 1] = fc_create_label(cs, replica_id_bits, 256, parents, &layer_num, &cv->challenge);
    free(bits);
}

static void challenge_tail(cs_system *cs, const fc_porep_shape *s, const fc_challenge_proof *cp, const cs_num *comm_c,
                           const cs_num *comm_r_last, const challenge_vars *cv)
{
    /* the replica's node: the last label plus the data leaf (encode: add) */
    fr sum;
    bls12_381_fr_add(&sum, &cv->labels[s->layers - 1].value, &cv->data_leaf.value);
    cs_num encoded = cs_num_alloc(cs, &sum);
    if (cs_lcs(cs)) {
        lc_add_one(cs, cs_a(cs), cv->labels[s->layers - 1].var);
        lc_add_one(cs, cs_a(cs), cv->data_leaf.var);
        lc_add_one(cs, cs_b(cs), CS_ONE);
        lc_add_one(cs, cs_c(cs), encoded.var);
        cs_enforce(cs);
    } else
        cs_skip(cs);
    fc_por(cs, FC_TREE_POSEIDON, &cp->comm_r_last_path, &encoded, comm_r_last, 0);

    cs_num h = column_hash(cs, cv->labels, s->layers);
    fc_por(cs, FC_TREE_POSEIDON, &cp->comm_c_path, &h, comm_c, 0);
}

/* what precedes the challenges: the public values, Poseidon2(comm_c,
 * comm_r_last) = comm_r; the numbers the challenges read */
typedef struct partition_vars {
    cs_num comm_d, comm_c, comm_r_last;
    cs_bool replica_id_bits[256];
} partition_vars;

static int layers_ok(cs_system *cs, const fc_porep_shape *s)
{
    if (s->layers == 2 || s->layers == 11)
        return 1;
    cs_fail(cs, CUZK_ERR_INVALID_ARGUMENT, "the PoRep circuit: %u layers (2 or 11)", s->layers);
    return 0;
}

static void partition_head(cs_system *cs, const fc_stacked_partition *p, partition_vars *pv)
{
    cs_num replica_id = cs_num_alloc(cs, &p->replica_id);
    cs_num_inputize(cs, &replica_id);
    num_to_bytes_bits(cs, &replica_id, pv->replica_id_bits);
    pv->comm_d = cs_num_alloc(cs, &p->comm_d);
    cs_num_inputize(cs, &pv->comm_d);
    cs_num comm_r = cs_num_alloc(cs, &p->comm_r);
    cs_num_inputize(cs, &comm_r);
    pv->comm_r_last = cs_num_alloc(cs, &p->comm_r_last);
    pv->comm_c = cs_num_alloc(cs, &p->comm_c);
    cs_num pair[2] = {pv->comm_c, pv->comm_r_last};
    cs_num h = poseidon_circuit(cs, poseidon_merkle(2), pair);
    cs_num_enforce_equal(cs, &comm_r, &h);
}

void fc_stacked_circuit(cs_system *cs, const fc_stacked_partition *p)
{
    const fc_porep_shape *s = &p->shape;
    if (!layers_ok(cs, s))
        return;
    partition_vars pv;
    partition_head(cs, p, &pv);
    challenge_vars *cv = malloc(sizeof *cv);
    if (!cv) {
        cs_fail(cs, CUZK_ERR_NO_MEMORY, "the PoRep circuit: out of memory");
        return;
    }
    for (unsigned i = 0; i < s->challenges && !cs_failed(cs); i++) {
        challenge_head(cs, s, &p->proofs[i], &pv.comm_d, &pv.comm_c, cv);
        for (unsigned layer = 1; layer <= s->layers; layer++)
            challenge_label(cs, cv, layer, pv.replica_id_bits);
        challenge_tail(cs, s, &p->proofs[i], &pv.comm_c, &pv.comm_r_last, cv);
    }
    free(cv);
}

/* a path of the levels' arities, every position and sibling zero */
/* ---- a partition's witness, its parts made on `threads` threads ---- */

/* A challenge's run of variables: its head, each layer's label, its tail,
 * in order; part k of challenge i is parts[i * (layers + 2) + k]. Each is
 * made apart in a witness part numbered from 0 (in witness mode no
 * variable's number is read, values alone flow between parts), then,
 * once every part's size is known, its values go to their place. */
typedef struct witness_job {
    const fc_stacked_partition *p;
    const partition_vars *pv;
    challenge_vars *cv; /* a challenge's */
    cs_system *parts;
    uint64_t *aux_at, *input_at; /* each part's place among the aux variables and the inputs */
    unsigned per;                /* parts a challenge: layers + 2 */
} witness_job;

static void witness_part(witness_job *j, size_t k)
{
    const fc_porep_shape *s = &j->p->shape;
    size_t i = k / j->per;
    unsigned part = (unsigned)(k % j->per);
    cs_system *cs = &j->parts[k];
    cs_init_part(cs, 0, 0);
    if (part == 0)
        challenge_head(cs, s, &j->p->proofs[i], &j->pv->comm_d, &j->pv->comm_c, &j->cv[i]);
    else if (part <= s->layers)
        challenge_label(cs, &j->cv[i], part, j->pv->replica_id_bits);
    else
        challenge_tail(cs, s, &j->p->proofs[i], &j->pv->comm_c, &j->pv->comm_r_last, &j->cv[i]);
}

/* parts first..last of every challenge (the heads, the labels or the
 * tails) */
static void witness_phase(witness_job *j, unsigned first, unsigned last, int threads)
{
    const unsigned span = last - first + 1;
    const long n = (long)j->p->shape.challenges * span;
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (long t = 0; t < n; t++)
        witness_part(j, (size_t)(t / span) * j->per + first + (unsigned)(t % span));
}

static void put_values(unsigned char *out, const fr *v, uint64_t n)
{
    for (uint64_t i = 0; i < n; i++)
        bls12_381_fr_to_bytes_le(out + 32 * i, &v[i]);
}

static unsigned char *malloc_values(void *ctx, uint64_t n)
{
    (void)ctx;
    return malloc(n * 32);
}

int fc_stacked_witness(const fc_stacked_partition *p, int threads, unsigned char **values, uint64_t *n_wires,
                       cuzk_error *err)
{
    return fc_stacked_witness_to(p, threads, malloc_values, NULL, values, n_wires, err);
}

int fc_stacked_witness_to(const fc_stacked_partition *p, int threads, fc_witness_alloc_fn alloc, void *ctx,
                          unsigned char **values, uint64_t *n_wires, cuzk_error *err)
{
    *values = NULL;
    *n_wires = 0;
    const fc_porep_shape *s = &p->shape;
    cs_system head;
    int rc = cs_init(&head, CS_WITNESS, 0, err);
    if (rc)
        return rc;
    if (threads < 1)
        threads = 1;
    partition_vars pv;
    witness_job j = {.p = p, .pv = &pv, .per = s->layers + 2};
    const size_t n_parts = (size_t)s->challenges * j.per;
    if (layers_ok(&head, s)) {
        partition_head(&head, p, &pv);
        j.cv = malloc(s->challenges * sizeof *j.cv);
        j.parts = calloc(n_parts, sizeof *j.parts);
        j.aux_at = malloc(n_parts * sizeof *j.aux_at);
        j.input_at = malloc(n_parts * sizeof *j.input_at);
        if (!j.cv || !j.parts || !j.aux_at || !j.input_at)
            cs_fail(&head, CUZK_ERR_NO_MEMORY, "the PoRep circuit's witness: out of memory");
    }
    uint64_t n_aux = head.n_aux, n_input = head.n_input;
    if (!cs_failed(&head)) {
        /* the heads, then the labels (each reads its challenge's head),
         * then the tails (each reads its labels) */
        witness_phase(&j, 0, 0, threads);
        witness_phase(&j, 1, s->layers, threads);
        witness_phase(&j, s->layers + 1, s->layers + 1, threads);
        for (size_t k = 0; k < n_parts && !cs_failed(&head); k++) {
            if (cs_failed(&j.parts[k]))
                head.err = j.parts[k].err;
            j.aux_at[k] = n_aux;
            j.input_at[k] = n_input;
            n_aux += j.parts[k].n_aux;
            n_input += j.parts[k].n_input;
        }
    }
    unsigned char *v = NULL;
    const uint64_t n = n_input + n_aux;
    if (!cs_failed(&head) && !(v = alloc(ctx, n)))
        cs_fail(&head, CUZK_ERR_NO_MEMORY, "out of memory (a witness of %llu values)", (unsigned long long)n);
    if (!cs_failed(&head)) {
        /* inputs (ONE first), then the aux variables; each part's in its
         * place */
        put_values(v, head.input, head.n_input);
        put_values(v + 32 * n_input, head.aux, head.n_aux);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
        for (size_t k = 0; k < n_parts; k++) {
            cs_system *c = &j.parts[k];
            put_values(v + 32 * j.input_at[k], c->input, c->n_input);
            put_values(v + 32 * (n_input + j.aux_at[k]), c->aux, c->n_aux);
            cs_free(c);
        }
    }
    if (cs_failed(&head)) {
        rc = cuzk_error_set(err, head.err.code, "%s", head.err.message);
        v = NULL; /* alloc's, its owner's to free */
    }
    for (size_t k = 0; j.parts && k < n_parts; k++)
        cs_free(&j.parts[k]);
    free(j.parts);
    free(j.cv);
    free(j.aux_at);
    free(j.input_at);
    cs_free(&head);
    *values = v;
    *n_wires = v ? n : 0;
    return rc;
}

static int blank_path(fc_path *p, const unsigned *arity, const unsigned *levels, int n, cuzk_error *err)
{
    static const unsigned char zero[7][32];
    for (int i = 0; i < n; i++)
        for (unsigned l = 0; l < levels[i]; l++) {
            int rc = fc_path_push(p, arity[i], 0, zero, err);
            if (rc)
                return rc;
        }
    return CUZK_OK;
}

int fc_stacked_blank(const fc_porep_shape *s, fc_stacked_partition *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    int base_ok = s->arity[0] == 2 || s->arity[0] == 4 || s->arity[0] == 8;
    if (!base_ok || (s->layers != 2 && s->layers != 11) || s->challenges == 0 || s->challenges > 4096 ||
        s->nodes < 2 || (s->nodes & (s->nodes - 1)))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "a PoRep shape of %llu nodes, %u layers, %u challenges and tree arities %u-%u-%u",
                              (unsigned long long)s->nodes, s->layers, s->challenges, s->arity[0], s->arity[1],
                              s->arity[2]);
    out->shape = *s;
    if (!(out->proofs = calloc(s->challenges, sizeof *out->proofs)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a PoRep partition)");
    unsigned d_arity = 2, d_levels = fc_tree_d_levels(s);
    unsigned rc_levels[3] = {fc_tree_base_levels(s), s->arity[1] ? 1u : 0u, s->arity[2] ? 1u : 0u};
    int rc = CUZK_OK;
    for (unsigned c = 0; c < s->challenges && !rc; c++) {
        fc_challenge_proof *cp = &out->proofs[c];
        rc = blank_path(&cp->comm_d_path, &d_arity, &d_levels, 1, err);
        if (!rc)
            rc = blank_path(&cp->comm_r_last_path, s->arity, rc_levels, 3, err);
        if (!rc)
            rc = blank_path(&cp->comm_c_path, s->arity, rc_levels, 3, err);
        for (int i = 0; i < FC_DRG_PARENTS && !rc; i++)
            rc = blank_path(&cp->drg[i].path, s->arity, rc_levels, 3, err);
        for (int i = 0; i < FC_EXP_PARENTS && !rc; i++)
            rc = blank_path(&cp->exp[i].path, s->arity, rc_levels, 3, err);
    }
    if (rc)
        fc_stacked_free(out);
    return rc;
}

void fc_challenge_proof_free(fc_challenge_proof *cp)
{
    fc_path_free(&cp->comm_d_path);
    fc_path_free(&cp->comm_r_last_path);
    fc_path_free(&cp->comm_c_path);
    for (int i = 0; i < FC_DRG_PARENTS; i++)
        fc_path_free(&cp->drg[i].path);
    for (int i = 0; i < FC_EXP_PARENTS; i++)
        fc_path_free(&cp->exp[i].path);
}

void fc_stacked_free(fc_stacked_partition *p)
{
    for (unsigned c = 0; p->proofs && c < p->shape.challenges; c++)
        fc_challenge_proof_free(&p->proofs[c]);
    free(p->proofs);
    memset(p, 0, sizeof *p);
}
