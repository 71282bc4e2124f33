/* cuzk submit: prove through a running `cuzk serve` (docs/api.md).
 *
 * POST /v1/proofs (the witness streamed as base64 from its file, or its
 * path with --no-upload) under a request id (random, or --request-id), so
 * that a POST whose answer is lost is sent again without making a second
 * job (the daemon answers a repeat with the job the first made); then long
 * polls GET /v1/proofs/{id}?wait= until the job ends, and writes
 * proof.json and public.json exactly as `cuzk prove` does: the daemon's
 * "proof" and "public" objects are written back through the same JSON
 * writer (src/formats/json_out.c), so the files are byte for byte what
 * prove would write for the same proof.
 *
 * Exit codes: 0 the files are written; 1 the job failed or was cancelled
 * (the daemon's message); 2 bad input or usage, or the daemon rejected the
 * request as malformed (4xx); 3 no daemon, it is full after the retries,
 * or it failed (5xx, broken answers); 4 --wait passed and the job goes on
 * (cuzk submit --job ID fetches it later). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../src/programs.h"
#include "cli.h"
#include "commands.h"
#include "http_client.h"

#define SUBMIT_DEFAULT_SERVER "127.0.0.1:8080"
#define SUBMIT_MAX_RESPONSE (64u << 20) /* a proof is a few KiB; /v1/status less */
#define SUBMIT_POLL_SLICE 60.0          /* seconds per long poll (the daemon allows 3600) */
#define SUBMIT_IDLE 120.0               /* seconds without progress before a request fails */
#define SUBMIT_RECONNECT_FOR 30.0       /* seconds to retry a lost daemon while waiting */

enum { EXIT_JOB = 1, EXIT_INPUT = 2, EXIT_DAEMON = 3, EXIT_TIMEOUT = 4 };

static void submit_usage(FILE *out)
{
    fprintf(out,
            "usage: cuzk submit [--server HOST:PORT] [--token-file FILE] [--ca-file FILE]\n"
            "                   (<key> [--r1cs C] | --key-id ID) <witness.wtns>\n"
            "                   <proof.json> <public.json> [--priority low|normal|high|critical]\n"
            "                   [--wait SECONDS] [--no-upload] [--busy-retries N] [--request-id ID]\n"
            "                   [--proof-format snarkjs|bellperson]\n"
            "       cuzk submit ... (<key> [--r1cs C] | --key-id ID) --partitions P [--partition K]\n"
            "                   <proofs.json> <publics.json> [--proof-format snarkjs|bellperson]\n"
            "       cuzk submit [--server HOST:PORT] --job ID <proof.json> <public.json> [--wait SECONDS]\n"
            "       cuzk submit [--server HOST:PORT] --status\n"
            "\n"
            "Proves through a running cuzk serve and writes proof.json and public.json as\n"
            "cuzk prove does (both or neither).\n"
            "\n"
            "  --server HOST:PORT  the daemon (default $CUZK_SERVER, else " SUBMIT_DEFAULT_SERVER ");\n"
            "                      https://HOST:PORT for one serving TLS (--tls-cert)\n"
            "  --token-file FILE   send the token on FILE's first line (Authorization: Bearer),\n"
            "                      for a daemon started with --token-file (default\n"
            "                      $CUZK_TOKEN_FILE)\n"
            "  --ca-file FILE      with https: trust the daemon's certificate when it chains to\n"
            "                      FILE's (PEM; default: the system's CA certificates)\n"
            "  --key-id ID         a key preloaded with POST /v1/keys/ID instead of a .zkey path\n"
            "                      (the path is sent absolute: the daemon opens it)\n"
            "  --r1cs C            the key is a bellperson .params key of this circuit (a .r1cs\n"
            "                      or porep-shape's native circuit.porep), sent absolute\n"
            "  --partitions P      a job of P partitions (Filecoin's PoRep: 10) whose witnesses\n"
            "                      the daemon makes from the key's circuit (porep-shape's native\n"
            "                      form), from --partition K (default 0); proofs.json and\n"
            "                      publics.json get arrays, one entry a partition\n"
            "  --proof-format F    snarkjs (the default) or bellperson: the proof file gets\n"
            "                      bellperson's 192 bytes a proof (1,920 for a PoRep), BLS12-381\n"
            "  --priority P        low, normal (default), high or critical\n"
            "  --wait SECONDS      give up after SECONDS in all (default: no limit); the job goes\n"
            "                      on, and --job ID fetches it later\n"
            "  --no-upload         send the witness's absolute path instead of its bytes (the\n"
            "                      daemon must see the same file system)\n"
            "  --busy-retries N    when the daemon is full (429), retry N times after its\n"
            "                      Retry-After (default 10, 0-1000)\n"
            "  --request-id ID     the job's request id, 1-64 letters, digits, '.', '_' or '-'\n"
            "                      (default: 32 random hex digits). A POST whose answer is lost\n"
            "                      (timeout, broken connection) is sent again under it for up to\n"
            "                      30 s; the daemon answers a repeat with the job it made, so\n"
            "                      submit again with the same ID never proves twice\n"
            "  --job ID            wait for a job submitted before and write its files\n"
            "  --status            print the daemon's GET /v1/status\n"
            "\n"
            "Progress (the job id, then queued/running) goes to stderr. Exit: 0 written;\n"
            "1 the job failed or was cancelled; 2 bad input or usage, or the daemon rejected\n"
            "the request (4xx); 3 no daemon, it stayed full, or it failed; 4 --wait passed.\n");
}


#if CUZK_HAVE_SUBMIT

#include <jansson.h>


typedef struct submit_opts {
    const char *server;
    char host[256];
    unsigned port;
    http_options http; /* tls, ca_file, token */
    char *token;       /* read from --token-file */
    const char *key_path, *key_id, *r1cs, *witness, *proof_out, *public_out, *job;
    const char *priority;
    unsigned partitions, first; /* --partitions, --partition (0: one proof) */
    int bellperson;             /* --proof-format bellperson */
    char request_id[REQUEST_ID_MAX + 1]; /* --request-id, or drawn at random */
    double wait; /* seconds; < 0: no limit */
    int no_upload, status, busy_retries;
} submit_opts;

static void sleep_seconds(double s)
{
    if (s <= 0)
        return;
    struct timespec ts = {.tv_sec = (time_t)s, .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}


/* path made absolute against the current directory (the daemon's is
 * another); malloc'd. The file need not exist here: a daemon elsewhere
 * reports what it cannot open. */
static char *absolute_path(const char *path)
{
    if (path[0] == '/')
        return strdup(path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof(cwd)))
        return NULL;
    size_t n = strlen(cwd) + strlen(path) + 2;
    char *r = malloc(n);
    if (r)
        snprintf(r, n, "%s/%s", cwd, path);
    return r;
}

/* The daemon's {"error": "..."} or, failing that, the start of the body. */
static void error_text(const http_response *r, char *out, size_t n)
{
    json_t *o = json_loadb(r->body ? r->body : "", r->len, 0, NULL);
    const char *e = json_string_value(json_object_get(o, "error"));
    if (e)
        snprintf(out, n, "%s", e);
    else
        snprintf(out, n, "HTTP %d: %.200s", r->status, r->body ? r->body : "");
    json_decref(o);
    size_t l = strlen(out);
    while (l && (out[l - 1] == '\n' || out[l - 1] == '\r'))
        out[--l] = 0;
}

/* One exchange, with the messages every caller wants for failures to
 * connect. Returns 0 with *r filled, or an exit code after a message. */
static int exchange(const submit_opts *o, const char *method, const char *target, const http_body *body,
                    double idle, http_response *r, http_error *he)
{
    if (http_request(o->host, o->port, &o->http, method, target, body, idle, SUBMIT_MAX_RESPONSE, r, he) == HTTP_OK)
        return 0;
    if (he->code == HTTP_ERR_BODY)
        return fail_code(EXIT_INPUT, "%s", he->message);
    return EXIT_DAEMON; /* the caller words it: it knows whether to retry */
}

/* A daemon lost in the middle of an exchange may be restarting on the same
 * state directory: it resumes its journaled jobs and knows their request
 * ids, so the exchange is repeated every second for SUBMIT_RECONNECT_FOR
 * seconds (within the deadline) after the daemon last took a connection:
 * one that takes connections and then drops them (restarted again and
 * again) is not gone. *lost_since is < 0 while the daemon answers.
 * Returns 1 to repeat (after the pause), 0 to give up. */
static int retry_lost(const submit_opts *o, double *lost_since, const http_error *he, const char *repeat,
                      double deadline)
{
    double t = cuzk_now();
    if (*lost_since < 0) {
        *lost_since = t;
        fprintf(stderr, "cuzk: lost the daemon at %s (%s); %s for up to %.0f s\n", o->server, he->message, repeat,
                SUBMIT_RECONNECT_FOR);
    } else if (he->code == HTTP_ERR_IO)
        *lost_since = t; /* it took the connection */
    if (t - *lost_since > SUBMIT_RECONNECT_FOR || t > deadline)
        return 0;
    sleep_seconds(1);
    return 1;
}

static int no_daemon(const submit_opts *o, const http_error *he)
{
    if (he->code == HTTP_ERR_REFUSED)
        return fail_code(EXIT_DAEMON,
                     "no daemon listens at %s (connection refused); start one with cuzk serve, or name it with "
                     "--server HOST:PORT or CUZK_SERVER",
                     o->server);
    return fail_code(EXIT_DAEMON, "cannot reach the daemon at %s: %s", o->server, he->message);
}

/* ------------------------------------------------------------ the body */

enum { UPLOAD_IN = 3 * 21846 }; /* witness bytes per block, a multiple of 3: no padding but at the end */

/* The upload body: head, the witness in base64, and the closing "},
 * pulled by the HTTP client as it sends: a witness of gigabytes is never
 * held in memory. The file is opened on each attempt (a 429 retry sends
 * it again) and must keep its size. */
typedef struct upload {
    const char *head; /* {"key_path": ..., "witness":" */
    const char *path; /* the witness, sent as base64 */
    unsigned long long size;
    /* one attempt's state */
    int fd, phase;                 /* phase 0 head, 1 witness, 2 tail, 3 done */
    size_t off;                    /* into head, tail or out */
    unsigned long long consumed;   /* witness bytes read */
    unsigned char *in;
    char *out;                     /* the block's base64 */
    size_t out_len;
} upload;

#define body_fail(err, ...) http_error_set((err), HTTP_ERR_BODY, __VA_ARGS__)

static void upload_close(void *ctx)
{
    upload *u = ctx;
    if (u->fd >= 0)
        close(u->fd);
    u->fd = -1;
    free(u->in);
    free(u->out);
    u->in = NULL;
    u->out = NULL;
}

static int upload_open(void *ctx, http_error *err)
{
    upload *u = ctx;
    struct stat st;
    cuzk_error ferr = {0};
    u->fd = -1;
    u->phase = 0;
    u->off = u->out_len = 0;
    u->consumed = 0;
    if (file_open_regular(u->path, &u->fd, &st, &ferr) != CUZK_OK) {
        u->fd = -1;
        return body_fail(err, "%s", ferr.message);
    }
    u->in = malloc(UPLOAD_IN);
    u->out = malloc(base64_len(UPLOAD_IN));
    if (!u->in || !u->out) {
        upload_close(u);
        return body_fail(err, "out of memory");
    }
    return 0;
}

/* The next block of the witness, encoded into u->out; 0, or -1. */
static int upload_next_block(upload *u, http_error *err)
{
    size_t have = 0;
    while (have < UPLOAD_IN) { /* fill the block: short reads would misplace padding */
        ssize_t r = read(u->fd, u->in + have, UPLOAD_IN - have);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return body_fail(err, "%s: cannot read: %s", u->path, strerror(errno));
        if (r == 0)
            break;
        have += (size_t)r;
        if (u->consumed + have > u->size)
            break;
    }
    if (u->consumed + have != u->size && (have < UPLOAD_IN || u->consumed + have > u->size))
        return body_fail(err, "%s: its size changed while it was sent (%llu bytes, then %s)", u->path, u->size,
                         u->consumed + have > u->size ? "more" : "fewer");
    u->consumed += have;
    u->out_len = base64_encode(u->in, have, u->out);
    u->off = 0;
    return 0;
}

static long upload_read(void *ctx, char *buf, size_t n, http_error *err)
{
    upload *u = ctx;
    for (;;) {
        const char *src;
        size_t len;
        if (u->phase == 0) {
            src = u->head;
            len = strlen(u->head);
        } else if (u->phase == 1) {
            if (u->off == u->out_len) {
                if (u->consumed == u->size) {
                    u->phase = 2;
                    u->off = 0;
                    continue;
                }
                if (upload_next_block(u, err) != 0)
                    return -1;
            }
            src = u->out;
            len = u->out_len;
        } else if (u->phase == 2) {
            src = "\"}";
            len = 2;
        } else
            return body_fail(err, "%s: the request body is longer than declared", u->path);
        if (u->off == len) {
            u->phase++;
            u->off = 0;
            continue;
        }
        size_t k = len - u->off < n ? len - u->off : n;
        memcpy(buf, src + u->off, k);
        u->off += k;
        return (long)k;
    }
}

typedef struct memory_body {
    const char *text;
    size_t off;
} memory_body;

static int memory_open(void *ctx, http_error *err)
{
    (void)err;
    ((memory_body *)ctx)->off = 0;
    return 0;
}

static long memory_read(void *ctx, char *buf, size_t n, http_error *err)
{
    memory_body *m = ctx;
    size_t len = strlen(m->text) - m->off;
    if (len == 0)
        return body_fail(err, "the request body is longer than declared");
    if (len > n)
        len = n;
    memcpy(buf, m->text + m->off, len);
    m->off += len;
    return (long)len;
}

/* ------------------------------------------------------------ the output */

/* Writes a JSON value through json_out, the writer `cuzk prove` uses, so the
 * layout is snarkjs's (JSON.stringify(v, null, 1)). Only what snarkjs's
 * files hold is accepted: objects, arrays, strings, non-negative integers. */
static int to_json_out(json_out *j, json_t *v, int depth)
{
    if (depth > 16)
        return -1;
    const char *key;
    json_t *item;
    size_t i;
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        jo_object_begin(j);
        json_object_foreach(v, key, item)
        {
            jo_key(j, key);
            if (to_json_out(j, item, depth + 1) != 0)
                return -1;
        }
        jo_object_end(j);
        return 0;
    case JSON_ARRAY:
        jo_array_begin(j);
        json_array_foreach(v, i, item)
        {
            if (to_json_out(j, item, depth + 1) != 0)
                return -1;
        }
        jo_array_end(j);
        return 0;
    case JSON_STRING:
        jo_string(j, json_string_value(v));
        return 0;
    case JSON_INTEGER:
        if (json_integer_value(v) < 0)
            return -1;
        jo_uint(j, (unsigned long long)json_integer_value(v));
        return 0;
    default:
        return -1;
    }
}

static char *snarkjs_text(json_t *v)
{
    json_out j;
    jo_init(&j);
    if (to_json_out(&j, v, 0) != 0)
        j.failed = 1;
    return jo_finish(&j);
}

static int is_snarkjs_proof(json_t *p)
{
    return json_is_object(p) && json_is_array(json_object_get(p, "pi_a")) &&
           json_is_array(json_object_get(p, "pi_b")) && json_is_array(json_object_get(p, "pi_c"));
}

/* The proofs as bellperson writes them, 192 bytes each, converted here
 * from the snarkjs objects (one, or an array of them), into *out. */
static int bellperson_bytes(const char *id, json_t *proof, unsigned char **out, size_t *len)
{
    size_t n = json_is_array(proof) ? json_array_size(proof) : 1;
    *out = malloc(n * CUZK_BELLPERSON_PROOF_BYTES);
    *len = n * CUZK_BELLPERSON_PROOF_BYTES;
    if (!*out)
        return fail_code(EXIT_INPUT, "out of memory");
    for (size_t k = 0; k < n; k++) {
        char *t = json_dumps(json_is_array(proof) ? json_array_get(proof, k) : proof, JSON_COMPACT);
        cuzk_error err = {0};
        int rc = t ? cuzk_proof_to_bellperson(t, strlen(t), *out + k * CUZK_BELLPERSON_PROOF_BYTES, &err)
                   : CUZK_ERR_NO_MEMORY;
        free(t);
        if (rc != CUZK_OK) {
            free(*out);
            *out = NULL;
            return fail_code(rc == CUZK_ERR_UNSUPPORTED ? EXIT_INPUT : EXIT_DAEMON,
                             "job %s's proof%s in bellperson's form (--proof-format bellperson): %s", id,
                             n > 1 ? "s" : "", err.message[0] ? err.message : "out of memory");
        }
    }
    return 0;
}

/* A job that is done: its proof and public signals into the two files
 * (a job of partitions: arrays of them, in order). */
static int write_result(const submit_opts *o, const char *id, json_t *ans)
{
    json_t *proof = json_object_get(ans, "proof"), *pub = json_object_get(ans, "public");
    int shape = is_snarkjs_proof(proof) && json_is_array(pub) && !o->partitions;
    if (o->partitions) {
        shape = json_is_array(proof) && json_is_array(pub) && json_array_size(proof) == o->partitions &&
                json_array_size(pub) == o->partitions;
        for (size_t k = 0; shape && k < o->partitions; k++)
            shape = is_snarkjs_proof(json_array_get(proof, k)) && json_is_array(json_array_get(pub, k));
    }
    if (!shape)
        return fail_code(EXIT_DAEMON,
                     "the daemon at %s says job %s is done but its answer has no snarkjs \"proof\" (pi_a, pi_b, "
                     "pi_c) and \"public\" %s",
                     o->server, id, o->partitions ? "arrays of one entry a partition" : "array");
    char *pt = snarkjs_text(proof), *qt = snarkjs_text(pub);
    unsigned char *bytes = NULL;
    size_t blen = 0;
    int rc;
    if (!pt || !qt)
        rc = fail_code(EXIT_DAEMON,
                   "the daemon at %s sent job %s's proof or public signals in an unexpected form (expected "
                   "snarkjs's proof.json and public.json: decimal strings)",
                   o->server, id);
    else if (o->bellperson && (rc = bellperson_bytes(id, proof, &bytes, &blen)) != 0) {
        /* said */
    } else
        rc = o->bellperson ? write_pair_bytes(o->proof_out, bytes, blen, o->public_out, qt)
                           : write_pair(o->proof_out, pt, o->public_out, qt);
    free(pt);
    free(qt);
    free(bytes);
    if (rc != 0)
        return rc;
    json_t *t = json_object_get(ans, "timings");
    const char *dev = json_string_value(json_object_get(t, "device"));
    if (o->partitions)
        fprintf(stderr, "cuzk: job %s done: %u partitions proved on %s in %.3f s (summed) after %.3f s in the queue\n",
                id, o->partitions, dev ? dev : "?", json_number_value(json_object_get(t, "total")),
                json_number_value(json_object_get(t, "queue_wait")));
    else
        fprintf(stderr, "cuzk: job %s done: proved on %s in %.3f s after %.3f s in the queue\n", id, dev ? dev : "?",
                json_number_value(json_object_get(t, "total")), json_number_value(json_object_get(t, "queue_wait")));
    return 0;
}

/* ------------------------------------------------------------ the steps */

/* req[field] = path made absolute (the daemon opens it); 0, or the exit
 * code after saying why not. */
static int set_path(json_t *req, const char *field, const char *path)
{
    char *abs = absolute_path(path);
    json_t *s = abs ? json_string(abs) : NULL;
    int made = abs != NULL;
    free(abs);
    if (!s)
        return fail_code(EXIT_INPUT, "%s: %s", path,
                         made ? "the path is not valid UTF-8 (JSON cannot carry it)" : "cannot make the path absolute");
    json_object_set_new(req, field, s);
    return 0;
}

/* POST /v1/proofs under o->request_id; on 202 (a new job) or 200 (the
 * job an earlier POST under the same id made) copies the job id and its
 * state (queued or running; "" once ended) out. */
static int post_job(const submit_opts *o, double deadline, char id[201], char state[16])
{
    json_t *req = json_pack("{s:s, s:s}", "priority", o->priority ? o->priority : "normal", "request_id",
                            o->request_id);
    char *head = NULL;
    upload up = {0};
    memory_body mem = {0};
    http_body body = {.content_type = "application/json"};
    int rc = 0;
    if (!req)
        return fail_code(EXIT_INPUT, "out of memory");
    if (o->key_id)
        json_object_set_new(req, "key_id", json_string(o->key_id));
    else if ((rc = set_path(req, "key_path", o->key_path)) != 0 ||
             (o->r1cs && (rc = set_path(req, "r1cs_path", o->r1cs)) != 0))
        goto out;
    if (o->partitions || o->no_upload) {
        /* the body is the request alone: the partitions the daemon makes,
         * or the witness's path */
        if (o->partitions) {
            json_object_set_new(req, "partitions", json_integer(o->partitions));
            json_object_set_new(req, "partition", json_integer(o->first));
        } else if ((rc = set_path(req, "witness_path", o->witness)) != 0)
            goto out;
        head = json_dumps(req, JSON_COMPACT);
        mem.text = head;
        body.length = head ? strlen(head) : 0;
        body.open = memory_open;
        body.read = memory_read;
        body.ctx = &mem;
    } else {
        /* check the witness here: a wrong file is reported before it is sent */
        cuzk_error err = {0};
        cuzk_wtns *w = NULL;
        if (cuzk_wtns_map(&w, o->witness, &err) != CUZK_OK) { /* its header: the bytes are streamed below */
            rc = fail_err(&err);
            goto out;
        }
        cuzk_wtns_free(w);
        struct stat st;
        if (stat(o->witness, &st) != 0) {
            rc = fail_code(EXIT_INPUT, "%s: cannot open: %s", o->witness, strerror(errno));
            goto out;
        }
        /* the object without its closing brace, then "witness":" (the
         * base64 and "} follow from the producer) */
        char *t = json_dumps(req, JSON_COMPACT);
        size_t n = t ? strlen(t) : 0;
        if (t && n >= 2 && t[n - 1] == '}') {
            head = malloc(n + 16);
            if (head)
                snprintf(head, n + 16, "%.*s,\"witness\":\"", (int)(n - 1), t);
        }
        free(t);
        up.head = head;
        up.path = o->witness;
        up.size = (unsigned long long)st.st_size;
        body.length = (head ? strlen(head) : 0) + base64_len(up.size) + 2;
        body.open = upload_open;
        body.read = upload_read;
        body.close = upload_close;
        body.ctx = &up;
    }
    if (!head) {
        rc = fail_code(EXIT_INPUT, "out of memory");
        goto out;
    }
    char repeat[REQUEST_ID_MAX + 64];
    snprintf(repeat, sizeof(repeat), "sending the job again under request id %s", o->request_id);
    double lost_since = -1;
    for (int attempt = 0;;) { /* attempt: the 429s so far */
        http_response r;
        http_error he;
        double left = deadline - cuzk_now();
        double idle = left < SUBMIT_IDLE ? (left > 1 ? left : 1) : SUBMIT_IDLE;
        rc = exchange(o, "POST", "/v1/proofs", &body, idle, &r, &he);
        if (rc == EXIT_INPUT)
            goto out;
        if (rc != 0) {
            /* A POST that timed out or broke may have made the job before
             * its answer was lost: it goes again under the same request id,
             * which the daemon answers with that job. Refused connections
             * are retried only after such a loss (the daemon restarting);
             * before one, nothing listens. */
            int lost = he.code == HTTP_ERR_TIMEOUT || he.code == HTTP_ERR_IO ||
                       (lost_since >= 0 && (he.code == HTTP_ERR_REFUSED || he.code == HTTP_ERR_CONNECT));
            if (!lost) {
                rc = no_daemon(o, &he);
                goto out;
            }
            if (retry_lost(o, &lost_since, &he, repeat, deadline))
                continue;
            rc = fail_code(EXIT_DAEMON,
                           "lost the daemon at %s while submitting the job: %s; the job may have been accepted: "
                           "cuzk submit --request-id %s with the same files gets it without proving twice",
                           o->server, he.message, o->request_id);
            goto out;
        }
        lost_since = -1;
        char msg[600];
        if (r.status == 202 || r.status == 200) {
            json_t *a = json_loadb(r.body, r.len, 0, NULL);
            const char *s = json_string_value(json_object_get(a, "id"));
            const char *st = json_string_value(json_object_get(a, "state"));
            if (s && url_id_valid(s)) {
                snprintf(id, 201, "%s", s);
                int k = cuzk_job_state_from_name(st);
                snprintf(state, 16, "%s", k == CUZK_JOB_QUEUED || k == CUZK_JOB_RUNNING ? st : "");
                if (json_is_true(json_object_get(a, "duplicate")))
                    fprintf(stderr, "cuzk: request id %s names job %s, accepted before: not submitted again\n",
                            o->request_id, id);
            } else
                rc = fail_code(EXIT_DAEMON, "the daemon at %s accepted the job but sent no valid job id: %.200s",
                           o->server, r.body);
            json_decref(a);
            http_response_free(&r);
            goto out;
        }
        error_text(&r, msg, sizeof(msg));
        int status = r.status, after = r.retry_after < 1 ? 1 : r.retry_after > 60 ? 60 : r.retry_after;
        http_response_free(&r);
        if (status == 429) {
            if (attempt >= o->busy_retries || cuzk_now() + after > deadline) {
                rc = fail_code(EXIT_DAEMON, "the daemon at %s is full (%s); gave up after %d retr%s (--busy-retries%s)",
                           o->server, msg, attempt, attempt == 1 ? "y" : "ies",
                           cuzk_now() + after > deadline ? ", --wait" : "");
                goto out;
            }
            fprintf(stderr, "cuzk: the daemon at %s is full (%s); retrying in %d s (%d of %d)\n", o->server, msg,
                    after, attempt + 1, o->busy_retries);
            sleep_seconds(after);
            attempt++;
            continue;
        }
        if (status == 413)
            rc = fail_code(EXIT_INPUT, "the daemon at %s refused the job: %s (its --max-body; --no-upload sends the "
                                   "witness's path instead of its bytes)",
                       o->server, msg);
        else
            rc = fail_code(status >= 400 && status < 500 ? EXIT_INPUT : EXIT_DAEMON,
                       "the daemon at %s refused the job: %s (HTTP %d)", o->server, msg, status);
        goto out;
    }
out:
    json_decref(req);
    free(head);
    return rc;
}

/* Long polls the job until it ends or the deadline passes. `state` is the
 * state last reported ("" if none): each poll asks the daemon to answer
 * when the job leaves it, so that queued -> running is reported when it
 * happens. */
static int await_job(const submit_opts *o, const char *id, const char *state0, double deadline)
{
    char last[16], target[300];
    snprintf(last, sizeof(last), "%s", state0);
    double lost_since = -1;
    for (;;) {
        double left = deadline - cuzk_now();
        double slice = left < SUBMIT_POLL_SLICE ? (left > 0 ? left : 0) : SUBMIT_POLL_SLICE;
        if (last[0])
            snprintf(target, sizeof(target), "/v1/proofs/%s?wait=%.3f&state=%s", id, slice, last);
        else /* learn the state first */
            snprintf(target, sizeof(target), "/v1/proofs/%s", id);
        http_response r;
        http_error he;
        if (exchange(o, "GET", target, NULL, slice + 30, &r, &he) != 0) {
            if (retry_lost(o, &lost_since, &he, "retrying", deadline))
                continue;
            return fail_code(EXIT_DAEMON, "lost the daemon at %s while waiting for job %s: %s", o->server, id,
                             he.message);
        }
        lost_since = -1;
        if (r.status != 200) {
            char msg[600];
            error_text(&r, msg, sizeof(msg));
            int status = r.status;
            http_response_free(&r);
            if (status == 404)
                return fail_code(EXIT_DAEMON,
                             "the daemon at %s has no job %s (%s): deleted, its result expired (--result-ttl), or "
                             "another daemon",
                             o->server, id, msg);
            return fail_code(EXIT_DAEMON, "the daemon at %s answered HTTP %d for job %s: %s", o->server, status, id,
                         msg);
        }
        json_error_t je;
        json_t *a = json_loadb(r.body, r.len, 0, &je);
        http_response_free(&r);
        const char *state = json_string_value(json_object_get(a, "state"));
        if (!state) {
            json_decref(a);
            return fail_code(EXIT_DAEMON, "the daemon at %s sent an answer for job %s without a \"state\"", o->server,
                         id);
        }
        int rc = -1, k = cuzk_job_state_from_name(state);
        if (k == CUZK_JOB_DONE)
            rc = write_result(o, id, a);
        else if (k == CUZK_JOB_FAILED) {
            const char *e = json_string_value(json_object_get(a, "error"));
            rc = fail_code(EXIT_JOB, "job %s failed: %s", id, e ? e : "(no message)");
        } else if (k == CUZK_JOB_CANCELLED)
            rc = fail_code(EXIT_JOB, "job %s was cancelled", id);
        else if (k != CUZK_JOB_QUEUED && k != CUZK_JOB_RUNNING)
            rc = fail_code(EXIT_DAEMON, "the daemon at %s says job %s is '%.40s' (expected queued, running, done, "
                                    "failed or cancelled)",
                       o->server, id, state);
        else {
            if (strcmp(state, last)) {
                fprintf(stderr, "cuzk: job %s %s\n", id, state);
                snprintf(last, sizeof(last), "%s", state);
            }
            if (cuzk_now() >= deadline)
                rc = fail_code(EXIT_TIMEOUT,
                           "--wait passed; job %s is still %s on the daemon at %s: cuzk submit --job %s <proof.json> "
                           "<public.json> fetches it later, DELETE /v1/proofs/%s cancels it",
                           id, state, o->server, id, id);
        }
        json_decref(a);
        if (rc >= 0)
            return rc;
    }
}

static int print_status(const submit_opts *o)
{
    http_response r;
    http_error he;
    if (exchange(o, "GET", "/v1/status", NULL, SUBMIT_IDLE, &r, &he) != 0)
        return no_daemon(o, &he);
    char msg[600];
    if (r.status != 200) {
        error_text(&r, msg, sizeof(msg));
        int status = r.status;
        http_response_free(&r);
        return fail_code(EXIT_DAEMON, "the daemon at %s answered HTTP %d: %s", o->server, status, msg);
    }
    json_t *a = json_loadb(r.body, r.len, 0, NULL);
    http_response_free(&r);
    char *t = a ? json_dumps(a, JSON_INDENT(2)) : NULL;
    json_decref(a);
    if (!t)
        return fail_code(EXIT_DAEMON, "the daemon at %s sent a status that is not JSON", o->server);
    printf("%s\n", t);
    free(t);
    return 0;
}

/* The submission (or --job, --status) once the options are read. */
static int submit_run(submit_opts *o)
{
    if (o->http.ca_file && !o->http.tls)
        return fail("--ca-file is for a daemon reached over https (--server https://HOST:PORT)");
    if (o->status)
        return print_status(o);
    double deadline = o->wait < 0 ? INFINITY : cuzk_now() + o->wait;
    char id[201], state[16] = "";
    if (o->job)
        snprintf(id, sizeof(id), "%s", o->job);
    else {
        /* one id per submission, kept across its retries */
        if (!o->request_id[0] && cuzk_random_hex(o->request_id, 16) != CUZK_OK)
            return fail_code(EXIT_INPUT, "cannot draw a request id: the system's random source failed");
        int rc = post_job(o, deadline, id, state);
        if (rc != 0)
            return rc;
        fprintf(stderr, "cuzk: job %s submitted to %s\n", id, o->server);
        if (state[0])
            fprintf(stderr, "cuzk: job %s %s\n", id, state);
    }
    return await_job(o, id, state, deadline);
}

/* The token on a file's first line (as cuzk serve --token-file reads it). */
static int read_token(const char *path, const char *label, char **out)
{
    cuzk_error err = {0};
    char *text;
    size_t len;
    if (read_file_bounded(path, 4098, "a token file (one line)", &text, &len, &err) != CUZK_OK)
        return fail("%s %s", label, err.message);
    text[strcspn(text, "\r\n")] = 0;
    if (!*text) {
        free(text);
        return fail("%s %s: the first line is empty; expected the daemon's token", label, path);
    }
    *out = text;
    return 0;
}

int cmd_submit(int argc, char **argv)
{
    submit_opts o = {.wait = -1, .busy_retries = 10};
    const char *token_file = NULL;
    const char *paths[4];
    int npaths = 0, have_first = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int takes_value = !strcmp(a, "--server") || !strcmp(a, "--key-id") || !strcmp(a, "--priority") ||
                          !strcmp(a, "--wait") || !strcmp(a, "--busy-retries") || !strcmp(a, "--job") ||
                          !strcmp(a, "--request-id") || !strcmp(a, "--token-file") || !strcmp(a, "--ca-file") ||
                          !strcmp(a, "--r1cs") || !strcmp(a, "--partitions") || !strcmp(a, "--partition") ||
                          !strcmp(a, "--proof-format");
        if (takes_value && i + 1 >= argc)
            return fail("submit: %s needs a value", a);
        const char *v = takes_value ? argv[++i] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            submit_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--server"))
            o.server = v;
        else if (!strcmp(a, "--token-file"))
            token_file = v;
        else if (!strcmp(a, "--ca-file"))
            o.http.ca_file = v;
        else if (!strcmp(a, "--key-id")) {
            if (!url_id_valid(v))
                return fail("--key-id expects 1 to 200 letters, digits, '-', '_' or '.', got '%s'", v);
            o.key_id = v;
        } else if (!strcmp(a, "--job")) {
            if (!url_id_valid(v))
                return fail("--job expects a job id (as submit printed: hex digits), got '%s'", v);
            o.job = v;
        } else if (!strcmp(a, "--request-id")) {
            if (!request_id_valid(v))
                return fail("--request-id expects " REQUEST_ID_RULE ", got '%s'", v);
            snprintf(o.request_id, sizeof(o.request_id), "%s", v);
        } else if (!strcmp(a, "--priority")) {
            if (strcmp(v, "low") && strcmp(v, "normal") && strcmp(v, "high") && strcmp(v, "critical"))
                return fail("--priority expects low, normal, high or critical, got '%s'", v);
            o.priority = v;
        } else if (!strcmp(a, "--wait")) {
            char *end;
            errno = 0;
            double w = strtod(v, &end);
            if (errno || *end || end == v || !(w >= 0 && w <= 31536000))
                return fail("--wait expects seconds in [0, 31536000], got '%s'", v);
            o.wait = w;
        } else if (!strcmp(a, "--busy-retries")) {
            if (parse_count("--busy-retries", v, 0, 1000, &o.busy_retries))
                return EXIT_INPUT;
        } else if (!strcmp(a, "--r1cs"))
            o.r1cs = v;
        else if (!strcmp(a, "--partitions") || !strcmp(a, "--partition")) {
            unsigned long long x;
            int parts = !strcmp(a, "--partitions");
            if (parse_size(a, v, parts ? CUZK_JOB_MAX_PARTITIONS : UINT32_MAX, &x))
                return EXIT_INPUT;
            if (parts && !x)
                return fail("--partitions expects 1 to %u, got 0", CUZK_JOB_MAX_PARTITIONS);
            *(parts ? &o.partitions : &o.first) = (unsigned)x;
            have_first |= !parts;
        } else if (!strcmp(a, "--proof-format")) {
            if (strcmp(v, "snarkjs") && strcmp(v, "bellperson"))
                return fail("--proof-format expects snarkjs (proof.json) or bellperson (192 bytes a proof), got '%s'",
                            v);
            o.bellperson = !strcmp(v, "bellperson");
        } else if (!strcmp(a, "--no-upload"))
            o.no_upload = 1;
        else if (!strcmp(a, "--status"))
            o.status = 1;
        else if (a[0] == '-' && a[1])
            return fail("submit: unknown option '%s'; see cuzk submit --help", a);
        else if (npaths == 4)
            return fail("submit: too many files: '%s' is a fifth; see cuzk submit --help", a);
        else
            paths[npaths++] = a;
    }
    /* which files the form takes */
    int want = o.status ? 0 : o.job ? 2 : (o.key_id ? 3 : 4) - (o.partitions ? 1 : 0);
    const char *form = o.status  ? "submit --status takes no files"
                       : o.job   ? "submit --job ID takes 2 files: <proof.json> <public.json>"
                       : o.partitions ? (o.key_id ? "submit --key-id ID --partitions P takes 2 files: <proofs.json> "
                                                    "<publics.json>"
                                                  : "submit --partitions P takes 3 files: <key> <proofs.json> "
                                                    "<publics.json>")
                       : o.key_id ? "submit --key-id ID takes 3 files: <witness.wtns> <proof.json> <public.json>"
                                  : "submit takes 4 files: <circuit.zkey> <witness.wtns> <proof.json> <public.json>";
    if (o.status + !!o.job > 1 || ((o.status || o.job) && (o.key_id || o.priority || o.no_upload || o.request_id[0] ||
                                                           o.r1cs || o.partitions || o.bellperson)))
        return fail("submit: --status and --job ID go alone (with --server%s), not with --key-id, --r1cs, --priority, "
                    "--no-upload, --request-id, --partitions or --proof-format",
                    o.job ? " and --wait" : "");
    if (have_first && !o.partitions)
        return fail("submit: --partition K (the first partition) goes with --partitions P");
    if (o.partitions && o.no_upload)
        return fail("submit: --no-upload is for a witness file; --partitions P has the daemon make the witnesses");
    if (o.r1cs && o.key_id)
        return fail("submit: --r1cs goes with a key path (a key id's circuit is given when the key is loaded)");
    if (npaths != want)
        return fail("%s, got %d", form, npaths);
    int k = 0;
    if (want >= 2 && !o.job && !o.key_id)
        o.key_path = paths[k++];
    if (want >= 2 && !o.job && !o.partitions)
        o.witness = paths[k++];
    if (want >= 2) {
        o.proof_out = paths[k++];
        o.public_out = paths[k++];
        const cli_file ins[] = {{"circuit.zkey", o.key_path}, {"witness.wtns", o.witness}, {"--r1cs", o.r1cs}};
        const cli_file outs[] = {{o.partitions ? "proofs.json" : "proof.json", o.proof_out},
                                 {o.partitions ? "publics.json" : "public.json", o.public_out}};
        if (cli_check_outputs(outs, 2, ins, 3))
            return 2;
    }
    const char *env = getenv("CUZK_SERVER");
    const char *source = o.server ? "--server" : env && *env ? "CUZK_SERVER" : NULL;
    if (!o.server)
        o.server = env && *env ? env : SUBMIT_DEFAULT_SERVER;
    http_error he;
    if (http_parse_server(o.server, o.host, sizeof(o.host), &o.port, &o.http.tls, &he) != 0)
        return fail("%s%s%s", source ? source : "", source ? ": " : "", he.message);
    const char *tenv = getenv("CUZK_TOKEN_FILE");
    if (!token_file && tenv && *tenv)
        token_file = tenv;
    if (token_file) {
        int bad = read_token(token_file, token_file == tenv ? "CUZK_TOKEN_FILE" : "--token-file", &o.token);
        if (bad)
            return bad;
        o.http.token = o.token;
    }
    int rc = submit_run(&o);
    if (o.token) {
        memset(o.token, 0, strlen(o.token));
        free(o.token);
    }
    return rc;
}

#else

int cmd_submit(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            submit_usage(stdout);
            return 0;
        }
    return fail_code(EXIT_INPUT, "submit: this cuzk was built without libcurl or jansson, which submit needs to talk to "
                             "the daemon and read its JSON (install libcurl4-openssl-dev and libjansson-dev, and "
                             "rebuild)");
}

#endif
