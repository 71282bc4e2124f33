/* snarkjs's JSON files: verification_key.json, proof.json, public.json
 * (notes/snarkjs-groth16-formats.md §4-5). Parsed with jansson when the
 * build has it (CUZK_HAVE_JANSSON); otherwise the parsers return
 * CUZK_ERR_UNSUPPORTED.
 *
 * Points come out in the .zkey layout (affine, Montgomery, little-endian;
 * infinity all zero), checked: coordinates canonical, on the curve and in
 * the prime-order subgroup. Scalars come out as plain 32-byte little-endian
 * values below r. Every message names the file and the JSON path
 * ("proof.json: pi_b[1][0]: ..."). */
#ifndef CUZK_FORMATS_SNARKJS_JSON_H
#define CUZK_FORMATS_SNARKJS_JSON_H

#include <stddef.h>

#include "../../include/cuzk.h"
#include "../ec/curve_desc.h"

/* Largest JSON file read: a vk with ~1.5 M public inputs. */
#define SNARKJS_JSON_MAX_BYTES (256u << 20)

typedef struct snarkjs_vk {
    const curve_desc *curve;
    unsigned n_public;
    unsigned char alpha1[96], beta2[192], gamma2[192], delta2[192];
    unsigned char *ic; /* n_public + 1 G1 points */
} snarkjs_vk;

typedef struct snarkjs_proof {
    const curve_desc *curve;
    unsigned char a[96], b[192], c[96];
} snarkjs_proof;

typedef struct snarkjs_public {
    size_t n;
    unsigned char *values; /* n * 32 bytes */
} snarkjs_public;

int snarkjs_vk_parse(snarkjs_vk *vk, const char *text, size_t len, const char *name, cuzk_error *err);
void snarkjs_vk_free(snarkjs_vk *vk);

/* The proof's curve is its "curve" key when present (rapidsnark omits it),
 * else `curve`; the two must agree. */
int snarkjs_proof_parse(snarkjs_proof *proof, const char *text, size_t len, const char *name,
                        const curve_desc *curve, cuzk_error *err);

int snarkjs_public_parse(snarkjs_public *pub, const char *text, size_t len, const char *name,
                         const curve_desc *curve, cuzk_error *err);
void snarkjs_public_free(snarkjs_public *pub);

/* ---- writing, in snarkjs's layout (JSON.stringify(value, null, 1)) ---- */

struct json_out;
/* Points given in the .zkey layout, written as snarkjs's projective
 * triples ([x, y, "1"]; infinity ["0", "1", "0"]); an Fp2 pair. */
void jo_g1(struct json_out *j, const curve_desc *c, const unsigned char *p);
void jo_g2(struct json_out *j, const curve_desc *c, const unsigned char *p);
void jo_fq2(struct json_out *j, const curve_desc *c, const unsigned char *p);

/* proof.json and public.json texts (free() them); NULL when out of memory. */
char *snarkjs_proof_json(const curve_desc *c, const unsigned char *a, const unsigned char *b,
                         const unsigned char *cpt);
char *snarkjs_public_json(const unsigned char *values, size_t n);
/* verification_key.json as snarkjs's `zkey export verificationkey`
 * writes it, from points in the .zkey layout (n_ic >= 1: the constant
 * one's point first); NULL when out of memory. */
char *snarkjs_vk_json(const curve_desc *c, const unsigned char *alpha1, const unsigned char *beta2,
                      const unsigned char *gamma2, const unsigned char *delta2, const unsigned char *ic, size_t n_ic);

/* Reads a whole JSON file (a regular file of at most SNARKJS_JSON_MAX_BYTES,
 * both checked before reading: src/util/file.h) into a NUL-terminated
 * buffer (free() it). */
int read_json_file(const char *path, char **text, size_t *len, cuzk_error *err);

#endif
