/* A circuit's constraint system as the setup and the proving key read it:
 * row ranges in the .r1cs layout (section 2: per constraint, A, B and C
 * each as a u32 term count and terms of u32 wire + 32-byte plain
 * coefficient), from a .r1cs file or from a generator that makes them on
 * demand. The generator's form is porep-shape's native circuit (a few
 * lines of text naming the size, src/circuit/porep_shape.c): the full
 * PoRep partition's .r1cs would be ~26 GB, more than the GPU machine's
 * disk holds beside its key, so it is never written.
 *
 * circuit_source_open tells the two apart by their first bytes. */
#ifndef CUZK_CIRCUIT_SOURCE_H
#define CUZK_CIRCUIT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"
#include "../ec/curve_desc.h"
#include "../util/file.h"
#include "../util/progress.h"

struct cuzk_r1cs;

typedef struct circuit_source circuit_source;

/* A growable byte buffer for rows (the caller's, reused across calls). */
typedef struct source_buf {
    unsigned char *p;
    size_t len, cap;
} source_buf;

struct circuit_source {
    char name[256]; /* the path, for messages */
    const curve_desc *curve;
    uint32_t n_wires;
    uint32_t n_public; /* public signals (outputs and public inputs), not counting the constant one */
    uint32_t n_constraints;
    uint32_t chunk_rows; /* rows a call is best asked for (row0 and n multiples of it) */
    /* Rows [row0, row0 + n) (within n_constraints) into buf, replacing its
     * contents. Safe from several threads at once on their own buffers.
     * CUZK_OK or CUZK_ERR_NO_MEMORY. */
    int (*rows)(const circuit_source *s, uint32_t row0, uint32_t n, source_buf *buf);
    /* A generated circuit's witness for one partition: n_wires plain
     * 32-byte values, made with `threads` threads; NULL for a file's
     * circuit (its witnesses come from .wtns files). */
    int (*witness)(const circuit_source *s, unsigned partition, unsigned char *out, int threads, cuzk_error *err);
    /* a generated circuit's witnesses: how many partitions and the seed */
    unsigned partitions;
    uint64_t seed;
    void (*release)(circuit_source *s);
    void *impl;
};

/* A .r1cs file (read whole, validated) or a native circuit description
 * (src/circuit/porep_shape.c), by its content. */
int circuit_source_open(circuit_source **out, const char *path, const progress_sink *progress, cuzk_error *err);
/* The same within limits (src/util/file.h; NULL: none). */
int circuit_source_open_limited(circuit_source **out, const char *path, const file_limits *lim,
                                const progress_sink *progress, cuzk_error *err);
/* The constraints of an open .r1cs; the source owns it from then on (it is
 * freed with the source, or at once on failure). */
int circuit_source_from_r1cs(circuit_source **out, struct cuzk_r1cs *r, cuzk_error *err);
/* NULL: nothing */
void circuit_source_free(circuit_source *s);

/* The .r1cs the source reads, or NULL for a generated circuit (a setup
 * with a ptau reads the file's constraints whole). */
const struct cuzk_r1cs *circuit_source_r1cs(const circuit_source *s);

/* Makes room for `need` bytes in b (its contents kept). */
int source_buf_reserve(source_buf *b, size_t need);
void source_buf_free(source_buf *b);

/* The porep-shape native description's first line (porep_shape.c). */
#define POREP_SHAPE_MAGIC "cuzk circuit porep-shape"
int porep_shape_source_parse(circuit_source **out, const char *path, const char *text, size_t len, cuzk_error *err);

#endif
