/* A pull reader over JSON text, for files too large or too regular for a
 * tree (a 32 GiB sector's C1 output is tens of MB of numbers): the caller
 * walks the schema it expects, each step checked. The first failure is
 * kept (CUZK_ERR_FORMAT naming the file, the byte and the JSON path, e.g.
 * "c1.json: byte 812, at vanilla_proofs[0][3].comm_d_proofs: expected an
 * array") and every later step is a no-op, so a schema's walk needs no
 * error checks between steps, only at its end (j->rc). Strings are read
 * without escapes (what the schemas hold: keys, names, base64). */
#ifndef CUZK_FORMATS_JSON_PULL_H
#define CUZK_FORMATS_JSON_PULL_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"

typedef struct jp {
    const char *p, *end, *start, *name;
    cuzk_error *err;
    int rc, depth;
    char path[256];
    size_t plen;
} jp;

/* A reader over len bytes of text; name names it in messages. */
void jp_init(jp *j, const char *text, size_t len, const char *name, cuzk_error *err);
void jp_fail(jp *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The path in messages: a key (index < 0) or an index pushed; pop back to
 * what push returned. */
size_t jp_path_push(jp *j, const char *key, long index);
void jp_path_pop(jp *j, size_t old);
void jp_ws(jp *j);
/* Whether c comes next (after whitespace), taken if so. */
int jp_eat(jp *j, char c);
void jp_expect(jp *j, char c, const char *what);
/* A string's characters (pointing into the text), without its quotes. */
void jp_read_span(jp *j, const char **s, size_t *n);
/* An object's key and its ':'. */
void jp_read_key(jp *j, char *out, size_t cap);
uint64_t jp_read_u64(jp *j, uint64_t max);
/* An array of at most cap numbers 0..255: how many. */
size_t jp_read_bytes(jp *j, unsigned char *out, size_t cap);
/* An array of 32 numbers 0..255: a 32-byte value as serde writes one. */
void jp_read_bytes32(jp *j, unsigned char out[32]);
void jp_skip_value(jp *j);
/* The end of the text: only whitespace may follow the value read. */
void jp_end(jp *j, const char *what);

/* For each key of an object: the body sees `key`. */
#define JP_OBJECT(j, key)                                                                                              \
    jp_expect(j, '{', "an object");                                                                                    \
    if (!(j)->rc && !jp_eat(j, '}'))                                                                                   \
        for (int more_ = 1; more_ && !(j)->rc;                                                                         \
             more_ = jp_eat(j, ',') ? 1 : (jp_expect(j, '}', "',' or '}' after an object's member"), 0))               \
            for (char key[64], once_ = (jp_read_key(j, key, sizeof key), 1); once_; once_ = 0)

/* For each element of an array: the body sees its index i. */
#define JP_ARRAY(j, i)                                                                                                 \
    jp_expect(j, '[', "an array");                                                                                     \
    if (!(j)->rc && !jp_eat(j, ']'))                                                                                   \
        for (long i = 0, more_ = 1; more_ && !(j)->rc;                                                                 \
             i++, more_ = jp_eat(j, ',') ? 1 : (jp_expect(j, ']', "',' or ']' after an array's element"), 0))

#endif
