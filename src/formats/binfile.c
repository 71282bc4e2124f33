#include "binfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../util/error.h"
#include "../util/file.h"

/* What a file with a wrong magic is, for the message: the name of a
 * container we know, else nothing. Its bytes are never echoed: the file
 * may be one a client named and must not read (docs/security.md). */
static const char *known_kind(const unsigned char *m)
{
    static const char *kinds[] = {"zkey", "wtns", "r1cs", "ptau"};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!memcmp(m, kinds[i], 4))
            return kinds[i];
    return NULL;
}

/* The container's header and section table, wherever its bytes are:
 * read_at fills n bytes from pos (which the caller checked lie inside). */
typedef int (*layout_read_fn)(void *ctx, uint64_t pos, unsigned char *buf, size_t n);

static int parse_layout(binfile *bf, size_t size, const char *name, const char *magic, uint32_t max_version,
                        layout_read_fn read_at, void *ctx, cuzk_error *err)
{
    snprintf(bf->name, sizeof(bf->name), "%s", name);
    if (size < 12)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: file too short: %zu bytes, a %s file has a 12-byte header at least", name, size,
                              magic);
    unsigned char p[12];
    if (read_at(ctx, 0, p, 12) != 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot read its header", name);
    if (memcmp(p, magic, 4) != 0) {
        const char *kind = known_kind(p);
        return kind ? cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: a .%s file, expected a .%s file", name, kind, magic)
                    : cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: not a .%s file (it does not start with \"%s\")", name,
                                     magic, magic);
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
        if (read_at(ctx, pos, p, 12) != 0)
            return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot read the header of section %u", name, i + 1);
        uint32_t id = read_u32le(p);
        uint64_t len = read_u64le(p + 4);
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

static int memory_read_at(void *ctx, uint64_t pos, unsigned char *buf, size_t n)
{
    memcpy(buf, (const unsigned char *)ctx + pos, n);
    return 0;
}

static int fd_read_at(void *ctx, uint64_t pos, unsigned char *buf, size_t n)
{
    int fd = *(const int *)ctx;
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fd, buf + done, n - done, (off_t)(pos + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        done += (size_t)r;
    }
    return 0;
}

int binfile_parse(binfile *bf, const void *data, size_t size, const char *name, const char *magic,
                  uint32_t max_version, cuzk_error *err)
{
    memset(bf, 0, sizeof(*bf));
    bf->data = data;
    bf->size = size;
    return parse_layout(bf, size, name, magic, max_version, memory_read_at, (void *)data, err);
}

/* The file's bytes into anonymous memory, read to the end of the size it
 * had at the open. */
static int read_private(const char *path, int fd, size_t size, const progress_sink *progress, void **map,
                        cuzk_error *err)
{
    void *mem = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes to read it into", path, size);
#ifdef MADV_HUGEPAGE
    madvise(mem, size, MADV_HUGEPAGE); /* fewer TLB misses over a key of gigabytes */
#endif
    size_t done = 0;
    while (done < size) {
        size_t want = size - done < ((size_t)1 << 26) ? size - done : (size_t)1 << 26;
        ssize_t r = read(fd, (unsigned char *)mem + done, want);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = errno;
            munmap(mem, size);
            return r < 0 ? cuzk_error_set(err, CUZK_ERR_IO, "%s: read failed at byte %zu: %s", path, done, strerror(e))
                         : cuzk_error_set(err, CUZK_ERR_IO,
                                          "%s: ended at byte %zu of the %zu it had when opened: it changed while "
                                          "being read",
                                          path, done, size);
        }
        done += (size_t)r;
        progress_report(progress, done, size);
    }
    mprotect(mem, size, PROT_READ);
    *map = mem;
    return CUZK_OK;
}

static void unmap_file(void *map, size_t size)
{
    if (map)
        munmap(map, size);
}

int binfile_open(binfile *bf, const char *path, const file_limits *lim, binfile_mode mode, const char *magic,
                 uint32_t max_version, const progress_sink *progress, cuzk_error *err)
{
    memset(bf, 0, sizeof(*bf));
    int fd;
    struct stat st;
    /* the size bound after the header: "not a .wtns file" says more */
    file_limits where = lim ? *lim : (file_limits){0};
    where.max_bytes = 0;
    int rc = file_open_regular_limited(path, &where, &fd, &st, err);
    if (rc != CUZK_OK)
        return rc;
    if ((unsigned long long)st.st_size > SIZE_MAX) {
        close(fd);
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: too large to open here", path);
    }
    size_t n = (size_t)st.st_size;
    void *map = NULL;
    /* the header and every section's place checked before the file is
     * read: a large file of anything else costs a few reads, not its size
     * in memory */
    binfile layout;
    memset(&layout, 0, sizeof(layout));
    rc = parse_layout(&layout, n, path, magic, max_version, fd_read_at, &fd, err);
    if (rc == CUZK_OK)
        rc = file_size_within(path, n, lim, err);
    if (rc == CUZK_OK && n > 0 && mode == BINFILE_READ) {
        rc = read_private(path, fd, n, progress, &map, err);
    } else if (rc == CUZK_OK && n > 0) {
        map = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            int e = errno;
            map = NULL;
            rc = cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot map %zu bytes: %s", path, n, strerror(e));
        }
    }
    close(fd);
    if (rc != CUZK_OK)
        return rc;
    rc = binfile_parse(bf, map, n, path, magic, max_version, err); /* the bytes read: what is used */
    bf->map = map;
    bf->map_size = n;
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
    int fd;
    struct stat st;
    int rc = file_open_regular(path, &fd, &st, err);
    if (rc != CUZK_OK)
        return rc;
    ssize_t got = read(fd, magic, 4);
    close(fd);
    if (got < 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
    magic[got] = '\0';
    if (got < 4)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: file too short (%zd bytes) to identify", path, got);
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
