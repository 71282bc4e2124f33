/* snarkjs powers-of-tau files prepared for phase 2 (.ptau): the header, tau
 * powers and, in sections 12-15, the Lagrange bases of every domain size
 * (levels 0 .. power + 1 of section 12, 0 .. power of 13-15, level k
 * starting at point 2^k - 1). Points in the .zkey layout. */
#ifndef CUZK_FORMATS_PTAU_H
#define CUZK_FORMATS_PTAU_H

#include "binfile.h"
#include "../ec/curve_desc.h"

enum {
    PTAU_SEC_HEADER = 1,
    PTAU_SEC_TAU_G1 = 2,
    PTAU_SEC_TAU_G2 = 3,
    PTAU_SEC_ALPHA_TAU_G1 = 4,
    PTAU_SEC_BETA_TAU_G1 = 5,
    PTAU_SEC_BETA_G2 = 6,
    PTAU_SEC_LAGRANGE_G1 = 12,
    PTAU_SEC_LAGRANGE_G2 = 13,
    PTAU_SEC_LAGRANGE_ALPHA_G1 = 14,
    PTAU_SEC_LAGRANGE_BETA_G1 = 15,
};

typedef struct ptau_file {
    binfile bf;
    const curve_desc *curve;
    uint32_t power, ceremony_power;
    const unsigned char *tau_g1;      /* 2^(power+1) - 1 points */
    const unsigned char *alpha_tau_g1, *beta_tau_g1, *beta_g2;
    const unsigned char *lagrange_g1; /* levels 0 .. power + 1 */
    const unsigned char *lagrange_g2, *lagrange_alpha_g1, *lagrange_beta_g1; /* levels 0 .. power */
} ptau_file;

/* Maps and checks a prepared ptau file: header, the size of every section
 * used, and that sections 12-15 exist ("run snarkjs powersoftau prepare
 * phase2" otherwise). */
int ptau_open(ptau_file *p, const char *path, cuzk_error *err);
void ptau_close(ptau_file *p);

/* Level k of a Lagrange section: 2^k points. */
static inline const unsigned char *ptau_level(const unsigned char *section, unsigned k, size_t point_bytes)
{
    return section + (((size_t)1 << k) - 1) * point_bytes;
}

#endif
