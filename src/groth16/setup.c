/* The circuit-specific setup around the core: files in, the key out, and
 * snarkjs's circuit hash (section 10), so that the whole file equals what
 * `snarkjs groth16 setup` writes. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core.h"
#include "../formats/binwriter.h"
#include "../formats/ptau.h"
#include "../formats/r1cs.h"
#include "../formats/zkey.h"
#include "../util/blake2b.h"
#include "../util/error.h"

/* snarkjs hashes points in ffjavascript's "uncompressed" form: each
 * coordinate's plain value big-endian (Fp2 as c1 then c0), the point at
 * infinity as zeros. */
static void hash_points(blake2b_state *h, const curve_desc *c, const unsigned char *pts, size_t n, int group)
{
    size_t elems = group == 1 ? 2 : 4, n8 = c->n8q, size = elems * n8;
    unsigned char u[192], plain[48];
    for (size_t i = 0; i < n; i++) {
        const unsigned char *p = pts + i * size;
        unsigned char acc = 0;
        for (size_t k = 0; k < size; k++)
            acc |= p[k];
        memset(u, 0, size);
        if (acc) {
            /* a coordinate is elems/2 field elements, little-endian c0 then
             * c1; reversed as a whole it reads c1 then c0, big-endian */
            size_t coord = size / 2;
            for (int xy = 0; xy < 2; xy++)
                for (size_t e = 0; e < elems / 2; e++) {
                    cuzk_core()->fq_from_mont(c->id, plain, p + xy * coord + e * n8);
                    for (size_t k = 0; k < n8; k++)
                        u[xy * coord + coord - 1 - (e * n8 + k)] = plain[k];
                }
        }
        blake2b_update(h, u, size);
    }
}

static void hash_u32(blake2b_state *h, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)(v >> 24), (unsigned char)(v >> 16), (unsigned char)(v >> 8),
                          (unsigned char)v};
    blake2b_update(h, b, 4);
}

static void write_section(binwriter *w, uint32_t id, const void *data, size_t len)
{
    binwriter_section_begin(w, id);
    binwriter_write(w, data, len);
    binwriter_section_end(w);
}

int cuzk_setup_ptau(const char *r1cs_path, const char *ptau_path, const char *zkey_path, int threads,
                    cuzk_error *err)
{
    if (!r1cs_path || !ptau_path || !zkey_path)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_setup_ptau: NULL argument");
    if (threads <= 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        threads = n > 0 ? (int)n : 1;
    }
    cuzk_r1cs *r;
    ptau_file pt;
    int rc = cuzk_r1cs_open(&r, r1cs_path, err);
    if (rc != CUZK_OK)
        return rc;
    if ((rc = ptau_open(&pt, ptau_path, err)) != CUZK_OK) {
        cuzk_r1cs_free(r);
        return rc;
    }
    const curve_desc *c = r->curve;
    unsigned char *a = NULL, *b1 = NULL, *b2 = NULL, *ic = NULL, *cc = NULL, *coefs = NULL, *h = NULL, *hh = NULL;
    uint32_t n_public = r->n_pub_out + r->n_pub_in;
    uint64_t rows = (uint64_t)r->n_constraints + n_public;
    /* snarkjs: log2(nConstraints + nPublic) + 1, log2 rounding down */
    unsigned cir_power = 0;
    for (uint64_t x = rows; x > 1; x >>= 1)
        cir_power++;
    cir_power += 1;
    size_t n = (size_t)1 << cir_power, g1 = c->g1_bytes, g2 = c->g2_bytes;
    unsigned max_power = c->id == CUZK_CURVE_BN254 ? 27 : 31;
    if (pt.curve != c) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT, "%s is a %s circuit, but %s is a %s powers of tau", r1cs_path,
                            c->display, ptau_path, pt.curve->display);
        goto done;
    }
    if (cir_power > pt.power) {
        rc = cuzk_error_set(err, CUZK_ERR_FORMAT,
                            "%s needs a domain of 2^%u (%u constraints + %u public signals), but %s has powers up to "
                            "2^%u",
                            r1cs_path, cir_power, r->n_constraints, n_public, ptau_path, pt.power);
        goto done;
    }
    if (cir_power > max_power) {
        rc = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "%s: a 2^%u domain is too large for %s", r1cs_path, cir_power,
                            c->display);
        goto done;
    }
    /* the coefficient entries: every A and B term, and one per public signal */
    uint64_t n_coefs = (uint64_t)n_public + 1;
    const unsigned char *p = r->constraints;
    for (uint32_t k = 0; k < r->n_constraints; k++)
        for (int m = 0; m < 3; m++) {
            uint32_t nt = read_u32le(p);
            n_coefs += m < 2 ? nt : 0;
            p += 4 + (size_t)nt * 36;
        }
    size_t nv = r->n_wires, npub1 = (size_t)n_public + 1;
    a = malloc(nv * g1);
    b1 = malloc(nv * g1);
    b2 = malloc(nv * g2);
    ic = malloc(npub1 * g1);
    cc = malloc((nv - npub1 + 1) * g1);
    coefs = malloc(n_coefs * 44 + 4);
    h = malloc(n * g1);
    hh = malloc(n * g1);
    if (!a || !b1 || !b2 || !ic || !cc || !coefs || !h || !hh) {
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory for the setup of %s", r1cs_path);
        goto done;
    }
    core_setup_in in = {
        .curve = c->id,
        .threads = threads,
        .n_vars = (unsigned)nv,
        .n_public = n_public,
        .n_constraints = r->n_constraints,
        .constraints = r->constraints,
        .lag_g1 = ptau_level(pt.lagrange_g1, cir_power, g1),
        .lag_g2 = ptau_level(pt.lagrange_g2, cir_power, g2),
        .lag_alpha_g1 = ptau_level(pt.lagrange_alpha_g1, cir_power, g1),
        .lag_beta_g1 = ptau_level(pt.lagrange_beta_g1, cir_power, g1),
    };
    uint32_t count = (uint32_t)n_coefs;
    memcpy(coefs, &count, 4);
    core_setup_out out = {a, b1, b2, ic, cc, coefs + 4, 0};
    if ((rc = cuzk_core()->groth16_setup_ptau(&in, &out)) != CUZK_OK) {
        rc = cuzk_error_set(err, rc, "setup of %s: %s", r1cs_path, cuzk_strerror(rc));
        goto done;
    }
    /* H: the odd points of the 2n-domain's Lagrange basis (delta = 1) */
    const unsigned char *l2n = ptau_level(pt.lagrange_g1, cir_power + 1, g1);
    for (size_t j = 0; j < n; j++)
        memcpy(h + j * g1, l2n + (2 * j + 1) * g1, g1);

    /* snarkjs's circuit hash over the key's points */
    unsigned char g1gen[96], g2gen[192], cs_hash[64];
    cuzk_core()->generators(c->id, g1gen, g2gen);
    blake2b_state bh;
    blake2b_init(&bh, 64);
    hash_points(&bh, c, pt.alpha_tau_g1, 1, 1);
    hash_points(&bh, c, pt.beta_tau_g1, 1, 1);
    hash_points(&bh, c, pt.beta_g2, 1, 2);
    hash_points(&bh, c, g2gen, 1, 2); /* gamma2 */
    hash_points(&bh, c, g1gen, 1, 1); /* delta1 */
    hash_points(&bh, c, g2gen, 1, 2); /* delta2 */
    hash_u32(&bh, (uint32_t)npub1);
    hash_points(&bh, c, ic, npub1, 1);
    hash_u32(&bh, (uint32_t)(n - 1)); /* tau^(i+n) - tau^i, i < n - 1 */
    cuzk_core()->g1_sub(c->id, hh, pt.tau_g1 + n * g1, pt.tau_g1, n - 1);
    hash_points(&bh, c, hh, n - 1, 1);
    hash_u32(&bh, (uint32_t)(nv - npub1));
    hash_points(&bh, c, cc, nv - npub1, 1);
    hash_u32(&bh, (uint32_t)nv);
    hash_points(&bh, c, a, nv, 1);
    hash_u32(&bh, (uint32_t)nv);
    hash_points(&bh, c, b1, nv, 1);
    hash_u32(&bh, (uint32_t)nv);
    hash_points(&bh, c, b2, nv, 2);
    blake2b_final(&bh, cs_hash);

    /* the file, in snarkjs's section order */
    binwriter w;
    if ((rc = binwriter_open(&w, zkey_path, "zkey", 1, 10, err)) != CUZK_OK)
        goto done;
    unsigned char hdr[4 + 48 + 4 + 32 + 12], prime[48];
    size_t hp = 0;
    uint32_t v32;
    binwriter_section_begin(&w, ZKEY_SEC_PROTOCOL);
    binwriter_u32(&w, 1);
    binwriter_section_end(&w);
    binwriter_section_begin(&w, ZKEY_SEC_HEADER);
    v32 = c->n8q;
    memcpy(hdr + hp, &v32, 4), hp += 4;
    curve_prime_bytes(prime, c->q, c->n8q);
    memcpy(hdr + hp, prime, c->n8q), hp += c->n8q;
    v32 = c->n8r;
    memcpy(hdr + hp, &v32, 4), hp += 4;
    curve_prime_bytes(prime, c->r, c->n8r);
    memcpy(hdr + hp, prime, c->n8r), hp += c->n8r;
    uint32_t counts[3] = {(uint32_t)nv, n_public, (uint32_t)n};
    memcpy(hdr + hp, counts, 12), hp += 12;
    binwriter_write(&w, hdr, hp);
    binwriter_write(&w, pt.alpha_tau_g1, g1);
    binwriter_write(&w, pt.beta_tau_g1, g1);
    binwriter_write(&w, pt.beta_g2, g2);
    binwriter_write(&w, g2gen, g2); /* gamma2 */
    binwriter_write(&w, g1gen, g1); /* delta1 */
    binwriter_write(&w, g2gen, g2); /* delta2 */
    binwriter_section_end(&w);
    write_section(&w, ZKEY_SEC_COEFS, coefs, 4 + n_coefs * 44);
    write_section(&w, ZKEY_SEC_IC, ic, npub1 * g1);
    write_section(&w, ZKEY_SEC_H, h, n * g1);
    write_section(&w, ZKEY_SEC_C, cc, (nv - npub1) * g1);
    write_section(&w, ZKEY_SEC_A, a, nv * g1);
    write_section(&w, ZKEY_SEC_B1, b1, nv * g1);
    write_section(&w, ZKEY_SEC_B2, b2, nv * g2);
    binwriter_section_begin(&w, ZKEY_SEC_CONTRIBUTIONS);
    binwriter_write(&w, cs_hash, 64);
    binwriter_u32(&w, 0);
    binwriter_section_end(&w);
    rc = binwriter_commit(&w, err);
done:
    free(a);
    free(b1);
    free(b2);
    free(ic);
    free(cc);
    free(coefs);
    free(h);
    free(hh);
    ptau_close(&pt);
    cuzk_r1cs_free(r);
    return rc;
}
