/* The library side of proving: checks that key and witness belong
 * together, draws r and s, runs the core prover, verifies the result. */
#ifndef CUZK_GROTH16_PROVE_H
#define CUZK_GROTH16_PROVE_H

#include "../core.h"
#include "../formats/wtns.h"
#include "../formats/zkey.h"

/* cuzk_prove with r and s given (plain 32-byte little-endian, below r):
 * the test hook for comparing proofs bit for bit. The proof's points land in
 * out (the .zkey layout). */
int groth16_prove_with(const struct cuzk_zkey *zk, const struct cuzk_wtns *w, const unsigned char r[32],
                       const unsigned char s[32], const cuzk_prove_options *opts, core_prove_out *out,
                       cuzk_timings *timings, cuzk_error *err);

#endif
