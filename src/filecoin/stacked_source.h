/* The PoRep circuit as a source of rows (src/core/circuit.h): its native
 * description, a few lines naming the registered seal proof or a test
 * shape, from which the circuit is recorded (its rows, for a setup or a
 * key's matrices) wherever it is needed:
 *
 *   cuzk circuit stacked
 *   version 1
 *   proof StackedDrg2KiBV1_1
 *
 * or, for rust-fil-proofs' test shapes, in place of the proof line,
 *
 *   shape NODES LAYERS CHALLENGES BASE-SUB-TOP
 *
 * Its witnesses come from C1 outputs (a partition's vanilla proofs), not
 * from the description. */
#ifndef CUZK_FILECOIN_STACKED_SOURCE_H
#define CUZK_FILECOIN_STACKED_SOURCE_H

#include <stddef.h>

#include "../core/circuit.h"
#include "stacked.h"

#define FC_STACKED_MAGIC "cuzk circuit stacked"

/* Whether text (len bytes) is a stacked circuit's description. */
int fc_stacked_source_is(const char *text, size_t len);
/* The source of a description (path names it in messages). */
int fc_stacked_source_parse(circuit_source **out, const char *path, const char *text, size_t len, cuzk_error *err);
/* The description of a registered proof's circuit (name non-NULL) or of
 * a shape, into buf (at least 256 bytes). */
void fc_stacked_description(const char *proof_name, const fc_porep_shape *shape, char *buf, size_t cap);
/* The source of a shape, recorded now. */
int fc_stacked_source_make(circuit_source **out, const char *name, const fc_porep_shape *shape, cuzk_error *err);

#endif
