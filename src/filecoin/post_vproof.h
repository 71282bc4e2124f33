/* A sector's PoSt vanilla proof as rust-fil-proofs writes it with bincode
 * (FallbackPoStSectorProof: what Lotus and Curio hand a WindowPoSt or
 * WinningPoSt prover): the sector's id and comm_r, and per challenge the
 * path of the challenged leaf of tree R to comm_r_last, with comm_c and
 * comm_r_last, which hash (Poseidon, arity 2) to comm_r. */
#ifndef CUZK_FILECOIN_POST_VPROOF_H
#define CUZK_FILECOIN_POST_VPROOF_H

#include <stddef.h>

#include "merkle.h"

typedef struct fc_post_sector_proof {
    uint64_t sector_id;
    unsigned char comm_r[32], comm_c[32], comm_r_last[32];
    unsigned n_paths;
    fc_path *paths;
} fc_post_sector_proof;

/* Reads one sector's proof from len bytes (all of them: bytes left over
 * are an error). CUZK_ERR_FORMAT naming the field and offset. */
int fc_post_vproof_read(const unsigned char *b, size_t len, fc_post_sector_proof *out, cuzk_error *err);
void fc_post_vproof_free(fc_post_sector_proof *p);

#endif
