#include "binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/error.h"

static void printable_magic(char out[17], const unsigned char *m)
{
    /* Show a wrong magic as text when it is text, else as hex. */
    int text = 1;
    for (int i = 0; i < 4; i++)
        text &= m[i] >= 0x20 && m[i] < 0x7f;
    if (text)
        snprintf(out, 17, "\"%c%c%c%c\"", m[0], m[1], m[2], m[3]);
    else
        snprintf(out, 17, "0x%02x%02x%02x%02x", m[0], m[1], m[2], m[3]);
}

int binfile_parse(binfile *bf, const void *data, size_t size, const char *name, const char *magic,
                  uint32_t max_version, cuzk_error *err)
{
    memset(bf, 0, sizeof(*bf));
    snprintf(bf->name, sizeof(bf->name), "%s", name);
    bf->data = data;
    bf->size = size;
    if (size < 12)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: file too short: %zu bytes, a %s file has a 12-byte header at least", name, size,
                              magic);
    const unsigned char *p = data;
    if (memcmp(p, magic, 4) != 0) {
        char found[17];
        printable_magic(found, p);
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not a .%s file: magic is %s, expected \"%s\"", name, magic,
                              found, magic);
    }
    memcpy(bf->magic, p, 4);
    bf->version = read_u32le(p + 4);
    if (bf->version < 1 || bf->version > max_version)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: %s format version %u is not supported (1 to %u are)",
                              name, magic, bf->version, max_version);
    uint32_t n = read_u32le(p + 8);
    if (n > BINFILE_MAX_SECTIONS)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: header declares %u sections, at most %d expected", name, n,
                              BINFILE_MAX_SECTIONS);
    uint64_t pos = 12;
    for (uint32_t i = 0; i < n; i++) {
        if (size - pos < 12)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: truncated: header of section %u of %u would start at byte %llu, file has %zu",
                                  name, i + 1, n, (unsigned long long)pos, size);
        uint32_t id = read_u32le(p + pos);
        uint64_t len = read_u64le(p + pos + 4);
        pos += 12;
        if (len > size - pos)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: truncated: section %u (id %u) declares %llu bytes at offset %llu, but the file "
                                  "ends %llu bytes later",
                                  name, i + 1, id, (unsigned long long)len, (unsigned long long)pos,
                                  (unsigned long long)(size - pos));
        for (uint32_t j = 0; j < i; j++)
            if (bf->sections[j].id == id)
                return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section id %u appears twice", name, id);
        bf->sections[i] = (binfile_section){.id = id, .offset = pos, .size = len};
        pos += len;
    }
    bf->n_sections = n;
    return CUZK_OK;
}

int map_file(const char *path, void **map, size_t *size, cuzk_error *err)
{
    *map = NULL;
    *size = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot stat: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: not a regular file", path);
    }
    *size = (size_t)st.st_size;
    if (*size > 0) {
        *map = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (*map == MAP_FAILED) {
            int e = errno;
            *map = NULL;
            close(fd);
            return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot map %zu bytes: %s", path, *size, strerror(e));
        }
    }
    close(fd);
    return CUZK_OK;
}

void unmap_file(void *map, size_t size)
{
    if (map)
        munmap(map, size);
}

int binfile_open(binfile *bf, const char *path, const char *magic, uint32_t max_version, cuzk_error *err)
{
    memset(bf, 0, sizeof(*bf));
    void *map;
    size_t size;
    int rc = map_file(path, &map, &size, err);
    if (rc != CUZK_OK)
        return rc;
    static const unsigned char empty[1];
    rc = binfile_parse(bf, map ? map : (const void *)empty, size, path, magic, max_version, err);
    bf->map = map;
    bf->map_size = size;
    if (rc != CUZK_OK)
        binfile_close(bf);
    return rc;
}

void binfile_close(binfile *bf)
{
    unmap_file(bf->map, bf->map_size);
    bf->map = NULL;
    bf->data = NULL;
}

const binfile_section *binfile_require(const binfile *bf, uint32_t id, const char *what, cuzk_error *err)
{
    for (uint32_t i = 0; i < bf->n_sections; i++)
        if (bf->sections[i].id == id)
            return &bf->sections[i];
    cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section %u (%s) is missing", bf->name, id, what);
    return NULL;
}

int binfile_peek_magic(const char *path, char magic[5], cuzk_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    size_t got = fread(magic, 1, 4, f);
    fclose(f);
    magic[got < 4 ? got : 4] = '\0';
    if (got < 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: file too short (%zu bytes) to identify", path, got);
    return CUZK_OK;
}

int scalar_header(const binfile *bf, uint32_t rest, const curve_desc **curve, const unsigned char **body,
                  cuzk_error *err)
{
    const binfile_section *h = binfile_require(bf, 1, "header", err);
    if (!h)
        return err ? err->code : CUZK_ERR_FORMAT;
    const unsigned char *p = binfile_data(bf, h);
    if (h->size < 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 1 (header) has %llu bytes, too short for n8",
                              bf->name, (unsigned long long)h->size);
    uint32_t n8 = read_u32le(p);
    if (n8 != 32)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: section 1 (header): field size n8 = %u, expected 32 (BN254 or BLS12-381)", bf->name,
                              n8);
    if (h->size != 4 + (uint64_t)n8 + rest)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: section 1 (header) has %llu bytes, expected %u", bf->name,
                              (unsigned long long)h->size, 4 + n8 + rest);
    *curve = curve_by_r(p + 4, n8);
    if (!*curve)
        return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                              "%s: section 1 (header): the prime is neither BN254's nor BLS12-381's scalar field",
                              bf->name);
    *body = p + 4 + n8;
    return CUZK_OK;
}
