/* Proving keys from bellperson .params files (params_key.c): with their
 * circuit (cuzk_params_open, in cuzk.h) or alone, for supraseal's ABI. */
#ifndef CUZK_GROTH16_PARAMS_KEY_H
#define CUZK_GROTH16_PARAMS_KEY_H

#include "../../include/cuzk.h"
#include "../util/file.h"

struct cuzk_zkey;

/* A key of the .params file's points alone (canonical, on the curve, not at
 * infinity; IC and the verification key in the subgroup), decoded with
 * `threads` threads: no constraint matrices (it proves only with the
 * evaluations given, prove_prepare_evaluated) and no density lists yet
 * (a_vars and b_vars NULL until its user sets them, in owned[0] and
 * owned[1]). Its counts are checked against each other: H = 2^k - 1,
 * B_G1 = B_G2, IC <= A <= IC + L, B <= IC + L. Free with cuzk_zkey_free. */
int params_srs_open(struct cuzk_zkey **out, const char *params_path, int threads, cuzk_error *err);

/* cuzk_params_open with both files opened within limits (src/util/file.h;
 * NULL: none). */
int params_key_open(struct cuzk_zkey **out, const char *params_path, const char *r1cs_path, const file_limits *lim,
                    cuzk_progress_fn progress, void *progress_ctx, cuzk_error *err);

#endif
