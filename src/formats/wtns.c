#include "wtns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "../util/error.h"
#include "binwriter.h"

static int wtns_parse(struct cuzk_wtns *w, cuzk_error *err)
{
    const binfile *bf = &w->bf;
    const unsigned char *p;
    int rc = scalar_header(bf, 4, &w->curve, &p, err);
    if (rc != CUZK_OK)
        return rc;
    const uint32_t n8 = 32;
    w->n_witness = read_u32le(p);
    const binfile_section *d = binfile_require(bf, 2, "witness values", err);
    if (!d)
        return err ? err->code : CUZK_ERR_FORMAT;
    if (d->size != (uint64_t)n8 * w->n_witness)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 2 (witness values) has %llu bytes, expected %llu for the %u values the "
                              "header declares",
                              bf->name, (unsigned long long)d->size, (unsigned long long)n8 * w->n_witness,
                              w->n_witness);
    w->values = binfile_data(bf, d);
    for (uint32_t i = 0; i < w->n_witness; i++)
        if (!bytes_below(w->values + (size_t)i * n8, w->curve->r, n8))
            return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL,
                                  "%s: section 2 (witness values): value %u is not below the scalar-field prime r",
                                  bf->name, i);
    return CUZK_OK;
}

BINFILE_DEFINE_OPEN(wtns, cuzk_wtns, "wtns", 2)

void cuzk_wtns_get_info(const cuzk_wtns *w, cuzk_wtns_info *info)
{
    memset(info, 0, sizeof(*info));
    info->curve = w->curve->id;
    info->version = w->bf.version;
    info->n_witness = w->n_witness;
}

int wtns_writer_open(binwriter *w, const char *path, const curve_desc *curve, uint32_t n, cuzk_error *err)
{
    int rc = binwriter_open(w, path, "wtns", 2, 2, err);
    if (rc != CUZK_OK)
        return rc;
    unsigned char prime[32];
    curve_prime_bytes(prime, curve->r, 32);
    binwriter_section_begin(w, 1);
    binwriter_u32(w, 32);
    binwriter_write(w, prime, 32);
    binwriter_u32(w, n);
    binwriter_section_end(w);
    binwriter_section_begin(w, 2);
    return CUZK_OK;
}

int wtns_write(const char *path, const curve_desc *curve, const unsigned char *values, uint32_t n, cuzk_error *err)
{
    binwriter w;
    int rc = wtns_writer_open(&w, path, curve, n, err);
    if (rc != CUZK_OK)
        return rc;
    binwriter_write(&w, values, (size_t)n * 32);
    binwriter_section_end(&w);
    return binwriter_commit(&w, err);
}

int wtns_alloc(struct cuzk_wtns **out, const curve_desc *curve, uint32_t n, const char *name, unsigned char **values,
               cuzk_error *err)
{
    *out = NULL;
    *values = NULL;
    struct cuzk_wtns *w = calloc(1, sizeof(*w));
    size_t size = (size_t)(n ? n : 1) * 32;
    void *mem = w ? mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;
    if (mem == MAP_FAILED) {
        free(w);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "%s: cannot allocate %zu bytes for a witness", name, size);
    }
    snprintf(w->bf.name, sizeof(w->bf.name), "%s", name);
    w->bf.map = mem; /* binfile_close unmaps it */
    w->bf.map_size = size;
    w->bf.data = mem;
    w->bf.size = size;
    w->curve = curve;
    w->n_witness = n;
    w->values = mem;
    *values = mem;
    *out = w;
    return CUZK_OK;
}
