/* The daemon on a PostgreSQL job queue (cuzk serve --queue; docs/cluster.md).
 *
 * Every node serves the same API over the same jobs: a POST stores the job
 * in the queue (src/server/pgqueue.c), GET and DELETE read and change it
 * there, a long poll waits for the queue's notifications. The node thread
 * claims jobs while the local engine has room, hands each to the engine
 * as the local journal would (journal_submit: the same request JSON, an
 * upload written to the state directory first), renews their leases,
 * writes each end fenced by its lease (a node that lost a lease writes
 * nothing), expires the leases of dead nodes and forgets results past
 * their TTL. The listener thread wakes the parked long polls.
 *
 * Threads and connections: a libpq connection serves one thread at a
 * time, so the node thread and the listener have their own and the HTTP
 * threads share a small pool. The claims are the node thread's alone. */
#include "../../include/cuzk.h"

#if CUZK_HAVE_SERVER

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "pgqueue.h"
#include "server_impl.h"

int cluster_pack(const request_witness *w, unsigned char **out, size_t *len)
{
    size_t n = 0;
    for (unsigned k = 0; k < w->n; k++)
        n += 8 + w->list_len[k];
    unsigned char *p = malloc(n ? n : 1);
    if (!p)
        return CUZK_ERR_NO_MEMORY;
    size_t o = 0;
    for (unsigned k = 0; k < w->n; k++) {
        for (int i = 0; i < 8; i++)
            p[o + i] = (unsigned char)((uint64_t)w->list_len[k] >> (8 * i));
        memcpy(p + o + 8, w->list[k], w->list_len[k]);
        o += 8 + w->list_len[k];
    }
    *out = p;
    *len = n;
    return CUZK_OK;
}

#if CUZK_HAVE_PG

#define CLUSTER_POOL 4 /* connections the HTTP threads share */

typedef struct claim {
    char id[33];
    int64_t token;
    unsigned long long eid; /* the engine's job */
    int priority, attempt;
    unsigned weight;        /* proofs it holds in the engine (its partitions) */
    int uploads;            /* its uploads written: -1 <id>.wtns, k > 0 <id>.0..k-1.wtns, 0 none */
    int lost;               /* the lease is gone: end it quietly */
    int cancelling;         /* a DELETE asked: end it as cancelled */
    struct claim *next;
} claim;

struct cluster {
    server *s;
    pgq *node_q, *listen_q;
    pgq *pool[CLUSTER_POOL];
    int pool_busy[CLUSTER_POOL];
    pthread_mutex_t pool_mu;
    pthread_cond_t pool_cv;
    pthread_t node_thread, listener;
    int started;
    volatile int stop;
    claim *claims; /* the node thread's */
    unsigned in_flight;
    char node[64];
};

static pgq *pool_take(struct cluster *cl)
{
    pthread_mutex_lock(&cl->pool_mu);
    for (;;) {
        for (int i = 0; i < CLUSTER_POOL; i++)
            if (!cl->pool_busy[i]) {
                cl->pool_busy[i] = 1;
                pthread_mutex_unlock(&cl->pool_mu);
                return cl->pool[i];
            }
        pthread_cond_wait(&cl->pool_cv, &cl->pool_mu);
    }
}

static void pool_give(struct cluster *cl, pgq *q)
{
    pthread_mutex_lock(&cl->pool_mu);
    for (int i = 0; i < CLUSTER_POOL; i++)
        if (cl->pool[i] == q)
            cl->pool_busy[i] = 0;
    pthread_cond_signal(&cl->pool_cv);
    pthread_mutex_unlock(&cl->pool_mu);
}

int cluster_submit(server *s, const char *id, const char *request_json, const unsigned char *witness, size_t wlen,
                   int priority, const char *request_id, const unsigned char *digest, int *known, char existing[33],
                   cuzk_error *err)
{
    if (witness && wlen > s->cfg.queue_max_witness)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "the uploaded witness%s take %zu bytes, more than the queue stores (--queue-max-witness "
                              "%llu): give them by path (\"witness_path\", \"witness_paths\") on storage the nodes "
                              "share",
                              "es", wlen, (unsigned long long)s->cfg.queue_max_witness);
    pgq_new_job j = {.id = id, .request_id = request_id && request_id[0] ? request_id : NULL, .digest = digest,
                     .priority = priority, .request_json = request_json, .witness = witness, .witness_len = wlen,
                     .max_attempts = (int)s->cfg.max_attempts};
    pgq *q = pool_take(s->cluster);
    int rc = pgq_submit(q, &j, known, existing, err);
    pool_give(s->cluster, q);
    return rc;
}

int cluster_job_json(server *s, const char *id, json_t **out, int *state, cuzk_error *err)
{
    *out = NULL;
    pgq_job j;
    pgq *q = pool_take(s->cluster);
    int rc = pgq_get(q, id, &j, err);
    pool_give(s->cluster, q);
    if (rc != CUZK_OK)
        return rc;
    json_t *o = j.result_json ? json_loads(j.result_json, 0, NULL) : NULL;
    if (!json_is_object(o)) {
        json_decref(o);
        o = json_pack("{s:s, s:s, s:i}", "id", id, "state", server_state_name(j.state), "priority", j.priority);
    }
    json_t *errors = json_loads(j.errors_json, 0, NULL);
    if (o) {
        json_object_set_new(o, "state", json_string(server_state_name(j.state)));
        if (j.node[0])
            json_object_set_new(o, "node", json_string(j.node));
        json_object_set_new(o, "attempts", json_integer(j.attempts));
        if (json_array_size(errors)) {
            /* every failed attempt's reason; a failed job's error is its last */
            if (j.state == CUZK_JOB_FAILED && !json_object_get(o, "error"))
                json_object_set(o, "error",
                                json_object_get(json_array_get(errors, json_array_size(errors) - 1), "reason"));
            json_object_set(o, "attempt_errors", errors);
        }
    }
    json_decref(errors);
    *state = j.state;
    pgq_job_free(&j);
    if (!o)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    *out = o;
    return CUZK_OK;
}

int cluster_delete(server *s, const char *id, int *deleted, cuzk_error *err)
{
    /* as the local journal: a job not ended is cancelled, an ended one forgotten */
    pgq *q = pool_take(s->cluster);
    pgq_job j;
    *deleted = 0;
    int rc = pgq_get(q, id, &j, err), st = -1;
    if (rc == CUZK_OK) {
        int ended = j.state >= CUZK_JOB_DONE;
        pgq_job_free(&j);
        rc = ended ? pgq_delete(q, id, err) : pgq_cancel(q, id, &st, err);
        *deleted = ended && rc == CUZK_OK;
    }
    pool_give(s->cluster, q);
    return rc;
}

int cluster_stats(server *s, char **json, cuzk_error *err)
{
    pgq *q = pool_take(s->cluster);
    int rc = pgq_stats(q, json, err);
    pool_give(s->cluster, q);
    return rc;
}

/* ------------------------------------------------------------ the node */

/* How many proofs a request makes (its partitions): what it holds of the
 * engine's room. */
static unsigned request_weight(json_t *req)
{
    json_int_t p = json_integer_value(json_object_get(req, "partitions"));
    json_int_t u = json_integer_value(json_object_get(req, "witnesses_journaled"));
    size_t l = json_array_size(json_object_get(req, "witness_paths"));
    unsigned w = p > 0 ? (unsigned)p : u > 0 ? (unsigned)u : l > 0 ? (unsigned)l : 1;
    return w;
}

static void remove_uploads(server *s, const claim *c)
{
    for (int k = c->uploads < 0 ? -1 : 0; k < (c->uploads < 0 ? 0 : c->uploads); k++) {
        char name[80], path[4400];
        journal_upload_name(name, sizeof(name), c->id, k);
        snprintf(path, sizeof(path), "%s/%s", s->jobs_dir, name);
        unlink(path);
    }
}

/* A claimed job's uploads where journal_submit reads them. 0, or -1 with
 * *why. */
static int write_uploads(server *s, claim *c, json_t *req, const unsigned char *w, size_t len, const char **why)
{
    if (json_is_true(json_object_get(req, "witness_journaled"))) {
        char name[80];
        journal_upload_name(name, sizeof(name), c->id, -1);
        c->uploads = -1;
        if (!w || journal_write_durable(s, name, w, len) != 0) {
            *why = w ? "cannot write the uploaded witness in the state directory" : "the uploaded witness is missing";
            return -1;
        }
        return 0;
    }
    json_int_t parts = json_integer_value(json_object_get(req, "witnesses_journaled"));
    size_t off = 0;
    for (json_int_t k = 0; k < parts; k++) {
        uint64_t n = 0;
        for (int i = 0; off + 8 <= len && i < 8; i++)
            n |= (uint64_t)w[off + i] << (8 * i);
        char name[80];
        journal_upload_name(name, sizeof(name), c->id, (int)k);
        if (!w || off + 8 > len || n > len - off - 8) {
            *why = "the uploaded witnesses are cut short in the queue";
            return -1;
        }
        c->uploads = (int)k + 1;
        if (journal_write_durable(s, name, w + off + 8, (size_t)n) != 0) {
            *why = "cannot write an uploaded witness in the state directory";
            return -1;
        }
        off += 8 + (size_t)n;
    }
    return 0;
}

static void heartbeat(struct cluster *cl)
{
    cuzk_engine_stats st;
    cuzk_engine_get_stats(cl->s->engine, &st);
    char info[256];
    snprintf(info, sizeof(info), "{\"gpus\": %d, \"workers\": %d, \"running\": %u, \"claims\": %u}", st.gpus,
             st.workers, st.running, cl->in_flight);
    cuzk_error err;
    if (pgq_heartbeat(cl->node_q, info, &err) != CUZK_OK)
        server_log(cl->s, CUZK_LOG_WARN, "%s", err.message);
}

/* Claims while the engine has room (one job always when it holds none). */
static void claim_some(struct cluster *cl)
{
    server *s = cl->s;
    if (s->stopping) /* shutting down: nothing new */
        return;
    cuzk_engine_stats st;
    cuzk_engine_get_stats(s->engine, &st);
    unsigned room = (unsigned)st.workers + st.ready_queue_depth;
    while (!cl->stop && (cl->in_flight < room || !cl->in_flight)) {
        pgq_claimed got;
        cuzk_error err = {0};
        int rc = pgq_claim(cl->node_q, s->cfg.lease, &got, &err);
        if (rc == CUZK_ERR_NOT_FOUND)
            return;
        if (rc != CUZK_OK) {
            server_log(s, CUZK_LOG_WARN, "%s", err.message);
            return;
        }
        claim *c = calloc(1, sizeof(*c));
        json_t *req = json_loads(got.request_json, 0, NULL);
        const char *why = NULL;
        if (!c || !req)
            why = c ? "its request is not JSON" : "out of memory";
        else {
            memcpy(c->id, got.id, sizeof(c->id));
            c->token = got.token;
            c->priority = got.priority;
            c->attempt = got.attempt;
            c->weight = request_weight(req);
            if (write_uploads(s, c, req, got.witness, got.witness_len, &why) == 0 &&
                journal_submit(s, c->id, req, &c->eid, &err) != CUZK_OK)
                why = err.message;
        }
        if (why) { /* this attempt fails (the next may be another node's, with its keys and files) */
            char reason[600];
            snprintf(reason, sizeof(reason), "node %s: %s", cl->node, why);
            cuzk_error e2;
            if (pgq_finish(cl->node_q, got.id, got.token, CUZK_JOB_FAILED, NULL, reason, &e2) != CUZK_OK)
                server_log(s, CUZK_LOG_WARN, "job %s: %s", got.id, e2.message);
            if (c)
                remove_uploads(s, c);
            free(c);
        } else {
            c->next = cl->claims;
            cl->claims = c;
            cl->in_flight += c->weight;
        }
        json_decref(req);
        pgq_claimed_free(&got);
    }
}

static void renew_all(struct cluster *cl)
{
    for (claim *c = cl->claims; c; c = c->next) {
        if (c->lost)
            continue;
        cuzk_error err;
        int rc = pgq_renew(cl->node_q, c->id, c->token, cl->s->cfg.lease, &err);
        if (rc == CUZK_ERR_NOT_FOUND || (rc == CUZK_ERR_CANCELLED && !c->cancelling)) {
            /* lost: another node has it now (or will); cancelled: end it so */
            if (rc == CUZK_ERR_NOT_FOUND) {
                c->lost = 1;
                server_log(cl->s, CUZK_LOG_WARN, "job %s: the lease is lost (this node was cut off past it); the job "
                           "is stopped here and its result not written", c->id);
            } else
                c->cancelling = 1;
            server_ignore_status(cuzk_engine_cancel(cl->s->engine, c->eid, &err));
        } else if (rc != CUZK_OK && rc != CUZK_ERR_CANCELLED)
            server_log(cl->s, CUZK_LOG_WARN, "%s", err.message); /* the database away: tried again */
    }
}

/* The ended claims' results into the queue, fenced by their leases. */
static void finish_ended(struct cluster *cl)
{
    server *s = cl->s;
    for (claim **pc = &cl->claims; *pc;) {
        claim *c = *pc;
        cuzk_job_info info;
        cuzk_error err;
        if (cuzk_engine_wait(s->engine, c->eid, 0, &info, &err) != CUZK_OK || info.state < CUZK_JOB_DONE) {
            pc = &c->next;
            continue;
        }
        int rc = CUZK_OK;
        if (!c->lost) {
            char *proof = NULL, *pub = NULL, *text = NULL;
            if (info.state == CUZK_JOB_DONE &&
                cuzk_engine_result(s->engine, c->eid, &proof, &pub, &err) != CUZK_OK)
                proof = pub = NULL;
            sjob view = {.priority = c->priority, .info = info, .proof = proof, .pub = pub};
            memcpy(view.id, c->id, sizeof(view.id));
            json_t *o = server_job_json(&view);
            if (o)
                json_object_set_new(o, "node", json_string(cl->node));
            text = o ? json_dumps(o, JSON_COMPACT) : NULL;
            json_decref(o);
            if (info.state == CUZK_JOB_DONE && text)
                rc = pgq_finish(cl->node_q, c->id, c->token, CUZK_JOB_DONE, text, NULL, &err);
            else if (info.state == CUZK_JOB_CANCELLED && !c->cancelling)
                rc = pgq_release(cl->node_q, c->id, c->token, &err); /* the engine stopped: another node proves it */
            else if (info.state == CUZK_JOB_CANCELLED)
                rc = pgq_finish(cl->node_q, c->id, c->token, CUZK_JOB_CANCELLED, NULL, NULL, &err);
            else {
                char reason[700];
                snprintf(reason, sizeof(reason), "node %s: %s", cl->node,
                         info.state == CUZK_JOB_DONE ? "out of memory for its result" : info.error);
                rc = pgq_finish(cl->node_q, c->id, c->token, CUZK_JOB_FAILED, NULL, reason, &err);
            }
            cuzk_free(proof);
            cuzk_free(pub);
            free(text);
            if (rc == CUZK_ERR_IO) { /* the database is away: kept, written at the next pass */
                pc = &c->next;
                continue;
            }
            if (rc == CUZK_ERR_NOT_FOUND)
                server_log(s, CUZK_LOG_WARN, "job %s: the lease was lost before its end was written: another node "
                           "has it", c->id);
        }
        server_ignore_status(cuzk_engine_release(s->engine, c->eid, &err));
        remove_uploads(s, c);
        cl->in_flight -= c->weight;
        *pc = c->next;
        free(c);
    }
}

/* Every claim not ended given back at a stop (the engine's jobs cancelled
 * and waited for: what ended meanwhile is written). */
static void give_back(struct cluster *cl)
{
    server *s = cl->s;
    for (claim *c = cl->claims; c; c = c->next) {
        cuzk_error err;
        server_ignore_status(cuzk_engine_cancel(s->engine, c->eid, &err));
    }
    for (int tries = 0; cl->claims && tries < 3000; tries++) { /* a GPU call ends within seconds */
        finish_ended(cl);
        if (cl->claims)
            usleep(10000);
    }
}

/* The node's loop: every 5 ms (waiting on the queue's notifications) the
 * ended claims written; a claim tried when a job was queued, a claim ended
 * (room freed), or a second passed (a notification missed); leases renewed
 * every quarter lease, others' expired every second. */
static void *node_main(void *arg)
{
    struct cluster *cl = arg;
    server *s = cl->s;
    double last_renew = 0, last_beat = 0, last_expire = 0, last_purge = 0, last_claim = 0;
    int queued = 1, listening = 0;
    while (!cl->stop) {
        double now = cuzk_now();
        cuzk_error err;
        if (!listening)
            listening = pgq_listen(cl->node_q, &err) == CUZK_OK;
        if (now - last_renew >= s->cfg.lease / 4) {
            renew_all(cl);
            last_renew = now;
        }
        unsigned before = cl->in_flight;
        finish_ended(cl);
        if (queued || cl->in_flight < before || now - last_claim >= 1) {
            claim_some(cl);
            last_claim = now;
            queued = 0;
        }
        if (now - last_beat >= 2) {
            heartbeat(cl);
            last_beat = now;
        }
        if (now - last_expire >= 1) {
            unsigned n = 0;
            if (pgq_expire(cl->node_q, &n, &err) == CUZK_OK && n)
                server_log(s, CUZK_LOG_INFO, "%u job%s of a node whose lease expired queued again", n,
                           n == 1 ? "" : "s");
            last_expire = now;
        }
        if (now - last_purge >= 60) {
            unsigned n = 0;
            server_ignore_status(pgq_purge(cl->node_q, s->cfg.result_ttl, &n, &err));
            last_purge = now;
        }
        /* 5 ms, or until the queue says something: a job queued is claimed at once */
        char payload[128];
        int rc = pgq_wait(cl->node_q, 0.005, payload, sizeof(payload), &err);
        while (rc == CUZK_OK) {
            queued |= strstr(payload, " queued") != NULL;
            rc = pgq_wait(cl->node_q, 0, payload, sizeof(payload), &err);
        }
        if (rc == CUZK_ERR_IO) {
            listening = 0; /* LISTEN again once the connection is back */
            usleep(20000);
        }
    }
    give_back(cl);
    return NULL;
}

/* The queue's notifications wake the parked polls of their job; every
 * 0.2 s those whose wait is over. */
static void *listen_main(void *arg)
{
    struct cluster *cl = arg;
    server *s = cl->s;
    int listening = 0;
    while (!cl->stop) {
        cuzk_error err;
        if (!listening && pgq_listen(cl->listen_q, &err) != CUZK_OK) {
            usleep(200000);
            continue;
        }
        listening = 1;
        char payload[128];
        int rc = pgq_wait(cl->listen_q, 0.2, payload, sizeof(payload), &err);
        pthread_mutex_lock(&s->mu);
        if (rc == CUZK_OK) {
            payload[32] = 0; /* "<id> <state>" */
            api_wake_parked_queue(s, payload);
        } else
            api_wake_parked_queue(s, rc == CUZK_ERR_BUSY ? NULL : ""); /* lost notifications: everyone looks */
        pthread_mutex_unlock(&s->mu);
        if (rc == CUZK_ERR_IO)
            usleep(200000);
    }
    return NULL;
}

int cluster_start(server *s, cuzk_error *err)
{
    struct cluster *cl = calloc(1, sizeof(*cl));
    if (!cl)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    cl->s = s;
    pthread_mutex_init(&cl->pool_mu, NULL);
    pthread_cond_init(&cl->pool_cv, NULL);
    s->cluster = cl;
    if (!s->cfg.node || !*s->cfg.node) { /* the host name, its first label */
        if (gethostname(cl->node, sizeof(cl->node) - 1) != 0 || !cl->node[0])
            snprintf(cl->node, sizeof(cl->node), "node-%d", (int)getpid());
        cl->node[strspn(cl->node, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")] = 0;
        if (!cl->node[0])
            snprintf(cl->node, sizeof(cl->node), "node-%d", (int)getpid());
    } else
        snprintf(cl->node, sizeof(cl->node), "%s", s->cfg.node);
    int rc = pgq_open(&cl->node_q, s->cfg.queue, cl->node, err);
    if (rc == CUZK_OK)
        rc = pgq_open(&cl->listen_q, s->cfg.queue, cl->node, err);
    for (int i = 0; rc == CUZK_OK && i < CLUSTER_POOL; i++)
        rc = pgq_open(&cl->pool[i], s->cfg.queue, cl->node, err);
    if (rc == CUZK_OK && pthread_create(&cl->node_thread, NULL, node_main, cl) != 0)
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the node thread");
    if (rc == CUZK_OK && pthread_create(&cl->listener, NULL, listen_main, cl) != 0) {
        cl->stop = 1;
        pthread_join(cl->node_thread, NULL);
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the listener thread");
    }
    if (rc == CUZK_OK) {
        cl->started = 1;
        return CUZK_OK;
    }
    cluster_stop(s);
    return rc;
}

void cluster_stop(server *s)
{
    struct cluster *cl = s->cluster;
    if (!cl)
        return;
    cl->stop = 1;
    if (cl->started) {
        pthread_join(cl->node_thread, NULL);
        pthread_join(cl->listener, NULL);
    }
    pgq_close(cl->node_q);
    pgq_close(cl->listen_q);
    for (int i = 0; i < CLUSTER_POOL; i++)
        pgq_close(cl->pool[i]);
    pthread_mutex_destroy(&cl->pool_mu);
    pthread_cond_destroy(&cl->pool_cv);
    free(cl);
    s->cluster = NULL;
}

#else /* no libpq */

int cluster_start(server *s, cuzk_error *err)
{
    (void)s;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                          "--queue: this cuzk was built without libpq (install libpq-dev and rebuild)");
}
void cluster_stop(server *s)
{
    (void)s;
}
int cluster_submit(server *s, const char *id, const char *request_json, const unsigned char *witness, size_t wlen,
                   int priority, const char *request_id, const unsigned char *digest, int *known, char existing[33],
                   cuzk_error *err)
{
    (void)s, (void)id, (void)request_json, (void)witness, (void)wlen, (void)priority, (void)request_id, (void)digest;
    (void)known, (void)existing;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "no job queue");
}
int cluster_job_json(server *s, const char *id, json_t **out, int *state, cuzk_error *err)
{
    (void)s, (void)id, (void)out, (void)state;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "no job queue");
}
int cluster_delete(server *s, const char *id, int *deleted, cuzk_error *err)
{
    (void)s, (void)id, (void)deleted;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "no job queue");
}
int cluster_stats(server *s, char **json, cuzk_error *err)
{
    (void)s, (void)json;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED, "no job queue");
}

#endif
#endif
