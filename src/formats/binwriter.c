#include "binwriter.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/error.h"
#include "../util/file.h"

static void io_fail(binwriter *w, const char *what)
{
    if (!w->failed)
        cuzk_error_set(&w->err, CUZK_ERR_IO, "%s: cannot %s: %s", w->path, what, strerror(errno));
    w->failed = 1;
}

int binwriter_open_raw(binwriter *w, const char *path, cuzk_error *err)
{
    return binwriter_open(w, path, NULL, 0, 0, err);
}

int binwriter_open(binwriter *w, const char *path, const char *magic, uint32_t version, uint32_t n_sections,
                   cuzk_error *err)
{
    memset(w, 0, sizeof(*w));
    w->section_start = -1;
    w->n_sections = n_sections;
    int rc = check_output_path(path, err);
    if (rc != CUZK_OK)
        return rc;
    w->path = strdup(path);
    w->tmp = tmp_path_for(path);
    if (!w->path || !w->tmp) {
        free(w->path);
        free(w->tmp);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: out of memory", path);
    }
    w->f = fopen(w->tmp, "wb");
    if (!w->f) {
        int e = errno;
        free(w->path);
        free(w->tmp);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot write: %s", path, strerror(e));
    }
    setvbuf(w->f, NULL, _IOFBF, 1 << 20);
    if (magic) {
        binwriter_write(w, magic, 4);
        binwriter_u32(w, version);
        binwriter_u32(w, n_sections);
    }
    return CUZK_OK;
}

void binwriter_write(binwriter *w, const void *data, size_t len)
{
    if (!w->failed && len && fwrite(data, 1, len, w->f) != len)
        io_fail(w, "write");
}

void binwriter_u32(binwriter *w, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    binwriter_write(w, b, 4);
}

void binwriter_section_begin(binwriter *w, uint32_t id)
{
    if (w->failed)
        return;
    if (w->section_start >= 0 || w->written >= w->n_sections) {
        cuzk_error_set(&w->err, CUZK_ERR_INTERNAL, "%s: section %u begun out of turn", w->path, id);
        w->failed = 1;
        return;
    }
    binwriter_u32(w, id);
    w->section_start = ftello(w->f);
    static const unsigned char zero[8];
    binwriter_write(w, zero, 8);
}

void binwriter_section_end(binwriter *w)
{
    if (w->failed)
        return;
    long long end = ftello(w->f);
    uint64_t size = (uint64_t)(end - w->section_start - 8);
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(size >> (8 * i));
    if (fseeko(w->f, w->section_start, SEEK_SET) != 0 || fwrite(b, 1, 8, w->f) != 8 ||
        fseeko(w->f, end, SEEK_SET) != 0) {
        io_fail(w, "write");
        return;
    }
    w->section_start = -1;
    w->written++;
}

long long binwriter_tell(binwriter *w)
{
    return w->failed ? -1 : (long long)ftello(w->f);
}

void binwriter_patch(binwriter *w, long long offset, const void *data, size_t len)
{
    if (w->failed)
        return;
    long long end = ftello(w->f);
    if (offset < 0 || offset + (long long)len > end) {
        cuzk_error_set(&w->err, CUZK_ERR_INTERNAL, "%s: patch outside the written bytes", w->path);
        w->failed = 1;
        return;
    }
    if (fseeko(w->f, offset, SEEK_SET) != 0 || fwrite(data, 1, len, w->f) != len || fseeko(w->f, end, SEEK_SET) != 0)
        io_fail(w, "write");
}

int binwriter_commit(binwriter *w, cuzk_error *err)
{
    if (!w->failed && (w->section_start >= 0 || w->written != w->n_sections)) {
        cuzk_error_set(&w->err, CUZK_ERR_INTERNAL, "%s: %u of %u sections written", w->path, w->written,
                       w->n_sections);
        w->failed = 1;
    }
    if (!w->failed && (fflush(w->f) != 0 || fsync(fileno(w->f)) != 0))
        io_fail(w, "write");
    if (fclose(w->f) != 0)
        io_fail(w, "write");
    w->f = NULL;
    if (!w->failed && rename(w->tmp, w->path) != 0)
        io_fail(w, "rename the temporary file to");
    int rc = w->failed ? w->err.code : CUZK_OK;
    if (w->failed) {
        remove(w->tmp);
        if (err)
            *err = w->err;
    }
    free(w->path);
    free(w->tmp);
    w->path = w->tmp = NULL;
    return rc;
}

void binwriter_abort(binwriter *w)
{
    if (w->f)
        fclose(w->f);
    w->f = NULL;
    if (w->tmp)
        remove(w->tmp);
    free(w->path);
    free(w->tmp);
    w->path = w->tmp = NULL;
}
