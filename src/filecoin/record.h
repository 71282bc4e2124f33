/* A sealed sector's public values and its proof, as rust-fil-proofs'
 * seal regression records hold them (one JSON object: porep_config
 * {sector_size, partitions, porep_id, api_version, api_features}, comm_r,
 * comm_d, prover_id, sector_id, ticket, seed, proof; 32-byte values and
 * the proof as arrays of numbers), and verify_seal over them: what a chain
 * checks of a PoRep, from these values alone. */
#ifndef CUZK_FILECOIN_RECORD_H
#define CUZK_FILECOIN_RECORD_H

#include <stdio.h>

#include "../formats/params.h"
#include "porep.h"

typedef struct fc_record {
    const fc_porep_config *config; /* from the sector size, the API version and its features */
    unsigned char porep_id[32];   /* as recorded: the graph's and replica_id's (tests use arbitrary ones) */
    unsigned char comm_r[32], comm_d[32], prover_id[32], ticket[32], seed[32];
    uint64_t sector_id;
    int api_version; /* 0, 1, 2: V1_0_0, V1_1_0, V1_2_0 */
    unsigned char *proof; /* proof_len bytes: the partitions' 192-byte proofs */
    size_t proof_len;
} fc_record;

/* CUZK_ERR_FORMAT naming the byte and the field (name names the text);
 * CUZK_ERR_UNSUPPORTED for a porep_config no registered proof has. */
int fc_record_read(const char *text, size_t len, const char *name, fc_record *out, cuzk_error *err);
void fc_record_free(fc_record *r);
/* One line of JSON, as the regression records are written. */
void fc_record_write(FILE *f, const fc_record *r);
/* A config's API version as proofs of it record it (fc_record.api_version). */
int fc_record_api_version(const fc_porep_config *c);
/* The record's replica_id (porep.h: fc_replica_id of its values). */
void fc_record_replica_id(const fc_record *r, unsigned char out[32]);

/* verify_seal: comm_r and comm_d field elements, the proof one 192-byte
 * bellperson proof a partition, and each partition's proof checked with
 * the pairing against vk and the public inputs derived from the record
 * (replica_id, the challenges its type draws from the seed, their
 * parents). CUZK_OK; CUZK_ERR_INVALID_PROOF naming the partition (or the
 * value) that fails; CUZK_ERR_FORMAT when vk is not a key of the record's
 * circuit (another count of inputs); CUZK_ERR_UNSUPPORTED for
 * non-interactive PoRep (its proofs are aggregated). */
int fc_seal_verify(const fc_record *r, const params_vk *vk, const char *name, cuzk_error *err);
/* Whether a key of n_ic IC points (ONE and the public inputs) is one of
 * the config's circuit: CUZK_ERR_FORMAT naming what (the key's file) and
 * its kind ("key", "verifying key") otherwise. */
int fc_porep_key_fits(const fc_porep_config *c, size_t n_ic, const char *what, const char *kind, cuzk_error *err);
/* The same from the values a C1 output holds (replica_id given). */
int fc_porep_verify(const fc_porep_config *c, const unsigned char porep_id[32], const unsigned char replica_id[32],
                    const unsigned char comm_d[32], const unsigned char comm_r[32], const unsigned char seed[32],
                    const unsigned char *proof, size_t proof_len, const params_vk *vk, const char *name,
                    cuzk_error *err);

#endif
