/* Who may talk to the daemon (docs/security.md): with --token-file, every
 * request but GET /healthz carries "Authorization: Bearer TOKEN"; with
 * --tls-cert and --tls-key, the connection is HTTPS (libmicrohttpd over
 * GnuTLS), so the token and the proofs are not sent in clear. Both are
 * required on an address that is not loopback (server.c). */
#include "../../include/cuzk.h"
#include "../../include/cuzk_serve.h"

#if CUZK_HAVE_SERVER

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../util/error.h"
#include "../util/file.h"
#include "../util/sha256.h"
#include "server_impl.h"

#define TOKEN_MIN 16
#define TOKEN_MAX 4096
#define PEM_MAX (1u << 20) /* a certificate chain or a key: a few KiB */

/* Reads a file, its failure's message prefixed with the flag naming it. */
static int read_flag_file(const char *path, const char *flag, size_t max, const char *what, char **out,
                          cuzk_error *err)
{
    size_t len;
    cuzk_error e = {0};
    int rc = read_file_bounded(path, max, what, out, &len, &e);
    return rc == CUZK_OK ? CUZK_OK : cuzk_error_set(err, rc, "%s %s", flag, e.message);
}

static int read_pem(const char *path, const char *flag, char **out, cuzk_error *err)
{
    int rc = read_flag_file(path, flag, PEM_MAX, "a PEM file", out, err);
    if (rc != CUZK_OK)
        return rc;
    if (!strstr(*out, "-----BEGIN ")) {
        free(*out);
        *out = NULL;
        return cuzk_error_set(err, CUZK_ERR_FORMAT, "%s %s: not a PEM file (no '-----BEGIN' line)", flag, path);
    }
    return CUZK_OK;
}

/* The token file's first line and its SHA-256 (what requests are
 * compared with). */
static int read_token(const char *path, char **token, unsigned char digest[32], cuzk_error *err)
{
    char *text;
    int rc = read_flag_file(path, "--token-file", TOKEN_MAX + 2, "a token file (one line)", &text, err);
    if (rc != CUZK_OK)
        return rc;
    size_t n = strcspn(text, "\r\n");
    text[n] = 0;
    int printable = 1;
    for (size_t i = 0; i < n; i++)
        printable &= text[i] > 0x20 && text[i] < 0x7f;
    if (n < TOKEN_MIN || n > TOKEN_MAX || !printable) {
        memset(text, 0, n);
        free(text);
        return cuzk_error_set(err, CUZK_ERR_FORMAT,
                              "--token-file %s: its first line must be the token, %d to %d printable characters "
                              "without blanks (e.g. head -c 32 /dev/urandom | base64 > FILE), found %zu%s",
                              path, TOKEN_MIN, TOKEN_MAX, n, printable ? "" : " with other bytes");
    }
    *token = text;
    sha256_state h;
    sha256_init(&h);
    sha256_update(&h, text, n);
    sha256_final(&h, digest);
    return CUZK_OK;
}

int auth_reload(server *s, int *reloaded, cuzk_error *err)
{
    *reloaded = 0;
    if (!s->cfg.token_file)
        return CUZK_OK;
    char *token;
    unsigned char digest[32];
    int rc = read_token(s->cfg.token_file, &token, digest, err);
    if (rc != CUZK_OK)
        return rc; /* the old token stays */
    pthread_mutex_lock(&s->auth_mu);
    char *old = s->token;
    s->token = token;
    memcpy(s->token_digest, digest, 32);
    pthread_mutex_unlock(&s->auth_mu);
    memset(old, 0, strlen(old));
    free(old);
    *reloaded = 1;
    return CUZK_OK;
}

int auth_init(server *s, cuzk_error *err)
{
    const cuzk_serve_config *c = &s->cfg;
    if (!c->tls_cert_file != !c->tls_key_file)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "--tls-cert and --tls-key go together: give both");
    if (c->tls_cert_file) {
        if (MHD_is_feature_supported(MHD_FEATURE_TLS) != MHD_YES)
            return cuzk_error_set(err, CUZK_ERR_UNSUPPORTED,
                                  "--tls-cert: this libmicrohttpd was built without TLS (GnuTLS)");
        int rc = read_pem(c->tls_cert_file, "--tls-cert", &s->tls_cert, err);
        if (rc == CUZK_OK)
            rc = read_pem(c->tls_key_file, "--tls-key", &s->tls_key, err);
        if (rc != CUZK_OK)
            return rc;
    }
    if (c->token_file)
        return read_token(c->token_file, &s->token, s->token_digest, err);
    return CUZK_OK;
}

void auth_free(server *s)
{
    if (s->token) {
        memset(s->token, 0, strlen(s->token));
        free(s->token);
    }
    free(s->tls_cert);
    if (s->tls_key) {
        memset(s->tls_key, 0, strlen(s->tls_key));
        free(s->tls_key);
    }
}

/* The digests compared in constant time: what is compared does not depend
 * on the token's length or on where a guess first differs. */
int auth_allowed(const server *s, struct MHD_Connection *c, const char *url, const char *method)
{
    if (!s->token)
        return 1;
    if (!strcmp(url, "/healthz") && (!strcmp(method, "GET") || !strcmp(method, "HEAD")))
        return 1;
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncasecmp(h, "Bearer ", 7))
        return 0;
    h += 7;
    while (*h == ' ')
        h++;
    unsigned char d[32];
    sha256_state st;
    sha256_init(&st);
    sha256_update(&st, h, strlen(h));
    sha256_final(&st, d);
    unsigned char want[32];
    pthread_mutex_lock((pthread_mutex_t *)&s->auth_mu); /* SIGHUP may swap it (auth_reload) */
    memcpy(want, s->token_digest, 32);
    pthread_mutex_unlock((pthread_mutex_t *)&s->auth_mu);
    unsigned char diff = 0;
    for (int i = 0; i < 32; i++)
        diff |= (unsigned char)(d[i] ^ want[i]);
    return diff == 0;
}

#endif
