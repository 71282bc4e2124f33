/* The proving engine (src/engine/engine.c) on the CPU:
 *   - many jobs over every fixture, both curves, from several submitting
 *     threads and several workers: every proof is done, its public.json is
 *     the fixture's, and every phase time is recorded;
 *   - priority order with one busy worker, FIFO within a priority;
 *   - cancelling queued jobs; CUZK_ERR_BUSY beyond max_jobs;
 *   - a key cache budget of one byte: keys are evicted and reloaded, jobs
 *     still complete; preload and evict by id;
 *   - bad input: unknown key id, both or neither key, a witness of the other
 *     curve (the job fails with a message naming the files), bad priority. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuzk.h"

static const char *fixtures;
static int failures;

#define CHECK(cond)                                                                                     \
    do {                                                                                                \
        if (!(cond)) {                                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                    \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *b = malloc((size_t)n + 1);
    CHECK(b && fread(b, 1, (size_t)n, f) == (size_t)n);
    b[n] = 0;
    fclose(f);
    if (len)
        *len = (size_t)n;
    return b;
}

static void path_of(char *out, size_t cap, const char *curve, const char *name, const char *ext)
{
    snprintf(out, cap, "%s/%s/%s.%s", fixtures, curve, name, ext);
}

/* Same JSON numbers regardless of whitespace. */
static int same_json(const char *a, const char *b)
{
    while (*a || *b) {
        while (*a == ' ' || *a == '\n' || *a == '\t' || *a == '\r')
            a++;
        while (*b == ' ' || *b == '\n' || *b == '\t' || *b == '\r')
            b++;
        if (*a != *b)
            return 0;
        if (*a)
            a++, b++;
    }
    return 1;
}

static const char *curves[2] = {"bn128", "bls12381"};
static const char *names[3] = {"tiny", "mul1k", "poseidon3"};

typedef struct submitter {
    cuzk_engine *e;
    int first, count;
    unsigned long long ids[64];
} submitter;

static void *submit_some(void *arg)
{
    submitter *s = arg;
    for (int i = 0; i < s->count; i++) {
        int k = (s->first + i) % 6;
        char zk[1024], wt[1024];
        path_of(zk, sizeof(zk), curves[k / 3], names[k % 3], "zkey");
        path_of(wt, sizeof(wt), curves[k / 3], names[k % 3], "wtns");
        cuzk_job_request r = {.key_path = zk, .witness_path = wt, .priority = (s->first + i) % 4};
        size_t len = 0;
        char *bytes = NULL;
        if (i % 3 == 0) { /* some witnesses as bytes */
            bytes = slurp(wt, &len);
            r.witness_path = NULL;
            r.witness = bytes;
            r.witness_len = len;
        }
        cuzk_error err;
        CHECK(cuzk_engine_submit(s->e, &r, &s->ids[i], &err) == CUZK_OK);
        free(bytes);
    }
    return NULL;
}

static void test_many_jobs(void)
{
    cuzk_engine_config cfg = {.workers = 3, .threads_per_worker = 1, .device = CUZK_DEVICE_AUTO};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(cuzk_engine_create(&cfg, &e, &err) == CUZK_OK);
    enum { SUBMITTERS = 4, EACH = 12 };
    submitter s[SUBMITTERS];
    pthread_t th[SUBMITTERS];
    for (int i = 0; i < SUBMITTERS; i++) {
        s[i].e = e;
        s[i].first = i * EACH;
        s[i].count = EACH;
        CHECK(pthread_create(&th[i], NULL, submit_some, &s[i]) == 0);
    }
    for (int i = 0; i < SUBMITTERS; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < SUBMITTERS; i++)
        for (int n = 0; n < EACH; n++) {
            cuzk_job_info info;
            CHECK(cuzk_engine_wait(e, s[i].ids[n], -1, &info, &err) == CUZK_OK);
            if (info.state != CUZK_JOB_DONE)
                fprintf(stderr, "job %llu: state %d: %s\n", info.id, info.state, info.error);
            CHECK(info.state == CUZK_JOB_DONE);
            CHECK(info.timings.total > 0 && info.timings.msm_h > 0 && info.load >= 0 && info.queue_wait >= 0);
            char *proof, *pub;
            CHECK(cuzk_engine_result(e, s[i].ids[n], &proof, &pub, &err) == CUZK_OK);
            int k = (s[i].first + n) % 6;
            char pp[1024];
            path_of(pp, sizeof(pp), curves[k / 3], names[k % 3], "public.json");
            char *want = slurp(pp, NULL);
            CHECK(same_json(pub, want));
            CHECK(strstr(proof, "\"pi_a\"") != NULL);
            free(want);
            cuzk_free(proof);
            cuzk_free(pub);
            CHECK(cuzk_engine_release(e, s[i].ids[n], &err) == CUZK_OK);
        }
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.done == SUBMITTERS * EACH && st.failed == 0 && st.running == 0);
    CHECK(st.keys_cached == 6 && st.worker_busy > 0 && st.worker_busy <= 1.0);
    printf("many jobs: %llu done, workers busy %.0f %% of %.2f s\n", st.done, 100 * st.worker_busy, st.uptime);
    cuzk_engine_destroy(e);
}

static void test_priorities_and_cancel(void)
{
    cuzk_engine_config cfg = {.workers = 1, .threads_per_worker = 1, .max_jobs = 12};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(cuzk_engine_create(&cfg, &e, &err) == CUZK_OK);
    char zk[1024], wt[1024], big[1024], bigw[1024];
    path_of(zk, sizeof(zk), "bn128", "tiny", "zkey");
    path_of(wt, sizeof(wt), "bn128", "tiny", "wtns");
    path_of(big, sizeof(big), "bls12381", "poseidon3", "zkey");
    path_of(bigw, sizeof(bigw), "bls12381", "poseidon3", "wtns");
    /* occupy the one worker, then queue: LOW, NORMAL, CRITICAL, HIGH, LOW, CRITICAL */
    unsigned long long blocker, ids[6];
    cuzk_job_request r = {.key_path = big, .witness_path = bigw, .priority = CUZK_PRIORITY_LOW};
    CHECK(cuzk_engine_submit(e, &r, &blocker, &err) == CUZK_OK);
    static const int prio[6] = {0, 1, 3, 2, 0, 3};
    r.key_path = zk;
    r.witness_path = wt;
    for (int i = 0; i < 6; i++) {
        r.priority = prio[i];
        CHECK(cuzk_engine_submit(e, &r, &ids[i], &err) == CUZK_OK);
    }
    /* cancel one queued job (the second LOW) */
    CHECK(cuzk_engine_cancel(e, ids[4], &err) == CUZK_OK);
    /* max_jobs 12: 7 submitted, 1 cancelled -> 6 active; 6 more fit, the 7th is refused */
    unsigned long long extra[6], refused;
    for (int i = 0; i < 6; i++)
        CHECK(cuzk_engine_submit(e, &r, &extra[i], &err) == CUZK_OK);
    CHECK(cuzk_engine_submit(e, &r, &refused, &err) == CUZK_ERR_BUSY);
    CHECK(strstr(err.message, "retry") != NULL);
    cuzk_job_info info[6];
    for (int i = 0; i < 6; i++)
        CHECK(cuzk_engine_wait(e, ids[i], -1, &info[i], &err) == CUZK_OK);
    CHECK(info[4].state == CUZK_JOB_CANCELLED);
    char *p, *q;
    CHECK(cuzk_engine_result(e, ids[4], &p, &q, &err) == CUZK_ERR_CANCELLED);
    /* order: the two CRITICAL (FIFO), HIGH, NORMAL, LOW */
    CHECK(info[2].finish_seq < info[5].finish_seq);
    CHECK(info[5].finish_seq < info[3].finish_seq);
    CHECK(info[3].finish_seq < info[1].finish_seq);
    CHECK(info[1].finish_seq < info[0].finish_seq);
    for (int i = 0; i < 6; i++) {
        cuzk_job_info x;
        CHECK(cuzk_engine_wait(e, extra[i], -1, &x, &err) == CUZK_OK && x.state == CUZK_JOB_DONE);
    }
    /* waiting with a timeout on a finished job returns at once */
    CHECK(cuzk_engine_wait(e, ids[0], 0, &info[0], &err) == CUZK_OK && info[0].state == CUZK_JOB_DONE);
    CHECK(cuzk_engine_wait(e, 999999, 0, &info[0], &err) == CUZK_ERR_NOT_FOUND);
    CHECK(cuzk_engine_cancel(e, 999999, &err) == CUZK_ERR_NOT_FOUND);
    cuzk_engine_destroy(e);
}

static void test_key_cache_and_bad_input(void)
{
    cuzk_engine_config cfg = {.workers = 2, .threads_per_worker = 1, .key_cache_bytes = 1};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(cuzk_engine_create(&cfg, &e, &err) == CUZK_OK);
    char zk[1024], wt[1024], wt_other[1024];
    path_of(zk, sizeof(zk), "bn128", "mul1k", "zkey");
    path_of(wt, sizeof(wt), "bn128", "mul1k", "wtns");
    path_of(wt_other, sizeof(wt_other), "bls12381", "mul1k", "wtns");
    CHECK(cuzk_engine_key_load(e, "mul", zk, &err) == CUZK_OK);
    unsigned long long ids[8];
    cuzk_job_request r = {.key_id = "mul", .witness_path = wt, .priority = CUZK_PRIORITY_NORMAL};
    for (int i = 0; i < 8; i++)
        CHECK(cuzk_engine_submit(e, &r, &ids[i], &err) == CUZK_OK);
    for (int i = 0; i < 8; i++) {
        cuzk_job_info info;
        CHECK(cuzk_engine_wait(e, ids[i], -1, &info, &err) == CUZK_OK && info.state == CUZK_JOB_DONE);
    }
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.keys_cached == 0); /* over a 1-byte budget, unused keys go at once */
    CHECK(cuzk_engine_key_evict(e, "mul", &err) == CUZK_ERR_NOT_FOUND);
    /* bad input */
    cuzk_job_request bad = {.key_id = "nope", .witness_path = wt};
    unsigned long long id;
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_ERR_NOT_FOUND && strstr(err.message, "nope"));
    bad = (cuzk_job_request){.key_id = "mul", .key_path = zk, .witness_path = wt};
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_ERR_INVALID_ARGUMENT);
    bad = (cuzk_job_request){.key_path = zk};
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_ERR_INVALID_ARGUMENT);
    bad = (cuzk_job_request){.key_path = zk, .witness_path = wt, .priority = 7};
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_ERR_INVALID_ARGUMENT);
    bad = (cuzk_job_request){.key_path = zk, .witness_path = wt_other};
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_OK);
    cuzk_job_info info;
    CHECK(cuzk_engine_wait(e, id, -1, &info, &err) == CUZK_OK);
    CHECK(info.state == CUZK_JOB_FAILED && info.status == CUZK_ERR_FORMAT && strstr(info.error, "witness"));
    char *p, *q;
    CHECK(cuzk_engine_result(e, id, &p, &q, &err) == CUZK_ERR_FORMAT);
    bad = (cuzk_job_request){.key_path = "/nonexistent/k.zkey", .witness_path = wt};
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_OK);
    CHECK(cuzk_engine_wait(e, id, -1, &info, &err) == CUZK_OK);
    CHECK(info.state == CUZK_JOB_FAILED && strstr(info.error, "/nonexistent/k.zkey"));
    cuzk_engine_config badcfg = {.workers = -1};
    cuzk_engine *e2;
    CHECK(cuzk_engine_create(&badcfg, &e2, &err) == CUZK_ERR_INVALID_ARGUMENT);
    /* queued jobs at destroy are cancelled, not run */
    cuzk_engine_destroy(e);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    fixtures = argv[1];
    test_many_jobs();
    test_priorities_and_cancel();
    test_key_cache_and_bad_input();
    printf("test_engine: all checks passed\n");
    return failures;
}
