/* Where a circuit's rows (src/core/circuit.h) come from: a .r1cs file
 * or a generator that makes them on demand. The generator's form is
 * porep-shape's native circuit (a few lines of text naming the size,
 * src/circuit/porep_shape.c): the full PoRep partition's .r1cs would be
 * ~26 GB, more than the GPU machine's disk holds beside its key, so it is
 * never written.
 *
 * circuit_source_open tells the two apart by their first bytes. */
#ifndef CUZK_CIRCUIT_SOURCE_H
#define CUZK_CIRCUIT_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"
#include "../core/circuit.h"
#include "../ec/curve_desc.h"
#include "../util/file.h"
#include "../util/progress.h"

struct cuzk_r1cs;

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

/* The porep-shape native description's first line (porep_shape.c). */
#define POREP_SHAPE_MAGIC "cuzk circuit porep-shape"
int porep_shape_source_parse(circuit_source **out, const char *path, const char *text, size_t len, cuzk_error *err);

#endif
