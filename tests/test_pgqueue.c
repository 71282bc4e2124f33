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

/* the key of the jobs submit() makes, held by every claimer */
static const char *const held_k[1] = {"id:k"};

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
    CHECK_MSG(pgq_claim(q, lease, held_k, 1, &c, &err) == CUZK_OK, "%s", err.message);
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
        int rc = pgq_claim(r->q, 60, held_k, 1, &c, &err);
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
    CHECK_MSG(pgq_open(&a, conninfo, "node-a", 10, &err) == CUZK_OK, "%s", err.message);
    CHECK_MSG(pgq_open(&b, conninfo, "node-b", 10, &err) == CUZK_OK, "%s", err.message);
    pgq *x;
    CHECK(pgq_open(&x, conninfo, "has a blank", 10, &err) == CUZK_ERR_INVALID_ARGUMENT);
    CHECK(pgq_open(&x, "postgresql://nobody@127.0.0.1:1/none", "n", 10, &err) == CUZK_ERR_IO &&
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
    CHECK(pgq_claim(a, 60, held_k, 1, &none, &err) == CUZK_ERR_NOT_FOUND);

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
    /* the bound on queued jobs (job 9 waits): a new job refused, a retry answered */
    nj.max_queued = 1;
    nj.digest = d1;
    CHECK(pgq_submit(b, &nj, &known, existing, &err) == CUZK_OK && known == PGQ_DUPLICATE && existing[31] == '9');
    pgq_new_job over = {.id = id, .priority = 1, .request_json = "{}", .max_attempts = 1, .max_queued = 1};
    CHECK_MSG(pgq_submit(b, &over, &known, existing, &err) == CUZK_ERR_BUSY &&
                  strstr(err.message, "1 jobs waiting") && strstr(err.message, "--queue-max-queued"),
              "%s", err.message);
    over.max_queued = 2;
    job_id(id, 50);
    CHECK(pgq_submit(b, &over, &known, existing, &err) == CUZK_OK && known == PGQ_NEW);
    CHECK(pgq_cancel(b, id, &known, &err) == CUZK_OK && known == CUZK_JOB_CANCELLED);
    job_id(id, 10);
    pgq_claimed c;
    CHECK(pgq_claim(b, 60, held_k, 1, &c, &err) == CUZK_OK && c.witness_len == sizeof(wit) && !memcmp(c.witness, wit, sizeof(wit)));
    CHECK(pgq_get(a, id, &j, &err) == CUZK_ERR_NOT_FOUND); /* job 10 was never stored */
    CHECK(pgq_finish(b, c.id, c.token, CUZK_JOB_DONE, "{}", NULL, &err) == CUZK_OK);
    pgq_claimed_free(&c);

    test_context = "keys";
    {
        static const char *const reqs[3] = {"{\"key_path\": \"/k/a \\\"1\\\".zkey\"}", "{\"key_id\": \"porep\"}",
                                            "{\"key_path\": \"/k/b.params\", \"r1cs_path\": \"/k/b.r1cs\"}"};
        for (int k = 0; k < 3; k++) {
            job_id(id, 60 + (unsigned)k);
            pgq_new_job kj = {.id = id, .priority = 1, .request_json = reqs[k], .max_attempts = 1};
            CHECK_MSG(pgq_submit(a, &kj, &known, existing, &err) == CUZK_OK, "%s", err.message);
        }
        pgq_claimed kc;
        CHECK(pgq_claim(a, 60, NULL, 0, &kc, &err) == CUZK_ERR_NOT_FOUND); /* no key held */
        char **want;
        int *prio;
        size_t n_want;
        CHECK_MSG(pgq_wanted_keys(a, NULL, 0, &want, &prio, &n_want, &err) == CUZK_OK, "%s", err.message);
        CHECK(n_want == 4);
        int seen = 0;
        for (size_t i = 0; i < n_want; i++)
            seen |= (!strcmp(want[i], "/k/a \"1\".zkey") ? 1 : 0) | (!strcmp(want[i], "id:porep") ? 2 : 0) |
                    (!strcmp(want[i], "/k/b.params") ? 4 : 0) | (!strcmp(want[i], "/k/b.r1cs") ? 8 : 0);
        CHECK(seen == 15 && prio[0] == 1 && prio[3] == 1);
        pgq_strings_free(want, n_want);
        free(prio);
        /* a critical job's key comes first, however many keys others name */
        job_id(id, 69);
        pgq_new_job uj = {.id = id, .priority = 3, .request_json = "{\"key_path\": \"/k/urgent.zkey\"}", .max_attempts = 1};
        CHECK_MSG(pgq_submit(a, &uj, &known, existing, &err) == CUZK_OK, "%s", err.message);
        CHECK(pgq_wanted_keys(a, NULL, 0, &want, &prio, &n_want, &err) == CUZK_OK && n_want == 5 &&
              !strcmp(want[0], "/k/urgent.zkey") && prio[0] == 3);
        pgq_strings_free(want, n_want);
        free(prio);
        CHECK(pgq_cancel(a, id, &known, &err) == CUZK_OK);
        const char *held[3] = {"/k/b.params", "id:porep", "/k/a \"1\".zkey"};
        CHECK(pgq_wanted_keys(a, held, 3, &want, NULL, &n_want, &err) == CUZK_OK && n_want == 1 &&
              !strcmp(want[0], "/k/b.r1cs"));
        pgq_strings_free(want, n_want);
        CHECK(pgq_claim(a, 60, held, 1, &kc, &err) == CUZK_ERR_NOT_FOUND); /* the circuit missing */
        CHECK(pgq_claim(a, 60, held, 2, &kc, &err) == CUZK_OK && kc.id[31] == 'd'); /* 61: id:porep */
        CHECK(pgq_finish(a, kc.id, kc.token, CUZK_JOB_DONE, "{}", NULL, &err) == CUZK_OK);
        pgq_claimed_free(&kc);
        CHECK(pgq_claim(a, 60, held, 3, &kc, &err) == CUZK_OK && kc.id[31] == 'c'); /* 60: the quoted path */
        CHECK(pgq_finish(a, kc.id, kc.token, CUZK_JOB_DONE, "{}", NULL, &err) == CUZK_OK);
        pgq_claimed_free(&kc);
        job_id(id, 62);
        CHECK(pgq_cancel(a, id, &known, &err) == CUZK_OK);
        unsigned char d1k[PGQ_KEY_DIGEST_LEN] = {1, 2, 3}, d2k[PGQ_KEY_DIGEST_LEN] = {9}, reg[PGQ_KEY_DIGEST_LEN];
        char by[64];
        CHECK(pgq_key_register(b, "/k/a.zkey", d1k, 1000, reg, by, &err) == CUZK_OK && !memcmp(reg, d1k, 32) &&
              !strcmp(by, "node-b"));
        CHECK(pgq_key_register(a, "/k/a.zkey", d2k, 1000, reg, by, &err) == CUZK_OK && !memcmp(reg, d1k, 32) &&
              !strcmp(by, "node-b")); /* the first stays */
    }

    test_context = "claims racing";
    for (unsigned k = 100; k < 300; k++)
        submit(a, k, (int)(k % 4), 1);
    racer r[8];
    pthread_t th[8];
    for (int i = 0; i < 8; i++) {
        memset(&r[i], 0, sizeof(r[i]));
        CHECK_MSG(pgq_open(&r[i].q, conninfo, i % 2 ? "node-b" : "node-a", 10, &err) == CUZK_OK, "%s", err.message);
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
        int rc = pgq_claim(a, 60, held_k, 1, &cc, &err);
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

    test_context = "a newer schema, an older one";
    PGconn *raw = PQconnectdb(conninfo);
    CHECK(PQstatus(raw) == CONNECTION_OK);
    PQclear(PQexec(raw, "UPDATE cuzk_schema SET version = 99"));
    CHECK(pgq_open(&a, conninfo, "node-a", 10, &err) == CUZK_ERR_UNSUPPORTED && strstr(err.message, "version 99"));
    /* version 1 as an older daemon left it, a job queued: migrated to 2,
     * the job's keys found */
    PQclear(PQexec(raw, "ALTER TABLE cuzk_jobs DROP COLUMN keys; DROP TABLE cuzk_keys; "
                        "UPDATE cuzk_schema SET version = 1"));
    PQclear(PQexec(raw, "INSERT INTO cuzk_jobs (id, priority, state, request, max_attempts) VALUES "
                        "('0000000000000000000000000000abcd', 1, 'queued', '{\"key_path\": \"/k/v1.zkey\"}', 1)"));
    PQfinish(raw);
    CHECK_MSG(pgq_open(&a, conninfo, "node-a", 10, &err) == CUZK_OK, "%s", err.message);
    char **want;
    size_t n_want;
    CHECK_MSG(pgq_wanted_keys(a, NULL, 0, &want, NULL, &n_want, &err) == CUZK_OK && n_want == 1 && !strcmp(want[0], "/k/v1.zkey"), "%s %zu %s", err.message, n_want, n_want ? want[0] : "");
    pgq_strings_free(want, n_want);
    pgq_close(a);
    test_done("test_pgqueue");
    return 0;
}
