/* Seal records and verify_seal (record.h). */
#include <stdlib.h>
#include <string.h>

#include "../core/core.h"
#include "../formats/json_pull.h"
#include "../util/error.h"
#include "domain.h"
#include "record.h"

enum { RECORD_PROOF_MAX = 64 * 1024 }; /* 10 partitions: 1,920 bytes; non-interactive's aggregates: tens of KB */

static const char *const api_versions[] = {"V1_0_0", "V1_1_0", "V1_2_0"};

static void read_porep_config(jp *j, fc_record *r)
{
    uint64_t sector_size = 0, partitions = 0;
    int api = -1, kind = FC_POREP_INTERACTIVE, have_id = 0;
    JP_OBJECT(j, key)
    {
        size_t o = jp_path_push(j, key, -1);
        if (!strcmp(key, "sector_size"))
            sector_size = jp_read_u64(j, UINT64_MAX);
        else if (!strcmp(key, "partitions"))
            partitions = jp_read_u64(j, 1024);
        else if (!strcmp(key, "porep_id")) {
            jp_read_bytes32(j, r->porep_id);
            have_id = 1;
        } else if (!strcmp(key, "api_version")) {
            const char *s;
            size_t n;
            jp_read_span(j, &s, &n);
            for (int v = 0; v < 3 && !j->rc; v++)
                if (n == 6 && !memcmp(s, api_versions[v], 6))
                    api = v;
            if (!j->rc && api < 0)
                jp_fail(j, "\"%.*s\" (V1_0_0, V1_1_0 or V1_2_0 expected)", (int)(n < 40 ? n : 40), s);
        } else if (!strcmp(key, "api_features")) {
            JP_ARRAY(j, i)
            {
                const char *s;
                size_t n;
                jp_read_span(j, &s, &n);
                if (n == 14 && !memcmp(s, "SyntheticPoRep", 14))
                    kind = FC_POREP_SYNTHETIC;
                else if (n == 19 && !memcmp(s, "NonInteractivePoRep", 19))
                    kind = FC_POREP_NON_INTERACTIVE;
                else if (!j->rc)
                    jp_fail(j, "the feature \"%.*s\" (SyntheticPoRep or NonInteractivePoRep expected)",
                            (int)(n < 40 ? n : 40), s);
            }
        } else
            jp_skip_value(j);
        jp_path_pop(j, o);
    }
    if (j->rc)
        return;
    r->api_version = api;
    if (api < 0 || !sector_size || !have_id) {
        jp_fail(j, "porep_config needs sector_size, porep_id and api_version");
        return;
    }
    if (!(r->config = fc_porep_config_for(sector_size, api == 0, kind))) {
        j->rc = cuzk_error_set(j->err, CUZK_ERR_UNSUPPORTED,
                               "%s: no registered seal proof of %llu-byte sectors with %s%s%s", j->name,
                               (unsigned long long)sector_size, api_versions[api],
                               kind == FC_POREP_SYNTHETIC ? " and SyntheticPoRep"
                               : kind == FC_POREP_NON_INTERACTIVE ? " and NonInteractivePoRep"
                                                                  : "",
                               " (2KiB, 8MiB, 512MiB, 32GiB and 64GiB sectors are)");
        return;
    }
    if (partitions != r->config->partitions)
        jp_fail(j, "%llu partitions; %s has %u", (unsigned long long)partitions, r->config->name,
                r->config->partitions);
}

int fc_record_read(const char *text, size_t len, const char *name, fc_record *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    static const char *const fields[] = {"porep_config", "comm_r", "comm_d", "prover_id", "sector_id",
                                         "ticket",       "seed",   "proof"};
    enum { N_FIELDS = sizeof fields / sizeof fields[0] };
    unsigned char *dest[N_FIELDS] = {NULL, out->comm_r, out->comm_d, out->prover_id, NULL, out->ticket, out->seed, NULL};
    int have[N_FIELDS] = {0};
    jp j;
    jp_init(&j, text, len, name, err);
    if (!(out->proof = malloc(RECORD_PROOF_MAX)))
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", name);
    JP_OBJECT(&j, key)
    {
        size_t o = jp_path_push(&j, key, -1);
        int f = 0;
        while (f < N_FIELDS && strcmp(key, fields[f]))
            f++;
        if (f == 0)
            read_porep_config(&j, out);
        else if (f == 4)
            out->sector_id = jp_read_u64(&j, UINT64_MAX);
        else if (f == 7)
            out->proof_len = jp_read_bytes(&j, out->proof, RECORD_PROOF_MAX);
        else if (f < N_FIELDS)
            jp_read_bytes32(&j, dest[f]);
        else
            jp_skip_value(&j);
        if (f < N_FIELDS)
            have[f] = 1;
        jp_path_pop(&j, o);
    }
    jp_end(&j, "the record (one record a file)");
    for (int f = 0; f < N_FIELDS && !j.rc; f++)
        if (!have[f])
            jp_fail(&j, "the field \"%s\" is missing", fields[f]);
    if (j.rc)
        fc_record_free(out);
    return j.rc;
}

void fc_record_free(fc_record *r)
{
    free(r->proof);
    memset(r, 0, sizeof *r);
}

static void put_bytes(FILE *f, const char *key, const unsigned char *b, size_t n, const char *after)
{
    fprintf(f, "\"%s\":[", key);
    for (size_t i = 0; i < n; i++)
        fprintf(f, i ? ",%u" : "%u", b[i]);
    fprintf(f, "]%s", after);
}

void fc_record_write(FILE *f, const fc_record *r)
{
    const fc_porep_config *c = r->config;
    fprintf(f, "{\"porep_config\":{\"sector_size\":%llu,\"partitions\":%u,", (unsigned long long)c->sector_size,
            c->partitions);
    put_bytes(f, "porep_id", r->porep_id, 32, ",");
    fprintf(f, "\"api_version\":\"%s\",\"api_features\":[%s]},", api_versions[r->api_version],
            c->kind == FC_POREP_SYNTHETIC         ? "\"SyntheticPoRep\""
            : c->kind == FC_POREP_NON_INTERACTIVE ? "\"NonInteractivePoRep\""
                                                  : "");
    put_bytes(f, "comm_r", r->comm_r, 32, ",");
    put_bytes(f, "comm_d", r->comm_d, 32, ",");
    put_bytes(f, "prover_id", r->prover_id, 32, ",");
    fprintf(f, "\"sector_id\":%llu,", (unsigned long long)r->sector_id);
    put_bytes(f, "ticket", r->ticket, 32, ",");
    put_bytes(f, "seed", r->seed, 32, ",");
    put_bytes(f, "proof", r->proof, r->proof_len, "}\n");
}

int fc_record_api_version(const fc_porep_config *c)
{
    return c->api_1_0 ? 0 : c->kind == FC_POREP_INTERACTIVE ? 1 : 2;
}

void fc_record_replica_id(const fc_record *r, unsigned char out[32])
{
    fc_replica_id(r->prover_id, r->sector_id, r->ticket, r->comm_d, r->porep_id, out);
}

int fc_porep_key_fits(const fc_porep_config *c, size_t n_ic, const char *what, const char *kind, cuzk_error *err)
{
    const unsigned n_in = 3 + 18 * c->shape.challenges;
    if (n_ic == (size_t)n_in + 1)
        return CUZK_OK;
    return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s has %zu public inputs; %s's circuit has %u: is it the %s of %s?",
                          what, n_ic ? n_ic - 1 : 0, c->name, n_in, kind, c->name);
}

int fc_porep_verify(const fc_porep_config *c, const unsigned char porep_id[32], const unsigned char replica_id[32],
                    const unsigned char comm_d[32], const unsigned char comm_r[32], const unsigned char seed[32],
                    const unsigned char *proof, size_t proof_len, const params_vk *vk, const char *name,
                    cuzk_error *err)
{
    if (c->kind == FC_POREP_NON_INTERACTIVE)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: a non-interactive PoRep (%s): its proofs are aggregated (SnarkPack), which cuzk "
                              "does not verify",
                              name, c->name);
    const unsigned n_in = 3 + 18 * c->shape.challenges;
    int rc = fc_porep_key_fits(c, vk->n_ic, "the verifying key", "verifying key", err);
    if (rc)
        return rc;
    if ((size_t)c->partitions * CUZK_BELLPERSON_PROOF_BYTES != proof_len)
        return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF,
                              "%s: a proof of %zu bytes; %s's is %u partitions of %d bytes (%u)", name, proof_len,
                              c->name, c->partitions, CUZK_BELLPERSON_PROOF_BYTES,
                              c->partitions * CUZK_BELLPERSON_PROOF_BYTES);
    /* as_safe_commitment: comm_r and comm_d field elements */
    fr x;
    if (fc_domain_to_fr(comm_r, &x) != CUZK_OK || fc_domain_to_fr(comm_d, &x) != CUZK_OK)
        return cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "%s: comm_%s is not a field element (at or above r)", name,
                              fc_domain_to_fr(comm_r, &x) != CUZK_OK ? "r" : "d");
    fr *in = malloc(n_in * sizeof *in);
    unsigned char *pub = malloc((size_t)n_in * 32);
    if (!in || !pub) {
        free(in);
        free(pub);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    core_vk cvk = {vk->alpha1, vk->beta2, vk->gamma2, vk->delta2, vk->ic, vk->n_ic};
    for (unsigned k = 0; k < c->partitions && !rc; k++) {
        char what[64];
        unsigned char a[96], b[192], cc[96];
        snprintf(what, sizeof what, "partition %u", k);
        if ((rc = fc_porep_public_inputs(c, porep_id, replica_id, comm_d, comm_r, seed, k, in, err)))
            break;
        for (unsigned i = 0; i < n_in; i++)
            fc_fr_to_domain(&in[i], pub + 32 * i);
        cuzk_error perr;
        if (params_proof_decode(proof + (size_t)k * CUZK_BELLPERSON_PROOF_BYTES, what, a, b, cc, &perr)) {
            rc = cuzk_error_set(err, CUZK_ERR_INVALID_PROOF, "%s: %s", name, perr.message);
            break;
        }
        core_proof cp = {a, b, cc};
        if ((rc = cuzk_core()->groth16_verify(CUZK_CURVE_BLS12_381, &cvk, pub, &cp)) == CUZK_ERR_INVALID_PROOF)
            cuzk_error_set(err, rc, "%s: the proof of partition %u of %u does not verify", name, k, c->partitions);
        else if (rc)
            cuzk_error_set(err, rc, "%s: partition %u: %s", name, k, cuzk_strerror(rc));
    }
    free(in);
    free(pub);
    return rc;
}

int fc_seal_verify(const fc_record *r, const params_vk *vk, const char *name, cuzk_error *err)
{
    unsigned char replica_id[32];
    fc_record_replica_id(r, replica_id);
    return fc_porep_verify(r->config, r->porep_id, replica_id, r->comm_d, r->comm_r, r->seed, r->proof, r->proof_len,
                           vk, name, err);
}
