/* snarkjs Groth16 proving keys (.zkey), read in place from a mapped file
 * (notes/snarkjs-groth16-formats.md §2). */
#ifndef CUZK_FORMATS_ZKEY_H
#define CUZK_FORMATS_ZKEY_H

#include "binfile.h"
#include "binwriter.h"
#include "zkey_coef.h"
#include "../ec/curve_desc.h"

enum {
    ZKEY_SEC_PROTOCOL = 1,
    ZKEY_SEC_HEADER = 2,
    ZKEY_SEC_IC = 3,
    ZKEY_SEC_COEFS = 4,
    ZKEY_SEC_A = 5,
    ZKEY_SEC_B1 = 6,
    ZKEY_SEC_B2 = 7,
    ZKEY_SEC_C = 8,
    ZKEY_SEC_H = 9,
    ZKEY_SEC_CONTRIBUTIONS = 10,
};

struct cuzk_zkey {
    binfile bf;
    const curve_desc *curve;
    uint32_t n_vars, n_public, domain_size;
    uint64_t n_coefs;
    /* verification-key points inside section 2 */
    const unsigned char *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    const unsigned char *ic;    /* n_public + 1 G1 */
    const unsigned char *coefs; /* n_coefs entries (zkey_coef.h) */
    const unsigned char *a, *b1, *b2, *c, *h;
    /* The points A, B1/B2 and H hold (a .zkey: n_vars, n_vars, domain_size). */
    uint32_t n_a, n_b, n_h;
    /* ZKEY_KIND_SNARKJS: a .zkey; everything above points into bf.
     * ZKEY_KIND_BELLPERSON: a bellperson .params key with its circuit
     * (src/groth16/params_key.c): the points decoded from the .params file
     * (in `owned`), the matrices made from the circuit (mat; coefs
     * NULL); A and B hold only the points of the variables their
     * densities set (a_vars, b_vars: the variable of each point,
     * ascending), H the domain_size - 1 points tau^i Z(tau) / delta of
     * the monomial basis, C is bellperson's L. */
    int kind;
    const uint32_t *a_vars, *b_vars;
    void *owned[4];
    /* The constraint matrices A and B as the provers read them
     * (src/core/matrices.h): a .params key's, made with it from its
     * circuit; a .zkey's, made from section 4 at its first proof
     * (src/groth16/key.c, key_matrices). Freed with the key. */
    struct cs_matrices *mat;
    /* A .params key opened with a generated circuit (porep-shape's native
     * form): the circuit, which makes each partition's witness
     * (key_make_witness, src/groth16/key.c). Freed with the key. */
    struct circuit_source *source;
    /* A .params key read alone (supraseal-c2's SRS): its densities as
     * its first calls set them, on trial until one succeeds
     * (src/groth16/params_key.c, params_srs_densities). Freed with the
     * key. */
    struct srs_densities *srs_densities;
};
enum { ZKEY_KIND_SNARKJS, ZKEY_KIND_BELLPERSON };

/* Everything a .zkey holds, for writing one. Points are in the .zkey
 * layout (Montgomery, little-endian); coefs are n_coefs raw entries
 * (zkey_coef.h); contributions (section 10) may be NULL. */
typedef struct zkey_parts {
    const curve_desc *curve;
    uint32_t n_vars, n_public, domain_size;
    const unsigned char *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    const unsigned char *ic, *coefs, *a, *b1, *b2, *c, *h;
    uint64_t n_coefs;
    const unsigned char *contributions;
    uint64_t contributions_size;
} zkey_parts;

/* Writes a key (version 1, sections 1 to 9 in order, then 10 if present)
 * through binwriter: atomically, or not at all. */
int zkey_write(const char *path, const zkey_parts *p, cuzk_error *err);

/* The parts of an opened key (pointers into its mapping). */
void zkey_parts_of(const struct cuzk_zkey *zk, zkey_parts *p);

/* Opening and freeing the file (BINFILE_DEFINE_OPEN): the public
 * cuzk_zkey_open/cuzk_zkey_free are the proving key's (src/groth16/key.c),
 * which frees the key's GPU copies with it. */
int zkey_file_open(struct cuzk_zkey **out, const char *path, cuzk_error *err);
/* Mapped instead of read (BINFILE_MAP): for `cuzk info`, a look at the header */
int zkey_file_map(struct cuzk_zkey **out, const char *path, cuzk_error *err);
int zkey_file_open_limited(struct cuzk_zkey **out, const char *path, const file_limits *lim, const progress_sink *progress,
                            cuzk_error *err);
int zkey_file_open_memory(struct cuzk_zkey **out, const void *data, size_t len, const char *name, cuzk_error *err);
void zkey_file_free(struct cuzk_zkey *zk);

#endif
