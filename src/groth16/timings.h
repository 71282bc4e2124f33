/* The fields of cuzk_timings as a table, from the one list of them
 * (phases.h): what every rendering of a proof's times iterates (cuzk prove
 * --timings and --json, the daemon's job JSON, cuzk bench). Host C. */
#ifndef CUZK_GROTH16_TIMINGS_H
#define CUZK_GROTH16_TIMINGS_H

#include <stddef.h>

#include "../../include/cuzk.h"
#include "../core/phases.h"

enum { TIMING_CORE, TIMING_GPU, TIMING_LIB }; /* phases.h's kinds */

typedef struct timing_field {
    const char *key;   /* the JSON key: the field's name */
    const char *label; /* for text tables */
    size_t offset;     /* in cuzk_timings (a double) */
    int kind;          /* TIMING_*: GPU ones are 0 on the CPU path */
} timing_field;

#define TIMING_FIELD(ID, field, label, kind) {#field, label, offsetof(cuzk_timings, field), TIMING_##kind},
static const timing_field timing_fields[] = {CUZK_TIMINGS(TIMING_FIELD)};
#undef TIMING_FIELD
#define TIMING_FIELDS (sizeof(timing_fields) / sizeof(timing_fields[0]))

static inline double timing_value(const cuzk_timings *t, const timing_field *f)
{
    return *(const double *)(const void *)((const char *)t + f->offset);
}

#endif
