/* A small JSON writer producing exactly the layout of JavaScript's
 * JSON.stringify(value, null, 1), which snarkjs uses for proof.json,
 * public.json and verification_key.json: one value per line, one space of
 * indent per level, no trailing newline. Values written here are numbers
 * and decimal strings only, so no escaping is needed (and keys and strings
 * are checked to need none). */
#ifndef CUZK_FORMATS_JSON_OUT_H
#define CUZK_FORMATS_JSON_OUT_H

#include <stddef.h>

typedef struct json_out {
    char *buf;
    size_t len, cap;
    int failed;         /* allocation failure or a string needing escapes */
    int depth;
    int first[64];      /* no element written yet at this depth */
    int after_key;      /* the next value follows "key": on the same line */
} json_out;

void jo_init(json_out *j);
void jo_object_begin(json_out *j);
void jo_object_end(json_out *j);
void jo_array_begin(json_out *j);
void jo_array_end(json_out *j);
void jo_key(json_out *j, const char *key);
void jo_string(json_out *j, const char *s);
void jo_uint(json_out *j, unsigned long long v);
/* The NUL-terminated text (ownership passes to the caller, free() it), or
 * NULL after a failure (everything is freed). */
char *jo_finish(json_out *j);

#endif
