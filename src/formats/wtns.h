/* circom witness files (.wtns): n field elements, plain little-endian
 * (notes/snarkjs-groth16-formats.md §3). */
#ifndef CUZK_FORMATS_WTNS_H
#define CUZK_FORMATS_WTNS_H

#include "binfile.h"
#include "binwriter.h"
#include "../ec/curve_desc.h"

struct cuzk_wtns {
    binfile bf;
    const curve_desc *curve;
    uint32_t n_witness;
    const unsigned char *values; /* n_witness * 32 bytes, each < r */
};

/* cuzk_wtns_open mapped instead of read (BINFILE_MAP): for `cuzk info` */
int cuzk_wtns_map(struct cuzk_wtns **out, const char *path, cuzk_error *err);
int cuzk_wtns_open_limited(struct cuzk_wtns **out, const char *path, const file_limits *lim,
                           const progress_sink *progress, cuzk_error *err);

/* The bytes of a .wtns file of n values as snarkjs and circom write it (the
 * header, the header section, the values' section); a reader that knows
 * n allows WTNS_EXTRA_BYTES more (a section of another writer's). */
static inline uint64_t wtns_file_bytes(uint64_t n)
{
    return 12 + (12 + 4 + 32 + 4) + 12 + 32 * n;
}
#define WTNS_EXTRA_BYTES 4096

/* A witness made in memory (a generated circuit's, src/circuit/source.h):
 * n values to fill in *values (plain 32 bytes each, below r), anonymous
 * memory freed with the witness. */
int wtns_alloc(struct cuzk_wtns **out, const curve_desc *curve, uint32_t n, const char *name, unsigned char **values,
               cuzk_error *err);

/* Writes a witness (version 2): n values of 32 bytes, plain little-endian,
 * each below the curve's r. Atomic: the file appears complete or not at all. */
int wtns_write(const char *path, const curve_desc *curve, const unsigned char *values, uint32_t n,
               cuzk_error *err);
/* The same as a stream: the header written and the values' section begun;
 * write the n values (binwriter_write), then binwriter_section_end and
 * binwriter_commit (or binwriter_abort). */
int wtns_writer_open(binwriter *w, const char *path, const curve_desc *curve, uint32_t n, cuzk_error *err);

#endif
