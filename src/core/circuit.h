/* A circuit's constraint system as the setup and the proving key read it:
 * row ranges in the .r1cs layout (section 2: per constraint, A, B and C
 * each as a u32 term count and terms of u32 wire + 32-byte plain
 * coefficient), from wherever they come (src/circuit/source.h opens them:
 * a .r1cs file or a generator). The interface only: the core's setup
 * (src/core/setup_impl.h) reads rows through it. */
#ifndef CUZK_CORE_CIRCUIT_H
#define CUZK_CORE_CIRCUIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../../include/cuzk.h"
#include "../ec/curve_desc.h"

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

/* Makes room for `need` bytes in b (its contents kept). */
static inline int source_buf_reserve(source_buf *b, size_t need)
{
    if (need <= b->cap)
        return CUZK_OK;
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < need)
        cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p)
        return CUZK_ERR_NO_MEMORY;
    b->p = p;
    b->cap = cap;
    return CUZK_OK;
}

static inline void source_buf_free(source_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

#endif
