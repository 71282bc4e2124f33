/* supraseal-c2's C ABI (include/cuzk_supraseal.h) over cuzk's prover.
 *
 *   keys      create_SRS decodes a .params file into a key of points alone
 *             (src/groth16/params_key.c) held in the library's engine's
 *             key cache, which shares it by path (and keeps 4 that no
 *             handle holds); a handle is a hold on it
 *   calls     one call's circuits are checked against the key before any
 *             work (sizes, densities, pointers), then each is a job of the
 *             library's engine (src/engine/submit.h): its assignment
 *             converted from Montgomery form by a prepare worker, its
 *             evaluations handed over, the GPU's part where the engine's
 *             memory plan grants room (Curio's mutex held around it), the
 *             proof checked with the pairing; one circuit's conversion runs
 *             while another's MSMs do
 *   densities the key's A and B points are those of the variables the
 *             densities set: the key learns them from its first calls
 *             (params_srs_densities: on trial until a call succeeds),
 *             later calls must bring the same bits
 * A failure never aborts: the first failing circuit's status and message
 * come back in a RustError whose message the caller frees. */
#include "../../include/cuzk_supraseal.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"
#include "../core/core.h"
#include "../formats/zkey.h"
#include "../engine/key_cache.h"
#include "../engine/submit.h"
#include "../groth16/params_key.h"
#include "../groth16/prove.h"
#include "../util/error.h"
#include "../util/util.h"
#include "../util/cores.h"

_Static_assert(sizeof(cuzk_ss_assignment) == 17 * 8, "supraseal's Assignment is 17 fields of 8 bytes");
_Static_assert(sizeof(groth16_proof) == 384, "supraseal's groth16_proof is 384 bytes");
_Static_assert(sizeof(cuzk_ss_fr) == 32, "blst_fr is 32 bytes");
_Static_assert(sizeof(SRS) == sizeof(void *), "supraseal's SRS is one pointer");

/* ------------------------------------------------------------ errors */

static RustError ok_result(void)
{
    return (RustError){0, NULL};
}

static RustError error_result(const cuzk_error *err)
{
    RustError r = {err->code ? err->code : CUZK_ERR_INTERNAL, strdup(err->message)};
    return r;
}

static RustError fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static RustError fail(int code, const char *fmt, ...)
{
    cuzk_error err = {0};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err.message, sizeof(err.message), fmt, ap);
    va_end(ap);
    err.code = code;
    return error_result(&err);
}

/* For calls whose status does not matter here (the job may have ended
 * meanwhile): warn_unused_result is not silenced by a (void) cast. */
static void ignore_status(int rc)
{
    (void)rc;
}

/* ------------------------------------------------------------ keys */

/* An SRS handle's pointer is a key of the library's engine's key cache
 * (src/engine/key_cache.c), held once a handle. */
static const struct cuzk_zkey *handle_key(const SRS *srs)
{
    return key_entry_zkey(srs->ptr);
}

RustError create_SRS(SRS *ret, const char *srs_path, bool use_cache)
{
    if (!ret)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "create_SRS: the SRS handle to fill is NULL");
    ret->ptr = NULL;
    if (!srs_path)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "create_SRS: the .params path is NULL");
    cuzk_error err = {0};
    key_entry *k;
    if (engine_shared_srs_acquire(srs_path, use_cache, &k, &err) != CUZK_OK)
        return error_result(&err);
    ret->ptr = k;
    return ok_result();
}

void evict_SRS(const SRS *ref)
{
    if (ref && ref->ptr)
        engine_shared_srs_retire(ref->ptr);
}

void drop_SRS(SRS *ref)
{
    if (!ref || !ref->ptr)
        return;
    engine_shared_srs_release(ref->ptr);
    ref->ptr = NULL;
}

SRS clone_SRS(const SRS *rhs)
{
    SRS s = {NULL};
    if (rhs && rhs->ptr) {
        engine_shared_srs_hold(rhs->ptr);
        s.ptr = rhs->ptr;
    }
    return s;
}

void *create_gpu_mutex(void)
{
    pthread_mutex_t *m = malloc(sizeof(*m));
    if (m && pthread_mutex_init(m, NULL) != 0) {
        free(m);
        m = NULL;
    }
    return m;
}

void destroy_gpu_mutex(void *mtx)
{
    if (!mtx)
        return;
    pthread_mutex_destroy(mtx);
    free(mtx);
}

/* ------------------------------------------------------------ checks */

static size_t popcount_bits(const uint64_t *v, size_t bits)
{
    size_t n = 0;
    for (size_t w = 0; w < bits / 64; w++)
        n += (size_t)__builtin_popcountll(v[w]);
    if (bits % 64)
        n += (size_t)__builtin_popcountll(v[bits / 64] & ((UINT64_C(1) << (bits % 64)) - 1));
    return n;
}

/* One circuit's Assignment against the key: every count and pointer. */
static int check_assignment(const struct cuzk_zkey *zk, const cuzk_ss_assignment *p, size_t i, size_t n,
                            cuzk_error *err)
{
    const size_t n_inp = (size_t)zk->n_public + 1, n_aux = (size_t)zk->n_vars - n_inp;
    const char *name = zk->bf.name;
#define BAD(...) cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, __VA_ARGS__)
    if (p->inp_assignment_size != n_inp)
        return BAD("circuit %zu of %zu: inp_assignment_size is %zu, but %s has %zu inputs (its IC vector, the constant "
                   "one included)",
                   i, n, p->inp_assignment_size, name, n_inp);
    if (p->aux_assignment_size != n_aux)
        return BAD("circuit %zu of %zu: aux_assignment_size is %zu, but %s has %zu aux variables (its L vector)", i, n,
                   p->aux_assignment_size, name, n_aux);
    if (p->a_aux_bit_len != n_aux || p->b_aux_bit_len != n_aux)
        return BAD("circuit %zu of %zu: a_aux_bit_len %zu and b_aux_bit_len %zu must both be the aux variables' "
                   "count, %zu",
                   i, n, p->a_aux_bit_len, p->b_aux_bit_len, n_aux);
    if (p->b_inp_bit_len != n_inp)
        return BAD("circuit %zu of %zu: b_inp_bit_len is %zu, but there are %zu inputs", i, n, p->b_inp_bit_len, n_inp);
    if (!p->inp_assignment_data || (n_aux && !p->aux_assignment_data))
        return BAD("circuit %zu of %zu: the %s assignment is NULL", i, n, p->inp_assignment_data ? "aux" : "input");
    if ((n_aux && (!p->a_aux_density || !p->b_aux_density)) || !p->b_inp_density)
        return BAD("circuit %zu of %zu: a density vector is NULL", i, n);
    if (p->abc_size > zk->domain_size)
        return BAD("circuit %zu of %zu: abc_size is %zu, more than the domain of %s (%u: its H vector holds %u "
                   "points)",
                   i, n, p->abc_size, name, zk->domain_size, zk->n_h);
    if (p->abc_size < n_inp)
        return BAD("circuit %zu of %zu: abc_size is %zu, fewer than the %zu input constraints bellperson appends", i, n,
                   p->abc_size, n_inp);
    if (!p->a || !p->b)
        return BAD("circuit %zu of %zu: the evaluation %s is NULL", i, n, p->a ? "b" : "a");
    size_t pa = popcount_bits(p->a_aux_density, n_aux), pbi = popcount_bits(p->b_inp_density, n_inp),
           pba = popcount_bits(p->b_aux_density, n_aux);
    if (pa != p->a_aux_popcount || pbi != p->b_inp_popcount || pba != p->b_aux_popcount)
        return BAD("circuit %zu of %zu: the popcounts given (a_aux %zu, b_inp %zu, b_aux %zu) are not the densities' "
                   "(%zu, %zu, %zu)",
                   i, n, p->a_aux_popcount, p->b_inp_popcount, p->b_aux_popcount, pa, pbi, pba);
    if (n_inp + pa != zk->n_a)
        return BAD("circuit %zu of %zu: the inputs and a_aux_popcount make %zu A variables, but %s's A vector holds "
                   "%u points: is this its circuit?",
                   i, n, n_inp + pa, name, zk->n_a);
    if (pbi + pba != zk->n_b)
        return BAD("circuit %zu of %zu: b_inp_popcount + b_aux_popcount make %zu B variables, but %s's B_G1 vector "
                   "holds %u points: is this its circuit?",
                   i, n, pbi + pba, name, zk->n_b);
#undef BAD
    return CUZK_OK;
}

/* ------------------------------------------------------------ calls */

typedef struct ss_circuit {
    struct ss_batch *b;
    size_t i;
    unsigned char r[32], s[32]; /* plain */
    unsigned char *witness;     /* plain, n_vars values: the inputs, then the aux assignment */
    struct cuzk_wtns w;
    unsigned long long id;      /* its engine job; 0: not submitted */
    groth16_proof proof;
} ss_circuit;

typedef struct ss_batch {
    key_entry *key; /* held for the call */
    struct cuzk_zkey *zk; /* its key (the densities it learns are its mutable part) */
    cuzk_engine *e;
    const cuzk_ss_assignment *provers;
    size_t n;
    ss_circuit *c;
    pthread_mutex_t *gpu_mtx;
    int trial;     /* it holds the key's densities on trial (params_srs_densities) */
    int succeeded; /* every proof made and checked, handed to the caller */
} ss_batch;

/* The job's witness, made by the engine's prepare worker (with its share
 * of the cores): the assignment in plain form. */
static int circuit_witness(void *ctx, int threads, const struct cuzk_wtns **out, cuzk_error *err)
{
    ss_circuit *c = ctx;
    const struct cuzk_zkey *zk = c->b->zk;
    const cuzk_ss_assignment *p = &c->b->provers[c->i];
    const struct cuzk_core_ops *core = cuzk_core();
    const size_t nv = zk->n_vars, n_inp = p->inp_assignment_size;
    c->w.n_witness = (uint32_t)nv;
    if (!(c->witness = malloc(nv * 32)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory for the assignment (%zu values)", nv);
    size_t bad;
    if (core->fr_from_mont(zk->curve->id, c->witness, (const unsigned char *)p->inp_assignment_data, n_inp, 1,
                           &bad) != CUZK_OK)
        return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "input %zu is not below r", bad);
    if (core->fr_from_mont(zk->curve->id, c->witness + 32 * n_inp, (const unsigned char *)p->aux_assignment_data,
                           nv - n_inp, threads, &bad) != CUZK_OK)
        return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "aux value %zu is not below r", bad);
    static const unsigned char one[32] = {1};
    if (memcmp(c->witness, one, 32) != 0)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "input 0 must be the constant one (Montgomery form, as blst_fr holds it)");
    c->w.curve = zk->curve;
    c->w.values = c->witness;
    snprintf(c->w.bf.name, sizeof(c->w.bf.name), "circuit %zu's assignment", c->i);
    *out = &c->w;
    return CUZK_OK;
}

/* The circuit's proof is made: its plain assignment is cleared and freed
 * on the engine's finalize worker, beside the GPU's next proofs. */
static void circuit_witness_done(void *ctx)
{
    ss_circuit *c = ctx;
    if (c->witness)
        cuzk_memzero(c->witness, (size_t)c->w.n_witness * 32);
    free(c->witness);
    c->witness = NULL;
}

/* Curio's mutex, held around each circuit's GPU part. */
static void gpu_mutex_enter(void *ctx)
{
    pthread_mutex_lock(ctx);
}

static void gpu_mutex_leave(void *ctx)
{
    pthread_mutex_unlock(ctx);
}

/* Circuit i's failure as the caller reads it: its index, and for a proof
 * that failed its pairing check, what a, b, c say of the assignment. */
static void circuit_error(const ss_batch *b, size_t i, int status, const char *message, cuzk_error *err)
{
    const cuzk_ss_assignment *p = &b->provers[i];
    if (status == CUZK_ERR_INTERNAL && p->c) {
        size_t k = cuzk_core()->groth16_first_unsatisfied(CUZK_CURVE_BLS12_381, (const unsigned char *)p->a,
                                                          (const unsigned char *)p->b, (const unsigned char *)p->c,
                                                          p->abc_size, cpu_cores());
        if (k < p->abc_size)
            cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                           "circuit %zu of %zu: the assignment does not satisfy the circuit: a * b != c at "
                           "constraint %zu (or a value there is not below r); the proof failed its pairing check",
                           i, b->n, k);
        else
            cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                           "circuit %zu of %zu: the proof failed its pairing check although a * b = c at every "
                           "constraint: are the evaluations, densities and key of one circuit?",
                           i, b->n);
        return;
    }
    cuzk_error_set(err, status ? status : CUZK_ERR_INTERNAL, "circuit %zu of %zu: %.440s", i, b->n, message);
}

/* Every submitted job cancelled (those in a stage end at its end),
 * waited for and forgotten: nothing of the call runs after this. */
static void batch_cancel(ss_batch *b)
{
    cuzk_error ignored;
    cuzk_job_info info;
    for (size_t i = 0; i < b->n; i++)
        if (b->c[i].id && cuzk_engine_cancel(b->e, b->c[i].id, &ignored) != CUZK_OK) {
            /* it ended meanwhile */
        }
    for (size_t i = 0; i < b->n; i++)
        if (b->c[i].id) {
            ignore_status(cuzk_engine_wait(b->e, b->c[i].id, -1, &info, &ignored));
            ignore_status(cuzk_engine_release(b->e, b->c[i].id, &ignored));
            b->c[i].id = 0;
        }
}

static void batch_free(ss_batch *b)
{
    if (!b)
        return;
    if (b->c) {
        batch_cancel(b);
        for (size_t i = 0; i < b->n; i++) /* a job that ended before its finalize */
            circuit_witness_done(&b->c[i]);
        cuzk_memzero(b->c, b->n * sizeof(*b->c));
    }
    free(b->c);
    params_srs_densities_end(b->zk, b->trial, b->succeeded, engine_shared_forget_key);
    engine_shared_srs_release(b->key);
    free(b);
}

/* Checks the call, then submits its circuits to the library's engine and
 * waits for the GPU's part of every one. */
static RustError batch_start(const cuzk_ss_assignment provers[], size_t num_circuits, const cuzk_ss_fr r_s[],
                             const cuzk_ss_fr s_s[], SRS *srs, void *gpu_mtx, int gpu_index, ss_batch **out)
{
    *out = NULL;
    if (!srs || !srs->ptr)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "the SRS handle is NULL (create_SRS failed or it was dropped)");
    if (!provers || !r_s || !s_s)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "%s is NULL", !provers ? "provers" : !r_s ? "r_s" : "s_s");
    if (num_circuits == 0)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "num_circuits is 0: nothing to prove");
    if (num_circuits > SIZE_MAX / sizeof(ss_circuit))
        return fail(CUZK_ERR_INVALID_ARGUMENT, "num_circuits is %zu: too many", num_circuits);
    /* the key's densities are its mutable part, under its own lock */
    struct cuzk_zkey *zk = (struct cuzk_zkey *)handle_key(srs);
    cuzk_error err = {0};
    for (size_t i = 0; i < num_circuits; i++)
        if (check_assignment(zk, &provers[i], i, num_circuits, &err) != CUZK_OK)
            return error_result(&err);
    cuzk_engine *e;
    if (engine_shared(&e, &err) != CUZK_OK)
        return error_result(&err);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    if (gpu_index < -1 || (gpu_index >= 0 && gpu_index >= st.gpus))
        return fail(CUZK_ERR_INVALID_ARGUMENT, "gpu_index %d: no such GPU (this machine has %d; -1 spreads the "
                    "circuits over them)", gpu_index, st.gpus);
    const size_t n_inp = (size_t)zk->n_public + 1, n_aux = (size_t)zk->n_vars - n_inp;
    for (size_t i = 1; i < num_circuits; i++)
        if (!bits_equal(provers[i].a_aux_density, provers[0].a_aux_density, n_aux) ||
            !bits_equal(provers[i].b_inp_density, provers[0].b_inp_density, n_inp) ||
            !bits_equal(provers[i].b_aux_density, provers[0].b_aux_density, n_aux))
            return fail(CUZK_ERR_INVALID_ARGUMENT,
                        "circuit %zu of %zu: its densities differ from circuit 0's (one key, one circuit)", i,
                        num_circuits);
    int trial;
    if (params_srs_densities(zk, provers[0].a_aux_density, provers[0].b_inp_density, provers[0].b_aux_density,
                             &trial, &err) != CUZK_OK)
        return error_result(&err);
    ss_batch *b = calloc(1, sizeof(*b));
    if (!b) {
        params_srs_densities_end(zk, trial, 0, engine_shared_forget_key);
        return fail(CUZK_ERR_NO_MEMORY, "out of memory");
    }
    b->trial = trial;
    engine_shared_srs_hold(srs->ptr);
    b->key = srs->ptr;
    b->zk = zk;
    b->e = e;
    b->provers = provers;
    b->n = num_circuits;
    b->gpu_mtx = gpu_mtx;
    b->c = calloc(num_circuits, sizeof(*b->c));
    if (!b->c) {
        batch_free(b);
        return fail(CUZK_ERR_NO_MEMORY, "out of memory for %zu circuits", num_circuits);
    }
    const struct cuzk_core_ops *core = cuzk_core();
    for (size_t i = 0; i < num_circuits; i++) {
        size_t bad;
        b->c[i].b = b;
        b->c[i].i = i;
        if (core->fr_from_mont(CUZK_CURVE_BLS12_381, b->c[i].r, (const unsigned char *)&r_s[i], 1, 1, &bad) !=
                CUZK_OK ||
            core->fr_from_mont(CUZK_CURVE_BLS12_381, b->c[i].s, (const unsigned char *)&s_s[i], 1, 1, &bad) !=
                CUZK_OK) {
            batch_free(b);
            return fail(CUZK_ERR_NOT_CANONICAL, "circuit %zu of %zu: r_s[%zu] or s_s[%zu] is not below r", i,
                        num_circuits, i, i);
        }
    }
    /* one job a circuit: the GPU's (or gpu_index's), else the CPU; a lone
     * circuit's CPU work takes every core, several share the prepare
     * workers' (the engine's default) */
    cuzk_prove_options opts = {.device = gpu_index >= 0 ? CUZK_DEVICE_GPU : CUZK_DEVICE_AUTO,
                               .gpu = gpu_index >= 0 ? gpu_index : 0,
                               .threads = num_circuits == 1 ? cpu_cores() : 0};
    for (size_t i = 0; i < num_circuits; i++) {
        const cuzk_ss_assignment *p = &provers[i];
        cuzk_job_request req = {.priority = CUZK_PRIORITY_NORMAL, .options = &opts};
        engine_job_extra x = {.key = zk,
                              .make_witness = circuit_witness,
                              .witness_done = circuit_witness_done,
                              .witness_ctx = &b->c[i],
                              .eval_a = (const unsigned char *)p->a,
                              .eval_b = (const unsigned char *)p->b,
                              .n_eval = p->abc_size,
                              .r = b->c[i].r,
                              .s = b->c[i].s,
                              .gpu_enter = gpu_mtx ? gpu_mutex_enter : NULL,
                              .gpu_leave = gpu_mtx ? gpu_mutex_leave : NULL,
                              .gpu_ctx = gpu_mtx};
        if (engine_submit(e, &req, &x, &b->c[i].id, &err) != CUZK_OK) {
            cuzk_error e2;
            circuit_error(b, i, err.code, err.message, &e2);
            batch_free(b);
            return error_result(&e2);
        }
    }
    /* the GPU's part of every circuit; the first failure (in circuit
     * order) ends the call */
    for (size_t i = 0; i < num_circuits; i++) {
        cuzk_job_info info;
        if (engine_wait_computed(e, b->c[i].id, &info, &err) != CUZK_OK) {
            batch_free(b);
            return error_result(&err);
        }
        if (info.state == CUZK_JOB_FAILED || info.state == CUZK_JOB_CANCELLED) {
            circuit_error(b, i, info.status, info.error, &err);
            batch_free(b);
            return error_result(&err);
        }
    }
    *out = b;
    return ok_result();
}

/* Waits for every circuit's end: its proof, or the first failure. */
static RustError batch_finish(ss_batch *b, groth16_proof proofs[])
{
    cuzk_error err = {0};
    int failed = 0;
    for (size_t i = 0; i < b->n && !failed; i++) {
        cuzk_job_info info;
        core_prove_out out;
        cuzk_error e2 = {0};
        if (cuzk_engine_wait(b->e, b->c[i].id, -1, &info, &e2) != CUZK_OK) {
            err = e2;
            failed = 1;
        } else if (info.state != CUZK_JOB_DONE) {
            circuit_error(b, i, info.status, info.error, &err);
            failed = 1;
        } else if (engine_result_out(b->e, b->c[i].id, &out, NULL, &e2) != CUZK_OK) {
            circuit_error(b, i, e2.code, e2.message, &err);
            failed = 1;
        } else {
            memcpy(&b->c[i].proof.a, out.a, sizeof(b->c[i].proof.a));
            memcpy(&b->c[i].proof.b, out.b, sizeof(b->c[i].proof.b));
            memcpy(&b->c[i].proof.c, out.c, sizeof(b->c[i].proof.c));
        }
    }
    RustError r = ok_result();
    if (failed)
        r = error_result(&err);
    else {
        for (size_t i = 0; i < b->n; i++)
            proofs[i] = b->c[i].proof;
        b->succeeded = 1;
    }
    batch_free(b);
    return r;
}

RustError generate_groth16_proofs_start_c(const cuzk_ss_assignment provers[], size_t num_circuits,
                                          const cuzk_ss_fr r_s[], const cuzk_ss_fr s_s[], SRS *srs, void *gpu_mtx,
                                          int gpu_index, void **pending_out)
{
    if (!pending_out)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "pending_out is NULL");
    *pending_out = NULL;
    ss_batch *b = NULL;
    RustError r = batch_start(provers, num_circuits, r_s, s_s, srs, gpu_mtx, gpu_index, &b);
    *pending_out = b;
    return r;
}

RustError finalize_groth16_proof_c(void *pending, groth16_proof proofs[])
{
    if (!pending)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "the pending proof is NULL");
    if (!proofs) {
        destroy_pending_proof(pending);
        return fail(CUZK_ERR_INVALID_ARGUMENT, "proofs is NULL (the pending proof was freed)");
    }
    return batch_finish(pending, proofs);
}

void destroy_pending_proof(void *pending)
{
    batch_free(pending); /* its jobs cancelled and waited for */
}

static RustError prove_all(const cuzk_ss_assignment provers[], size_t num_circuits, const cuzk_ss_fr r_s[],
                           const cuzk_ss_fr s_s[], groth16_proof proofs[], SRS *srs, void *gpu_mtx, int gpu_index)
{
    if (!proofs)
        return fail(CUZK_ERR_INVALID_ARGUMENT, "proofs is NULL");
    ss_batch *b = NULL;
    RustError r = batch_start(provers, num_circuits, r_s, s_s, srs, gpu_mtx, gpu_index, &b);
    if (r.code != 0)
        return r;
    return batch_finish(b, proofs);
}

RustError generate_groth16_proofs_gpu_c(const cuzk_ss_assignment provers[], size_t num_circuits,
                                        const cuzk_ss_fr r_s[], const cuzk_ss_fr s_s[], groth16_proof proofs[],
                                        SRS *srs, void *gpu_mtx, int gpu_index)
{
    return prove_all(provers, num_circuits, r_s, s_s, proofs, srs, gpu_mtx, gpu_index);
}

#ifdef CUZK_SUPRASEAL_CURIO
RustError generate_groth16_proofs_c(const cuzk_ss_assignment provers[], size_t num_circuits, const cuzk_ss_fr r_s[],
                                    const cuzk_ss_fr s_s[], groth16_proof proofs[], SRS *srs, void *gpu_mtx,
                                    int gpu_index)
{
    return prove_all(provers, num_circuits, r_s, s_s, proofs, srs, gpu_mtx, gpu_index);
}
#else
RustError generate_groth16_proofs_c(const cuzk_ss_assignment provers[], size_t num_circuits, const cuzk_ss_fr r_s[],
                                    const cuzk_ss_fr s_s[], groth16_proof proofs[], SRS *srs)
{
    return prove_all(provers, num_circuits, r_s, s_s, proofs, srs, NULL, -1);
}
#endif
