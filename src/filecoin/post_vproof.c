/* PoSt vanilla proofs in bincode (post_vproof.h): little-endian integers,
 * u64 lengths, u32 enum tags, 32-byte values raw. */
#include <stdlib.h>
#include <string.h>

#include "../util/error.h"
#include "post_vproof.h"

typedef struct reader {
    const unsigned char *b;
    size_t len, at;
    cuzk_error *err;
    int rc;
} reader;

static int need(reader *r, size_t n, const char *what)
{
    if (r->rc)
        return 0;
    if (r->len - r->at < n) {
        r->rc = cuzk_error_set(r->err, CUZK_ERR_FORMAT, "PoSt vanilla proof: %s at byte %zu: the data ends (%zu bytes)",
                               what, r->at, r->len);
        return 0;
    }
    return 1;
}

static uint64_t get_u64(reader *r, const char *what)
{
    if (!need(r, 8, what))
        return 0;
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | r->b[r->at + (size_t)i];
    r->at += 8;
    return v;
}

static uint32_t get_u32(reader *r, const char *what)
{
    if (!need(r, 4, what))
        return 0;
    uint32_t v = (uint32_t)r->b[r->at] | (uint32_t)r->b[r->at + 1] << 8 | (uint32_t)r->b[r->at + 2] << 16 |
                 (uint32_t)r->b[r->at + 3] << 24;
    r->at += 4;
    return v;
}

static void get_bytes32(reader *r, unsigned char out[32], const char *what)
{
    if (!need(r, 32, what))
        return;
    memcpy(out, r->b + r->at, 32);
    r->at += 32;
}

static void fail(reader *r, const char *fmt, const char *what, uint64_t v)
{
    if (!r->rc)
        r->rc = cuzk_error_set(r->err, CUZK_ERR_FORMAT, fmt, what, (unsigned long long)v, r->at);
}

/* an InclusionPath: u64 levels, each u64 hashes, the hashes, u64 index */
static void get_inclusion_path(reader *r, fc_path *p, int one_level, const char *what)
{
    uint64_t n = get_u64(r, what);
    if (n == 0 || n > FC_PATH_MAX || (one_level && n != 1)) {
        fail(r, "PoSt vanilla proof: %s has %llu levels (before byte %zu)", what, n);
        return;
    }
    for (uint64_t l = 0; l < n && !r->rc; l++) {
        uint64_t k = get_u64(r, what);
        if (k != 1 && k != 3 && k != 7) {
            fail(r, "PoSt vanilla proof: a level of %s has %llu siblings (1, 3 or 7 expected; before byte %zu)", what,
                 k);
            return;
        }
        if (!need(r, 32 * k + 8, what))
            return;
        const unsigned char(*sib)[32] = (const unsigned char(*)[32])(r->b + r->at);
        r->at += 32 * k;
        uint64_t index = get_u64(r, what);
        if (index > k) {
            fail(r, "PoSt vanilla proof: a level of %s has position %llu (before byte %zu)", what, index);
            return;
        }
        r->rc = fc_path_push(p, (unsigned)k + 1, (unsigned)index, sib, r->err);
    }
}

int fc_post_vproof_read(const unsigned char *b, size_t len, fc_post_sector_proof *out, cuzk_error *err)
{
    memset(out, 0, sizeof *out);
    reader r = {.b = b, .len = len, .err = err};
    out->sector_id = get_u64(&r, "sector_id");
    get_bytes32(&r, out->comm_r, "comm_r");
    uint64_t sectors = get_u64(&r, "the sector proofs' count");
    if (!r.rc && sectors != 1)
        fail(&r, "PoSt vanilla proof: %s is %llu, not 1 (before byte %zu)", "the sector proofs' count", sectors);
    uint64_t n = get_u64(&r, "the inclusion proofs' count");
    if (!r.rc && (n == 0 || n > 4096))
        fail(&r, "PoSt vanilla proof: %s is %llu (before byte %zu)", "the inclusion proofs' count", n);
    if (!r.rc && !(out->paths = calloc(n, sizeof *out->paths)))
        r.rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory (a PoSt vanilla proof)");
    for (uint64_t i = 0; i < n && !r.rc; i++) {
        fc_path *p = &out->paths[out->n_paths++];
        uint32_t tag = get_u32(&r, "a Merkle proof's kind");
        if (!r.rc && tag > 2) {
            fail(&r, "PoSt vanilla proof: %s is %llu (Single 0, Sub 1 or Top 2 expected; before byte %zu)",
                 "a Merkle proof's kind", tag);
            break;
        }
        get_inclusion_path(&r, p, 0, "a base path");
        if (tag >= 1)
            get_inclusion_path(&r, p, 1, "a sub path");
        if (tag == 2)
            get_inclusion_path(&r, p, 1, "a top path");
        get_bytes32(&r, p->root, "a Merkle proof's root");
        get_bytes32(&r, p->leaf, "a Merkle proof's leaf");
    }
    get_bytes32(&r, out->comm_c, "comm_c");
    get_bytes32(&r, out->comm_r_last, "comm_r_last");
    if (!r.rc && r.at != len)
        r.rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "PoSt vanilla proof: %zu bytes past its end (at byte %zu)",
                              len - r.at, r.at);
    if (r.rc)
        fc_post_vproof_free(out);
    return r.rc;
}

void fc_post_vproof_free(fc_post_sector_proof *p)
{
    for (unsigned i = 0; i < p->n_paths; i++)
        fc_path_free(&p->paths[i]);
    free(p->paths);
    memset(p, 0, sizeof *p);
}
