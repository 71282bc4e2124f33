/* The HTTP client of `cuzk submit` (tools/cuzk/http_client.c, over
 * libcurl) against a canned server on loopback: Content-Length, chunked
 * and close-delimited bodies, interim 1xx answers, Retry-After, the
 * response bound, truncated and malformed answers (never taken for an
 * answer), a silent peer (timeout), a peer that closes without answering,
 * nothing listening, a streamed request body held to its length, the
 * token header, and the HOST:PORT parser. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../tools/cuzk/http_client.h"
#include "test_util.h"

#define SILENT "<silent>" /* answer nothing for a while, then close */
#define CLOSE "<close>"   /* close at once without answering */

typedef struct canned {
    int lfd;
    const char *answers[32];
    int n;
    char last_request[4096]; /* the last request, headers and body */
    size_t last_len;
} canned;

static void *serve_canned(void *arg)
{
    canned *c = arg;
    for (int i = 0; i < c->n; i++) {
        int fd = accept(c->lfd, NULL, NULL);
        if (fd < 0)
            return NULL;
        /* the request: headers, then Content-Length bytes of body */
        size_t len = 0;
        long body = -1;
        for (;;) {
            ssize_t r = recv(fd, c->last_request + len, sizeof(c->last_request) - 1 - len, 0);
            if (r <= 0)
                break;
            len += (size_t)r;
            c->last_request[len] = 0;
            char *end = strstr(c->last_request, "\r\n\r\n");
            if (!end)
                continue;
            if (body < 0) {
                const char *cl = strstr(c->last_request, "Content-Length: ");
                body = cl && cl < end ? atol(cl + 16) : 0;
            }
            if (len >= (size_t)(end + 4 - c->last_request) + (size_t)body || len == sizeof(c->last_request) - 1)
                break;
        }
        c->last_len = len;
        const char *a = c->answers[i];
        if (!strcmp(a, SILENT))
            usleep(2500000);
        else if (strcmp(a, CLOSE) != 0) {
            size_t n = strlen(a), off = 0;
            while (off < n) { /* in small pieces: the client must reassemble */
                size_t k = n - off < 7 ? n - off : 7;
                ssize_t w = send(fd, a + off, k, MSG_NOSIGNAL);
                if (w <= 0)
                    break;
                off += (size_t)w;
            }
        }
        close(fd);
    }
    return NULL;
}

/* "abc", then "def", then (past the declared 6 bytes) "XYZ" that must
 * never be asked for */
static long read_abcdef(void *ctx, char *buf, size_t n, http_error *err)
{
    int *calls = ctx;
    const char *part = *calls == 0 ? "abc" : *calls == 1 ? "def" : "XYZ";
    (void)err;
    (*calls)++;
    size_t k = n < 3 ? n : 3;
    memcpy(buf, part, k);
    return (long)k;
}

static long read_fails(void *ctx, char *buf, size_t n, http_error *err)
{
    (void)ctx;
    (void)buf;
    (void)n;
    snprintf(err->message, sizeof(err->message), "witness.wtns: cannot read");
    err->code = HTTP_ERR_BODY;
    return -1;
}

int main(void)
{
    test_init("test_http_client");
    static canned c;
    c.lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    if (c.lfd < 0 || bind(c.lfd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(c.lfd, 8) != 0 ||
        getsockname(c.lfd, (struct sockaddr *)&a, &al) != 0) {
        perror("listen on loopback");
        return 1;
    }
    unsigned port = ntohs(a.sin_port);
    static char long_header[300000];
    snprintf(long_header, sizeof(long_header), "HTTP/1.1 200 OK\r\nX-Long: %0250000d\r\n\r\n", 0);
    const char *answers[] = {
        /* 0 */ "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5\r\n\r\nhello",
        /* 1 */ "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\n"
                "X-Trailer: 1\r\n\r\n",
        /* 2 */ "HTTP/1.0 200 OK\r\n\r\nuntil the end",
        /* 3 */ "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 202 Accepted\r\nContent-Length: 2\r\n\r\n{}",
        /* 4 */ "HTTP/1.1 429 Too Many Requests\r\nRetry-After:  3 \r\nContent-Length: 0\r\n\r\n",
        /* 5 */ "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n",
        /* 6 */ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1e\r\n012345678901234567890123456789\r\n"
                "1e\r\n012345678901234567890123456789\r\n0\r\n\r\n",
        /* 7 */ "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
        /* 8 */ "SMTP ready\r\n",
        /* 9 */ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        /* 10 */ SILENT,
        /* 11 */ CLOSE,
        /* 12 */ long_header,
        /* 13 */ "HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\nok",
        /* 14 */ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
        /* 15 */ "HTTP/1.1 204 No Content\r\nRetry-After: Fri, 31 Dec 1999 23:59:59 GMT\r\n\r\n",
        /* 16 */ "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
        /* 17 */ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcdef\r\n0\r\n\r\n",
    };
    c.n = (int)(sizeof(answers) / sizeof(answers[0]));
    memcpy(c.answers, answers, sizeof(answers));
    pthread_t th;
    pthread_create(&th, NULL, serve_canned, &c);

    http_response r;
    http_error e;
    int rc;
#define REQ(max) http_request("127.0.0.1", port, NULL, "GET", "/v1/x?wait=1", NULL, 5.0, (max), &r, &e)
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_OK && r.status == 200 && r.len == 5 && !strcmp(r.body, "hello"), "content-length: %d %s", rc,
          e.message);
    CHECK_MSG(strstr(c.last_request, "GET /v1/x?wait=1 HTTP/1.1\r\n") && strstr(c.last_request, "Connection: close\r\n") &&
              strstr(c.last_request, "Host: 127.0.0.1:"),
          "request line: %s", c.last_request);
    http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_OK && r.status == 200 && !strcmp(r.body, "hello, world"), "chunked: %d %s", rc, e.message);
    http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_OK && r.status == 200 && !strcmp(r.body, "until the end"), "close-delimited: %d %s", rc,
          e.message);
    http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_OK && r.status == 202 && !strcmp(r.body, "{}"), "100 then 202: %d %s", rc, e.message);
    http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_OK && r.status == 429 && r.retry_after == 3 && r.len == 0, "429: %d %d", rc, r.retry_after);
    http_response_free(&r);
    rc = REQ(50);
    CHECK_MSG(rc == HTTP_ERR_TOO_LARGE && strstr(e.message, "larger than 50"), "content-length bound: %d %s", rc,
          e.message);
    rc = REQ(50);
    CHECK_MSG(rc == HTTP_ERR_TOO_LARGE, "chunked bound: %d %s", rc, e.message);
    /* malformed or cut answers: an error naming the peer, never an answer */
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_ERR_IO && strstr(e.message, "127.0.0.1:"), "truncated: %d %s", rc, e.message);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_ERR_PROTOCOL && strstr(e.message, "127.0.0.1:"), "not HTTP: %d %s", rc, e.message);
    rc = REQ(1000);
    CHECK_MSG(rc != HTTP_OK && e.message[0], "bad chunk size: %d %s", rc, e.message);
    rc = http_request("127.0.0.1", port, NULL, "GET", "/", NULL, 1.0, 1000, &r, &e);
    CHECK_MSG(rc == HTTP_ERR_TIMEOUT && strstr(e.message, "no progress for 1 s"), "silent peer: %d %s", rc, e.message);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_ERR_IO && strstr(e.message, "closed before an answer"), "closed: %d %s", rc, e.message);
    rc = REQ(1000);
    CHECK_MSG(rc != HTTP_OK && e.message[0], "long header: %d %s", rc, e.message);
    int calls = 0;
    http_body b = {.length = 6, .content_type = "application/json", .read = read_abcdef, .ctx = &calls};
    const http_options tok = {.token = "s3cret"};
    rc = http_request("127.0.0.1", port, &tok, "POST", "/v1/proofs", &b, 5.0, 1000, &r, &e);
    CHECK_MSG(rc == HTTP_OK && r.status == 201 && !strcmp(r.body, "ok"), "POST: %d %s", rc, e.message);
    CHECK_MSG(strstr(c.last_request, "POST /v1/proofs HTTP/1.1\r\n") && strstr(c.last_request, "Content-Length: 6\r\n") &&
                  strstr(c.last_request, "Authorization: Bearer s3cret\r\n") &&
                  strstr(c.last_request, "Content-Type: application/json\r\n") && c.last_len >= 6 &&
                  !memcmp(c.last_request + c.last_len - 6, "abcdef", 6) && !strstr(c.last_request, "XYZ") && calls == 2,
              "POST body (%d reads): %s", calls, c.last_request);
    http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc != HTTP_OK || (r.status == 200 && r.len <= 6), "two lengths: %d %s", rc, e.message);
    if (rc == HTTP_OK)
        http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_OK && r.status == 204 && r.retry_after == -1 && r.len == 0, "204 with a date: %d %s", rc,
          e.message);
    http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc != HTTP_OK || (r.status == 200 && r.len == 0), "gzip: %d %s", rc, e.message);
    if (rc == HTTP_OK)
        http_response_free(&r);
    rc = REQ(1000);
    CHECK_MSG(rc != HTTP_OK && e.message[0], "long chunk: %d %s", rc, e.message);
    pthread_join(th, NULL);

    /* a body producer's own failure is reported as it is */
    rc = http_request("127.0.0.1", port, NULL, "POST", "/", &(http_body){.length = 1, .read = read_fails}, 1.0, 10,
                      &r, &e);
    CHECK_MSG(rc == HTTP_ERR_REFUSED || (rc == HTTP_ERR_BODY && strstr(e.message, "witness.wtns")), "producer: %d %s",
          rc, e.message);
    /* nothing listens once the socket is closed */
    close(c.lfd);
    rc = REQ(1000);
    CHECK_MSG(rc == HTTP_ERR_REFUSED && strstr(e.message, "connection refused"), "refused: %d %s", rc, e.message);
    rc = http_request("127.0.0.1", port, NULL, "GET", "no-slash", NULL, 1.0, 10, &r, &e);
    CHECK_MSG(rc == HTTP_ERR_ARGUMENT, "bad target: %d", rc);
    rc = http_request("127.0.0.1", port, NULL, "GET", "/a b", NULL, 1.0, 10, &r, &e);
    CHECK_MSG(rc == HTTP_ERR_ARGUMENT, "target with a space: %d", rc);
    rc = http_request("127.0.0.1", port, &(http_options){.token = "a\r\nX-Evil: 1"}, "GET", "/", NULL, 1.0, 10, &r, &e);
    CHECK_MSG(rc == HTTP_ERR_ARGUMENT, "token with a newline: %d", rc);

    /* HOST:PORT */
    char host[64];
    unsigned p;
    int tls;
    CHECK_MSG(http_parse_server("127.0.0.1:8080", host, sizeof(host), &p, &tls, &e) == 0 && !strcmp(host, "127.0.0.1") &&
              p == 8080,
          "plain: %s", e.message);
    CHECK_MSG(http_parse_server("http://localhost:80/", host, sizeof(host), &p, &tls, &e) == 0 && !strcmp(host, "localhost") &&
              p == 80,
          "http:// and /: %s", e.message);
    CHECK_MSG(http_parse_server("[::1]:9", host, sizeof(host), &p, &tls, &e) == 0 && !strcmp(host, "::1") && p == 9,
          "ipv6: %s", e.message);
    CHECK_MSG(http_parse_server("https://h:1", host, sizeof(host), &p, &tls, &e) == (http_has_tls() ? 0 : -1) &&
                  (!http_has_tls() || (tls && p == 1 && !strcmp(host, "h"))),
              "https: %s", e.message);
    const char *bad[] = {"localhost", "h:0", "h:65536", ":80", "h:8a", "h:", "[::1]", "[::1]x:1",
                         "a b:1", "h:123456", "u@h:1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        e.message[0] = 0;
        CHECK_MSG(http_parse_server(bad[i], host, sizeof(host), &p, &tls, &e) != 0 && e.code == HTTP_ERR_ARGUMENT &&
                  strstr(e.message, bad[i]),
              "'%s' accepted or unnamed: %s", bad[i], e.message);
    }
    char longhost[100];
    memset(longhost, 'a', 80);
    snprintf(longhost + 80, 20, ":1");
    CHECK_MSG(http_parse_server(longhost, host, sizeof(host), &p, &tls, &e) != 0, "host longer than the buffer accepted");

    test_done("test_http_client");
    return 0;
}
