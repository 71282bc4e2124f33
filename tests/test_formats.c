/* File formats and verification through the public API:
 *   - every fixture's snarkjs proof verifies; tampered ones do not;
 *   - the exported verification key equals snarkjs's vk.json byte for byte;
 *   - written .zkey, .wtns, proof.json and public.json files equal the
 *     snarkjs-made originals byte for byte;
 *   - truncated, oversized-count, wrong-magic, wrong-version, wrong-curve,
 *     mismatched-section and out-of-range files are refused with the
 *     documented status and a message naming the file and the section.
 * Usage: test_formats FIXTURES_DIR */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/cuzk.h"
#include "../include/cuzk_testcircuits.h"
#include "../src/circuit/source.h"
#include "../src/core/core.h"
#include "../src/formats/params.h"
#include "../src/formats/snarkjs_json.h"
#include "../src/formats/wtns.h"
#include "../src/formats/zkey.h"
#include "../src/groth16/matrices.h"
#include "../src/engine/submit.h"
#include "../src/groth16/prove.h"
#include "../src/util/blake2b.h"
#include "../src/util/file_digest.h"
#include "../src/util/sha256.h"
#include "../src/util/size_text.h"

#define CUZK_BACKEND_NAME "library"
#include "test_util.h"

static const char *fixtures;

static unsigned char *slurp(const char *curve, const char *file, size_t *len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s/%s", fixtures, curve, file);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* copies src to dst; its size (0 on failure) */
static size_t copy_file(const char *src, const char *dst)
{
    FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
    size_t total = 0, n;
    unsigned char buf[65536];
    while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        total += fwrite(buf, 1, n, out);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        total = 0;
    return total;
}

static int verify_docs(json_t *vk, json_t *pub, json_t *proof, cuzk_error *err)
{
    char *a = json_dumps(vk, 0), *b = json_dumps(pub, JSON_ENCODE_ANY), *c = json_dumps(proof, 0);
    CHECK(a && b && c);
    int rc = cuzk_verify_json(a, strlen(a), b, strlen(b), c, strlen(c), err);
    free(a);
    free(b);
    free(c);
    return rc;
}

static json_t *load_json(const char *curve, const char *file)
{
    size_t len;
    unsigned char *text = slurp(curve, file, &len);
    json_error_t je;
    json_t *v = json_loadb((const char *)text, len, 0, &je);
    CHECK(v != NULL);
    free(text);
    return v;
}

/* ------------------------------------------------------------ verify */

static void test_verify(const char *curve, const char *name, const char *other)
{
    char ctx[128], f[128];
    snprintf(ctx, sizeof(ctx), "verify %s/%s", curve, name);
    test_context = ctx;
    snprintf(f, sizeof(f), "%s.vk.json", name);
    json_t *vk = load_json(curve, f);
    snprintf(f, sizeof(f), "%s.public.json", name);
    json_t *pub = load_json(curve, f);
    snprintf(f, sizeof(f), "%s.proof.json", name);
    json_t *proof = load_json(curve, f);
    cuzk_error err = {0};
    int rc = verify_docs(vk, pub, proof, &err);
    if (rc != CUZK_OK)
        fprintf(stderr, "%s\n", err.message);
    CHECK(rc == CUZK_OK);

    /* through the files too */
    char p1[4096], p2[4096], p3[4096];
    snprintf(p1, sizeof(p1), "%s/%s/%s.vk.json", fixtures, curve, name);
    snprintf(p2, sizeof(p2), "%s/%s/%s.public.json", fixtures, curve, name);
    snprintf(p3, sizeof(p3), "%s/%s/%s.proof.json", fixtures, curve, name);
    CHECK(cuzk_verify_files(p1, p2, p3, &err) == CUZK_OK);

    /* one public changed */
    if (json_array_size(pub) > 0) {
        json_t *t = json_deep_copy(pub);
        const char *s = json_string_value(json_array_get(t, 0));
        char changed[128];
        snprintf(changed, sizeof(changed), "%s", s);
        size_t n = strlen(changed);
        changed[n - 1] = changed[n - 1] == '9' ? '8' : (char)(changed[n - 1] + 1);
        json_array_set_new(t, 0, json_string(changed));
        CHECK(verify_docs(vk, t, proof, &err) == CUZK_ERR_INVALID_PROOF);
        CHECK(strstr(err.message, "does not verify") != NULL);
        json_decref(t);
    }

    /* each proof point replaced by another valid point: G1 by vk_alpha_1,
     * G2 by vk_gamma_2 */
    const char *keys[3] = {"pi_a", "pi_b", "pi_c"};
    for (int k = 0; k < 3; k++) {
        json_t *t = json_deep_copy(proof);
        json_object_set(t, keys[k], json_object_get(vk, k == 1 ? "vk_gamma_2" : "vk_alpha_1"));
        CHECK(verify_docs(vk, pub, t, &err) == CUZK_ERR_INVALID_PROOF);
        json_decref(t);
    }

    /* a proof of another circuit (with the publics that go with it) */
    if (other) {
        snprintf(f, sizeof(f), "%s.public.json", other);
        json_t *opub = load_json(curve, f);
        snprintf(f, sizeof(f), "%s.proof.json", other);
        json_t *oproof = load_json(curve, f);
        if (json_array_size(opub) == json_array_size(pub))
            CHECK(verify_docs(vk, opub, oproof, &err) == CUZK_ERR_INVALID_PROOF);
        CHECK(verify_docs(vk, pub, oproof, &err) == CUZK_ERR_INVALID_PROOF);
        json_decref(opub);
        json_decref(oproof);
    }

    /* malformed inputs: a status other than valid/invalid, and a message
     * naming the place */
    json_t *t = json_deep_copy(proof);
    json_array_set_new(json_object_get(t, "pi_a"), 0, json_string("12x"));
    CHECK(verify_docs(vk, pub, t, &err) == CUZK_ERR_FORMAT && strstr(err.message, "pi_a[0]"));
    /* off the curve: numbers, but no point; snarkjs answers false, so the
     * proof is invalid (named), not malformed */
    json_array_set_new(json_object_get(t, "pi_a"), 0, json_string("1"));
    rc = verify_docs(vk, pub, t, &err);
    CHECK(rc == CUZK_ERR_INVALID_PROOF && strstr(err.message, "pi_a") && strstr(err.message, "not on the curve"));
    json_decref(t);
    t = json_deep_copy(proof);
    json_array_set_new(json_object_get(t, "pi_c"), 2, json_string("2"));
    CHECK(verify_docs(vk, pub, t, &err) == CUZK_ERR_FORMAT && strstr(err.message, "pi_c[2]"));
    json_object_set_new(t, "curve", json_string(!strcmp(curve, "bn128") ? "bls12381" : "bn128"));
    CHECK(verify_docs(vk, pub, t, &err) == CUZK_ERR_FORMAT && strstr(err.message, "curve"));
    json_decref(t);
    t = json_deep_copy(pub);
    json_array_append_new(t, json_string("1"));
    CHECK(verify_docs(vk, t, proof, &err) == CUZK_ERR_FORMAT && strstr(err.message, "public signals"));
    json_decref(t);
    if (json_array_size(pub) > 0) { /* a public of r or more */
        t = json_deep_copy(pub);
        json_array_set_new(t, 0, json_string("52435875175126190479447740508185965837690552500527637822603658699938581184513"
                                             "0"));
        CHECK(verify_docs(vk, t, proof, &err) == CUZK_ERR_NOT_CANONICAL);
        json_decref(t);
    }
    t = json_deep_copy(vk);
    json_object_set_new(t, "protocol", json_string("plonk"));
    CHECK(verify_docs(t, pub, proof, &err) == CUZK_ERR_UNSUPPORTED);
    json_decref(t);
    CHECK(cuzk_verify_json("{", 1, "[]", 2, "{}", 2, &err) == CUZK_ERR_FORMAT && strstr(err.message, "not valid JSON"));

    json_decref(vk);
    json_decref(pub);
    json_decref(proof);
}

/* ------------------------------------------------------------ export-vk */

static void test_export_vk(const char *curve, const char *name)
{
    char ctx[128], f[128];
    snprintf(ctx, sizeof(ctx), "export-vk %s/%s", curve, name);
    test_context = ctx;
    snprintf(f, sizeof(f), "%s.zkey", name);
    size_t zlen, vlen;
    unsigned char *z = slurp(curve, f, &zlen);
    snprintf(f, sizeof(f), "%s.vk.json", name);
    unsigned char *v = slurp(curve, f, &vlen);
    cuzk_zkey *zk;
    cuzk_error err = {0};
    CHECK(cuzk_zkey_open_memory(&zk, z, zlen, f, &err) == CUZK_OK);
    char *json;
    CHECK(cuzk_zkey_export_vk(zk, &json, &err) == CUZK_OK);
    CHECK(strlen(json) == vlen && memcmp(json, v, vlen) == 0);
    CHECK(cuzk_zkey_check(zk, 1, 2, &err) == CUZK_OK);
    cuzk_zkey_info info;
    cuzk_zkey_get_info(zk, &info);
    CHECK(info.curve == (!strcmp(curve, "bn128") ? CUZK_CURVE_BN254 : CUZK_CURVE_BLS12_381));
    cuzk_free(json);
    cuzk_zkey_free(zk);
    free(z);
    free(v);
}

/* ------------------------------------------------------------ bad files */

typedef int (*open_fn)(void **out, const void *data, size_t len, const char *name, cuzk_error *err);
typedef void (*free_fn)(void *);

static int open_zkey(void **out, const void *d, size_t n, const char *name, cuzk_error *e)
{
    return cuzk_zkey_open_memory((cuzk_zkey **)out, d, n, name, e);
}
static int open_wtns(void **out, const void *d, size_t n, const char *name, cuzk_error *e)
{
    return cuzk_wtns_open_memory((cuzk_wtns **)out, d, n, name, e);
}
static int open_r1cs(void **out, const void *d, size_t n, const char *name, cuzk_error *e)
{
    return cuzk_r1cs_open_memory((cuzk_r1cs **)out, d, n, name, e);
}
static void free_zkey(void *p)
{
    cuzk_zkey_free(p);
}
static void free_wtns(void *p)
{
    cuzk_wtns_free(p);
}
static void free_r1cs(void *p)
{
    cuzk_r1cs_free(p);
}

/* Opens a (mutated) buffer; returns the status, message in err. */
static int try_open(open_fn op, free_fn fr, const unsigned char *d, size_t n, cuzk_error *err)
{
    void *h = NULL;
    memset(err, 0, sizeof(*err));
    int rc = op(&h, d, n, "mutated", err);
    if (rc == CUZK_OK)
        fr(h);
    else
        CHECK(h == NULL && err->code == rc && strstr(err->message, "mutated") != NULL);
    return rc;
}

/* Offset of section `id`'s 12-byte header in a container. */
static size_t section_header(const unsigned char *d, size_t n, uint32_t id)
{
    size_t pos = 12;
    uint32_t count = d[8] | d[9] << 8 | d[10] << 16 | (uint32_t)d[11] << 24;
    for (uint32_t i = 0; i < count && pos + 12 <= n; i++) {
        uint32_t sid = d[pos] | d[pos + 1] << 8 | d[pos + 2] << 16 | (uint32_t)d[pos + 3] << 24;
        uint64_t len = 0;
        for (int k = 7; k >= 0; k--)
            len = len << 8 | d[pos + 4 + k];
        if (sid == id)
            return pos;
        pos += 12 + len;
    }
    CHECK(!"section not found");
    return 0;
}

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void common_mutations(const char *label, open_fn op, free_fn fr, const unsigned char *d, size_t n)
{
    char ctx[128];
    snprintf(ctx, sizeof(ctx), "bad %s", label);
    test_context = ctx;
    cuzk_error err;
    unsigned char *m = malloc(n);
    CHECK(try_open(op, fr, d, n, &err) == CUZK_OK);
    /* every truncation is refused cleanly */
    for (size_t len = 0; len < n; len += (n > 4000 ? 1 + len / 64 : 1)) {
        memcpy(m, d, len);
        int rc = try_open(op, fr, m, len, &err);
        CHECK(rc != CUZK_OK);
        CHECK(rc == CUZK_ERR_FORMAT || rc == CUZK_ERR_UNSUPPORTED || rc == CUZK_ERR_NOT_CANONICAL);
    }
    memcpy(m, d, n);
    memcpy(m, "abcd", 4); /* refused without echoing the file's bytes (docs/security.md) */
    CHECK(try_open(op, fr, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "does not start with") &&
          !strstr(err.message, "abcd"));
    memcpy(m, strcmp(label, "wtns") ? "wtns" : "zkey", 4); /* a known container is named */
    CHECK(try_open(op, fr, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, strcmp(label, "wtns") ? "a .wtns file" : "a .zkey file"));
    memcpy(m, d, n);
    put_u32(m + 4, 99);
    CHECK(try_open(op, fr, m, n, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "version 99"));
    put_u32(m + 4, 0);
    CHECK(try_open(op, fr, m, n, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "version 0"));
    if (strcmp(label, "r1cs") != 0) { /* .zkey and .wtns: versions 1 and 2 both read */
        for (uint32_t v = 1; v <= 2; v++) {
            put_u32(m + 4, v);
            CHECK(try_open(op, fr, m, n, &err) == CUZK_OK);
        }
    }
    memcpy(m, d, n);
    put_u32(m + 8, 100000);
    CHECK(try_open(op, fr, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "sections"));
    memcpy(m, d, n);
    put_u32(m + 16, 0x7fffffff); /* first section's size: past the end */
    CHECK(try_open(op, fr, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "truncated"));
    free(m);
}

static void test_bad_zkey(const char *curve)
{
    size_t n;
    unsigned char *d = slurp(curve, "tiny.zkey", &n);
    common_mutations("zkey", open_zkey, free_zkey, d, n);
    cuzk_error err;
    unsigned char *m = malloc(n);
    size_t h = section_header(d, n, 2) + 12; /* section 2's data */
    uint32_t n8q = d[h] | d[h + 1] << 8;
    /* wrong curve: the base-field prime altered */
    memcpy(m, d, n);
    m[h + 4] ^= 1;
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "section 2"));
    /* n8q of neither curve */
    memcpy(m, d, n);
    put_u32(m + h, 40);
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "n8q = 40"));
    /* not Groth16 */
    memcpy(m, d, n);
    put_u32(m + section_header(d, n, 1) + 12, 2);
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "PLONK"));
    /* oversized counts: nVars and nCoefs far beyond the sections */
    size_t counts = h + 4 + n8q + 4 + 32;
    memcpy(m, d, n);
    put_u32(m + counts, 0xfffffff0u);
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "section 5"));
    memcpy(m, d, n);
    put_u32(m + section_header(d, n, 4) + 12, 0x7fffffffu);
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "section 4"));
    /* nPublic >= nVars; domain not a power of two */
    memcpy(m, d, n);
    put_u32(m + counts + 4, 1000);
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "nPublic"));
    memcpy(m, d, n);
    put_u32(m + counts + 8, 6);
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "power of two"));
    /* a section whose size disagrees with the header: section 9 (H) one
     * point short (the file is rebuilt without its last 8 bytes of H,
     * with the section size and the next section shifted) */
    size_t s9 = section_header(d, n, 9);
    memcpy(m, d, n);
    m[s9 + 4] = (unsigned char)(m[s9 + 4] - 8); /* claims 8 bytes fewer */
    int rc = try_open(open_zkey, free_zkey, m, n, &err);
    CHECK(rc == CUZK_ERR_FORMAT);
    /* alpha1 moved off the curve; a coordinate >= p */
    size_t alpha = counts + 12;
    memcpy(m, d, n);
    m[alpha + n8q] ^= 1;
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_NOT_ON_CURVE && strstr(err.message, "alpha1"));
    memcpy(m, d, n);
    memset(m + alpha, 0xff, n8q);
    CHECK(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_NOT_CANONICAL && strstr(err.message, "alpha1"));
    /* each of alpha1, beta1, beta2, gamma2, delta1, delta2 at infinity: a
     * degenerate key (its verification accepts forged proofs) */
    {
        size_t g1 = 2 * (size_t)n8q, g2 = 2 * g1;
        const struct {
            const char *name;
            size_t at, bytes;
        } vkp[] = {{"alpha1", alpha, g1},
                   {"beta1", alpha + g1, g1},
                   {"beta2", alpha + 2 * g1, g2},
                   {"gamma2", alpha + 2 * g1 + g2, g2},
                   {"delta1", alpha + 2 * g1 + 2 * g2, g1},
                   {"delta2", alpha + 3 * g1 + 2 * g2, g2}};
        for (size_t i = 0; i < sizeof(vkp) / sizeof(vkp[0]); i++) {
            memcpy(m, d, n);
            memset(m + vkp[i].at, 0, vkp[i].bytes);
            char want[64];
            snprintf(want, sizeof(want), "%s is the point at infinity", vkp[i].name);
            CHECK_MSG(try_open(open_zkey, free_zkey, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, want),
                      "%s %s at infinity: %s", curve, vkp[i].name, err.message);
        }
    }
    /* a point of section 5 (A) off the curve: found by the full check */
    memcpy(m, d, n);
    size_t a = section_header(d, n, 5) + 12 + 2 * (2 * n8q); /* third point */
    m[a] ^= 1;
    cuzk_zkey *zk;
    CHECK(cuzk_zkey_open_memory(&zk, m, n, "mutated", &err) == CUZK_OK);
    rc = cuzk_zkey_check(zk, 1, 2, &err);
    CHECK((rc == CUZK_ERR_NOT_ON_CURVE || rc == CUZK_ERR_NOT_CANONICAL) && strstr(err.message, "section 5 (A): point 2"));
    cuzk_zkey_free(zk);
    /* a coefficient entry out of range */
    memcpy(m, d, n);
    put_u32(m + section_header(d, n, 4) + 12 + 4 + 8, 1000); /* entry 0's signal */
    CHECK(cuzk_zkey_open_memory(&zk, m, n, "mutated", &err) == CUZK_OK);
    CHECK(cuzk_zkey_check(zk, 1, 1, &err) == CUZK_ERR_FORMAT && strstr(err.message, "section 4"));
    cuzk_zkey_free(zk);
    /* a key of the other version (snarkjs's "zkey new" section order) opens */
    free(d);
    d = slurp(curve, "tiny_0.zkey", &n);
    CHECK(try_open(open_zkey, free_zkey, d, n, &err) == CUZK_OK);
    free(m);
    free(d);
}

static void test_bad_wtns(const char *curve)
{
    size_t n;
    unsigned char *d = slurp(curve, "mul1k.wtns", &n);
    common_mutations("wtns", open_wtns, free_wtns, d, n);
    cuzk_error err;
    unsigned char *m = malloc(n);
    size_t h = section_header(d, n, 1) + 12;
    memcpy(m, d, n);
    put_u32(m + h, 48);
    CHECK(try_open(open_wtns, free_wtns, m, n, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "n8 = 48"));
    memcpy(m, d, n);
    m[h + 4] ^= 1; /* prime of no curve */
    CHECK(try_open(open_wtns, free_wtns, m, n, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "prime"));
    memcpy(m, d, n);
    put_u32(m + h + 36, 2000000); /* more values than section 2 holds */
    CHECK(try_open(open_wtns, free_wtns, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "section 2"));
    memcpy(m, d, n);
    memset(m + section_header(d, n, 2) + 12 + 32 * 5, 0xff, 32); /* value 5 >= r */
    CHECK(try_open(open_wtns, free_wtns, m, n, &err) == CUZK_ERR_NOT_CANONICAL && strstr(err.message, "value 5"));
    cuzk_wtns *w;
    CHECK(cuzk_wtns_open_memory(&w, d, n, "mul1k.wtns", &err) == CUZK_OK);
    cuzk_wtns_info info;
    cuzk_wtns_get_info(w, &info);
    CHECK(info.n_witness == 1003);
    cuzk_wtns_free(w);
    free(m);
    free(d);
}

static void test_bad_r1cs(const char *curve)
{
    size_t n;
    unsigned char *d = slurp(curve, "tiny.r1cs", &n);
    common_mutations("r1cs", open_r1cs, free_r1cs, d, n);
    cuzk_error err;
    unsigned char *m = malloc(n);
    size_t c = section_header(d, n, 2) + 12; /* constraint 0, A's term count */
    memcpy(m, d, n);
    put_u32(m + c, 1000000);
    CHECK(try_open(open_r1cs, free_r1cs, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "constraint 0"));
    memcpy(m, d, n);
    put_u32(m + c + 4, 77); /* A's first wire */
    CHECK(try_open(open_r1cs, free_r1cs, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "wire 77"));
    memcpy(m, d, n);
    memset(m + c + 8, 0xff, 32); /* A's first coefficient >= r */
    CHECK(try_open(open_r1cs, free_r1cs, m, n, &err) == CUZK_ERR_NOT_CANONICAL && strstr(err.message, "coefficient"));
    size_t h = section_header(d, n, 1) + 12;
    memcpy(m, d, n);
    put_u32(m + h + 36 + 12 + 4 + 8, 5); /* 5 constraints declared, 1 present */
    CHECK(try_open(open_r1cs, free_r1cs, m, n, &err) == CUZK_ERR_FORMAT && strstr(err.message, "section 2"));
    cuzk_r1cs *r;
    CHECK(cuzk_r1cs_open_memory(&r, d, n, "tiny.r1cs", &err) == CUZK_OK);
    cuzk_r1cs_info info;
    cuzk_r1cs_get_info(r, &info);
    CHECK(info.n_constraints == 1 && info.n_wires == 4 && info.n_pub_out == 1 && info.n_pub_in == 1);
    cuzk_r1cs_free(r);
    free(m);
    free(d);
}

/* ------------------------------------------------------------ writers */

static unsigned char *read_path(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    CHECK(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void test_writers(const char *curve, const char *tmpdir)
{
    char ctx[128], out[4096];
    snprintf(ctx, sizeof(ctx), "writers %s", curve);
    test_context = ctx;
    cuzk_error err;
    static const char *keys[3] = {"tiny.zkey", "mul1k.zkey", "tiny_0.zkey"};
    for (int k = 0; k < 3; k++) {
        size_t n, m;
        unsigned char *d = slurp(curve, keys[k], &n);
        cuzk_zkey *zk, *back;
        CHECK(cuzk_zkey_open_memory(&zk, d, n, keys[k], &err) == CUZK_OK);
        zkey_parts parts;
        zkey_parts_of(zk, &parts);
        snprintf(out, sizeof(out), "%s/%s", tmpdir, keys[k]);
        CHECK(zkey_write(out, &parts, &err) == CUZK_OK);
        unsigned char *w = read_path(out, &m);
        if (k < 2) /* written by `zkey contribute`: sections 1..10 in order, as we write */
            CHECK(m == n && memcmp(w, d, n) == 0);
        CHECK(cuzk_zkey_open(&back, out, &err) == CUZK_OK);
        char *vk1, *vk2;
        CHECK(cuzk_zkey_export_vk(zk, &vk1, &err) == CUZK_OK && cuzk_zkey_export_vk(back, &vk2, &err) == CUZK_OK);
        CHECK(strcmp(vk1, vk2) == 0);
        cuzk_free(vk1);
        cuzk_free(vk2);
        cuzk_zkey_free(back);
        cuzk_zkey_free(zk);
        remove(out);
        free(w);
        free(d);
    }
    /* a witness written back is the same file */
    size_t n, m;
    unsigned char *d = slurp(curve, "mul1k.wtns", &n);
    cuzk_wtns *wt;
    CHECK(cuzk_wtns_open_memory(&wt, d, n, "mul1k.wtns", &err) == CUZK_OK);
    snprintf(out, sizeof(out), "%s/mul1k.wtns", tmpdir);
    CHECK(wtns_write(out, wt->curve, wt->values, wt->n_witness, &err) == CUZK_OK);
    unsigned char *w = read_path(out, &m);
    CHECK(m == n && memcmp(w, d, n) == 0);
    remove(out);
    free(w);
    /* unwritable destination: an error, and nothing left behind */
    snprintf(out, sizeof(out), "%s/no/such/dir/x.wtns", tmpdir);
    CHECK(wtns_write(out, wt->curve, wt->values, wt->n_witness, &err) == CUZK_ERR_IO && strstr(err.message, "x.wtns"));
    cuzk_wtns_free(wt);
    free(d);
    /* proof.json and public.json come out as snarkjs wrote them */
    static const char *circuits[4] = {"tiny", "mul1k", "poseidon3", "sha256_256"};
    for (int k = 0; k < 4; k++) {
        char f[128];
        const curve_desc *c = curve_by_name(curve);
        snprintf(f, sizeof(f), "%s.proof.json", circuits[k]);
        unsigned char *text = slurp(curve, f, &n);
        snarkjs_proof proof;
        CHECK(snarkjs_proof_parse(&proof, (const char *)text, n, f, c, &err) == CUZK_OK);
        char *again = snarkjs_proof_json(c, proof.a, proof.b, proof.c);
        CHECK(again && strlen(again) == n && memcmp(again, text, n) == 0);
        free(again);
        free(text);
        snprintf(f, sizeof(f), "%s.public.json", circuits[k]);
        text = slurp(curve, f, &n);
        snarkjs_public pub;
        CHECK(snarkjs_public_parse(&pub, (const char *)text, n, f, c, &err) == CUZK_OK);
        again = snarkjs_public_json(pub.values, pub.n);
        CHECK(again && strlen(again) == n && memcmp(again, text, n) == 0);
        free(again);
        snarkjs_public_free(&pub);
        free(text);
    }
    char *empty = snarkjs_public_json(NULL, 0);
    CHECK(empty && strcmp(empty, "[]") == 0);
    free(empty);
}

/* BLAKE2b-512 (snarkjs's circuit hash) against RFC 7693 appendix A ("abc")
 * and the empty input, split across block boundaries too. */
static void test_blake2b(void)
{
    test_context = "blake2b";
    static const char *abc = "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d1"
                             "7d87c5392aab792dc252d5de4533cc9518d38aa8dbf1925ab92386edd4009923";
    static const char *empty = "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419"
                               "d25e1031afee585313896444934eb04b903a685b1448b755d56f701afe9be2ce";
    unsigned char out[64], want[64];
    blake2b_state s;
    blake2b_init(&s, 64);
    blake2b_update(&s, "a", 1);
    blake2b_update(&s, "bc", 2);
    blake2b_final(&s, out);
    CHECK(test_hex_to_bytes(want, 64, abc) == 0 && memcmp(out, want, 64) == 0);
    blake2b_init(&s, 64);
    blake2b_final(&s, out);
    CHECK(test_hex_to_bytes(want, 64, empty) == 0 && memcmp(out, want, 64) == 0);
    /* 256 bytes fed as 1 + 127 + 128: the same as in one piece */
    unsigned char data[256], one[64];
    for (int i = 0; i < 256; i++)
        data[i] = (unsigned char)i;
    blake2b_init(&s, 64);
    blake2b_update(&s, data, 256);
    blake2b_final(&s, one);
    blake2b_init(&s, 64);
    blake2b_update(&s, data, 1);
    blake2b_update(&s, data + 1, 127);
    blake2b_update(&s, data + 128, 128);
    blake2b_final(&s, out);
    CHECK(memcmp(out, one, 64) == 0);
}

/* SHA-256 (the sha256-chain generator's reference) against FIPS 180-2's
 * examples ("abc", the 56-byte two-block message), the empty input, and
 * 1024 bytes fed unevenly (digest from Python's hashlib). */
static void test_sha256(void)
{
    test_context = "sha256";
    static const struct {
        const char *msg, *digest;
    } v[3] = {
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    unsigned char out[32], want[32];
    sha256_state s;
    for (int i = 0; i < 3; i++) {
        sha256_init(&s);
        sha256_update(&s, v[i].msg, strlen(v[i].msg));
        sha256_final(&s, out);
        CHECK(test_hex_to_bytes(want, 32, v[i].digest) == 0 && memcmp(out, want, 32) == 0);
    }
    unsigned char data[1024];
    for (int i = 0; i < 1024; i++)
        data[i] = (unsigned char)i;
    sha256_init(&s);
    sha256_update(&s, data, 1);
    sha256_update(&s, data + 1, 100);
    sha256_update(&s, data + 101, 923);
    sha256_final(&s, out);
    CHECK(test_hex_to_bytes(want, 32, "785b0751fc2c53dc14a4ce3d800e69ef9ce1009eb327ccf458afe09c242c26c9") == 0 &&
          memcmp(out, want, 32) == 0);
}

/* A line of a command's output (popen), "" when it printed none. */
static void command_line(const char *cmd, char *out, size_t n)
{
    out[0] = 0;
    FILE *f = popen(cmd, "r");
    if (f) {
        if (!fgets(out, (int)n, f))
            out[0] = 0;
        pclose(f);
    }
}

/* file_digest (the nodes' key digests) against coreutils' b2sum -l 256 as
 * the oracle: each 64 MiB chunk's digest by b2sum, then the tag, the size
 * and those digests by b2sum again; sizes 0, 1, one chunk exactly, one
 * chunk and a bit, seeded random bytes, one and three threads; a stop asked
 * for, a missing file. */
static void test_file_digest(const char *tmpdir)
{
    test_context = "file digest";
    char probe[64];
    command_line("b2sum --version 2>/dev/null", probe, sizeof(probe));
    if (!probe[0]) {
        printf("note: no b2sum (coreutils): file digests not checked against it\n");
        return;
    }
    static const size_t sizes[4] = {0, 1, FILE_DIGEST_CHUNK, FILE_DIGEST_CHUNK + 1000};
    unsigned char *data = malloc(FILE_DIGEST_CHUNK + 1000);
    CHECK(data != NULL);
    for (size_t i = 0; i < FILE_DIGEST_CHUNK + 1000; i += 8) {
        uint64_t r = test_rand64();
        memcpy(data + i, &r, 8);
    }
    char path[300], cmd[800], line[200];
    snprintf(path, sizeof(path), "%s/digest.bin", tmpdir);
    for (int k = 0; k < 4; k++) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(data, 1, sizes[k], f) == sizes[k] && fclose(f) == 0);
        /* the oracle */
        size_t chunks = (sizes[k] + FILE_DIGEST_CHUNK - 1) / FILE_DIGEST_CHUNK;
        unsigned char top[18 + 8 + 2 * FILE_DIGEST_LEN];
        memcpy(top, "cuzk file digest 1", 18);
        for (int i = 0; i < 8; i++)
            top[18 + i] = (unsigned char)((uint64_t)sizes[k] >> (8 * i));
        for (size_t c = 0; c < chunks; c++) {
            snprintf(cmd, sizeof(cmd), "dd if=%s bs=%u skip=%zu count=1 2>/dev/null | b2sum -l 256", path,
                     FILE_DIGEST_CHUNK, c);
            command_line(cmd, line, sizeof(line));
            line[2 * FILE_DIGEST_LEN] = 0; /* "<hex>  -" */
            CHECK_MSG(test_hex_to_bytes(top + 26 + c * FILE_DIGEST_LEN, FILE_DIGEST_LEN, line) == 0,
                      "b2sum said '%s'", line);
        }
        char tp[320];
        snprintf(tp, sizeof(tp), "%s/digest.top", tmpdir);
        f = fopen(tp, "wb");
        CHECK(f && fwrite(top, 1, 26 + chunks * FILE_DIGEST_LEN, f) == 26 + chunks * FILE_DIGEST_LEN && fclose(f) == 0);
        snprintf(cmd, sizeof(cmd), "b2sum -l 256 %s", tp);
        command_line(cmd, line, sizeof(line));
        line[2 * FILE_DIGEST_LEN] = 0;
        unsigned char want[FILE_DIGEST_LEN], got[FILE_DIGEST_LEN];
        CHECK_MSG(test_hex_to_bytes(want, FILE_DIGEST_LEN, line) == 0, "b2sum said '%s'", line);
        unlink(tp);
        for (unsigned threads = 1; threads <= 3; threads += 2) {
            uint64_t size = 0;
            cuzk_error err = {0};
            CHECK_MSG(file_digest(path, threads, NULL, got, &size, &err) == CUZK_OK, "%s", err.message);
            CHECK_MSG(size == sizes[k] && !memcmp(got, want, FILE_DIGEST_LEN), "size %zu, %u threads", sizes[k],
                      threads);
        }
    }
    volatile int stop = 1;
    uint64_t size;
    unsigned char got[FILE_DIGEST_LEN];
    cuzk_error err = {0};
    CHECK(file_digest(path, 2, &stop, got, &size, &err) == CUZK_ERR_CANCELLED && strstr(err.message, "stopped"));
    unlink(path);
    CHECK(file_digest(path, 1, NULL, got, &size, &err) == CUZK_ERR_IO && strstr(err.message, "digest.bin") &&
          strstr(err.message, "No such file"));
    CHECK(file_digest(tmpdir, 1, NULL, got, &size, &err) == CUZK_ERR_IO && strstr(err.message, "not a regular file"));
    free(data);
}

/* Byte counts in messages: each unit from its threshold, edges included. */
static void test_size_text(void)
{
    test_context = "size text";
    static const struct {
        uint64_t bytes;
        const char *text;
    } cases[] = {
        {0, "0 bytes"},
        {1023, "1023 bytes"},
        {1024, "1.0 KiB"},
        {(1u << 20) - 1, "1.0 MiB"},
        {1023 * 1024 + 900, "1023.9 KiB"},
        {((uint64_t)1 << 30) - 1, "1.00 GiB"},
        {1u << 20, "1.0 MiB"},
        {36756357, "35.1 MiB"},
        {(uint64_t)1 << 30, "1.00 GiB"},
        {148282408960ull, "138.10 GiB"},
        {UINT64_MAX, "17179869184.00 GiB"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const cuzk_size_text t = cuzk_size_str(cases[i].bytes);
        if (strcmp(t.s, cases[i].text)) {
            fprintf(stderr, "size text of %llu: '%s', expected '%s'\n", (unsigned long long)cases[i].bytes, t.s,
                    cases[i].text);
            CHECK(0);
        }
    }
}

/* Points of a .zkey section that are not at infinity (what a .params
 * vector of the same setup holds: bellperson's A and B leave them out). */
static size_t finite_points(const unsigned char *pts, size_t n, size_t size)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        int zero = 1;
        for (size_t j = 0; j < size; j++)
            zero &= pts[i * size + j] == 0;
        k += !zero;
    }
    return k;
}

/* cuzk setup --format params: from the same toxic waste (a seeded random
 * source; or a ptau) as a .zkey, the same alpha, beta, gamma and delta;
 * IC, L, A, B_G1 and B_G2 as many points as the zkey's IC, C and A, B1, B2
 * without their points at infinity (not the same points: a .params key's
 * rows are bellperson's powers of its domain's root, src/ntt/ntt_impl.h;
 * test_params.sh proves with a key of noble's bellperson setup), H of
 * n - 1 points; the proofs of both keys check; BLS12-381 only. */
static void test_params_setup(const char *tmpdir)
{
    char r1cs[1024], ptau[1024], zk_path[1100], pa_path[1100];
    snprintf(r1cs, sizeof(r1cs), "%s/bls12381/poseidon3.r1cs", fixtures);
    snprintf(ptau, sizeof(ptau), "%s/ptau/bls12381_10.ptau", fixtures);
    snprintf(zk_path, sizeof(zk_path), "%s/same.zkey", tmpdir);
    snprintf(pa_path, sizeof(pa_path), "%s/same.params", tmpdir);
    cuzk_error err = {0};
    for (int with_ptau = 0; with_ptau < 2; with_ptau++) {
        cuzk_setup_options o = {.device = CUZK_DEVICE_CPU, .random = test_random_bytes};
        atomic_store(&test_random_counter, 0x5eed);
        CHECK_MSG(cuzk_setup(r1cs, with_ptau ? ptau : NULL, zk_path, &o, &err) == CUZK_OK, "zkey: %s", err.message);
        o.format = CUZK_KEY_PARAMS;
        atomic_store(&test_random_counter, 0x5eed);
        CHECK_MSG(cuzk_setup(r1cs, with_ptau ? ptau : NULL, pa_path, &o, &err) == CUZK_OK, "params: %s", err.message);
        cuzk_zkey *zk;
        CHECK(cuzk_zkey_open(&zk, zk_path, &err) == CUZK_OK);
        params_file pf;
        CHECK_MSG(params_open(&pf, pa_path, &err) == CUZK_OK, "%s", err.message);
        CHECK_MSG(params_check(&pf, 2, NULL, &err) == CUZK_OK, "%s", err.message);
        unsigned char vk[6][192];
        CHECK(params_decode_vk(&pf, vk[0], vk[1], vk[2], vk[3], vk[4], vk[5], &err) == CUZK_OK);
        CHECK_MSG(!memcmp(vk[0], zk->alpha1, 96) && !memcmp(vk[1], zk->beta1, 96) && !memcmp(vk[2], zk->beta2, 192) &&
                      !memcmp(vk[3], zk->gamma2, 192) && !memcmp(vk[4], zk->delta1, 96) &&
                      !memcmp(vk[5], zk->delta2, 192),
                  "alpha, beta, gamma or delta differ (%s)", with_ptau ? "ptau" : "random");
        size_t nv = zk->n_vars, npub1 = (size_t)zk->n_public + 1;
        CHECK(pf.count[PARAMS_H] == zk->domain_size - 1);
        CHECK(pf.count[PARAMS_IC] == npub1 && pf.count[PARAMS_L] == nv - npub1);
        CHECK(pf.count[PARAMS_A] == finite_points(zk->a, nv, 96));
        CHECK(pf.count[PARAMS_B_G1] == finite_points(zk->b1, nv, 96));
        CHECK(pf.count[PARAMS_B_G2] == finite_points(zk->b2, nv, 192));
        CHECK(pf.count[PARAMS_A] >= npub1 && pf.count[PARAMS_A] < nv && pf.count[PARAMS_B_G1] == pf.count[PARAMS_B_G2]);
        params_close(&pf);
        if (with_ptau) {
            /* a file cut short after it was opened: its reads fail with a
             * message (a mapping would take SIGBUS) */
            char cut[1200];
            snprintf(cut, sizeof(cut), "%s/cut.params", tmpdir);
            size_t len = copy_file(pa_path, cut);
            CHECK(len > 0);
            CHECK_MSG(params_open(&pf, cut, &err) == CUZK_OK, "%s", err.message);
            CHECK(truncate(cut, (off_t)(len / 2)) == 0);
            int rc = params_check(&pf, 2, NULL, &err);
            CHECK_MSG(rc == CUZK_ERR_IO && strstr(err.message, "truncated"), "a file cut while open: %d %s", rc,
                      err.message);
            params_close(&pf);
            remove(cut);
        }
        /* both keys' proofs, r and s given, each checked with the pairing
         * by the prover (the .params one: density-filtered A and B, H's
         * quotient coefficients against tau^i Z(tau) / delta) */
        cuzk_zkey *pk;
        CHECK_MSG(cuzk_params_open(&pk, pa_path, r1cs, NULL, NULL, &err) == CUZK_OK, "%s", err.message);
        CHECK(pk->n_a == pf.count[PARAMS_A] && pk->n_b == pf.count[PARAMS_B_G1] && pk->n_h == zk->domain_size - 1);
        char wpath[1024];
        snprintf(wpath, sizeof(wpath), "%s/bls12381/poseidon3.wtns", fixtures);
        cuzk_wtns *w;
        CHECK(cuzk_wtns_open(&w, wpath, &err) == CUZK_OK);
        unsigned char r[32] = {0x11, 0x22, 3}, s[32] = {0x44, 5, 6, 7};
        cuzk_prove_options po = {.device = CUZK_DEVICE_CPU, .threads = 2};
        core_prove_out o1, o2;
        CHECK_MSG(engine_prove_with(zk, w, r, s, &po, &o1, NULL, &err) == CUZK_OK, "zkey proof: %s", err.message);
        CHECK_MSG(engine_prove_with(pk, w, r, s, &po, &o2, NULL, &err) == CUZK_OK, "params proof: %s", err.message);
        /* with r = s = 0 too (no blinding: the MSMs alone) */
        memset(r, 0, 32);
        memset(s, 0, 32);
        CHECK(engine_prove_with(zk, w, r, s, &po, &o1, NULL, &err) == CUZK_OK);
        CHECK(engine_prove_with(pk, w, r, s, &po, &o2, NULL, &err) == CUZK_OK);
        cuzk_wtns_free(w);
        cuzk_zkey_free(pk);
        /* the key of another circuit, and a circuit of the other curve */
        char other[1024];
        snprintf(other, sizeof(other), "%s/bls12381/mul1k.r1cs", fixtures);
        CHECK(cuzk_params_open(&pk, pa_path, other, NULL, NULL, &err) == CUZK_ERR_FORMAT &&
              strstr(err.message, "is not a key of") && strstr(err.message, "mul1k.r1cs"));
        snprintf(other, sizeof(other), "%s/bn128/poseidon3.r1cs", fixtures);
        CHECK(cuzk_params_open(&pk, pa_path, other, NULL, NULL, &err) == CUZK_ERR_FORMAT &&
              strstr(err.message, "BLS12-381"));
        CHECK(cuzk_params_open(&pk, zk_path, r1cs, NULL, NULL, &err) == CUZK_ERR_FORMAT);
        CHECK(cuzk_params_open(&pk, pa_path, NULL, NULL, NULL, &err) == CUZK_ERR_INVALID_ARGUMENT);
        cuzk_zkey_free(zk);
        unlink(zk_path);
        unlink(pa_path);
    }
    /* BN254: no .params key, and no file left */
    char bn[1024];
    snprintf(bn, sizeof(bn), "%s/bn128/poseidon3.r1cs", fixtures);
    cuzk_setup_options o = {.device = CUZK_DEVICE_CPU, .format = CUZK_KEY_PARAMS};
    CHECK(cuzk_setup(bn, NULL, pa_path, &o, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "BLS12-381"));
    CHECK(access(pa_path, F_OK) != 0);
    o.format = 7;
    CHECK(cuzk_setup(r1cs, NULL, pa_path, &o, &err) == CUZK_ERR_INVALID_ARGUMENT);
}

/* porep-shape's native form against its .r1cs of the same size: the same
 * rows (any range), the same witness in memory as in the .wtns file, the
 * same matrices and densities; and a .zkey's matrices (from its section 4)
 * equal to the circuit's entry for entry. */
static int same_matrices(const cs_matrices *x, const cs_matrices *y)
{
    if (x->rows != y->rows || x->n_vars != y->n_vars)
        return 0;
    for (int k = 0; k < 2; k++) {
        if (x->m[k].nnz != y->m[k].nnz ||
            memcmp(x->m[k].row_ptr, y->m[k].row_ptr, ((size_t)x->rows + 1) * 4) != 0 ||
            memcmp(x->m[k].col, y->m[k].col, (size_t)x->m[k].nnz * 4) != 0)
            return 0;
        for (uint64_t e = 0; e < x->m[k].nnz; e++)
            if (memcmp(x->table + 32 * (size_t)x->m[k].coef[e], y->table + 32 * (size_t)y->m[k].coef[e], 32) != 0)
                return 0;
    }
    return 1;
}

static void test_circuit_sources(const char *tmpdir)
{
    char dn[1100], dr[1100], path[1200], path2[1200];
    snprintf(dn, sizeof(dn), "%s/native", tmpdir);
    snprintf(dr, sizeof(dr), "%s/r1cs", tmpdir);
    cuzk_error err = {0};
    /* 2^14 + 1000: a last unit cut short */
    cuzk_porep_shape_options o = {.constraints = 17384, .partitions = 2, .seed = 9,
                                  .format = CUZK_POREP_FORMAT_NATIVE, .witness_files = 1};
    cuzk_porep_shape_info in_n, in_r;
    CHECK_MSG(cuzk_circuit_porep_shape(dn, &o, &in_n, &err) == CUZK_OK, "%s", err.message);
    /* a native description is read once its kind is registered: before,
     * refused as one of a kind this program does not know */
    circuit_source *sn, *sr;
    snprintf(path, sizeof(path), "%s/circuit.porep", dn);
    int rc0 = circuit_source_open(&sn, path, NULL, &err);
    CHECK_MSG(rc0 == CUZK_ERR_UNSUPPORTED && strstr(err.message, "does not know") &&
                  strstr(err.message, "\"cuzk circuit porep-shape\""),
              "rc %d: %s", rc0, err.message);
    CHECK(cuzk_testcircuits_register(&err) == CUZK_OK && cuzk_testcircuits_register(&err) == CUZK_OK);
    CHECK(circuit_kind_register("porep-shape", NULL, &err) == CUZK_ERR_INVALID_ARGUMENT);
    o.format = CUZK_POREP_FORMAT_R1CS;
    o.witness_files = 0;
    CHECK_MSG(cuzk_circuit_porep_shape(dr, &o, &in_r, &err) == CUZK_OK, "%s", err.message);
    CHECK(in_n.format == CUZK_POREP_FORMAT_NATIVE && in_r.format == CUZK_POREP_FORMAT_R1CS);
    CHECK(memcmp(in_n.nonzeros, in_r.nonzeros, sizeof(in_n.nonzeros)) == 0 && in_n.aux_in_a == in_r.aux_in_a &&
          in_n.aux_in_b == in_r.aux_in_b && in_n.witness_binary == in_r.witness_binary);
    CHECK_MSG(circuit_source_open(&sn, path, NULL, &err) == CUZK_OK, "%s", err.message);
    snprintf(path2, sizeof(path2), "%s/circuit.r1cs", dr);
    CHECK_MSG(circuit_source_open(&sr, path2, NULL, &err) == CUZK_OK, "%s", err.message);
    CHECK(circuit_source_r1cs(sn) == NULL && circuit_source_r1cs(sr) != NULL && sr->witness == NULL);
    CHECK(sn->n_wires == sr->n_wires && sn->n_public == sr->n_public && sn->n_constraints == sr->n_constraints);
    CHECK(sn->n_constraints == 17384 && sn->n_public == 327 && sn->partitions == 2 && sn->seed == 9);
    source_buf bn = {0}, br = {0};
    const uint32_t ranges[][2] = {{0, 17384}, {0, 1}, {1, 1}, {1023, 2}, {16383, 2}, {16384, 1000}, {5000, 12000},
                                  {17383, 1}};
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        CHECK(sn->rows(sn, ranges[i][0], ranges[i][1], &bn) == CUZK_OK);
        CHECK(sr->rows(sr, ranges[i][0], ranges[i][1], &br) == CUZK_OK);
        CHECK_MSG(bn.len == br.len && memcmp(bn.p, br.p, bn.len) == 0, "rows [%u, +%u): %zu and %zu bytes",
                  ranges[i][0], ranges[i][1], bn.len, br.len);
    }
    source_buf_free(&bn);
    source_buf_free(&br);
    /* the witness in memory, as the native form's .wtns files hold it */
    unsigned char *wv = malloc((size_t)sn->n_wires * 32);
    CHECK(wv != NULL);
    for (unsigned p = 0; p < 2; p++) {
        CHECK(sn->witness(sn, p, wv, 2, &err) == CUZK_OK);
        snprintf(path2, sizeof(path2), "%s/partition_%u.wtns", dn, p);
        cuzk_wtns *w;
        CHECK_MSG(cuzk_wtns_open(&w, path2, &err) == CUZK_OK, "%s", err.message);
        CHECK(w->n_witness == sn->n_wires && memcmp(w->values, wv, (size_t)sn->n_wires * 32) == 0);
        cuzk_wtns_free(w);
    }
    free(wv);
    /* the matrices: the same from both, on 1 and 3 threads */
    cs_matrices *mn, *mr, *m3;
    uint32_t *an, *bn_, *ar, *br_, na, nb, na2, nb2;
    CHECK(cs_matrices_from_source(&mn, sn, 1, &an, &na, &bn_, &nb, NULL, &err) == CUZK_OK);
    CHECK(cs_matrices_from_source(&mr, sr, 3, &ar, &na2, &br_, &nb2, NULL, &err) == CUZK_OK);
    CHECK(same_matrices(mn, mr) && mn->n_table == mr->n_table && memcmp(mn->table, mr->table, 32 * mn->n_table) == 0);
    CHECK(na == na2 && nb == nb2 && memcmp(an, ar, 4 * (size_t)na) == 0 && memcmp(bn_, br_, 4 * (size_t)nb) == 0);
    CHECK_MSG(mn->n_table == 160, "%u distinct coefficients", mn->n_table); /* A and B: 2^i, i < 160 */
    CHECK(mn->rows == 17384 + 328 && mn->m[0].nnz == in_n.nonzeros[0] + 328 && mn->m[1].nnz == in_n.nonzeros[1]);
    CHECK(na == 328 + in_n.aux_in_a && nb == in_n.aux_in_b + 1); /* B: the pack's constant one, wire 0 */
    /* a .zkey of the same circuit: its section 4 makes the same matrices */
    snprintf(path, sizeof(path), "%s/circuit.zkey", dn);
    snprintf(path2, sizeof(path2), "%s/circuit.porep", dn);
    cuzk_setup_options so = {.device = CUZK_DEVICE_CPU, .random = test_random_bytes};
    CHECK_MSG(cuzk_setup(path2, NULL, path, &so, &err) == CUZK_OK, "%s", err.message);
    cuzk_zkey *zk;
    CHECK(cuzk_zkey_open(&zk, path, &err) == CUZK_OK);
    uint64_t bad;
    CHECK(cs_matrices_from_coefs(&m3, CUZK_CURVE_BLS12_381, zk->coefs, zk->n_coefs, mn->rows, zk->n_vars, &bad) ==
          CUZK_OK);
    CHECK(same_matrices(mn, m3));
    /* an entry out of range is named */
    cs_matrices *mbad = NULL;
    CHECK(cs_matrices_from_coefs(&mbad, CUZK_CURVE_BLS12_381, zk->coefs, zk->n_coefs, mn->rows, 100, &bad) ==
              CUZK_ERR_FORMAT &&
          mbad == NULL && bad < zk->n_coefs);
    cuzk_zkey_free(zk);
    unlink(path);
    cs_matrices_free(mn);
    cs_matrices_free(mr);
    cs_matrices_free(m3);
    free(an), free(bn_), free(ar), free(br_);
    circuit_source_free(sn);
    circuit_source_free(sr);
    /* descriptions that are not one */
    static const char *bad_desc[][2] = {
        {"cuzk circuit porep-shape\nversion 1\nconstraints 4096\npartitions 1\n", "line 5"},
        {"cuzk circuit porep-shape\nversion 2\nconstraints 4096\npartitions 1\nseed 1\n", "version 2"},
        {"cuzk circuit porep-shape\nversion 1\nconstraints 4096\npartitions 1\nseed 1", "not ended by a newline"},
        {"cuzk circuit porep-shape\nversion 1\nconstraints x\npartitions 1\nseed 1\n", "line 3"},
        {"cuzk circuit porep-shape\nversion 1\nconstraints 100\npartitions 1\nseed 1\n", "at least 1024"},
        {"cuzk circuit porep-shape\nversion 1\nconstraints 4096\npartitions 0\nseed 1\n", "1 to 1000"},
        {"cuzk circuit porep-shape\nversion 1\nconstraints 4096\npartitions 5000000000\nseed 1\n", "1 to 1000"},
        {"cuzk circuit porep-shape\nversion 1\nconstraints 99999999999\npartitions 1\nseed 1\n", "at most"},
        {"cuzk circuit porep-shape\nversion 1\nconstraints 4096\npartitions 1\nseed 1\nmore\n", "bytes after"},
        {"cuzk circuit porep-shape\nseed 1\nconstraints 4096\npartitions 1\nversion 1\n", "line 2"},
        {"cuzk circuit porep-shapes\nversion 1\n", "does not know"},
        {"cuzk circuit porep-shape\rversion 1\n", "line 1"},
        {"not a circuit at all", "not a circuit"},
    };
    snprintf(path, sizeof(path), "%s/bad.porep", tmpdir);
    for (size_t i = 0; i < sizeof(bad_desc) / sizeof(bad_desc[0]); i++) {
        FILE *f = fopen(path, "wb");
        CHECK(f && fwrite(bad_desc[i][0], 1, strlen(bad_desc[i][0]), f) == strlen(bad_desc[i][0]) && fclose(f) == 0);
        circuit_source *s = NULL;
        int rc = circuit_source_open(&s, path, NULL, &err);
        CHECK_MSG(rc != CUZK_OK && s == NULL && strstr(err.message, bad_desc[i][1]) && strstr(err.message, path),
                  "case %zu: rc %d: %s", i, rc, err.message);
    }
    unlink(path);
    /* the directories' files */
    const char *files[] = {"native/circuit.porep", "native/partition_0.wtns", "native/partition_1.wtns",
                           "r1cs/circuit.r1cs", "r1cs/partition_0.wtns", "r1cs/partition_1.wtns"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(path, sizeof(path), "%s/%s", tmpdir, files[i]);
        unlink(path);
    }
    rmdir(dn);
    rmdir(dr);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    test_init("test_formats");
    test_blake2b();
    test_sha256();
    test_size_text();
    static const char *curves[2] = {"bn128", "bls12381"};
    char tmpdir[] = "/tmp/cuzk-test-formats-XXXXXX";
    CHECK(mkdtemp(tmpdir) != NULL);
    static const char *circuits[4] = {"tiny", "mul1k", "poseidon3", "sha256_256"};
    for (int c = 0; c < 2; c++) {
        for (int k = 0; k < 4; k++)
            test_verify(curves[c], circuits[k], circuits[(k + 1) % 4]);
        for (int k = 0; k < 3; k++)
            test_export_vk(curves[c], circuits[k]);
        test_bad_zkey(curves[c]);
        test_bad_wtns(curves[c]);
        test_bad_r1cs(curves[c]);
        test_writers(curves[c], tmpdir);
    }
    test_params_setup(tmpdir);
    test_circuit_sources(tmpdir);
    test_file_digest(tmpdir);
    rmdir(tmpdir);
    test_done("test_formats");
    return 0;
}
