#include "options.h"

#include <stdio.h>
#include <string.h>

#include "../util/error.h"
#include "../util/parse.h"

#define NODE_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

static int check_node(const char *label, const char *v, cuzk_error *err)
{
    size_t len = strlen(v);
    if (len < 1 || len > 63 || strspn(v, NODE_CHARS) != len)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s expects a node name of 1 to 63 letters, digits, '.', '_' or '-', got '%.80s'", label,
                              v);
    return CUZK_OK;
}

/* a URI, or libpq's key = value form */
static int check_queue(const char *label, const char *v, cuzk_error *err)
{
    if (strncmp(v, "postgresql://", 13) && strncmp(v, "postgres://", 11) && !strchr(v, '='))
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "%s expects a PostgreSQL URI (postgresql://USER@HOST:PORT/DB) or a libpq connection "
                              "string (host=... dbname=...), got '%.40s...'",
                              label, v);
    return CUZK_OK;
}

#define F(FIELD) offsetof(cuzk_serve_config, FIELD)
#define NO SERVE_NO_FIELD

/* In the order of `cuzk serve --help`. */
const serve_option serve_options[] = {
    {"listen", "HOST:PORT", SERVE_OPT_TEXT, 0, 0, 0, "127.0.0.1:8080", 0, 0, NO,
     "where to listen: an IPv4 address and a port (0: a free one, printed). Any\n"
     "address but a loopback one needs --token-file and --tls-cert/--tls-key\n"
     "(docs/security.md)", NULL},
    {"state-dir", "DIR", SERVE_OPT_TEXT, 0, 0, 0, NULL, 0, 0, F(state_dir),
     "the job journal (created if missing); jobs accepted before a crash run\n"
     "again after a restart on the same DIR. Required", NULL},
    {"key-dir", "DIR", SERVE_OPT_TEXT, 0, 0, 0, "none (clients name keys by preloaded id only)", 0, 1, NO,
     "a directory whose keys clients may name (key_path, POST /v1/keys);\n"
     "repeatable", NULL},
    {"witness-dir", "DIR", SERVE_OPT_TEXT, 0, 0, 0, "none (clients upload witnesses, \"witness\": base64)", 0, 1,
     NO, "a directory whose .wtns files clients may name (witness_path); repeatable", NULL},
    {"allow-any-path", NULL, SERVE_OPT_FLAG, 0, 1, 0, "no", 0, 0, F(allow_any_path),
     "clients may name any file the daemon can read (a trusted network only)", NULL},
    {"key", "ID=PATH", SERVE_OPT_TEXT, 0, 0, 0, "none", 0, 1, NO,
     "load the key at PATH under ID at the start (clients name it by \"key_id\";\n"
     "PATH need not be under a --key-dir); repeatable", NULL},
    {"key-circuit", "ID=R1CS", SERVE_OPT_TEXT, 0, 0, 0, "none (a .zkey)", 0, 1, NO,
     "the --key ID is a bellperson .params key (Filecoin's) of this circuit,\n"
     "which such a key does not hold; repeatable", NULL},
    {"token-file", "FILE", SERVE_OPT_TEXT, 0, 0, 0, "none (no token)", 0, 0, F(token_file),
     "require 'Authorization: Bearer TOKEN' on every request but /healthz,\n"
     "TOKEN being FILE's first line (16 to 4096 printable characters)", NULL},
    {"tls-cert", "FILE", SERVE_OPT_TEXT, 0, 0, 0, "none (plain HTTP)", 0, 0, F(tls_cert_file),
     "serve HTTPS with this PEM certificate (chain); needs --tls-key", NULL},
    {"tls-key", "FILE", SERVE_OPT_TEXT, 0, 0, 0, "none", 0, 0, F(tls_key_file), "the PEM private key of --tls-cert", NULL},
    {"max-body", "B", SERVE_OPT_BYTES, 1024, 1ll << 40, 256ll << 20, NULL, 0, 0, F(max_body),
     "largest request body; an uploaded witness is 4/3 of its file in base64", NULL},
    {"max-body-total", "B", SERVE_OPT_BYTES, 1024, 1ll << 44, 0, "4 x --max-body, at least 1G", 0, 0,
     F(max_body_total),
     "request bodies buffered at once, at least --max-body; beyond it a POST is\n"
     "refused with 503", NULL},
    {"result-ttl", "S", SERVE_OPT_SECONDS, 1, 86400 * 30, 3600, NULL, 0, 0, F(result_ttl),
     "seconds results are kept", NULL},
    {"max-connections", "N", SERVE_OPT_UINT, 16, 1 << 20, 4096, NULL, 0, 0, F(max_connections),
     "connections open at once (long polls count)", NULL},
    {"max-connections-per-ip", "N", SERVE_OPT_UINT, 1, 1 << 20, 0, "a quarter of --max-connections", 0, 0,
     F(max_connections_per_ip), "connections from one address, at most --max-connections", NULL},
    {"idle-timeout", "S", SERVE_OPT_SECONDS, 1, 3600, 30, NULL, 0, 0, F(idle_timeout),
     "seconds a connection may stay silent before it is closed (a long poll\n"
     "waiting for its job is not idle)", NULL},
    {"header-timeout", "S", SERVE_OPT_SECONDS, 1, 3600, 10, NULL, 0, 0, F(header_timeout),
     "seconds a request's headers may take from a connection's start (the next\n"
     "request on a kept-alive one: --idle-timeout); its body must then come at\n"
     "256 KiB/s at least. Past it the connection is closed however much it\n"
     "trickles; near --max-connections the oldest connections still sending\n"
     "headers are closed first", NULL},
    {"http-threads", "N", SERVE_OPT_UINT, 1, 256, 8, NULL, 0, 0, F(http_threads), "threads serving the connections", NULL},
    {"shutdown-grace", "S", SERVE_OPT_SECONDS, 0, 86400, 30, NULL, 1, 0, F(shutdown_grace),
     "seconds running proofs get to finish at SIGTERM (0: none); then they stay\n"
     "journaled and run after the next start", NULL},
    {"queue", "URI", SERVE_OPT_TEXT, 0, 0, 0, "the local journal in --state-dir", 0, 0, F(queue),
     "keep the jobs in PostgreSQL (postgresql://USER@HOST:PORT/DB or any libpq\n"
     "connection string), shared by every daemon pointed at it: each serves the\n"
     "same API and proves what it claims (docs/cluster.md)", check_queue},
    {"node", "NAME", SERVE_OPT_TEXT, 0, 0, 0, "the host name", 0, 0, F(node),
     "this daemon's name among the queue's nodes: 1 to 63 letters, digits, '.',\n"
     "'_' or '-'", check_node},
    {"lease", "S", SERVE_OPT_SECONDS, 1, 3600, 30, NULL, 0, 0, F(lease),
     "seconds a claimed job stays this node's without a renewal: after a node\n"
     "dies, its jobs go to others within it", NULL},
    {"max-attempts", "N", SERVE_OPT_UINT, 1, 1000, 3, NULL, 0, 0, F(max_attempts),
     "claims before a job fails with every attempt's reason", NULL},
    {"queue-max-witness", "B", SERVE_OPT_BYTES, 1024, 1ll << 30, 64ll << 20, NULL, 0, 0, F(queue_max_witness),
     "most bytes of uploaded witnesses a job stores in the queue; larger\n"
     "witnesses go by path on storage the nodes share", NULL},
    {"queue-max-queued", "N", SERVE_OPT_UINT, 1, 10000000, 100000, NULL, 0, 0, F(queue_max_queued),
     "jobs waiting in the queue (not yet claimed by any node) beyond which a\n"
     "POST is refused with 429", NULL},
};
const size_t serve_option_count = sizeof(serve_options) / sizeof(serve_options[0]);

const serve_option *serve_option_find(const char *name)
{
    for (size_t i = 0; name && i < serve_option_count; i++)
        if (!strcmp(serve_options[i].name, name))
            return &serve_options[i];
    return NULL;
}

static void *field_of(cuzk_serve_config *cfg, const serve_option *o)
{
    return (char *)cfg + o->offset;
}

static const void *field_of_const(const cuzk_serve_config *cfg, const serve_option *o)
{
    return (const char *)cfg + o->offset;
}

int serve_option_set(cuzk_serve_config *cfg, const serve_option *o, const char *label, const char *text,
                     cuzk_error *err)
{
    if (o->offset == SERVE_NO_FIELD || o->type == SERVE_OPT_TEXT)
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "%s: set by the command, not the table", label);
    void *f = field_of(cfg, o);
    long long v;
    unsigned long long u;
    int rc;
    switch (o->type) {
    case SERVE_OPT_FLAG:
        if (!strcmp(text, "yes") || !strcmp(text, "true") || !strcmp(text, "1"))
            *(int *)f = 1;
        else if (!strcmp(text, "no") || !strcmp(text, "false") || !strcmp(text, "0"))
            *(int *)f = 0;
        else
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "%s expects yes or no, got '%.64s'", label, text);
        return CUZK_OK;
    case SERVE_OPT_BYTES:
        if ((rc = parse_bytes_text(label, text, (unsigned long long)o->lo, (unsigned long long)o->hi, &u, err)) !=
            CUZK_OK)
            return rc;
        *(unsigned long long *)f = u;
        return CUZK_OK;
    case SERVE_OPT_SECONDS:
        if ((rc = parse_int_text(label, text, o->lo, o->hi, &v, err)) != CUZK_OK)
            return rc;
        *(double *)f = v == 0 && o->zero_is_none ? -1 : (double)v; /* cuzk_serve_config: 0 is the default */
        return CUZK_OK;
    case SERVE_OPT_UINT:
        if ((rc = parse_int_text(label, text, o->lo, o->hi, &v, err)) != CUZK_OK)
            return rc;
        *(unsigned *)f = (unsigned)v;
        return CUZK_OK;
    default:
        return cuzk_error_set(err, CUZK_ERR_INTERNAL, "%s: option type %d", label, (int)o->type);
    }
}

/* The field of a numeric option, when 0, to v. */
static void set_default(cuzk_serve_config *cfg, const serve_option *o, long long v)
{
    void *f = field_of(cfg, o);
    if (o->type == SERVE_OPT_BYTES && !*(unsigned long long *)f)
        *(unsigned long long *)f = (unsigned long long)v;
    else if (o->type == SERVE_OPT_UINT && !*(unsigned *)f)
        *(unsigned *)f = (unsigned)v;
    else if (o->type == SERVE_OPT_SECONDS && *(double *)f == 0)
        *(double *)f = (double)v;
}

int serve_options_resolve(cuzk_serve_config *cfg, cuzk_error *err)
{
    for (size_t i = 0; i < serve_option_count; i++)
        if (serve_options[i].dflt)
            set_default(cfg, &serve_options[i], serve_options[i].dflt);
    /* the defaults that follow other options */
    set_default(cfg, serve_option_find("max-connections-per-ip"), cfg->max_connections / 4 ? cfg->max_connections / 4 : 1);
    unsigned long long total = 4 * cfg->max_body;
    set_default(cfg, serve_option_find("max-body-total"), (long long)(total < (1ull << 30) ? 1ull << 30 : total));
    for (size_t i = 0; i < serve_option_count; i++) {
        const serve_option *o = &serve_options[i];
        if (o->offset == SERVE_NO_FIELD || o->type == SERVE_OPT_TEXT || o->type == SERVE_OPT_FLAG)
            continue;
        const void *f = field_of_const(cfg, o);
        double v = o->type == SERVE_OPT_BYTES  ? (double)*(const unsigned long long *)f
                   : o->type == SERVE_OPT_UINT ? (double)*(const unsigned *)f
                                               : *(const double *)f;
        if (o->zero_is_none && v < 0)
            continue;
        if (v < (double)o->lo || v > (double)o->hi)
            return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT, "--%s expects %lld to %lld, got %.0f", o->name, o->lo,
                                  o->hi, v);
    }
    if (cfg->max_body_total < cfg->max_body)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "--max-body-total (%llu bytes) is below --max-body (%llu): no body could be taken",
                              cfg->max_body_total, cfg->max_body);
    if (cfg->max_connections_per_ip > cfg->max_connections)
        return cuzk_error_set(err, CUZK_ERR_INVALID_ARGUMENT,
                              "--max-connections-per-ip (%u) is above --max-connections (%u)",
                              cfg->max_connections_per_ip, cfg->max_connections);
    for (size_t i = 0; i < serve_option_count; i++) { /* the texts of a form the table knows */
        const serve_option *o = &serve_options[i];
        const char *v = o->check_text ? *(const char *const *)field_of_const(cfg, o) : NULL;
        char label[80];
        snprintf(label, sizeof(label), "--%s", o->name);
        if (v && o->check_text(label, v, err) != CUZK_OK)
            return err ? err->code : CUZK_ERR_INVALID_ARGUMENT;
    }
    return CUZK_OK;
}

/* A size as the options take it: 256M, 1G, 2^40 is 1T. */
static void bytes_text(unsigned long long b, char *buf, size_t n)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (u < 3 && b && b % 1024 == 0) {
        b /= 1024;
        u++;
    }
    if (u < 0)
        snprintf(buf, n, "%llu", b);
    else
        snprintf(buf, n, "%llu%c", b, units[u]);
}

static void number_text(const serve_option *o, long long v, char *buf, size_t n)
{
    if (o->type == SERVE_OPT_BYTES)
        bytes_text((unsigned long long)v, buf, n);
    else
        snprintf(buf, n, "%lld", v);
}

void serve_option_range(const serve_option *o, char *buf, size_t n)
{
    char lo[32], hi[32], d[32];
    buf[0] = 0;
    if (o->type == SERVE_OPT_BYTES || o->type == SERVE_OPT_SECONDS || o->type == SERVE_OPT_UINT) {
        number_text(o, o->lo, lo, sizeof(lo));
        number_text(o, o->hi, hi, sizeof(hi));
        if (o->dflt)
            number_text(o, o->dflt, d, sizeof(d));
        snprintf(buf, n, "%s to %s; default %s", lo, hi, o->dflt ? d : o->dflt_text);
    } else if (o->dflt_text)
        snprintf(buf, n, "default: %s", o->dflt_text);
}

void serve_option_help(const serve_option *o, char *buf, size_t n)
{
    char range[256];
    serve_option_range(o, range, sizeof(range));
    snprintf(buf, n, "%s%s%s", o->help, range[0] ? "\n" : "", range);
}

void serve_option_value(const cuzk_serve_config *cfg, const serve_option *o, char *buf, size_t n)
{
    buf[0] = 0;
    if (o->offset == SERVE_NO_FIELD)
        return;
    const void *f = field_of_const(cfg, o);
    switch (o->type) {
    case SERVE_OPT_TEXT:
        snprintf(buf, n, "%s", *(const char *const *)f ? *(const char *const *)f : "");
        break;
    case SERVE_OPT_FLAG:
        snprintf(buf, n, "%s", *(const int *)f ? "yes" : "no");
        break;
    case SERVE_OPT_BYTES:
        bytes_text(*(const unsigned long long *)f, buf, n);
        break;
    case SERVE_OPT_SECONDS:
        snprintf(buf, n, "%.0f", *(const double *)f < 0 ? 0 : *(const double *)f);
        break;
    case SERVE_OPT_UINT:
        snprintf(buf, n, "%u", *(const unsigned *)f);
        break;
    }
}
