/* Filecoin's PoRep circuit on the GPU against the CPU (skips where there is
 * no GPU): a 2 KiB sector sealed in memory and a sparse one, partition 0's
 * witness synthesized from each, a .params key of the circuit's native form
 * set up from a seeded source, and each witness proved on the GPU and on
 * the CPU with the same blinding: the proofs' bytes equal, each verified
 * (cuzk_prove's own check) with the public inputs a verifier derives. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../src/filecoin/porep.h"
#include "../src/filecoin/seal.h"
#include "../src/filecoin/stacked_source.h"
#include "../src/formats/wtns.h"
#include "../src/groth16/params_key.h"
#include "../src/util/clock.h"
#include "../src/util/file.h"
#include "test_util.h"

static struct cuzk_wtns *partition_witness(const fc_sealed *s, const unsigned char seed[32])
{
    cuzk_error err;
    fc_stacked_partition part;
    unsigned char *values, *wv;
    uint64_t n;
    CHECK_MSG(fc_sealed_partition(s, seed, 0, &part, &err) == CUZK_OK, "%s", err.message);
    CHECK_MSG(fc_stacked_witness(&part, 0, &values, &n, &err) == CUZK_OK, "%s", err.message);
    fc_stacked_free(&part);
    struct cuzk_wtns *w;
    CHECK(wtns_alloc(&w, curve_by_id(CUZK_CURVE_BLS12_381), (uint32_t)n, "partition 0", &wv, &err) == CUZK_OK);
    memcpy(wv, values, n * 32);
    free(values);
    return w;
}

int main(void)
{
    test_init("test_filecoin_gpu");
    int gpus = 0;
    if (cuzk_gpu_count(&gpus) != CUZK_OK || gpus == 0) {
        printf("test_filecoin_gpu: no GPU, skipped\n");
        return 77;
    }
    const fc_porep_config *c = fc_porep_config_by_size("2KiB");
    cuzk_error err;
    char dir[] = "/tmp/cuzk-filecoin-gpu-XXXXXX", desc_path[64], key_path[64], desc[256];
    CHECK(mkdtemp(dir));
    snprintf(desc_path, sizeof desc_path, "%s/circuit.stacked", dir);
    snprintf(key_path, sizeof key_path, "%s/key.params", dir);
    fc_stacked_description(c->name, &c->shape, desc, sizeof desc);
    CHECK(write_file_atomic(desc_path, desc, strlen(desc), &err) == CUZK_OK);
    double t = cuzk_now();
    cuzk_setup_options so = {.format = CUZK_KEY_PARAMS, .random = test_random_bytes};
    CHECK_MSG(cuzk_setup(desc_path, NULL, key_path, &so, &err) == CUZK_OK, "setup: %s", err.message);
    printf("test_filecoin_gpu: the %s key set up in %.1f s\n", c->name, cuzk_now() - t);
    circuit_source *src;
    cuzk_zkey *zk;
    CHECK(fc_stacked_source_make(&src, c->name, &c->shape, &err) == CUZK_OK);
    CHECK_MSG(params_key_open_source(&zk, key_path, src, NULL, NULL, NULL, &err) == CUZK_OK, "%s", err.message);

    unsigned char prover[32], ticket[32], seed[32];
    test_rand_bytes(prover, 32);
    test_rand_bytes(ticket, 32);
    test_rand_bytes(seed, 32);
    prover[31] = ticket[31] = seed[31] = 0;
    for (int sparse = 0; sparse < 2; sparse++) {
        test_context = sparse ? "a sparse 2 KiB sector" : "a sealed 2 KiB sector";
        fc_sealed s;
        unsigned char(*data)[32] = NULL;
        if (sparse)
            CHECK(fc_seal_sparse(c, prover, 9, ticket, seed, &s, &err) == CUZK_OK);
        else {
            data = malloc(c->shape.nodes * 32);
            CHECK(data);
            for (uint64_t i = 0; i < c->shape.nodes * 32; i++)
                ((unsigned char *)data)[i] = (unsigned char)(i % 32 == 31 ? test_rand64() & 0x3f : test_rand64());
            CHECK(fc_seal(c, (const unsigned char(*)[32])data, prover, 9, ticket, &s, &err) == CUZK_OK);
        }
        struct cuzk_wtns *w = partition_witness(&s, seed);
        char *proof[2], *pub[2];
        const uint64_t draw = atomic_load(&test_random_counter);
        for (int dev = 0; dev < 2; dev++) {
            atomic_store(&test_random_counter, draw); /* the same blinding on both devices */
            cuzk_prove_options po = {.device = dev ? CUZK_DEVICE_GPU : CUZK_DEVICE_CPU, .random = test_random_bytes};
            t = cuzk_now();
            CHECK_MSG(cuzk_prove(zk, w, &po, &proof[dev], &pub[dev], NULL, &err) == CUZK_OK, "%s: %s",
                      dev ? "GPU" : "CPU", err.message);
            printf("test_filecoin_gpu: %s, proved on the %s in %.2f s\n", test_context, dev ? "GPU" : "CPU",
                   cuzk_now() - t);
        }
        CHECK_MSG(!strcmp(proof[0], proof[1]), "the GPU's proof differs from the CPU's:\n%s\n%s", proof[1], proof[0]);
        CHECK(!strcmp(pub[0], pub[1]));
        /* the inputs the proof is of: the verifier's */
        fr in[3 + 18 * 2];
        CHECK(fc_porep_public_inputs(c, NULL, s.replica_id, s.comm_d, s.comm_r, seed, 0, in, &err) == CUZK_OK);
        char dec[100];
        bls12_381_fr_to_decimal(dec, sizeof dec, &in[3 + 18 * 2 - 1]);
        CHECK_MSG(strstr(pub[0], dec) != NULL, "public.json lacks the last input %s", dec);
        for (int dev = 0; dev < 2; dev++) {
            cuzk_free(proof[dev]);
            cuzk_free(pub[dev]);
        }
        cuzk_wtns_free(w);
        fc_sealed_free(&s);
        free(data);
    }
    cuzk_zkey_free(zk);
    unlink(key_path);
    unlink(desc_path);
    rmdir(dir);
    test_done("test_filecoin_gpu");
    return 0;
}
