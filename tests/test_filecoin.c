/* Filecoin's hashing and gadgets (src/filecoin/) against the numbers of
 * neptune and rust-fil-proofs: Poseidon's known answers (neptune's
 * hash_values for arities 2, 4, 8, 11, 16, 24, 36; rust-fil-proofs'
 * Merkle node and root over [1, 0, 0, 1]), the optimized hash against the
 * plain permutation for random inputs, and the circuit's constraint count
 * (neptune's and rust-fil-proofs': 311, 377, 505, 598) and output;
 * create_label (532,025), the Merkle inclusion circuits (por_circuit.rs)
 * and the PoRep circuit (stacked_circuit.rs) at rust-fil-proofs' counts,
 * and the 32 GiB partition's shape at the real circuit's numbers; the
 * challenges (ChaCha20 and keyed BLAKE2b against their standards, the
 * synthetic ones against rust-fil-proofs' hard-coded answers); a real
 * 32 GiB sector's WindowPoSt paths against its comm_r. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../src/filecoin/c1.h"
#include "../src/filecoin/domain.h"
#include "../src/filecoin/gadgets.h"
#include "../src/filecoin/graph.h"
#include "../src/filecoin/por.h"
#include "../src/filecoin/porep.h"
#include "../src/filecoin/post_vproof.h"
#include "../src/filecoin/record.h"
#include "../src/filecoin/seal.h"
#include "../src/filecoin/stacked.h"
#include "../src/filecoin/stacked_source.h"
#include "../src/util/base64.h"
#include "../src/filecoin/poseidon.h"
#include "../src/util/blake2b.h"
#include "../src/util/chacha.h"
#include "../src/util/sha256.h"
#include "test_util.h"
#include "cs_check.h"

/* a canonical value from its four little-endian limbs */
static fr from_limbs(const uint64_t l[4])
{
    fr r;
    bls12_381_fr_from_raw(&r, l);
    return r;
}

static void check_fr(const fr *got, const uint64_t want[4], const char *what)
{
    limb_t g[4];
    bls12_381_fr_to_raw(g, got);
    CHECK_MSG(memcmp(g, want, sizeof g) == 0, "%s: %016llx%016llx%016llx%016llx", what, (unsigned long long)g[3],
              (unsigned long long)g[2], (unsigned long long)g[1], (unsigned long long)g[0]);
}

static void test_poseidon_known_answers(void)
{
    test_context = "Poseidon known answers (neptune hash_values)";
    static const struct {
        unsigned arity;
        uint64_t want[4];
    } kat[] = {
        {2, {0x2e203c369a02e7ffull, 0xa6fba9339d05a69dull, 0x739e0fd902efe161ull, 0x396508d75e76a56bull}},
        {4, {0x019814ff6662075dull, 0xfb6b4605bf1327ecull, 0x00db3c6579229399ull, 0x58a54b10a9e5848aull}},
        {8, {0x2a9934f56d38a5e6ull, 0x4b682e9d9cc4aed9ull, 0x1201004211677077ull, 0x2394611da3a5de55ull}},
        {11, {0xcee3bbc32b693163ull, 0x09f3dcd8ccb08fc1ull, 0x6ca537e232ebe87aull, 0x0c0fc1b2e5227f28ull}},
        {16, {0x1291c74060266d37ull, 0x5b8dbc6d30680a6full, 0xc1c2fb5a6f871e63ull, 0x2d3ae2663381ae8aull}},
        {24, {0xd7ef3569f585b321ull, 0xc3e779f6468815b1ull, 0x066f39bf783f3d9full, 0x63beb8831f11ae15ull}},
        {36, {0x4473606dfa4e8140ull, 0x75cd368df8a8ac3cull, 0x540a30e03c10bbaaull, 0x699303082a6e5d5full}},
    };
    for (size_t k = 0; k < sizeof kat / sizeof kat[0]; k++) {
        const poseidon_consts *c = poseidon_merkle(kat[k].arity);
        CHECK(c && poseidon_arity(c) == kat[k].arity);
        fr in[36], out, plain;
        for (unsigned i = 0; i < kat[k].arity; i++) /* 0, 1, ..., arity - 1 */
            bls12_381_fr_from_u64(&in[i], i);
        poseidon_hash(c, in, &out);
        char what[64];
        snprintf(what, sizeof what, "arity %u", kat[k].arity);
        check_fr(&out, kat[k].want, what);
        poseidon_hash_plain(c, in, &plain);
        check_fr(&plain, kat[k].want, what);
    }
    CHECK(poseidon_merkle(3) == NULL && poseidon_merkle(0) == NULL);

    /* rust-fil-proofs' test_poseidon_hasher: a binary tree over [1, 0, 0, 1] */
    test_context = "Poseidon known answers (rust-fil-proofs Merkle tree)";
    static const uint64_t node10[4] = {0xb339ff6079800b5eull, 0xec5907b3dc3094afull, 0x93c003cc74a24f26ull,
                                       0x042f94ffbe786bc3ull};
    static const uint64_t root[4] = {0xefbb8be3e291e671ull, 0x77cc72b8cb2b5ad2ull, 0x30eb6385ae6b74aeull,
                                     0x1effebb7b26ad9ebull};
    const poseidon_consts *c2 = poseidon_merkle(2);
    fr leaf[4], n[2], r;
    for (int i = 0; i < 4; i++)
        bls12_381_fr_from_u64(&leaf[i], i == 0 || i == 3);
    poseidon_hash(c2, leaf, &n[0]);
    check_fr(&n[0], node10, "node(1, 0)");
    poseidon_hash(c2, leaf + 2, &n[1]);
    poseidon_hash(c2, n, &r);
    check_fr(&r, root, "root");
}

static fr random_fr(void)
{
    uint64_t l[4];
    for (int i = 0; i < 4; i++)
        l[i] = test_rand64();
    l[3] &= 0x3fffffffffffffffull; /* below 2^254 < r */
    return from_limbs(l);
}

static void test_poseidon_random(void)
{
    test_context = "Poseidon: the optimized hash against the plain permutation";
    static const unsigned arities[] = {2, 4, 8, 11, 16, 24, 36};
    for (size_t k = 0; k < sizeof arities / sizeof arities[0]; k++) {
        const poseidon_consts *c = poseidon_merkle(arities[k]);
        for (long it = 0; it < 8; it++) {
            fr in[36], a, b;
            for (unsigned i = 0; i < arities[k]; i++)
                in[i] = random_fr();
            if (it == 0) /* the largest value */
                for (unsigned i = 0; i < arities[k]; i++)
                    in[i] = cs_fr_minus_one;
            poseidon_hash(c, in, &a);
            poseidon_hash_plain(c, in, &b);
            CHECK(bls12_381_fr_eq(&a, &b));
        }
    }
}

typedef struct pos_ctx {
    const poseidon_consts *c;
    fr in[36], out;
    uint64_t constraints;
} pos_ctx;

static void poseidon_circuit_fn(cs_system *cs, void *p)
{
    pos_ctx *x = p;
    cs_num in[36];
    for (unsigned i = 0; i < poseidon_arity(x->c); i++)
        in[i] = cs_num_alloc(cs, &x->in[i]);
    uint64_t before = cs->n_constraints;
    cs_num out = poseidon_circuit(cs, x->c, in);
    x->constraints = cs->n_constraints - before;
    x->out = out.value;
}

static void test_poseidon_circuit(void)
{
    test_context = "Poseidon circuit (neptune's legacy circuit)";
    static const struct {
        unsigned arity;
        uint64_t constraints;
    } want[] = {{2, 311}, {4, 377}, {8, 505}, {11, 598}};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        pos_ctx x = {.c = poseidon_merkle(want[k].arity)};
        for (long it = 0; it < 2; it++) {
            for (unsigned i = 0; i < want[k].arity; i++)
                x.in[i] = random_fr();
            cs_shape s = build_all(poseidon_circuit_fn, &x);
            CHECK_MSG(x.constraints == want[k].constraints, "arity %u: %llu constraints", want[k].arity,
                      (unsigned long long)x.constraints);
            /* one aux variable a constraint, past the inputs */
            CHECK(s.aux == want[k].arity + want[k].constraints);
            fr native;
            poseidon_hash(x.c, x.in, &native);
            CHECK(bls12_381_fr_eq(&native, &x.out));
        }
    }
}

/* create_label as rust-fil-proofs' test builds it: the replica id and 37
 * parents' labels allocated as bits, the layer and node constant */
typedef struct label_ctx {
    unsigned char id[32], parents[FC_TOTAL_PARENTS][32];
    uint32_t layer;
    uint64_t node;
    fr out;
} label_ctx;

static void label_circuit(cs_system *cs, void *p)
{
    label_ctx *x = p;
    cs_bool *bits = malloc((1 + FC_TOTAL_PARENTS) * 256 * sizeof *bits);
    const cs_bool *parents[FC_TOTAL_PARENTS];
    CHECK(bits);
    for (int i = 0; i < FC_TOTAL_PARENTS; i++) {
        fc_bytes_to_bits_be(cs, x->parents[i], 32, bits + 256 * (1 + i));
        parents[i] = bits + 256 * (1 + i);
    }
    fc_bytes_to_bits_be(cs, x->id, 32, bits);
    cs_u32 layer = cs_u32_const(x->layer);
    fc_u64 node = fc_u64_const(x->node);
    x->out = fc_create_label(cs, bits, 256, parents, &layer, &node).value;
    free(bits);
}

static void test_create_label(void)
{
    test_context = "create_label (rust-fil-proofs' test: 532,025 constraints)";
    for (long it = 0; it < 2; it++) {
        label_ctx x;
        for (int i = 0; i < 32; i++)
            x.id[i] = (unsigned char)test_rand64();
        x.id[31] &= 0x3f;
        for (int p = 0; p < FC_TOTAL_PARENTS; p++)
            for (int i = 0; i < 32; i++)
                x.parents[p][i] = (unsigned char)(i == 31 ? test_rand64() & 0x3f : test_rand64());
        x.layer = 1 + (uint32_t)(test_rand64() % 11);
        x.node = 1 + test_rand64() % (1ull << 30);
        cs_shape s = build_all(label_circuit, &x);
        CHECK_MSG(s.constraints == 532025, "%llu", (unsigned long long)s.constraints);
        /* the label as the sealing computes it: SHA-256 of the id, the layer
         * and node big-endian, 20 zero bytes and the parents, the digest's
         * top two bits cleared, read little-endian */
        unsigned char hdr[32] = {0}, d[32];
        for (int i = 0; i < 4; i++)
            hdr[i] = (unsigned char)(x.layer >> (24 - 8 * i));
        for (int i = 0; i < 8; i++)
            hdr[4 + i] = (unsigned char)(x.node >> (56 - 8 * i));
        sha256_state st;
        sha256_init(&st);
        sha256_update(&st, x.id, 32);
        sha256_update(&st, hdr, 32);
        sha256_update(&st, x.parents, sizeof x.parents);
        sha256_final(&st, d);
        d[31] &= 0x3f;
        fr want;
        CHECK(bls12_381_fr_from_bytes_le(&want, d) == CUZK_OK);
        CHECK(bls12_381_fr_eq(&want, &x.out));
    }
}

/* por_circuit.rs: a leaf's inclusion with the leaf and root allocated
 * and the root public (inputs: ONE, the path's bits, the root) */
typedef struct por_ctx {
    int tree;
    fc_path path;
    fr leaf;
} por_ctx;

static void por_circuit(cs_system *cs, void *p)
{
    por_ctx *x = p;
    cs_num leaf = cs_num_alloc(cs, &x->leaf);
    fc_por(cs, x->tree, &x->path, &leaf, NULL, 1);
}

static void test_por(void)
{
    test_context = "Merkle inclusion circuits (rust-fil-proofs' por_circuit.rs counts)";
    static const struct {
        int tree;
        unsigned arity[4], levels[4]; /* base, sub, top */
        uint64_t constraints;
    } want[] = {
        {FC_TREE_POSEIDON, {2}, {6}, 1887},          {FC_TREE_POSEIDON, {4}, {3}, 1164},
        {FC_TREE_POSEIDON, {8}, {2}, 1063},          {FC_TREE_POSEIDON, {8, 2}, {2, 1}, 1377},
        {FC_TREE_POSEIDON, {8, 8}, {2, 1}, 1593},    {FC_TREE_POSEIDON, {8, 8, 2}, {2, 1, 1}, 1907},
        {FC_TREE_POSEIDON, {8, 4, 2}, {2, 1, 1}, 1764}, {FC_TREE_POSEIDON, {8, 2, 4}, {2, 1, 1}, 1764},
        {FC_TREE_SHA256, {2}, {6}, 272295},          {FC_TREE_SHA256, {8}, {2}, 250987},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        por_ctx x = {.tree = want[k].tree};
        cuzk_error err;
        unsigned char sib[7][32];
        for (int s = 0; s < 4 && want[k].levels[s]; s++)
            for (unsigned l = 0; l < want[k].levels[s]; l++) {
                for (int i = 0; i < 7; i++) {
                    fr v = random_fr();
                    fc_fr_to_domain(&v, sib[i]);
                }
                unsigned a = want[k].arity[s];
                CHECK(fc_path_push(&x.path, a, (unsigned)(test_rand64() % a), (const unsigned char(*)[32])sib, &err) ==
                      CUZK_OK);
            }
        x.leaf = random_fr();
        fc_fr_to_domain(&x.leaf, x.path.leaf);
        CHECK(fc_path_root(&x.path, x.tree, x.path.root, &err) == CUZK_OK);
        cs_shape s = build_all(por_circuit, &x);
        CHECK_MSG(s.inputs == 3 && s.constraints == want[k].constraints, "case %zu: %llu inputs, %llu constraints", k,
                  (unsigned long long)s.inputs, (unsigned long long)s.constraints);
        /* a wrong root is not satisfiable: the recording's check says so */
        cs_system rec;
        CHECK(cs_init(&rec, CS_RECORD, 1, &err) == CUZK_OK);
        x.path.root[0] ^= 1;
        por_circuit(&rec, &x);
        CHECK(!cs_failed(&rec) && cs_first_unsatisfied(&rec) >= 0);
        cs_free(&rec);
        fc_path_free(&x.path);
    }
}

/* the shape of a partition's circuit, counted (its structure is its
 * shape's alone: a blank partition's) */
static cs_shape count_stacked(const fc_porep_shape *shape)
{
    fc_stacked_partition p;
    cuzk_error err;
    CHECK_MSG(fc_stacked_blank(shape, &p, &err) == CUZK_OK, "%s", err.message);
    cs_system cs;
    CHECK(cs_init(&cs, CS_COUNT, 0, &err) == CUZK_OK);
    fc_stacked_circuit(&cs, &p);
    CHECK_MSG(!cs_failed(&cs), "%s", cs.err.message);
    cs_shape out;
    cs_shape_get(&cs, &out);
    cs_free(&cs);
    fc_stacked_free(&p);
    return out;
}

/* rust-fil-proofs' stacked_circuit.rs: 8 nodes a base tree, 2 layers, one
 * challenge */
static void test_stacked_counts(void)
{
    test_context = "the PoRep circuit's counts (rust-fil-proofs' stacked_circuit.rs)";
    static const struct {
        fc_porep_shape shape;
        uint64_t constraints;
    } want[] = {
        {{8, 2, 1, {2, 0, 0}}, 1206212},
        {{8, 2, 1, {8, 0, 0}}, 1199620},
        {{32, 2, 1, {8, 4, 0}}, 1296576},
        {{64, 2, 1, {8, 4, 2}}, 1346982},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        cs_shape s = count_stacked(&want[k].shape);
        CHECK_MSG(s.inputs == 22 && s.constraints == want[k].constraints, "case %zu: %llu inputs, %llu constraints",
                  k, (unsigned long long)s.inputs, (unsigned long long)s.constraints);
    }
}

/* The 32 GiB sector's partition, counted (not proved): the numbers of
 * Curio's documentation of the real circuit (its constraints and A's
 * nonzeros count bellperson's 328 input constraints, input_i * 0 = 0) */
/* CUZK_TEST_LIGHT=1 (make asan-test): the work of minutes left out (the
 * 32 GiB count, the 8 MiB graph); make test runs it. The 2 KiB sector's
 * proof: tests/test_porep.sh, through cuzk porep c2 */
static int light(const char *what)
{
    const char *v = getenv("CUZK_TEST_LIGHT");
    if (v && *v && strcmp(v, "0")) {
        printf("test_filecoin: %s skipped (CUZK_TEST_LIGHT)\n", what);
        return 1;
    }
    return 0;
}

static void test_stacked_32gib_shape(void)
{
    if (light("the 32 GiB partition's count"))
        return;
    test_context = "the 32 GiB PoRep partition's shape (Curio's numbers)";
    fc_porep_shape shape = {1ull << 30, 11, 18, {8, 8, 0}};
    cs_shape s = count_stacked(&shape);
    CHECK_MSG(s.inputs == 328 && s.aux == 130169893 && s.constraints + s.inputs == 130278869,
              "%llu inputs, %llu aux, %llu constraints", (unsigned long long)s.inputs, (unsigned long long)s.aux,
              (unsigned long long)s.constraints);
    CHECK_MSG(s.a_aux_popcount == 129753292 && s.b_aux_popcount == 33112281 && s.b_inp_popcount == 1,
              "popcounts %llu %llu %llu", (unsigned long long)s.a_aux_popcount,
              (unsigned long long)s.b_aux_popcount, (unsigned long long)s.b_inp_popcount);
    /* nonzeros, as documented to 0.1 M: A 309.4 M, B 130.3 M, C 282.7 M */
    uint64_t a = s.nnz[0] + s.inputs, b = s.nnz[1], c = s.nnz[2];
    CHECK_MSG((a + 50000) / 100000 == 3094 && (b + 50000) / 100000 == 1303 && (c + 50000) / 100000 == 2827,
              "nonzeros %llu %llu %llu", (unsigned long long)a, (unsigned long long)b, (unsigned long long)c);
}

/* The parent graph against rust-fil-proofs' parent_cache.json: the SHA-256
 * of a sector size's parent cache (each node's 6 DRG then 8 expander
 * parents, u32 little-endian) for the porep ids of API 1.0 and 1.1 */
/* The primitives under the synthetic challenges against independent
 * answers (RFC 8439's ChaCha20 block, Python's hashlib for keyed BLAKE2b),
 * then the challenges against rust-fil-proofs' hard-coded ones
 * (challenges.rs: test_synth_challenges_against_hardcoded: 2^10 nodes,
 * replica_id 55, comm_r 101, 21 synthetic challenges, the seed all ones). */
static void test_challenges(void)
{
    test_context = "challenges: ChaCha20, keyed BLAKE2b, synthetic";
    uint32_t key[8];
    unsigned char kb[32], nonce[12] = {0, 0, 0, 9, 0, 0, 0, 0x4a, 0, 0, 0, 0}, block[80];
    for (int i = 0; i < 32; i++)
        kb[i] = (unsigned char)i;
    chacha_key(kb, key);
    /* RFC 8439 2.3.2: the block of counter 1, from byte 64; read across a
     * block edge from byte 60 too */
    static const unsigned char rfc[16] = {0x10, 0xf1, 0xe7, 0xe4, 0xd1, 0x3b, 0x59, 0x15,
                                          0x50, 0x0f, 0xdd, 0x1f, 0xa3, 0x20, 0x71, 0xc4};
    chacha20_keystream(key, nonce, 64, block, 16);
    CHECK_MSG(memcmp(block, rfc, 16) == 0, "ChaCha20 block 1 starts %02x%02x%02x%02x", block[0], block[1], block[2],
              block[3]);
    chacha20_keystream(key, nonce, 60, block, 20);
    CHECK_MSG(memcmp(block + 4, rfc, 16) == 0, "ChaCha20 read across a block's end");
    static const struct {
        const char *key, *msg;
        size_t keylen, msglen, outlen;
        const char *hex;
    } b2[] = {{NULL, "", 64, 0, 64,
               "10ebb67700b1868efb4417987acf4690ae9d972fb7a590c2f02871799aaa4786b5e996e8f0f4eb981fc214b005f42d2ff4233499"
               "391653df7aefcbc13fc51568"},
              {"filecoin.io|PoRep|1|Synthetic|1|Generation", "abc", 42, 3, 32,
               "c056a993cb14f420c9f202c2ff6ba1f64c30ba65763f910f34cbaa1f00bcc103"},
              {"k", NULL, 1, 200, 32, "480acfe451872c68c30edce7f8507adc64e8b4f90e97ffd0d5669a8217f4e6a4"}};
    for (size_t t = 0; t < sizeof b2 / sizeof b2[0]; t++) {
        unsigned char k[64], m[200], out[64];
        char hex[129];
        for (size_t i = 0; i < sizeof k; i++)
            k[i] = b2[t].key ? (unsigned char)b2[t].key[i % b2[t].keylen] : (unsigned char)i;
        for (size_t i = 0; i < sizeof m; i++)
            m[i] = b2[t].msg ? 0 : (unsigned char)i;
        blake2b_state st;
        blake2b_init_key(&st, b2[t].outlen, k, b2[t].keylen);
        blake2b_update(&st, b2[t].msg ? (const unsigned char *)b2[t].msg : m, b2[t].msglen);
        blake2b_final(&st, out);
        for (size_t i = 0; i < b2[t].outlen; i++)
            snprintf(hex + 2 * i, 3, "%02x", out[i]);
        CHECK_MSG(!strcmp(hex, b2[t].hex), "keyed BLAKE2b %zu: %s", t, hex);
    }
    static const uint64_t synth[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                       801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    unsigned char replica_id[32] = {55}, comm_r[32] = {101}, seed[32];
    memset(seed, 1, sizeof seed);
    for (uint64_t i = 0; i < 21; i++) {
        uint64_t c = fc_synth_challenge(1 << 10, replica_id, comm_r, i);
        CHECK_MSG(c == synth[i], "synthetic challenge %llu: %llu, rust-fil-proofs %llu", (unsigned long long)i,
                  (unsigned long long)c, (unsigned long long)synth[i]);
    }
    uint64_t idx[10];
    fc_synth_indexes(replica_id, seed, 0, 10, 21, idx);
    for (int i = 0; i < 10; i++) {
        uint64_t c = fc_synth_challenge(1 << 10, replica_id, comm_r, idx[i]);
        CHECK_MSG(c == porep[i], "porep challenge %d: %llu, rust-fil-proofs %llu", i, (unsigned long long)c,
                  (unsigned long long)porep[i]);
    }
    /* a partition's challenges are the run's slice (challenge_partition_equivalence) */
    fc_synth_indexes(replica_id, seed, 4, 3, 21, idx);
    uint64_t all[10];
    fc_synth_indexes(replica_id, seed, 0, 10, 21, all);
    CHECK_MSG(!memcmp(idx, all + 4, 3 * sizeof *idx), "synthetic indexes from 4 differ from the run's");
}

static void test_parent_graph(void)
{
    test_context = "the SDR parent graph (rust-fil-proofs' parent cache digests)";
    static const struct {
        uint64_t nodes;
        uint8_t id_v1, id_v11;
        const char *digest[2]; /* the manifest's two of the size, in either order */
    } want[] = {
        {64, 0, 5, {"3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
                    "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"}},
        {1u << 18, 1, 6, {"03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
                          "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"}},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        if (want[k].nodes > 64 && light("the 8 MiB parent graph"))
            continue;
        char got[2][65];
        for (int v = 0; v < 2; v++) {
            unsigned char porep_id[32] = {0}, d[32], entry[56];
            porep_id[0] = v ? want[k].id_v11 : want[k].id_v1;
            fc_graph g;
            fc_graph_init(&g, want[k].nodes, porep_id, !v);
            sha256_state st;
            sha256_init(&st);
            for (uint64_t n = 0; n < want[k].nodes; n++) {
                uint32_t p[14];
                fc_graph_drg_parents(&g, n, p);
                fc_graph_exp_parents(&g, n, p + 6);
                for (int i = 0; i < 56; i++)
                    entry[i] = (unsigned char)(p[i / 4] >> (8 * (i % 4)));
                sha256_update(&st, entry, sizeof entry);
            }
            sha256_final(&st, d);
            for (int i = 0; i < 32; i++)
                snprintf(got[v] + 2 * i, 3, "%02x", d[i]);
        }
        int ok = (!strcmp(got[0], want[k].digest[0]) && !strcmp(got[1], want[k].digest[1])) ||
                 (!strcmp(got[0], want[k].digest[1]) && !strcmp(got[1], want[k].digest[0]));
        CHECK_MSG(ok, "%llu nodes: %s and %s", (unsigned long long)want[k].nodes, got[0], got[1]);
    }
}

/* A 2 KiB sector sealed here (PC1, PC2, C1): its partition's circuit is
 * satisfied in the recording backend, the witness backend gives the same
 * assignment, and the public inputs the circuit exposes are those a
 * verifier derives from replica_id, comm_d, comm_r and the seed */
typedef struct sealed_ctx {
    fc_stacked_partition part;
} sealed_ctx;

static void sealed_circuit(cs_system *cs, void *p)
{
    fc_stacked_circuit(cs, &((sealed_ctx *)p)->part);
}

/* reads text as a C1 output and checks it: the error code, its message
 * containing `what` */
static int c1_refused(const char *text, size_t len, const char *what)
{
    fc_c1 c;
    cuzk_error err;
    int rc = fc_c1_read(text, len, "c1.json", &c, &err);
    if (rc == CUZK_OK) {
        rc = fc_c1_check(&c, &err);
        fc_c1_free(&c);
    }
    CHECK_MSG(rc != CUZK_OK && strstr(err.message, what), "wanted an error with \"%s\", got %d: %s", what, rc,
              err.message);
    return rc;
}

/* a byte's number in the JSON text changed by one in its last digit
 * (still a byte) */
static void flip_number(char *q)
{
    while (q[1] >= '0' && q[1] <= '9')
        q++;
    *q ^= 1;
}

/* The sealed sector's C1 output written, read back and checked; its
 * partition's witness equals the sealing's; Curio's wrapper of it reads
 * the same; a changed label, sibling, seed, or a cut file is refused with
 * the field named */
static void test_c1(const fc_sealed *s, const unsigned char seed[32], const fc_stacked_partition *want)
{
    test_context = "a 2 KiB sector's C1 output";
    char *text;
    size_t len;
    FILE *f = open_memstream(&text, &len);
    cuzk_error err;
    CHECK(f && fc_c1_write(f, s, seed, &err) == CUZK_OK);
    fclose(f);
    CHECK(!strncmp(text, "{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[",
                   60));
    fc_c1 c;
    CHECK_MSG(fc_c1_read(text, len, "c1.json", &c, &err) == CUZK_OK, "%s", err.message);
    CHECK_MSG(fc_c1_check(&c, &err) == CUZK_OK, "%s", err.message);
    fc_stacked_partition part;
    CHECK_MSG(fc_c1_partition(&c, 0, &part, &err) == CUZK_OK, "%s", err.message);
    unsigned char *a, *b;
    uint64_t na, nb;
    CHECK(fc_stacked_witness(&part, 1, &a, &na, &err) == CUZK_OK && fc_stacked_witness(want, 3, &b, &nb, &err) == CUZK_OK);
    CHECK(na == nb && memcmp(a, b, na * 32) == 0);
    free(a);
    free(b);
    fc_stacked_free(&part);
    fc_c1_free(&c);

    /* Curio's wrapper */
    char *wrapped = malloc(base64_len(len) + 100);
    CHECK(wrapped);
    size_t wl = (size_t)sprintf(wrapped, "{\"SectorNum\":7,\"Phase1Out\":\"");
    wl += base64_encode((const unsigned char *)text, len, wrapped + wl);
    wl += (size_t)sprintf(wrapped + wl, "\",\"SectorSize\":2048}");
    CHECK_MSG(fc_c1_read(wrapped, wl, "wrapped", &c, &err) == CUZK_OK, "%s", err.message);
    CHECK(fc_c1_check(&c, &err) == CUZK_OK);
    fc_c1_free(&c);
    memcpy(wrapped + wl - 5, "4096}", 5);
    c1_refused(wrapped, wl, "SectorSize 4096");
    free(wrapped);

    /* a labeling proof's parent changed by one: its label no longer
     * matches the column */
    char *t = malloc(len + 1);
    CHECK(t);
    memcpy(t, text, len + 1);
    char *q = strstr(t, "\"labeling_proofs\":[{\"parents\":[[");
    CHECK(q);
    q += strlen("\"labeling_proofs\":[{\"parents\":[[");
    flip_number(q);
    c1_refused(t, len, "labeling_proofs[0].parents[0]");
    /* a sibling in tree D */
    memcpy(t, text, len + 1);
    q = strstr(t, "\"hashes\":[[") + strlen("\"hashes\":[[");
    flip_number(q);
    c1_refused(t, len, "comm_d_proofs");
    /* another seed: other challenges */
    memcpy(t, text, len + 1);
    q = strstr(t, "\"seed\":[") + strlen("\"seed\":[");
    flip_number(q);
    c1_refused(t, len, "the seed challenges node");
    /* cut short, and not a number where a byte goes */
    c1_refused(text, len / 2, "byte");
    memcpy(t, text, len + 1);
    q = strstr(t, "\"comm_r\":[") + strlen("\"comm_r\":[");
    *q = 'x';
    c1_refused(t, len, "comm_r");
    free(t);
    free(text);
}

static void test_seal_2kib(void)
{
    test_context = "a 2 KiB sector sealed, its partition's circuit";
    const fc_porep_config *c = fc_porep_config_by_size("2KiB");
    CHECK(c && c->id == 5 && !strcmp(c->name, "StackedDrg2KiBV1_1"));
    unsigned char(*data)[32] = malloc(c->shape.nodes * 32), prover[32], ticket[32], seed[32];
    CHECK(data);
    for (uint64_t i = 0; i < c->shape.nodes; i++)
        for (int b = 0; b < 32; b++)
            data[i][b] = (unsigned char)(b == 31 ? test_rand64() & 0x3f : test_rand64());
    test_rand_bytes(prover, 32);
    test_rand_bytes(ticket, 32);
    test_rand_bytes(seed, 32);
    fc_sealed s;
    cuzk_error err;
    CHECK_MSG(fc_seal(c, (const unsigned char(*)[32])data, prover, 1234, ticket, &s, &err) == CUZK_OK, "%s",
              err.message);
    sealed_ctx x;
    CHECK_MSG(fc_sealed_partition(&s, seed, 0, &x.part, &err) == CUZK_OK, "%s", err.message);
    cs_shape sh = build_all(sealed_circuit, &x);
    CHECK(sh.inputs == 4 + 18 * c->shape.challenges);

    /* the inputs the circuit made (witness backend) against the verifier's */
    cs_system w;
    CHECK(cs_init(&w, CS_WITNESS, 0, &err) == CUZK_OK);
    fc_stacked_circuit(&w, &x.part);
    fr pub[4 + 18 * 2];
    CHECK_MSG(fc_porep_public_inputs(c, NULL, s.replica_id, s.comm_d, s.comm_r, seed, 0, pub, &err) == CUZK_OK, "%s",
              err.message);
    CHECK(w.n_input == 1 + 3 + 18 * c->shape.challenges);
    for (uint64_t i = 0; i + 1 < w.n_input; i++)
        CHECK_MSG(bls12_381_fr_eq(&w.input[i + 1], &pub[i]), "input %llu", (unsigned long long)i + 1);
    /* the witness made in parts on threads: the same values, in order */
    unsigned char *par;
    uint64_t n_par;
    CHECK_MSG(fc_stacked_witness(&x.part, 4, &par, &n_par, &err) == CUZK_OK, "%s", err.message);
    CHECK(n_par == w.n_input + w.n_aux);
    for (uint64_t i = 0; i < n_par; i++) {
        unsigned char b[32];
        bls12_381_fr_to_bytes_le(b, i < w.n_input ? &w.input[i] : &w.aux[i - w.n_input]);
        if (memcmp(b, par + 32 * i, 32)) {
            CHECK_MSG(0, "the witness made in parts differs at value %llu of %llu", (unsigned long long)i,
                      (unsigned long long)n_par);
            break;
        }
    }
    free(par);
    cs_free(&w);

    test_c1(&s, seed, &x.part);

    /* a label changed: the circuit is no longer satisfied */
    cs_system r;
    CHECK(cs_init(&r, CS_RECORD, 1, &err) == CUZK_OK);
    bls12_381_fr_add(&x.part.proofs[1].drg[2].rows[0], &x.part.proofs[1].drg[2].rows[0], &cs_fr_one);
    fc_stacked_circuit(&r, &x.part);
    CHECK(!cs_failed(&r) && cs_first_unsatisfied(&r) >= 0);
    cs_free(&r);
    fc_stacked_free(&x.part);
    fc_sealed_free(&s);
    free(data);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static unsigned char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK_MSG(f != NULL, "cannot open %s", path);
    unsigned char *b = malloc(1 << 20);
    CHECK(b);
    *len = fread(b, 1, 1 << 20, f);
    fclose(f);
    return b;
}

/* A real 32 GiB sector (Curio's golden WindowPoSt vanilla proof): its
 * paths, with our Poseidon and tree code, lead to its comm_r_last; comm_c
 * and comm_r_last hash to its comm_r, which is the SealedCID of its
 * public values; each path's leaf is the challenge the randomness gives */
/* Sparse sectors (fc_seal_sparse): at 2 KiB and 8 MiB, partition 0's
 * witness satisfies the recorded circuit and its inputs are the
 * verifier's; at every size, the C1 output written passes every check
 * when read back and gives the same partition witness; the sector's data
 * is the empty sector's (comm_d of zeros). A synthetic proof is refused. */
static void test_seal_sparse(void)
{
    test_context = "sparse sectors";
    static const char *const sizes[] = {"2KiB", "8MiB", "32GiB"};
    unsigned char prover[32], ticket[32], seed[32];
    test_rand_bytes(prover, 32);
    test_rand_bytes(ticket, 32);
    test_rand_bytes(seed, 32);
    prover[31] = ticket[31] = seed[31] = 0;
    cuzk_error err;
    for (int z = 0; z < 3; z++) {
        const fc_porep_config *c = fc_porep_config_by_size(sizes[z]);
        if (c->sector_size > (8u << 20) && light("the 32 GiB sparse sector"))
            continue;
        fc_sealed s;
        double t0 = now_s();
        CHECK_MSG(fc_seal_sparse(c, prover, 77, ticket, seed, &s, &err) == CUZK_OK, "%s: %s", sizes[z], err.message);
        /* tree D of zero data, as a full seal of zeros would make it */
        fc_path pd;
        CHECK(fc_tree_path(&s.tree_d, 1, &pd, &err) == CUZK_OK);
        unsigned char root[32];
        CHECK(fc_path_root(&pd, FC_TREE_SHA256, root, &err) == CUZK_OK && !memcmp(root, s.comm_d, 32));
        for (int b = 0; b < 32; b++)
            CHECK(pd.leaf[b] == 0);
        fc_path_free(&pd);
        sealed_ctx x;
        CHECK_MSG(fc_sealed_partition(&s, seed, 0, &x.part, &err) == CUZK_OK, "%s", err.message);
        if (c->sector_size <= (8u << 20)) {
            cs_shape sh = build_all(sealed_circuit, &x);
            CHECK(sh.inputs == 4 + 18 * c->shape.challenges);
        }
        char *text;
        size_t len;
        FILE *f = open_memstream(&text, &len);
        CHECK(f && fc_c1_write(f, &s, seed, &err) == CUZK_OK);
        fclose(f);
        fc_c1 c1;
        CHECK_MSG(fc_c1_read(text, len, "c1.json", &c1, &err) == CUZK_OK, "%s: %s", sizes[z], err.message);
        CHECK_MSG(fc_c1_check(&c1, &err) == CUZK_OK, "%s: %s", sizes[z], err.message);
        fc_stacked_partition part;
        CHECK_MSG(fc_c1_partition(&c1, c1.partitions - 1, &part, &err) == CUZK_OK, "%s", err.message);
        fc_stacked_free(&part);
        printf("test_filecoin: a sparse %s sector and its C1 output (%.1f MB) in %.1f s\n", sizes[z], len / 1e6,
               now_s() - t0);
        fc_c1_free(&c1);
        free(text);
        fc_stacked_free(&x.part);
        fc_sealed_free(&s);
    }
    fc_sealed s;
    CHECK(fc_seal_sparse(fc_porep_config_by_name("StackedDrg2KiBV1_1_Feat_SyntheticPoRep"), prover, 1, ticket, seed,
                         &s, &err) == CUZK_ERR_UNSUPPORTED &&
          strstr(err.message, "interactive proofs only"));
}

static void test_real_post_vproof(const char *dir)
{
    test_context = "a real 32 GiB sector's WindowPoSt vanilla proof";
    char path[4096];
    size_t len, plen;
    snprintf(path, sizeof path, "%s/window-post-32gib.vproof", dir);
    unsigned char *b = read_all(path, &len);
    snprintf(path, sizeof path, "%s/window-post-32gib.public.json", dir);
    char *pub = (char *)read_all(path, &plen);
    pub[plen < (1 << 20) ? plen : plen - 1] = 0;
    fc_post_sector_proof p;
    cuzk_error err;
    CHECK_MSG(fc_post_vproof_read(b, len, &p, &err) == CUZK_OK, "%s", err.message);
    CHECK(p.sector_id == 1 && p.n_paths == 10);

    /* the SealedCID of the public values is the proof's comm_r */
    const char *cid = strstr(pub, "\"/\":\"");
    CHECK(cid);
    char cidbuf[128];
    CHECK(sscanf(cid + 5, "%127[a-z0-9]", cidbuf) == 1);
    unsigned char comm_r[32];
    CHECK_MSG(fc_commitment_from_cid(cidbuf, FC_COMM_SEALED, comm_r, &err) == CUZK_OK, "%s", err.message);
    CHECK(memcmp(comm_r, p.comm_r, 32) == 0);
    CHECK(fc_commitment_from_cid(cidbuf, FC_COMM_UNSEALED, comm_r, &err) == CUZK_ERR_FORMAT);

    /* comm_r = Poseidon2(comm_c, comm_r_last) */
    fr in[2], h;
    CHECK(fc_domain_to_fr(p.comm_c, &in[0]) == CUZK_OK && fc_domain_to_fr(p.comm_r_last, &in[1]) == CUZK_OK);
    poseidon_hash(poseidon_merkle(2), in, &h);
    unsigned char hb[32];
    fc_fr_to_domain(&h, hb);
    CHECK(memcmp(hb, p.comm_r, 32) == 0);

    for (unsigned i = 0; i < p.n_paths; i++) {
        unsigned char root[32];
        CHECK(p.paths[i].n == 10); /* 9 base levels and the sub level: tree 8-8-0 */
        CHECK_MSG(fc_path_root(&p.paths[i], FC_TREE_POSEIDON, root, &err) == CUZK_OK, "%s", err.message);
        CHECK(memcmp(root, p.comm_r_last, 32) == 0 && memcmp(p.paths[i].root, p.comm_r_last, 32) == 0);
        /* the challenge: SHA-256(randomness, sector id, n) read little-endian,
         * mod the sector's 2^30 nodes */
        unsigned char m[48] = {0}, d[32];
        m[32] = 1; /* sector id 1 */
        m[40] = (unsigned char)i;
        sha256_state st;
        sha256_init(&st);
        sha256_update(&st, m, sizeof m);
        sha256_final(&st, d);
        uint64_t c = 0;
        for (int k = 7; k >= 0; k--)
            c = c << 8 | d[k];
        CHECK_MSG(fc_path_index(&p.paths[i]) == c % (1ull << 30), "path %u: leaf %llu", i,
                  (unsigned long long)fc_path_index(&p.paths[i]));
        /* a changed sibling leads elsewhere */
        p.paths[i].sib[test_rand64() % p.paths[i].n_sib][0] ^= 1;
        CHECK(fc_path_root(&p.paths[i], FC_TREE_POSEIDON, root, &err) == CUZK_OK);
        CHECK(memcmp(root, p.comm_r_last, 32) != 0);
    }
    fc_post_vproof_free(&p);

    /* cut short or with bytes past its end: refused, naming where */
    for (size_t cut = 0; cut < len; cut += 1 + test_rand64() % 997) {
        CHECK(fc_post_vproof_read(b, cut, &p, &err) == CUZK_ERR_FORMAT);
        CHECK(strstr(err.message, "byte") != NULL);
    }
    unsigned char *longer = malloc(len + 1);
    CHECK(longer);
    memcpy(longer, b, len);
    longer[len] = 0;
    CHECK(fc_post_vproof_read(longer, len + 1, &p, &err) == CUZK_ERR_FORMAT);
    free(longer);
    free(b);
    free(pub);
}

/* rust-fil-proofs' seal regression records (tests/filecoin/update.sh: the
 * first of each kind): each read as the registered proof its porep_config
 * names, written back byte for byte as serde_json wrote it; the porep_id
 * of each real interactive one is its proof's number (ours); a
 * non-interactive one's aggregated proof refused by name. */
static void test_real_seal_records(const char *dir)
{
    test_context = "rust-fil-proofs' seal regression records";
    static const char *const want[] = {
        "StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1", "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
        "StackedDrg512MiBV1_1", "StackedDrg512MiBV1", "StackedDrg8MiBV1", "StackedDrg8MiBV1_1", "StackedDrg8MiBV1_1",
        "StackedDrg8MiBV1_1_Feat_SyntheticPoRep", "StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1",
        "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep", "StackedDrg512MiBV1_1",
        "StackedDrg512MiBV1_1_Feat_SyntheticPoRep", "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
        "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", "StackedDrg32GiBV1_1_Feat_SyntheticPoRep"};
    char path[4096];
    size_t len;
    snprintf(path, sizeof path, "%s/seal-records.jsonl", dir);
    char *text = (char *)read_all(path, &len);
    size_t n = 0, real_ids = 0;
    for (char *line = text, *end; line < text + len; line = end + 1, n++) {
        end = memchr(line, '\n', (size_t)(text + len - line));
        if (!end)
            end = text + len;
        fc_record r;
        cuzk_error err;
        CHECK_MSG(fc_record_read(line, (size_t)(end - line), "a record", &r, &err) == CUZK_OK, "record %zu: %s", n,
                  err.message);
        if (!r.config)
            continue;
        CHECK_MSG(n < sizeof want / sizeof want[0] && !strcmp(r.config->name, want[n]), "record %zu: %s", n,
                  r.config->name);
        char *out = NULL;
        size_t olen = 0;
        FILE *f = open_memstream(&out, &olen);
        fc_record_write(f, &r);
        fclose(f);
        CHECK_MSG(olen == (size_t)(end - line) + 1 && !memcmp(out, line, olen - 1), "record %zu written back: %.120s",
                  n, out);
        free(out);
        unsigned char id[32];
        fc_porep_id(r.config, id);
        if (r.config->kind == FC_POREP_INTERACTIVE && r.porep_id[1] == 0) { /* not a test's arbitrary id */
            CHECK_MSG(!memcmp(id, r.porep_id, 32), "record %zu: porep_id %u, %s is %llu", n, r.porep_id[0],
                      r.config->name, (unsigned long long)r.config->id);
            real_ids++;
        }
        if (r.config->kind == FC_POREP_NON_INTERACTIVE) {
            params_vk none = {0};
            CHECK_MSG(fc_seal_verify(&r, &none, "a record", &err) == CUZK_ERR_UNSUPPORTED &&
                          strstr(err.message, "aggregated"),
                      "record %zu: a non-interactive proof not refused", n);
        }
        fc_record_free(&r);
    }
    CHECK_MSG(n == sizeof want / sizeof want[0] && real_ids == 7, "%zu records, %zu with real porep ids", n, real_ids);
    free(text);
}

int main(int argc, char **argv)
{
    test_init("test_filecoin");
    if (argc != 2) {
        fprintf(stderr, "usage: test_filecoin tests/filecoin\n");
        return 2;
    }
    /* each part's time: the slow ones are left out by CUZK_TEST_LIGHT */
    struct {
        const char *name;
        void (*fn)(void);
    } parts[] = {{"Poseidon known answers", test_poseidon_known_answers},
                 {"challenges", test_challenges},
                 {"Poseidon random", test_poseidon_random},
                 {"Poseidon circuit", test_poseidon_circuit},
                 {"create_label", test_create_label},
                 {"parent graph", test_parent_graph},
                 {"Merkle inclusion", test_por},
                 {"stacked counts", test_stacked_counts},
                 {"2 KiB sealed, its C1 output", test_seal_2kib},
                 {"sparse sectors", test_seal_sparse},
                 {"32 GiB shape", test_stacked_32gib_shape}};
    double t = now_s();
    test_real_post_vproof(argv[1]);
    test_real_seal_records(argv[1]);
    printf("test_filecoin: real WindowPoSt vanilla proof %.1f s\n", now_s() - t);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        t = now_s();
        parts[i].fn();
        printf("test_filecoin: %s %.1f s\n", parts[i].name, now_s() - t);
        fflush(stdout);
    }
    test_done("test_filecoin");
    return 0;
}
