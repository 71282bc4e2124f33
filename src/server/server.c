/* `cuzk serve`: the engine behind an HTTP/JSON API (docs/api.md), built on
 * libmicrohttpd and jansson (both optional: without them cuzk_serve says
 * so).
 *
 * Durability: an accepted job is written to the state directory (request,
 * and the witness when it came as bytes) and fsync'd before the 202; its
 * result is written the same way when it ends. On start, every request
 * without a result is submitted again, so a crash loses no accepted job.
 * Results stay until their TTL or a DELETE.
 *
 * Threads: libmicrohttpd runs one thread per connection (long polls block
 * only their own); one watcher thread moves finished jobs from the engine
 * to the journal. The table of jobs has its own mutex; the engine is
 * thread-safe. No file is written, fsync'd or removed under that mutex
 * (a slow disk would stall every request): a request reserves its slot,
 * is journaled unlocked, then published; a result is journaled unlocked,
 * then published (post_proof, watcher_sweep).
 *
 * Idempotency: a POST may carry the client's request id; the id and a
 * digest of the request are journaled in the job's .req and kept with the
 * job's record, so a retry whose first answer was lost (even across a
 * crash) gets the job it created instead of a second one, and the same id
 * on another request is a 409. An id being journaled is listed in
 * `pending`, so that a retry racing its first attempt waits for it. */
#include "../../include/cuzk.h"
#include "../util/error.h"

int cuzk_has_server(void)
{
    return CUZK_HAVE_SERVER;
}

#if CUZK_HAVE_SERVER

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../util/error.h"
#include "../util/rand.h"
#include "../util/sha256.h"
#include "../util/url_id.h"

#define SERVER_MAX_JOBS_TABLE 65536
#define REQUEST_DIGEST_LEN 32 /* SHA-256 */

typedef struct sjob {
    char id[33];                /* 32 hex digits */
    char request_id[REQUEST_ID_MAX + 1];              /* the client's; "" when it gave none */
    unsigned char request_digest[REQUEST_DIGEST_LEN]; /* request_digest(): a retry's or another request's */
    unsigned long long eid;     /* the engine's id */
    int priority;
    int ended;                  /* result known (state below) */
    cuzk_job_info info;         /* last known */
    char *proof, *pub;          /* when done */
    double t_end;               /* monotonic, for the TTL */
    struct sjob *next;
} sjob;

/* A POST with a request id between its reservation and its publication
 * (both under the table's lock; the journaling between them is not). */
typedef struct pending_request {
    const char *request_id;
    const unsigned char *digest;
    struct pending_request *next;
} pending_request;

typedef struct server {
    cuzk_serve_config cfg;
    cuzk_engine *engine;
    char jobs_dir[4096];
    pthread_mutex_t mu;
    sjob *jobs;
    unsigned n_jobs;
    unsigned n_reserved; /* accepted requests being journaled, not yet in jobs */
    pending_request *pending;  /* those of them with a request id */
    pthread_cond_t published;  /* a pending request left `pending` */
    unsigned long long duplicates; /* POSTs answered with the job of an earlier one */
    volatile sig_atomic_t stop;
    int stopping; /* shutting down: jobs cancelled now stay journaled, to resume */
    pthread_t watcher;
} server;

/* For calls whose status does not matter here (the job may have ended
 * meanwhile): warn_unused_result is not silenced by a (void) cast. */
static void ignore_status(int rc)
{
    (void)rc;
}

static double mono(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---------------------------------------------------------------- files */

static int fsync_dir(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    close(fd);
    return r;
}

/* Writes path atomically and durably: temporary file, fsync, rename,
 * fsync of the directory. */
static int write_durable(const server *s, const char *name, const void *data, size_t len)
{
    char tmp[4400], path[4400];
    snprintf(path, sizeof(path), "%s/%s", s->jobs_dir, name);
    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", s->jobs_dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0)
        return -1;
    const unsigned char *p = data;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += w;
        len -= (size_t)w;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return fsync_dir(s->jobs_dir);
}

static void remove_job_files(const server *s, const char *id)
{
    static const char *ext[3] = {"req", "wtns", "res"};
    for (int i = 0; i < 3; i++) {
        char path[4400];
        snprintf(path, sizeof(path), "%s/%s.%s", s->jobs_dir, id, ext[i]);
        unlink(path);
    }
}

/* ---------------------------------------------------------------- jobs */

static sjob *find_sjob(server *s, const char *id)
{
    for (sjob *j = s->jobs; j; j = j->next)
        if (!strcmp(j->id, id))
            return j;
    return NULL;
}

static void free_sjob(sjob *j)
{
    cuzk_free(j->proof);
    cuzk_free(j->pub);
    free(j);
}

static int new_id(char out[33])
{
    return cuzk_random_hex(out, 16) == CUZK_OK ? 0 : -1;
}

/* The job recorded under a client's request id (lock held). */
static sjob *find_by_request_id(server *s, const char *request_id)
{
    for (sjob *j = s->jobs; j; j = j->next)
        if (j->request_id[0] && !strcmp(j->request_id, request_id))
            return j;
    return NULL;
}

static pending_request *find_pending(server *s, const char *request_id)
{
    for (pending_request *p = s->pending; p; p = p->next)
        if (!strcmp(p->request_id, request_id))
            return p;
    return NULL;
}

static void digest_field(sha256_state *h, char tag, const void *data, size_t len)
{
    unsigned char head[9];
    head[0] = (unsigned char)tag;
    for (int i = 0; i < 8; i++)
        head[1 + i] = (unsigned char)((unsigned long long)len >> (8 * i));
    sha256_update(h, head, sizeof(head));
    sha256_update(h, data, len);
}

/* What tells a retry from another request under the same request id: the
 * key (its path or id, as sent), the witness (its path as sent, or its
 * decoded bytes, so base64's variants agree) and the priority (0-3, so
 * "high" and 2 agree). Each field is tagged and length-prefixed: no two
 * requests hash the same bytes. */
static void request_digest(const char *key_path, const char *key_id, const char *witness_path,
                           const unsigned char *witness, size_t witness_len, int priority,
                           unsigned char out[REQUEST_DIGEST_LEN])
{
    sha256_state h;
    sha256_init(&h);
    static const char version[] = "cuzk request v1";
    sha256_update(&h, version, sizeof(version));
    if (key_path)
        digest_field(&h, 'K', key_path, strlen(key_path));
    else
        digest_field(&h, 'k', key_id, strlen(key_id));
    if (witness_path)
        digest_field(&h, 'W', witness_path, strlen(witness_path));
    else
        digest_field(&h, 'w', witness, witness_len);
    unsigned char p = (unsigned char)priority;
    digest_field(&h, 'p', &p, 1);
    sha256_final(&h, out);
}

static void digest_hex(const unsigned char d[REQUEST_DIGEST_LEN], char out[2 * REQUEST_DIGEST_LEN + 1])
{
    for (int i = 0; i < REQUEST_DIGEST_LEN; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

/* A journaled digest back into bytes; -1 unless exactly 64 hex digits. */
static int digest_from_hex(const char *hex, unsigned char d[REQUEST_DIGEST_LEN])
{
    if (!hex || strlen(hex) != 2 * REQUEST_DIGEST_LEN)
        return -1;
    for (int i = 0; i < 2 * REQUEST_DIGEST_LEN; i++) {
        char ch = hex[i];
        int v = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10 : -1;
        if (v < 0)
            return -1;
        if (i % 2 == 0)
            d[i / 2] = (unsigned char)(v << 4);
        else
            d[i / 2] |= (unsigned char)v;
    }
    return 0;
}

static const char *state_name(int state)
{
    static const char *n[] = {"queued", "running", "done", "failed", "cancelled"};
    return state >= 0 && state <= 4 ? n[state] : "unknown";
}

/* Submits a journaled request (req: the .req JSON) to the engine. */
static int submit_request(server *s, const char *id, json_t *req, unsigned long long *eid, cuzk_error *err)
{
    cuzk_job_request r = {0};
    r.key_path = json_string_value(json_object_get(req, "key_path"));
    r.key_id = json_string_value(json_object_get(req, "key_id"));
    r.witness_path = json_string_value(json_object_get(req, "witness_path"));
    r.priority = (int)json_integer_value(json_object_get(req, "priority"));
    char wpath[4400];
    if (json_is_true(json_object_get(req, "witness_journaled"))) {
        snprintf(wpath, sizeof(wpath), "%s/%s.wtns", s->jobs_dir, id);
        r.witness_path = wpath;
    }
    return cuzk_engine_submit(s->engine, &r, eid, err);
}

/* ---------------------------------------------------------------- JSON out */

static json_t *timings_json(const cuzk_job_info *i)
{
    const cuzk_timings *t = &i->timings;
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:s}", "queue_wait",
                     i->queue_wait, "load", i->load, "eval", t->eval, "gpu_upload", t->gpu_upload, "ntt", t->ntt,
                     "msm_a", t->msm_a, "msm_b1", t->msm_b1, "msm_b2", t->msm_b2, "msm_c", t->msm_c, "msm_h",
                     t->msm_h, "blind", t->blind, "verify", t->verify, "total", t->total, "device", t->device);
}

static json_t *job_json(const sjob *j)
{
    json_t *o = json_pack("{s:s, s:s, s:i}", "id", j->id, "state", state_name(j->info.state), "priority",
                          j->priority);
    if (j->info.state >= CUZK_JOB_RUNNING)
        json_object_set_new(o, "timings", timings_json(&j->info));
    if (j->info.finish_seq)
        json_object_set_new(o, "finished", json_integer((json_int_t)j->info.finish_seq));
    if (j->info.state == CUZK_JOB_FAILED)
        json_object_set_new(o, "error", json_string(j->info.error));
    if (j->proof && j->pub) {
        json_t *p = json_loads(j->proof, 0, NULL), *q = json_loads(j->pub, 0, NULL);
        if (p)
            json_object_set_new(o, "proof", p);
        if (q)
            json_object_set_new(o, "public", q);
    }
    return o;
}

/* ---------------------------------------------------------------- watcher */

/* A job the engine finished, on its way to the journal. */
typedef struct ending {
    sjob *j;
    cuzk_job_info info;
    char *proof, *pub;
} ending;

/* Moves ended jobs from the engine into the journal and the table, and
 * drops results past their TTL. The table's lock is held only to look and
 * to publish: each result is written and fsync'd with the lock released,
 * so a slow disk never stalls the HTTP threads. A job is shown as ended
 * only once its result is durable, so an answer a client saw survives a
 * crash. Only this thread ends jobs and only ended jobs are freed, so the
 * sjob pointers held across the unlocked part stay valid. */
static void watcher_sweep(server *s)
{
    ending *ends = NULL;
    size_t n_ends = 0, cap_ends = 0;
    sjob *expired = NULL;
    pthread_mutex_lock(&s->mu);
    for (sjob **pp = &s->jobs; *pp;) {
        sjob *j = *pp;
        if (j->ended) {
            if (mono() - j->t_end > s->cfg.result_ttl) {
                *pp = j->next;
                s->n_jobs--;
                j->next = expired;
                expired = j;
                continue;
            }
            pp = &j->next;
            continue;
        }
        cuzk_job_info info;
        cuzk_error err;
        if (cuzk_engine_wait(s->engine, j->eid, 0, &info, &err) == CUZK_OK) {
            if (info.state == CUZK_JOB_CANCELLED && s->stopping) {
                /* cancelled by the shutdown: left journaled, resumed at the
                 * next start */
                j->info = info;
            } else if (info.state >= CUZK_JOB_DONE) {
                if (n_ends == cap_ends) {
                    size_t cap = cap_ends ? 2 * cap_ends : 16;
                    ending *e = realloc(ends, cap * sizeof(*e));
                    if (!e) { /* the rest wait for the next sweep */
                        pp = &j->next;
                        continue;
                    }
                    ends = e;
                    cap_ends = cap;
                }
                ends[n_ends++] = (ending){.j = j, .info = info};
            } else
                j->info = info; /* queued -> running, seen by long polls */
        }
        pp = &j->next;
    }
    pthread_mutex_unlock(&s->mu);

    while (expired) {
        sjob *n = expired->next;
        remove_job_files(s, expired->id);
        free_sjob(expired);
        expired = n;
    }
    for (size_t i = 0; i < n_ends; i++) {
        ending *e = &ends[i];
        cuzk_error err;
        if (e->info.state == CUZK_JOB_DONE &&
            cuzk_engine_result(s->engine, e->j->eid, &e->proof, &e->pub, &err) != CUZK_OK)
            e->proof = e->pub = NULL;
        /* id and priority never change once published: read without the lock */
        sjob view = {.priority = e->j->priority, .info = e->info, .proof = e->proof, .pub = e->pub};
        memcpy(view.id, e->j->id, sizeof(view.id));
        json_t *o = job_json(&view);
        char *text = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        if (text) {
            char name[64];
            snprintf(name, sizeof(name), "%s.res", view.id);
            if (write_durable(s, name, text, strlen(text)) != 0)
                fprintf(stderr, "cuzk serve: cannot journal the result of job %s: %s\n", view.id, strerror(errno));
            free(text);
        }
    }
    pthread_mutex_lock(&s->mu);
    for (size_t i = 0; i < n_ends; i++) {
        sjob *j = ends[i].j;
        j->info = ends[i].info;
        j->proof = ends[i].proof;
        j->pub = ends[i].pub;
        j->ended = 1;
        j->t_end = mono();
    }
    pthread_mutex_unlock(&s->mu);
    for (size_t i = 0; i < n_ends; i++) {
        cuzk_error err;
        ignore_status(cuzk_engine_release(s->engine, ends[i].j->eid, &err));
    }
    free(ends);
}

static void *watcher_main(void *arg)
{
    server *s = arg;
    while (!s->stop) {
        watcher_sweep(s);
        usleep(5000);
    }
    return NULL;
}

/* ---------------------------------------------------------------- HTTP */

typedef struct body {
    char *data;
    size_t len;
    int too_large;
} body;

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    if (!text)
        return MHD_NO;
    size_t n = strlen(text);
    char *t2 = realloc(text, n + 2);
    if (t2) {
        text = t2;
        text[n++] = '\n';
        text[n] = 0;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(n, text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    if (status == 429 || status == 503)
        MHD_add_response_header(r, "Retry-After", "1");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return reply(c, status, json_pack("{s:s}", "error", msg));
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static unsigned status_for(int rc)
{
    switch (rc) {
    case CUZK_ERR_BUSY:
        return 429;
    case CUZK_ERR_NOT_FOUND:
        return 404;
    case CUZK_ERR_NO_MEMORY:
    case CUZK_ERR_IO:
        return 503;
    default:
        return 400;
    }
}

static int b64_value(int ch)
{
    if (ch >= 'A' && ch <= 'Z')
        return ch - 'A';
    if (ch >= 'a' && ch <= 'z')
        return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9')
        return ch - '0' + 52;
    if (ch == '+' || ch == '-')
        return 62;
    if (ch == '/' || ch == '_')
        return 63;
    return -1;
}

/* Standard or URL-safe base64, padding optional; -1 on a bad character. */
static long long b64_decode(const char *in, size_t len, unsigned char *out)
{
    unsigned acc = 0;
    int bits = 0;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        if (in[i] == '=')
            break;
        int v = b64_value((unsigned char)in[i]);
        if (v < 0)
            return -1;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(acc >> bits);
        }
    }
    return (long long)o;
}

static int parse_priority(json_t *p, int *out)
{
    if (!p) {
        *out = CUZK_PRIORITY_NORMAL;
        return 0;
    }
    if (json_is_integer(p) && json_integer_value(p) >= 0 && json_integer_value(p) <= 3) {
        *out = (int)json_integer_value(p);
        return 0;
    }
    static const char *names[4] = {"low", "normal", "high", "critical"};
    if (json_is_string(p))
        for (int i = 0; i < 4; i++)
            if (!strcasecmp(json_string_value(p), names[i])) {
                *out = i;
                return 0;
            }
    return -1;
}

/* Client text quoted back in a message: at most 64 bytes, anything but
 * printable ASCII shown as '?' (the answer must stay valid JSON text). */
static void quote_found(const char *text, size_t len, char *out, size_t n)
{
    size_t k = 0, shown = len > 64 ? 64 : len;
    for (size_t i = 0; i < shown && k + 1 < n; i++)
        out[k++] = text[i] >= 0x20 && text[i] < 0x7f ? text[i] : '?';
    for (const char *more = len > shown ? "..." : ""; *more && k + 1 < n; more++)
        out[k++] = *more;
    out[k] = 0;
}

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
    case JSON_REAL:
        return "a number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    default:
        return "null";
    }
}

/* The request id of a POST /v1/proofs: the body's "request_id", or the
 * Idempotency-Key header; given both, they must agree. 0 with out filled
 * ("" when there is none), or -1 with msg naming the field, what it
 * expects and what it got. */
static int request_id_of(struct MHD_Connection *c, json_t *req, char out[REQUEST_ID_MAX + 1], char *msg, size_t n)
{
    char found[80];
    json_t *field = json_object_get(req, "request_id");
    const char *body_id = NULL;
    if (field) {
        if (!json_is_string(field)) {
            snprintf(msg, n, "request body: \"request_id\" expects a string of " REQUEST_ID_RULE ", got %s",
                     json_kind(field));
            return -1;
        }
        body_id = json_string_value(field);
        size_t len = json_string_length(field);
        if (len != strlen(body_id) || !request_id_valid(body_id)) { /* a \u0000 inside counts as bad */
            quote_found(body_id, len, found, sizeof(found));
            snprintf(msg, n, "request body: \"request_id\" expects " REQUEST_ID_RULE ", got '%s'", found);
            return -1;
        }
    }
    const char *header_id = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Idempotency-Key");
    if (header_id && !request_id_valid(header_id)) {
        quote_found(header_id, strlen(header_id), found, sizeof(found));
        snprintf(msg, n, "Idempotency-Key header: expects " REQUEST_ID_RULE ", got '%s'", found);
        return -1;
    }
    if (body_id && header_id && strcmp(body_id, header_id)) {
        snprintf(msg, n,
                 "\"request_id\" '%s' and the Idempotency-Key header '%s' differ: give one, or the same id in both",
                 body_id, header_id);
        return -1;
    }
    snprintf(out, REQUEST_ID_MAX + 1, "%s", body_id ? body_id : header_id ? header_id : "");
    return 0;
}

/* Under the table's lock: a POST whose request id is known already gets
 * its answer here, the job the id names (200: a retry; even when the
 * daemon is full, since it adds nothing) or a 409 (the id names another
 * request). A retry racing its first attempt, still being journaled,
 * waits for that to be published or to fail. Returns the status and fills
 * *answer (200) or msg (409); 0 when the request is new. */
static unsigned known_request(server *s, const char *request_id, const unsigned char *digest, json_t **answer,
                              char *msg, size_t n)
{
    for (;;) {
        sjob *j = find_by_request_id(s, request_id);
        if (j && !memcmp(j->request_digest, digest, REQUEST_DIGEST_LEN)) {
            s->duplicates++;
            *answer = json_pack("{s:s, s:s, s:s, s:b}", "id", j->id, "state", state_name(j->info.state), "request_id",
                                request_id, "duplicate", 1);
            return 200;
        }
        if (j) {
            snprintf(msg, n, "request_id '%s' names job %s, another request (its key, witness or priority differ): a "
                     "new request needs a new request_id", request_id, j->id);
            return 409;
        }
        pending_request *p = find_pending(s, request_id);
        if (!p)
            return 0;
        if (memcmp(p->digest, digest, REQUEST_DIGEST_LEN)) {
            snprintf(msg, n, "request_id '%s' names another request, being accepted now (its key, witness or priority "
                     "differ): a new request needs a new request_id", request_id);
            return 409;
        }
        pthread_cond_wait(&s->published, &s->mu);
    }
}

static enum MHD_Result post_proof(server *s, struct MHD_Connection *c, const body *b)
{
    json_error_t je;
    json_t *req = json_loadb(b->data ? b->data : "", b->len, 0, &je);
    if (!req || !json_is_object(req)) {
        json_decref(req);
        return reply_error(c, 400, "request body: expected a JSON object, %s (line %d, column %d)", je.text,
                           je.line, je.column);
    }
    json_t *kp = json_object_get(req, "key_path"), *ki = json_object_get(req, "key_id");
    json_t *wp = json_object_get(req, "witness_path"), *wb = json_object_get(req, "witness");
    int prio;
    enum MHD_Result ret;
    char request_id[REQUEST_ID_MAX + 1], msg[512];
    unsigned char *witness = NULL;
    size_t witness_len = 0;
    if (!kp == !ki || (kp && !json_is_string(kp)) || (ki && !json_is_string(ki))) {
        ret = reply_error(c, 400, "request body: give exactly one of \"key_path\" and \"key_id\", as a string");
        goto out;
    }
    if (!wp == !wb || (wp && !json_is_string(wp)) || (wb && !json_is_string(wb))) {
        ret = reply_error(c, 400,
                          "request body: give exactly one of \"witness_path\" and \"witness\" (base64 .wtns), as a "
                          "string");
        goto out;
    }
    if (parse_priority(json_object_get(req, "priority"), &prio) != 0) {
        ret = reply_error(c, 400, "request body: \"priority\" must be low, normal, high, critical or 0-3");
        goto out;
    }
    if (request_id_of(c, req, request_id, msg, sizeof(msg)) != 0) {
        ret = reply_error(c, 400, "%s", msg);
        goto out;
    }
    /* an uploaded witness is decoded before anything else: a retry's
     * digest covers its bytes, and a retry journals nothing */
    if (wb) {
        const char *t = json_string_value(wb);
        size_t tl = strlen(t);
        if (!(witness = malloc(tl * 3 / 4 + 3))) {
            ret = reply_error(c, 503, "out of memory for a %zu-byte witness", tl * 3 / 4);
            goto out;
        }
        long long wl = b64_decode(t, tl, witness);
        if (wl <= 0) {
            ret = reply_error(c, 400, "request body: \"witness\" is not valid base64 (or empty)");
            goto out;
        }
        witness_len = (size_t)wl;
    }
    unsigned char digest[REQUEST_DIGEST_LEN] = {0};
    if (request_id[0])
        request_digest(json_string_value(kp), json_string_value(ki), json_string_value(wp), witness, witness_len, prio,
                       digest);
    /* The request is written and fsync'd with the table's lock released (a
     * slow disk must not stall every other request): a slot is reserved
     * under the lock so the table's bound holds (and the request id is
     * marked pending, for a racing retry to wait on), and the job is
     * published only once it is durable and in the engine. The 202 goes
     * out after that, so an accepted job is always journaled. */
    pending_request mine = {.request_id = request_id, .digest = digest};
    json_t *answer = NULL;
    unsigned long long eid = 0;
    cuzk_error err = {0};
    sjob *j = NULL;
    int rc = CUZK_OK;
    pthread_mutex_lock(&s->mu);
    unsigned known = request_id[0] ? known_request(s, request_id, digest, &answer, msg, sizeof(msg)) : 0;
    if (!known) {
        if (s->n_jobs + s->n_reserved >= SERVER_MAX_JOBS_TABLE)
            rc = cuzk_error_set(&err, CUZK_ERR_BUSY, "too many results kept: retry later");
        else {
            s->n_reserved++;
            if (request_id[0]) {
                mine.next = s->pending;
                s->pending = &mine;
            }
        }
    }
    pthread_mutex_unlock(&s->mu);
    if (known) {
        ret = known == 200 ? reply(c, 200, answer) : reply_error(c, known, "%s", msg);
        goto out;
    }
    int reserved = rc == CUZK_OK;
    char id[33] = "", name[64];
    if (rc == CUZK_OK && new_id(id) != 0)
        rc = cuzk_error_set(&err, CUZK_ERR_IO, "cannot draw a job id");
    json_t *jr = rc == CUZK_OK ? json_pack("{s:i}", "priority", prio) : NULL;
    if (rc == CUZK_OK && !jr)
        rc = cuzk_error_set(&err, CUZK_ERR_NO_MEMORY, "out of memory");
    if (rc == CUZK_OK) {
        json_object_set(jr, kp ? "key_path" : "key_id", kp ? kp : ki);
        if (wp)
            json_object_set(jr, "witness_path", wp);
        else {
            snprintf(name, sizeof(name), "%s.wtns", id);
            if (write_durable(s, name, witness, witness_len) != 0)
                rc = cuzk_error_set(&err, CUZK_ERR_IO, "cannot journal the witness in %s: %s", s->jobs_dir,
                                    strerror(errno));
            json_object_set_new(jr, "witness_journaled", json_true());
        }
        if (request_id[0]) {
            char hex[2 * REQUEST_DIGEST_LEN + 1];
            digest_hex(digest, hex);
            json_object_set_new(jr, "request_id", json_string(request_id));
            json_object_set_new(jr, "request_digest", json_string(hex));
        }
    }
    char *text = rc == CUZK_OK ? json_dumps(jr, JSON_COMPACT) : NULL;
    snprintf(name, sizeof(name), "%s.req", id);
    if (rc == CUZK_OK && (!text || write_durable(s, name, text, strlen(text)) != 0))
        rc = cuzk_error_set(&err, CUZK_ERR_IO, "cannot journal the request in %s: %s", s->jobs_dir,
                            text ? strerror(errno) : "out of memory");
    if (rc == CUZK_OK && !(j = calloc(1, sizeof(*j))))
        rc = cuzk_error_set(&err, CUZK_ERR_NO_MEMORY, "out of memory");
    /* the engine may finish the job before it is published: the watcher
     * finds it in the engine at its next sweep */
    if (rc == CUZK_OK)
        rc = submit_request(s, id, jr, &eid, &err);
    if (rc == CUZK_OK) {
        memcpy(j->id, id, sizeof(j->id));
        memcpy(j->request_id, request_id, sizeof(j->request_id));
        memcpy(j->request_digest, digest, sizeof(j->request_digest));
        j->eid = eid;
        j->priority = prio;
        j->info.state = CUZK_JOB_QUEUED;
    } else {
        free(j);
        j = NULL;
    }
    if (reserved) {
        pthread_mutex_lock(&s->mu);
        s->n_reserved--;
        if (request_id[0]) {
            for (pending_request **pp = &s->pending; *pp; pp = &(*pp)->next)
                if (*pp == &mine) {
                    *pp = mine.next;
                    break;
                }
            pthread_cond_broadcast(&s->published);
        }
        if (j) {
            j->next = s->jobs;
            s->jobs = j;
            s->n_jobs++;
        }
        pthread_mutex_unlock(&s->mu);
    }
    free(text);
    json_decref(jr);
    if (rc != CUZK_OK) {
        if (id[0])
            remove_job_files(s, id);
        ret = reply_error(c, status_for(rc), "%s", err.message);
    } else {
        json_t *o = json_pack("{s:s, s:s}", "id", id, "state", "queued");
        if (o && request_id[0])
            json_object_set_new(o, "request_id", json_string(request_id));
        ret = reply(c, 202, o);
    }
out:
    free(witness);
    json_decref(req);
    return ret;
}

/* GET /v1/proofs/{id}[?wait=S[&state=X]]: with wait, answers when the job
 * ends or S seconds pass; with state too, also as soon as the job is no
 * longer in state X (so a client can report queued -> running). */
static enum MHD_Result get_proof(server *s, struct MHD_Connection *c, const char *id)
{
    const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
    const char *st = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "state");
    double wait = 0;
    int from = -1;
    if (w) {
        char *end;
        wait = strtod(w, &end);
        if (*end || end == w || !(wait >= 0 && wait <= 3600))
            return reply_error(c, 400, "wait: expected seconds in [0, 3600], got '%s'", w);
    }
    if (st) {
        for (int k = CUZK_JOB_QUEUED; k <= CUZK_JOB_CANCELLED; k++)
            if (!strcmp(st, state_name(k)))
                from = k;
        if (from < 0)
            return reply_error(c, 400, "state: expected queued, running, done, failed or cancelled, got '%.40s'", st);
    }
    double deadline = mono() + wait;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        sjob *j = find_sjob(s, id);
        if (!j) {
            pthread_mutex_unlock(&s->mu);
            return reply_error(c, 404, "no job '%s'", id);
        }
        if (j->ended || mono() >= deadline || (from >= 0 && j->info.state != from)) {
            json_t *o = job_json(j);
            pthread_mutex_unlock(&s->mu);
            return reply(c, 200, o);
        }
        pthread_mutex_unlock(&s->mu);
        usleep(10000);
    }
}

static enum MHD_Result delete_proof(server *s, struct MHD_Connection *c, const char *id)
{
    pthread_mutex_lock(&s->mu);
    sjob **pp = &s->jobs;
    while (*pp && strcmp((*pp)->id, id))
        pp = &(*pp)->next;
    sjob *j = *pp;
    if (!j) {
        pthread_mutex_unlock(&s->mu);
        return reply_error(c, 404, "no job '%s'", id);
    }
    if (!j->ended) {
        cuzk_error err;
        ignore_status(cuzk_engine_cancel(s->engine, j->eid, &err));
        pthread_mutex_unlock(&s->mu);
        return reply(c, 202, json_pack("{s:s, s:s}", "id", id, "state", "cancelling"));
    }
    /* an ended job: forget it and its result (its files are removed with
     * the lock released: it is out of the table, no one else sees it) */
    *pp = j->next;
    s->n_jobs--;
    pthread_mutex_unlock(&s->mu);
    remove_job_files(s, j->id);
    free_sjob(j);
    return reply(c, 200, json_pack("{s:s, s:s}", "id", id, "state", "deleted"));
}

static enum MHD_Result keys_request(server *s, struct MHD_Connection *c, const char *method, const char *key,
                                    const body *b)
{
    cuzk_error err = {0};
    if (!strcmp(method, "DELETE")) {
        int rc = cuzk_engine_key_evict(s->engine, key, &err);
        return rc == CUZK_OK ? reply(c, 200, json_pack("{s:s, s:s}", "key", key, "state", "evicted"))
                             : reply_error(c, status_for(rc), "%s", err.message);
    }
    json_error_t je;
    json_t *req = json_loadb(b->data ? b->data : "", b->len, 0, &je);
    const char *path = json_string_value(json_object_get(req, "path"));
    if (!path) {
        json_decref(req);
        return reply_error(c, 400, "request body: expected {\"path\": \"<file.zkey>\"}");
    }
    int rc = cuzk_engine_key_load(s->engine, key, path, &err);
    json_decref(req);
    return rc == CUZK_OK ? reply(c, 200, json_pack("{s:s, s:s}", "key", key, "state", "loaded"))
                         : reply_error(c, status_for(rc), "%s", err.message);
}

static enum MHD_Result status_request(server *s, struct MHD_Connection *c, int metrics)
{
    cuzk_engine_stats st;
    cuzk_engine_get_stats(s->engine, &st);
    pthread_mutex_lock(&s->mu);
    unsigned kept = s->n_jobs;
    unsigned long long duplicates = s->duplicates;
    pthread_mutex_unlock(&s->mu);
    int gpus = 0;
    if (cuzk_gpu_count(&gpus) != CUZK_OK)
        gpus = 0;
    if (!metrics) {
        json_t *o = json_pack("{s:{s:i, s:i, s:i, s:i}, s:i, s:I, s:I, s:I, s:i, s:I, s:f, s:f, s:i, s:i, s:i}",
                              "queued", "low", st.queued[0], "normal", st.queued[1], "high", st.queued[2],
                              "critical", st.queued[3], "running", st.running, "done", (json_int_t)st.done,
                              "failed", (json_int_t)st.failed, "cancelled", (json_int_t)st.cancelled,
                              "keys_cached", st.keys_cached, "key_bytes", (json_int_t)st.key_bytes, "uptime",
                              st.uptime, "worker_busy", st.worker_busy, "workers", st.workers, "jobs_kept", kept,
                              "gpus", gpus);
        /* the pipeline: jobs in each stage, the queues' bounds and highs,
         * how busy each pool and GPU was, mean stage times (docs/engine.md) */
        json_t *gb = json_array();
        for (int g = 0; g < st.gpus && g < CUZK_ENGINE_MAX_GPUS; g++)
            json_array_append_new(gb, json_real(st.gpu_busy[g]));
        /* the device-memory plan, per GPU (docs/engine.md) */
        json_t *gm = json_array();
        for (int g = 0; g < st.gpus && g < CUZK_ENGINE_MAX_GPUS; g++)
            json_array_append_new(gm, json_pack("{s:I, s:I, s:I}", "budget", (json_int_t)st.gpu_budget[g], "keys",
                                                (json_int_t)st.gpu_key_bytes[g], "proofs",
                                                (json_int_t)st.gpu_pool_bytes[g]));
        json_object_set_new(o, "gpu_memory", gm);
        json_t *p = json_pack(
            "{s:{s:i, s:i, s:i, s:i, s:i}, s:{s:i, s:i, s:i, s:i}, s:{s:f, s:f, s:f, s:o}, "
            "s:{s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}}",
            "stages", "preparing", st.preparing, "ready", st.ready, "computing", st.computing, "finalize_waiting",
            st.finalize_waiting, "finalizing", st.finalizing, "queues", "ready_depth", st.ready_queue_depth,
            "ready_max", st.ready_max, "finalize_depth", st.finalize_queue_depth, "finalize_max",
            st.finalize_queue_max, "busy", "prepare", st.prepare_busy, "compute", st.worker_busy, "finalize",
            st.finalize_busy, "gpu", gb, "mean_seconds", "queue_wait", st.mean_queue_wait, "load", st.mean_load,
            "prepare", st.mean_prepare, "ready_wait", st.mean_ready_wait, "compute", st.mean_compute,
            "finalize_wait", st.mean_finalize_wait, "finalize", st.mean_finalize, "verify", st.mean_verify,
            "latency", st.mean_latency);
        if (o && p)
            json_object_set_new(o, "pipeline", p);
        else
            json_decref(p);
        if (o)
            json_object_set_new(o, "duplicates", json_integer((json_int_t)duplicates));
        return reply(c, 200, o);
    }
    size_t cap = 16384; /* 16 GPUs: ~4 KB of per-GPU lines */
    char *t = malloc(cap);
    if (!t)
        return MHD_NO;
    int len = snprintf(
        t, cap,
        "# TYPE cuzk_jobs_queued gauge\n"
        "cuzk_jobs_queued{priority=\"low\"} %u\ncuzk_jobs_queued{priority=\"normal\"} %u\n"
        "cuzk_jobs_queued{priority=\"high\"} %u\ncuzk_jobs_queued{priority=\"critical\"} %u\n"
        "# TYPE cuzk_jobs_running gauge\ncuzk_jobs_running %u\n"
        "# TYPE cuzk_jobs_total counter\ncuzk_jobs_total{state=\"done\"} %llu\n"
        "cuzk_jobs_total{state=\"failed\"} %llu\ncuzk_jobs_total{state=\"cancelled\"} %llu\n"
        "# TYPE cuzk_keys_cached gauge\ncuzk_keys_cached %u\n"
        "# TYPE cuzk_key_cache_bytes gauge\ncuzk_key_cache_bytes %llu\n"
        "# TYPE cuzk_worker_busy_ratio gauge\ncuzk_worker_busy_ratio %.6f\n"
        "# TYPE cuzk_uptime_seconds gauge\ncuzk_uptime_seconds %.3f\n"
        "# TYPE cuzk_jobs_in_stage gauge\ncuzk_jobs_in_stage{stage=\"prepare\"} %u\n"
        "cuzk_jobs_in_stage{stage=\"ready\"} %u\ncuzk_jobs_in_stage{stage=\"compute\"} %u\n"
        "cuzk_jobs_in_stage{stage=\"finalize_wait\"} %u\ncuzk_jobs_in_stage{stage=\"finalize\"} %u\n"
        "# TYPE cuzk_pool_busy_ratio gauge\ncuzk_pool_busy_ratio{pool=\"prepare\"} %.6f\n"
        "cuzk_pool_busy_ratio{pool=\"compute\"} %.6f\ncuzk_pool_busy_ratio{pool=\"finalize\"} %.6f\n"
        "# TYPE cuzk_stage_mean_seconds gauge\ncuzk_stage_mean_seconds{stage=\"queue_wait\"} %.6f\n"
        "cuzk_stage_mean_seconds{stage=\"prepare\"} %.6f\ncuzk_stage_mean_seconds{stage=\"ready_wait\"} %.6f\n"
        "cuzk_stage_mean_seconds{stage=\"compute\"} %.6f\ncuzk_stage_mean_seconds{stage=\"finalize\"} %.6f\n"
        "cuzk_stage_mean_seconds{stage=\"latency\"} %.6f\n"
        "# TYPE cuzk_submissions_duplicate_total counter\ncuzk_submissions_duplicate_total %llu\n"
        "# TYPE cuzk_gpu_busy_ratio gauge\n",
        st.queued[0], st.queued[1], st.queued[2], st.queued[3], st.running, st.done, st.failed, st.cancelled,
        st.keys_cached, st.key_bytes, st.worker_busy, st.uptime, st.preparing, st.ready, st.computing,
        st.finalize_waiting, st.finalizing, st.prepare_busy, st.worker_busy, st.finalize_busy, st.mean_queue_wait,
        st.mean_prepare, st.mean_ready_wait, st.mean_compute, st.mean_finalize, st.mean_latency, duplicates);
    for (int g = 0; g < st.gpus && g < CUZK_ENGINE_MAX_GPUS && len > 0 && (size_t)len < cap; g++)
        len += snprintf(t + len, cap - (size_t)len, "cuzk_gpu_busy_ratio{gpu=\"%d\"} %.6f\n", g, st.gpu_busy[g]);
    /* the device-memory plan (docs/engine.md) */
    if (st.gpus && len > 0 && (size_t)len < cap)
        len += snprintf(t + len, cap - (size_t)len,
                        "# TYPE cuzk_gpu_memory_bytes gauge\n# TYPE cuzk_gpu_plan_events_total counter\n"
                        "cuzk_gpu_plan_events_total{event=\"wait\"} %llu\n"
                        "cuzk_gpu_plan_events_total{event=\"key_dropped\"} %llu\n"
                        "cuzk_gpu_plan_events_total{event=\"to_cpu\"} %llu\n"
                        "cuzk_gpu_plan_events_total{event=\"streamed\"} %llu\n",
                        st.plan_waits, st.plan_drops, st.plan_cpu, st.plan_chunked);
    for (int g = 0; g < st.gpus && g < CUZK_ENGINE_MAX_GPUS && len > 0 && (size_t)len < cap; g++)
        len += snprintf(t + len, cap - (size_t)len,
                        "cuzk_gpu_memory_bytes{gpu=\"%d\",use=\"budget\"} %llu\n"
                        "cuzk_gpu_memory_bytes{gpu=\"%d\",use=\"keys\"} %llu\n"
                        "cuzk_gpu_memory_bytes{gpu=\"%d\",use=\"proofs\"} %llu\n",
                        g, st.gpu_budget[g], g, st.gpu_key_bytes[g], g, st.gpu_pool_bytes[g]);
    return reply_text(c, 200, t);
}

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                               const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    server *s = cls;
    body *b = *con_cls;
    if (!b) {
        if (!(b = calloc(1, sizeof(*b))))
            return MHD_NO;
        *con_cls = b;
        return MHD_YES;
    }
    if (*upload_size) { /* a piece of the body */
        if (b->len + *upload_size > s->cfg.max_body)
            b->too_large = 1;
        else {
            char *n = realloc(b->data, b->len + *upload_size + 1);
            if (!n)
                b->too_large = 1;
            else {
                b->data = n;
                memcpy(b->data + b->len, upload, *upload_size);
                b->len += *upload_size;
                b->data[b->len] = 0;
            }
        }
        *upload_size = 0;
        return MHD_YES;
    }
    if (b->too_large)
        return reply_error(c, 413, "request body larger than %llu bytes", (unsigned long long)s->cfg.max_body);
    if (s->stopping)
        return reply_error(c, 503, "shutting down");
    const char *rest;
    if (!strcmp(url, "/healthz") && !strcmp(method, "GET"))
        return reply(c, 200, json_pack("{s:s}", "status", "ok"));
    if (!strcmp(url, "/metrics") && !strcmp(method, "GET"))
        return status_request(s, c, 1);
    if (!strcmp(url, "/v1/status") && !strcmp(method, "GET"))
        return status_request(s, c, 0);
    if (!strcmp(url, "/v1/proofs") && !strcmp(method, "POST"))
        return post_proof(s, c, b);
    if (!strncmp(url, "/v1/proofs/", 11)) {
        rest = url + 11;
        if (!url_id_valid(rest))
            return reply_error(c, 400, "bad job id");
        if (!strcmp(method, "GET"))
            return get_proof(s, c, rest);
        if (!strcmp(method, "DELETE"))
            return delete_proof(s, c, rest);
        return reply_error(c, 405, "%s is not allowed on %s", method, url);
    }
    if (!strncmp(url, "/v1/keys/", 9)) {
        rest = url + 9;
        if (!url_id_valid(rest))
            return reply_error(c, 400, "bad key id (letters, digits, '-', '_', '.')");
        if (!strcmp(method, "POST") || !strcmp(method, "DELETE"))
            return keys_request(s, c, method, rest, b);
        return reply_error(c, 405, "%s is not allowed on %s", method, url);
    }
    return reply_error(c, 404, "no such endpoint: %s %s", method, url);
}

static void request_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)cls;
    (void)c;
    (void)toe;
    body *b = *con_cls;
    if (b) {
        free(b->data);
        free(b);
    }
    *con_cls = NULL;
}

/* A recovered job's request id and digest, from its .req: its retries
 * keep finding it after a restart. An entry without one (or from before
 * request ids) leaves the job without. */
static void restore_request_id(sjob *j, json_t *req)
{
    const char *rid = json_string_value(json_object_get(req, "request_id"));
    if (!rid)
        return;
    if (!request_id_valid(rid) ||
        digest_from_hex(json_string_value(json_object_get(req, "request_digest")), j->request_digest) != 0) {
        fprintf(stderr, "cuzk serve: job %s: its journaled request id or digest is unreadable; a retry of it will "
                        "make a new job\n", j->id);
        return;
    }
    snprintf(j->request_id, sizeof(j->request_id), "%s", rid);
}

/* Resubmits journaled requests without results; loads kept results. */
static int recover(server *s, unsigned *resubmitted, cuzk_error *err)
{
    *resubmitted = 0;
    DIR *d = opendir(s->jobs_dir);
    if (!d)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot open: %s", s->jobs_dir, strerror(errno));
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t n = strlen(de->d_name);
        if (n != 36 || strcmp(de->d_name + 32, ".req"))
            continue;
        char id[33], path[4400];
        memcpy(id, de->d_name, 32);
        id[32] = 0;
        sjob *j = calloc(1, sizeof(*j));
        if (!j)
            continue;
        memcpy(j->id, id, sizeof(j->id));
        snprintf(path, sizeof(path), "%s/%s.req", s->jobs_dir, id);
        json_t *req = json_load_file(path, 0, NULL);
        restore_request_id(j, req);
        snprintf(path, sizeof(path), "%s/%s.res", s->jobs_dir, id);
        json_t *res = json_load_file(path, 0, NULL);
        if (res) { /* ended before the restart */
            const char *st = json_string_value(json_object_get(res, "state"));
            j->ended = 1;
            j->t_end = mono();
            j->priority = (int)json_integer_value(json_object_get(res, "priority"));
            j->info.state = st && !strcmp(st, "done") ? CUZK_JOB_DONE
                            : st && !strcmp(st, "cancelled") ? CUZK_JOB_CANCELLED
                                                             : CUZK_JOB_FAILED;
            const char *e = json_string_value(json_object_get(res, "error"));
            if (e)
                snprintf(j->info.error, sizeof(j->info.error), "%s", e);
            json_t *p = json_object_get(res, "proof"), *q = json_object_get(res, "public");
            if (p && q) {
                j->proof = json_dumps(p, JSON_INDENT(1));
                j->pub = json_dumps(q, JSON_INDENT(1));
            }
            json_decref(res);
        } else {
            cuzk_error e2 = {0};
            if (!req || submit_request(s, id, req, &j->eid, &e2) != CUZK_OK) {
                j->ended = 1;
                j->t_end = mono();
                j->info.state = CUZK_JOB_FAILED;
                snprintf(j->info.error, sizeof(j->info.error), "not resumed after a restart: %.400s",
                         req ? e2.message : "unreadable journal entry");
            } else {
                j->priority = (int)json_integer_value(json_object_get(req, "priority"));
                j->info.state = CUZK_JOB_QUEUED;
                (*resubmitted)++;
            }
        }
        json_decref(req);
        j->next = s->jobs;
        s->jobs = j;
        s->n_jobs++;
    }
    closedir(d);
    return CUZK_OK;
}

static int serve_blocked(const cuzk_serve_config *cfg, const sigset_t *stop_signals, cuzk_error *err);

int cuzk_serve(const cuzk_serve_config *cfg, cuzk_error *err)
{
    if (!cfg || !cfg->host || !cfg->state_dir)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "cuzk_serve: NULL argument");
    /* SIGTERM and SIGINT are blocked in every thread (the engine's and
     * libmicrohttpd's inherit the mask) and taken by sigwait below, so the
     * shutdown never depends on which thread a signal lands in */
    sigset_t stop_signals, old_mask;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, &old_mask);
    int rc = serve_blocked(cfg, &stop_signals, err);
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    return rc;
}

static int serve_blocked(const cuzk_serve_config *cfg, const sigset_t *stop_signals, cuzk_error *err)
{
    server s;
    memset(&s, 0, sizeof(s));
    s.cfg = *cfg;
    if (!s.cfg.max_body)
        s.cfg.max_body = 256u << 20;
    if (s.cfg.result_ttl <= 0)
        s.cfg.result_ttl = 3600;
    if (mkdir(cfg->state_dir, 0700) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "--state-dir %s: cannot create: %s", cfg->state_dir, strerror(errno));
    snprintf(s.jobs_dir, sizeof(s.jobs_dir), "%s/jobs", cfg->state_dir);
    if (mkdir(s.jobs_dir, 0700) != 0 && errno != EEXIST)
        return cuzk_error_set(err, CUZK_ERR_IO, "%s: cannot create: %s", s.jobs_dir, strerror(errno));
    int rc = cuzk_engine_create(&cfg->engine, &s.engine, err);
    if (rc != CUZK_OK)
        return rc;
    pthread_mutex_init(&s.mu, NULL);
    pthread_cond_init(&s.published, NULL);
    unsigned resubmitted = 0;
    if ((rc = recover(&s, &resubmitted, err)) != CUZK_OK) {
        cuzk_engine_destroy(s.engine);
        return rc;
    }
    struct sockaddr_in addr;
    memset(&addr, 0, sizeof(addr));
    addr.sin_family = AF_INET;
    addr.sin_port = htons(cfg->port);
    if (inet_pton(AF_INET, cfg->host, &addr.sin_addr) != 1) {
        cuzk_engine_destroy(s.engine);
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "--listen: '%s' is not an IPv4 address", cfg->host);
    }
    struct MHD_Daemon *d = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_ERROR_LOG, 0, NULL, NULL, handler,
        &s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr, MHD_OPTION_NOTIFY_COMPLETED, request_done, NULL,
        MHD_OPTION_CONNECTION_LIMIT, (unsigned)256, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)3700, MHD_OPTION_END);
    if (!d) {
        cuzk_engine_destroy(s.engine);
        return cuzk_error_set(err, CUZK_ERR_IO, "--listen %s:%u: cannot listen (address in use?)", cfg->host,
                              cfg->port);
    }
    const union MHD_DaemonInfo *di = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    unsigned port = di ? di->port : cfg->port;
    printf("cuzk serve: listening on %s:%u (state %s; %u journaled job%s resumed)\n", cfg->host, port,
           cfg->state_dir, resubmitted, resubmitted == 1 ? "" : "s");
    fflush(stdout);
    if (pthread_create(&s.watcher, NULL, watcher_main, &s) != 0) {
        MHD_stop_daemon(d);
        cuzk_engine_destroy(s.engine);
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "cannot start the watcher thread");
    }
    int sig = 0;
    while (sigwait(stop_signals, &sig) != 0)
        ;
    /* graceful: stop taking requests, let running proofs finish and land
     * in the journal; queued ones stay journaled for the next start */
    printf("cuzk serve: stopping\n");
    fflush(stdout);
    MHD_stop_daemon(d);
    pthread_mutex_lock(&s.mu);
    s.stopping = 1;
    for (sjob *j = s.jobs; j; j = j->next) {
        cuzk_job_info info;
        cuzk_error e2;
        if (!j->ended && cuzk_engine_wait(s.engine, j->eid, 0, &info, &e2) == CUZK_OK &&
            info.state == CUZK_JOB_QUEUED)
            ignore_status(cuzk_engine_cancel(s.engine, j->eid, &e2));
    }
    pthread_mutex_unlock(&s.mu);
    cuzk_engine_stats st;
    for (cuzk_engine_get_stats(s.engine, &st); st.running; cuzk_engine_get_stats(s.engine, &st))
        usleep(20000);
    s.stop = 1;
    pthread_join(s.watcher, NULL);
    watcher_sweep(&s); /* record what just ended */
    cuzk_engine_destroy(s.engine);
    while (s.jobs) {
        sjob *n = s.jobs->next;
        free_sjob(s.jobs);
        s.jobs = n;
    }
    pthread_cond_destroy(&s.published);
    pthread_mutex_destroy(&s.mu);
    return CUZK_OK;
}

#else

int cuzk_serve(const cuzk_serve_config *cfg, cuzk_error *err)
{
    (void)cfg;
    return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                          "this cuzk was built without the server (install libmicrohttpd-dev and libjansson-dev, "
                          "then rebuild)");
}

#endif
