/* The SDR parent graph (graph.h). */
#include <string.h>

#include "../util/blake2b.h"
#include "../util/chacha.h"
#include "../util/sha256.h"
#include "graph.h"

/* SHA-256(dst || porep_id): derive_porep_domain_seed */
static void domain_seed(const char *dst, const unsigned char porep_id[32], unsigned char out[32])
{
    sha256_state s;
    sha256_init(&s);
    sha256_update(&s, dst, strlen(dst));
    sha256_update(&s, porep_id, 32);
    sha256_final(&s, out);
}

static uint64_t load_le64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

void fc_graph_init(fc_graph *g, uint64_t nodes, const unsigned char porep_id[32], int api_1_0)
{
    unsigned char seed[32];
    memset(g, 0, sizeof *g);
    g->nodes = nodes;
    g->api_1_0 = api_1_0;
    domain_seed("Filecoin_DRSample", porep_id, seed);
    memcpy(g->drg_seed, seed, 28);
    domain_seed("Filecoin_Feistel", porep_id, seed);
    for (int i = 0; i < 4; i++)
        g->feistel_keys[i] = load_le64(seed + 8 * i);
    uint64_t n = nodes * 8, pow4 = 4;
    unsigned log4 = 1;
    while (pow4 < n) {
        pow4 *= 4;
        log4++;
    }
    g->right_mask = (1ull << log4) - 1;
    g->left_mask = g->right_mask << log4;
    g->half_bits = log4;
}

/* ---- ChaCha8 (rand_chacha's ChaCha8Rng: a 32-byte seed as the key, a
 * 64-bit block counter from 0, stream 0), read as little-endian u64s ---- */

typedef struct chacha8 {
    uint32_t key[8];
    uint64_t counter;
    unsigned char block[64];
    unsigned used;
} chacha8;

static void chacha8_block(chacha8 *c)
{
    const uint32_t tail[4] = {(uint32_t)c->counter, (uint32_t)(c->counter >> 32), 0, 0};
    chacha_block(c->key, tail, 8, c->block);
    c->counter++;
    c->used = 0;
}

static uint64_t chacha8_u64(chacha8 *c)
{
    if (c->used == 64)
        chacha8_block(c);
    uint64_t v = load_le64(c->block + c->used);
    c->used += 8;
    return v;
}

void fc_graph_drg_parents(const fc_graph *g, uint64_t node, uint32_t out[6])
{
    if (node < 2) {
        memset(out, 0, 6 * sizeof *out);
        return;
    }
    unsigned char seed[32];
    memcpy(seed, g->drg_seed, 28);
    for (int i = 0; i < 4; i++)
        seed[28 + i] = (unsigned char)(node >> (8 * i));
    chacha8 c = {.used = 64};
    chacha_key(seed, c.key);
    /* the metagraph of 5 copies of each node; ceil(log2(5 node)) buckets */
    uint64_t meta = node * 5, n_buckets = 64 - (uint64_t)__builtin_clzll(meta - 1);
    uint32_t *others = g->api_1_0 ? out : out + 1;
    for (int k = 0; k < 5; k++) {
        uint64_t bucket = chacha8_u64(&c) % n_buckets + 1;
        uint64_t largest = meta < (1ull << bucket) ? meta : 1ull << bucket;
        uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
        uint64_t dist = smallest + chacha8_u64(&c) % (largest - smallest + 1);
        uint32_t p = (uint32_t)((meta - dist) / 5);
        others[k] = p == node ? (uint32_t)node - 1 : p;
    }
    out[g->api_1_0 ? 5 : 0] = (uint32_t)node - 1;
}

/* the round function: BLAKE2b-512 of the right half and the key, both
 * big-endian; its first 8 bytes big-endian, masked */
static uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t mask)
{
    unsigned char in[16], h[64];
    for (int i = 0; i < 8; i++) {
        in[i] = (unsigned char)(right >> (56 - 8 * i));
        in[8 + i] = (unsigned char)(key >> (56 - 8 * i));
    }
    blake2b_state s;
    blake2b_init(&s, 64);
    blake2b_update(&s, in, sizeof in);
    blake2b_final(&s, h);
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | h[i];
    return v & mask;
}

static uint64_t feistel_encode(const fc_graph *g, uint64_t x)
{
    uint64_t left = (x & g->left_mask) >> g->half_bits, right = x & g->right_mask;
    for (int r = 0; r < 3; r++) {
        uint64_t l = right;
        right = left ^ feistel_round(right, g->feistel_keys[r], g->right_mask);
        left = l;
    }
    return left << g->half_bits | right;
}

void fc_graph_exp_parents(const fc_graph *g, uint64_t node, uint32_t out[8])
{
    uint64_t n = g->nodes * 8;
    for (uint64_t i = 0; i < 8; i++) {
        uint64_t u = feistel_encode(g, node * 8 + i);
        while (u >= n) /* cycle-walking into the domain */
            u = feistel_encode(g, u);
        out[i] = g->api_1_0 ? (uint32_t)u / 8 : (uint32_t)(u / 8);
    }
}
