/* Proving keys from bellperson .params files (params_key.c): with their
 * circuit (cuzk_params_open, in cuzk.h) or alone, for supraseal's ABI. */
#ifndef CUZK_GROTH16_PARAMS_KEY_H
#define CUZK_GROTH16_PARAMS_KEY_H

#include <stdint.h>

#include "../../include/cuzk.h"
#include "../util/file.h"

struct cuzk_zkey;
struct srs_densities;

/* A key of the .params file's points alone (canonical, on the curve, not at
 * infinity; IC and the verification key in the subgroup), decoded with
 * `threads` threads: no constraint matrices (it proves only with the
 * evaluations given, prove_prepare_evaluated) and no density lists yet
 * (a_vars and b_vars NULL until its user sets them, in owned[0] and
 * owned[1]). Its counts are checked against each other: H = 2^k - 1,
 * B_G1 = B_G2, IC <= A <= IC + L, B <= IC + L. Free with cuzk_zkey_free. */
int params_srs_open(struct cuzk_zkey **out, const char *params_path, int threads, cuzk_error *err);

/* A key of params_srs_open learns its circuit's densities from its
 * callers (supraseal-c2's ABI hands them with every call, as bit vectors
 * over the inputs and the aux variables): the first call's set the key's
 * A and B variable lists (a_vars, b_vars, and so the points its GPU copy
 * holds); later calls must bring the same bits. Until a call with them
 * succeeds they are on trial: *trial says the caller holds them so, and
 * must end with params_srs_densities_end. CUZK_ERR_INVALID_ARGUMENT for
 * bits that differ from the key's; CUZK_ERR_NO_MEMORY. Thread-safe. */
int params_srs_densities(struct cuzk_zkey *zk, const uint64_t *a_aux, const uint64_t *b_inp, const uint64_t *b_aux,
                         int *trial, cuzk_error *err);
/* A call that held the densities on trial ended: succeeded, they are the
 * key's for good; when every such call failed they are forgotten (a
 * wrong first call must not refuse every right one after it), with the
 * GPU's copies made with them: forget (may be NULL) first takes the key
 * out of the memory plan that counts them. */
void params_srs_densities_end(struct cuzk_zkey *zk, int trial, int succeeded,
                              void (*forget)(const struct cuzk_zkey *zk));
/* Frees the state (NULL: nothing); cuzk_zkey_free calls it. */
void params_srs_densities_free(struct srs_densities *d);

/* cuzk_params_open with both files opened within limits (src/util/file.h;
 * NULL: none). */
/* The same with the circuit's source given (owned from then on: kept
 * when it makes witnesses, else freed once the key's matrices are made),
 * e.g. Filecoin's PoRep circuit recorded for a C1 output's proof. */
struct circuit_source;
int params_key_open_source(struct cuzk_zkey **out, const char *params_path, struct circuit_source *src,
                           const file_limits *lim, cuzk_progress_fn progress, void *progress_ctx, cuzk_error *err);
int params_key_open(struct cuzk_zkey **out, const char *params_path, const char *r1cs_path, const file_limits *lim,
                    cuzk_progress_fn progress, void *progress_ctx, cuzk_error *err);

#endif
