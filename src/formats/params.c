#include "params.h"

#include <stdio.h>
#include <string.h>

#include "../core.h"
#include "../util/error.h"

const char *const params_vector_name[PARAMS_VECTORS] = {"IC", "H", "L", "A", "B_G1", "B_G2"};

enum { G1_UNCOMPRESSED = 96, G2_UNCOMPRESSED = 192, VK_BYTES = 3 * 96 + 3 * 192 };

static uint32_t read_u32be(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

int params_parse(params_file *pf, const void *data, size_t size, const char *name, cuzk_error *err)
{
    memset(pf, 0, sizeof(*pf));
    snprintf(pf->name, sizeof(pf->name), "%s", name);
    pf->data = data;
    pf->size = size;
    if (size < VK_BYTES)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: %zu bytes, too short for a Groth16 parameter file (864-byte verification key)",
                              name, size);
    pf->vk = pf->data;
    uint64_t pos = VK_BYTES;
    for (int v = 0; v < PARAMS_VECTORS; v++) {
        if (size - pos < 4)
            return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: file ends before the %s count (byte %llu)", name,
                                  params_vector_name[v], (unsigned long long)pos);
        pf->count[v] = read_u32be(pf->data + pos);
        pos += 4;
        uint64_t bytes = (uint64_t)pf->count[v] * (v == PARAMS_B_G2 ? G2_UNCOMPRESSED : G1_UNCOMPRESSED);
        if (bytes > size - pos)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: the %s vector declares %u points (%llu bytes) at byte %llu, but the file ends "
                                  "%llu bytes later",
                                  name, params_vector_name[v], pf->count[v], (unsigned long long)bytes,
                                  (unsigned long long)pos, (unsigned long long)(size - pos));
        pf->vec[v] = pf->data + pos;
        pos += bytes;
    }
    if (pos != size)
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s: %llu bytes after the last vector (B_G2), expected none", name,
                              (unsigned long long)(size - pos));
    static const struct {
        const char *what;
        int group;
        size_t offset;
    } vk[6] = {{"alpha_g1", 1, 0}, {"beta_g1", 1, 96}, {"beta_g2", 2, 192},
               {"gamma_g2", 2, 384}, {"delta_g1", 1, 576}, {"delta_g2", 2, 672}};
    for (int i = 0; i < 6; i++) {
        size_t bad;
        int rc = cuzk_core()->check_zcash_points(vk[i].group, pf->vk + vk[i].offset, 1, 0, 1, &bad);
        if (rc != CUZK_OK)
            return cuzk_error_set(err, rc, "%s: verification key %s: %s", name, vk[i].what, cuzk_strerror(rc));
    }
    return CUZK_OK;
}

int params_open(params_file *pf, const char *path, cuzk_error *err)
{
    memset(pf, 0, sizeof(*pf));
    void *map;
    size_t size;
    int rc = map_file(path, BINFILE_MAP, &map, &size, err); /* tens of GB, read in parts */
    if (rc != CUZK_OK)
        return rc;
    static const unsigned char empty[1];
    rc = params_parse(pf, map ? map : (const void *)empty, size, path, err);
    pf->map = map;
    pf->size = size;
    if (rc != CUZK_OK)
        params_close(pf);
    return rc;
}

void params_close(params_file *pf)
{
    unmap_file(pf->map, pf->size);
    pf->map = NULL;
}
