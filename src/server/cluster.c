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
 * A node claims only jobs whose keys it holds: a key path it found at
 * that path, with the digest the queue's registry has for it (the first
 * node to hash a path registers what every other must find), a key id it
 * has loaded. The node thread learns which keys queued jobs need and looks
 * at each; the hasher thread takes the digests (of 47 GB keys: not in the
 * loop that renews leases) and compares them with the registry.
 *
 * Threads and connections: a libpq connection serves one thread at a
 * time, so the node thread, the listener and the hasher have their own and
 * the HTTP threads share a small pool. The claims are the node thread's
 * alone. */
#include "../../include/cuzk.h"
#include "../../include/cuzk_serve.h"

#if CUZK_HAVE_SERVER

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/clock.h"
#include "../util/error.h"
#include "../util/file_digest.h"
#include "../util/sha256.h"
#include "pgqueue.h"
#include "server_impl.h"
#include "../util/cores.h"

/* Several uploads as one stored witness (each an 8-byte length, then its
 * bytes); *out malloc'd. */
static int cluster_pack(const request_witness *w, unsigned char **out, size_t *len)
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
#define CLUSTER_MAX_KEYS 4096 /* keys a node keeps track of */
#define NODE_STALE 5.0        /* seconds without a heartbeat (one every 2 s) after which a node is gone */

/* What a node knows of a key that queued jobs need. */
enum { KEY_NEW, KEY_HASHING, KEY_READY, KEY_ABSENT, KEY_MISMATCH };

typedef struct node_key {
    char *name;              /* as jobs name it: a path, or "id:" and a key id */
    /* the rest under keys_mu */
    int state;
    int recheck;             /* ask the registry again (it may have changed) */
    int busy;                /* the hasher works on it (unlocked): it stays in the table */
    int priority;            /* the most urgent queued job's that needs it, when it was met */
    char resolved[PATH_MAX]; /* the path's file here (an id's: the file it was loaded from) */
    char circuit[PATH_MAX];  /* an id of a .params key: its circuit's file ("" none) */
    struct stat seen;        /* that file when its digest was taken */
    struct stat seen_circuit;
    int hashed;              /* digest is of `seen` (and `seen_circuit`) */
    unsigned char digest[FILE_DIGEST_LEN];
    double checked;          /* when the node thread last looked */
    double since;            /* when it was met, or last set to be hashed */
    char why[600];           /* absent, mismatch: the reason */
} node_key;

/* A digest taken before, by the file's identity (kept in the state
 * directory: a restart does not read a 47 GB key again). */
typedef struct digest_cached {
    char *path;
    struct stat st;
    unsigned char digest[FILE_DIGEST_LEN];
} digest_cached;

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
    char instance[33];      /* this process's token under the node's name (pgq_node_take) */
    /* the keys: entries added by the node thread, their fields under keys_mu */
    node_key **keys;
    size_t n_keys;
    pthread_mutex_t keys_mu;
    pthread_cond_t keys_cv;
    pthread_t hasher;
    int hasher_started;
    pgq *hash_q;
    digest_cached *cache; /* the hasher's */
    size_t n_cache;
    double last_keys;
    int keys_full;    /* CLUSTER_MAX_KEYS reached (said once) */
    int claim_again;  /* claims deferred while a key was being checked: try at the next pass */
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

/* POST: the validated request stored in the queue, uploads with it; a
 * request id stored before answers as the journal's do (its job, or a
 * conflict). */
static int queue_submit(server *s, json_t *record, const request_witness *wit, const char *request_id,
                        const unsigned char *digest, char id[33], int *outcome, int *state, cuzk_error *err)
{
    *outcome = STORE_NEW;
    *state = CUZK_JOB_QUEUED;
    if (server_new_id(id) != 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "cannot draw a job id");
    char *text = json_dumps(record, JSON_COMPACT);
    unsigned char *packed = NULL;
    size_t plen = 0;
    if (!text || (wit->list && cluster_pack(wit, &packed, &plen) != CUZK_OK)) {
        free(text);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    }
    const unsigned char *witness = wit->bytes ? wit->bytes : packed;
    size_t wlen = wit->bytes ? wit->len : plen;
    int rc = CUZK_OK;
    if (witness && wlen > s->cfg.queue_max_witness) {
        cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                       "the uploaded witness%s take %zu bytes, more than the queue stores (--queue-max-witness "
                       "%llu): give them by path (\"witness_path\", \"witness_paths\") on storage the nodes share",
                       "es", wlen, (unsigned long long)s->cfg.queue_max_witness);
        *outcome = STORE_TOO_LARGE;
    } else {
        pgq_new_job j = {.id = id, .request_id = request_id[0] ? request_id : NULL, .digest = digest,
                         .priority = (int)json_integer_value(json_object_get(record, "priority")),
                         .request_json = text, .witness = witness, .witness_len = wlen,
                         .max_attempts = (int)s->cfg.max_attempts, .max_queued = s->cfg.queue_max_queued};
        char existing[33] = "";
        int known = PGQ_NEW;
        pgq *q = pool_take(s->cluster);
        rc = pgq_submit(q, &j, &known, existing, err);
        if (rc == CUZK_OK && known == PGQ_CONFLICT) {
            *outcome = STORE_CONFLICT;
            cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                           "request_id '%s' names another request (its key, witness or priority differ): a new "
                           "request needs a new request id",
                           request_id);
        } else if (rc == CUZK_OK && known == PGQ_DUPLICATE) {
            pgq_job job;
            *outcome = STORE_DUPLICATE;
            memcpy(id, existing, 33);
            if (pgq_get(q, existing, &job, err) == CUZK_OK) {
                *state = job.state;
                pgq_job_free(&job);
            }
        }
        pool_give(s->cluster, q);
    }
    free(text);
    free(packed);
    return rc;
}

static int queue_job(server *s, const char *id, json_t **out, int *state, cuzk_error *err)
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
        o = json_pack("{s:s, s:s, s:i}", "id", id, "state", cuzk_job_state_name(j.state), "priority", j.priority);
    }
    json_t *errors = json_loads(j.errors_json, 0, NULL);
    if (o) {
        json_object_set_new(o, "state", json_string(cuzk_job_state_name(j.state)));
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

static int queue_remove(server *s, const char *id, int *outcome, cuzk_error *err)
{
    /* as the local journal: a job not ended is cancelled, an ended one forgotten */
    pgq *q = pool_take(s->cluster);
    pgq_job j;
    int rc = pgq_get(q, id, &j, err), st = -1;
    if (rc == CUZK_OK) {
        int ended = j.state >= CUZK_JOB_DONE;
        pgq_job_free(&j);
        rc = ended ? pgq_delete(q, id, err) : pgq_cancel(q, id, &st, err);
        *outcome = ended ? STORE_DELETED : STORE_CANCELLING;
    }
    pool_give(s->cluster, q);
    return rc;
}

static int queue_stats(server *s, char **json, cuzk_error *err)
{
    pgq *q = pool_take(s->cluster);
    int rc = pgq_stats(q, json, err);
    pool_give(s->cluster, q);
    return rc;
}

/* The queue's counts as Prometheus lines, appended to t (cap bytes). */
static void queue_metrics(const char *queue, char *t, size_t cap)
{
    json_t *q = json_loads(queue, 0, NULL);
    size_t n = strlen(t);
    static const char *const prio[4] = {"low", "normal", "high", "critical"};
    n += (size_t)snprintf(t + n, cap - n, "# HELP cuzk_queue_jobs jobs in the shared queue, by state (queued: by priority)\n"
                                          "# TYPE cuzk_queue_jobs gauge\n");
    for (int i = 0; i < 4 && n < cap; i++)
        n += (size_t)snprintf(t + n, cap - n, "cuzk_queue_jobs{state=\"queued\",priority=\"%s\"} %lld\n", prio[i],
                              (long long)json_integer_value(json_object_get(json_object_get(q, "queued"), prio[i])));
    for (int st = CUZK_JOB_RUNNING; st <= CUZK_JOB_CANCELLED && n < cap; st++)
        n += (size_t)snprintf(t + n, cap - n, "cuzk_queue_jobs{state=\"%s\"} %lld\n", cuzk_job_state_name(st),
                              (long long)json_integer_value(json_object_get(q, cuzk_job_state_name(st))));
    if (n < cap)
        n += (size_t)snprintf(t + n, cap - n,
                              "# HELP cuzk_queue_claimed_again jobs claimed more than once (a lease lost or given back)\n"
                              "# TYPE cuzk_queue_claimed_again gauge\ncuzk_queue_claimed_again %lld\n"
                              "# HELP cuzk_queue_nodes nodes of the queue (every one that ever heartbeat)\n"
                              "# TYPE cuzk_queue_nodes gauge\ncuzk_queue_nodes %zu\n",
                              (long long)json_integer_value(json_object_get(q, "claimed_again")),
                              json_array_size(json_object_get(q, "nodes")));
    if (n < cap && json_is_number(json_object_get(q, "next_lease_expiry_s")))
        n += (size_t)snprintf(t + n, cap - n,
                              "# HELP cuzk_queue_next_lease_expiry_seconds time left on the soonest running lease\n"
                              "# TYPE cuzk_queue_next_lease_expiry_seconds gauge\n"
                              "cuzk_queue_next_lease_expiry_seconds %.3f\n",
                              json_number_value(json_object_get(q, "next_lease_expiry_s")));
    /* per node, one family at a time (the text format groups a family's samples) */
    static const struct {
        const char *name, *help, *field, *sub; /* the node's value: its field, or info's, or info.keys' */
    } per_node[] = {
        {"cuzk_queue_node_heartbeat_age_seconds", "seconds since the node's last heartbeat", "heartbeat_age_s", NULL},
        {"cuzk_queue_node_gpus", "GPUs the node proves on", "gpus", "info"},
        {"cuzk_queue_node_claims", "proofs the node holds claimed", "claims", "info"},
        {"cuzk_queue_node_keys_ready", "keys queued jobs need that the node holds (digest checked)", "ready", "keys"},
        {"cuzk_queue_node_keys_absent", "keys queued jobs need that the node lacks (a few listed in /v1/status)",
         "absent_total", "keys"},
        {"cuzk_queue_node_keys_mismatch", "keys whose copy on the node has another digest than the registry's",
         "mismatch_total", "keys"},
    };
    json_t *nodes = json_object_get(q, "nodes"), *node;
    for (size_t m = 0; m < sizeof(per_node) / sizeof(per_node[0]) && n < cap; m++) {
        n += (size_t)snprintf(t + n, cap - n, "# HELP %s %s\n# TYPE %s gauge\n", per_node[m].name, per_node[m].help,
                              per_node[m].name);
        size_t i;
        json_array_foreach(nodes, i, node)
        {
            char name[70];
            const char *nm = json_string_value(json_object_get(node, "name"));
            snprintf(name, sizeof(name), "%s", nm ? nm : "?");
            for (char *p = name; *p; p++)
                if (*p == '"' || *p == '\\')
                    *p = '_';
            json_t *from = node;
            if (per_node[m].sub) {
                from = json_object_get(node, "info");
                if (!strcmp(per_node[m].sub, "keys"))
                    from = json_object_get(from, "keys");
            }
            json_t *v = json_object_get(from, per_node[m].field);
            if (!v)
                continue; /* a node that does not report it (an older one) */
            if (n < cap)
                n += (size_t)snprintf(t + n, cap - n, "%s{node=\"%s\"} %.3f\n", per_node[m].name, name,
                                      json_number_value(v));
        }
    }
    json_decref(q);
}

const job_store queue_store = {
    .submit = queue_submit,
    .job = queue_job,
    .remove = queue_remove,
    .name = "queue",
    .stats = queue_stats,
    .metrics = queue_metrics,
    .watch = NULL,
};

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

/* A claimed job's uploads where journal_submit reads them. 0, or with
 * *why -1 (the job's: they are not in the queue whole) or -2 (this node's:
 * its state directory cannot take them; errno says why). */
static int write_uploads(server *s, claim *c, json_t *req, const unsigned char *w, size_t len, const char **why)
{
    if (json_is_true(json_object_get(req, "witness_journaled"))) {
        char name[80];
        journal_upload_name(name, sizeof(name), c->id, -1);
        c->uploads = -1;
        if (!w) {
            *why = "the uploaded witness is missing";
            return -1;
        }
        if (journal_write_durable(s, name, w, len) != 0) {
            *why = "cannot write the uploaded witness in the state directory";
            return -2;
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
            return -2;
        }
        off += 8 + (size_t)n;
    }
    return 0;
}

/* ------------------------------------------------------------ the keys */

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
           a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec;
}

/* key digests are written and read as the journal's request digests are */
_Static_assert(FILE_DIGEST_LEN == REQUEST_DIGEST_LEN, "one hex form for both digests");

#define DIGEST_CACHE_FILE "key-digests"

/* The digests taken before, from the state directory: a line a file,
 * "<hex> <dev> <ino> <size> <mtime s> <mtime ns> <path>". */
static void cache_load(struct cluster *cl)
{
    char path[4200];
    snprintf(path, sizeof(path), "%s/%s", cl->s->cfg.state_dir, DIGEST_CACHE_FILE);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[PATH_MAX + 200];
    while (cl->n_cache < CLUSTER_MAX_KEYS && fgets(line, sizeof(line), f)) {
        char hex[2 * FILE_DIGEST_LEN + 1];
        unsigned long long dev, ino, size;
        long long sec;
        long nsec;
        int at = 0;
        unsigned char d[FILE_DIGEST_LEN];
        if (sscanf(line, "%64s %llu %llu %llu %lld %ld %n", hex, &dev, &ino, &size, &sec, &nsec, &at) != 6 || !at ||
            journal_digest_from_hex(hex, d) != 0)
            continue;
        line[strcspn(line, "\n")] = 0;
        digest_cached *n = realloc(cl->cache, (cl->n_cache + 1) * sizeof(*n));
        if (!n)
            break;
        cl->cache = n;
        digest_cached *c = &cl->cache[cl->n_cache];
        memset(c, 0, sizeof(*c));
        if (!(c->path = strdup(line + at)))
            break;
        c->st.st_dev = (dev_t)dev, c->st.st_ino = (ino_t)ino, c->st.st_size = (off_t)size;
        c->st.st_mtim.tv_sec = (time_t)sec, c->st.st_mtim.tv_nsec = nsec;
        memcpy(c->digest, d, FILE_DIGEST_LEN);
        cl->n_cache++;
    }
    fclose(f);
}

static int cache_find(struct cluster *cl, const char *path, const struct stat *st, unsigned char out[FILE_DIGEST_LEN])
{
    for (size_t i = 0; i < cl->n_cache; i++)
        if (!strcmp(cl->cache[i].path, path) && same_file(&cl->cache[i].st, st)) {
            memcpy(out, cl->cache[i].digest, FILE_DIGEST_LEN);
            return 1;
        }
    return 0;
}

/* Remembers a digest (replacing the path's older one) and writes the lot. */
static void cache_store(struct cluster *cl, const char *path, const struct stat *st,
                        const unsigned char d[FILE_DIGEST_LEN])
{
    if (strchr(path, '\n'))
        return;
    size_t i = 0;
    while (i < cl->n_cache && strcmp(cl->cache[i].path, path))
        i++;
    if (i == cl->n_cache && cl->n_cache == CLUSTER_MAX_KEYS) { /* full: the oldest goes */
        free(cl->cache[0].path);
        memmove(cl->cache, cl->cache + 1, (cl->n_cache - 1) * sizeof(*cl->cache));
        cl->n_cache--;
        i = cl->n_cache;
    }
    if (i == cl->n_cache) {
        digest_cached *n = realloc(cl->cache, (i + 1) * sizeof(*n));
        char *p = n ? strdup(path) : NULL;
        if (n)
            cl->cache = n;
        if (!p)
            return;
        cl->cache[i].path = p;
        cl->n_cache++;
    }
    cl->cache[i].st = *st;
    memcpy(cl->cache[i].digest, d, FILE_DIGEST_LEN);
    size_t len = 0;
    for (size_t k = 0; k < cl->n_cache; k++)
        len += strlen(cl->cache[k].path) + 2 * FILE_DIGEST_LEN + 120;
    char *text = malloc(len + 1), *o = text;
    if (!text)
        return;
    for (size_t k = 0; k < cl->n_cache; k++) {
        const digest_cached *c = &cl->cache[k];
        char hex[2 * FILE_DIGEST_LEN + 1];
        journal_digest_hex(c->digest, hex);
        o += sprintf(o, "%s %llu %llu %llu %lld %ld %s\n", hex, (unsigned long long)c->st.st_dev,
                     (unsigned long long)c->st.st_ino, (unsigned long long)c->st.st_size,
                     (long long)c->st.st_mtim.tv_sec, (long)c->st.st_mtim.tv_nsec, c->path);
    }
    if (journal_write_in(cl->s->cfg.state_dir, DIGEST_CACHE_FILE, text, (size_t)(o - text)) != 0)
        server_log(cl->s, CUZK_LOG_WARN, "cannot keep the keys' digests in %s: %s", cl->s->cfg.state_dir,
                   strerror(errno));
    free(text);
}

static void key_set(struct cluster *cl, node_key *k, int state, const char *why)
{
    /* under keys_mu; a change is logged */
    if (k->state != state && state != KEY_HASHING) {
        if (state == KEY_READY)
            server_log(cl->s, CUZK_LOG_INFO, "key %s: ready (this node claims its jobs)", k->name);
        else
            server_log(cl->s, CUZK_LOG_WARN, "key %s: %s; this node claims none of its jobs", k->name, why);
    }
    k->state = state;
    snprintf(k->why, sizeof(k->why), "%s", state == KEY_READY ? "" : why);
}

/* Looks at a key again (node thread): an id loaded or not; a path allowed
 * and there, its digest to take when the file is new or changed, else
 * the registry asked again. */
static void key_examine(struct cluster *cl, node_key *k, double now)
{
    server *s = cl->s;
    char why[600] = "", resolved[PATH_MAX] = "", circuit[PATH_MAX] = "";
    int state = KEY_HASHING;
    struct stat st, cst;
    if (!strncmp(k->name, "id:", 3)) {
        /* an id names one key fleet-wide: the files it was loaded from
         * here are hashed and checked against the registry as a path's */
        const char *id = k->name + 3;
        char *kp = NULL, *cp = NULL;
        cuzk_error e2;
        if (cuzk_engine_key_files(s->engine, id, &kp, &cp, &e2) != CUZK_OK) {
            state = KEY_ABSENT;
            snprintf(why, sizeof(why), "key id '%.64s' is not loaded here (--key %.64s=PATH, or POST /v1/keys/%.64s)",
                     id, id, id);
        } else {
            snprintf(resolved, sizeof(resolved), "%s", kp);
            snprintf(circuit, sizeof(circuit), "%s", cp ? cp : "");
            if (stat(resolved, &st) != 0 || (circuit[0] && stat(circuit, &cst) != 0)) {
                state = KEY_ABSENT;
                snprintf(why, sizeof(why), "key id '%.64s': its file %.400s: %s", id,
                         stat(resolved, &st) != 0 ? resolved : circuit, strerror(errno));
            }
        }
        cuzk_free(kp);
        cuzk_free(cp);
    } else {
        char msg[500];
        if (paths_check(s, PATHS_KEY, k->name, resolved, sizeof(resolved), msg, sizeof(msg))) {
            state = KEY_ABSENT;
            snprintf(why, sizeof(why), "%s", msg);
        } else if (stat(resolved, &st) != 0) {
            state = KEY_ABSENT;
            snprintf(why, sizeof(why), "%.400s: %s", resolved, strerror(errno));
        }
    }
    pthread_mutex_lock(&cl->keys_mu);
    k->checked = now;
    if (state == KEY_HASHING) {
        int same = k->hashed && same_file(&st, &k->seen) && !strcmp(k->resolved, resolved) &&
                   !strcmp(k->circuit, circuit) && (!circuit[0] || same_file(&cst, &k->seen_circuit));
        snprintf(k->resolved, sizeof(k->resolved), "%s", resolved);
        snprintf(k->circuit, sizeof(k->circuit), "%s", circuit);
        if (same && (k->state == KEY_READY || k->state == KEY_MISMATCH))
            k->recheck = 1; /* the same file: only the registry asked */
        else if (k->state != KEY_HASHING) {
            k->state = KEY_HASHING;
            k->since = now;
        }
        pthread_cond_signal(&cl->keys_cv);
    } else
        key_set(cl, k, state, why);
    pthread_mutex_unlock(&cl->keys_mu);
}

/* The keys queued jobs need that this node has not met yet (asked every
 * second, busy or not: a node that learned a key only once it had room
 * claimed lower-priority jobs of keys it knew ahead of a critical one of a
 * key it did not -- tests/test_cluster.sh's priorities; the query reads
 * the queued jobs), and another look at those it has: absent and
 * mismatched ones every 5 s, ready ones every 30 s (a claim also checks
 * its job's key files first). */
/* A full table makes room for a key of jobs of priority prio: the key met
 * for the least urgent jobs leaves (one that cannot be claimed before one
 * that can, then the one met first), unless the hasher works on it. It
 * must be of less urgent jobs, or (equal_ok) one that cannot be claimed
 * here, looked at 5 s ago or more: a table full of keys no node holds
 * cannot keep a new key's jobs from this node. 1 when one of less urgent
 * jobs left, 2 one of as urgent ones, 0 none. The node thread's table; the
 * entry goes under keys_mu. */
static int evict_key(struct cluster *cl, int prio, int equal_ok, double now)
{
    size_t victim = cl->n_keys;
    pthread_mutex_lock(&cl->keys_mu);
    for (size_t i = 0; i < cl->n_keys; i++) {
        const node_key *k = cl->keys[i], *v = victim < cl->n_keys ? cl->keys[victim] : NULL;
        if (k->busy || k->recheck || k->state == KEY_HASHING || k->state == KEY_NEW || k->priority > prio ||
            (k->priority == prio && !(equal_ok && k->state != KEY_READY && now - k->checked >= 5)))
            continue;
        int useless = k->state != KEY_READY;
        if (!v || k->priority < v->priority ||
            (k->priority == v->priority && (useless > (v->state != KEY_READY) ||
                                             (useless == (v->state != KEY_READY) && k->since < v->since))))
            victim = i;
    }
    node_key *gone = NULL;
    if (victim < cl->n_keys) {
        gone = cl->keys[victim];
        cl->keys[victim] = cl->keys[--cl->n_keys];
    }
    pthread_mutex_unlock(&cl->keys_mu);
    if (!gone)
        return 0;
    int equal = gone->priority == prio;
    free(gone->name);
    free(gone);
    return equal ? 2 : 1;
}

static void keys_refresh(struct cluster *cl)
{
    double now = cuzk_now();
    char **want = NULL;
    int *prio = NULL;
    size_t n_want = 0;
    const char **names = malloc((cl->n_keys + 1) * sizeof(*names));
    if (names) {
        for (size_t i = 0; i < cl->n_keys; i++)
            names[i] = cl->keys[i]->name;
        cuzk_error err;
        if (pgq_wanted_keys(cl->node_q, names, cl->n_keys, &want, &prio, &n_want, &err) != CUZK_OK)
            server_log(cl->s, CUZK_LOG_WARN, "%s", err.message);
        free(names);
    }
    /* the most urgent first (pgq_wanted_keys' order): when the table is
     * full, a key of less urgent jobs makes room (or a few a pass that no
     * node here can use) */
    unsigned equal_evictions = 0;
    for (size_t i = 0; i < n_want; i++) {
        int evicted = cl->n_keys < CLUSTER_MAX_KEYS ? -1 : evict_key(cl, prio[i], equal_evictions < 8, now);
        equal_evictions += evicted == 2;
        if (!evicted) {
            if (!cl->keys_full)
                server_log(cl->s, CUZK_LOG_WARN,
                           "this node keeps track of %d keys at most, all of jobs as urgent as those of further "
                           "keys: those are left to other nodes until some of these end",
                           CLUSTER_MAX_KEYS);
            cl->keys_full = 1;
            break;
        }
        node_key *k = calloc(1, sizeof(*k));
        if (!k)
            break;
        k->name = want[i];
        k->since = now;
        k->priority = prio[i];
        /* grown under the lock: the hasher walks the table under it */
        pthread_mutex_lock(&cl->keys_mu);
        node_key **grown = realloc(cl->keys, (cl->n_keys + 1) * sizeof(*grown));
        if (grown) {
            cl->keys = grown;
            cl->keys[cl->n_keys++] = k;
            want[i] = NULL;
        }
        pthread_mutex_unlock(&cl->keys_mu);
        if (!grown) {
            free(k);
            break;
        }
    }
    pgq_strings_free(want, n_want);
    free(prio);
    for (size_t i = 0; i < cl->n_keys; i++) {
        node_key *k = cl->keys[i];
        pthread_mutex_lock(&cl->keys_mu);
        int state = k->state;
        double age = now - k->checked;
        pthread_mutex_unlock(&cl->keys_mu);
        if (state == KEY_NEW || (state == KEY_READY && age >= 30) ||
            ((state == KEY_ABSENT || state == KEY_MISMATCH) && age >= 5))
            key_examine(cl, k, now);
    }
}

/* The keys ready here (their names, which live as long as the node):
 * what a claim may take. NULL: out of memory. */
static const char **keys_ready(struct cluster *cl, size_t *n)
{
    const char **ready = malloc((cl->n_keys + 1) * sizeof(*ready));
    *n = 0;
    if (!ready)
        return NULL;
    pthread_mutex_lock(&cl->keys_mu);
    for (size_t i = 0; i < cl->n_keys; i++)
        if (cl->keys[i]->state == KEY_READY)
            ready[(*n)++] = cl->keys[i]->name;
    pthread_mutex_unlock(&cl->keys_mu);
    return ready;
}

/* Whether a claimed job's key files are still those whose digests were
 * checked; a changed one is hashed again (and the claim given back). */
static int keys_unchanged(struct cluster *cl, json_t *req)
{
    static const char *const fields[3] = {"key_path", "r1cs_path", "key_id"};
    int same = 1;
    for (int f = 0; f < 3; f++) {
        const char *v = json_string_value(json_object_get(req, fields[f]));
        char id[80];
        const char *name = v;
        if (v && f == 2) { /* an id's key: its files here as they were hashed */
            snprintf(id, sizeof(id), "id:%.64s", v);
            name = id;
        }
        for (size_t i = 0; name && i < cl->n_keys; i++) {
            node_key *k = cl->keys[i];
            if (strcmp(k->name, name))
                continue;
            pthread_mutex_lock(&cl->keys_mu);
            struct stat st, cst;
            if (k->state != KEY_READY || stat(k->resolved, &st) != 0 || !same_file(&st, &k->seen) ||
                (k->circuit[0] && (stat(k->circuit, &cst) != 0 || !same_file(&cst, &k->seen_circuit)))) {
                if (k->state == KEY_READY)
                    server_log(cl->s, CUZK_LOG_INFO, "key %s: the file changed; its digest is taken again", k->name);
                k->state = KEY_HASHING;
                k->since = cuzk_now();
                pthread_cond_signal(&cl->keys_cv);
                same = 0;
            }
            pthread_mutex_unlock(&cl->keys_mu);
        }
    }
    return same;
}

/* A file's digest (taken before of the same file: from the cache), *st the
 * file's when read. CUZK_ERR_BUSY when it changed while read. */
static int digest_of(struct cluster *cl, const char *key, const char *path, unsigned threads, struct stat *st,
                     unsigned char d[FILE_DIGEST_LEN], cuzk_error *err)
{
    if (stat(path, st) != 0)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: %s", path, strerror(errno));
    if (cache_find(cl, path, st, d))
        return CUZK_OK;
    double t0 = cuzk_now();
    server_log(cl->s, CUZK_LOG_INFO, "key %s: taking the digest of %s (%.1f GB, %u threads)", key, path,
               (double)st->st_size / 1e9, threads);
    uint64_t size = 0;
    struct stat after;
    int rc = file_digest(path, threads, &cl->stop, d, &size, err);
    if (rc == CUZK_OK && (stat(path, &after) != 0 || !same_file(st, &after)))
        rc = CUZK_ERR_BUSY; /* changed while read: again */
    if (rc == CUZK_OK) {
        char hex[2 * FILE_DIGEST_LEN + 1];
        journal_digest_hex(d, hex);
        server_log(cl->s, CUZK_LOG_INFO, "key %s: digest %.16s... in %.1f s", key, hex, cuzk_now() - t0);
        cache_store(cl, path, st, d);
    }
    return rc;
}

/* The hasher: takes the digests of the keys to hash (half the cores; a
 * digest taken before of the same file is reused) and compares each with
 * the registry's, registering it when the registry has none. */
static void *hash_main(void *arg)
{
    struct cluster *cl = arg;
    server *s = cl->s;
    int cores = cpu_cores();
    unsigned threads = cores > 1 ? (unsigned)(cores / 2) : 1;
    pthread_mutex_lock(&cl->keys_mu);
    while (!cl->stop) {
        node_key *k = NULL;
        for (size_t i = 0; i < cl->n_keys && !k; i++)
            if (cl->keys[i]->state == KEY_HASHING || cl->keys[i]->recheck)
                k = cl->keys[i];
        if (!k) {
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 1;
            pthread_cond_timedwait(&cl->keys_cv, &cl->keys_mu, &until);
            continue;
        }
        char path[PATH_MAX], circuit[PATH_MAX];
        snprintf(path, sizeof(path), "%s", k->resolved);
        snprintf(circuit, sizeof(circuit), "%s", k->circuit);
        int hash = k->state == KEY_HASHING;
        struct stat st = k->seen, cst = k->seen_circuit;
        unsigned char d[FILE_DIGEST_LEN];
        memcpy(d, k->digest, sizeof(d));
        k->recheck = 0;
        k->busy = 1; /* k stays in the table meanwhile (evict_key) */
        pthread_mutex_unlock(&cl->keys_mu);

        cuzk_error err = {0};
        int rc = CUZK_OK, failed = 0;
        char why[600] = "";
        if (hash) {
            rc = digest_of(cl, k->name, path, threads, &st, d, &err);
            if (rc == CUZK_OK && circuit[0]) { /* an id of a .params key: its circuit's digest too, one of both */
                unsigned char dc[FILE_DIGEST_LEN];
                rc = digest_of(cl, k->name, circuit, threads, &cst, dc, &err);
                sha256_state h;
                sha256_init(&h);
                sha256_update(&h, d, sizeof(d));
                sha256_update(&h, dc, sizeof(dc));
                sha256_final(&h, d);
            }
            if (rc != CUZK_OK && rc != CUZK_ERR_BUSY && rc != CUZK_ERR_CANCELLED) {
                failed = 1;
                snprintf(why, sizeof(why), "%s", err.message);
            }
        }
        int state = failed ? KEY_ABSENT : -1;
        if (rc == CUZK_OK) {
            unsigned char reg[FILE_DIGEST_LEN];
            char by[64];
            rc = pgq_key_register(cl->hash_q, k->name, d, (uint64_t)st.st_size, reg, by, &err);
            if (rc == CUZK_OK && !memcmp(reg, d, FILE_DIGEST_LEN))
                state = KEY_READY;
            else if (rc == CUZK_OK) {
                char mine[2 * FILE_DIGEST_LEN + 1], theirs[2 * FILE_DIGEST_LEN + 1];
                journal_digest_hex(d, mine);
                journal_digest_hex(reg, theirs);
                state = KEY_MISMATCH;
                snprintf(why, sizeof(why),
                         "this node's copy has digest %.16s..., the queue's registry %.16s... (registered by node "
                         "%s): replace this copy, or, when the registry's is the wrong one, delete its row "
                         "(DELETE FROM cuzk_keys WHERE path = ...) and the nodes register it anew",
                         mine, theirs, by);
            } else {
                server_log(s, CUZK_LOG_WARN, "%s", err.message); /* the database away: tried again */
                usleep(500000);
            }
        }
        pthread_mutex_lock(&cl->keys_mu);
        k->busy = 0;
        if (state >= 0) {
            if (state != KEY_ABSENT) {
                k->seen = st;
                k->seen_circuit = cst;
                k->hashed = 1;
                memcpy(k->digest, d, FILE_DIGEST_LEN);
            }
            if (k->state == KEY_HASHING || k->state == KEY_READY || k->state == KEY_MISMATCH)
                key_set(cl, k, state, why);
        } else if (!hash)
            k->recheck = 1; /* the registry was away: asked again */
    }
    pthread_mutex_unlock(&cl->keys_mu);
    return NULL;
}

/* The node's keys for its heartbeat: how many are ready, hashing, absent
 * and mismatched, and of the last two 8 each with the reason. */
static json_t *keys_json(struct cluster *cl)
{
    json_t *o = json_object(), *absent = json_array(), *mismatch = json_array();
    unsigned ready = 0, hashing = 0, n_absent = 0, n_mismatch = 0;
    pthread_mutex_lock(&cl->keys_mu);
    for (size_t i = 0; o && absent && mismatch && i < cl->n_keys; i++) {
        const node_key *k = cl->keys[i];
        ready += k->state == KEY_READY;
        hashing += k->state == KEY_HASHING || k->state == KEY_NEW;
        n_absent += k->state == KEY_ABSENT;
        n_mismatch += k->state == KEY_MISMATCH;
        json_t *list = k->state == KEY_ABSENT ? absent : k->state == KEY_MISMATCH ? mismatch : NULL;
        if (list && json_array_size(list) < 8)
            json_array_append_new(list, json_pack("{s:s, s:s}", "key", k->name, "why", k->why));
    }
    pthread_mutex_unlock(&cl->keys_mu);
    if (o) {
        json_object_set_new(o, "ready", json_integer(ready));
        json_object_set_new(o, "hashing", json_integer(hashing));
        json_object_set_new(o, "absent_total", json_integer(n_absent));
        json_object_set_new(o, "mismatch_total", json_integer(n_mismatch));
        json_object_set_new(o, "absent", absent ? absent : json_array());
        json_object_set_new(o, "mismatch", mismatch ? mismatch : json_array());
    } else {
        json_decref(absent);
        json_decref(mismatch);
    }
    return o;
}

static void heartbeat(struct cluster *cl)
{
    cuzk_engine_stats st;
    cuzk_engine_get_stats(cl->s->engine, &st);
    json_t *info = json_pack("{s:s, s:i, s:i, s:i, s:i, s:o*}", "instance", cl->instance, "gpus", st.gpus, "workers",
                             st.workers, "running", (int)st.running, "claims", (int)cl->in_flight, "keys",
                             keys_json(cl));
    char *text = info ? json_dumps(info, JSON_COMPACT) : NULL;
    json_decref(info);
    cuzk_error err;
    if (text && pgq_heartbeat(cl->node_q, text, &err) != CUZK_OK)
        server_log(cl->s, CUZK_LOG_WARN, "%s", err.message);
    free(text);
}

/* Claims while the engine has room (one job always when it holds none),
 * jobs whose keys are ready here. */
static void claim_some(struct cluster *cl)
{
    server *s = cl->s;
    if (s->stopping) /* shutting down: nothing new */
        return;
    /* a node that cannot write its state directory (a full disk) would
     * fail every job it claims: it claims none, and /healthz says why */
    if (!journal_probe(s))
        return;
    cuzk_engine_stats st;
    cuzk_engine_get_stats(s->engine, &st);
    unsigned room = (unsigned)st.workers + st.ready_queue_depth;
    cl->claim_again = 0;
    if (cl->in_flight >= room && cl->in_flight)
        return;
    /* Priorities across keys: a node learns which keys queued jobs need
     * right before it claims (at most every 0.1 s), and claims nothing for
     * up to 2 s while a key it just met is being checked (a digest kept
     * from before takes milliseconds): else a node that had not met the
     * key of a critical job claimed normal ones of keys it knew ahead of it
     * (tests/test_cluster.sh's priorities) */
    double now = cuzk_now();
    if (now - cl->last_keys >= 0.1) {
        keys_refresh(cl);
        cl->last_keys = now;
    }
    pthread_mutex_lock(&cl->keys_mu);
    for (size_t i = 0; i < cl->n_keys && !cl->claim_again; i++)
        cl->claim_again = (cl->keys[i]->state == KEY_NEW || cl->keys[i]->state == KEY_HASHING) &&
                          now - cl->keys[i]->since < 2;
    pthread_mutex_unlock(&cl->keys_mu);
    if (cl->claim_again)
        return;
    size_t n_ready;
    const char **ready = keys_ready(cl, &n_ready);
    while (ready && !cl->stop && (cl->in_flight < room || !cl->in_flight)) {
        pgq_claimed got;
        cuzk_error err = {0};
        int rc = pgq_claim(cl->node_q, s->cfg.lease, ready, n_ready, &got, &err);
        if (rc == CUZK_ERR_NOT_FOUND)
            break;
        if (rc != CUZK_OK) {
            server_log(s, CUZK_LOG_WARN, "%s", err.message);
            break;
        }
        json_t *req = json_loads(got.request_json, 0, NULL);
        if (req && !keys_unchanged(cl, req)) { /* given back until its key is checked again */
            if (pgq_release(cl->node_q, got.id, got.token, &err) != CUZK_OK)
                server_log(s, CUZK_LOG_WARN, "job %s: %s", got.id, err.message);
            json_decref(req);
            pgq_claimed_free(&got);
            free(ready);
            ready = keys_ready(cl, &n_ready);
            continue;
        }
        claim *c = calloc(1, sizeof(*c));
        const char *why = NULL;
        int local = 0, local_errno = 0; /* the failure is this node's (its disk), not the job's */
        if (!c || !req)
            why = c ? "its request is not JSON" : "out of memory";
        else {
            memcpy(c->id, got.id, sizeof(c->id));
            c->token = got.token;
            c->priority = got.priority;
            c->attempt = got.attempt;
            c->weight = request_weight(req);
            int w = write_uploads(s, c, req, got.witness, got.witness_len, &why);
            if (w == -2) {
                local_errno = errno;
                local = 1;
            }
            else if (w == 0 && journal_submit(s, c->id, req, &c->eid, &err) != CUZK_OK)
                why = err.message;
        }
        if (why && local) { /* given back, its attempt uncounted; no more claims until the disk is back */
            server_log(s, CUZK_LOG_WARN, "job %s: %s: given back to the queue; this node claims nothing until its "
                       "state directory can be written", got.id, why);
            if (pgq_release(cl->node_q, got.id, got.token, &err) != CUZK_OK)
                server_log(s, CUZK_LOG_WARN, "job %s: %s", got.id, err.message);
            remove_uploads(s, c);
            free(c);
            pthread_mutex_lock(&s->mu);
            journal_note(s, why, local_errno ? local_errno : EIO);
            s->probe_failed = 1; /* cleared by the next look that succeeds */
            s->probe_at = 0;
            pthread_mutex_unlock(&s->mu);
            json_decref(req);
            pgq_claimed_free(&got);
            break;
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
    free(ready);
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
        if (now - cl->last_keys >= 1) {
            keys_refresh(cl);
            cl->last_keys = now;
            queued = 1; /* a key may be ready now */
        }
        unsigned before = cl->in_flight;
        finish_ended(cl);
        if (queued || cl->in_flight < before || now - last_claim >= 1 || cl->claim_again) {
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
            int rc = pgq_expire(cl->node_q, &n, &err);
            if (rc == CUZK_OK && n)
                server_log(s, CUZK_LOG_INFO, "%u job%s of a node whose lease expired queued again", n,
                           n == 1 ? "" : "s");
            else if (rc != CUZK_OK) /* the database away (said here too: this may be what meets it first) */
                server_log(s, CUZK_LOG_WARN, "%s", err.message);
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
            s->jobs_changed(s, payload);
        } else
            s->jobs_changed(s, rc == CUZK_ERR_BUSY ? NULL : ""); /* lost notifications: everyone looks */
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
    pthread_mutex_init(&cl->keys_mu, NULL);
    pthread_cond_init(&cl->keys_cv, NULL);
    cache_load(cl);
    s->cluster = cl;
    if (!s->cfg.node || !*s->cfg.node) { /* the host name, its first label */
        if (gethostname(cl->node, sizeof(cl->node) - 1) != 0 || !cl->node[0])
            snprintf(cl->node, sizeof(cl->node), "node-%d", (int)getpid());
        cl->node[strspn(cl->node, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")] = 0;
        if (!cl->node[0])
            snprintf(cl->node, sizeof(cl->node), "node-%d", (int)getpid());
    } else
        snprintf(cl->node, sizeof(cl->node), "%s", s->cfg.node);
    /* A statement unanswered for half a lease (5 s at least: a loaded
     * server is not a dead one) ends, and the connection is made again:
     * the node hears of a dead path while its leases may still be renewed */
    double timeout = s->cfg.lease / 2 > 5 ? s->cfg.lease / 2 : 5;
    int rc = pgq_open(&cl->node_q, s->cfg.queue, cl->node, timeout, err);
    /* one live process a node name: another --node with it is refused; one
     * killed is replaced once its heartbeats (every 2 s) are NODE_STALE s
     * old, one stopped cleanly at once */
    if (rc == CUZK_OK && server_new_id(cl->instance) != 0)
        rc = cuzk_error_set(err, CUZK_ERR_RANDOM, "cannot draw the node's instance token");
    for (double t0 = cuzk_now(); rc == CUZK_OK;) {
        int taken = 0;
        double age = 0;
        if ((rc = pgq_node_take(cl->node_q, cl->instance, NODE_STALE, &taken, &age, err)) != CUZK_OK || taken)
            break;
        if (cuzk_now() - t0 > NODE_STALE + 1) {
            rc = cuzk_error_set(err, CUZK_ERR_BUSY,
                                "--node %s: a live node of the queue has this name (its last heartbeat %.1f s ago): "
                                "give each node its own name",
                                cl->node, age);
            break;
        }
        usleep(250000);
    }
    if (rc == CUZK_OK) { /* a killed process's uploads: its claims went back to the queue */
        unsigned swept = journal_remove_uploads(s);
        if (swept)
            server_log(s, CUZK_LOG_INFO, "removed %u uploaded witness%s of claims a previous run left", swept,
                       swept == 1 ? "" : "es");
    }
    if (rc == CUZK_OK)
        rc = pgq_open(&cl->listen_q, s->cfg.queue, cl->node, timeout, err);
    for (int i = 0; rc == CUZK_OK && i < CLUSTER_POOL; i++)
        rc = pgq_open(&cl->pool[i], s->cfg.queue, cl->node, timeout, err);
    if (rc == CUZK_OK)
        rc = pgq_open(&cl->hash_q, s->cfg.queue, cl->node, timeout, err);
    if (rc == CUZK_OK) {
        if (pthread_create(&cl->hasher, NULL, hash_main, cl) != 0)
            rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the hasher thread");
        else
            cl->hasher_started = 1;
    }
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
    if (cl->started) { /* the name is free for the next start at once */
        cuzk_error e2;
        if (pgq_node_stopped(cl->node_q, cl->instance, &e2) != CUZK_OK)
            server_log(s, CUZK_LOG_WARN, "%s", e2.message);
    }
    if (cl->hasher_started) {
        pthread_mutex_lock(&cl->keys_mu);
        pthread_cond_signal(&cl->keys_cv);
        pthread_mutex_unlock(&cl->keys_mu);
        pthread_join(cl->hasher, NULL); /* a digest under way stops at its next chunk */
    }
    pgq_close(cl->hash_q);
    for (size_t i = 0; i < cl->n_keys; i++) {
        free(cl->keys[i]->name);
        free(cl->keys[i]);
    }
    free(cl->keys);
    for (size_t i = 0; i < cl->n_cache; i++)
        free(cl->cache[i].path);
    free(cl->cache);
    pthread_mutex_destroy(&cl->keys_mu);
    pthread_cond_destroy(&cl->keys_cv);
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
/* never used: the daemon does not start without cluster_start */
const job_store queue_store = {.name = "queue"};

#endif
#endif
