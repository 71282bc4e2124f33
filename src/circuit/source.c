/* Circuit sources (source.h): a .r1cs file's, and the choice by content. */
#include "source.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../filecoin/stacked_source.h"
#include "../formats/r1cs.h"
#include "../util/error.h"
#include "../util/file.h"
#include "../util/util.h"

/* ------------------------------------------------------------ a .r1cs */

enum { R1CS_STRIDE = 1024 }; /* rows between two entries of the offset index */

typedef struct r1cs_source {
    struct cuzk_r1cs *r;
    uint64_t *offset; /* offset[k]: where row k * R1CS_STRIDE starts in section 2; [last] = its size */
} r1cs_source;

static size_t row_bytes(const unsigned char *p)
{
    size_t at = 0;
    for (int m = 0; m < 3; m++)
        at += 4 + (size_t)read_u32le(p + at) * 36;
    return at;
}

static int r1cs_rows(const circuit_source *s, uint32_t row0, uint32_t n, source_buf *buf)
{
    const r1cs_source *rs = s->impl;
    const unsigned char *c = rs->r->constraints; /* validated by the reader */
    uint64_t from = rs->offset[row0 / R1CS_STRIDE];
    for (uint32_t k = row0 / R1CS_STRIDE * R1CS_STRIDE; k < row0; k++)
        from += row_bytes(c + from);
    uint64_t to = from;
    uint32_t end = row0 + n;
    for (uint32_t k = row0; k < end;) {
        if (k % R1CS_STRIDE == 0 && k + R1CS_STRIDE <= end) { /* whole strides from the index */
            k += R1CS_STRIDE;
            to = k < s->n_constraints ? rs->offset[k / R1CS_STRIDE] : rs->r->constraints_size;
            continue;
        }
        to += row_bytes(c + to);
        k++;
    }
    if (source_buf_reserve(buf, (size_t)(to - from) + 1) != CUZK_OK)
        return CUZK_ERR_NO_MEMORY;
    memcpy(buf->p, c + from, (size_t)(to - from));
    buf->len = (size_t)(to - from);
    return CUZK_OK;
}

static void r1cs_release(circuit_source *s)
{
    r1cs_source *rs = s->impl;
    cuzk_r1cs_free(rs->r);
    free(rs->offset);
    free(rs);
}

int circuit_source_from_r1cs(circuit_source **out, struct cuzk_r1cs *r, cuzk_error *err)
{
    *out = NULL;
    circuit_source *s = calloc(1, sizeof(*s));
    r1cs_source *rs = calloc(1, sizeof(*rs));
    uint64_t strides = (uint64_t)r->n_constraints / R1CS_STRIDE + 1;
    uint64_t *offset = malloc(strides * sizeof(uint64_t));
    if (!s || !rs || !offset) {
        free(s);
        free(rs);
        free(offset);
        cuzk_r1cs_free(r);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory reading a circuit");
    }
    uint64_t at = 0;
    for (uint32_t k = 0; k < r->n_constraints; k++) {
        if (k % R1CS_STRIDE == 0)
            offset[k / R1CS_STRIDE] = at;
        at += row_bytes(r->constraints + at);
    }
    if (r->n_constraints % R1CS_STRIDE == 0)
        offset[r->n_constraints / R1CS_STRIDE] = at;
    rs->r = r;
    rs->offset = offset;
    snprintf(s->name, sizeof(s->name), "%s", r->bf.name);
    s->curve = r->curve;
    s->n_wires = r->n_wires;
    s->n_public = r->n_pub_out + r->n_pub_in;
    s->n_constraints = r->n_constraints;
    s->chunk_rows = R1CS_STRIDE;
    s->rows = r1cs_rows;
    s->release = r1cs_release;
    s->impl = rs;
    *out = s;
    return CUZK_OK;
}

const struct cuzk_r1cs *circuit_source_r1cs(const circuit_source *s)
{
    return s && s->release == r1cs_release ? ((const r1cs_source *)s->impl)->r : NULL;
}

void circuit_source_free(circuit_source *s)
{
    if (!s)
        return;
    if (s->release)
        s->release(s);
    free(s);
}

/* ------------------------------------------------------------ by content */

enum { DESCRIPTION_MAX = 4096, KINDS_MAX = 8 }; /* a native description is a few lines */

static pthread_mutex_t kinds_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    char first_line[64];
    circuit_kind_parse_fn parse;
} kinds[KINDS_MAX];
static int n_kinds;

int circuit_kind_register(const char *first_line, circuit_kind_parse_fn parse, cuzk_error *err)
{
    size_t pl = strlen(CIRCUIT_DESCRIPTION_PREFIX);
    if (!first_line || !parse || strncmp(first_line, CIRCUIT_DESCRIPTION_PREFIX, pl) != 0 ||
        strlen(first_line) >= sizeof(kinds[0].first_line) || strchr(first_line, '\n'))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "circuit_kind_register: a kind's first line is \"%s\" "
                              "and a name of under 50 characters, on one line", CIRCUIT_DESCRIPTION_PREFIX);
    int rc = CUZK_OK;
    pthread_mutex_lock(&kinds_lock);
    int i = 0;
    while (i < n_kinds && strcmp(kinds[i].first_line, first_line) != 0)
        i++;
    if (i == n_kinds && n_kinds == KINDS_MAX)
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "circuit_kind_register: %d kinds of circuit are registered "
                            "already", KINDS_MAX);
    else if (i == n_kinds) {
        snprintf(kinds[i].first_line, sizeof(kinds[i].first_line), "%s", first_line);
        kinds[i].parse = parse;
        n_kinds++;
    }
    pthread_mutex_unlock(&kinds_lock);
    return rc;
}

/* The parser of the registered kind whose first line text begins with
 * (followed by a line end or the end of the text), or NULL. */
static circuit_kind_parse_fn kind_of(const char *text, size_t len)
{
    circuit_kind_parse_fn f = NULL;
    pthread_mutex_lock(&kinds_lock);
    for (int i = 0; i < n_kinds && !f; i++) {
        size_t n = strlen(kinds[i].first_line);
        if (len >= n && memcmp(text, kinds[i].first_line, n) == 0 &&
            (len == n || text[n] == '\n' || text[n] == '\r'))
            f = kinds[i].parse;
    }
    pthread_mutex_unlock(&kinds_lock);
    return f;
}

int circuit_source_open(circuit_source **out, const char *path, const progress_sink *progress, cuzk_error *err)
{
    return circuit_source_open_limited(out, path, NULL, progress, err);
}

int circuit_source_open_limited(circuit_source **out, const char *path, const file_limits *lim,
                                const progress_sink *progress, cuzk_error *err)
{
    if (!out || !path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "circuit_source_open: NULL argument");
    *out = NULL;
    int fd;
    struct stat st;
    int rc = file_open_regular_limited(path, lim, &fd, &st, err);
    if (rc != CUZK_OK)
        return rc;
    char head[DESCRIPTION_MAX + 1];
    ssize_t got = 0;
    while (got < DESCRIPTION_MAX) {
        ssize_t k = read(fd, head + got, (size_t)(DESCRIPTION_MAX - got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            close(fd);
            return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot read the circuit: %s", path, strerror(e));
        }
        if (k == 0)
            break;
        got += k;
    }
    close(fd);
    if (fc_stacked_source_is(head, (size_t)got)) /* Filecoin's PoRep circuit: built in */
        return fc_stacked_source_parse(out, path, head, (size_t)got, err);
    circuit_kind_parse_fn parse = kind_of(head, (size_t)got);
    if (parse)
        return parse(out, path, head, (size_t)got, err);
    if (got >= 4 && memcmp(head, "r1cs", 4) == 0) {
        struct cuzk_r1cs *r;
        rc = cuzk_r1cs_open_limited(&r, path, lim, progress, err);
        if (rc != CUZK_OK)
            return rc;
        return circuit_source_from_r1cs(out, r, err);
    }
    size_t pl = strlen(CIRCUIT_DESCRIPTION_PREFIX);
    if ((size_t)got > pl && memcmp(head, CIRCUIT_DESCRIPTION_PREFIX, pl) == 0) {
        size_t n = pl;
        while (n < (size_t)got && n < 80 && head[n] != '\n' && head[n] != '\r' && head[n] >= ' ' && head[n] < 127)
            n++;
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: a native circuit description of a kind this program does not know (its first "
                              "line: \"%.*s\"; porep-shape's is read by programs with cuzk's test circuits: the "
                              "cuzk command, its tests and benches)",
                              path, (int)n, head);
    }
    return cuzk_error_set(err, CUZK_ERR_FORMAT,
                          "%s: not a circuit: expected a .r1cs (magic \"r1cs\") or a native circuit description "
                          "(first line \"%s...\", written by cuzk circuit porep-shape --format native)",
                          path, CIRCUIT_DESCRIPTION_PREFIX);
}
