/* The iden3 binary container shared by .zkey, .wtns, .r1cs and .ptau:
 *
 *   magic[4] u32 version u32 nSections { u32 id; u64 size; u8 data[size] }*
 *
 * all little-endian (notes/snarkjs-groth16-formats.md §1). Sections may come
 * in any order and are indexed by id. Files are read into private memory or
 * mapped (binfile_mode); buffers can be parsed in place too (fuzzing, HTTP
 * bodies).
 */
#ifndef CUZK_FORMATS_BINFILE_H
#define CUZK_FORMATS_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "../../include/cuzk.h"
#include "../util/file.h"
#include "../util/progress.h"
#include "../util/util.h"
#include "../ec/curve_desc.h"

#define BINFILE_MAX_SECTIONS 64

typedef struct binfile_section {
    uint32_t id;
    uint64_t offset; /* of the data, from the start of the file */
    uint64_t size;
} binfile_section;

typedef struct binfile {
    char name[256];            /* for messages: the path, or the caller's name */
    const unsigned char *data; /* the whole file */
    size_t size;
    void *map;                 /* non-NULL when we mapped it */
    size_t map_size;
    char magic[5];
    uint32_t version;
    uint32_t n_sections;
    binfile_section sections[BINFILE_MAX_SECTIONS];
} binfile;

/* How a file's bytes come into memory. READ: a private copy, read whole
 * at the open; what happens to the file afterwards (a `cp` over it
 * rewrites it in place, a truncation) cannot touch it. MAP: mapped,
 * read lazily: cheap for a look at a large file's header, but a file
 * truncated while mapped kills the reader with SIGBUS (the cuzk command
 * catches that with a message; the engine never maps). */
typedef enum binfile_mode { BINFILE_READ = 0, BINFILE_MAP = 1 } binfile_mode;

/* Reads or maps `path` (within lim: NULL, none; src/util/file.h) and
 * parses the container: magic must equal `magic`, version be in [1,
 * max_version]; every section must lie inside the file and no id may
 * repeat. All of that is checked on the file before its bytes are read. */
int binfile_open(binfile *bf, const char *path, const file_limits *lim, binfile_mode mode, const char *magic,
                 uint32_t max_version, const progress_sink *progress, cuzk_error *err);

/* The same over a caller's buffer (which must outlive bf). */
int binfile_parse(binfile *bf, const void *data, size_t size, const char *name, const char *magic,
                  uint32_t max_version, cuzk_error *err);

void binfile_close(binfile *bf);

/* The section with this id, or NULL (and err set, naming `what`) when the
 * file has none. */
const binfile_section *binfile_require(const binfile *bf, uint32_t id, const char *what, cuzk_error *err);

/* Pointer to a section's data. */
static inline const unsigned char *binfile_data(const binfile *bf, const binfile_section *s)
{
    return bf->data + s->offset;
}

/* The header section shared by .wtns and .r1cs: u32 n8 (= 32), the
 * scalar-field prime, then `rest` more bytes (so the section holds exactly
 * 4 + 32 + rest). Sets *curve and *body (the bytes after the prime); on
 * failure a message naming the file and section 1. */
int scalar_header(const binfile *bf, uint32_t rest, const curve_desc **curve, const unsigned char **body,
                  cuzk_error *err);


/* The open functions of a file type, stamped from one parser:
 * NAME_open(out, path, err) (a private copy: BINFILE_READ; NAME_open_limited
 * within file_limits (NULL: none), reporting the read), NAME_map(out,
 * path, err) (BINFILE_MAP), NAME_open_memory(out, data, len, name, err)
 * and NAME_free(obj), for `struct cuzk_T { binfile bf; ... }` and
 * `static int T_parse(struct cuzk_T *, cuzk_error *)`, which runs on an
 * opened container. NAME is the public cuzk_T for .wtns and .r1cs; a .zkey's
 * public functions live with the proving key (src/groth16/key.c), which
 * also frees its GPU copies. */
#define BINFILE_DEFINE_OPEN(T, NAME, MAGIC, MAX_VERSION)                                                \
    static int T##_open_any(struct cuzk_##T **out, const char *path, const file_limits *lim,            \
                            binfile_mode mode, const void *data, size_t len, const char *name,          \
                            const progress_sink *progress, cuzk_error *err)                             \
    {                                                                                                   \
        if (!out || (!path && !data && len))                                                            \
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_" #T "_open: NULL argument");  \
        *out = NULL;                                                                                    \
        struct cuzk_##T *obj = calloc(1, sizeof(*obj));                                                 \
        if (!obj)                                                                                       \
            return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", path ? path : name);   \
        static const unsigned char empty[1];                                                            \
        int rc = path ? binfile_open(&obj->bf, path, lim, mode, MAGIC, MAX_VERSION, progress, err)      \
                      : binfile_parse(&obj->bf, data ? data : empty, len, name, MAGIC, MAX_VERSION, err); \
        if (rc == CUZK_OK && (rc = T##_parse(obj, err)) != CUZK_OK)                                     \
            binfile_close(&obj->bf);                                                                    \
        if (rc != CUZK_OK) {                                                                            \
            free(obj);                                                                                  \
            return rc;                                                                                  \
        }                                                                                               \
        *out = obj;                                                                                     \
        return CUZK_OK;                                                                                 \
    }                                                                                                   \
    int NAME##_open(struct cuzk_##T **out, const char *path, cuzk_error *err)                           \
    {                                                                                                   \
        if (!path)                                                                                      \
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_" #T "_open: NULL path");      \
        return T##_open_any(out, path, NULL, BINFILE_READ, NULL, 0, NULL, NULL, err);                   \
    }                                                                                                   \
    int NAME##_open_limited(struct cuzk_##T **out, const char *path, const file_limits *lim,            \
                            const progress_sink *progress, cuzk_error *err)                             \
    {                                                                                                   \
        if (!path)                                                                                      \
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_" #T "_open: NULL path");      \
        return T##_open_any(out, path, lim, BINFILE_READ, NULL, 0, NULL, progress, err);                \
    }                                                                                                   \
    int NAME##_map(struct cuzk_##T **out, const char *path, cuzk_error *err)                            \
    {                                                                                                   \
        if (!path)                                                                                      \
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_" #T "_open: NULL path");      \
        return T##_open_any(out, path, NULL, BINFILE_MAP, NULL, 0, NULL, NULL, err);                    \
    }                                                                                                   \
    int NAME##_open_memory(struct cuzk_##T **out, const void *data, size_t len, const char *name,       \
                           cuzk_error *err)                                                             \
    {                                                                                                   \
        return T##_open_any(out, NULL, NULL, BINFILE_READ, data, len, name ? name : MAGIC, NULL, err);  \
    }                                                                                                   \
    void NAME##_free(struct cuzk_##T *obj)                                                              \
    {                                                                                                   \
        if (!obj)                                                                                       \
            return;                                                                                     \
        binfile_close(&obj->bf);                                                                        \
        free(obj);                                                                                      \
    }

/* Reads the magic of a file (4 bytes) into magic[5]; 0 on success. Used by
 * `cuzk info` to tell file types apart. */
int binfile_peek_magic(const char *path, char magic[5], cuzk_error *err);

#endif
