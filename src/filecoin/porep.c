/* The PoRep's parameters and public values (porep.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/blake2b.h"
#include "../util/chacha.h"
#include "../util/error.h"
#include "../util/sha256.h"
#include "domain.h"
#include "graph.h"
#include "porep.h"

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

/* rust-fil-proofs' constants: 1 partition and 2 challenges below 32 GiB
 * (2 layers), 10 partitions of 18 challenges at 32 and 64 GiB (176
 * required, 11 layers); non-interactive: 13 x 2 and 126 x 18. Trees R and
 * C: 8-0-0 up to 512 MiB, 8-8-0 at 32 GiB, 8-8-2 at 64 GiB. */
#define SHAPES(V, ID, KIND, API10, SMALL_P, SMALL_C, BIG_P, BIG_C)                                                    \
    {"StackedDrg2KiB" V, "2KiB", ID + 0, 2 * KIB, SMALL_P, API10, KIND, {2 * KIB / 32, 2, SMALL_C, {8, 0, 0}}},        \
        {"StackedDrg8MiB" V, "8MiB", ID + 1, 8 * MIB, SMALL_P, API10, KIND, {8 * MIB / 32, 2, SMALL_C, {8, 0, 0}}},    \
        {"StackedDrg512MiB" V, "512MiB", ID + 2, 512 * MIB, SMALL_P, API10, KIND,                                      \
         {512 * MIB / 32, 2, SMALL_C, {8, 0, 0}}},                                                                     \
        {"StackedDrg32GiB" V, "32GiB", ID + 3, 32 * GIB, BIG_P, API10, KIND, {32 * GIB / 32, 11, BIG_C, {8, 8, 0}}},   \
        {"StackedDrg64GiB" V, "64GiB", ID + 4, 64 * GIB, BIG_P, API10, KIND, {64 * GIB / 32, 11, BIG_C, {8, 8, 2}}}

static const fc_porep_config configs[] = {
    SHAPES("V1", 0, FC_POREP_INTERACTIVE, 1, 1, 2, 10, 18),
    SHAPES("V1_1", 5, FC_POREP_INTERACTIVE, 0, 1, 2, 10, 18),
    SHAPES("V1_1_Feat_SyntheticPoRep", 10, FC_POREP_SYNTHETIC, 0, 1, 2, 10, 18),
    SHAPES("V1_2_Feat_NonInteractivePoRep", 15, FC_POREP_NON_INTERACTIVE, 0, 13, 2, 126, 18),
};
#define N_CONFIGS (sizeof configs / sizeof configs[0])

const fc_porep_config *fc_porep_configs(unsigned *n_out)
{
    *n_out = N_CONFIGS;
    return configs;
}

const fc_porep_config *fc_porep_config_by_name(const char *name)
{
    for (size_t i = 0; i < N_CONFIGS; i++)
        if (!strcmp(configs[i].name, name))
            return &configs[i];
    return NULL;
}

const fc_porep_config *fc_porep_config_by_id(uint64_t id)
{
    for (size_t i = 0; i < N_CONFIGS; i++)
        if (configs[i].id == id)
            return &configs[i];
    return NULL;
}

const fc_porep_config *fc_porep_config_for(uint64_t sector_size, int api_1_0, int kind)
{
    for (size_t i = 0; i < N_CONFIGS; i++)
        if (configs[i].sector_size == sector_size && configs[i].api_1_0 == api_1_0 && configs[i].kind == kind)
            return &configs[i];
    return NULL;
}

const fc_porep_config *fc_porep_config_by_size(const char *size)
{
    char *end;
    unsigned long long bytes = strtoull(size, &end, 10);
    for (size_t i = 0; i < N_CONFIGS; i++) {
        const fc_porep_config *c = &configs[i];
        if (c->id < 5 || c->id >= 10)
            continue; /* V1_1 */
        if (!strcasecmp(c->size_name, size) || (*size && !*end && bytes == c->sector_size))
            return c;
    }
    return NULL;
}

void fc_porep_id(const fc_porep_config *c, unsigned char out[32])
{
    memset(out, 0, 32);
    for (int i = 0; i < 8; i++)
        out[i] = (unsigned char)(c->id >> (8 * i));
}

void fc_replica_id(const unsigned char prover_id[32], uint64_t sector_id, const unsigned char ticket[32],
                   const unsigned char comm_d[32], const unsigned char porep_id[32], unsigned char out[32])
{
    unsigned char m[32 + 8 + 32 * 3];
    memcpy(m, prover_id, 32);
    for (int i = 0; i < 8; i++)
        m[32 + i] = (unsigned char)(sector_id >> (56 - 8 * i));
    memcpy(m + 40, ticket, 32);
    memcpy(m + 72, comm_d, 32);
    memcpy(m + 104, porep_id, 32);
    fc_sha256_trim(m, sizeof m, out);
}

/* a 256-bit little-endian value mod m (m below 2^32 * 2^32) */
static uint64_t mod_le256(const unsigned char d[32], uint64_t m)
{
    unsigned __int128 r = 0;
    for (int i = 31; i >= 0; i--)
        r = (r << 8 | d[i]) % m;
    return (uint64_t)r;
}

/* rust-fil-proofs' keys and nonce of the synthetic challenges' ChaCha20 */
static const char synth_gen_key[] = "filecoin.io|PoRep|1|Synthetic|1|Generation";
static const char synth_select_key[] = "filecoin.io|PoRep|1|Synthetic|1|Selection";
static const unsigned char synth_nonce[12] = "synth-porep";

/* ChaCha20 keyed by BLAKE2b-256 (keyed with `tag`) of a and b */
static void synth_prf(const char *tag, const unsigned char a[32], const unsigned char b[32], uint32_t key[8])
{
    unsigned char k[32];
    blake2b_state s;
    blake2b_init_key(&s, 32, tag, strlen(tag));
    blake2b_update(&s, a, 32);
    blake2b_update(&s, b, 32);
    blake2b_final(&s, k);
    chacha_key(k, key);
}

uint64_t fc_synth_count(uint64_t nodes)
{
    return nodes < FC_SYNTH_CHALLENGES ? nodes : FC_SYNTH_CHALLENGES;
}

uint64_t fc_synth_challenge(uint64_t nodes, const unsigned char replica_id[32], const unsigned char comm_r[32],
                            uint64_t i)
{
    uint32_t key[8];
    unsigned char r[32];
    synth_prf(synth_gen_key, replica_id, comm_r, key);
    chacha20_keystream(key, synth_nonce, i * 32, r, 32);
    return mod_le256(r, nodes - 1) + 1;
}

void fc_synth_indexes(const unsigned char replica_id[32], const unsigned char rand[32], uint64_t first, unsigned n,
                      uint64_t count, uint64_t *out)
{
    uint32_t key[8];
    unsigned char r[4];
    synth_prf(synth_select_key, replica_id, rand, key);
    for (unsigned i = 0; i < n; i++) {
        chacha20_keystream(key, synth_nonce, (first + i) * 4, r, 4);
        out[i] = ((uint64_t)r[0] | (uint64_t)r[1] << 8 | (uint64_t)r[2] << 16 | (uint64_t)r[3] << 24) % count;
    }
}

static void sha256_challenges(const sha256_state *prefix, uint64_t nodes, uint32_t first, unsigned n, uint64_t *out)
{
    for (unsigned i = 0; i < n; i++) {
        uint32_t j = first + i;
        unsigned char le[4] = {(unsigned char)j, (unsigned char)(j >> 8), (unsigned char)(j >> 16),
                               (unsigned char)(j >> 24)},
                      d[32];
        sha256_state s = *prefix;
        sha256_update(&s, le, 4);
        sha256_final(&s, d);
        out[i] = mod_le256(d, nodes - 1) + 1;
    }
}

int fc_porep_challenges(const fc_porep_config *c, const unsigned char replica_id[32], const unsigned char comm_r[32],
                        const unsigned char seed[32], unsigned k, uint64_t *out, cuzk_error *err)
{
    if (k >= c->partitions)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s: partition %u of %u", c->name, k, c->partitions);
    unsigned n = c->shape.challenges;
    uint64_t nodes = c->shape.nodes;
    sha256_state s;
    sha256_init(&s);
    switch (c->kind) {
    case FC_POREP_INTERACTIVE: /* SHA-256(replica_id, seed, j) */
        sha256_update(&s, replica_id, 32);
        sha256_update(&s, seed, 32);
        sha256_challenges(&s, nodes, k * n, n, out);
        break;
    case FC_POREP_NON_INTERACTIVE: /* SHA-256(tag, replica_id, comm_r, j): no seed */
        sha256_update(&s, "filecoin.io|PoRep|1|NonInteractive|1", 36);
        sha256_update(&s, replica_id, 32);
        sha256_update(&s, comm_r, 32);
        sha256_challenges(&s, nodes, k * n, n, out);
        break;
    default: { /* the seed selects among the synthetic challenges */
        uint64_t count = fc_synth_count(nodes);
        fc_synth_indexes(replica_id, seed, (uint64_t)k * n, n, count, out);
        for (unsigned i = 0; i < n; i++)
            out[i] = fc_synth_challenge(nodes, replica_id, comm_r, out[i]);
    }
    }
    return CUZK_OK;
}

int fc_porep_public_inputs(const fc_porep_config *c, const unsigned char porep_id[32], const unsigned char replica_id[32], const unsigned char comm_d[32],
                           const unsigned char comm_r[32], const unsigned char seed[32], unsigned k, fr *out,
                           cuzk_error *err)
{
    const unsigned char *v[3] = {replica_id, comm_d, comm_r};
    static const char *const names[3] = {"replica_id", "comm_d", "comm_r"};
    for (int i = 0; i < 3; i++)
        if (fc_domain_to_fr(v[i], &out[i]) != CUZK_OK)
            return cuzk_error_set(err, CUZK_ERR_NOT_CANONICAL, "%s is not below the field's modulus", names[i]);
    uint64_t *ch = calloc(c->shape.challenges, sizeof *ch);
    if (!ch)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    int rc = fc_porep_challenges(c, replica_id, comm_r, seed, k, ch, err);
    unsigned char own_id[32];
    if (!porep_id) {
        fc_porep_id(c, own_id);
        porep_id = own_id;
    }
    fc_graph g;
    fc_graph_init(&g, c->shape.nodes, porep_id, c->api_1_0);
    fr *o = out + 3;
    for (unsigned i = 0; i < c->shape.challenges && !rc; i++) {
        uint32_t p[14];
        fc_graph_drg_parents(&g, ch[i], p);
        fc_graph_exp_parents(&g, ch[i], p + 6);
        bls12_381_fr_from_u64(o++, ch[i]);
        for (int j = 0; j < 14; j++)
            bls12_381_fr_from_u64(o++, p[j]);
        for (int j = 0; j < 3; j++)
            bls12_381_fr_from_u64(o++, ch[i]);
    }
    free(ch);
    return rc;
}
