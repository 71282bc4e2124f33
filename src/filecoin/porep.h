/* The PoRep's parameters and public values: the registered seal proofs
 * (sector size, layers, partitions and challenges, tree shape, porep id),
 * replica_id, and the challenges a seed gives. */
#ifndef CUZK_FILECOIN_POREP_H
#define CUZK_FILECOIN_POREP_H

#include <stdint.h>

#include "../../include/cuzk.h"
#include "stacked.h"
#include "../cs/cs.h"

enum { FC_POREP_INTERACTIVE, FC_POREP_SYNTHETIC, FC_POREP_NON_INTERACTIVE };

typedef struct fc_porep_config {
    const char *name;    /* RegisteredSealProof's, e.g. StackedDrg32GiBV1_1 */
    const char *size_name; /* "2KiB" ... "64GiB" */
    uint64_t id;         /* the registered proof's number */
    uint64_t sector_size;
    unsigned partitions;
    int api_1_0;         /* API 1.0 (StackedDrg*V1): its graph */
    int kind;            /* FC_POREP_* */
    fc_porep_shape shape; /* nodes, layers, challenges a partition, tree shape */
} fc_porep_config;

/* NULL when unknown. */
const fc_porep_config *fc_porep_config_by_name(const char *name);
const fc_porep_config *fc_porep_config_by_id(uint64_t id);
/* The interactive V1_1 proof of a sector size ("2KiB", "32GiB", or bytes). */
const fc_porep_config *fc_porep_config_by_size(const char *size);
/* The config of a sector size, API 1.0 or later, and kind (a record's
 * porep_config); NULL when none. */
const fc_porep_config *fc_porep_config_for(uint64_t sector_size, int api_1_0, int kind);
/* Every config, n_out of them. */
const fc_porep_config *fc_porep_configs(unsigned *n_out);

/* porep_id: the proof's number little-endian in 8 bytes, then zeros. */
void fc_porep_id(const fc_porep_config *c, unsigned char out[32]);
/* replica_id = trim(SHA-256(prover_id, sector_id big-endian, ticket,
 * comm_d, porep_id)). */
void fc_replica_id(const unsigned char prover_id[32], uint64_t sector_id, const unsigned char ticket[32],
                   const unsigned char comm_d[32], const unsigned char porep_id[32], unsigned char out[32]);
/* The challenges of partition k (shape.challenges of them), each
 * (h mod (nodes - 1)) + 1 for a 256-bit little-endian h:
 * - interactive: h = SHA-256(replica_id, seed, j), j = k x challenges + i
 *   as 4 bytes little-endian;
 * - non-interactive: h = SHA-256("filecoin.io|PoRep|1|NonInteractive|1",
 *   replica_id, comm_r, j), the seed unused;
 * - synthetic: the fc_synth_challenge at each of the fc_synth_indexes the
 *   seed selects, from first = k x challenges.
 * seed or comm_r may be NULL where unused. */
int fc_porep_challenges(const fc_porep_config *c, const unsigned char replica_id[32], const unsigned char comm_r[32],
                        const unsigned char seed[32], unsigned k, uint64_t *out, cuzk_error *err);

/* Synthetic PoRep (rust-fil-proofs' SynthChallengeGenerator): a sector's
 * min(nodes, 2^18) synthetic challenges, the i-th from bytes 32 i.. of
 * ChaCha20 (nonce "synth-porep\0") keyed by BLAKE2b-256 keyed with
 * "filecoin.io|PoRep|1|Synthetic|1|Generation" of (replica_id, comm_r); the
 * ones a proof answers chosen by indexes, the i-th a 32-bit little-endian
 * word at bytes 4 i.. of ChaCha20 keyed as above with "...|Selection" of
 * (replica_id, seed), mod the count. */
enum { FC_SYNTH_CHALLENGES = 1 << 18 };
uint64_t fc_synth_count(uint64_t nodes);
uint64_t fc_synth_challenge(uint64_t nodes, const unsigned char replica_id[32], const unsigned char comm_r[32],
                            uint64_t i);
void fc_synth_indexes(const unsigned char replica_id[32], const unsigned char seed[32], uint64_t first, unsigned n,
                      uint64_t count, uint64_t *out);

/* The public inputs of partition k as a verifier derives them from the
 * public values alone (generate_public_inputs), ONE not included:
 * replica_id, comm_d, comm_r, then per challenge c: c (tree D's path),
 * its 6 DRG and 8 expander parents (their paths in tree C), c (the
 * challenge), c (tree R), c (tree C). 3 + 18 a challenge values into out.
 * porep_id: the graph's (NULL: the config's own, fc_porep_id). */
int fc_porep_public_inputs(const fc_porep_config *c, const unsigned char porep_id[32], const unsigned char replica_id[32], const unsigned char comm_d[32],
                           const unsigned char comm_r[32], const unsigned char seed[32], unsigned k, fr *out,
                           cuzk_error *err);

#endif
