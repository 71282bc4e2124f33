/* circom witness files (.wtns): n field elements, plain little-endian
 * (notes/snarkjs-groth16-formats.md §3). */
#ifndef CUZK_FORMATS_WTNS_H
#define CUZK_FORMATS_WTNS_H

#include "binfile.h"
#include "curve.h"

struct cuzk_wtns {
    binfile bf;
    const curve_desc *curve;
    uint32_t n_witness;
    const unsigned char *values; /* n_witness * 32 bytes, each < r */
};

#endif
