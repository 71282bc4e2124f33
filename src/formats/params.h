/* bellperson Groth16 parameter files (.params, used by Filecoin): no magic;
 * the verification key (alpha_g1, beta_g1, beta_g2, gamma_g2, delta_g1,
 * delta_g2: 864 bytes) then six vectors, each a big-endian u32 count and
 * that many uncompressed ZCash points: IC, H, L, A, B_G1 (G1) and B_G2 (G2)
 * (notes/filecoin-gpu-provers.md §1.2). Read in chunks, not mapped. */
#ifndef CUZK_FORMATS_PARAMS_H
#define CUZK_FORMATS_PARAMS_H

#include "binfile.h"
#include "binwriter.h"

enum { PARAMS_IC, PARAMS_H, PARAMS_L, PARAMS_A, PARAMS_B_G1, PARAMS_B_G2, PARAMS_VECTORS };

typedef struct params_file {
    char name[256];
    const unsigned char *data; /* params_parse's memory; NULL for a file (read through fd) */
    int fd;
    uint64_t size;
    const unsigned char *vk; /* 864 bytes (vk_bytes) */
    unsigned char vk_bytes[864];
    uint32_t count[PARAMS_VECTORS];
    uint64_t off[PARAMS_VECTORS];             /* each vector's first point */
    const unsigned char *vec[PARAMS_VECTORS]; /* the same in data (NULL for a file) */
    int vk_only; /* a .vk file: the verifying key and IC, no other vector */
} params_file;

extern const char *const params_vector_name[PARAMS_VECTORS];

/* Opens and parses; checks the layout against the file size and the six
 * verification-key points (canonical, on the curve, in the subgroup). The
 * points are read when needed, a chunk at a time, not mapped: a file that
 * shrinks meanwhile fails a read (an error naming it) instead of raising
 * SIGBUS, and tens of GB are never all in memory twice. params_parse: the
 * same over memory. */
int params_open(params_file *pf, const char *path, cuzk_error *err);
/* The same within limits (src/util/file.h; NULL: none). */
int params_open_limited(params_file *pf, const char *path, const file_limits *lim, cuzk_error *err);
/* A bellperson verifying-key file (Filecoin's .vk beside each .params):
 * the same 864 bytes and IC vector as the key begins with, nothing after;
 * the other vectors' counts are 0. */
int params_open_vk(params_file *pf, const char *path, cuzk_error *err);
int params_parse(params_file *pf, const void *data, size_t size, const char *name, cuzk_error *err);
void params_close(params_file *pf);
/* Points [first, first + n) of a vector, as the file holds them. */
int params_read_points(const params_file *pf, int vector, size_t first, size_t n, unsigned char *out,
                       cuzk_error *err);

/* The verification key's points (params_decode_vk) and every point of the
 * six vectors: canonical, on the curve, in the subgroup and not at
 * infinity (bellperson's checked read), with
 * `threads` threads (>= 1) and progress ("checking H", ...: done and total
 * count all vectors' points). The first bad point named with its vector. */
int params_check(const params_file *pf, int threads, const progress_sink *progress, cuzk_error *err);

/* One vector's points decoded into out (the library's layout: a .zkey's,
 * 96 or 192 bytes a point) in parallel, as bellperson's unchecked read
 * takes them: canonical and on the curve, not at infinity, the subgroup
 * left to params_check (a point outside it makes proofs that fail their
 * pairing check, never a wrong proof). Progress as params_check's. */
int params_decode(const params_file *pf, int vector, unsigned char *out, int threads, const progress_sink *progress,
                  unsigned long long base, unsigned long long total, cuzk_error *err);
/* The six verification-key points, decoded and checked in full: none at
 * infinity (a degenerate key: formats/point_check.h). */
int params_decode_vk(const params_file *pf, unsigned char *alpha1, unsigned char *beta1, unsigned char *beta2,
                     unsigned char *gamma2, unsigned char *delta1, unsigned char *delta2, cuzk_error *err);

/* The verifying key decoded and checked (every point canonical, on the
 * curve, in the subgroup; none of the six at infinity), in the library's
 * layout: what a pairing check reads. */
typedef struct params_vk {
    unsigned char alpha1[96], beta1[96], beta2[192], gamma2[192], delta1[96], delta2[192];
    unsigned char *ic; /* n_ic G1 points: the constant one's, then one a public input */
    size_t n_ic;
} params_vk;
int params_read_vk(const params_file *pf, params_vk *vk, cuzk_error *err);
void params_vk_free(params_vk *vk);
/* The .vk file of a key (or a .vk's copy), written atomically. */
int params_write_vk(const params_file *pf, const char *path, cuzk_error *err);
/* A proof as bellperson writes it (A, B, C compressed: 192 bytes)
 * decoded, each point checked (canonical, on the curve, in the
 * subgroup); name names it in messages. */
int params_proof_decode(const unsigned char proof[CUZK_BELLPERSON_PROOF_BYTES], const char *name, unsigned char a[96],
                        unsigned char b[192], unsigned char c[96], cuzk_error *err);

/* verification_key.json of the key as snarkjs writes one (*json: free()
 * it): the Groth16 equation is bellperson's too, IC[0] the constant one's
 * point, so snarkjs can check proofs made from .params keys. */
int params_export_vk(const params_file *pf, char **json, cuzk_error *err);

/* Writing a .params key as a stream (binwriter: a temporary file renamed
 * at commit, nothing left behind on failure): the verification key, then
 * the six vectors in order, each begun, given its points in the library's
 * layout (encoded here as uncompressed ZCash points) and ended, when its
 * count is patched in. */
typedef struct params_writer {
    binwriter w;
    int vector;             /* the open vector, or -1 */
    long long count_at;     /* its count's offset */
    unsigned long long count;
    unsigned char *buf;     /* encoding scratch */
} params_writer;

/* vk: alpha1, beta1, beta2, gamma2, delta1, delta2 in the library's layout
 * (G1 and G2 points as a .zkey holds them). */
int params_writer_open(params_writer *pw, const char *path, const unsigned char *alpha1, const unsigned char *beta1,
                       const unsigned char *beta2, const unsigned char *gamma2, const unsigned char *delta1,
                       const unsigned char *delta2, cuzk_error *err);
void params_vector_begin(params_writer *pw, int vector);
/* n points of the open vector's group; with skip_infinity those at
 * infinity are left out (bellperson's A, B_G1 and B_G2 hold only the
 * variables their density sets). */
void params_vector_points(params_writer *pw, const unsigned char *pts, size_t n, int skip_infinity);
void params_vector_end(params_writer *pw);
int params_writer_commit(params_writer *pw, cuzk_error *err);
void params_writer_abort(params_writer *pw);

#endif
