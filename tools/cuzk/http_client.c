/* A small HTTP/1.1 client on POSIX sockets (see http_client.h). Written
 * for talking to `cuzk serve`, but it makes no assumption about the peer
 * beyond HTTP/1.1: it reads Content-Length, chunked and close-delimited
 * bodies, skips 1xx interim answers, and bounds every line, header count
 * and body size, because the peer is not trusted to be well-behaved. */
#include "http_client.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#if CUZK_HAVE_GNUTLS
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#endif

#define HTTP_MAX_LINE 8192    /* status line, a header, a chunk-size line */
#define HTTP_MAX_HEADERS 128  /* header lines per answer */
#define HTTP_MAX_INTERIM 8    /* 1xx answers before the real one */
#define HTTP_READ_CHUNK 65536 /* bytes asked of each recv */

struct http_conn {
    int fd;
    double idle; /* seconds */
    char *in;    /* received, not yet consumed: in[pos..len) */
    size_t len, pos, cap;
    unsigned long long received; /* bytes of the answer so far */
    char where[300]; /* "HOST:PORT", for messages */
#if CUZK_HAVE_GNUTLS
    gnutls_session_t tls; /* NULL: plain */
    gnutls_certificate_credentials_t cred;
#endif
};

static int set_err(http_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int set_err(http_error *err, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
    err->code = code;
    return -1;
}

void http_response_free(http_response *r)
{
    if (!r)
        return;
    free(r->body);
    r->body = NULL;
    r->len = 0;
}

int http_has_tls(void)
{
    return CUZK_HAVE_GNUTLS;
}

int http_parse_server(const char *text, char *host, size_t host_len, unsigned *port, int *tls, http_error *err)
{
    const char *s = text;
    *tls = 0;
    if (!strncasecmp(s, "https://", 8)) {
        if (!CUZK_HAVE_GNUTLS)
            return set_err(err, HTTP_ERR_ARGUMENT,
                           "server '%s': https needs a cuzk built with GnuTLS (libgnutls28-dev); this one speaks "
                           "plain HTTP only",
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
            return set_err(err, HTTP_ERR_ARGUMENT, "server '%s': expected [IPV6]:PORT", text);
        h = s + 1;
        hl = (size_t)(close - h);
        colon = close + 1;
    } else {
        colon = NULL;
        for (size_t i = 0; i < n; i++)
            if (s[i] == ':')
                colon = s + i;
        if (!colon)
            return set_err(err, HTTP_ERR_ARGUMENT, "server '%s': expected HOST:PORT (e.g. 127.0.0.1:8080), found no ':'",
                           text);
        hl = (size_t)(colon - s);
    }
    if (hl == 0 || hl >= host_len)
        return set_err(err, HTTP_ERR_ARGUMENT, "server '%s': expected a host of 1 to %zu characters before the ':'",
                       text, host_len - 1);
    for (size_t i = 0; i < hl; i++)
        if ((unsigned char)h[i] <= ' ' || h[i] == '/' || h[i] == '@' || h[i] == '[' || h[i] == ']')
            return set_err(err, HTTP_ERR_ARGUMENT, "server '%s': the host contains '%c'", text,
                           (unsigned char)h[i] > ' ' ? h[i] : '?');
    const char *p = colon + 1, *end = s + n;
    unsigned long v = 0;
    if (p == end || end - p > 5)
        return set_err(err, HTTP_ERR_ARGUMENT, "server '%s': expected a port in [1, 65535] after the ':'", text);
    for (const char *q = p; q < end; q++) {
        if (*q < '0' || *q > '9')
            return set_err(err, HTTP_ERR_ARGUMENT, "server '%s': expected a port in [1, 65535] after the ':'", text);
        v = v * 10 + (unsigned long)(*q - '0');
    }
    if (v < 1 || v > 65535)
        return set_err(err, HTTP_ERR_ARGUMENT, "server '%s': expected a port in [1, 65535], got %lu", text, v);
    memcpy(host, h, hl);
    host[hl] = 0;
    *port = (unsigned)v;
    return 0;
}

static int timeout_ms(double seconds)
{
    if (seconds <= 0)
        return 0;
    if (seconds > INT_MAX / 1000.0)
        return INT_MAX;
    return (int)(seconds * 1000.0 + 0.5);
}

/* Waits until fd is ready for `events`; 0, or -1 with err filled. */
static int wait_fd(http_conn *c, short events, const char *doing, http_error *err)
{
    struct pollfd p = {.fd = c->fd, .events = events};
    for (;;) {
        int r = poll(&p, 1, timeout_ms(c->idle));
        if (r > 0)
            return 0;
        if (r == 0)
            return set_err(err, HTTP_ERR_TIMEOUT, "%s: no progress %s for %.0f s", c->where, doing, c->idle);
        if (errno != EINTR)
            return set_err(err, HTTP_ERR_IO, "%s: poll: %s", c->where, strerror(errno));
    }
}

/* Connects to one address without blocking longer than the idle timeout. */
static int connect_one(http_conn *c, const struct addrinfo *ai, int *err_no)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) {
        *err_no = errno;
        return -1;
    }
    /* non-blocking throughout, so that every wait goes through poll with
     * the idle timeout */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
        *err_no = errno;
        close(fd);
        return -1;
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
        if (errno != EINPROGRESS && errno != EINTR) {
            *err_no = errno;
            close(fd);
            return -1;
        }
        struct pollfd p = {.fd = fd, .events = POLLOUT};
        int r;
        while ((r = poll(&p, 1, timeout_ms(c->idle))) < 0 && errno == EINTR)
            ;
        if (r <= 0) {
            *err_no = r == 0 ? ETIMEDOUT : errno;
            close(fd);
            return -1;
        }
        int so = 0;
        socklen_t sl = sizeof(so);
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so, &sl) != 0 || so != 0) {
            *err_no = so ? so : errno;
            close(fd);
            return -1;
        }
    }
    c->fd = fd;
    return 0;
}

static int conn_open(http_conn *c, const char *host, unsigned port, http_error *err)
{
    char ps[8];
    snprintf(ps, sizeof(ps), "%u", port);
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_NUMERICSERV;
    int g = getaddrinfo(host, ps, &hints, &res);
    if (g != 0)
        return set_err(err, HTTP_ERR_RESOLVE, "%s: cannot resolve the host: %s", c->where, gai_strerror(g));
    int err_no = 0, refused = 0, tried = 0;
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        tried++;
        if (connect_one(c, ai, &err_no) == 0) {
            freeaddrinfo(res);
            return 0;
        }
        refused += err_no == ECONNREFUSED;
    }
    freeaddrinfo(res);
    /* "refused" only when every address refused: then nothing listens */
    if (tried && refused == tried)
        return set_err(err, HTTP_ERR_REFUSED, "%s: connection refused", c->where);
    if (err_no == ETIMEDOUT)
        return set_err(err, HTTP_ERR_TIMEOUT, "%s: connecting timed out after %.0f s", c->where, c->idle);
    return set_err(err, HTTP_ERR_CONNECT, "%s: cannot connect: %s", c->where, strerror(err_no));
}

#if CUZK_HAVE_GNUTLS
/* GnuTLS's results as send/recv's: -1 with errno EAGAIN or EINTR to retry
 * (after waiting in the direction GnuTLS needs), EIO with *tls_err set
 * otherwise. A peer that closes without TLS's close_notify ends the answer
 * as a plain close would (a close-delimited body is not used by the daemon,
 * and every other body has its length). */
static ssize_t tls_result(http_conn *c, ssize_t r, short *dir, int *tls_err)
{
    if (r >= 0)
        return r;
    if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
        *dir = gnutls_record_get_direction(c->tls) ? POLLOUT : POLLIN;
        errno = r == GNUTLS_E_AGAIN ? EAGAIN : EINTR;
        return -1;
    }
    if (r == GNUTLS_E_PREMATURE_TERMINATION)
        return 0;
    *tls_err = (int)r;
    errno = EIO;
    return -1;
}
#endif

/* One send or recv, plain or through TLS; *dir: what to wait for on EAGAIN. */
static ssize_t conn_send_some(http_conn *c, const void *p, size_t n, short *dir, int *tls_err)
{
    *dir = POLLOUT;
#if CUZK_HAVE_GNUTLS
    if (c->tls)
        return tls_result(c, gnutls_record_send(c->tls, p, n), dir, tls_err);
#endif
    (void)tls_err;
    return send(c->fd, p, n, MSG_NOSIGNAL);
}

static ssize_t conn_recv_some(http_conn *c, void *p, size_t n, short *dir, int *tls_err)
{
    *dir = POLLIN;
#if CUZK_HAVE_GNUTLS
    if (c->tls)
        return tls_result(c, gnutls_record_recv(c->tls, p, n), dir, tls_err);
#endif
    (void)tls_err;
    return recv(c->fd, p, n, 0);
}

static const char *io_error(int tls_err)
{
#if CUZK_HAVE_GNUTLS
    if (tls_err)
        return gnutls_strerror(tls_err);
#endif
    (void)tls_err;
    return strerror(errno);
}

int http_send(http_conn *c, const void *data, size_t n, http_error *err)
{
    const char *p = data;
    while (n) {
        short dir;
        int tls_err = 0;
        ssize_t w = conn_send_some(c, p, n, &dir, &tls_err);
        if (w >= 0) {
            p += w;
            n -= (size_t)w;
            continue;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(c, dir, "sending the request", err) != 0)
                return -1;
            continue;
        }
        return set_err(err, HTTP_ERR_IO, "%s: the connection broke while sending the request: %s", c->where,
                       io_error(tls_err));
    }
    return 0;
}

/* Receives more bytes into c->in. 1: got some; 0: the peer closed; -1:
 * error (err filled). */
static int conn_fill(http_conn *c, http_error *err)
{
    if (c->pos == c->len)
        c->pos = c->len = 0;
    else if (c->pos > 0 && c->cap - c->len < HTTP_READ_CHUNK) {
        memmove(c->in, c->in + c->pos, c->len - c->pos);
        c->len -= c->pos;
        c->pos = 0;
    }
    if (c->cap - c->len < HTTP_READ_CHUNK) {
        /* never more than a line plus one read is kept unconsumed */
        size_t cap = c->len + HTTP_READ_CHUNK;
        char *b = realloc(c->in, cap);
        if (!b)
            return set_err(err, HTTP_ERR_NO_MEMORY, "out of memory");
        c->in = b;
        c->cap = cap;
    }
    for (;;) {
        short dir;
        int tls_err = 0;
        ssize_t r = conn_recv_some(c, c->in + c->len, c->cap - c->len, &dir, &tls_err);
        if (r > 0) {
            c->len += (size_t)r;
            c->received += (unsigned long long)r;
            return 1;
        }
        if (r == 0)
            return 0;
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (wait_fd(c, dir, "waiting for the answer", err) != 0)
                return -1;
            continue;
        }
        return set_err(err, HTTP_ERR_IO, "%s: the connection broke while reading the answer: %s", c->where,
                       io_error(tls_err));
    }
}

/* The next line without its CR LF, NUL-terminated in place; valid until the
 * next read. */
static int read_line(http_conn *c, const char *what, char **line, http_error *err)
{
    size_t scanned = 0;
    for (;;) {
        char *start = c->in + c->pos;
        size_t avail = c->len - c->pos;
        char *nl = avail > scanned ? memchr(start + scanned, '\n', avail - scanned) : NULL;
        if (nl) {
            size_t n = (size_t)(nl - start);
            if (n > HTTP_MAX_LINE)
                break;
            if (n && start[n - 1] == '\r')
                n--;
            start[n] = 0;
            c->pos += (size_t)(nl - start) + 1;
            *line = start;
            return 0;
        }
        if (avail > HTTP_MAX_LINE)
            break;
        scanned = avail;
        int r = conn_fill(c, err);
        if (r < 0)
            return -1;
        if (r == 0 && !c->received) /* e.g. the daemon was stopped or killed */
            return set_err(err, HTTP_ERR_IO, "%s: the connection closed before an answer", c->where);
        if (r == 0)
            return set_err(err, HTTP_ERR_PROTOCOL, "%s: the connection closed in the middle of the %s", c->where,
                           what);
    }
    return set_err(err, HTTP_ERR_PROTOCOL, "%s: the answer has a line longer than %d bytes (in the %s)", c->where,
                   HTTP_MAX_LINE, what);
}

typedef struct outbuf {
    char *p;
    size_t len, cap, max;
} outbuf;

static int out_reserve(outbuf *o, size_t more, http_conn *c, http_error *err)
{
    if (more > o->max - o->len)
        return set_err(err, HTTP_ERR_TOO_LARGE, "%s: the answer's body is larger than %zu bytes", c->where, o->max);
    if (o->len + more + 1 <= o->cap)
        return 0;
    size_t cap = o->cap ? o->cap : 4096;
    while (cap < o->len + more + 1)
        cap = cap > SIZE_MAX / 2 ? o->len + more + 1 : cap * 2;
    char *b = realloc(o->p, cap);
    if (!b)
        return set_err(err, HTTP_ERR_NO_MEMORY, "out of memory for a %zu-byte answer", o->len + more);
    o->p = b;
    o->cap = cap;
    return 0;
}

/* Moves exactly n body bytes into o. */
static int read_exact(http_conn *c, outbuf *o, size_t n, http_error *err)
{
    if (out_reserve(o, n, c, err) != 0)
        return -1;
    while (n) {
        if (c->pos == c->len) {
            int r = conn_fill(c, err);
            if (r < 0)
                return -1;
            if (r == 0)
                return set_err(err, HTTP_ERR_PROTOCOL, "%s: the connection closed with %zu bytes of the body missing",
                               c->where, n);
        }
        size_t k = c->len - c->pos < n ? c->len - c->pos : n;
        memcpy(o->p + o->len, c->in + c->pos, k);
        o->len += k;
        c->pos += k;
        n -= k;
    }
    return 0;
}

/* A decimal number of at most 18 digits (no sign, no spaces); -1 if not. */
static long long parse_decimal(const char *s)
{
    long long v = 0;
    size_t n = 0;
    for (; s[n]; n++) {
        if (s[n] < '0' || s[n] > '9' || n >= 18)
            return -1;
        v = v * 10 + (s[n] - '0');
    }
    return n ? v : -1;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
    return s;
}

static int read_response(http_conn *c, size_t max_response, http_response *resp, http_error *err)
{
    long long content_length = -1;
    int chunked = 0;
    for (int interim = 0;; interim++) {
        char *line;
        if (read_line(c, "status line", &line, err) != 0)
            return -1;
        /* "HTTP/1.x SSS reason" */
        if (strncmp(line, "HTTP/1.", 7) != 0 || line[7] < '0' || line[7] > '9' || line[8] != ' ' ||
            line[9] < '1' || line[9] > '5' || line[10] < '0' || line[10] > '9' || line[11] < '0' ||
            line[11] > '9' || (line[12] != ' ' && line[12] != 0))
            return set_err(err, HTTP_ERR_PROTOCOL, "%s: expected an HTTP/1.x status line, got '%.60s'", c->where,
                           line);
        resp->status = (line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0');
        resp->retry_after = -1;
        content_length = -1;
        chunked = 0;
        for (int h = 0;; h++) {
            if (h > HTTP_MAX_HEADERS)
                return set_err(err, HTTP_ERR_PROTOCOL, "%s: more than %d header lines", c->where, HTTP_MAX_HEADERS);
            if (read_line(c, "headers", &line, err) != 0)
                return -1;
            if (!*line)
                break;
            char *colon = strchr(line, ':');
            if (!colon || line[0] == ' ' || line[0] == '\t')
                return set_err(err, HTTP_ERR_PROTOCOL, "%s: malformed header line '%.60s'", c->where, line);
            *colon = 0;
            char *v = trim(colon + 1);
            if (!strcasecmp(line, "Content-Length")) {
                long long n = parse_decimal(v);
                if (n < 0 || (content_length >= 0 && n != content_length))
                    return set_err(err, HTTP_ERR_PROTOCOL, "%s: bad Content-Length '%.30s'", c->where, v);
                content_length = n;
            } else if (!strcasecmp(line, "Transfer-Encoding")) {
                /* the last coding applies; only chunked (or identity) is
                 * understood */
                const char *last = strrchr(v, ',');
                last = last ? last + 1 : v;
                while (*last == ' ')
                    last++;
                if (!strcasecmp(last, "chunked"))
                    chunked = 1;
                else if (strcasecmp(last, "identity") != 0)
                    return set_err(err, HTTP_ERR_PROTOCOL, "%s: unsupported Transfer-Encoding '%.40s'", c->where, v);
            } else if (!strcasecmp(line, "Retry-After")) {
                long long n = parse_decimal(v); /* an HTTP date counts as absent */
                resp->retry_after = n < 0 ? -1 : n > 86400 ? 86400 : (int)n;
            }
        }
        if (resp->status >= 200)
            break;
        if (interim >= HTTP_MAX_INTERIM)
            return set_err(err, HTTP_ERR_PROTOCOL, "%s: more than %d interim (1xx) answers", c->where,
                           HTTP_MAX_INTERIM);
    }
    outbuf o = {.max = max_response};
    int rc = 0;
    if (resp->status == 204 || resp->status == 304) {
        /* no body by definition */
    } else if (chunked) {
        for (;;) {
            char *line;
            if ((rc = read_line(c, "chunk size", &line, err)) != 0)
                break;
            char *semi = strchr(line, ';'); /* chunk extensions are ignored */
            if (semi)
                *semi = 0;
            char *hex = trim(line);
            unsigned long long n = 0;
            size_t digits = 0;
            for (; hex[digits]; digits++) {
                char ch = hex[digits];
                int d = ch >= '0' && ch <= '9' ? ch - '0' : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                                                          : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10 : -1;
                if (d < 0 || digits >= 15) {
                    digits = 0;
                    break;
                }
                n = n * 16 + (unsigned)d;
            }
            if (!digits) {
                rc = set_err(err, HTTP_ERR_PROTOCOL, "%s: bad chunk size line '%.40s'", c->where, line);
                break;
            }
            if (n == 0) { /* the last chunk, then trailers up to an empty line */
                for (int t = 0;; t++) {
                    if (t > HTTP_MAX_HEADERS) {
                        rc = set_err(err, HTTP_ERR_PROTOCOL, "%s: more than %d trailer lines", c->where,
                                     HTTP_MAX_HEADERS);
                        break;
                    }
                    if ((rc = read_line(c, "trailers", &line, err)) != 0 || !*line)
                        break;
                }
                break;
            }
            if (n > max_response) {
                rc = set_err(err, HTTP_ERR_TOO_LARGE, "%s: the answer's body is larger than %zu bytes", c->where,
                             max_response);
                break;
            }
            if ((rc = read_exact(c, &o, (size_t)n, err)) != 0)
                break;
            if ((rc = read_line(c, "chunk end", &line, err)) != 0)
                break;
            if (*line) {
                rc = set_err(err, HTTP_ERR_PROTOCOL, "%s: a chunk is longer than its size line says", c->where);
                break;
            }
        }
    } else if (content_length >= 0) {
        if ((unsigned long long)content_length > max_response)
            rc = set_err(err, HTTP_ERR_TOO_LARGE, "%s: the answer's body (%lld bytes) is larger than %zu bytes",
                         c->where, content_length, max_response);
        else
            rc = read_exact(c, &o, (size_t)content_length, err);
    } else { /* delimited by the end of the connection */
        for (;;) {
            size_t avail = c->len - c->pos;
            if (avail) {
                if ((rc = read_exact(c, &o, avail, err)) != 0)
                    break;
            }
            int r = conn_fill(c, err);
            if (r <= 0) {
                rc = r;
                break;
            }
        }
    }
    if (rc == 0)
        rc = out_reserve(&o, 0, c, err);
    if (rc != 0) {
        free(o.p);
        return -1;
    }
    o.p[o.len] = 0;
    resp->body = o.p;
    resp->len = o.len;
    return 0;
}

#if CUZK_HAVE_GNUTLS
/* The TLS handshake over the connected socket: the peer's certificate
 * must chain to ca_file's (or the system's) and name host. */
static int tls_start(http_conn *c, const char *host, const char *ca_file, http_error *err)
{
    int r = gnutls_certificate_allocate_credentials(&c->cred);
    if (r < 0)
        return set_err(err, HTTP_ERR_NO_MEMORY, "TLS: %s", gnutls_strerror(r));
    r = ca_file ? gnutls_certificate_set_x509_trust_file(c->cred, ca_file, GNUTLS_X509_FMT_PEM)
                : gnutls_certificate_set_x509_system_trust(c->cred);
    if (r <= 0)
        return set_err(err, HTTP_ERR_TLS, "%s: %s", ca_file ? ca_file : "the system's CA certificates",
                       r < 0 ? gnutls_strerror(r) : "no certificate found in it");
    if ((r = gnutls_init(&c->tls, GNUTLS_CLIENT | GNUTLS_NONBLOCK)) < 0) {
        c->tls = NULL;
        return set_err(err, HTTP_ERR_NO_MEMORY, "TLS: %s", gnutls_strerror(r));
    }
    int numeric = strchr(host, ':') || strspn(host, "0123456789.") == strlen(host);
    if ((r = gnutls_set_default_priority(c->tls)) < 0 ||
        (r = gnutls_credentials_set(c->tls, GNUTLS_CRD_CERTIFICATE, c->cred)) < 0 ||
        (!numeric && (r = gnutls_server_name_set(c->tls, GNUTLS_NAME_DNS, host, strlen(host))) < 0))
        return set_err(err, HTTP_ERR_TLS, "TLS: %s", gnutls_strerror(r));
    gnutls_session_set_verify_cert(c->tls, host, 0);
    gnutls_transport_set_int(c->tls, c->fd);
    for (;;) {
        r = gnutls_handshake(c->tls);
        if (r == GNUTLS_E_SUCCESS)
            return 0;
        if (r == GNUTLS_E_AGAIN || r == GNUTLS_E_INTERRUPTED) {
            if (wait_fd(c, gnutls_record_get_direction(c->tls) ? POLLOUT : POLLIN, "in the TLS handshake", err) != 0)
                return -1;
            continue;
        }
        if (r == GNUTLS_E_CERTIFICATE_VERIFICATION_ERROR) {
            gnutls_datum_t why = {0};
            unsigned status = gnutls_session_get_verify_cert_status(c->tls);
            gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &why, 0);
            set_err(err, HTTP_ERR_TLS, "%s: the daemon's certificate is not trusted: %s (--ca-file names the CA to "
                                      "trust)",
                    c->where, why.data ? (const char *)why.data : "verification failed");
            gnutls_free(why.data);
            return -1;
        }
        if (gnutls_error_is_fatal(r))
            return set_err(err, HTTP_ERR_TLS, "%s: the TLS handshake failed: %s (does the daemon serve https?)",
                           c->where, gnutls_strerror(r));
    }
}
#endif

static void conn_close(http_conn *c)
{
#if CUZK_HAVE_GNUTLS
    if (c->tls)
        gnutls_deinit(c->tls);
    if (c->cred)
        gnutls_certificate_free_credentials(c->cred);
#endif
    if (c->fd >= 0)
        close(c->fd);
    free(c->in);
}

static int valid_token(const char *s, int allow_slash)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if ((unsigned char)*s <= ' ' || (unsigned char)*s >= 0x7f || (!allow_slash && *s == '/'))
            return 0;
    return 1;
}

int http_request(const char *host, unsigned port, const http_options *opts, const char *method, const char *target,
                 const http_body *body, double idle_timeout, size_t max_response, http_response *resp,
                 http_error *err)
{
    memset(resp, 0, sizeof(*resp));
    resp->retry_after = -1;
    err->code = HTTP_OK;
    err->message[0] = 0;
    http_conn c = {.fd = -1, .idle = idle_timeout > 0 ? idle_timeout : 1};
    int v6 = strchr(host, ':') != NULL;
    snprintf(c.where, sizeof(c.where), "%s%s%s:%u", v6 ? "[" : "", host, v6 ? "]" : "", port);
    if (!valid_token(method, 0) || !valid_token(target, 1) || target[0] != '/' || !valid_token(host, 1)) {
        set_err(err, HTTP_ERR_ARGUMENT, "%s: invalid request line '%.20s %.60s'", c.where, method, target);
        return err->code;
    }
    char head[1024];
    int hn = snprintf(head, sizeof(head),
                      "%s %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: cuzk\r\nAccept: application/json\r\n"
                      "Connection: close\r\n",
                      method, target, c.where);
    if (body && hn > 0 && (size_t)hn < sizeof(head))
        hn += snprintf(head + hn, sizeof(head) - (size_t)hn, "Content-Type: %s\r\nContent-Length: %llu\r\n",
                       body->content_type ? body->content_type : "application/octet-stream", body->length);
    if (opts && opts->token && (!valid_token(opts->token, 1) || strlen(opts->token) > 4096)) {
        set_err(err, HTTP_ERR_ARGUMENT, "the token is not 1 to 4096 printable characters without blanks");
        return err->code;
    }
    /* the token has its own buffer: it may be long, and is wiped after */
    size_t auth_len = opts && opts->token ? strlen(opts->token) + 32 : 0;
    char *auth = auth_len ? malloc(auth_len) : NULL;
    if (auth_len && !auth) {
        set_err(err, HTTP_ERR_NO_MEMORY, "out of memory");
        return err->code;
    }
    if (auth)
        snprintf(auth, auth_len, "Authorization: Bearer %s\r\n", opts->token);
    if (hn > 0 && (size_t)hn < sizeof(head))
        hn += snprintf(head + hn, sizeof(head) - (size_t)hn, "\r\n");
    if (hn <= 0 || (size_t)hn >= sizeof(head)) {
        free(auth);
        set_err(err, HTTP_ERR_ARGUMENT, "%s: request header too long", c.where);
        return err->code;
    }
    int rc = conn_open(&c, host, port, err);
#if CUZK_HAVE_GNUTLS
    if (rc == 0 && opts && opts->tls)
        rc = tls_start(&c, host, opts->ca_file, err);
#else
    if (rc == 0 && opts && opts->tls)
        rc = set_err(err, HTTP_ERR_ARGUMENT, "%s: https needs a cuzk built with GnuTLS", c.where);
#endif
    if (rc != 0) {
        free(auth);
        conn_close(&c);
        return err->code;
    }
    /* one send: the head without its blank line, the token, the blank line */
    size_t all_len = (size_t)hn + (auth ? strlen(auth) : 0);
    char *all = malloc(all_len + 1);
    if (!all)
        rc = set_err(err, HTTP_ERR_NO_MEMORY, "out of memory");
    else {
        snprintf(all, all_len + 1, "%.*s%s\r\n", hn - 2, head, auth ? auth : "");
        rc = http_send(&c, all, all_len, err);
        memset(all, 0, all_len);
        free(all);
    }
    if (auth) {
        memset(auth, 0, auth_len);
        free(auth);
    }
    if (rc == 0 && body && body->produce)
        rc = body->produce(body->ctx, &c, err);
    if (rc != 0 && err->code != HTTP_ERR_IO) {
        conn_close(&c);
        return err->code;
    }
    /* after a broken send the peer may still have answered (a 413 for a
     * body too large, say): that answer is more useful than EPIPE */
    http_error send_err = *err;
    if (read_response(&c, max_response, resp, err) != 0) {
        if (rc != 0)
            *err = send_err;
        conn_close(&c);
        return err->code;
    }
    conn_close(&c);
    return HTTP_OK;
}
