/* Writing iden3 binary containers (.zkey, .wtns) as a stream: sections are
 * written one after another and each size is patched in when the section
 * ends, so multi-gigabyte keys never sit in memory. The file appears under
 * its name only on commit (a temporary file and a rename): a failure
 * leaves nothing behind. */
#ifndef CUZK_FORMATS_BINWRITER_H
#define CUZK_FORMATS_BINWRITER_H

#include <stdint.h>
#include <stdio.h>

#include "../../include/cuzk.h"

typedef struct binwriter {
    FILE *f;
    char *path, *tmp;
    long long section_start; /* offset of the open section's size field, or -1 */
    uint32_t n_sections, written;
    int failed;
    cuzk_error err; /* the first failure */
} binwriter;

int binwriter_open(binwriter *w, const char *path, const char *magic, uint32_t version, uint32_t n_sections,
                   cuzk_error *err);
/* A stream without the iden3 header or sections (a bellperson .params
 * key): binwriter_write, _tell, _patch, _commit. */
int binwriter_open_raw(binwriter *w, const char *path, cuzk_error *err);
void binwriter_section_begin(binwriter *w, uint32_t id);
void binwriter_write(binwriter *w, const void *data, size_t len);
void binwriter_u32(binwriter *w, uint32_t v);
void binwriter_section_end(binwriter *w);
/* The current write offset (for a later binwriter_patch). */
long long binwriter_tell(binwriter *w);
/* Overwrites len bytes at offset (already written) and returns to the end:
 * for counts known only when the stream is done. */
void binwriter_patch(binwriter *w, long long offset, const void *data, size_t len);
/* Checks that every declared section was written, flushes, renames.
 * Returns the first failure of any call since open. */
int binwriter_commit(binwriter *w, cuzk_error *err);
/* Discards the temporary file. */
void binwriter_abort(binwriter *w);

#endif
