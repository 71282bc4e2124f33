/* The engine's device-memory plan on a GPU (skips where there is none).
 *
 * 1. With the default budget, two keys' proofs run on GPU 0; the stats
 *    give each key's resident bytes and the working memory the pool keeps.
 * 2. A budget that holds one key and a proof but not both keys: proofs of
 *    the two keys alternate, every one completes on the GPU and verifies,
 *    and the plan drops the idle key's copy to make room (plan_drops > 0)
 *    without ever counting more than the budget.
 * 3. A budget too small for any key: with device auto every proof
 *    completes on the CPU and says why; with device gpu every one fails
 *    with a message naming the budget.
 * 4. Pre-staging: with room, proofs upload their witness outside the
 *    compute lock; with room for proofs but not for a staged witness
 *    beside a running one, none does, and all still run on the GPU.
 * 5. The streamed path: a budget one byte short of a 2^16-constraint key
 *    and its whole working set; the proofs run on the GPU with their MSMs
 *    in chunks.
 * 6. GPU 0's own budget (gpu_memory_budgets) too small for any key: on
 *    one GPU its proofs go to the CPU and say why; on several they go to
 *    the other GPUs (none on GPU 0, none on the CPU, each says why), and
 *    with every GPU's budget too small they fail naming them (device gpu).
 *
 * r and s, and case 5's toxic waste, come from the printed seed.
 *
 *   test_engine_gpu <fixtures dir> */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk.h"
#include "cuzk_engine.h"
#include "cuzk_testcircuits.h"
#include "test_util.h"

static const char *fixtures;
static char key_path[2][512], wtns_path[2][512];

/* the two keys: BLS12-381 mul1k and poseidon3 */
static void use_fixtures(void)
{
    static const char *names[2] = {"mul1k", "poseidon3"};
    for (int k = 0; k < 2; k++) {
        snprintf(key_path[k], sizeof(key_path[k]), "%s/bls12381/%s.zkey", fixtures, names[k]);
        snprintf(wtns_path[k], sizeof(wtns_path[k]), "%s/bls12381/%s.wtns", fixtures, names[k]);
    }
}

static int only_key = -1; /* >= 0: every proof uses that key */
static int on_device[CUZK_ENGINE_MAX_GPUS];  /* run's proofs done on each GPU */
static char other_note[200];                 /* a proof's note saying it moved to another GPU */

/* What the engine's progress reported: the key's read and its upload,
 * each ending at done == total. */
typedef struct heard {
    int read_end, upload_end, calls;
    char last_upload[400];
} heard;

static void hear_progress(void *ctx, const char *stage, unsigned long long done, unsigned long long total)
{
    heard *h = ctx;
    h->calls++;
    if (!strncmp(stage, "reading key ", 12) && done == total)
        h->read_end++;
    if (!strncmp(stage, "uploading the key to GPU 0 (key ", 32)) {
        snprintf(h->last_upload, sizeof(h->last_upload), "%s", stage);
        h->upload_end += done == total && total > 0;
    }
}

/* n proofs alternating between the two keys (or of only_key); returns how
 * many ended done and fills the last job's info and the stats. */
static int run(const cuzk_engine_config *cfg, int n, cuzk_job_info *last, cuzk_engine_stats *st, int *on_gpu)
{
    cuzk_engine *e;
    cuzk_error err = {0};
    cuzk_engine_config seeded = *cfg;
    seeded.proof.random = test_random_bytes;
    CHECK(cuzk_engine_create(&seeded, &e, &err) == CUZK_OK);
    unsigned long long *ids = calloc((size_t)n, sizeof(*ids));
    CHECK(ids);
    for (int i = 0; i < n; i++) {
        int k = only_key >= 0 ? only_key : i % 2;
        cuzk_job_request req = {.key_path = key_path[k], .witness_path = wtns_path[k]};
        CHECK(cuzk_engine_submit(e, &req, &ids[i], &err) == CUZK_OK);
    }
    int done = 0;
    *on_gpu = 0;
    memset(on_device, 0, sizeof(on_device));
    other_note[0] = 0;
    for (int i = 0; i < n; i++) {
        CHECK(cuzk_engine_wait(e, ids[i], 600, last, &err) == CUZK_OK);
        CHECK(last->state == CUZK_JOB_DONE || last->state == CUZK_JOB_FAILED);
        if (last->state == CUZK_JOB_FAILED)
            fprintf(stderr, "job %d failed: %s\n", i, last->error);
        if (last->state == CUZK_JOB_DONE) {
            done++;
            char *proof = NULL, *pub = NULL;
            CHECK(cuzk_engine_result(e, ids[i], &proof, &pub, &err) == CUZK_OK); /* self-verified */
            cuzk_free(proof);
            cuzk_free(pub);
            int g;
            if (sscanf(last->timings.device, "gpu %d", &g) == 1 && g >= 0 && g < CUZK_ENGINE_MAX_GPUS) {
                (*on_gpu)++;
                on_device[g]++;
                if (strstr(last->timings.device_note, "proves it"))
                    snprintf(other_note, sizeof(other_note), "%s", last->timings.device_note);
            }
        }
    }
    cuzk_engine_get_stats(e, st);
    cuzk_engine_destroy(e);
    free(ids);
    return done;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s <fixtures dir>\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    int gpus = 0;
    if (!cuzk_has_cuda() || cuzk_gpu_count(&gpus) != CUZK_OK || gpus == 0) {
        printf("SKIP: no CUDA GPU (the device-memory plan is tested on a GPU machine: scripts/gpu-check.sh)\n");
        return 77;
    }
    test_init("test_engine_gpu");
    use_fixtures();
    cuzk_engine_stats st;
    cuzk_job_info info;
    int on_gpu;

    /* 1: the default budget; one proof of each key, one after the other */
    /* pre-staging off except where a case turns it on: each case's plan
     * counts are for the in-lock upload */
    /* and without H's shifted copies (1), so that a key's bytes do not
     * depend on the room its budget leaves; case 1b has them */
    cuzk_engine_config cfg = {
        .proof.device = CUZK_DEVICE_GPU, .gpu_workers_per_device = 1, .no_prestage = 1, .gpu_msm_copies = 1};
    CHECK(run(&cfg, 2, &info, &st, &on_gpu) == 2 && on_gpu == 2);
    CHECK(st.gpus >= 1 && st.gpu_budget[0] > 0);
    unsigned long long both = st.gpu_key_bytes[0], pool = st.gpu_pool_bytes[0];
    CHECK(both > 0 && pool > 0 && both + pool <= st.gpu_budget[0]);

    /* 1b: H's shifted copies (checked against the CPU at the upload): as
     * many as pay by default, at most 3 when asked; every proof verifies
     * (the engine checks each) and the keys hold more */
    {
        cuzk_engine_config with = cfg;
        with.gpu_msm_copies = 0;
        CHECK(run(&with, 4, &info, &st, &on_gpu) == 4 && on_gpu == 4);
        unsigned long long all = st.gpu_key_bytes[0];
        with.gpu_msm_copies = 3;
        CHECK(run(&with, 4, &info, &st, &on_gpu) == 4 && on_gpu == 4);
        unsigned long long three = st.gpu_key_bytes[0];
        printf("shifted copies of H: keys %llu bytes without, %llu with 3, %llu with all that pay\n", both, three,
               all);
        CHECK(both < three && three < all);
    }
    /* each key alone: one proof of key 0 */
    cfg.gpu_memory_budget = 0;
    {
        cuzk_engine *e;
        cuzk_error err = {0};
        cuzk_engine_config seeded = cfg;
        seeded.proof.random = test_random_bytes;
        heard h = {0};
        seeded.progress = hear_progress; /* the key's read and first upload are reported */
        seeded.progress_ctx = &h;
        CHECK(cuzk_engine_create(&seeded, &e, &err) == CUZK_OK);
        unsigned long long id;
        cuzk_job_request req = {.key_path = key_path[0], .witness_path = wtns_path[0]};
        CHECK(cuzk_engine_submit(e, &req, &id, &err) == CUZK_OK);
        CHECK(cuzk_engine_wait(e, id, 600, &info, &err) == CUZK_OK && info.state == CUZK_JOB_DONE);
        cuzk_engine_get_stats(e, &st);
        cuzk_engine_destroy(e);
        CHECK_MSG(h.read_end == 1 && h.upload_end == 1 && strstr(h.last_upload, key_path[0]),
                  "progress: %d reads, %d uploads ended (%d calls; last '%s')", h.read_end, h.upload_end, h.calls,
                  h.last_upload);
    }
    unsigned long long k0 = st.gpu_key_bytes[0], k1 = both - k0;
    CHECK(k0 > 0 && k1 > 0);
    unsigned long long big = k0 > k1 ? k0 : k1, small = k0 > k1 ? k1 : k0;
    printf("plan: key bytes %llu and %llu, pool %llu, default budget %llu\n", k0, k1, pool, st.gpu_budget[0]);

    /* 2: room for one key and the proofs, not both keys; two workers */
    cfg.gpu_memory_budget = big + pool + small / 2;
    cfg.gpu_workers_per_device = 2;
    CHECK(run(&cfg, 12, &info, &st, &on_gpu) == 12);
    printf("small budget %llu: 12 proofs done, %d on the GPU; drops %llu, waits %llu, to the CPU %llu; keys %llu, "
           "pool %llu\n",
           cfg.gpu_memory_budget, on_gpu, st.plan_drops, st.plan_waits, st.plan_cpu, st.gpu_key_bytes[0],
           st.gpu_pool_bytes[0]);
    CHECK(on_gpu == 12 && st.plan_cpu == 0 && st.plan_drops >= 1);
    CHECK(st.gpu_key_bytes[0] + st.gpu_pool_bytes[0] <= cfg.gpu_memory_budget);

    /* 4: pre-staging. One key, two workers per GPU: with room, the
     * witnesses of all proofs but the key's first go up outside the
     * compute lock; with room for the proofs but not for a staged witness
     * beside a running proof, none does and all still run on the GPU. The
     * staged witness is 32 bytes a wire (the pool's high mark from 1 holds
     * one working set and one staged witness). */
    only_key = 0;
    cfg.gpu_memory_budget = 0;
    cfg.gpu_workers_per_device = 2;
    cfg.no_prestage = 0;
    CHECK(run(&cfg, 8, &info, &st, &on_gpu) == 8);
    printf("pre-staging with room: %llu staged, %llu not; %d on the GPU\n", st.plan_staged, st.plan_unstaged, on_gpu);
    CHECK(on_gpu == 8 && st.plan_staged >= 6 && st.plan_staged + st.plan_unstaged == 8);
    unsigned long long stage_bytes = 0;
    {
        cuzk_zkey *zk;
        cuzk_error err = {0};
        CHECK(cuzk_zkey_open(&zk, key_path[0], &err) == CUZK_OK);
        cuzk_zkey_info zi;
        cuzk_zkey_get_info(zk, &zi);
        stage_bytes = 32ull * zi.n_vars;
        cuzk_zkey_free(zk);
    }
    unsigned long long pool0 = st.gpu_pool_bytes[0];
    cfg.gpu_memory_budget = k0 + pool0 - stage_bytes / 2;
    CHECK(run(&cfg, 8, &info, &st, &on_gpu) == 8);
    printf("pre-staging without room (budget %llu): %llu staged, %llu not; %d on the GPU\n", cfg.gpu_memory_budget,
           st.plan_staged, st.plan_unstaged, on_gpu);
    CHECK(on_gpu == 8 && st.plan_staged == 0 && st.plan_unstaged == 8 && st.plan_cpu == 0);
    only_key = -1;
    cfg.no_prestage = 1;

    /* 5: the streamed path. A circuit of 2^16 constraints (its MSMs'
     * scratch is most of a proof's working set); a budget one byte short
     * of its key and whole working set: every proof runs on the GPU with
     * its MSMs in chunks, and verifies. */
    {
        char dir[] = "/tmp/cuzk-engine-gpu-XXXXXX";
        CHECK(mkdtemp(dir) != NULL);
        char r1cs[256], zkey[256], wtns[256];
        snprintf(r1cs, sizeof(r1cs), "%s/c.r1cs", dir);
        snprintf(zkey, sizeof(zkey), "%s/c.zkey", dir);
        snprintf(wtns, sizeof(wtns), "%s/c.wtns", dir);
        cuzk_error err = {0};
        cuzk_circuit_options co = {.curve = CUZK_CURVE_BLS12_381, .constraints = 1 << 16, .seed = 1, .n_public = 8};
        CHECK(cuzk_circuit_sha256_chain(r1cs, wtns, &co, NULL, &err) == CUZK_OK);
        cuzk_setup_options so = {.random = test_random_bytes};
        CHECK(cuzk_setup(r1cs, NULL, zkey, &so, &err) == CUZK_OK);
        snprintf(key_path[0], sizeof(key_path[0]), "%s", zkey);
        snprintf(wtns_path[0], sizeof(wtns_path[0]), "%s", wtns);
        only_key = 0;
        cfg.proof.device = CUZK_DEVICE_GPU;
        cfg.gpu_workers_per_device = 1;
        cfg.gpu_memory_budget = 0;
        /* the matrices stay off the GPU: otherwise the plan would rather
         * leave them behind than stream (a smaller key fits whole) */
        cfg.proof.gpu_eval = CUZK_GPU_EVAL_CPU;
        CHECK(run(&cfg, 1, &info, &st, &on_gpu) == 1 && on_gpu == 1);
        unsigned long long whole = st.gpu_key_bytes[0] + st.gpu_pool_bytes[0];
        cfg.gpu_memory_budget = whole - 1;
        CHECK(run(&cfg, 3, &info, &st, &on_gpu) == 3);
        printf("streamed path (budget %llu, whole %llu): %d of 3 on the GPU, %llu chunked, pool %llu\n",
               cfg.gpu_memory_budget, whole, on_gpu, st.plan_chunked, st.gpu_pool_bytes[0]);
        CHECK(on_gpu == 3 && st.plan_chunked == 3 && st.plan_cpu == 0);
        CHECK(st.gpu_key_bytes[0] + st.gpu_pool_bytes[0] <= cfg.gpu_memory_budget);
        only_key = -1;
        cfg.gpu_memory_budget = 0;
        cfg.proof.gpu_eval = CUZK_GPU_EVAL_GPU;
        remove(r1cs);
        remove(zkey);
        remove(wtns);
        rmdir(dir);
        use_fixtures();
    }

    /* 3: too small for any key */
    cfg.gpu_memory_budget = small / 2;
    cfg.gpu_workers_per_device = 1;
    cfg.proof.device = CUZK_DEVICE_AUTO;
    CHECK(run(&cfg, 4, &info, &st, &on_gpu) == 4);
    printf("tiny budget, device auto: 4 proofs done, %d on the GPU; note: %s\n", on_gpu, info.timings.device_note);
    CHECK(on_gpu == 0 && st.plan_cpu == 4 && strstr(info.timings.device_note, "budget"));
    cfg.proof.device = CUZK_DEVICE_GPU;
    CHECK(run(&cfg, 2, &info, &st, &on_gpu) == 0);
    printf("tiny budget, device gpu: failed as expected: %s\n", info.error);
    CHECK(info.status == CUZK_ERR_NO_MEMORY && strstr(info.error, "budget"));

    /* 6: GPU 0's own budget too small for any key, the others' the
     * default; a budget for a GPU past the last is refused */
    if (gpus < CUZK_ENGINE_MAX_GPUS) {
        cuzk_engine_config bad = {.proof.device = CUZK_DEVICE_GPU};
        bad.gpu_memory_budgets[gpus] = 1ull << 30;
        cuzk_engine *e = NULL;
        cuzk_error err = {0};
        CHECK(cuzk_engine_create(&bad, &e, &err) == CUZK_ERR_INVALID_ARGUMENT && e == NULL);
        printf("a budget for GPU %d: %s\n", gpus, err.message);
        CHECK(strstr(err.message, "gpu_memory_budgets") != NULL);
    }
    {
        cuzk_engine_config c6 = {.proof.device = CUZK_DEVICE_AUTO, .gpu_workers_per_device = 1, .no_prestage = 1};
        c6.gpu_memory_budgets[0] = small / 2;
        const int n = 4 * gpus;
        CHECK(run(&c6, n, &info, &st, &on_gpu) == n);
        printf("GPU 0's budget %llu (of %d GPUs): %d proofs done, %d on GPU 0, %d on GPUs; to the CPU %llu, to "
               "another GPU %llu; note: %s\n",
               c6.gpu_memory_budgets[0], gpus, n, on_device[0], on_gpu, st.plan_cpu, st.plan_other_gpu,
               gpus == 1 ? info.timings.device_note : other_note);
        CHECK(st.gpu_budget[0] == small / 2);
        if (gpus == 1) {
            CHECK(on_gpu == 0 && st.plan_cpu == (unsigned long long)n && st.plan_other_gpu == 0);
            CHECK(strstr(info.timings.device_note, "GPU 0's memory budget"));
        } else {
            CHECK(on_gpu == n && on_device[0] == 0 && st.plan_cpu == 0 && st.plan_other_gpu >= 1);
            CHECK(strstr(other_note, "GPU 0's memory budget") && strstr(other_note, "proves it"));
            for (int g = 1; g < gpus; g++)
                CHECK(st.gpu_budget[g] > small);
            c6.proof.device = CUZK_DEVICE_GPU;
            for (int g = 0; g < gpus && g < CUZK_ENGINE_MAX_GPUS; g++)
                c6.gpu_memory_budgets[g] = small / 2;
            CHECK(run(&c6, 2, &info, &st, &on_gpu) == 0);
            printf("every GPU's budget too small, device gpu: failed as expected: %s\n", info.error);
            CHECK(info.status == CUZK_ERR_NO_MEMORY && strstr(info.error, "nor can the other GPUs'"));
        }
    }
    test_done("test_engine_gpu");
    return 0;
}
