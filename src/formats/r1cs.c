#include "r1cs.h"

#include <stdlib.h>
#include <string.h>

#include "../util/error.h"

static int r1cs_parse(struct cuzk_r1cs *r, cuzk_error *err)
{
    const binfile *bf = &r->bf;
    const unsigned char *q;
    int rc = scalar_header(bf, 28, &r->curve, &q, err);
    if (rc != CUZK_OK)
        return rc;
    const uint32_t n8 = 32;
    r->n_wires = read_u32le(q);
    r->n_pub_out = read_u32le(q + 4);
    r->n_pub_in = read_u32le(q + 8);
    r->n_prv_in = read_u32le(q + 12);
    r->n_labels = read_u64le(q + 16);
    r->n_constraints = read_u32le(q + 24);
    uint64_t io = 1 + (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in;
    if (io > r->n_wires)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 1 (header): 1 + %u outputs + %u public inputs + %u private inputs exceed the "
                              "%u wires",
                              bf->name, r->n_pub_out, r->n_pub_in, r->n_prv_in, r->n_wires);

    const binfile_section *cs = binfile_require(bf, 2, "constraints", err);
    if (!cs)
        return err ? err->code : CUZK_ERR_FORMAT;
    const unsigned char *c = binfile_data(bf, cs);
    uint64_t pos = 0, size = cs->size, terms = 0;
    static const char *lc_name[3] = {"A", "B", "C"};
    for (uint32_t i = 0; i < r->n_constraints; i++) {
        for (int m = 0; m < 3; m++) {
            if (size - pos < 4)
                return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                      "%s: section 2 (constraints) ends inside constraint %u of %u (%s term count)",
                                      bf->name, i, r->n_constraints, lc_name[m]);
            uint32_t nt = read_u32le(c + pos);
            pos += 4;
            if ((uint64_t)nt * (4 + n8) > size - pos)
                return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                      "%s: section 2 (constraints): constraint %u declares %u %s terms, more than the "
                                      "%llu bytes left",
                                      bf->name, i, nt, lc_name[m], (unsigned long long)(size - pos));
            for (uint32_t t = 0; t < nt; t++) {
                uint32_t wire = read_u32le(c + pos);
                if (wire >= r->n_wires)
                    return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                          "%s: section 2 (constraints): constraint %u, %s term %u: wire %u, expected "
                                          "< %u wires",
                                          bf->name, i, lc_name[m], t, wire, r->n_wires);
                if (!bytes_below(c + pos + 4, r->curve->r, n8))
                    return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL,
                                          "%s: section 2 (constraints): constraint %u, %s term %u: coefficient is not "
                                          "below r",
                                          bf->name, i, lc_name[m], t);
                pos += 4 + n8;
            }
            terms += nt;
        }
    }
    if (pos != size)
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "%s: section 2 (constraints) has %llu bytes, but its %u constraints use %llu", bf->name,
                              (unsigned long long)size, r->n_constraints, (unsigned long long)pos);
    r->constraints = c;
    r->constraints_size = size;
    r->n_terms = terms;
    for (uint32_t i = 0; i < bf->n_sections; i++)
        if (bf->sections[i].id == 3 && bf->sections[i].size != 8ULL * r->n_wires)
            return cuzk_error_set(err, CUZK_ERR_FORMAT,
                                  "%s: section 3 (wire-to-label map) has %llu bytes, expected %llu (8 per wire)",
                                  bf->name, (unsigned long long)bf->sections[i].size, 8ULL * r->n_wires);
    return CUZK_OK;
}

BINFILE_DEFINE_OPEN(r1cs, cuzk_r1cs, "r1cs", 1)

void cuzk_r1cs_get_info(const cuzk_r1cs *r, cuzk_r1cs_info *info)
{
    memset(info, 0, sizeof(*info));
    info->curve = r->curve->id;
    info->version = r->bf.version;
    info->n_wires = r->n_wires;
    info->n_pub_out = r->n_pub_out;
    info->n_pub_in = r->n_pub_in;
    info->n_prv_in = r->n_prv_in;
    info->n_labels = r->n_labels;
    info->n_constraints = r->n_constraints;
    info->n_terms = r->n_terms;
}
