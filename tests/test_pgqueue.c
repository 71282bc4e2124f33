/* The PostgreSQL job queue (src/server/pgqueue.c) against a real server
 * of the test's own (tests/test_pgqueue.sh starts it):
 *   - the schema made once by nodes opening together, and a newer one refused;
 *   - claims by priority then age; eight threads of two nodes racing over 200
 *     jobs claim each exactly once (FOR UPDATE SKIP LOCKED);
 *   - leases: renewed; an expired one's job queued again with the reason and
 *     claimed by another node, whose result stands; the old token writes
 *     nothing (fencing); attempts past max_attempts end failed with every
 *     attempt's reason;
 *   - cancel (queued: at once; running: at the next renewal), delete;
 *   - request ids: the same request is a duplicate, another a conflict;
 *   - an uploaded witness's bytes round trip; LISTEN/NOTIFY;
 *   - the server restarted under the connections: every call after works.
 * usage: test_pgqueue CONNINFO RESTART_COMMAND */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "../src/server/pgqueue.h"
#include "test_util.h"

static const char *conninfo;

static void job_id(char out[33], unsigned k)
{
    snprintf(out, 33, "%032x", k);
}

static void submit(pgq *q, unsigned k, int priority, int max_attempts)
{
    char id[33], existing[33];
    job_id(id, k);
    pgq_new_job j = {.id = id, .priority = priority, .request_json = "{\"key_id\": \"k\"}", .max_attempts = max_attempts};
    int known;
    cuzk_error err = {0};
    CHECK_MSG(pgq_submit(q, &j, &known, existing, &err) == CUZK_OK && known == PGQ_NEW, "%s", err.message);
}

static unsigned claim(pgq *q, double lease, int64_t *token)
{
    pgq_claimed c;
    cuzk_error err = {0};
    CHECK_MSG(pgq_claim(q, lease, &c, &err) == CUZK_OK, "%s", err.message);
    unsigned k = (unsigned)strtoul(c.id, NULL, 16);
    if (token)
        *token = c.token;
    pgq_claimed_free(&c);
    return k;
}

typedef struct racer {
    pgq *q;
    unsigned got[256], n;
} racer;

static void *race(void *arg)
{
    racer *r = arg;
    for (;;) {
        pgq_claimed c;
        cuzk_error err = {0};
        int rc = pgq_claim(r->q, 60, &c, &err);
        if (rc == CUZK_ERR_NOT_FOUND)
            break;
        CHECK_MSG(rc == CUZK_OK, "%s", err.message);
        CHECK(r->n < 256);
        r->got[r->n++] = (unsigned)strtoul(c.id, NULL, 16);
        CHECK(pgq_finish(r->q, c.id, c.token, CUZK_JOB_DONE, "{\"proof\": 1}", NULL, &err) == CUZK_OK);
        pgq_claimed_free(&c);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s CONNINFO RESTART_COMMAND\n", argv[0]);
        return 2;
    }
    conninfo = argv[1];
    test_init("test_pgqueue");
    test_context = "schema";
    cuzk_error err = {0};
    pgq *a, *b;
    CHECK_MSG(pgq_open(&a, conninfo, "node-a", &err) == CUZK_OK, "%s", err.message);
    CHECK_MSG(pgq_open(&b, conninfo, "node-b", &err) == CUZK_OK, "%s", err.message);
    pgq *x;
    CHECK(pgq_open(&x, conninfo, "has a blank", &err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(pgq_open(&x, "postgresql://nobody@127.0.0.1:1/none", "n", &err) == CUZK_ERR_IO &&
          strstr(err.message, "cannot connect"));

    test_context = "priorities";
    submit(a, 1, CUZK_PRIORITY_NORMAL, 3);
    submit(a, 2, CUZK_PRIORITY_LOW, 3);
    submit(b, 3, CUZK_PRIORITY_CRITICAL, 3);
    submit(b, 4, CUZK_PRIORITY_NORMAL, 3);
    int64_t t[4];
    unsigned order[4];
    for (int i = 0; i < 4; i++)
        order[i] = claim(i % 2 ? b : a, 60, &t[i]);
    CHECK(order[0] == 3 && order[1] == 1 && order[2] == 4 && order[3] == 2);
    pgq_claimed none;
    CHECK(pgq_claim(a, 60, &none, &err) == CUZK_ERR_NOT_FOUND);

    test_context = "fencing";
    char id[33];
    job_id(id, 3);
    CHECK(pgq_renew(a, id, t[0], 60, &err) == CUZK_OK);
    CHECK(pgq_finish(b, id, t[0] + 1000, CUZK_JOB_DONE, "{}", NULL, &err) == CUZK_ERR_NOT_FOUND &&
          strstr(err.message, "lease is lost"));
    CHECK(pgq_finish(a, id, t[0], CUZK_JOB_DONE, "{\"proof\": {\"pi_a\": [\"1\"]}}", NULL, &err) == CUZK_OK);
    pgq_job j;
    CHECK(pgq_get(b, id, &j, &err) == CUZK_OK && j.state == CUZK_JOB_DONE && j.attempts == 1 &&
          !strcmp(j.node, "node-a") && strstr(j.result_json, "pi_a"));
    pgq_job_free(&j);
    CHECK(pgq_renew(a, id, t[0], 60, &err) == CUZK_ERR_NOT_FOUND); /* ended: no lease */

    test_context = "lease expiry";
    job_id(id, 1);
    CHECK(pgq_finish(b, id, t[1], CUZK_JOB_DONE, "{}", NULL, &err) == CUZK_OK);
    submit(a, 5, CUZK_PRIORITY_NORMAL, 2);
    int64_t t5;
    CHECK(claim(a, 0.2, &t5) == 5);
    unsigned n;
    CHECK(pgq_expire(b, &n, &err) == CUZK_OK && n == 0); /* not yet */
    usleep(400000);
    CHECK(pgq_expire(b, &n, &err) == CUZK_OK && n == 1);
    job_id(id, 5);
    CHECK(pgq_renew(a, id, t5, 60, &err) == CUZK_ERR_NOT_FOUND); /* a lost it */
    int64_t t5b;
    CHECK(claim(b, 60, &t5b) == 5 && t5b != t5);
    CHECK(pgq_finish(a, id, t5, CUZK_JOB_DONE, "{\"from\": \"a\"}", NULL, &err) == CUZK_ERR_NOT_FOUND);
    CHECK(pgq_finish(b, id, t5b, CUZK_JOB_DONE, "{\"from\": \"b\"}", NULL, &err) == CUZK_OK);
    CHECK(pgq_get(a, id, &j, &err) == CUZK_OK && j.state == CUZK_JOB_DONE && j.attempts == 2 &&
          !strcmp(j.node, "node-b") && strstr(j.result_json, "\"b\"") && strstr(j.errors_json, "node-a expired"));
    pgq_job_free(&j);

    test_context = "attempts";
    submit(a, 6, CUZK_PRIORITY_HIGH, 2);
    job_id(id, 6);
    for (int k = 0; k < 2; k++) {
        int64_t tk;
        CHECK(claim(k ? b : a, 60, &tk) == 6);
        CHECK(pgq_finish(k ? b : a, id, tk, CUZK_JOB_FAILED, NULL, k ? "GPU 0 failed" : "out of memory", &err) ==
              CUZK_OK);
        CHECK(pgq_get(a, id, &j, &err) == CUZK_OK && j.state == (k ? CUZK_JOB_FAILED : CUZK_JOB_QUEUED));
        pgq_job_free(&j);
    }
    CHECK(pgq_get(a, id, &j, &err) == CUZK_OK && strstr(j.errors_json, "out of memory") &&
          strstr(j.errors_json, "GPU 0 failed") && strstr(j.errors_json, "\"node\": \"node-b\""));
    pgq_job_free(&j);

    test_context = "cancel and delete";
    submit(a, 7, CUZK_PRIORITY_NORMAL, 3);
    submit(a, 8, CUZK_PRIORITY_NORMAL, 3);
    int state;
    job_id(id, 7);
    CHECK(pgq_cancel(b, id, &state, &err) == CUZK_OK && state == CUZK_JOB_CANCELLED);
    int64_t t8;
    CHECK(claim(a, 60, &t8) == 8);
    job_id(id, 8);
    CHECK(pgq_delete(b, id, &err) == CUZK_ERR_BUSY);
    CHECK(pgq_cancel(b, id, &state, &err) == CUZK_OK && state == CUZK_JOB_RUNNING);
    CHECK(pgq_renew(a, id, t8, 60, &err) == CUZK_ERR_CANCELLED);
    CHECK(pgq_finish(a, id, t8, CUZK_JOB_CANCELLED, NULL, NULL, &err) == CUZK_OK);
    CHECK(pgq_delete(b, id, &err) == CUZK_OK);
    CHECK(pgq_get(b, id, &j, &err) == CUZK_ERR_NOT_FOUND && pgq_delete(b, id, &err) == CUZK_ERR_NOT_FOUND);
    CHECK(pgq_cancel(b, "0123456789abcdef0123456789abcdef", &state, &err) == CUZK_ERR_NOT_FOUND);

    test_context = "request ids and uploads";
    unsigned char d1[PGQ_DIGEST_LEN] = {1}, d2[PGQ_DIGEST_LEN] = {2}, wit[1000];
    for (size_t i = 0; i < sizeof(wit); i++)
        wit[i] = (unsigned char)(i * 7); /* zeros and every byte value */
    char existing[33];
    int known;
    job_id(id, 9);
    pgq_new_job nj = {.id = id, .request_id = "batch-9", .digest = d1, .priority = 1, .request_json = "{}",
                      .witness = wit, .witness_len = sizeof(wit), .max_attempts = 1};
    CHECK(pgq_submit(a, &nj, &known, existing, &err) == CUZK_OK && known == PGQ_NEW);
    job_id(id, 10);
    CHECK(pgq_submit(b, &nj, &known, existing, &err) == CUZK_OK && known == PGQ_DUPLICATE &&
          existing[31] == '9');
    nj.digest = d2;
    CHECK(pgq_submit(b, &nj, &known, existing, &err) == CUZK_OK && known == PGQ_CONFLICT && existing[31] == '9');
    pgq_claimed c;
    CHECK(pgq_claim(b, 60, &c, &err) == CUZK_OK && c.witness_len == sizeof(wit) && !memcmp(c.witness, wit, sizeof(wit)));
    CHECK(pgq_get(a, id, &j, &err) == CUZK_ERR_NOT_FOUND); /* job 10 was never stored */
    CHECK(pgq_finish(b, c.id, c.token, CUZK_JOB_DONE, "{}", NULL, &err) == CUZK_OK);
    pgq_claimed_free(&c);

    test_context = "claims racing";
    for (unsigned k = 100; k < 300; k++)
        submit(a, k, (int)(k % 4), 1);
    racer r[8];
    pthread_t th[8];
    for (int i = 0; i < 8; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        CHECK_MSG(pgq_open(&r[i].q, conninfo, i % 2 ? "node-b" : "node-a", &err) == CUZK_OK, "%s", err.message);
        CHECK(pthread_create(&th[i], NULL, race, &r[i]) == 0);
    }
    unsigned char seen[300] = {0};
    unsigned total = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        for (unsigned k = 0; k < r[i].n; k++) {
            CHECK(r[i].got[k] >= 100 && r[i].got[k] < 300 && !seen[r[i].got[k]]);
            seen[r[i].got[k]] = 1;
            total++;
        }
        pgq_close(r[i].q);
    }
    CHECK_MSG(total == 200, "%u of 200 claimed", total);

    test_context = "notifications";
    CHECK(pgq_listen(b, &err) == CUZK_OK);
    char payload[100];
    while (pgq_wait(b, 0, payload, sizeof(payload), &err) == CUZK_OK) {
    } /* the races' own, if any */
    submit(a, 11, CUZK_PRIORITY_NORMAL, 1);
    CHECK(pgq_wait(b, 10, payload, sizeof(payload), &err) == CUZK_OK && !strcmp(payload, "0000000000000000000000000000000b queued"));
    CHECK(pgq_wait(b, 0.2, payload, sizeof(payload), &err) == CUZK_ERR_BUSY);

    test_context = "the server restarted";
    CHECK(system(argv[2]) == 0);
    /* b's first call finds its connection broken, the next connects and listens again */
    int rc = CUZK_ERR_IO;
    for (int tries = 0; tries < 3 && rc == CUZK_ERR_IO; tries++)
        rc = pgq_wait(b, 0.1, payload, sizeof(payload), &err);
    CHECK_MSG(rc == CUZK_ERR_BUSY, "%d %s", rc, err.message);
    job_id(id, 11);
    int64_t t11 = 0;
    for (int tries = 0; tries < 3 && !t11; tries++) { /* the first call after finds the connection broken */
        pgq_claimed cc;
        int rc = pgq_claim(a, 60, &cc, &err);
        if (rc == CUZK_OK) {
            t11 = cc.token;
            CHECK(!strcmp(cc.id, id));
            pgq_claimed_free(&cc);
        } else
            CHECK_MSG(rc == CUZK_ERR_IO, "%d %s", rc, err.message);
    }
    CHECK(t11 != 0);
    CHECK(pgq_wait(b, 10, payload, sizeof(payload), &err) == CUZK_OK && !strcmp(payload, "0000000000000000000000000000000b running"));
    CHECK(pgq_finish(a, id, t11, CUZK_JOB_DONE, "{}", NULL, &err) == CUZK_OK);
    CHECK(pgq_heartbeat(b, "{\"gpus\": 1}", &err) == CUZK_OK);
    pgq_close(a);
    pgq_close(b);

    test_context = "a newer schema";
    PGconn *raw = PQconnectdb(conninfo);
    CHECK(PQstatus(raw) == CONNECTION_OK);
    PQclear(PQexec(raw, "UPDATE cuzk_schema SET version = 99"));
    CHECK(pgq_open(&a, conninfo, "node-a", &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "version 99"));
    PQclear(PQexec(raw, "UPDATE cuzk_schema SET version = 1"));
    PQfinish(raw);
    CHECK(pgq_open(&a, conninfo, "node-a", &err) == CUZK_OK);
    pgq_close(a);
    test_done("test_pgqueue");
    return 0;
}
