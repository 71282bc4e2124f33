/* circom constraint systems (.r1cs, iden3/r1csfile's r1cs_bin_format.md):
 * section 1 header, section 2 the constraints A*B = C as three linear
 * combinations each, section 3 the wire-to-label map. Coefficients are
 * plain little-endian field elements. */
#ifndef CUZK_FORMATS_R1CS_H
#define CUZK_FORMATS_R1CS_H

#include "binfile.h"
#include "../ec/curve_desc.h"

struct cuzk_r1cs {
    binfile bf;
    const curve_desc *curve;
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels, n_terms;
    const unsigned char *constraints; /* section 2, validated */
    uint64_t constraints_size;
};

/* cuzk_r1cs_open mapped instead of read (BINFILE_MAP): for `cuzk info` */
int cuzk_r1cs_map(struct cuzk_r1cs **out, const char *path, cuzk_error *err);
/* cuzk_r1cs_open reporting the read (a setup of a large circuit) */
int cuzk_r1cs_open_limited(struct cuzk_r1cs **out, const char *path, const file_limits *lim,
                           const progress_sink *progress, cuzk_error *err);

#endif
