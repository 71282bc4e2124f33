/* The HTTP client of `cuzk submit` talking to `cuzk serve`, over libcurl:
 * one request per connection (Connection: close), a request body streamed
 * from a producer, https (the peer's certificate checked against the
 * system's or a given CA and the host name), a bearer token, and the
 * proxies libcurl reads from the environment. Every wait has a timeout and
 * the answer's size a bound; failures come sorted into the classes below,
 * which submit's retries tell apart. */
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

/* Fills err (code and message); returns -1, the failure of the functions
 * below. */
int http_error_set(http_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* A request body of exactly `length` bytes, pulled from read() while it
 * is sent (so that a large body, e.g. a base64 witness, is streamed from
 * its file instead of held in memory). open (may be NULL) starts each
 * exchange's copy (a retry sends the body again), close (may be NULL)
 * ends it; read fills up to n bytes and returns how many (> 0 until the
 * length is reached), or -1 after filling err (HTTP_ERR_BODY: the
 * message is its own). */
typedef struct http_body {
    unsigned long long length;
    const char *content_type;
    int (*open)(void *ctx, http_error *err);
    long (*read)(void *ctx, char *buf, size_t n, http_error *err);
    void (*close)(void *ctx);
    void *ctx;
} http_body;

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

/* Whether https is built in (libcurl with TLS). */
int http_has_tls(void);

/* How to reach the peer beyond its address (NULL: plain HTTP, no token). */
typedef struct http_options {
    int tls;             /* https */
    const char *ca_file; /* PEM certificates the peer's must chain to; NULL: the system's */
    const char *token;   /* sent as "Authorization: Bearer TOKEN"; NULL: none */
} http_options;

/* One exchange: connects to host:port, sends "METHOD TARGET HTTP/1.1" with
 * the body (NULL: none), and reads the answer into *resp. idle_timeout
 * (seconds, > 0) bounds connecting and any stretch without progress
 * (whole seconds, rounded up, once connected), not the whole exchange;
 * max_response bounds the body.
 * Returns HTTP_OK (whatever the status code) or an HTTP_ERR_* with err
 * filled. */
int http_request(const char *host, unsigned port, const http_options *opts, const char *method, const char *target,
                 const http_body *body, double idle_timeout, size_t max_response, http_response *resp,
                 http_error *err);

#endif
