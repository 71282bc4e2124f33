/* The proving engine (src/engine/engine.c) on the CPU:
 *   - many jobs over every fixture, both curves, from several submitting
 *     threads and several workers: every proof is done, its public.json is
 *     the fixture's, and every phase time is recorded;
 *   - priority order with one busy worker, FIFO within a priority;
 *   - cancelling queued jobs; CUZK_ERR_BUSY beyond max_jobs;
 *   - a key cache budget of one byte: keys are evicted and reloaded, jobs
 *     still complete; preload and evict by id;
 *   - bad input: unknown key id, both or neither key, a witness of the other
 *     curve (the job fails with a message naming the files), bad priority;
 *   - key files that change: rewritten in place, truncated, an id spelled
 *     like a path, an id reloaded under a running job;
 * and the staged pipeline (prepare -> ready -> compute -> finalize):
 *   - 1, 2 and 4 workers per stage (and mixed) over every fixture of both
 *     curves: every proof verifies against the fixture's verification key;
 *   - priority order at each queue (admission, ready, finalize) with the
 *     pipeline saturated;
 *   - cancelling a job in every stage and queue;
 *   - the ready and finalize queue bounds (the most jobs each ever held);
 *   - destroying the engine with jobs in every stage.
 * A stage hook in the engine's config (a "gate" here) holds jobs at a
 * stage's start or end, so that each situation is set up deterministically:
 * the tests wait on the hook or poll the engine's stats for a state, never
 * sleep for a guessed time. r and s come from the printed seed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk.h"
#include "cuzk_engine.h"
#include "cuzk_testcircuits.h"
#include "test_util.h"

static const char *fixtures;

/* Every engine of these tests draws r and s from the test's seed. */
static int test_engine_create(cuzk_engine_config *cfg, cuzk_engine **e, cuzk_error *err)
{
    cfg->proof.random = test_random_bytes;
    return cuzk_engine_create(cfg, e, err);
}

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

/* ---- the gate: a stage hook that holds jobs where a test asks ---- */

typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int armed[CUZK_STAGES][2];                /* hold the next job reaching (stage, event) */
    unsigned long long held[CUZK_STAGES][2];  /* the job held there, 0: none */
    int stopped;                              /* the engine is being destroyed: hold nothing */
    unsigned long long order[CUZK_STAGES][64]; /* jobs in the order they entered each stage */
    int n_order[CUZK_STAGES];
    cuzk_engine *e;     /* for the bound checks below; set once created */
    unsigned bound_ready, bound_final; /* the configured depths */
    unsigned max_ready_slots, max_final_slots; /* most seen of ready + preparing, finalize + computing */
} gate;

static void gate_init(gate *g)
{
    memset(g, 0, sizeof(*g));
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
}

static void gate_destroy(gate *g)
{
    pthread_mutex_destroy(&g->mu);
    pthread_cond_destroy(&g->cv);
}

static void gate_hook(void *ctx, unsigned long long job, int stage, int event)
{
    gate *g = ctx;
    pthread_mutex_lock(&g->mu);
    cuzk_engine *e = g->e;
    pthread_mutex_unlock(&g->mu);
    if (e && event == CUZK_HOOK_ENTER) {
        /* sample the bounds from inside the pipeline */
        cuzk_engine_stats st;
        cuzk_engine_get_stats(e, &st);
        pthread_mutex_lock(&g->mu);
        if (st.ready + st.preparing > g->max_ready_slots)
            g->max_ready_slots = st.ready + st.preparing;
        if (st.finalize_waiting + st.computing > g->max_final_slots)
            g->max_final_slots = st.finalize_waiting + st.computing;
        pthread_mutex_unlock(&g->mu);
    }
    pthread_mutex_lock(&g->mu);
    if (event == CUZK_HOOK_STOP) {
        g->stopped = 1;
        pthread_cond_broadcast(&g->cv);
    } else {
        if (event == CUZK_HOOK_ENTER && g->n_order[stage] < 64)
            g->order[stage][g->n_order[stage]++] = job;
        if (g->armed[stage][event] && !g->stopped) {
            g->armed[stage][event] = 0;
            g->held[stage][event] = job;
            pthread_cond_broadcast(&g->cv);
            while (g->held[stage][event] == job && !g->stopped)
                pthread_cond_wait(&g->cv, &g->mu);
        }
    }
    pthread_mutex_unlock(&g->mu);
}

static void gate_arm(gate *g, int stage, int event)
{
    pthread_mutex_lock(&g->mu);
    g->armed[stage][event] = 1;
    pthread_mutex_unlock(&g->mu);
}

static void gate_set_engine(gate *g, cuzk_engine *e)
{
    pthread_mutex_lock(&g->mu);
    g->e = e;
    pthread_mutex_unlock(&g->mu);
}

static void deadline_in(struct timespec *ts, int seconds)
{
    clock_gettime(CLOCK_REALTIME, ts);
    ts->tv_sec += seconds;
}

/* Waits (at most 60 s) until a job is held at (stage, event); returns it. */
static unsigned long long gate_wait_held(gate *g, int stage, int event)
{
    struct timespec dl;
    deadline_in(&dl, 60);
    pthread_mutex_lock(&g->mu);
    while (!g->held[stage][event])
        CHECK(pthread_cond_timedwait(&g->cv, &g->mu, &dl) == 0);
    unsigned long long id = g->held[stage][event];
    pthread_mutex_unlock(&g->mu);
    return id;
}

static void gate_release(gate *g, int stage, int event)
{
    pthread_mutex_lock(&g->mu);
    g->held[stage][event] = 0;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static int gate_order(gate *g, int stage, unsigned long long *out, int cap)
{
    pthread_mutex_lock(&g->mu);
    int n = g->n_order[stage] < cap ? g->n_order[stage] : cap;
    memcpy(out, g->order[stage], (size_t)n * sizeof(*out));
    pthread_mutex_unlock(&g->mu);
    return n;
}

/* Polls the engine's stats (every millisecond, at most 60 s) until cond
 * holds: waiting for a state the engine reports, not for a guessed time. */
#define WAIT_STATS(e, st, cond)                                                                         \
    do {                                                                                                \
        int waited_ms_ = 0;                                                                             \
        for (;;) {                                                                                      \
            cuzk_engine_get_stats((e), &(st));                                                          \
            if (cond)                                                                                   \
                break;                                                                                  \
            CHECK(waited_ms_++ < 60000);                                                                \
            nanosleep(&(struct timespec){0, 1000000}, NULL);                                            \
        }                                                                                               \
    } while (0)

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

/* A job state's one spelling, both ways. */
static void test_state_names(void)
{
    static const char *const want[] = {"queued", "running", "done", "failed", "cancelled"};
    for (int st = CUZK_JOB_QUEUED; st <= CUZK_JOB_CANCELLED; st++) {
        CHECK(!strcmp(cuzk_job_state_name(st), want[st]));
        CHECK(cuzk_job_state_from_name(want[st]) == st);
    }
    CHECK(!strcmp(cuzk_job_state_name(-1), "unknown") && !strcmp(cuzk_job_state_name(5), "unknown"));
    CHECK(cuzk_job_state_from_name(NULL) == -1 && cuzk_job_state_from_name("Done") == -1 &&
          cuzk_job_state_from_name("") == -1 && cuzk_job_state_from_name("unknown") == -1);
}

static void test_many_jobs(void)
{
    cuzk_engine_config cfg = {.workers = 3, .proof.threads = 1, .proof.device = CUZK_DEVICE_AUTO};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
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
    /* The blocker is held at the start of its compute stage until every
     * job below is queued (without a GPU nothing is prepared ahead of a
     * free compute worker: they all wait in the admission queue and leave
     * it by priority). */
    gate g;
    gate_init(&g);
    gate_arm(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    /* no job prepared ahead: on a GPU machine the default would let the
     * first arrivals into the ready queue before the later, higher ones
     * (seen on the H200, run H); one compute worker on a GPU too (the
     * default there is two a device: the second would take the next job
     * while the blocker holds the first; H200, session 7) */
    cuzk_engine_config cfg = {.workers = 1, .gpu_workers_per_device = 1, .proof.threads = 1, .max_jobs = 12,
                              .stage_hook = gate_hook, .stage_hook_ctx = &g, .prepare_ahead = -1};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    char zk[1024], wt[1024], big[1024], bigw[1024];
    path_of(zk, sizeof(zk), "bn128", "tiny", "zkey");
    path_of(wt, sizeof(wt), "bn128", "tiny", "wtns");
    path_of(big, sizeof(big), "bls12381", "poseidon3", "zkey");
    path_of(bigw, sizeof(bigw), "bls12381", "poseidon3", "wtns");
    /* occupy the one worker, then queue: LOW, NORMAL, CRITICAL, HIGH, LOW, CRITICAL */
    unsigned long long blocker, ids[6];
    cuzk_job_request r = {.key_path = big, .witness_path = bigw, .priority = CUZK_PRIORITY_LOW};
    CHECK(cuzk_engine_submit(e, &r, &blocker, &err) == CUZK_OK);
    CHECK(gate_wait_held(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER) == blocker);
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
    gate_release(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
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
    gate_destroy(&g);
}

/* The engine's progress: each key read reported up to its end, under its name. */
typedef struct reads_heard {
    int calls, ended, named;
    unsigned long long total;
} reads_heard;

static void hear_reads(void *ctx, const char *stage, unsigned long long done, unsigned long long total)
{
    reads_heard *h = ctx;
    h->calls++;
    h->named += !strcmp(stage, "reading key mul");
    h->ended += done == total && !strcmp(stage, "reading key mul");
    h->total = total;
}

static void test_key_cache_and_bad_input(void)
{
    reads_heard heard = {0};
    cuzk_engine_config cfg = {.workers = 2, .proof.threads = 1, .key_cache_bytes = 1,
                              .progress = hear_reads, .progress_ctx = &heard};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    char zk[1024], wt[1024], wt_other[1024];
    path_of(zk, sizeof(zk), "bn128", "mul1k", "zkey");
    path_of(wt, sizeof(wt), "bn128", "mul1k", "wtns");
    path_of(wt_other, sizeof(wt_other), "bls12381", "mul1k", "wtns");
    CHECK(cuzk_engine_key_load(e, "mul", zk, &err) == CUZK_OK);
    struct stat zst;
    CHECK(stat(zk, &zst) == 0);
    CHECK_MSG(heard.ended == 1 && heard.named == heard.calls && heard.total == (unsigned long long)zst.st_size,
              "key read progress: %d calls, %d named, %d ended, total %llu of %lld bytes", heard.calls, heard.named,
              heard.ended, heard.total, (long long)zst.st_size);
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
    CHECK(test_engine_create(&badcfg, &e2, &err) == CUZK_ERR_INVALID_ARGUMENT);
    /* queued jobs at destroy are cancelled, not run */
    cuzk_engine_destroy(e);
}

/* ---- the pipeline ---- */

static void fixture_request(int k, char *zk, char *wt, size_t cap)
{
    path_of(zk, cap, curves[k / 3], names[k % 3], "zkey");
    path_of(wt, cap, curves[k / 3], names[k % 3], "wtns");
}

/* A done job's proof verifies against the fixture's verification key (when
 * the build reads JSON) and its public.json is the fixture's. */
static void check_proof(cuzk_engine *e, unsigned long long id, int k)
{
    cuzk_error err;
    char *proof, *pub, p[1024];
    CHECK(cuzk_engine_result(e, id, &proof, &pub, &err) == CUZK_OK);
    path_of(p, sizeof(p), curves[k / 3], names[k % 3], "public.json");
    char *want = slurp(p, NULL);
    CHECK(same_json(pub, want));
    free(want);
    /* the key it was proved with: snarkjs's vk.json */
    char *vk_of_job;
    CHECK(cuzk_engine_result_vk(e, id, &vk_of_job, &err) == CUZK_OK);
    path_of(p, sizeof(p), curves[k / 3], names[k % 3], "vk.json");
    size_t vk_len;
    char *vk = slurp(p, &vk_len);
    CHECK(same_json(vk_of_job, vk));
    cuzk_free(vk_of_job);
    if (cuzk_has_json())
        CHECK(cuzk_verify_json(vk, vk_len, pub, strlen(pub), proof, strlen(proof), &err) == CUZK_OK);
    free(vk);
    cuzk_free(proof);
    cuzk_free(pub);
}

static void check_fraction(double f)
{
    CHECK(f >= 0 && f <= 1.0 + 1e-9);
}

/* Writes data over path in place (open with O_TRUNC, as cp does). */
static void overwrite(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "r+b");
    CHECK(f != NULL);
    CHECK(ftruncate(fileno(f), 0) == 0);
    CHECK(fwrite(data, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

static void copy_fixture(const char *to, int k)
{
    char from[1024];
    path_of(from, sizeof(from), curves[k / 3], names[k % 3], "zkey");
    size_t n;
    char *d = slurp(from, &n);
    FILE *f = fopen(to, "wb");
    CHECK(f && fwrite(d, 1, n, f) == n && fclose(f) == 0);
    free(d);
}

/* One job on a key (by path or id) and fixture k's witness, waited for. */
static cuzk_job_info run_key_job(cuzk_engine *e, const char *key_path, const char *key_id, int k,
                                 unsigned long long *id_out)
{
    char wt[1024];
    path_of(wt, sizeof(wt), curves[k / 3], names[k % 3], "wtns");
    cuzk_job_request r = {.key_path = key_path, .key_id = key_id, .witness_path = wt};
    cuzk_error err;
    unsigned long long id;
    CHECK(cuzk_engine_submit(e, &r, &id, &err) == CUZK_OK);
    cuzk_job_info info;
    CHECK(cuzk_engine_wait(e, id, -1, &info, &err) == CUZK_OK);
    *id_out = id;
    return info;
}

/* Key files that change under the cache (issue 17): a key rewritten in
 * place (a cp over it) is read again, never proved with in its old form;
 * one truncated fails its job with a message (no SIGBUS: the cache holds
 * copies, not mappings); ids and paths are separate namespaces; an id
 * reloaded while a job holds its key leaves that job its old key. Fixtures
 * k (curves[k / 3], names[k % 3]): 0 bn128 tiny, 1 bn128 mul1k, 2 bn128
 * poseidon3. */
static void test_key_files_change(void)
{
    char dir[] = "/tmp/cuzk_keys_XXXXXX", key[1100], cwd[4096];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(key, sizeof(key), "%s/k.zkey", dir);
    gate g;
    gate_init(&g);
    cuzk_engine_config cfg = {.workers = 1, .proof.threads = 1, .proof.device = CUZK_DEVICE_CPU,
                              .stage_hook = gate_hook, .stage_hook_ctx = &g};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    unsigned long long id;
    copy_fixture(key, 1);
    CHECK(run_key_job(e, key, NULL, 1, &id).state == CUZK_JOB_DONE);
    check_proof(e, id, 1);
    /* rewritten in place with another circuit's key: the next job proves with it */
    char from[1024];
    path_of(from, sizeof(from), "bn128", "poseidon3", "zkey");
    size_t n;
    char *other = slurp(from, &n);
    overwrite(key, other, n);
    free(other);
    CHECK(run_key_job(e, key, NULL, 2, &id).state == CUZK_JOB_DONE);
    check_proof(e, id, 2);
    /* truncated: the job fails naming the file; the engine carries on */
    CHECK(truncate(key, 100) == 0);
    cuzk_job_info info = run_key_job(e, key, NULL, 2, &id);
    CHECK(info.state == CUZK_JOB_FAILED && strstr(info.error, key));
    copy_fixture(key, 0);
    CHECK(run_key_job(e, key, NULL, 0, &id).state == CUZK_JOB_DONE);
    check_proof(e, id, 0);
    /* an id spelled like a relative path names the id's key, the path the file's */
    CHECK(getcwd(cwd, sizeof(cwd)) != NULL);
    CHECK(chdir(dir) == 0);
    path_of(from, sizeof(from), "bn128", "mul1k", "zkey");
    CHECK(cuzk_engine_key_load(e, "k.zkey", from, &err) == CUZK_OK); /* k.zkey in dir holds tiny's key */
    CHECK(run_key_job(e, "k.zkey", NULL, 0, &id).state == CUZK_JOB_DONE);
    check_proof(e, id, 0);
    CHECK(run_key_job(e, NULL, "k.zkey", 1, &id).state == CUZK_JOB_DONE);
    check_proof(e, id, 1);
    CHECK(chdir(cwd) == 0);
    /* an id reloaded with another key while a job holds the old one: no
     * CUZK_ERR_BUSY; the running job finishes with its key, the next gets
     * the new one */
    gate_arm(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    char wt[1024];
    path_of(wt, sizeof(wt), "bn128", "mul1k", "wtns");
    cuzk_job_request r = {.key_id = "k.zkey", .witness_path = wt};
    unsigned long long held;
    CHECK(cuzk_engine_submit(e, &r, &held, &err) == CUZK_OK);
    CHECK(gate_wait_held(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER) == held);
    path_of(from, sizeof(from), "bn128", "poseidon3", "zkey");
    CHECK(cuzk_engine_key_load(e, "k.zkey", from, &err) == CUZK_OK);
    CHECK(cuzk_engine_key_load(e, "k.zkey", "/nonexistent/x.zkey", &err) == CUZK_ERR_NOT_FOUND); /* keeps its key */
    gate_release(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    CHECK(cuzk_engine_wait(e, held, -1, &info, &err) == CUZK_OK && info.state == CUZK_JOB_DONE);
    check_proof(e, held, 1);
    CHECK(run_key_job(e, NULL, "k.zkey", 2, &id).state == CUZK_JOB_DONE);
    check_proof(e, id, 2);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.keys_cached == 3); /* the id's, and two paths' (the old copies went with their jobs) */
    cuzk_engine_destroy(e);
    gate_destroy(&g);
    snprintf(key, sizeof(key), "%s/k.zkey", dir);
    CHECK(unlink(key) == 0 && rmdir(dir) == 0);
}

static void test_pipeline_shapes(void)
{
    /* prepare, compute, finalize workers; jobs prepared ahead */
    static const int shapes[][4] = {{1, 1, 1, 0}, {2, 2, 2, 0}, {4, 4, 4, 0}, {1, 4, 2, -1}, {4, 1, 4, 1}, {2, 2, 1, 2}};
    for (size_t c = 0; c < sizeof(shapes) / sizeof(shapes[0]); c++) {
        gate g;
        gate_init(&g);
        cuzk_engine_config cfg = {.workers = shapes[c][1], .prepare_workers = shapes[c][0],
                                  .finalize_workers = shapes[c][2], .prepare_ahead = shapes[c][3],
                                  .proof.threads = 1, .proof.device = CUZK_DEVICE_CPU, .stage_hook = gate_hook,
                                  .stage_hook_ctx = &g};
        cuzk_engine *e;
        cuzk_error err;
        CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
        gate_set_engine(&g, e);
        enum { JOBS = 12 };
        unsigned long long ids[JOBS];
        for (int i = 0; i < JOBS; i++) {
            char zk[1024], wt[1024];
            fixture_request(i % 6, zk, wt, sizeof(zk));
            cuzk_job_request r = {.key_path = zk, .witness_path = wt, .priority = i % 4};
            CHECK(cuzk_engine_submit(e, &r, &ids[i], &err) == CUZK_OK);
        }
        for (int i = 0; i < JOBS; i++) {
            cuzk_job_info info;
            CHECK(cuzk_engine_wait(e, ids[i], -1, &info, &err) == CUZK_OK);
            if (info.state != CUZK_JOB_DONE)
                fprintf(stderr, "job %llu: state %d: %s\n", info.id, info.state, info.error);
            CHECK(info.state == CUZK_JOB_DONE && info.stage == CUZK_STAGE_ENDED &&
                  info.ended_in == CUZK_STAGE_FINALIZE);
            const cuzk_timings *t = &info.timings;
            CHECK(t->prepare > 0 && t->compute > 0 && t->finalize > 0 && t->verify > 0 && t->msm_h > 0);
            CHECK(t->compute >= t->msm_h && t->finalize >= t->verify);
            CHECK(t->total > 0 && t->total <= info.latency);
            CHECK(info.queue_wait >= 0 && info.load >= 0 && info.ready_wait >= 0 && info.finalize_wait >= 0);
            CHECK(info.compute_worker >= 0 && info.compute_worker < shapes[c][1]);
            CHECK(strcmp(t->device, "cpu") == 0);
            check_proof(e, ids[i], i % 6);
        }
        cuzk_engine_stats st;
        cuzk_engine_get_stats(e, &st);
        CHECK(st.done == JOBS && st.failed == 0 && st.running == 0 && st.gpus == 0);
        CHECK(st.prepare_workers == shapes[c][0] && st.workers == shapes[c][1] &&
              st.finalize_workers == shapes[c][2]);
        CHECK(st.ready_queue_depth == (unsigned)shapes[c][1] && st.finalize_queue_depth == 2u * shapes[c][1]);
        CHECK(st.prepare_ahead == (shapes[c][3] > 0 ? shapes[c][3] : 0));
        CHECK(st.ready_max <= st.ready_queue_depth && st.finalize_queue_max <= st.finalize_queue_depth);
        CHECK(st.preparing + st.ready + st.computing + st.finalize_waiting + st.finalizing == 0);
        check_fraction(st.prepare_busy);
        check_fraction(st.worker_busy);
        check_fraction(st.finalize_busy);
        CHECK(st.worker_busy > 0);
        for (int w = 0; w < st.workers; w++) {
            check_fraction(st.compute_worker_busy[w]);
            CHECK(st.compute_worker_gpu[w] == -1);
        }
        CHECK(st.mean_compute > 0 && st.mean_finalize > 0 && st.mean_prepare > 0 && st.mean_verify > 0);
        CHECK(st.mean_latency >= st.mean_prepare + st.mean_compute + st.mean_finalize);
        pthread_mutex_lock(&g.mu);
        CHECK(g.max_ready_slots <= st.ready_queue_depth && g.max_final_slots <= st.finalize_queue_depth);
        pthread_mutex_unlock(&g.mu);
        printf("pipeline %d/%d/%d ahead %d: %d jobs, busy prepare %.0f %%, compute %.0f %%, finalize %.0f %%\n",
               shapes[c][0], shapes[c][1], shapes[c][2], st.prepare_ahead, JOBS, 100 * st.prepare_busy,
               100 * st.worker_busy, 100 * st.finalize_busy);
        cuzk_engine_destroy(e);
        gate_destroy(&g);
    }
}

static unsigned long long submit_tiny(cuzk_engine *e, int priority)
{
    char zk[1024], wt[1024];
    fixture_request(0, zk, wt, sizeof(zk));
    cuzk_job_request r = {.key_path = zk, .witness_path = wt, .priority = priority};
    unsigned long long id;
    cuzk_error err;
    CHECK(cuzk_engine_submit(e, &r, &id, &err) == CUZK_OK);
    return id;
}

static cuzk_job_info wait_job(cuzk_engine *e, unsigned long long id)
{
    cuzk_job_info info;
    cuzk_error err;
    CHECK(cuzk_engine_wait(e, id, -1, &info, &err) == CUZK_OK);
    return info;
}

static int index_of(const unsigned long long *list, int n, unsigned long long id)
{
    for (int i = 0; i < n; i++)
        if (list[i] == id)
            return i;
    return -1;
}

/* Priority order at each of the three queues, with the stage after it
 * held so that the queue fills first. */
static void test_pipeline_priorities(void)
{
    static const int mix[4] = {CUZK_PRIORITY_LOW, CUZK_PRIORITY_NORMAL, CUZK_PRIORITY_HIGH, CUZK_PRIORITY_CRITICAL};
    /* 1: admission. The pipeline is saturated as with a GPU (one job
     * prepared ahead): a blocker computing (held), a filler prepared in the
     * one ready slot; then LOW, NORMAL, CRITICAL, HIGH, LOW, CRITICAL
     * arrive and one LOW is cancelled. */
    {
        gate g;
        gate_init(&g);
        cuzk_engine_config cfg = {.workers = 1, .prepare_workers = 2, .finalize_workers = 1, .prepare_ahead = 1,
                                  .proof.threads = 1, .proof.device = CUZK_DEVICE_CPU, .stage_hook = gate_hook,
                                  .stage_hook_ctx = &g};
        cuzk_engine *e;
        cuzk_error err;
        CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
        gate_arm(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
        unsigned long long blocker = submit_tiny(e, CUZK_PRIORITY_LOW);
        CHECK(gate_wait_held(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER) == blocker);
        unsigned long long filler = submit_tiny(e, CUZK_PRIORITY_LOW);
        cuzk_engine_stats st;
        WAIT_STATS(e, st, st.ready == 1);
        static const int prio[6] = {0, 1, 3, 2, 0, 3};
        unsigned long long ids[6];
        for (int i = 0; i < 6; i++)
            ids[i] = submit_tiny(e, prio[i]);
        cuzk_engine_get_stats(e, &st);
        CHECK(st.queued[0] == 2 && st.queued[1] == 1 && st.queued[2] == 1 && st.queued[3] == 2);
        CHECK(st.preparing == 0 && st.ready == 1 && st.computing == 1); /* nobody prepares past the bound */
        CHECK(cuzk_engine_cancel(e, ids[4], &err) == CUZK_OK);
        gate_release(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
        cuzk_job_info b = wait_job(e, blocker), f = wait_job(e, filler), info[6];
        for (int i = 0; i < 6; i++)
            info[i] = wait_job(e, ids[i]);
        CHECK(info[4].state == CUZK_JOB_CANCELLED && info[4].ended_in == CUZK_STAGE_QUEUED);
        CHECK(b.state == CUZK_JOB_DONE && f.state == CUZK_JOB_DONE);
        /* compute order (finish order may differ: the finalize queue is
         * ordered by priority too): blocker, filler, then by priority */
        unsigned long long computed[64];
        int n = gate_order(&g, CUZK_STAGE_COMPUTE, computed, 64);
        static const int want[5] = {2, 5, 3, 1, 0};
        CHECK(n == 7 && computed[0] == blocker && computed[1] == filler);
        for (int i = 0; i < 5; i++)
            CHECK(computed[2 + i] == ids[want[i]] && info[want[i]].state == CUZK_JOB_DONE);
        cuzk_engine_destroy(e);
        gate_destroy(&g);
    }
    /* 2: the ready queue. Compute held; LOW, NORMAL, HIGH, CRITICAL are
     * prepared into a ready queue of 4 in that order; compute takes them
     * highest first. */
    {
        gate g;
        gate_init(&g);
        cuzk_engine_config cfg = {.workers = 1, .prepare_workers = 1, .ready_queue_depth = 4, .prepare_ahead = 4,
                                  .proof.threads = 1, .proof.device = CUZK_DEVICE_CPU, .stage_hook = gate_hook,
                                  .stage_hook_ctx = &g};
        cuzk_engine *e;
        cuzk_error err;
        CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
        gate_arm(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
        unsigned long long blocker = submit_tiny(e, CUZK_PRIORITY_CRITICAL), ids[4];
        CHECK(gate_wait_held(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER) == blocker);
        for (int i = 0; i < 4; i++)
            ids[i] = submit_tiny(e, mix[i]);
        cuzk_engine_stats st;
        WAIT_STATS(e, st, st.ready == 4);
        unsigned long long prepared[64];
        int n = gate_order(&g, CUZK_STAGE_PREPARE, prepared, 64);
        CHECK(n == 5);
        gate_release(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
        for (int i = 0; i < 4; i++)
            CHECK(wait_job(e, ids[i]).state == CUZK_JOB_DONE);
        unsigned long long computed[64];
        n = gate_order(&g, CUZK_STAGE_COMPUTE, computed, 64);
        CHECK(n == 5 && computed[0] == blocker);
        for (int i = 0; i < 4; i++)
            CHECK(index_of(computed, n, ids[i]) == 4 - i);
        cuzk_engine_get_stats(e, &st);
        CHECK(st.ready_max == 4);
        cuzk_engine_destroy(e);
        gate_destroy(&g);
    }
    /* 3: the finalize queue. Finalize held; the four are computed into a
     * finalize queue of 4 (whatever their order there); finalize takes
     * them highest first. */
    {
        gate g;
        gate_init(&g);
        cuzk_engine_config cfg = {.workers = 1, .prepare_workers = 1, .finalize_workers = 1, .finalize_queue_depth = 4,
                                  .proof.threads = 1, .proof.device = CUZK_DEVICE_CPU, .stage_hook = gate_hook,
                                  .stage_hook_ctx = &g};
        cuzk_engine *e;
        cuzk_error err;
        CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
        gate_arm(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
        unsigned long long blocker = submit_tiny(e, CUZK_PRIORITY_LOW), ids[4];
        CHECK(gate_wait_held(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER) == blocker);
        for (int i = 0; i < 4; i++)
            ids[i] = submit_tiny(e, mix[i]);
        cuzk_engine_stats st;
        WAIT_STATS(e, st, st.finalize_waiting == 4);
        gate_release(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
        cuzk_job_info info[4];
        for (int i = 0; i < 4; i++)
            info[i] = wait_job(e, ids[i]);
        for (int i = 0; i < 3; i++)
            CHECK(info[i + 1].finish_seq < info[i].finish_seq);
        cuzk_engine_get_stats(e, &st);
        CHECK(st.finalize_queue_max == 4);
        cuzk_engine_destroy(e);
        gate_destroy(&g);
    }
}

/* A job cancelled in each stage (held at its start, then at its end) ends
 * CANCELLED when the stage returns; one cancelled while waiting in the ready
 * or finalize queue ends at once. The engine goes on proving. */
static void test_pipeline_cancel(void)
{
    gate g;
    gate_init(&g);
    cuzk_engine_config cfg = {.workers = 1, .prepare_workers = 1, .finalize_workers = 1, .prepare_ahead = 1,
                              .proof.threads = 1, .proof.device = CUZK_DEVICE_CPU, .stage_hook = gate_hook,
                              .stage_hook_ctx = &g};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    static const int stages[3] = {CUZK_STAGE_PREPARE, CUZK_STAGE_COMPUTE, CUZK_STAGE_FINALIZE};
    unsigned long long cancelled = 0;
    for (int s = 0; s < 3; s++)
        for (int ev = CUZK_HOOK_ENTER; ev <= CUZK_HOOK_LEAVE; ev++) {
            gate_arm(&g, stages[s], ev);
            unsigned long long id = submit_tiny(e, CUZK_PRIORITY_NORMAL);
            CHECK(gate_wait_held(&g, stages[s], ev) == id);
            CHECK(cuzk_engine_cancel(e, id, &err) == CUZK_OK);
            cuzk_job_info info;
            CHECK(cuzk_engine_wait(e, id, 0, &info, &err) == CUZK_OK);
            CHECK(info.state == CUZK_JOB_RUNNING && info.stage == stages[s]); /* ends with its stage */
            gate_release(&g, stages[s], ev);
            info = wait_job(e, id);
            CHECK(info.state == CUZK_JOB_CANCELLED && info.status == CUZK_ERR_CANCELLED &&
                  info.ended_in == stages[s]);
            char *p, *q;
            CHECK(cuzk_engine_result(e, id, &p, &q, &err) == CUZK_ERR_CANCELLED);
            cancelled++;
        }
    /* waiting in the ready queue: compute held on a blocker */
    gate_arm(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    unsigned long long blocker = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    CHECK(gate_wait_held(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER) == blocker);
    unsigned long long id = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    cuzk_engine_stats st;
    WAIT_STATS(e, st, st.ready == 1);
    CHECK(cuzk_engine_cancel(e, id, &err) == CUZK_OK);
    cuzk_job_info info;
    CHECK(cuzk_engine_wait(e, id, 0, &info, &err) == CUZK_OK);
    CHECK(info.state == CUZK_JOB_CANCELLED && info.ended_in == CUZK_STAGE_READY);
    cuzk_engine_get_stats(e, &st);
    CHECK(st.ready == 0);
    cancelled++;
    gate_release(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    CHECK(wait_job(e, blocker).state == CUZK_JOB_DONE);
    /* waiting in the finalize queue: finalize held on a blocker */
    gate_arm(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    blocker = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    CHECK(gate_wait_held(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER) == blocker);
    id = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    WAIT_STATS(e, st, st.finalize_waiting == 1);
    CHECK(cuzk_engine_cancel(e, id, &err) == CUZK_OK);
    CHECK(cuzk_engine_wait(e, id, 0, &info, &err) == CUZK_OK);
    CHECK(info.state == CUZK_JOB_CANCELLED && info.ended_in == CUZK_STAGE_FINALIZE_WAIT);
    cancelled++;
    gate_release(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    CHECK(wait_job(e, blocker).state == CUZK_JOB_DONE);
    /* cancelling an ended job changes nothing */
    CHECK(cuzk_engine_cancel(e, blocker, &err) == CUZK_OK && wait_job(e, blocker).state == CUZK_JOB_DONE);
    /* and the engine still proves */
    id = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    CHECK(wait_job(e, id).state == CUZK_JOB_DONE);
    check_proof(e, id, 0);
    cuzk_engine_get_stats(e, &st);
    CHECK(st.cancelled == cancelled && st.done == 3 && st.failed == 0 && st.running == 0);
    CHECK(st.preparing + st.ready + st.computing + st.finalize_waiting + st.finalizing == 0);
    cuzk_engine_destroy(e);
    gate_destroy(&g);
}

/* The ready queue's bound holds with more prepare workers than it: with
 * compute held, exactly `depth` jobs are prepared ahead and the rest wait
 * in the admission queue; the same for the finalize queue. */
static void test_pipeline_bounds(void)
{
    gate g;
    gate_init(&g);
    cuzk_engine_config cfg = {.workers = 1, .prepare_workers = 4, .finalize_workers = 1, .ready_queue_depth = 2,
                              .prepare_ahead = 5 /* clamped to the depth */, .finalize_queue_depth = 3,
                              .proof.threads = 1, .proof.device = CUZK_DEVICE_CPU, .stage_hook = gate_hook,
                              .stage_hook_ctx = &g};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    gate_set_engine(&g, e);
    gate_arm(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    unsigned long long blocker = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    CHECK(gate_wait_held(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER) == blocker);
    enum { JOBS = 8 };
    unsigned long long ids[JOBS];
    for (int i = 0; i < JOBS; i++)
        ids[i] = submit_tiny(e, i % 4);
    cuzk_engine_stats st;
    WAIT_STATS(e, st, st.ready == 2 && st.preparing == 0);
    CHECK(st.queued[0] + st.queued[1] + st.queued[2] + st.queued[3] == JOBS - 2);
    gate_release(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    /* now hold finalize: computed jobs pile up to the finalize bound */
    gate_arm(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    gate_wait_held(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    WAIT_STATS(e, st, st.finalize_waiting == 3 && st.computing == 0 && st.ready == 2 && st.preparing == 0);
    gate_release(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    for (int i = 0; i < JOBS; i++)
        CHECK(wait_job(e, ids[i]).state == CUZK_JOB_DONE);
    cuzk_engine_get_stats(e, &st);
    CHECK(st.ready_max == 2 && st.finalize_queue_max == 3 && st.done == JOBS + 1 && st.prepare_ahead == 2);
    pthread_mutex_lock(&g.mu);
    CHECK(g.max_ready_slots <= 2 && g.max_final_slots <= 3);
    pthread_mutex_unlock(&g.mu);
    cuzk_engine_destroy(e);
    gate_destroy(&g);
}

/* Destroy with a job in every stage and queue: finalize (held), finalize
 * wait, compute (held), ready, prepare (held), queued. The hook's STOP
 * opens the gates; everything is freed (AddressSanitizer checks). */
static void test_pipeline_shutdown(void)
{
    gate g;
    gate_init(&g);
    cuzk_engine_config cfg = {.workers = 1, .prepare_workers = 1, .finalize_workers = 1, .ready_queue_depth = 2,
                              .prepare_ahead = 2, .finalize_queue_depth = 2, .proof.threads = 1,
                              .proof.device = CUZK_DEVICE_CPU, .stage_hook = gate_hook, .stage_hook_ctx = &g};
    cuzk_engine *e;
    cuzk_error err;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    cuzk_engine_stats st;
    gate_arm(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER);
    unsigned long long a = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    CHECK(gate_wait_held(&g, CUZK_STAGE_FINALIZE, CUZK_HOOK_ENTER) == a);
    submit_tiny(e, CUZK_PRIORITY_NORMAL);
    WAIT_STATS(e, st, st.finalize_waiting == 1 && st.computing == 0);
    gate_arm(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER);
    unsigned long long b = submit_tiny(e, CUZK_PRIORITY_NORMAL);
    CHECK(gate_wait_held(&g, CUZK_STAGE_COMPUTE, CUZK_HOOK_ENTER) == b);
    /* a witness given as bytes: its copy must be freed too */
    char zk[1024], wt[1024];
    fixture_request(4, zk, wt, sizeof(zk));
    size_t len;
    char *bytes = slurp(wt, &len);
    cuzk_job_request r = {.key_path = zk, .witness = bytes, .witness_len = len};
    unsigned long long d;
    CHECK(cuzk_engine_submit(e, &r, &d, &err) == CUZK_OK);
    free(bytes);
    WAIT_STATS(e, st, st.ready == 1 && st.preparing == 0);
    gate_arm(&g, CUZK_STAGE_PREPARE, CUZK_HOOK_LEAVE);
    unsigned long long p = submit_tiny(e, CUZK_PRIORITY_HIGH);
    CHECK(gate_wait_held(&g, CUZK_STAGE_PREPARE, CUZK_HOOK_LEAVE) == p);
    submit_tiny(e, CUZK_PRIORITY_LOW);
    cuzk_engine_get_stats(e, &st);
    CHECK(st.finalizing == 1 && st.finalize_waiting == 1 && st.computing == 1 && st.ready == 1 &&
          st.preparing == 1 && st.queued[CUZK_PRIORITY_LOW] == 1 && st.running == 5);
    cuzk_engine_destroy(e);
    pthread_mutex_lock(&g.mu);
    CHECK(g.stopped);
    pthread_mutex_unlock(&g.mu);
    gate_destroy(&g);
}

static void test_pipeline_config(void)
{
    cuzk_engine *e;
    cuzk_error err;
    cuzk_engine_config bad[] = {{.prepare_workers = -1}, {.finalize_workers = 1000}, {.gpu_workers_per_device = -2},
                                {.ready_queue_depth = 1u << 20}, {.prepare_ahead = -2}, {.no_prestage = 2},
                                {.no_prestage = -1}, {.proof.gpu_upload = 2}, {.proof.gpu_eval = -1}, {.workers = 257},
                                {.max_jobs = 2000000}, {.proof.device = 7}};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK(test_engine_create(&bad[i], &e, &err) == CUZK_ERR_INVALID_ARGUMENT);
    /* defaults: one prepare worker and one ready slot per compute worker,
     * one finalize worker, two finalize slots per compute worker, and on
     * the CPU nothing prepared ahead */
    cuzk_engine_config cfg = {.workers = 3, .proof.device = CUZK_DEVICE_CPU};
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    CHECK(st.workers == 3 && st.prepare_workers == 3 && st.finalize_workers == 1 && st.ready_queue_depth == 3 &&
          st.finalize_queue_depth == 6 && st.gpus == 0 && st.prepare_ahead == 0);
    cuzk_engine_destroy(e);
}

/* bellperson .params keys: by path with their circuit, and by id; a
 * circuit the key does not belong to, and one missing, fail the job. */
static void test_params_keys(void)
{
    test_context = "engine: .params keys";
    char dir[] = "/tmp/cuzk-test-engine-params-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char r1cs[1024], wt[1024], other[1024], key[1100];
    path_of(r1cs, sizeof(r1cs), "bls12381", "poseidon3", "r1cs");
    path_of(wt, sizeof(wt), "bls12381", "poseidon3", "wtns");
    path_of(other, sizeof(other), "bls12381", "mul1k", "r1cs");
    snprintf(key, sizeof(key), "%s/k.params", dir);
    cuzk_error err;
    cuzk_setup_options so = {.device = CUZK_DEVICE_CPU, .format = CUZK_KEY_PARAMS};
    CHECK_MSG(cuzk_setup(r1cs, NULL, key, &so, &err) == CUZK_OK, "%s", err.message);
    cuzk_engine_config cfg = {.workers = 2, .proof.threads = 1};
    cuzk_engine *e;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    CHECK_MSG(cuzk_engine_key_load_params(e, "bp", key, r1cs, &err) == CUZK_OK, "%s", err.message);
    cuzk_job_request reqs[5] = {
        {.key_path = key, .r1cs_path = r1cs, .witness_path = wt},
        {.key_id = "bp", .witness_path = wt},
        {.key_path = key, .r1cs_path = r1cs, .witness_path = wt}, /* the cached copy */
        {.key_path = key, .r1cs_path = other, .witness_path = wt},
        {.key_path = key, .witness_path = wt},
    };
    unsigned long long ids[5];
    for (int i = 0; i < 5; i++)
        CHECK(cuzk_engine_submit(e, &reqs[i], &ids[i], &err) == CUZK_OK);
    for (int i = 0; i < 5; i++) {
        cuzk_job_info info;
        CHECK(cuzk_engine_wait(e, ids[i], -1, &info, &err) == CUZK_OK);
        if (i < 3) {
            CHECK_MSG(info.state == CUZK_JOB_DONE, "job %d: %s", i, info.error);
            char *p, *q;
            CHECK(cuzk_engine_result(e, ids[i], &p, &q, &err) == CUZK_OK && strstr(p, "bls12381"));
            cuzk_free(p);
            cuzk_free(q);
        } else
            CHECK_MSG(info.state == CUZK_JOB_FAILED && info.status == CUZK_ERR_FORMAT &&
                          strstr(info.error, i == 3 ? "is not a key of" : "k.params"),
                      "job %d: %s", i, info.error);
    }
    cuzk_job_request bad = {.key_id = "bp", .r1cs_path = r1cs, .witness_path = wt};
    unsigned long long id;
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_ERR_INVALID_ARGUMENT && strstr(err.message, "r1cs_path"));
    CHECK(cuzk_engine_key_load_params(e, "bp2", key, other, &err) == CUZK_ERR_FORMAT);
    CHECK(cuzk_engine_key_load_params(e, "bp3", key, NULL, &err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_engine_key_evict(e, key, &err) == CUZK_OK); /* by its path, whatever its circuit */
    cuzk_engine_destroy(e);
    unlink(key);
    rmdir(dir);
}

/* Jobs whose witness the prepare worker makes from the key's circuit
 * (porep-shape's native form), or that borrow the caller's open witness:
 * every partition proves (the engine's pairing check), the same as from
 * the partition's .wtns file; a key whose circuit makes no witness, a
 * partition past the circuit's, and two witnesses at once are refused. */
static void test_generated_witnesses(void)
{
    test_context = "engine: generated witnesses";
    char dir[] = "/tmp/cuzk-test-engine-porep-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char circ[1100], key[1100], wt[1100], zk[1024], wfix[1024];
    snprintf(circ, sizeof(circ), "%s/circuit.porep", dir);
    snprintf(key, sizeof(key), "%s/k.params", dir);
    snprintf(wt, sizeof(wt), "%s/partition_2.wtns", dir);
    path_of(zk, sizeof(zk), "bls12381", "poseidon3", "zkey");
    path_of(wfix, sizeof(wfix), "bls12381", "poseidon3", "wtns");
    cuzk_error err;
    cuzk_porep_shape_options po = {.constraints = 4096, .partitions = 3, .seed = 4,
                                   .format = CUZK_POREP_FORMAT_NATIVE, .witness_files = 1};
    CHECK_MSG(cuzk_circuit_porep_shape(dir, &po, NULL, &err) == CUZK_OK, "%s", err.message);
    cuzk_setup_options so = {.device = CUZK_DEVICE_CPU, .format = CUZK_KEY_PARAMS};
    CHECK_MSG(cuzk_setup(circ, NULL, key, &so, &err) == CUZK_OK, "%s", err.message);
    cuzk_engine_config cfg = {.workers = 2, .proof.threads = 1};
    cuzk_engine *e;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    CHECK_MSG(cuzk_engine_key_load_params(e, "porep", key, circ, &err) == CUZK_OK, "%s", err.message);
    cuzk_wtns *w2;
    CHECK(cuzk_wtns_open(&w2, wt, &err) == CUZK_OK);
    cuzk_job_request reqs[7] = {
        {.key_id = "porep", .generate_witness = 1, .partition = 0},
        {.key_id = "porep", .generate_witness = 1, .partition = 1},
        {.key_id = "porep", .generate_witness = 1, .partition = 2},
        {.key_id = "porep", .witness_path = wt},
        {.key_id = "porep", .witness_wtns = w2},
        {.key_id = "porep", .generate_witness = 1, .partition = 3},
        {.key_path = zk, .generate_witness = 1},
    };
    unsigned long long ids[7];
    for (int i = 0; i < 7; i++)
        CHECK(cuzk_engine_submit(e, &reqs[i], &ids[i], &err) == CUZK_OK);
    char *pub[5] = {NULL};
    for (int i = 0; i < 7; i++) {
        cuzk_job_info info;
        CHECK(cuzk_engine_wait(e, ids[i], -1, &info, &err) == CUZK_OK);
        if (i < 5) {
            CHECK_MSG(info.state == CUZK_JOB_DONE, "job %d: %s", i, info.error);
            CHECK(i < 3 ? info.witness > 0 : info.witness == 0);
            char *p;
            CHECK(cuzk_engine_result(e, ids[i], &p, &pub[i], &err) == CUZK_OK);
            cuzk_free(p);
        } else
            CHECK_MSG(info.state == CUZK_JOB_FAILED && info.status == CUZK_ERR_INVALID_ARGUMENT &&
                          strstr(info.error, i == 5 ? "partition 3: the circuit has 3" : "makes no witnesses"),
                      "job %d: %s", i, info.error);
    }
    /* partition 2's public inputs, made or read, are the same; partition 0's differ */
    CHECK(!strcmp(pub[2], pub[3]) && !strcmp(pub[2], pub[4]) && strcmp(pub[0], pub[2]) != 0);
    for (int i = 0; i < 5; i++)
        cuzk_free(pub[i]);
    cuzk_job_request bad = {.key_id = "porep", .generate_witness = 1, .witness_path = wt};
    unsigned long long id;
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_ERR_INVALID_ARGUMENT && strstr(err.message, "(one)"));
    bad = (cuzk_job_request){.key_id = "porep", .witness_wtns = w2, .witness_path = wfix};
    CHECK(cuzk_engine_submit(e, &bad, &id, &err) == CUZK_ERR_INVALID_ARGUMENT);
    cuzk_engine_destroy(e);
    cuzk_wtns_free(w2); /* after the jobs that borrowed it */
    for (int p = 0; p < 3; p++) {
        snprintf(wt, sizeof(wt), "%s/partition_%d.wtns", dir, p);
        unlink(wt);
    }
    unlink(circ);
    unlink(key);
    rmdir(dir);
}

/* Item k of a JSON array of objects or arrays (the engine's partition
 * results) into out: the k-th top-level element, by bracket depth (the
 * items hold only numbers in strings, no brackets inside strings). */
static void json_item(const char *arr, unsigned k, char *out, size_t cap)
{
    CHECK(*arr == '[');
    const char *p = arr + 1, *start = NULL;
    int depth = 0;
    unsigned item = 0;
    for (; *p; p++) {
        if ((*p == '{' || *p == '[') && depth++ == 0 && item == k)
            start = p;
        if ((*p == '}' || *p == ']') && --depth == 0 && start) {
            size_t n = (size_t)(p + 1 - start);
            CHECK(n < cap);
            memcpy(out, start, n);
            out[n] = 0;
            return;
        }
        if (*p == ',' && depth == 0)
            item++;
    }
    CHECK_MSG(0, "no item %u in %.80s", k, arr);
}

/* Jobs of several partitions: the pipeline proves them one after another,
 * the job's results are arrays (each proof verified against the job's vk,
 * bellperson's bytes of each equal to its proof's), its info sums the
 * partitions'; a partition that fails fails the job naming it; cancel
 * ends every partition; bad requests are refused. */
static void test_partition_jobs(void)
{
    test_context = "engine: jobs of several partitions";
    char dir[] = "/tmp/cuzk-test-engine-parts-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char circ[1100], key[1100], wt[3][1100];
    snprintf(circ, sizeof(circ), "%s/circuit.porep", dir);
    snprintf(key, sizeof(key), "%s/k.params", dir);
    for (int p = 0; p < 3; p++)
        snprintf(wt[p], sizeof(wt[p]), "%s/partition_%d.wtns", dir, p);
    cuzk_error err;
    cuzk_porep_shape_options po = {.constraints = 4096, .partitions = 3, .seed = 9,
                                   .format = CUZK_POREP_FORMAT_NATIVE, .witness_files = 1};
    CHECK_MSG(cuzk_circuit_porep_shape(dir, &po, NULL, &err) == CUZK_OK, "%s", err.message);
    cuzk_setup_options so = {.device = CUZK_DEVICE_CPU, .format = CUZK_KEY_PARAMS};
    CHECK_MSG(cuzk_setup(circ, NULL, key, &so, &err) == CUZK_OK, "%s", err.message);
    gate g;
    gate_init(&g);
    cuzk_engine_config cfg = {.workers = 2, .proof.threads = 1, .max_jobs = 8, .stage_hook = gate_hook,
                              .stage_hook_ctx = &g};
    cuzk_engine *e;
    CHECK(test_engine_create(&cfg, &e, &err) == CUZK_OK);
    CHECK_MSG(cuzk_engine_key_load_params(e, "porep", key, circ, &err) == CUZK_OK, "%s", err.message);
    const char *paths[3] = {wt[0], wt[1], wt[2]};
    cuzk_job_request reqs[3] = {
        {.key_id = "porep", .generate_witness = 1, .partitions = 3},
        {.key_id = "porep", .witness_paths = paths, .partitions = 3, .priority = CUZK_PRIORITY_HIGH},
        {.key_id = "porep", .generate_witness = 1, .partition = 2, .partitions = 1},
    };
    unsigned long long ids[3];
    for (int i = 0; i < 3; i++)
        CHECK_MSG(cuzk_engine_submit(e, &reqs[i], &ids[i], &err) == CUZK_OK, "%s", err.message);
    /* 3 + 3 + 1 partitions of the 8 proofs max_jobs allows: one more of 2 does not fit */
    unsigned long long id;
    CHECK(cuzk_engine_submit(e, &(cuzk_job_request){.key_id = "porep", .generate_witness = 1, .partitions = 2},
                             &id, &err) == CUZK_ERR_BUSY &&
          strstr(err.message, "no room for 2 partitions"));
    char *proof[3], *pub[3];
    for (int i = 0; i < 3; i++) {
        cuzk_job_info info;
        CHECK(cuzk_engine_wait(e, ids[i], -1, &info, &err) == CUZK_OK);
        unsigned n = i < 2 ? 3 : 1;
        CHECK_MSG(info.state == CUZK_JOB_DONE && info.partitions == n && info.partitions_ended == n &&
                      info.stage == CUZK_STAGE_ENDED,
                  "job %d: state %d, %u of %u partitions: %s", i, info.state, info.partitions_ended, info.partitions,
                  info.error);
        CHECK(i == 1 ? info.witness == 0 : info.witness > 0);
        double sum = 0;
        for (unsigned k = 0; k < n; k++) {
            cuzk_job_info pi;
            CHECK(cuzk_engine_partition_info(e, ids[i], k, &pi, &err) == CUZK_OK);
            CHECK(pi.state == CUZK_JOB_DONE && pi.id == ids[i] && pi.partitions == 1);
            sum += pi.timings.msm_h;
        }
        CHECK(sum > 0 && info.timings.msm_h > 0.999 * sum && info.timings.msm_h < 1.001 * sum);
        CHECK(cuzk_engine_partition_info(e, ids[i], n, &info, &err) == CUZK_ERR_NOT_FOUND &&
              strstr(err.message, "no partition"));
        CHECK(cuzk_engine_result(e, ids[i], &proof[i], &pub[i], &err) == CUZK_OK);
        CHECK(proof[i][0] == '[' && pub[i][0] == '[');
    }
    /* made or read, the partitions' public inputs are the same, and differ between partitions */
    CHECK(!strcmp(pub[0], pub[1]));
    static char item[3][200000], pitem[3][100000];
    for (unsigned k = 0; k < 3; k++)
        json_item(pub[0], k, pitem[k], sizeof(pitem[k]));
    CHECK(strcmp(pitem[0], pitem[1]) && strcmp(pitem[1], pitem[2]));
    json_item(pub[2], 0, item[0], sizeof(item[0]));
    CHECK(!strcmp(item[0], pitem[2])); /* partition = 2, partitions = 1: partition 2 */
    unsigned char *bp;
    size_t bl;
    CHECK_MSG(cuzk_engine_result_bellperson(e, ids[0], &bp, &bl, &err) == (cuzk_has_json() ? CUZK_OK : CUZK_ERR_UNSUPPORTED),
              "%s", err.message);
    if (cuzk_has_json()) {
        char *vk;
        CHECK(bl == 3 * CUZK_BELLPERSON_PROOF_BYTES);
        CHECK(cuzk_engine_result_vk(e, ids[0], &vk, &err) == CUZK_OK);
        for (unsigned k = 0; k < 3; k++) {
            unsigned char one[CUZK_BELLPERSON_PROOF_BYTES];
            json_item(proof[0], k, item[k], sizeof(item[k]));
            CHECK_MSG(cuzk_verify_json(vk, strlen(vk), pitem[k], strlen(pitem[k]), item[k], strlen(item[k]), &err) ==
                          CUZK_OK,
                      "partition %u: %s", k, err.message);
            CHECK(cuzk_proof_to_bellperson(item[k], strlen(item[k]), one, &err) == CUZK_OK);
            CHECK(!memcmp(one, bp + k * CUZK_BELLPERSON_PROOF_BYTES, sizeof(one)));
        }
        cuzk_free(vk);
        cuzk_free(bp);
    }
    for (int i = 0; i < 3; i++) {
        cuzk_free(proof[i]);
        cuzk_free(pub[i]);
        CHECK(cuzk_engine_release(e, ids[i], &err) == CUZK_OK);
    }
    /* partitions 1..3 of a circuit of 3: partition 3 fails the job, named */
    CHECK(cuzk_engine_submit(e, &(cuzk_job_request){.key_id = "porep", .generate_witness = 1, .partition = 1,
                                                    .partitions = 3},
                             &id, &err) == CUZK_OK);
    cuzk_job_info info;
    CHECK(cuzk_engine_wait(e, id, -1, &info, &err) == CUZK_OK);
    CHECK_MSG(info.state == CUZK_JOB_FAILED && info.partitions_ended == 3 &&
                  !strncmp(info.error, "partition 3: ", 13) && strstr(info.error, "the circuit has 3"),
              "%d %s", info.state, info.error);
    char *p1, *p2;
    CHECK(cuzk_engine_result(e, id, &p1, &p2, &err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(cuzk_engine_result_bellperson(e, id, &bp, &bl, &err) == CUZK_ERR_INVALID_ARGUMENT && !bp && !bl);
    CHECK(cuzk_engine_release(e, id, &err) == CUZK_OK);
    /* cancel: the first partition to enter prepare held there (which one
     * is a race of the two workers; the others may run meanwhile, even end) */
    gate_arm(&g, CUZK_STAGE_PREPARE, CUZK_HOOK_ENTER);
    CHECK(cuzk_engine_submit(e, &reqs[0], &id, &err) == CUZK_OK);
    CHECK(gate_wait_held(&g, CUZK_STAGE_PREPARE, CUZK_HOOK_ENTER) == id);
    CHECK(cuzk_engine_wait(e, id, 0, &info, &err) == CUZK_OK && info.state == CUZK_JOB_RUNNING &&
          info.partitions_ended < 3);
    CHECK(cuzk_engine_cancel(e, id, &err) == CUZK_OK);
    CHECK(cuzk_engine_release(e, id, &err) == CUZK_ERR_BUSY); /* partition 0 is still in its stage */
    gate_release(&g, CUZK_STAGE_PREPARE, CUZK_HOOK_ENTER);
    CHECK(cuzk_engine_wait(e, id, -1, &info, &err) == CUZK_OK);
    CHECK(info.state == CUZK_JOB_CANCELLED && info.partitions_ended == 3);
    unsigned n_cancelled = 0;
    for (unsigned k = 0; k < 3; k++) {
        cuzk_job_info pi;
        CHECK(cuzk_engine_partition_info(e, id, k, &pi, &err) == CUZK_OK &&
              (pi.state == CUZK_JOB_CANCELLED || pi.state == CUZK_JOB_DONE));
        n_cancelled += pi.state == CUZK_JOB_CANCELLED;
    }
    CHECK(n_cancelled >= 1); /* the held one at least */
    CHECK(cuzk_engine_result(e, id, &p1, &p2, &err) == CUZK_ERR_CANCELLED);
    CHECK(cuzk_engine_release(e, id, &err) == CUZK_OK);
    /* refused requests */
    struct {
        cuzk_job_request r;
        int status;
        const char *msg;
    } bad[] = {
        {{.key_id = "porep", .witness_path = wt[0], .partitions = 2}, CUZK_ERR_INVALID_ARGUMENT, "witness_paths"},
        {{.key_id = "porep", .witness_paths = paths}, CUZK_ERR_INVALID_ARGUMENT, "goes with partitions"},
        {{.key_id = "porep", .witness_paths = paths, .generate_witness = 1, .partitions = 3},
         CUZK_ERR_INVALID_ARGUMENT, "(one)"},
        {{.key_id = "porep", .generate_witness = 1, .partitions = CUZK_JOB_MAX_PARTITIONS + 1},
         CUZK_ERR_INVALID_ARGUMENT, "partitions expects 1 to"},
        {{.key_id = "porep", .generate_witness = 1, .partition = UINT32_MAX, .partitions = 2},
         CUZK_ERR_INVALID_ARGUMENT, "past the last partition"},
        {{.key_id = "porep", .generate_witness = 1, .partitions = 9}, CUZK_ERR_BUSY, "no room for 9"},
    };
    const char *with_null[3] = {wt[0], NULL, wt[2]};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECK_MSG(cuzk_engine_submit(e, &bad[i].r, &id, &err) == bad[i].status && strstr(err.message, bad[i].msg),
                  "case %zu: %s", i, err.message);
    CHECK(cuzk_engine_submit(e, &(cuzk_job_request){.key_id = "porep", .witness_paths = with_null, .partitions = 3},
                             &id, &err) == CUZK_ERR_INVALID_ARGUMENT &&
          strstr(err.message, "witness_paths[1] is NULL"));
    cuzk_engine_destroy(e);
    gate_destroy(&g);
    /* the jobs' host memory: a budget of one byte keeps one witness in the
     * pipeline at a time (one job always runs), one of two and a half keeps
     * two; every job still proves */
    uint64_t one = 0;
    for (int round = 0; round < 3; round++) {
        cuzk_engine_config mc = {.workers = 3, .proof.threads = 1, .prepare_ahead = 3,
                                 .job_memory_budget = round == 0 ? 1 : round == 1 ? one * 5 / 2 : 0};
        CHECK(test_engine_create(&mc, &e, &err) == CUZK_OK);
        CHECK_MSG(cuzk_engine_key_load_params(e, "porep", key, circ, &err) == CUZK_OK, "%s", err.message);
        CHECK(cuzk_engine_submit(e, &(cuzk_job_request){.key_id = "porep", .generate_witness = 1, .partitions = 3},
                                 &id, &err) == CUZK_OK);
        CHECK(cuzk_engine_wait(e, id, -1, &info, &err) == CUZK_OK && info.state == CUZK_JOB_DONE);
        cuzk_engine_stats st;
        cuzk_engine_get_stats(e, &st);
        CHECK(st.job_bytes == 0);
        if (round == 0)
            one = st.job_bytes_max; /* a witness: 32 bytes a wire */
        CHECK_MSG(one > 0 && (round == 0 || st.job_bytes_max <= (round == 1 ? 2 * one : 3 * one)),
                  "round %d: %llu bytes held at most, a job %llu", round, st.job_bytes_max, (unsigned long long)one);
        cuzk_engine_destroy(e);
    }
    for (int p = 0; p < 3; p++)
        unlink(wt[p]);
    unlink(circ);
    unlink(key);
    rmdir(dir);
}

/* The devices the engine can use, as `cuzk version` reports them: each
 * one's properties, and the bad calls refused (a device out of range, no
 * output; no CUDA in the build). */
static void test_gpu_properties(void)
{
    test_context = "gpu properties";
    int gpus = 0;
    CHECK(cuzk_gpu_count(&gpus) == CUZK_OK);
    cuzk_gpu_properties gp;
    CHECK(cuzk_gpu_get_properties(0, NULL) == CUZK_ERR_INVALID_ARGUMENT);
    int absent = cuzk_has_cuda() ? CUZK_ERR_INVALID_ARGUMENT : CUZK_ERR_UNSUPPORTED;
    CHECK(cuzk_gpu_get_properties(-1, &gp) == absent);
    CHECK(cuzk_gpu_get_properties(gpus, &gp) == absent);
    for (int d = 0; d < gpus; d++) {
        CHECK(cuzk_gpu_get_properties(d, &gp) == CUZK_OK);
        CHECK(gp.name[0] != 0 && memchr(gp.name, 0, sizeof(gp.name)) != NULL);
        CHECK(gp.memory_bytes > 0 && gp.multiprocessors > 0 && gp.compute_major >= 5);
        CHECK(strlen(gp.pci_bus_id) == 12);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s FIXTURES_DIR\n", argv[0]);
        return 2;
    }
    fixtures = realpath(argv[1], NULL); /* absolute: test_key_files_change changes directory */
    cuzk_error rerr;
    CHECK(cuzk_testcircuits_register(&rerr) == CUZK_OK); /* porep-shape's native keys */
    CHECK(fixtures != NULL);
    test_init("test_engine");
    test_gpu_properties();
    test_state_names();
    test_many_jobs();
    test_priorities_and_cancel();
    test_key_cache_and_bad_input();
    test_params_keys();
    test_generated_witnesses();
    test_partition_jobs();
    test_key_files_change();
    test_pipeline_config();
    test_pipeline_shapes();
    test_pipeline_priorities();
    test_pipeline_cancel();
    test_pipeline_bounds();
    test_pipeline_shutdown();
    test_done("test_engine");
    return 0;
}
