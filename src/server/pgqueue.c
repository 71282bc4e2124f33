/* The job queue in PostgreSQL (pgqueue.h; docs/cluster.md). Every call is
 * one statement (its own transaction): the claim's row lock lasts only the
 * claim, the lease carries the job from then on. */
#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"

#if CUZK_HAVE_PG

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "pgqueue.h"

struct pgq {
    PGconn *conn;
    char node[64];
    int listening; /* LISTEN again after a reconnection */
    int broken;    /* a statement went unanswered: connect again before the next */
    double timeout_s; /* how long a statement may go unanswered */
    double last_io;   /* when the server last answered (pgq_wait's liveness check) */
    long queued;      /* jobs queued when last counted (pgq_submit's bound), at queued_at */
    double queued_at;
    char sqlstate[6], constraint[64]; /* the last statement's error, "" none */
};


/* The schema, version by version: migration k brings version k - 1 to k. */
static const char *const migrations[PGQ_SCHEMA_VERSION] = {
    "CREATE SEQUENCE cuzk_lease_token;"
    "CREATE TABLE cuzk_jobs ("
    " id text PRIMARY KEY CHECK (id ~ '^[0-9a-f]{32}$'),"
    " request_id text UNIQUE,"
    " request_digest bytea,"
    " priority smallint NOT NULL CHECK (priority BETWEEN 0 AND 3),"
    /* the states as cuzk_job_state_name spells them (SQL's own copy;
     * test_pgqueue reads every one back through cuzk_job_state_from_name) */
    " state text NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),"
    " request jsonb NOT NULL,"
    " witness bytea,"
    " attempts integer NOT NULL DEFAULT 0,"
    " max_attempts integer NOT NULL CHECK (max_attempts >= 1),"
    " errors jsonb NOT NULL DEFAULT '[]'::jsonb,"
    " node text,"
    " lease_token bigint,"
    " lease_expires timestamptz,"
    " cancel_requested boolean NOT NULL DEFAULT false,"
    " submitted timestamptz NOT NULL DEFAULT clock_timestamp(),"
    " claimed timestamptz,"
    " ended timestamptz,"
    " result jsonb);"
    "CREATE INDEX cuzk_jobs_queued ON cuzk_jobs (priority DESC, submitted, id) WHERE state = 'queued';"
    "CREATE INDEX cuzk_jobs_leases ON cuzk_jobs (lease_expires) WHERE state = 'running';"
    "CREATE TABLE cuzk_nodes (name text PRIMARY KEY, started timestamptz NOT NULL,"
    " heartbeat timestamptz NOT NULL, info jsonb);",
    /* 2: the keys a job needs (its key's path and circuit's, or "id:" and
     * the id of a key the nodes preload), which a node claims only when it
     * holds them all; the digests the nodes' copies of a key path must
     * have */
    "ALTER TABLE cuzk_jobs ADD COLUMN keys text[] NOT NULL GENERATED ALWAYS AS (array_remove(ARRAY["
    " request->>'key_path', request->>'r1cs_path', 'id:' || (request->>'key_id')], NULL)) STORED;"
    "CREATE TABLE cuzk_keys (path text PRIMARY KEY, digest bytea NOT NULL, size bigint NOT NULL,"
    " node text NOT NULL, registered timestamptz NOT NULL DEFAULT clock_timestamp());",
};

/* an advisory lock's key: "cuzk" */
#define PGQ_LOCK_KEY "1668643435"

static int result_ok(const PGresult *r)
{
    ExecStatusType st = PQresultStatus(r);
    return st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK;
}

/* Sends one statement (with parameters, or several without) and waits for
 * its result until q->timeout_s has passed. NULL when the connection broke
 * or the server did not answer in time (*timed_out; the connection is then
 * marked broken: a statement may be half way, so it is dropped and made
 * again before the next). Of several results the first error, else the
 * last. The wait is ours, not the socket's: a server behind a stalled
 * network path (a router dropping nothing but forwarding nothing, TCP
 * keepalives answered by a proxy) never closes the connection. */
static PGresult *run(pgq *q, const char *sql, int n, const char *const *values, const int *lens, const int *formats,
                     int *timed_out)
{
    *timed_out = 0;
    int sent = n || values ? PQsendQueryParams(q->conn, sql, n, NULL, values, lens, formats, 0)
                           : PQsendQuery(q->conn, sql);
    if (!sent)
        return NULL;
    double deadline = cuzk_now() + q->timeout_s;
    PGresult *keep = NULL;
    for (;;) {
        while (PQisBusy(q->conn)) {
            double left = deadline - cuzk_now();
            struct pollfd p = {.fd = PQsocket(q->conn), .events = POLLIN};
            if (left <= 0 || p.fd < 0) {
                *timed_out = left <= 0;
                q->broken = 1;
                PQclear(keep);
                return NULL;
            }
            if (poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1) < 0 && errno != EINTR) {
                q->broken = 1;
                PQclear(keep);
                return NULL;
            }
            if (!PQconsumeInput(q->conn)) {
                q->broken = 1;
                PQclear(keep);
                return NULL;
            }
        }
        PGresult *r = PQgetResult(q->conn);
        if (!r) {
            q->last_io = cuzk_now();
            return keep;
        }
        if (!keep || result_ok(keep)) { /* the first error, else the last */
            PQclear(keep);
            keep = r;
        } else
            PQclear(r);
    }
}

static int db_error(pgq *q, const PGresult *r, const char *what, cuzk_error *err)
{
    const char *m = r ? PQresultErrorMessage(r) : NULL;
    if (!m || !*m)
        m = PQerrorMessage(q->conn);
    char text[400];
    snprintf(text, sizeof(text), "%s", m ? m : "");
    size_t n = strlen(text);
    while (n && (text[n - 1] == '\n' || text[n - 1] == ' '))
        text[--n] = 0;
    return cuzk_error_set(err, CUZK_ERR_IO, "the job queue's database: %s: %s", what, text[0] ? text : "failed");
}

static int timeout_error(pgq *q, const char *what, cuzk_error *err)
{
    return cuzk_error_set(err, CUZK_ERR_IO,
                          "the job queue's database: %s: no answer in %.0f s (the connection is made again)", what,
                          q->timeout_s);
}

/* What every connection sets first. Bitmap scans off: with a claim's key
 * filter the planner estimated one row and took a bitmap scan of the
 * queued jobs' index and a sort over an ordered index scan that stops at
 * the first row; a bitmap scan also visits the index's dead entries (jobs
 * claimed since, until a vacuum) where an index scan learns to skip them:
 * 3,115 entries for 2 queued jobs after a 2 s bench_pgqueue, and the
 * queue's ceiling fell from 2,040 to 1,485 jobs/s (4 connections); with
 * this set, 1,919 (BENCHMARKS.md). */
static int session_setup(pgq *q, cuzk_error *err)
{
    int late;
    PGresult *r = run(q, "SET enable_bitmapscan = off", 0, NULL, NULL, NULL, &late);
    int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
    PQclear(r);
    if (!ok)
        return late ? timeout_error(q, "setting up the connection", err)
                    : db_error(q, NULL, "setting up the connection", err);
    return CUZK_OK;
}

/* The connection, re-established when it broke (the database restarted,
 * or a statement went unanswered). */
static int ready(pgq *q, cuzk_error *err)
{
    if (PQstatus(q->conn) == CONNECTION_OK && !q->broken)
        return CUZK_OK;
    PQreset(q->conn); /* bounded by connect_timeout (pgq_open) */
    if (PQstatus(q->conn) != CONNECTION_OK)
        return db_error(q, NULL, "cannot connect", err);
    q->broken = 0;
    q->last_io = cuzk_now();
    int rc = session_setup(q, err);
    if (rc != CUZK_OK)
        return rc;
    if (q->listening) {
        int late;
        PGresult *r = run(q, "LISTEN " PGQ_CHANNEL, 0, NULL, NULL, NULL, &late);
        int ok = PQresultStatus(r) == PGRES_COMMAND_OK;
        PQclear(r);
        if (!ok)
            return late ? timeout_error(q, "LISTEN after reconnecting", err)
                        : db_error(q, NULL, "LISTEN after reconnecting", err);
    }
    return CUZK_OK;
}

/* One statement with text parameters (lens[i] > 0: binary, e.g. bytea);
 * *res on success (PGRES_TUPLES_OK or COMMAND_OK). */
static int exec(pgq *q, const char *sql, int n, const char *const *values, const int *lens, PGresult **res,
                const char *what, cuzk_error *err)
{
    int rc = ready(q, err);
    if (rc != CUZK_OK)
        return rc;
    int formats[16] = {0}, late = 0;
    for (int i = 0; lens && i < n; i++)
        formats[i] = lens[i] > 0;
    PGresult *r = run(q, sql, n, values, lens, formats, &late);
    ExecStatusType st = PQresultStatus(r);
    if (!late && st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK && PQstatus(q->conn) == CONNECTION_BAD) {
        /* the connection was found broken (the server restarted while it
         * was idle): made again and the statement sent once more. Had it
         * run before the break, its second run says so (a job stored twice
         * is a key violation pgq_submit takes as stored; a claim whose
         * answer was lost expires and is claimed again). One that went
         * unanswered is not sent again: the caller hears of it at once */
        PQclear(r);
        if ((rc = ready(q, err)) != CUZK_OK)
            return rc;
        r = run(q, sql, n, values, lens, formats, &late);
        st = PQresultStatus(r);
    }
    if (late) {
        PQclear(r);
        return timeout_error(q, what, err);
    }
    const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE), *con = PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME);
    snprintf(q->sqlstate, sizeof(q->sqlstate), "%s", state ? state : "");
    snprintf(q->constraint, sizeof(q->constraint), "%s", con ? con : "");
    if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
        rc = db_error(q, r, what, err);
        PQclear(r);
        return rc;
    }
    *res = r;
    return CUZK_OK;
}

/* A statement whose outcome does not matter (a ROLLBACK, an unlock that a
 * broken connection makes anyway). */
static void exec_quietly(pgq *q, const char *sql)
{
    PGresult *r = NULL;
    cuzk_error ignored;
    if (exec(q, sql, 0, NULL, NULL, &r, "", &ignored) == CUZK_OK)
        PQclear(r);
}

static char *dup_value(const PGresult *r, int row, int col)
{
    if (PQgetisnull(r, row, col))
        return NULL;
    const char *v = PQgetvalue(r, row, col);
    size_t n = strlen(v) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, v, n);
    return d;
}

/* libpq would print the server's notices (and its "terminating connection"
 * at a restart) on stderr: the library prints nothing itself; a broken
 * connection shows as the next call's error. */
static void quiet_notices(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

static int migrate(pgq *q, cuzk_error *err)
{
    PGresult *r = NULL;
    int rc = exec(q, "SELECT pg_advisory_lock(" PGQ_LOCK_KEY ")", 0, NULL, NULL, &r, "taking the schema lock", err);
    if (rc != CUZK_OK)
        return rc;
    PQclear(r);
    rc = exec(q, "CREATE TABLE IF NOT EXISTS cuzk_schema (version integer NOT NULL)", 0, NULL, NULL, &r,
              "creating the schema table", err);
    if (rc == CUZK_OK) {
        PQclear(r);
        rc = exec(q, "SELECT coalesce(max(version), 0) FROM cuzk_schema", 0, NULL, NULL, &r, "reading the schema version",
                  err);
    }
    int version = 0;
    if (rc == CUZK_OK) {
        version = atoi(PQgetvalue(r, 0, 0));
        PQclear(r);
        if (version > PGQ_SCHEMA_VERSION)
            rc = cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                "the job queue's database has schema version %d; this cuzk knows up to %d (upgrade it)",
                                version, PGQ_SCHEMA_VERSION);
    }
    for (; rc == CUZK_OK && version < PGQ_SCHEMA_VERSION; version++) {
        char sql[4096];
        snprintf(sql, sizeof(sql), "BEGIN; %s DELETE FROM cuzk_schema; INSERT INTO cuzk_schema VALUES (%d); COMMIT",
                 migrations[version], version + 1);
        char what[64];
        snprintf(what, sizeof(what), "migrating the schema to version %d", version + 1);
        r = NULL;
        rc = exec(q, sql, 0, NULL, NULL, &r, what, err); /* several statements: one transaction */
        if (rc == CUZK_OK)
            PQclear(r);
        if (rc != CUZK_OK && !q->broken)
            exec_quietly(q, "ROLLBACK");
    }
    exec_quietly(q, "SELECT pg_advisory_unlock(" PGQ_LOCK_KEY ")");
    return rc;
}

int pgq_open(pgq **out, const char *conninfo, const char *node, double timeout_s, cuzk_error *err)
{
    *out = NULL;
    size_t nl = node ? strlen(node) : 0;
    if (!conninfo || nl < 1 || nl > 63 ||
        strspn(node, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != nl)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "a node name is 1 to 63 letters, digits, '.', '_' or '-'");
    pgq *q = calloc(1, sizeof(*q));
    if (!q)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    memcpy(q->node, node, nl + 1);
    q->timeout_s = timeout_s >= 1 ? timeout_s : 1;
    /* A dead path to the server is found within about timeout_s: the
     * connection's setup, TCP keepalives (idle a third of it, then probes a
     * second apart) and unacknowledged writes (tcp_user_timeout) are bounded
     * by it. First in the list, so that what conninfo says wins (libpq takes
     * the last of a repeated keyword; expand_dbname puts conninfo's there). */
    unsigned t = (unsigned)q->timeout_s;
    char connect[16], idle[16], user_ms[24];
    snprintf(connect, sizeof(connect), "%u", t < 2 ? 2 : t);
    snprintf(idle, sizeof(idle), "%u", t / 3 ? t / 3 : 1);
    snprintf(user_ms, sizeof(user_ms), "%u", t * 1000);
    const char *const keys[] = {"connect_timeout", "keepalives", "keepalives_idle", "keepalives_interval",
                                "keepalives_count", "tcp_user_timeout", "dbname", NULL};
    const char *const values[] = {connect, "1", idle, "1", "3", user_ms, conninfo, NULL};
    q->conn = PQconnectdbParams(keys, values, 1);
    if (q->conn)
        PQsetNoticeProcessor(q->conn, quiet_notices, NULL); /* kept across PQreset */
    q->last_io = cuzk_now();
    int rc = PQstatus(q->conn) == CONNECTION_OK ? CUZK_OK : db_error(q, NULL, "cannot connect", err);
    if (rc == CUZK_OK)
        rc = session_setup(q, err);
    if (rc == CUZK_OK)
        rc = migrate(q, err);
    if (rc == CUZK_OK)
        rc = pgq_heartbeat(q, NULL, err);
    if (rc != CUZK_OK) {
        pgq_close(q);
        return rc;
    }
    *out = q;
    return CUZK_OK;
}

void pgq_close(pgq *q)
{
    if (!q)
        return;
    PQfinish(q->conn);
    free(q);
}

/* A request id stored before: *known and existing_id set, 1; else 0. -1
 * with err. */
static int known_request(pgq *q, const pgq_new_job *job, int *known, char existing_id[33], cuzk_error *err)
{
    PGresult *r = NULL;
    const char *w[1] = {job->request_id};
    if (exec(q, "SELECT id, request_digest FROM cuzk_jobs WHERE request_id = $1", 1, w, NULL, &r,
             "looking up a request id", err) != CUZK_OK)
        return -1;
    int found = PQntuples(r) == 1;
    if (found) {
        size_t dl = 0;
        unsigned char *d = PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, 1), &dl);
        *known = d && dl == PGQ_DIGEST_LEN && !memcmp(d, job->digest, dl) ? PGQ_DUPLICATE : PGQ_CONFLICT;
        snprintf(existing_id, 33, "%s", PQgetvalue(r, 0, 0));
        PQfreemem(d);
    }
    PQclear(r);
    return found;
}

int pgq_submit(pgq *q, const pgq_new_job *job, int *known, char existing_id[33], cuzk_error *err)
{
    *known = PGQ_NEW;
    existing_id[0] = 0;
    char prio[8], attempts[16];
    snprintf(prio, sizeof(prio), "%d", job->priority);
    snprintf(attempts, sizeof(attempts), "%d", job->max_attempts);
    const char *v[7] = {job->id, job->request_id, (const char *)job->digest, prio, job->request_json,
                        (const char *)job->witness, attempts};
    int lens[7] = {0, 0, job->request_id ? PGQ_DIGEST_LEN : 0, 0, 0, job->witness ? (int)job->witness_len : 0, 0};
    if (!job->request_id)
        v[2] = NULL;
    if (job->witness && job->witness_len > INT32_MAX)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "a witness of %zu bytes is more than the queue holds",
                              job->witness_len);
    /* the insert and its announcement, or (a request id stored before) nothing */
    static const char sql[] =
        "WITH ins AS (INSERT INTO cuzk_jobs (id, request_id, request_digest, priority, state, request, witness, "
        "max_attempts) VALUES ($1, $2, $3, $4, 'queued', $5::jsonb, $6, $7) ON CONFLICT (request_id) DO NOTHING "
        "RETURNING id) SELECT id, pg_notify('" PGQ_CHANNEL "', id || ' queued') FROM ins";
    /* The bound: the queued jobs counted (the index of queued jobs,
     * max_queued entries at most) at most every half second, not at every
     * submit: a deep queue makes the count cost a scan of its entries */
    double now = cuzk_now();
    if (job->max_queued && (now - q->queued_at > 0.5 || q->queued >= (long)job->max_queued)) {
        char lim[16];
        snprintf(lim, sizeof(lim), "%u", job->max_queued);
        const char *w[1] = {lim};
        PGresult *r = NULL;
        int rc = exec(q, "SELECT count(*) FROM (SELECT 1 FROM cuzk_jobs WHERE state = 'queued' LIMIT $1) t", 1, w,
                      NULL, &r, "counting the queued jobs", err);
        if (rc != CUZK_OK)
            return rc;
        q->queued = atol(PQgetvalue(r, 0, 0));
        q->queued_at = now;
        PQclear(r);
    }
    if (job->max_queued) {
        long queued = q->queued;
        if (queued >= (long)job->max_queued) {
            int found = job->request_id ? known_request(q, job, known, existing_id, err) : 0;
            if (found)
                return found < 0 ? CUZK_ERR_IO : CUZK_OK; /* a retry is answered, full or not */
            return cuzk_error_set(err, CUZK_ERR_BUSY,
                                  "the queue holds %ld jobs waiting for a node (its limit, --queue-max-queued): "
                                  "retry later",
                                  queued);
        }
    }
    for (int tries = 0; tries < 3; tries++) {
        PGresult *r = NULL;
        int rc = exec(q, sql, 7, v, lens, &r, "storing a job", err);
        if (rc != CUZK_OK && !strcmp(q->sqlstate, "23505") && !strcmp(q->constraint, "cuzk_jobs_pkey"))
            return CUZK_OK; /* stored by a first run whose answer was lost (a fresh id is no other job's) */
        if (rc != CUZK_OK)
            return rc;
        int stored = PQntuples(r) == 1;
        PQclear(r);
        if (stored)
            return CUZK_OK;
        /* the request id names a job: the same request, or another */
        int found = known_request(q, job, known, existing_id, err);
        if (found)
            return found < 0 ? CUZK_ERR_IO : CUZK_OK;
        /* deleted meanwhile: store it */
    }
    return cuzk_error_set(err, CUZK_ERR_BUSY, "request id %s: its job was being removed; retry", job->request_id);
}

/* A text[] literal of v[0..n): "{"a","b"}", each element quoted. NULL: out
 * of memory. */
static char *text_array(const char *const *v, size_t n)
{
    size_t len = 3;
    for (size_t i = 0; i < n; i++)
        len += 2 * strlen(v[i]) + 3;
    char *out = malloc(len), *o = out;
    if (!out)
        return NULL;
    *o++ = '{';
    for (size_t i = 0; i < n; i++) {
        if (i)
            *o++ = ',';
        *o++ = '"';
        for (const char *c = v[i]; *c; c++) {
            if (*c == '"' || *c == '\\')
                *o++ = '\\';
            *o++ = *c;
        }
        *o++ = '"';
    }
    *o++ = '}';
    *o = 0;
    return out;
}

int pgq_claim(pgq *q, double lease_s, const char *const *keys, size_t n_keys, pgq_claimed *out, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    char lease[32];
    snprintf(lease, sizeof(lease), "%.3f", lease_s);
    char *have = text_array(keys, n_keys);
    if (!have)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    const char *v[3] = {q->node, lease, have};
    static const char sql[] =
        "WITH c AS (SELECT id FROM cuzk_jobs WHERE state = 'queued' AND keys <@ $3::text[] "
        "ORDER BY priority DESC, submitted, id FOR UPDATE SKIP LOCKED LIMIT 1), "
        "u AS (UPDATE cuzk_jobs j SET state = 'running', node = $1, lease_token = nextval('cuzk_lease_token'), "
        "lease_expires = clock_timestamp() + make_interval(secs => $2::double precision), attempts = attempts + 1, "
        "claimed = clock_timestamp() FROM c WHERE j.id = c.id "
        "RETURNING j.id, j.lease_token, j.priority, j.attempts, j.request::text, j.witness) "
        "SELECT u.*, pg_notify('" PGQ_CHANNEL "', u.id || ' running') FROM u";
    PGresult *r = NULL;
    int rc = exec(q, sql, 3, v, NULL, &r, "claiming a job", err);
    free(have);
    if (rc != CUZK_OK)
        return rc;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return CUZK_ERR_NOT_FOUND;
    }
    snprintf(out->id, sizeof(out->id), "%s", PQgetvalue(r, 0, 0));
    out->token = strtoll(PQgetvalue(r, 0, 1), NULL, 10);
    out->priority = atoi(PQgetvalue(r, 0, 2));
    out->attempt = atoi(PQgetvalue(r, 0, 3));
    out->request_json = dup_value(r, 0, 4);
    if (!PQgetisnull(r, 0, 5))
        out->witness = PQunescapeBytea((const unsigned char *)PQgetvalue(r, 0, 5), &out->witness_len);
    int missing = !out->request_json || (!PQgetisnull(r, 0, 5) && !out->witness);
    PQclear(r);
    if (missing) {
        /* the claim stands: its lease expires and another node takes it */
        pgq_claimed_free(out);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory for a claimed job");
    }
    return CUZK_OK;
}

void pgq_claimed_free(pgq_claimed *c)
{
    free(c->request_json);
    if (c->witness)
        PQfreemem(c->witness);
    memset(c, 0, sizeof(*c));
}

int pgq_renew(pgq *q, const char *id, int64_t token, double lease_s, cuzk_error *err)
{
    char tok[32], lease[32];
    snprintf(tok, sizeof(tok), "%lld", (long long)token);
    snprintf(lease, sizeof(lease), "%.3f", lease_s);
    const char *v[3] = {id, tok, lease};
    PGresult *r = NULL;
    int rc = exec(q,
                  "UPDATE cuzk_jobs SET lease_expires = clock_timestamp() + make_interval(secs => $3::double precision) "
                  "WHERE id = $1 AND lease_token = $2 AND state = 'running' RETURNING cancel_requested",
                  3, v, NULL, &r, "renewing a lease", err);
    if (rc != CUZK_OK)
        return rc;
    rc = PQntuples(r) != 1                ? cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "job %s: the lease is lost", id)
         : !strcmp(PQgetvalue(r, 0, 0), "t") ? cuzk_error_set(err, CUZK_ERR_CANCELLED, "job %s was cancelled", id)
                                             : CUZK_OK;
    PQclear(r);
    return rc;
}

/* A failed attempt's reason as the errors array keeps it. */
#define PGQ_REASON(reason_sql)                                                                                     \
    "errors = errors || jsonb_build_array(jsonb_build_object('attempt', attempts, 'node', node, 'reason', "       \
    reason_sql ")), state = CASE WHEN attempts >= max_attempts THEN 'failed' ELSE 'queued' END, "                  \
    "ended = CASE WHEN attempts >= max_attempts THEN clock_timestamp() END, lease_token = NULL, lease_expires = NULL"

int pgq_finish(pgq *q, const char *id, int64_t token, int state, const char *result_json, const char *reason,
               cuzk_error *err)
{
    char tok[32];
    snprintf(tok, sizeof(tok), "%lld", (long long)token);
    const char *sql;
    const char *v[3] = {id, tok, NULL};
    int n = 2;
    if (state == CUZK_JOB_DONE) {
        sql = "WITH u AS (UPDATE cuzk_jobs SET state = 'done', result = $3::jsonb, ended = clock_timestamp(), "
              "lease_token = NULL, lease_expires = NULL, witness = NULL WHERE id = $1 AND lease_token = $2 AND "
              "state = 'running' RETURNING id, state) SELECT id, pg_notify('" PGQ_CHANNEL "', id || ' ' || state) FROM u";
        v[2] = result_json ? result_json : "{}";
        n = 3;
    } else if (state == CUZK_JOB_CANCELLED)
        sql = "WITH u AS (UPDATE cuzk_jobs SET state = 'cancelled', ended = clock_timestamp(), lease_token = NULL, "
              "lease_expires = NULL, witness = NULL WHERE id = $1 AND lease_token = $2 AND state = 'running' "
              "RETURNING id, state) SELECT id, pg_notify('" PGQ_CHANNEL "', id || ' ' || state) FROM u";
    else if (state == CUZK_JOB_FAILED) {
        sql = "WITH u AS (UPDATE cuzk_jobs SET " PGQ_REASON("$3::text") " WHERE id = $1 AND lease_token = $2 AND "
              "state = 'running' RETURNING id, state) SELECT id, pg_notify('" PGQ_CHANNEL "', id || ' ' || state) "
              "FROM u";
        v[2] = reason ? reason : "";
        n = 3;
    } else
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "pgq_finish: state %d is not an end", state);
    PGresult *r = NULL;
    int rc = exec(q, sql, n, v, NULL, &r, "writing a job's end", err);
    if (rc != CUZK_OK)
        return rc;
    if (PQntuples(r) != 1)
        rc = cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "job %s: the lease is lost; its result is not written", id);
    PQclear(r);
    return rc;
}

int pgq_expire(pgq *q, unsigned *n, cuzk_error *err)
{
    *n = 0;
    PGresult *r = NULL;
    int rc = exec(q,
                  "WITH u AS (UPDATE cuzk_jobs SET " PGQ_REASON("'the lease of node ' || node || ' expired'")
                  " WHERE state = 'running' AND lease_expires < clock_timestamp() RETURNING id, state) "
                  "SELECT id, pg_notify('" PGQ_CHANNEL "', id || ' ' || state) FROM u",
                  0, NULL, NULL, &r, "expiring leases", err);
    if (rc != CUZK_OK)
        return rc;
    *n = (unsigned)PQntuples(r);
    PQclear(r);
    return CUZK_OK;
}

int pgq_release(pgq *q, const char *id, int64_t token, cuzk_error *err)
{
    char tok[32];
    snprintf(tok, sizeof(tok), "%lld", (long long)token);
    const char *v[2] = {id, tok};
    PGresult *r = NULL;
    int rc = exec(q,
                  "WITH u AS (UPDATE cuzk_jobs SET state = 'queued', attempts = attempts - 1, node = NULL, "
                  "lease_token = NULL, lease_expires = NULL WHERE id = $1 AND lease_token = $2 AND state = 'running' "
                  "RETURNING id) SELECT id, pg_notify('" PGQ_CHANNEL "', id || ' queued') FROM u",
                  2, v, NULL, &r, "giving a claim back", err);
    if (rc != CUZK_OK)
        return rc;
    if (PQntuples(r) != 1)
        rc = cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "job %s: the lease is lost", id);
    PQclear(r);
    return rc;
}

int pgq_purge(pgq *q, double ttl_s, unsigned *n, cuzk_error *err)
{
    char ttl[32];
    snprintf(ttl, sizeof(ttl), "%.3f", ttl_s);
    const char *v[1] = {ttl};
    PGresult *r = NULL;
    int rc = exec(q,
                  "DELETE FROM cuzk_jobs WHERE state IN ('done', 'failed', 'cancelled') AND "
                  "ended < clock_timestamp() - make_interval(secs => $1::double precision)",
                  1, v, NULL, &r, "forgetting old results", err);
    if (rc == CUZK_OK) {
        *n = (unsigned)atoi(PQcmdTuples(r));
        PQclear(r);
    }
    return rc;
}

int pgq_stats(pgq *q, char **json, cuzk_error *err)
{
    *json = NULL;
    PGresult *r = NULL;
    int rc = exec(q,
                  "SELECT json_build_object("
                  "'queued', json_build_object("
                  " 'low', count(*) FILTER (WHERE state = 'queued' AND priority = 0),"
                  " 'normal', count(*) FILTER (WHERE state = 'queued' AND priority = 1),"
                  " 'high', count(*) FILTER (WHERE state = 'queued' AND priority = 2),"
                  " 'critical', count(*) FILTER (WHERE state = 'queued' AND priority = 3)),"
                  "'running', count(*) FILTER (WHERE state = 'running'),"
                  "'done', count(*) FILTER (WHERE state = 'done'),"
                  "'failed', count(*) FILTER (WHERE state = 'failed'),"
                  "'cancelled', count(*) FILTER (WHERE state = 'cancelled'),"
                  "'claimed_again', count(*) FILTER (WHERE attempts > 1),"
                  "'next_lease_expiry_s', extract(epoch FROM min(lease_expires) - clock_timestamp()),"
                  "'nodes', (SELECT coalesce(json_agg(json_build_object('name', name, 'heartbeat_age_s',"
                  " extract(epoch FROM clock_timestamp() - heartbeat), 'started', started, 'info', info)"
                  " ORDER BY name), '[]'::json) FROM cuzk_nodes),"
                  "'keys', (SELECT coalesce(json_agg(json_build_object('path', path, 'digest', encode(digest, 'hex'),"
                  " 'size', size, 'node', node, 'registered', registered) ORDER BY path), '[]'::json)"
                  " FROM (SELECT * FROM cuzk_keys ORDER BY path LIMIT 100) k))::text FROM cuzk_jobs",
                  0, NULL, NULL, &r, "reading the queue's counts", err);
    if (rc != CUZK_OK)
        return rc;
    *json = dup_value(r, 0, 0);
    PQclear(r);
    return *json ? CUZK_OK : cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
}

int pgq_get(pgq *q, const char *id, pgq_job *out, cuzk_error *err)
{
    memset(out, 0, sizeof(*out));
    const char *v[1] = {id};
    PGresult *r = NULL;
    int rc = exec(q,
                  "SELECT state, priority, attempts, max_attempts, coalesce(node, ''), result::text, errors::text "
                  "FROM cuzk_jobs WHERE id = $1",
                  1, v, NULL, &r, "reading a job", err);
    if (rc != CUZK_OK)
        return rc;
    if (PQntuples(r) != 1) {
        PQclear(r);
        return cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job '%s'", id);
    }
    snprintf(out->id, sizeof(out->id), "%s", id);
    out->state = cuzk_job_state_from_name(PQgetvalue(r, 0, 0));
    out->priority = atoi(PQgetvalue(r, 0, 1));
    out->attempts = atoi(PQgetvalue(r, 0, 2));
    out->max_attempts = atoi(PQgetvalue(r, 0, 3));
    snprintf(out->node, sizeof(out->node), "%s", PQgetvalue(r, 0, 4));
    out->result_json = dup_value(r, 0, 5);
    out->errors_json = dup_value(r, 0, 6);
    int missing = (!PQgetisnull(r, 0, 5) && !out->result_json) || !out->errors_json;
    PQclear(r);
    if (missing) {
        pgq_job_free(out);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    return CUZK_OK;
}

void pgq_job_free(pgq_job *j)
{
    free(j->result_json);
    free(j->errors_json);
    j->result_json = j->errors_json = NULL;
}

int pgq_cancel(pgq *q, const char *id, int *state, cuzk_error *err)
{
    const char *v[1] = {id};
    PGresult *r = NULL;
    int rc = exec(q,
                  "WITH u AS (UPDATE cuzk_jobs SET state = CASE WHEN state = 'queued' THEN 'cancelled' ELSE state END, "
                  "cancel_requested = (state = 'running'), "
                  "ended = CASE WHEN state = 'queued' THEN clock_timestamp() ELSE ended END WHERE id = $1 "
                  "RETURNING id, state) SELECT state, pg_notify('" PGQ_CHANNEL "', id || ' ' || state) FROM u",
                  1, v, NULL, &r, "cancelling a job", err);
    if (rc != CUZK_OK)
        return rc;
    if (PQntuples(r) != 1)
        rc = cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job '%s'", id);
    else
        *state = cuzk_job_state_from_name(PQgetvalue(r, 0, 0));
    PQclear(r);
    return rc;
}

int pgq_delete(pgq *q, const char *id, cuzk_error *err)
{
    const char *v[1] = {id};
    PGresult *r = NULL;
    int rc = exec(q,
                  "WITH d AS (DELETE FROM cuzk_jobs WHERE id = $1 AND state IN ('done', 'failed', 'cancelled') "
                  "RETURNING id) SELECT (SELECT count(*) FROM d), (SELECT count(*) FROM cuzk_jobs WHERE id = $1)",
                  1, v, NULL, &r, "deleting a job", err);
    if (rc != CUZK_OK)
        return rc;
    if (strcmp(PQgetvalue(r, 0, 0), "1"))
        rc = strcmp(PQgetvalue(r, 0, 1), "0")
                 ? cuzk_error_set(err, CUZK_ERR_BUSY, "job %s has not ended: cancel it first", id)
                 : cuzk_error_set(err, CUZK_ERR_NOT_FOUND, "no job '%s'", id);
    PQclear(r);
    return rc;
}

int pgq_heartbeat(pgq *q, const char *info_json, cuzk_error *err)
{
    const char *v[2] = {q->node, info_json};
    PGresult *r = NULL;
    int rc = exec(q,
                  "INSERT INTO cuzk_nodes (name, started, heartbeat, info) VALUES ($1, clock_timestamp(), "
                  "clock_timestamp(), $2::jsonb) ON CONFLICT (name) DO UPDATE SET heartbeat = clock_timestamp(), "
                  "info = coalesce(EXCLUDED.info, cuzk_nodes.info)",
                  2, v, NULL, &r, "the node's heartbeat", err);
    if (rc == CUZK_OK)
        PQclear(r);
    return rc;
}

int pgq_node_take(pgq *q, const char *instance, double stale_s, int *taken, double *age, cuzk_error *err)
{
    char stale[32];
    snprintf(stale, sizeof(stale), "%.3f", stale_s);
    const char *v[3] = {q->node, instance, stale};
    PGresult *r = NULL;
    /* one statement: two nodes starting under one name cannot both take it */
    int rc = exec(q,
                  "WITH t AS (INSERT INTO cuzk_nodes (name, started, heartbeat, info) VALUES ($1, clock_timestamp(), "
                  "clock_timestamp(), jsonb_build_object('instance', $2::text)) ON CONFLICT (name) DO UPDATE SET "
                  "started = clock_timestamp(), heartbeat = clock_timestamp(), info = EXCLUDED.info WHERE "
                  "cuzk_nodes.heartbeat < clock_timestamp() - make_interval(secs => $3::double precision) OR "
                  "coalesce(cuzk_nodes.info->>'stopped', '') = 'true' RETURNING 1) "
                  "SELECT (SELECT count(*) FROM t), coalesce((SELECT extract(epoch FROM clock_timestamp() - heartbeat) "
                  "FROM cuzk_nodes WHERE name = $1), 0)",
                  3, v, NULL, &r, "taking the node's name", err);
    if (rc != CUZK_OK)
        return rc;
    *taken = atoi(PQgetvalue(r, 0, 0)) > 0;
    *age = atof(PQgetvalue(r, 0, 1));
    PQclear(r);
    return CUZK_OK;
}

int pgq_node_stopped(pgq *q, const char *instance, cuzk_error *err)
{
    const char *v[2] = {q->node, instance};
    PGresult *r = NULL;
    int rc = exec(q,
                  "UPDATE cuzk_nodes SET info = coalesce(info, '{}'::jsonb) || '{\"stopped\": true}'::jsonb "
                  "WHERE name = $1 AND info->>'instance' = $2",
                  2, v, NULL, &r, "marking the node stopped", err);
    if (rc == CUZK_OK)
        PQclear(r);
    return rc;
}

int pgq_listen(pgq *q, cuzk_error *err)
{
    PGresult *r = NULL;
    int rc = exec(q, "LISTEN " PGQ_CHANNEL, 0, NULL, NULL, &r, "listening for jobs", err);
    if (rc == CUZK_OK) {
        PQclear(r);
        q->listening = 1;
    }
    return rc;
}

int pgq_wait(pgq *q, double timeout_s, char *payload, size_t n, cuzk_error *err)
{
    double deadline = cuzk_now() + (timeout_s > 0 ? timeout_s : 0);
    for (;;) {
        int rc = ready(q, err);
        if (rc != CUZK_OK)
            return rc;
        if (!PQconsumeInput(q->conn))
            return db_error(q, NULL, "waiting for notifications", err);
        PGnotify *note = PQnotifies(q->conn);
        if (note) {
            q->last_io = cuzk_now();
            snprintf(payload, n, "%s", note->extra ? note->extra : "");
            PQfreemem(note);
            return CUZK_OK;
        }
        double left = deadline - cuzk_now();
        if (cuzk_now() - q->last_io > q->timeout_s) {
            /* quiet for long: is the server still there? (a stalled path
             * would leave this wait deaf for good) */
            PGresult *r = NULL;
            if ((rc = exec(q, "SELECT 1", 0, NULL, NULL, &r, "waiting for notifications", err)) != CUZK_OK)
                return rc;
            PQclear(r);
            continue;
        }
        if (left <= 0)
            return CUZK_ERR_BUSY;
        struct pollfd p = {.fd = PQsocket(q->conn), .events = POLLIN};
        if (p.fd < 0)
            return db_error(q, NULL, "waiting for notifications", err);
        int ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
        if (poll(&p, 1, ms) < 0 && errno != EINTR)
            return cuzk_error_set(err, CUZK_ERR_IO, "waiting for notifications: %s", strerror(errno));
    }
}

int pgq_wanted_keys(pgq *q, const char *const *known, size_t n_known, char ***out, int **priority, size_t *n_out,
                    cuzk_error *err)
{
    *out = NULL;
    *n_out = 0;
    if (priority)
        *priority = NULL;
    char *have = text_array(known, n_known);
    if (!have)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    const char *v[1] = {have};
    PGresult *r = NULL;
    int rc = exec(q,
                  "SELECT k, max(priority) FROM cuzk_jobs, unnest(keys) k WHERE state = 'queued' AND k <> ALL ($1::text[]) "
                  "GROUP BY k ORDER BY max(priority) DESC, min(submitted), k LIMIT " PGQ_WANTED_MAX_TEXT,
                  1, v, NULL, &r, "reading the keys queued jobs need", err);
    free(have);
    if (rc != CUZK_OK)
        return rc;
    size_t n = (size_t)PQntuples(r);
    char **list = calloc(n ? n : 1, sizeof(*list));
    int *prio = priority ? calloc(n ? n : 1, sizeof(*prio)) : NULL;
    if (priority && !prio) {
        free(list);
        list = NULL;
    }
    for (size_t i = 0; list && i < n; i++) {
        if (prio)
            prio[i] = atoi(PQgetvalue(r, (int)i, 1));
        if (!(list[i] = dup_value(r, (int)i, 0))) {
            pgq_strings_free(list, i);
            list = NULL;
        }
    }
    PQclear(r);
    if (!list) {
        free(prio);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    *out = list;
    if (priority)
        *priority = prio;
    *n_out = n;
    return CUZK_OK;
}

void pgq_strings_free(char **list, size_t n)
{
    for (size_t i = 0; list && i < n; i++)
        free(list[i]);
    free(list);
}

int pgq_key_register(pgq *q, const char *path, const unsigned char digest[PGQ_KEY_DIGEST_LEN], uint64_t size,
                     unsigned char registered[PGQ_KEY_DIGEST_LEN], char node[64], cuzk_error *err)
{
    char hex[2 * PGQ_KEY_DIGEST_LEN + 1], sz[24];
    for (int i = 0; i < PGQ_KEY_DIGEST_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    snprintf(sz, sizeof(sz), "%llu", (unsigned long long)size);
    const char *v[4] = {path, hex, sz, q->node};
    PGresult *r = NULL;
    /* the insert's row is not in the statement's snapshot: the union reads
     * either it or the one stored before */
    int rc = exec(q,
                  "WITH ins AS (INSERT INTO cuzk_keys (path, digest, size, node) VALUES ($1, decode($2, 'hex'), $3, $4) "
                  "ON CONFLICT (path) DO NOTHING RETURNING encode(digest, 'hex') AS d, node) "
                  "SELECT d, node FROM ins UNION ALL SELECT encode(digest, 'hex'), node FROM cuzk_keys "
                  "WHERE path = $1 AND NOT EXISTS (SELECT 1 FROM ins)",
                  4, v, NULL, &r, "registering a key's digest", err);
    if (rc != CUZK_OK)
        return rc;
    if (PQntuples(r) != 1) { /* removed between the two: the next check registers it */
        PQclear(r);
        return cuzk_error_set(err, CUZK_ERR_IO, "the job queue's database: key %s: its digest was being removed", path);
    }
    const char *d = PQgetvalue(r, 0, 0);
    for (int i = 0; i < PGQ_KEY_DIGEST_LEN; i++) {
        unsigned byte = 0;
        sscanf(d + 2 * i, "%2x", &byte);
        registered[i] = (unsigned char)byte;
    }
    snprintf(node, 64, "%s", PQgetvalue(r, 0, 1));
    PQclear(r);
    return CUZK_OK;
}

#endif
