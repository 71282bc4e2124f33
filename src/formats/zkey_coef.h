/* An entry of a .zkey's coefficient section (section 4, after its u32
 * count; notes/snarkjs-groth16-formats.md §2): u32 matrix (0: A, 1: B),
 * u32 constraint (the row), u32 signal (the column), then the value in 32
 * bytes, coef * R^2 mod r as a plain little-endian integer. The one
 * decoding of it: the key's check (src/formats/zkey.c), the CPU's
 * evaluation (src/core/prove_impl.h) and the GPU's matrices
 * (cuda/groth16/prove.cu) read entries through this header. Plain C with
 * no dependencies: the CUDA host code includes it too. Entries may be
 * unaligned (a mapped file). */
#ifndef CUZK_FORMATS_ZKEY_COEF_H
#define CUZK_FORMATS_ZKEY_COEF_H

#include <stdint.h>
#include <string.h>

#define ZKEY_COEF_BYTES 44 /* 12 + 32: r fits 32 bytes on both curves */

typedef struct zkey_coef {
    uint32_t matrix;     /* 0 = A, 1 = B */
    uint32_t constraint; /* row, < domain size */
    uint32_t signal;     /* column, < nVars */
    const unsigned char *value;
} zkey_coef;

/* Entry i of the entries that start at `entries`. */
static inline zkey_coef zkey_coef_at(const unsigned char *entries, uint64_t i)
{
    const unsigned char *e = entries + i * ZKEY_COEF_BYTES;
    zkey_coef c;
    memcpy(&c.matrix, e, 4); /* little-endian hosts only (src/util/util.h) */
    memcpy(&c.constraint, e + 4, 4);
    memcpy(&c.signal, e + 8, 4);
    c.value = e + 12;
    return c;
}

/* The row of entry i alone (the scans for sortedness and row starts). */
static inline uint32_t zkey_coef_row(const unsigned char *entries, uint64_t i)
{
    uint32_t row;
    memcpy(&row, entries + i * ZKEY_COEF_BYTES + 4, 4);
    return row;
}

/* Whether the entry's matrix, row and signal are in range (that the value
 * is below r each reader checks in its own field arithmetic). */
static inline int zkey_coef_indices_ok(const zkey_coef *c, uint32_t domain_size, uint32_t n_vars)
{
    return c->matrix <= 1 && c->constraint < domain_size && c->signal < n_vars;
}

#endif
