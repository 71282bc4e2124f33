/* The daemon's HTTP API (docs/api.md): the routes, their checks of the
 * client's input (every bad request a 4xx naming the field, what was
 * expected and found) and their replies. */
#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"

#if CUZK_HAVE_SERVER

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../engine/stats.h"
#include "../util/base64.h"
#include "../util/clock.h"
#include "../util/error.h"
#include "../util/file.h"
#include "options.h"
#include "server_impl.h"

/* The reply's text as valid UTF-8: a message may quote a client's bytes or
 * be cut by a buffer's end in the middle of a character, and jansson
 * refuses such a string (the client would get no answer at all). Invalid
 * bytes become '?', a cut character is dropped. */
static void utf8_clean(char *t)
{
    unsigned char *p = (unsigned char *)t;
    while (*p) {
        int n = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : (*p & 0xf8) == 0xf0 ? 4 : 0;
        int ok = n > 0 && !(n == 2 && *p < 0xc2) && !(n == 4 && *p > 0xf4);
        for (int k = 1; ok && k < n; k++)
            ok = (p[k] & 0xc0) == 0x80;
        if (!ok) {
            int cut = 1; /* a character cut at the end: drop it */
            for (int k = 1; p[k]; k++)
                if ((p[k] & 0xc0) != 0x80) {
                    cut = 0;
                    break;
                }
            if (cut && n > 1) {
                *p = 0;
                return;
            }
            *p++ = '?';
            continue;
        }
        p += n;
    }
}

/* Queues status with o (a JSON value, consumed) as its body. An encoding
 * failure still answers, with a 500 naming it: never an empty response.
 * While stopping, the connection closes after the answer. */
static enum MHD_Result reply(server *s, struct MHD_Connection *c, unsigned status, json_t *o)
{
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    static const char fallback[] = "{\"error\":\"internal error: the answer could not be encoded\"}";
    if (!text) {
        status = 500;
        text = strdup(fallback);
        if (!text)
            return MHD_NO;
    }
    size_t n = strlen(text);
    char *t2 = realloc(text, n + 2);
    if (t2) {
        text = t2;
        text[n++] = '\n';
        text[n] = 0;
    }
    struct MHD_Response *r = MHD_create_response_from_buffer(n, text, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, "Content-Type", "application/json");
    if (status == 429 || status == 503)
        MHD_add_response_header(r, "Retry-After", "1");
    if (status == 401)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    if (s->stopping)
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_error(server *s, struct MHD_Connection *c, unsigned status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum MHD_Result reply_error(server *s, struct MHD_Connection *c, unsigned status, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    utf8_clean(msg);
    return reply(s, c, status, json_pack("{s:s}", "error", msg));
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, char *text)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "text/plain; version=0.0.4");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
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

/* The status of a failed engine call. IO means the daemon's own disk (the
 * journal) in a POST; a client's file that cannot be opened is its own
 * error (client_status). */
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

/* The same when the failure is about something the client named (a key's
 * path): only the daemon's own want of memory is the daemon's. */
static unsigned client_status(int rc)
{
    return rc == CUZK_ERR_NO_MEMORY || rc == CUZK_ERR_BUSY ? status_for(rc) : rc == CUZK_ERR_NOT_FOUND ? 404 : 400;
}

/* The request body as a JSON object, or NULL after a 400 naming what it
 * was instead (*ret set). */
static json_t *body_object(server *s, struct MHD_Connection *c, const api_conn *b, const char *expected,
                           enum MHD_Result *ret)
{
    json_error_t je;
    json_t *v = json_loadb(b->data ? b->data : "", b->len, JSON_DECODE_ANY, &je);
    if (!v) {
        *ret = reply_error(s, c, 400, "request body: expected %s, found text that is not JSON: %s (line %d, column %d)",
                           expected, je.text, je.line, je.column);
        return NULL;
    }
    if (!json_is_object(v)) {
        *ret = reply_error(s, c, 400, "request body: expected %s, found %s", expected, json_kind(v));
        json_decref(v);
        return NULL;
    }
    return v;
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

static void request_witness_free(request_witness *w)
{
    free(w->bytes);
    for (unsigned k = 0; w->list && k < w->n; k++)
        free(w->list[k]);
    free(w->list);
    free(w->list_len);
    free(w->paths);
    memset(w, 0, sizeof(*w));
}

/* A base64 upload decoded into *out (malloc'd), *len its bytes; 0, or the
 * HTTP status with msg saying why (what names the field). */
static unsigned decode_upload(const char *t, const char *what, unsigned char **out, size_t *len, char *msg, size_t n)
{
    size_t tl = strlen(t);
    if (!(*out = malloc(tl * 3 / 4 + 3))) {
        snprintf(msg, n, "out of memory for a %zu-byte witness", tl * 3 / 4);
        return 503;
    }
    long long wl = base64_decode(t, tl, *out);
    if (wl <= 0) {
        snprintf(msg, n, "request body: %s is not valid base64 (or empty)", what);
        return 400;
    }
    *len = (size_t)wl;
    return 0;
}

/* A client's path fields in one spelling each (path_clean: /a//k and
 * /a/./k name one key, to the idempotency digest and to a cluster's key
 * table alike), each at most PATH_MAX - 1 bytes. 0, or 400 with msg. */
static unsigned clean_paths(json_t *req, char *msg, size_t n)
{
    static const char *const fields[] = {"key_path", "r1cs_path", "witness_path", "witness_paths", "path"};
    for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
        json_t *v = json_object_get(req, fields[f]);
        size_t count = json_is_array(v) ? json_array_size(v) : 1;
        for (size_t i = 0; v && i < count; i++) {
            json_t *one = json_is_array(v) ? json_array_get(v, i) : v;
            if (!json_is_string(one))
                continue; /* the type is checked where the field is read */
            const char *p = json_string_value(one);
            char clean[PATH_MAX];
            if (json_string_length(one) >= PATH_MAX) {
                snprintf(msg, n, "request body: \"%s\": a path of %zu bytes, longer than the %d a path may have",
                         fields[f], json_string_length(one), PATH_MAX - 1);
                return 400;
            }
            if (p[0] == '/' && path_clean(p, clean, sizeof(clean)) == 0 && strcmp(clean, p))
                json_string_set(one, clean);
        }
    }
    return 0;
}

/* The request's witnesses (request_witness): exactly one of witness_path,
 * witness, witness_paths, witnesses and partitions (with its optional
 * partition), each checked, paths against --witness-dir, uploads decoded.
 * 0, or the HTTP status with msg saying what is wrong. */
static unsigned parse_witnesses(const server *s, json_t *req, request_witness *w, char *msg, size_t n)
{
    json_t *wp = json_object_get(req, "witness_path"), *wb = json_object_get(req, "witness");
    json_t *wl = json_object_get(req, "witness_paths"), *ws = json_object_get(req, "witnesses");
    json_t *np = json_object_get(req, "partitions"), *fp = json_object_get(req, "partition");
    memset(w, 0, sizeof(*w));
    if (!!wp + !!wb + !!wl + !!ws + !!np != 1) {
        snprintf(msg, n,
                 "request body: give exactly one of \"witness_path\", \"witness\" (base64 .wtns), \"witness_paths\", "
                 "\"witnesses\" (one a partition) and \"partitions\" (made from the key's circuit)");
        return 400;
    }
    if ((wp && !json_is_string(wp)) || (wb && !json_is_string(wb))) {
        snprintf(msg, n, "request body: \"%s\" is a string", wp ? "witness_path" : "witness");
        return 400;
    }
    if (fp && !np) {
        snprintf(msg, n, "request body: \"partition\" (the first partition to prove) goes with \"partitions\"");
        return 400;
    }
    char resolved[4400], where[64];
    unsigned st;
    if (wp) {
        w->path = json_string_value(wp);
        return paths_check(s, PATHS_WITNESS, w->path, resolved, sizeof(resolved), msg, n);
    }
    if (wb)
        return decode_upload(json_string_value(wb), "\"witness\"", &w->bytes, &w->len, msg, n);
    if (np) {
        json_int_t v = json_is_integer(np) ? json_integer_value(np) : 0;
        json_int_t f = fp && json_is_integer(fp) ? json_integer_value(fp) : 0;
        if (v < 1 || v > CUZK_JOB_MAX_PARTITIONS || (fp && (!json_is_integer(fp) || f < 0 || f + v - 1 > UINT32_MAX))) {
            snprintf(msg, n,
                     "request body: \"partitions\" is an integer from 1 to %u and \"partition\" (the first, default "
                     "0) an integer from 0",
                     CUZK_JOB_MAX_PARTITIONS);
            return 400;
        }
        w->generated = (unsigned)v;
        w->first = (unsigned)f;
        return 0;
    }
    json_t *arr = wl ? wl : ws;
    const char *field = wl ? "witness_paths" : "witnesses";
    size_t count = json_is_array(arr) ? json_array_size(arr) : 0;
    if (!count || count > CUZK_JOB_MAX_PARTITIONS) {
        snprintf(msg, n, "request body: \"%s\" is an array of 1 to %u %s, one a partition", field,
                 CUZK_JOB_MAX_PARTITIONS, wl ? "paths" : "base64 .wtns");
        return 400;
    }
    w->n = (unsigned)count;
    if (wl ? !(w->paths = calloc(count, sizeof(char *)))
           : !(w->list = calloc(count, sizeof(unsigned char *))) || !(w->list_len = calloc(count, sizeof(size_t)))) {
        snprintf(msg, n, "out of memory");
        return 503;
    }
    for (size_t k = 0; k < count; k++) {
        json_t *v = json_array_get(arr, k);
        snprintf(where, sizeof(where), "\"%s\"[%zu]", field, k);
        if (!json_is_string(v)) {
            snprintf(msg, n, "request body: %s is a string", where);
            return 400;
        }
        if (wl) {
            w->paths[k] = json_string_value(v);
            if ((st = paths_check(s, PATHS_WITNESS, w->paths[k], resolved, sizeof(resolved), msg, n))) {
                char m[400];
                snprintf(m, sizeof(m), "%.399s", msg);
                snprintf(msg, n, "%.60s: %s", where, m);
                return st;
            }
        } else if ((st = decode_upload(json_string_value(v), where, &w->list[k], &w->list_len[k], msg, n)))
            return st;
    }
    return 0;
}

static enum MHD_Result post_proof(server *s, struct MHD_Connection *c, const api_conn *b)
{
    enum MHD_Result ret;
    json_t *req = body_object(s, c, b, "a JSON object", &ret);
    if (!req)
        return ret;
    json_t *kp = json_object_get(req, "key_path"), *ki = json_object_get(req, "key_id");
    json_t *rp = json_object_get(req, "r1cs_path"); /* a .params key's circuit */
    int prio;
    char request_id[REQUEST_ID_MAX + 1], msg[512];
    request_witness wit = {0};
    if (!kp == !ki || (kp && !json_is_string(kp)) || (ki && !json_is_string(ki))) {
        ret = reply_error(s, c, 400, "request body: give exactly one of \"key_path\" and \"key_id\", as a string");
        goto out;
    }
    if (rp && (!json_is_string(rp) || !kp)) {
        ret = reply_error(s, c, 400,
                          "request body: \"r1cs_path\" (the circuit of a bellperson .params key) is a string, given "
                          "with \"key_path\"");
        goto out;
    }
    if (ki && !url_id_valid(json_string_value(ki))) {
        char found[80];
        quote_found(json_string_value(ki), json_string_length(ki), found, sizeof(found));
        ret = reply_error(s, c, 400, "request body: \"key_id\": expected " REQUEST_ID_RULE ", found %s", found);
        goto out;
    }
    unsigned bad_path = clean_paths(req, msg, sizeof(msg));
    if (bad_path) {
        ret = reply_error(s, c, bad_path, "%s", msg);
        goto out;
    }
    if (parse_priority(json_object_get(req, "priority"), &prio) != 0) {
        ret = reply_error(s, c, 400, "request body: \"priority\" must be low, normal, high, critical or 0-3");
        goto out;
    }
    if (request_id_of(c, req, request_id, msg, sizeof(msg)) != 0) {
        ret = reply_error(s, c, 400, "%s", msg);
        goto out;
    }
    /* the paths, before anything is journaled (journal_submit checks them
     * again, as after a restart) */
    char resolved[4400];
    unsigned refused = 0;
    if (kp)
        refused = paths_check(s, PATHS_KEY, json_string_value(kp), resolved, sizeof(resolved), msg, sizeof(msg));
    if (!refused && rp) /* a key's circuit lies where keys do */
        refused = paths_check(s, PATHS_KEY, json_string_value(rp), resolved, sizeof(resolved), msg, sizeof(msg));
    /* the witnesses, paths checked and uploads decoded before anything
     * else: a retry's digest covers their bytes, and a retry journals
     * nothing */
    if (!refused)
        refused = parse_witnesses(s, req, &wit, msg, sizeof(msg));
    if (refused) {
        ret = reply_error(s, c, refused, "%s", msg);
        goto out;
    }
    unsigned char digest[REQUEST_DIGEST_LEN] = {0};
    if (request_id[0])
        journal_request_digest(json_string_value(kp), json_string_value(ki), json_string_value(rp), &wit, prio,
                               digest);
    json_t *record = journal_record(req, &wit, prio, request_id, digest);
    char id[33] = "";
    int outcome = STORE_NEW, state = CUZK_JOB_QUEUED;
    cuzk_error err = {0};
    int rc = record ? s->store->submit(s, record, &wit, request_id, digest, id, &outcome, &state, &err)
                    : cuzk_error_set(&err, CUZK_ERR_NO_MEMORY, "out of memory");
    json_decref(record);
    if (rc != CUZK_OK)
        ret = reply_error(s, c, status_for(rc), "%s", err.message);
    else if (outcome == STORE_CONFLICT || outcome == STORE_TOO_LARGE)
        ret = reply_error(s, c, outcome == STORE_CONFLICT ? 409 : 413, "%s", err.message);
    else {
        json_t *o = json_pack("{s:s, s:s}", "id", id, "state", cuzk_job_state_name(state));
        if (o && request_id[0])
            json_object_set_new(o, "request_id", json_string(request_id));
        if (o && outcome == STORE_DUPLICATE) {
            json_object_set_new(o, "duplicate", json_true());
            __atomic_add_fetch(&s->duplicates, 1, __ATOMIC_RELAXED);
        }
        ret = reply(s, c, outcome == STORE_DUPLICATE ? 200 : 202, o);
    }
out:
    request_witness_free(&wit);
    json_decref(req);
    return ret;
}

/* GET /v1/proofs/{id}[?wait=S[&state=X]]: with wait, answers when the job
 * ends or S seconds pass; with state too, also as soon as the job is no
 * longer in state X (so a client can report queued -> running). A wait is
 * parked: the connection is suspended (no thread waits for it) until
 * api_jobs_changed resumes it, and libmicrohttpd calls the handler again,
 * which comes back here with the wait already parsed and looks at the job
 * again. */
static enum MHD_Result get_proof(server *s, struct MHD_Connection *c, const char *id, api_conn *b)
{
    if (!b->polling) {
        const char *w = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "wait");
        const char *st = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "state");
        double wait = 0;
        b->from = -1;
        if (w) {
            char *end;
            wait = strtod(w, &end);
            if (*end || end == w || !(wait >= 0 && wait <= 3600)) {
                char found[80];
                quote_found(w, strlen(w), found, sizeof(found));
                return reply_error(s, c, 400, "wait: expected seconds in [0, 3600], got '%s'", found);
            }
        }
        if (st) {
            b->from = cuzk_job_state_from_name(st);
            if (b->from < 0) {
                char found[80];
                quote_found(st, strlen(st), found, sizeof(found));
                return reply_error(s, c, 400, "state: expected queued, running, done, failed or cancelled, got '%s'",
                                   found);
            }
        }
        b->polling = 1;
        b->deadline = cuzk_now() + wait;
    }
    for (;;) {
        /* a change between the look and the park is seen by its count */
        unsigned long long seen = __atomic_load_n(&s->changes, __ATOMIC_ACQUIRE);
        json_t *o = NULL;
        int state = -1;
        cuzk_error err = {0};
        int rc = s->store->job(s, id, &o, &state, &err);
        if (rc == CUZK_ERR_NOT_FOUND)
            return reply_error(s, c, 404, "no job '%s'", id);
        if (rc != CUZK_OK)
            return reply_error(s, c, 503, "%s", err.message);
        pthread_mutex_lock(&s->mu);
        if (state >= CUZK_JOB_DONE || s->stopping || cuzk_now() >= b->deadline ||
            (b->from >= 0 && state != b->from)) {
            pthread_mutex_unlock(&s->mu);
            return reply(s, c, 200, o);
        }
        json_decref(o);
        if (s->changes != seen) {
            pthread_mutex_unlock(&s->mu);
            continue;
        }
        /* parked until api_jobs_changed resumes it */
        snprintf(b->job, sizeof(b->job), "%s", id);
        if (s->store->watch)
            s->store->watch(s, id, 1);
        b->c = c;
        b->parked = b->suspended = 1;
        b->prev_parked = NULL;
        b->next_parked = s->parked;
        if (s->parked)
            s->parked->prev_parked = b;
        s->parked = b;
        s->n_parked++;
        s->n_suspended++;
        MHD_suspend_connection(c);
        pthread_mutex_unlock(&s->mu);
        return MHD_YES;
    }
}

static void unpark(server *s, api_conn *b)
{
    if (b->prev_parked)
        b->prev_parked->next_parked = b->next_parked;
    else
        s->parked = b->next_parked;
    if (b->next_parked)
        b->next_parked->prev_parked = b->prev_parked;
    b->prev_parked = b->next_parked = NULL;
    b->parked = 0;
    if (s->store->watch)
        s->store->watch(s, b->job, -1);
    b->job[0] = 0;
    s->n_parked--;
}

void api_jobs_changed(server *s, const char *id)
{
    if (id)
        s->changes++;
    double now = cuzk_now();
    for (api_conn *b = s->parked, *next; b; b = next) {
        next = b->next_parked;
        if ((id && (!*id || !strcmp(b->job, id))) || s->stopping || now >= b->deadline) {
            struct MHD_Connection *c = b->c;
            unpark(s, b);
            MHD_resume_connection(c);
        }
    }
}

static enum MHD_Result delete_proof(server *s, struct MHD_Connection *c, const char *id)
{
    int outcome = STORE_DELETED;
    cuzk_error err = {0};
    int rc = s->store->remove(s, id, &outcome, &err);
    if (rc == CUZK_ERR_NOT_FOUND)
        return reply_error(s, c, 404, "no job '%s'", id);
    if (rc != CUZK_OK)
        return reply_error(s, c, 503, "%s", err.message);
    const char *state = outcome == STORE_DELETED ? "deleted" : outcome == STORE_CANCELLING ? "cancelling" : "deleting";
    return reply(s, c, outcome == STORE_DELETED ? 200 : 202, json_pack("{s:s, s:s}", "id", id, "state", state));
}

static enum MHD_Result keys_request(server *s, struct MHD_Connection *c, const char *method, const char *key,
                                    const api_conn *b)
{
    cuzk_error err = {0};
    if (!strcmp(method, "DELETE")) {
        int rc = cuzk_engine_key_evict(s->engine, key, &err);
        return rc == CUZK_OK ? reply(s, c, 200, json_pack("{s:s, s:s}", "key", key, "state", "evicted"))
                             : reply_error(s, c, client_status(rc), "%s", err.message);
    }
    enum MHD_Result ret;
    json_t *req = body_object(s, c, b, "{\"path\": \"<file.zkey>\"}", &ret);
    if (!req)
        return ret;
    char msg[600];
    unsigned bad_path = clean_paths(req, msg, sizeof(msg));
    if (bad_path) {
        json_decref(req);
        return reply_error(s, c, bad_path, "%s", msg);
    }
    const char *path = json_string_value(json_object_get(req, "path"));
    if (!path) {
        json_decref(req);
        return reply_error(s, c, 400, "request body: expected {\"path\": \"<file.zkey>\"}, without a string \"path\"");
    }
    json_t *rp = json_object_get(req, "r1cs_path"); /* a bellperson .params key's circuit */
    if (rp && !json_is_string(rp)) {
        json_decref(req);
        return reply_error(s, c, 400, "request body: \"r1cs_path\" (a .params key's circuit) must be a string");
    }
    char resolved[4400], rresolved[4400];
    unsigned refused = paths_check(s, PATHS_KEY, path, resolved, sizeof(resolved), msg, sizeof(msg));
    if (!refused && rp)
        refused = paths_check(s, PATHS_KEY, json_string_value(rp), rresolved, sizeof(rresolved), msg, sizeof(msg));
    if (refused) {
        json_decref(req);
        return reply_error(s, c, refused, "%s", msg);
    }
    int rc = rp ? cuzk_engine_key_load_params(s->engine, key, resolved, rresolved, &err)
                : cuzk_engine_key_load(s->engine, key, resolved, &err);
    json_decref(req);
    return rc == CUZK_OK ? reply(s, c, 200, json_pack("{s:s, s:s}", "key", key, "state", "loaded"))
                         : reply_error(s, c, client_status(rc), "%s", err.message);
}

/* GET /v1/status (JSON) and GET /metrics (Prometheus text): the engine's
 * stats as src/engine/stats.c renders them, and the daemon's own. */

/* What each GPU is, for /v1/status (a JSON array: name, memory,
 * multiprocessors, compute capability, PCI address) or /metrics (a
 * cuzk_gpu_info line a device, its values in labels). NULL when out of
 * memory; a device whose properties cannot be read is listed by number. */
static char *gpu_devices(int metrics, int gpus)
{
    if (metrics) {
        size_t cap = 128 + (size_t)gpus * 400, len = 0;
        char *t = malloc(cap);
        if (!t)
            return NULL;
        len += (size_t)snprintf(t, cap, "%s", gpus ? "# HELP cuzk_gpu_info each GPU the process sees\n"
                                                     "# TYPE cuzk_gpu_info gauge\n" : "");
        for (int d = 0; d < gpus && len < cap; d++) {
            cuzk_gpu_properties p;
            if (cuzk_gpu_get_properties(d, &p) != CUZK_OK)
                snprintf(p.name, sizeof(p.name), "unknown");
            for (char *q = p.name; *q; q++) /* a label value: no quote, backslash or line break */
                if (*q == '"' || *q == '\\' || *q == '\n')
                    *q = ' ';
            len += (size_t)snprintf(t + len, cap - len,
                                    "cuzk_gpu_info{gpu=\"%d\",name=\"%.200s\",pci=\"%s\",compute=\"%d.%d\","
                                    "memory_bytes=\"%llu\"} 1\n",
                                    d, p.name, p.pci_bus_id, p.compute_major, p.compute_minor, p.memory_bytes);
        }
        return t;
    }
    json_t *a = json_array();
    for (int d = 0; a && d < gpus; d++) {
        cuzk_gpu_properties p;
        char compute[24];
        int ok = cuzk_gpu_get_properties(d, &p) == CUZK_OK;
        snprintf(compute, sizeof(compute), "%d.%d", p.compute_major, p.compute_minor);
        json_t *o = !ok ? json_pack("{s:i, s:s}", "device", d, "error", "properties unavailable")
                        : json_pack("{s:i, s:s, s:I, s:i, s:s, s:s}", "device", d, "name", p.name, "memory_bytes",
                                    (json_int_t)p.memory_bytes, "multiprocessors", p.multiprocessors, "compute",
                                    compute, "pci", p.pci_bus_id);
        if (!o || json_array_append_new(a, o) != 0) {
            json_decref(a);
            return NULL;
        }
    }
    char *out = a ? json_dumps(a, JSON_COMPACT) : NULL;
    json_decref(a);
    return out;
}

/* The daemon's options in force, from its table (src/server/options.c),
 * as a config file would give them; a text option (a path, the queue's
 * URI, which may hold a password) only as "set" or "". NULL: out of
 * memory. */
static char *options_json(const server *s)
{
    json_t *o = json_object();
    char v[64];
    for (size_t i = 0; o && i < serve_option_count; i++) {
        const serve_option *so = &serve_options[i];
        if (so->offset == SERVE_NO_FIELD)
            continue;
        serve_option_value(&s->cfg, so, v, sizeof(v));
        json_object_set_new(o, so->name, json_string(so->type == SERVE_OPT_TEXT ? (v[0] ? "set" : "") : v));
    }
    char *text = o ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return text;
}

static enum MHD_Result status_request(server *s, struct MHD_Connection *c, int metrics)
{
    cuzk_engine_stats st;
    cuzk_engine_get_stats(s->engine, &st);
    pthread_mutex_lock(&s->mu);
    unsigned kept = s->n_jobs;
    unsigned long long duplicates = __atomic_load_n(&s->duplicates, __ATOMIC_RELAXED);
    char journal[sizeof(s->journal_error)];
    memcpy(journal, s->journal_error, sizeof(journal));
    pthread_mutex_unlock(&s->mu);
    int gpus = 0;
    if (cuzk_gpu_count(&gpus) != CUZK_OK)
        gpus = 0;
    char *devices = gpu_devices(metrics, gpus);
    char *engine = metrics ? stats_prometheus(&st) : stats_json_members(&st);
    char *options = metrics ? NULL : options_json(s);
    if (!engine || !devices || (!metrics && !options)) {
        free(engine);
        free(devices);
        free(options);
        return reply_error(s, c, 503, "out of memory");
    }
    json_t *jj = json_string(journal[0] ? journal : "ok");
    char *journal_json = jj ? json_dumps(jj, JSON_ENCODE_ANY) : NULL;
    json_decref(jj);
    char *queue = NULL; /* the store's own: a queue's counts and nodes (cluster.c) */
    cuzk_error qerr;
    if (s->store->stats && s->store->stats(s, &queue, &qerr) != CUZK_OK) {
        json_t *e = json_pack("{s:s}", "error", qerr.message);
        queue = e ? json_dumps(e, JSON_COMPACT) : NULL;
        json_decref(e);
    }
    size_t cap = strlen(engine) + strlen(devices) + 1024 + (queue ? 2 * strlen(queue) + 2048 : 0) +
                 (options ? strlen(options) : 0);
    char *t = malloc(cap);
    if (!t) {
        free(engine);
        free(devices);
        free(journal_json);
        free(queue);
        free(options);
        return reply_error(s, c, 503, "out of memory");
    }
    if (metrics)
        snprintf(t, cap,
                 "%s# HELP cuzk_submissions_duplicate_total POSTs answered with the job of an earlier one\n"
                 "# TYPE cuzk_submissions_duplicate_total counter\ncuzk_submissions_duplicate_total %llu\n"
                 "# HELP cuzk_results_kept jobs whose state and result the daemon keeps\n"
                 "# TYPE cuzk_results_kept gauge\ncuzk_results_kept %u\n"
                 "# HELP cuzk_gpus GPUs the process sees\n# TYPE cuzk_gpus gauge\ncuzk_gpus %d\n%s"
                 "# HELP cuzk_journal_ok 1 while the state directory takes writes, 0 after one failed\n"
                 "# TYPE cuzk_journal_ok gauge\ncuzk_journal_ok %d\n",
                 engine, duplicates, kept, gpus, devices, !journal[0]);
    else
        snprintf(t, cap,
                 "{%s, \"jobs_kept\": %u, \"gpus\": %d, \"gpu_devices\": %s, \"duplicates\": %llu, "
                 "\"journal\": %s, \"options\": %s%s%s%s%s}\n",
                 engine, kept, gpus, devices, duplicates, journal_json ? journal_json : "\"?\"", options,
                 queue ? ", \"" : "", queue ? s->store->name : "", queue ? "\": " : "", queue ? queue : "");
    free(devices);
    if (metrics && queue)
        s->store->metrics(queue, t, cap);
    free(engine);
    free(journal_json);
    free(queue);
    free(options);
    if (metrics)
        return reply_text(c, 200, t);
    struct MHD_Response *r = MHD_create_response_from_buffer(strlen(t), t, MHD_RESPMEM_MUST_FREE);
    MHD_add_response_header(r, "Content-Type", "application/json");
    enum MHD_Result ret = MHD_queue_response(c, 200, r);
    MHD_destroy_response(r);
    return ret;
}

/* The headers that say where a body ends, counted. */
typedef struct framing {
    unsigned content_length, transfer_encoding;
    int chunked; /* the one Transfer-Encoding is "chunked" */
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    (void)kind;
    framing *f = cls;
    if (!strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH))
        f->content_length++;
    else if (!strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING)) {
        f->transfer_encoding++;
        f->chunked = value && !strcasecmp(value, "chunked");
    }
    return MHD_YES;
}

/* A request whose body's end is ambiguous (two Content-Lengths, a length
 * and a Transfer-Encoding) would be read one way here and another by a
 * proxy in front (request smuggling, RFC 9112 6.3); one whose
 * Transfer-Encoding is not chunked has no end we can find. 400 for each,
 * before anything else. */
static const char *bad_framing(struct MHD_Connection *c)
{
    framing f = {0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
    if (f.content_length > 1)
        return "more than one Content-Length header";
    if (f.content_length && f.transfer_encoding)
        return "both Content-Length and Transfer-Encoding";
    if (f.transfer_encoding > 1)
        return "more than one Transfer-Encoding header";
    if (f.transfer_encoding && !f.chunked)
        return "a Transfer-Encoding other than chunked";
    return NULL;
}

/* The first call of a request (headers read, no body yet): what can be
 * refused before its body is read. NULL to go on, else the reply. */
static int refuse_early(server *s, struct MHD_Connection *c, const char *url, const char *method,
                        enum MHD_Result *ret)
{
    const char *framing_error = bad_framing(c);
    if (framing_error) {
        *ret = reply_error(s, c, 400, "request framing: %s; refused", framing_error);
        return 1;
    }
    if (!auth_allowed(s, c, url, method)) {
        *ret = reply_error(s, c, 401, "this daemon needs 'Authorization: Bearer TOKEN' (its --token-file's token)");
        return 1;
    }
    if (s->stopping) {
        *ret = reply_error(s, c, 503, "shutting down: retry when the daemon is back");
        return 1;
    }
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (cl) {
        char *end;
        errno = 0;
        unsigned long long n = strtoull(cl, &end, 10);
        if (errno || *end || end == cl || n > s->cfg.max_body) {
            *ret = reply_error(s, c, 413, "request body of %.24s bytes: larger than --max-body, %llu bytes", cl,
                               (unsigned long long)s->cfg.max_body);
            return 1;
        }
        if (__atomic_load_n(&s->body_bytes, __ATOMIC_RELAXED) + n > s->cfg.max_body_total) {
            *ret = reply_error(s, c, 503, "request bodies being received now pass --max-body-total (%llu bytes): "
                               "retry", (unsigned long long)s->cfg.max_body_total);
            return 1;
        }
    }
    return 0;
}

/* A piece of the body: kept while it fits its bound (--max-body) and the
 * bound on every body buffered at once (--max-body-total). Returns MHD_NO
 * (the connection closes) for a body without a length that passes
 * --max-body far: its end would be read for nothing. */
static enum MHD_Result take_upload(server *s, api_conn *b, const char *upload, size_t n)
{
    if (b->too_large || b->too_busy)
        return b->len + n > 2 * s->cfg.max_body ? MHD_NO : MHD_YES;
    if (b->len + n > s->cfg.max_body) {
        b->too_large = 1;
    } else if (__atomic_add_fetch(&s->body_bytes, n, __ATOMIC_RELAXED) > s->cfg.max_body_total) {
        __atomic_sub_fetch(&s->body_bytes, n, __ATOMIC_RELAXED);
        b->too_busy = 1;
    } else {
        b->counted += n;
        char *d = realloc(b->data, b->len + n + 1);
        if (!d) {
            b->too_busy = 1;
        } else {
            b->data = d;
            memcpy(b->data + b->len, upload, n);
            b->len += n;
            b->data[b->len] = 0;
            return MHD_YES;
        }
    }
    /* refused: what was kept goes now */
    free(b->data);
    b->data = NULL;
    b->len += n;
    __atomic_sub_fetch(&s->body_bytes, b->counted, __ATOMIC_RELAXED);
    b->counted = 0;
    return MHD_YES;
}

static int is_get(const char *method)
{
    return !strcmp(method, "GET") || !strcmp(method, "HEAD"); /* libmicrohttpd leaves out a HEAD's body */
}

enum MHD_Result api_handler(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                            const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    (void)version;
    server *s = cls;
    api_conn *b = *con_cls;
    if (!b) {
        if (!(b = calloc(1, sizeof(*b))))
            return MHD_NO;
        *con_cls = b;
        enum MHD_Result ret;
        if (refuse_early(s, c, url, method, &ret))
            return ret;
        /* the body's deadline from its length (refuse_early checked it;
         * chunked: as long as the largest body takes) */
        const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        int chunked = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) != NULL;
        conns_headers_read(s, c, cl ? strtoull(cl, NULL, 10) : chunked ? s->cfg.max_body : 0);
        return MHD_YES;
    }
    if (*upload_size) {
        size_t n = *upload_size;
        *upload_size = 0;
        return take_upload(s, b, upload, n);
    }
    conns_busy(s, c); /* the whole request read */
    if (b->suspended) { /* a parked long poll, resumed */
        pthread_mutex_lock(&s->mu);
        b->suspended = 0;
        s->n_suspended--;
        pthread_mutex_unlock(&s->mu);
    }
    if (b->too_large)
        return reply_error(s, c, 413, "request body larger than --max-body, %llu bytes",
                           (unsigned long long)s->cfg.max_body);
    if (b->too_busy)
        return reply_error(s, c, 503, "request bodies being received now pass --max-body-total (%llu bytes): retry",
                           (unsigned long long)s->cfg.max_body_total);
    if (s->stopping && !b->polling)
        return reply_error(s, c, 503, "shutting down: retry when the daemon is back");
    const char *rest;
    if (!strcmp(url, "/healthz") && is_get(method)) {
        /* up, and able to take work: a journal that cannot be written
         * makes it 503, so that a balancer sends work elsewhere */
        pthread_mutex_lock(&s->mu);
        json_t *o = s->journal_error[0] ? json_pack("{s:s, s:s}", "status", "degraded", "journal", s->journal_error)
                                        : json_pack("{s:s}", "status", "ok");
        int bad = s->journal_error[0] != 0;
        pthread_mutex_unlock(&s->mu);
        return reply(s, c, bad ? 503 : 200, o);
    }
    if (!strcmp(url, "/metrics") && is_get(method))
        return status_request(s, c, 1);
    if (!strcmp(url, "/v1/status") && is_get(method))
        return status_request(s, c, 0);
    if (!strcmp(url, "/v1/proofs") && !strcmp(method, "POST"))
        return post_proof(s, c, b);
    if (!strncmp(url, "/v1/proofs/", 11)) {
        rest = url + 11;
        if (!url_id_valid(rest))
            return reply_error(s, c, 400, "bad job id (letters, digits, '-', '_', '.')");
        if (is_get(method))
            return get_proof(s, c, rest, b);
        if (!strcmp(method, "DELETE"))
            return delete_proof(s, c, rest);
        return reply_error(s, c, 405, "%.16s is not allowed on /v1/proofs/{id} (GET, HEAD, DELETE)", method);
    }
    if (!strncmp(url, "/v1/keys/", 9)) {
        rest = url + 9;
        if (!url_id_valid(rest))
            return reply_error(s, c, 400, "bad key id (letters, digits, '-', '_', '.')");
        if (!strcmp(method, "POST") || !strcmp(method, "DELETE"))
            return keys_request(s, c, method, rest, b);
        return reply_error(s, c, 405, "%.16s is not allowed on /v1/keys/{id} (POST, DELETE)", method);
    }
    char found[80];
    quote_found(url, strlen(url), found, sizeof(found));
    return reply_error(s, c, 404, "no such endpoint: %.16s %s", method, found);
}

void api_request_done(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    (void)toe;
    server *s = cls;
    conns_answered(s, c);
    api_conn *b = *con_cls;
    if (b) {
        if (b->parked || b->suspended) { /* not expected: a closed connection is never suspended */
            pthread_mutex_lock(&s->mu);
            if (b->parked)
                unpark(s, b);
            if (b->suspended)
                s->n_suspended--;
            pthread_mutex_unlock(&s->mu);
        }
        __atomic_sub_fetch(&s->body_bytes, b->counted, __ATOMIC_RELAXED);
        free(b->data);
        free(b);
    }
    *con_cls = NULL;
}

#endif
