/* The PostgreSQL job queue's own ceiling (src/server/pgqueue.c): T threads,
 * each a connection (a node), each job's whole life in the queue — submit,
 * claim, a lease renewal, its end with a result of a proof's size, a read
 * of it — for S seconds; prints jobs a second, so the nodes a database can
 * feed at a given proof rate (docs/cluster.md, BENCHMARKS.md).
 *   bench_pgqueue CONNINFO [THREADS [SECONDS]]   (tests/pg_server.sh starts a server) */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/programs.h"

static const char *conninfo;
static double seconds;
static const char *const porep_key[1] = {"id:porep"}; /* the jobs' key, held */

typedef struct worker {
    int index;
    unsigned long long jobs;
    int failed;
} worker;

static void *run(void *arg)
{
    worker *w = arg;
    cuzk_error err = {0};
    pgq *q;
    char node[32];
    snprintf(node, sizeof(node), "bench-%d", w->index);
    if (pgq_open(&q, conninfo, node, 10, &err) != CUZK_OK) {
        fprintf(stderr, "%s\n", err.message);
        w->failed = 1;
        return NULL;
    }
    /* a proof.json's size of result */
    char result[1200];
    int n = snprintf(result, sizeof(result), "{\"proof\": {\"pi_a\": [\"");
    memset(result + n, '7', 900);
    snprintf(result + n + 900, sizeof(result) - (size_t)n - 900, "\"]}}");
    double end = cuzk_now() + seconds;
    for (unsigned long long k = 0; cuzk_now() < end; k++) {
        char id[33], existing[33];
        snprintf(id, sizeof(id), "%08x%08x%016llx", (unsigned)w->index, 0u, k);
        pgq_new_job j = {.id = id, .priority = 1, .request_json = "{\"key_id\": \"porep\", \"partitions\": 10}",
                         .max_attempts = 3};
        int known;
        pgq_claimed c;
        pgq_job got;
        if (pgq_submit(q, &j, &known, existing, &err) != CUZK_OK || pgq_claim(q, 30, porep_key, 1, &c, &err) != CUZK_OK) {
            fprintf(stderr, "%s\n", err.message);
            w->failed = 1;
            break;
        }
        int rc = pgq_renew(q, c.id, c.token, 30, &err);
        if (rc == CUZK_OK)
            rc = pgq_finish(q, c.id, c.token, CUZK_JOB_DONE, result, NULL, &err);
        if (rc == CUZK_OK && pgq_get(q, c.id, &got, &err) == CUZK_OK)
            pgq_job_free(&got);
        pgq_claimed_free(&c);
        if (rc != CUZK_OK) {
            fprintf(stderr, "%s\n", err.message);
            w->failed = 1;
            break;
        }
        w->jobs++;
    }
    pgq_close(q);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s CONNINFO [THREADS [SECONDS]]\n", argv[0]);
        return 2;
    }
    conninfo = argv[1];
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    seconds = argc > 3 ? atof(argv[3]) : 5;
    if (threads < 1 || threads > 64 || !(seconds > 0 && seconds <= 600)) {
        fprintf(stderr, "THREADS 1 to 64, SECONDS up to 600\n");
        return 2;
    }
    worker w[64];
    pthread_t th[64];
    double t0 = cuzk_now();
    for (int i = 0; i < threads; i++) {
        w[i] = (worker){.index = i};
        pthread_create(&th[i], NULL, run, &w[i]);
    }
    unsigned long long total = 0;
    int failed = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(th[i], NULL);
        total += w[i].jobs;
        failed |= w[i].failed;
    }
    double t = cuzk_now() - t0;
    printf("bench_pgqueue: %d connection%s, %.1f s: %llu jobs (submit, claim, renew, end, read), %.0f jobs/s\n", threads,
           threads == 1 ? "" : "s", t, total, total / t);
    return failed;
}
