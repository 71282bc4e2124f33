/* The constraint-system builder and bellpepper's gadgets (src/cs/):
 * bellpepper's own counts (25,840 constraints a SHA-256 block of
 * allocated bits, 44,874 for a padded 512-bit message, none for constant
 * bits), digests against the plain SHA-256 for random messages of every
 * length bellpepper's test takes, each Boolean operation over every kind
 * of operand, and for each circuit the three backends against each
 * other: the witness backend's assignment equals the recording one's and
 * satisfies the recorded R1CS, the counting backend's shape equals the
 * recorded one's, and a changed value is caught. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/cs/num.h"
#include "../src/cs/sha256.h"
#include "../src/util/sha256.h"
#include "test_util.h"
#include "cs_check.h"

/* bits of bytes, each byte's most significant bit first */
static void bytes_to_bits(const unsigned char *in, size_t n, int *bits)
{
    for (size_t i = 0; i < 8 * n; i++)
        bits[i] = in[i / 8] >> (7 - i % 8) & 1;
}

typedef struct sha_ctx {
    const unsigned char *msg;
    size_t len;
    int block_only; /* one compression from the IV, no padding (64 bytes) */
    int constant;   /* the message as constant bits */
    unsigned char digest[32];
} sha_ctx;

static void sha_circuit(cs_system *cs, void *p)
{
    sha_ctx *c = p;
    int *bits = malloc(8 * c->len * sizeof *bits + 1);
    cs_bool *in = malloc(8 * c->len * sizeof *in + 1), out[256];
    CHECK(bits && in);
    bytes_to_bits(c->msg, c->len, bits);
    for (size_t i = 0; i < 8 * c->len; i++)
        in[i] = c->constant ? cs_bool_const(bits[i]) : cs_bit_alloc(cs, bits[i]);
    if (c->block_only)
        cs_sha256_block_no_padding(cs, in, out);
    else
        cs_sha256(cs, in, 8 * c->len, out);
    memset(c->digest, 0, 32);
    for (int i = 0; i < 256; i++)
        c->digest[i / 8] |= (unsigned char)(out[i].value << (7 - i % 8));
    free(bits);
    free(in);
}

static void test_sha256(void)
{
    test_context = "SHA-256";
    unsigned char msg[256], want[32];
    for (size_t i = 0; i < sizeof msg; i++)
        msg[i] = (unsigned char)test_rand64();

    /* one block of allocated bits: bellpepper's test_full_block */
    sha_ctx c = {.msg = msg, .len = 64, .block_only = 1};
    cs_shape s = build_all(sha_circuit, &c);
    CHECK_MSG(s.constraints - 512 == 25840, "%llu", (unsigned long long)(s.constraints - 512));
    uint32_t h[8];
    memcpy(h, sha256_iv, sizeof h);
    sha256_compress(h, msg);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++)
            want[4 * i + j] = (unsigned char)(h[i] >> (24 - 8 * j));
    CHECK(memcmp(c.digest, want, 32) == 0);

    /* 512 allocated bits padded: bellpepper's test_full_hash */
    c = (sha_ctx){.msg = msg, .len = 64};
    s = build_all(sha_circuit, &c);
    CHECK_MSG(s.constraints - 512 == 44874, "%llu", (unsigned long long)(s.constraints - 512));

    /* constant bits: no constraint (bellpepper's test_blank_hash digest) */
    static const unsigned char blank[32] = {0xe3, 0xb0, 0xc4, 0x42, 0x98, 0xfc, 0x1c, 0x14, 0x9a, 0xfb, 0xf4,
                                            0xc8, 0x99, 0x6f, 0xb9, 0x24, 0x27, 0xae, 0x41, 0xe4, 0x64, 0x9b,
                                            0x93, 0x4c, 0xa4, 0x95, 0x99, 0x1b, 0x78, 0x52, 0xb8, 0x55};
    c = (sha_ctx){.msg = msg, .len = 0, .constant = 1};
    s = build_all(sha_circuit, &c);
    CHECK(s.constraints == 0 && s.aux == 0);
    CHECK(memcmp(c.digest, blank, 32) == 0);

    /* every length of bellpepper's test_against_vectors: 0..31 bytes,
     * then multiples of 8 up to 248 (a few of them: each is a build in
     * three backends) */
    for (size_t len = 0; len < 256; len += len < 32 ? 1 : 8) {
        if (len >= 32 && test_rand64() % 4)
            continue;
        c = (sha_ctx){.msg = msg, .len = len};
        build_all(sha_circuit, &c);
        sha256_state st;
        sha256_init(&st);
        sha256_update(&st, msg, len);
        sha256_final(&st, want);
        CHECK_MSG(memcmp(c.digest, want, 32) == 0, "a digest of %zu bytes differs", len);
    }
}

/* Booleans: each operation over operands of every kind (constant 0 and
 * 1, an allocated bit, a negated one, of each value), its value and the
 * variables it allocates */
typedef struct bool_ctx {
    int kind[3], val[3];
    int op;
    int value;
    uint64_t aux_made;
} bool_ctx;

static cs_bool make_operand(cs_system *cs, int kind, int val)
{
    if (kind == 0)
        return cs_bool_const(val);
    cs_bool b = cs_bit_alloc(cs, kind == 1 ? val : !val);
    return kind == 1 ? b : cs_bool_not(b);
}

static void bool_circuit(cs_system *cs, void *p)
{
    bool_ctx *c = p;
    cs_bool x[3];
    for (int i = 0; i < 3; i++)
        x[i] = make_operand(cs, c->kind[i], c->val[i]);
    uint64_t before = cs->n_aux;
    cs_bool r;
    switch (c->op) {
    case 0: r = cs_bool_xor(cs, x[0], x[1]); break;
    case 1: r = cs_bool_and(cs, x[0], x[1]); break;
    case 2: r = cs_bool_or(cs, x[0], x[1]); break;
    case 3: r = cs_bool_sha256_ch(cs, x[0], x[1], x[2]); break;
    default: r = cs_bool_sha256_maj(cs, x[0], x[1], x[2]); break;
    }
    c->aux_made = cs->n_aux - before;
    c->value = r.value;
    /* the result is what it says it is: enforce it equal to its value */
    cs_bool_enforce_equal(cs, r, cs_bool_const(r.value));
}

static void test_booleans(void)
{
    test_context = "Boolean operations";
    for (int op = 0; op < 5; op++)
        for (int k = 0; k < 64 * 8; k++) {
            bool_ctx c = {.op = op};
            int n_const = 0;
            for (int i = 0; i < 3; i++) {
                c.kind[i] = (k >> (2 * i)) & 3;
                if (c.kind[i] == 3)
                    c.kind[i] = 1;
                c.val[i] = k >> (6 + i) & 1;
            }
            (void)n_const;
            build_all(bool_circuit, &c);
            int a = c.val[0], b = c.val[1], d = c.val[2], want;
            switch (op) {
            case 0: want = a ^ b; break;
            case 1: want = a & b; break;
            case 2: want = a | b; break;
            case 3: want = (a & b) ^ ((a ^ 1) & d); break;
            default: want = (a & b) ^ (a & d) ^ (b & d); break;
            }
            CHECK_MSG(c.value == want, "op %d kinds %d %d %d values %d %d %d: %d", op, c.kind[0], c.kind[1],
                      c.kind[2], a, b, d, c.value);
            /* all constant operands: nothing allocated */
            int used = op < 3 ? 2 : 3, all_const = 1;
            for (int i = 0; i < used; i++)
                all_const &= c.kind[i] == 0;
            if (all_const)
                CHECK(c.aux_made == 0);
        }
}

/* numbers: bits and back, packing into inputs, sums and products,
 * conditional reversal */
typedef struct num_ctx {
    fr x, y;
    int cond;
} num_ctx;

static void num_circuit(cs_system *cs, void *p)
{
    num_ctx *c = p;
    cs_num x = cs_num_alloc(cs, &c->x), y = cs_num_alloc(cs, &c->y);
    cs_bool bits[255];
    cs_num_to_bits_le(cs, &x, bits);
    cs_pack_into_inputs(cs, bits, 255); /* two inputs: 254 bits and 1 */
    cs_num packed = cs_pack_bits(cs, bits, 255);
    (void)packed;
    cs_num s = cs_num_add(cs, &x, &y), m = cs_num_mul(cs, &x, &y), q = cs_num_square(cs, &s);
    cs_num_inputize(cs, &q);
    cs_num r0, r1;
    cs_num_conditionally_reverse(cs, &m, &y, cs_bit_alloc(cs, c->cond), &r0, &r1);
    CHECK(bls12_381_fr_eq(&r0.value, c->cond ? &y.value : &m.value));
    cs_num_enforce_equal(cs, &x, &x);
}

static void test_numbers(void)
{
    test_context = "numbers and packing";
    for (int k = 0; k < 8; k++) {
        num_ctx c = {.cond = k & 1};
        unsigned char b[32];
        for (int i = 0; i < 32; i++)
            b[i] = (unsigned char)test_rand64();
        b[31] &= 0x3f;
        if (k == 2)
            memset(b, 0, 32); /* zero */
        CHECK(bls12_381_fr_from_bytes_le(&c.x, b) == CUZK_OK);
        bls12_381_fr_from_u64(&c.y, test_rand64());
        if (k == 3) /* r - 1: every bit the field allows */
            c.x = cs_fr_minus_one;
        cs_shape s = build_all(num_circuit, &c);
        /* ONE, two packed inputs, the inputized square */
        CHECK(s.inputs == 4);
        CHECK(s.constraints == 255 + 1 + 2 + 1 + 3 + 1 + 1 + 2 + 1);
    }
}

int main(void)
{
    test_init("test_cs");
    test_booleans();
    test_numbers();
    test_sha256();
    test_done("test_cs");
    return 0;
}
