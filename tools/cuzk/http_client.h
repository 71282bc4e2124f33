/* A small HTTP/1.1 client on POSIX sockets, for `cuzk submit` talking to
 * `cuzk serve`: one request per connection (Connection: close), bodies
 * with a Content-Length, responses delimited by Content-Length, chunked
 * transfer coding or the end of the connection; https (GnuTLS, the peer's
 * certificate checked against the system's or a given CA and the host
 * name) where built with it, and a bearer token. Every size read from the
 * peer is bounded; every wait on the socket has a timeout. */
#ifndef CUZK_TOOLS_HTTP_CLIENT_H
#define CUZK_TOOLS_HTTP_CLIENT_H

#include <stddef.h>

enum {
    HTTP_OK = 0,
    HTTP_ERR_ARGUMENT,   /* a malformed HOST:PORT or request */
    HTTP_ERR_RESOLVE,    /* the host name does not resolve */
    HTTP_ERR_REFUSED,    /* nothing listens there (connection refused) */
    HTTP_ERR_CONNECT,    /* other connection failures (unreachable, ...) */
    HTTP_ERR_TIMEOUT,    /* the peer sent or took nothing for idle_timeout */
    HTTP_ERR_IO,         /* the connection broke */
    HTTP_ERR_PROTOCOL,   /* the answer is not well-formed HTTP/1.x */
    HTTP_ERR_TOO_LARGE,  /* the answer is larger than max_response */
    HTTP_ERR_NO_MEMORY,
    HTTP_ERR_BODY,       /* the request body's producer failed (message is its own) */
    HTTP_ERR_TLS         /* the TLS handshake failed (e.g. the certificate is not trusted) */
};

typedef struct http_error {
    int code;
    char message[512];
} http_error;

typedef struct http_conn http_conn;

/* A request body of exactly `length` bytes, sent by produce() through
 * http_send (so that a large body, e.g. a base64 witness, is streamed from
 * its file instead of held in memory). produce returns 0, or -1 after
 * filling err (HTTP_ERR_BODY for its own failures). */
typedef struct http_body {
    unsigned long long length;
    const char *content_type;
    int (*produce)(void *ctx, http_conn *c, http_error *err);
    void *ctx;
} http_body;

/* Sends n bytes of the body; 0, or -1 with err filled. A peer that closed
 * early (it may have answered already, e.g. 413) is reported as
 * HTTP_ERR_IO; http_request then still reads its answer. */
int http_send(http_conn *c, const void *p, size_t n, http_error *err);

typedef struct http_response {
    int status;          /* 200, 404, ... */
    char *body;          /* NUL-terminated (malloc'd; free with http_response_free) */
    size_t len;          /* body bytes, excluding the NUL */
    int retry_after;     /* the Retry-After header in seconds, -1 when absent or a date */
} http_response;

void http_response_free(http_response *r);

/* Splits "HOST:PORT", "[IPV6]:PORT" or either behind "http://" or
 * "https://" (then *tls = 1) into host (brackets removed) and port
 * (1-65535). 0, or -1 with err filled naming the text, what was expected
 * and what was found. */
int http_parse_server(const char *text, char *host, size_t host_len, unsigned *port, int *tls, http_error *err);

/* Whether https is built in (GnuTLS). */
int http_has_tls(void);

/* How to reach the peer beyond its address (NULL: plain HTTP, no token). */
typedef struct http_options {
    int tls;             /* https */
    const char *ca_file; /* PEM certificates the peer's must chain to; NULL: the system's */
    const char *token;   /* sent as "Authorization: Bearer TOKEN"; NULL: none */
} http_options;

/* One exchange: connects to host:port, sends "METHOD TARGET HTTP/1.1" with
 * the body (NULL: none), and reads the answer into *resp. idle_timeout
 * (seconds, > 0) bounds every wait for the socket (connecting, each send,
 * each receive), not the whole exchange; max_response bounds the body.
 * Returns HTTP_OK (whatever the status code) or an HTTP_ERR_* with err
 * filled. */
int http_request(const char *host, unsigned port, const http_options *opts, const char *method, const char *target,
                 const http_body *body, double idle_timeout, size_t max_response, http_response *resp,
                 http_error *err);

#endif
