/* Where a circuit's rows (src/core/circuit.h) come from: a .r1cs file
 * or a generator that makes them on demand from a native description (a
 * few lines naming the circuit: a full PoRep partition's .r1cs would be
 * ~26 GB, more than the GPU machine's disk holds beside its key, so it is
 * never written). Generators register their kind of description
 * (circuit_kind_register); circuit_source_open tells the forms apart by
 * their first bytes. */
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
 * of a registered kind, by its content. */
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

/* A kind of native circuit description: a few lines of text, the first
 * naming the kind (CIRCUIT_DESCRIPTION_PREFIX and the kind's name), from
 * which a generator makes the circuit's rows and witnesses on demand.
 * parse makes the source from the file's text (len bytes, at most 4096).
 * The library that knows a kind registers it (cuzk_testcircuits_register
 * does porep-shape's); circuit_source_open then takes such a file where a
 * .r1cs goes. Idempotent (the same first line again is kept once),
 * thread-safe; CUZK_ERR_NO_MEMORY when the table (8 kinds) is full. */
#define CIRCUIT_DESCRIPTION_PREFIX "cuzk circuit "
typedef int (*circuit_kind_parse_fn)(circuit_source **out, const char *path, const char *text, size_t len,
                                     cuzk_error *err);
int circuit_kind_register(const char *first_line, circuit_kind_parse_fn parse, cuzk_error *err);

#endif
