/* The HTTP client of `cuzk submit` (see http_client.h), over libcurl: one
 * easy handle per exchange. What is ours is the policy around it: every
 * wait and the answer's size bounded, a failure sorted into the classes
 * submit's retries distinguish (refused, lost, timed out, malformed), a
 * request body streamed from its producer and held to its declared
 * length, and only http(s) spoken (no redirects followed). TLS, proxies
 * (http_proxy, https_proxy, no_proxy) and HTTP parsing are libcurl's. */
#include "http_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* err filled; returns -1 (http_parse_server's convention) */
int http_error_set(http_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    err->code = code;
    return -1;
}

/* http_error_set for http_request, which returns the code */
#define req_fail(err, code, ...) (http_error_set((err), (code), __VA_ARGS__), (code))

void http_response_free(http_response *r)
{
    if (!r)
        return;
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
    curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int http_has_tls(void)
{
    pthread_once(&curl_once, curl_init);
    const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);
    return curl_init_rc == CURLE_OK && v && (v->features & CURL_VERSION_SSL) != 0;
}

int http_parse_server(const char *text, char *host, size_t host_len, unsigned *port, int *tls, http_error *err)
{
    const char *s = text;
    *tls = 0;
    if (!strncasecmp(s, "https://", 8)) {
        if (!http_has_tls())
            return http_error_set(err, HTTP_ERR_ARGUMENT,
                           "server '%s': https needs a libcurl with TLS; this one "
                           "speaks plain HTTP only",
                           text);
        *tls = 1;
        s += 8;
    } else if (!strncasecmp(s, "http://", 7))
        s += 7;
    size_t n = strlen(s);
    if (n && s[n - 1] == '/') /* "http://host:port/" as copied from a browser */
        n--;
    const char *h = s, *colon;
    size_t hl;
    if (n && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (!close || close + 1 >= s + n || close[1] != ':')
            return http_error_set(err, HTTP_ERR_ARGUMENT, "server '%s': expected [IPV6]:PORT", text);
        h = s + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = NULL;
        for (size_t i = 0; i < n; i++)
            if (s[i] == ':')
                colon = s + i;
        if (!colon)
            return http_error_set(err, HTTP_ERR_ARGUMENT, "server '%s': expected HOST:PORT (e.g. 127.0.0.1:8080), found no ':'",
                           text);
        hl = (size_t)(colon - s);
    }
    if (hl == 0 || hl >= host_len)
        return http_error_set(err, HTTP_ERR_ARGUMENT, "server '%s': expected a host of 1 to %zu characters before the ':'",
                       text, host_len - 1);
    for (size_t i = 0; i < hl; i++)
        if ((unsigned char)h[i] <= ' ' || h[i] == '/' || h[i] == '@' || h[i] == '[' || h[i] == ']')
            return http_error_set(err, HTTP_ERR_ARGUMENT, "server '%s': the host contains '%c'", text,
                           (unsigned char)h[i] > ' ' ? h[i] : '?');
    const char *p = colon + 1, *end = s + n;
    unsigned long v = 0;
    if (p == end || end - p > 5)
        return http_error_set(err, HTTP_ERR_ARGUMENT, "server '%s': expected a port in [1, 65535] after the ':'", text);
    for (const char *q = p; q < end; q++) {
        if (*q < '0' || *q > '9')
            return http_error_set(err, HTTP_ERR_ARGUMENT, "server '%s': expected a port in [1, 65535] after the ':'", text);
        v = v * 10 + (unsigned long)(*q - '0');
    }
    if (v < 1 || v > 65535)
        return http_error_set(err, HTTP_ERR_ARGUMENT, "server '%s': expected a port in [1, 65535], got %lu", text, v);
    memcpy(host, h, hl);
    host[hl] = 0;
    *port = (unsigned)v;
    return 0;
}

/* ------------------------------------------------------------ one exchange */

typedef struct exchange {
    const http_body *body;
    unsigned long long sent; /* body bytes handed to libcurl */
    http_error body_err;     /* the producer's failure, if any */
    char *in;                /* the answer's body so far */
    size_t len, cap, max;
    int too_large;
    int retry_after;
} exchange;

static size_t on_read(char *buf, size_t size, size_t nitems, void *arg)
{
    exchange *x = arg;
    size_t n = size * nitems;
    unsigned long long left = x->body->length - x->sent;
    if (left == 0)
        return 0;
    if (n > left)
        n = (size_t)left; /* never more than the declared length */
    long got = x->body->read(x->body->ctx, buf, n, &x->body_err);
    if (got < 0) {
        if (x->body_err.code == HTTP_OK)
            http_error_set(&x->body_err, HTTP_ERR_BODY, "the request body could not be produced");
        return CURL_READFUNC_ABORT;
    }
    if (got == 0) {
        http_error_set(&x->body_err, HTTP_ERR_BODY, "the request body ended after %llu of its %llu bytes", x->sent,
                x->body->length);
        return CURL_READFUNC_ABORT;
    }
    x->sent += (unsigned long long)got;
    return (size_t)got;
}

static size_t on_write(char *p, size_t size, size_t nmemb, void *arg)
{
    exchange *x = arg;
    size_t n = size * nmemb;
    if (n > x->max - x->len) {
        x->too_large = 1;
        return 0; /* CURLE_WRITE_ERROR */
    }
    if (x->len + n + 1 > x->cap) {
        size_t cap = x->cap ? x->cap : 4096;
        while (cap < x->len + n + 1)
            cap *= 2;
        char *q = realloc(x->in, cap);
        if (!q)
            return 0;
        x->in = q;
        x->cap = cap;
    }
    memcpy(x->in + x->len, p, n);
    x->len += n;
    x->in[x->len] = 0;
    return n;
}

/* Retry-After as delta-seconds (a date, or anything else: -1), from the
 * final answer's headers (a 1xx answer's status line resets it). */
static size_t on_header(char *p, size_t size, size_t nitems, void *arg)
{
    exchange *x = arg;
    size_t n = size * nitems;
    if (n >= 5 && !strncmp(p, "HTTP/", 5))
        x->retry_after = -1;
    else if (n > 12 && !strncasecmp(p, "Retry-After:", 12)) {
        size_t i = 12;
        while (i < n && (p[i] == ' ' || p[i] == '\t'))
            i++;
        long v = 0;
        size_t digits = 0;
        for (; i < n && p[i] >= '0' && p[i] <= '9' && digits < 9; i++, digits++)
            v = v * 10 + (p[i] - '0');
        while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\r' || p[i] == '\n'))
            i++;
        x->retry_after = digits && i == n ? (int)v : -1;
    }
    return n;
}

/* libcurl's result sorted into the classes http_client.h names. */
static int classify(CURL *h, CURLcode rc, const exchange *x, const char *where, double idle, size_t max,
                    const char *detail, http_error *err)
{
    long os_errno = 0;
    switch (rc) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
        return http_error_set(err, HTTP_ERR_RESOLVE, "%s: the host name does not resolve (%s)", where, detail);
    case CURLE_COULDNT_CONNECT:
        curl_easy_getinfo(h, CURLINFO_OS_ERRNO, &os_errno);
        if (os_errno == ECONNREFUSED)
            return http_error_set(err, HTTP_ERR_REFUSED, "%s: connection refused", where);
        return http_error_set(err, HTTP_ERR_CONNECT, "%s: cannot connect (%s)", where, detail);
    case CURLE_OPERATION_TIMEDOUT:
        return http_error_set(err, HTTP_ERR_TIMEOUT, "%s: no progress for %.0f s (%s)", where, ceil(idle), detail);
    case CURLE_GOT_NOTHING:
        return http_error_set(err, HTTP_ERR_IO, "%s: the connection closed before an answer", where);
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
        return http_error_set(err, HTTP_ERR_IO, "%s: the connection broke (%s)", where, detail);
    case CURLE_ABORTED_BY_CALLBACK:
    case CURLE_READ_ERROR:
        if (x->body_err.code != HTTP_OK) {
            *err = x->body_err;
            return -1;
        }
        return http_error_set(err, HTTP_ERR_BODY, "%s: the request body could not be produced", where);
    case CURLE_WRITE_ERROR:
    case CURLE_FILESIZE_EXCEEDED:
        if (x->too_large || rc == CURLE_FILESIZE_EXCEEDED)
            return http_error_set(err, HTTP_ERR_TOO_LARGE, "%s: the answer is larger than %zu bytes", where, max);
        return http_error_set(err, HTTP_ERR_NO_MEMORY, "%s: out of memory for the answer", where);
    case CURLE_OUT_OF_MEMORY:
        return http_error_set(err, HTTP_ERR_NO_MEMORY, "%s: out of memory (%s)", where, detail);
    case CURLE_PEER_FAILED_VERIFICATION:
        return http_error_set(err, HTTP_ERR_TLS,
                       "%s: the daemon's certificate is not trusted: %s (--ca-file names the CA to trust, e.g. the "
                       "daemon's own certificate when it signed itself)",
                       where, detail);
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_USE_SSL_FAILED:
        return http_error_set(err, HTTP_ERR_TLS, "%s: TLS: %s", where, detail);
    default:
        return http_error_set(err, HTTP_ERR_PROTOCOL, "%s: not a well-formed HTTP answer (%s)", where, detail);
    }
}

/* A request target: '/' then printable ASCII without spaces. */
static int valid_target(const char *t)
{
    if (t[0] != '/')
        return 0;
    for (; *t; t++)
        if ((unsigned char)*t <= ' ' || (unsigned char)*t >= 0x7f)
            return 0;
    return 1;
}

static int valid_method(const char *m)
{
    if (!*m)
        return 0;
    for (; *m; m++)
        if (*m < 'A' || *m > 'Z')
            return 0;
    return 1;
}

/* A header value: no control characters (a token with a newline would
 * add headers of its own). */
static int valid_header_value(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < ' ' || (unsigned char)*s == 0x7f)
            return 0;
    return 1;
}

int http_request(const char *host, unsigned port, const http_options *opts, const char *method, const char *target,
                 const http_body *body, double idle_timeout, size_t max_response, http_response *resp,
                 http_error *err)
{
    static const http_options plain = {0};
    if (!opts)
        opts = &plain;
    memset(resp, 0, sizeof(*resp));
    resp->retry_after = -1;
    err->code = HTTP_OK;
    err->message[0] = 0;
    char where[300];
    int v6 = strchr(host, ':') != NULL;
    snprintf(where, sizeof(where), "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", port);
    if (!valid_method(method) || !valid_target(target))
        return req_fail(err, HTTP_ERR_ARGUMENT, "%s: not a valid request: '%.40s %.100s'", where, method, target);
    if (opts->token && (!*opts->token || !valid_header_value(opts->token)))
        return req_fail(err, HTTP_ERR_ARGUMENT, "the token is empty or holds control characters");
    if (idle_timeout <= 0)
        idle_timeout = 1;
    pthread_once(&curl_once, curl_init);
    if (curl_init_rc != CURLE_OK)
        return req_fail(err, HTTP_ERR_NO_MEMORY, "libcurl failed to start: %s", curl_easy_strerror(curl_init_rc));

    char url[600];
    snprintf(url, sizeof(url), "%s://%s%s", opts->tls ? "https" : "http", where, target);
    if (strlen(url) + 1 >= sizeof(url))
        return req_fail(err, HTTP_ERR_ARGUMENT, "%s: the request target is too long", where);

    exchange x = {.body = body, .max = max_response, .retry_after = -1};
    CURL *h = curl_easy_init();
    struct curl_slist *headers = NULL, *more;
    char line[600], detail[CURL_ERROR_SIZE] = "";
    int rc = -1;
    if (!h)
        return req_fail(err, HTTP_ERR_NO_MEMORY, "out of memory");
#define ADD_HEADER(...)                                                                                                \
    do {                                                                                                               \
        snprintf(line, sizeof(line), __VA_ARGS__);                                                                     \
        if (!(more = curl_slist_append(headers, line))) {                                                              \
            http_error_set(err, HTTP_ERR_NO_MEMORY, "out of memory");                                                         \
            goto out;                                                                                                  \
        }                                                                                                              \
        headers = more;                                                                                                \
    } while (0)
    /* one exchange per connection: the daemon's connection slots are not
     * held between a submit's requests */
    ADD_HEADER("Connection: close");
    ADD_HEADER("Expect:"); /* the body follows the headers at once */
    if (opts->token) {
        if (strlen(opts->token) > 400) {
            http_error_set(err, HTTP_ERR_ARGUMENT, "the token is longer than 400 characters");
            goto out;
        }
        ADD_HEADER("Authorization: Bearer %s", opts->token);
    }
    if (body && body->content_type)
        ADD_HEADER("Content-Type: %s", body->content_type);
#undef ADD_HEADER
    long idle_s = (long)ceil(idle_timeout);
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, detail);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_USERAGENT, "cuzk-submit");
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, (long)(idle_timeout * 1000 + 0.5));
    /* idle, not total: a long poll may take minutes, a stalled peer not */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, idle_s);
    curl_easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)max_response);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &x);
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &x);
    if (opts->tls && opts->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, opts->ca_file);
    if (body) {
        curl_easy_setopt(h, CURLOPT_POST, 1L);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)body->length);
        curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
        curl_easy_setopt(h, CURLOPT_READDATA, &x);
    }
    if (!strcmp(method, "HEAD"))
        curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    else if (strcmp(method, body ? "POST" : "GET") != 0)
        curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);

    if (body && body->open && body->open(body->ctx, err) != 0) {
        if (err->code == HTTP_OK)
            err->code = HTTP_ERR_BODY;
        goto out;
    }
    CURLcode cr = curl_easy_perform(h);
    if (body && body->close)
        body->close(body->ctx);
    if (cr != CURLE_OK) {
        if (!detail[0])
            snprintf(detail, sizeof(detail), "%s", curl_easy_strerror(cr));
        size_t dl = strlen(detail);
        while (dl && (detail[dl - 1] == '\n' || detail[dl - 1] == '\r'))
            detail[--dl] = 0;
        classify(h, cr, &x, where, idle_timeout, max_response, detail, err);
        goto out;
    }
    long status = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
    if (!x.in && !(x.in = calloc(1, 1))) {
        http_error_set(err, HTTP_ERR_NO_MEMORY, "out of memory");
        goto out;
    }
    resp->status = (int)status;
    resp->body = x.in;
    resp->len = x.len;
    resp->retry_after = x.retry_after;
    x.in = NULL;
    rc = HTTP_OK;
out:
    free(x.in);
    curl_slist_free_all(headers);
    curl_easy_cleanup(h);
    return rc == HTTP_OK ? HTTP_OK : err->code;
}
