/* cuzk serve: options from the command line and from an optional config
 * file (--config FILE: "key = value" lines, keys named like the long
 * options), then the daemon (src/server/server.c). The daemon's own
 * options are here; the engine's come from its one table
 * (src/engine/options.c), which cuzk bench and the engine's own checks
 * read too. Every option goes through apply_option, so a file and the
 * command line accept exactly the same values and name the offending input
 * the same way. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/engine/options.h"
#include "cli.h"
#include "commands.h"

#define CONFIG_MAX_BYTES (1u << 20) /* a config file is a few lines; a larger one is a wrong path */
#define CONFIG_MAX_LINE 4096
#define CUZK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The daemon's own options (the engine's follow them in the help). */
enum { OPT_LISTEN, OPT_STATE_DIR, OPT_MAX_BODY, OPT_RESULT_TTL, N_OPTS };

static const struct {
    const char *name, *arg, *help;
} options[N_OPTS] = {
    [OPT_LISTEN] = {"listen", "HOST:PORT",
                    "where to listen: an IPv4 address and a port (0: a free one, printed);\n"
                    "default 127.0.0.1:8080 (loopback: the API has no authentication)"},
    [OPT_STATE_DIR] = {"state-dir", "DIR",
                       "the job journal (created if missing); jobs accepted before a crash run\n"
                       "again after a restart on the same DIR. Required"},
    [OPT_MAX_BODY] = {"max-body", "B",
                      "largest request body, 1024 to 2^40 (default 256M); an uploaded witness is\n"
                      "4/3 of its file in base64"},
    [OPT_RESULT_TTL] = {"result-ttl", "S", "seconds results are kept, 1 to 2592000 (default 3600)"},
};

static void serve_usage(FILE *out)
{
    fprintf(out, "usage: cuzk serve [--config FILE] [--listen HOST:PORT] --state-dir DIR [options]\n"
                 "\n"
                 "The proving daemon: an HTTP/JSON API (docs/api.md). SIGTERM or SIGINT stops it\n"
                 "cleanly (running proofs finish, queued jobs stay journaled).\n"
                 "\n"
                 "  --config FILE\n"
                 "        read options from FILE first: one 'key = value' a line, keys named like\n"
                 "        the options below without '--' (state-dir = /var/lib/cuzk), '#' starts a\n"
                 "        comment (at the start of a line or after a blank); options given on the\n"
                 "        command line override the file, the file the environment variables\n"
                 "        named below\n");
    for (int i = 0; i < N_OPTS; i++) {
        fprintf(out, "  --%s %s\n        ", options[i].name, options[i].arg);
        for (const char *p = options[i].help; *p; p++) {
            fputc(*p, out);
            if (*p == '\n')
                fputs("        ", out);
        }
        fputc('\n', out);
    }
    cli_engine_options_help(out, 1);
    fprintf(out, "  --help\n        print this message\n"
                 "\n"
                 "Sizes (B) are bytes, or with a K, M, G or T suffix (powers of 1024), or 2^k.\n");
}

typedef struct serve_opts {
    cuzk_serve_config cfg;
    char host[64];
} serve_opts;

static int parse_listen(const char *label, const char *v, serve_opts *o)
{
    const char *colon = strrchr(v, ':');
    if (!colon || colon == v || (size_t)(colon - v) >= sizeof(o->host))
        return fail("%s expects HOST:PORT with an IPv4 address (e.g. 127.0.0.1:8080; port 0 picks one), got '%s'",
                    label, v);
    int port;
    char plabel[CONFIG_MAX_LINE + 64];
    snprintf(plabel, sizeof(plabel), "%s port", label);
    if (parse_count(plabel, colon + 1, 0, 65535, &port))
        return 2;
    memcpy(o->host, v, (size_t)(colon - v));
    o->host[colon - v] = 0;
    struct in_addr ip;
    if (inet_pton(AF_INET, o->host, &ip) != 1)
        return fail("%s expects HOST:PORT with an IPv4 address (e.g. 127.0.0.1:8080), got '%s': '%s' is not one",
                    label, v, o->host);
    o->cfg.host = o->host;
    o->cfg.port = (unsigned)port;
    return 0;
}

/* Applies one option, the daemon's or the engine's; label names it in
 * messages ("--workers" or "FILE:LINE: workers"). value must outlive the
 * serve (state-dir keeps it). */
static int apply_option(serve_opts *o, const char *name, const char *label, const char *v)
{
    cuzk_serve_config *c = &o->cfg;
    int rc = cli_engine_option(&c->engine, name, label, v, 1);
    if (rc >= 0)
        return rc;
    if (!strcmp(name, "listen"))
        return parse_listen(label, v, o);
    if (!strcmp(name, "state-dir")) {
        if (!*v)
            return fail("%s expects a directory, got ''", label);
        c->state_dir = v;
        return 0;
    }
    if (!strcmp(name, "max-body"))
        return parse_bytes(label, v, 1024, 1ull << 40, &c->max_body);
    if (!strcmp(name, "result-ttl")) {
        int n;
        if (parse_count(label, v, 1, 86400 * 30, &n))
            return 2;
        c->result_ttl = n;
        return 0;
    }
    return fail("%s: internal error: option '%s'", label, name);
}

/* Options are numbered: the daemon's first, then the engine table's; -1
 * for none (an engine alias counts as its option). */
static int option_index(const char *name)
{
    for (int i = 0; i < N_OPTS; i++)
        if (!strcmp(name, options[i].name))
            return i;
    const engine_option *e = engine_option_find(name);
    return e ? N_OPTS + (int)(e - engine_options) : -1;
}

static const char *option_arg(int opt)
{
    return opt < N_OPTS ? options[opt].arg : engine_options[opt - N_OPTS].arg;
}

static void option_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < N_OPTS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", options[i].name);
    for (size_t i = 0; i < engine_option_count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, ", %s", engine_options[i].name);
}

/* Reads FILE whole (bounded); *text is NUL-terminated, freed by the caller. */
static int read_config(const char *path, char **text, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail("--config %s: cannot open: %s", path, strerror(errno));
    char *buf = malloc(CONFIG_MAX_BYTES + 1);
    if (!buf) {
        fclose(f);
        return fail("out of memory");
    }
    size_t n = fread(buf, 1, CONFIG_MAX_BYTES + 1, f);
    int bad = ferror(f);
    int e = errno;
    fclose(f);
    if (bad) {
        free(buf);
        return fail("--config %s: cannot read: %s", path, strerror(e));
    }
    if (n > CONFIG_MAX_BYTES) {
        free(buf);
        return fail("--config %s: larger than %u bytes; expected a few 'key = value' lines", path, CONFIG_MAX_BYTES);
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return 0;
}

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = 0;
    return s;
}

/* Parses the config file in place (values point into text) and applies
 * each line; a key may appear once. */
static int apply_config(serve_opts *o, const char *path, char *text, size_t len)
{
    /* the line each option was set on: the daemon's, then the engine's */
    int seen[N_OPTS + 64] = {0};
    char label[CONFIG_MAX_LINE + 4200];
    unsigned line_no = 0;
    char *p = text, *end = text + len;
    if (memchr(text, 0, len))
        return fail("--config %s: contains a NUL byte; expected a text file of 'key = value' lines", path);
    while (p < end) {
        line_no++;
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *next = nl ? nl + 1 : end;
        if (nl)
            *nl = 0;
        if (strlen(p) > CONFIG_MAX_LINE)
            return fail("%s:%u: line longer than %d characters", path, line_no, CONFIG_MAX_LINE);
        char *line = trim(p);
        p = next;
        if (!*line || *line == '#')
            continue;
        /* a '#' after a blank starts a comment, so "workers = 2  # two GPUs"
         * works while a path may still contain '#' */
        for (char *q = line + 1; *q; q++)
            if (*q == '#' && (q[-1] == ' ' || q[-1] == '\t')) {
                *q = 0;
                break;
            }
        char *eq = strchr(line, '=');
        if (!eq)
            return fail("%s:%u: expected 'key = value', got '%s'", path, line_no, trim(line));
        *eq = 0;
        char *key = trim(line), *value = trim(eq + 1);
        int opt = option_index(key);
        if (opt < 0 || opt >= (int)CUZK_ARRAY_SIZE(seen)) {
            char names[1024];
            option_names(names, sizeof(names));
            if (!strcmp(key, "config"))
                return fail("%s:%u: 'config' cannot be set in a config file", path, line_no);
            return fail("%s:%u: unknown key '%s'; expected one of: %s (the long options without '--')", path,
                        line_no, key, names);
        }
        if (seen[opt])
            return fail("%s:%u: '%s' is already set on line %d", path, line_no, key, seen[opt]);
        seen[opt] = (int)line_no;
        snprintf(label, sizeof(label), "%s:%u: %s", path, line_no, key);
        if (!*value)
            return fail("%s has no value (expected %s)", label, option_arg(opt));
        int bad = apply_option(o, key, label, value);
        if (bad)
            return bad;
    }
    return 0;
}

int cmd_serve(int argc, char **argv)
{
    serve_opts o;
    memset(&o, 0, sizeof(o));
    const char *config = NULL;
    /* first pass: --help and --config, and every flag checked for a name
     * and a value, so that a typo is reported before the file is read */
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            serve_usage(stdout);
            return 0;
        }
        int known = !strcmp(a, "--config") || (!strncmp(a, "--", 2) && option_index(a + 2) >= 0);
        if (!known && !strncmp(a, "--no-", 5)) { /* --no-prestage: an on/off option set to 0, no value */
            cuzk_serve_config probe = {0};
            if (cli_engine_flag_off(&probe.engine, a + 2, 1) == 0)
                continue;
        }
        if (!known)
            return fail("serve: unknown option '%s'; see cuzk serve --help", a);
        if (i + 1 >= argc)
            return fail("serve: %s needs a value", a);
        if (!strcmp(a, "--config")) {
            if (config)
                return fail("serve: --config given twice ('%s' and '%s')", config, argv[i + 1]);
            config = argv[i + 1];
        }
        i++;
    }
    /* defaults, then the file, then the command line: later ones win */
    snprintf(o.host, sizeof(o.host), "127.0.0.1");
    o.cfg.host = o.host;
    o.cfg.port = 8080;
    o.cfg.engine.workers = 1;
    /* the environment's options (CUZK_GPU_UPLOAD, ...), under the file's
     * and the command line's */
    if (cli_env_engine(&o.cfg.engine))
        return 2;
    char *text = NULL;
    if (config) {
        size_t len = 0;
        int bad = read_config(config, &text, &len);
        if (!bad)
            bad = apply_config(&o, config, text, len);
        if (bad) {
            free(text);
            return bad;
        }
    }
    for (int i = 0; i < argc; i += 2) {
        if (cli_engine_flag_off(&o.cfg.engine, argv[i] + 2, 1) == 0) {
            i--; /* a flag without a value */
            continue;
        }
        if (!strcmp(argv[i], "--config"))
            continue;
        int bad = apply_option(&o, argv[i] + 2, argv[i], argv[i + 1]);
        if (bad) {
            free(text);
            return bad;
        }
    }
    if (!o.cfg.state_dir) {
        free(text);
        return fail("serve needs --state-dir DIR (or 'state-dir = DIR' in the --config file)");
    }
    cuzk_error err = {0};
    int rc = cuzk_serve(&o.cfg, &err) != CUZK_OK ? fail_err(&err) : 0;
    free(text);
    return rc;
}
