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
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../include/cuzk_serve.h"
#include "../../src/programs.h"
#include "cli.h"
#include "commands.h"

#define CONFIG_MAX_BYTES (1u << 20) /* a config file is a few lines; a larger one is a wrong path */
#define CONFIG_MAX_LINE 4096
#define CUZK_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The daemon's messages, a line each: UTC time to the millisecond, the
 * level, the message; info to stdout, warnings and errors to stderr, each
 * flushed (a journal reads them as they come). */
static void log_line(void *arg, cuzk_log_level level, const char *message)
{
    (void)arg;
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static const char *names[] = {"error", "warn", "info"};
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    char when[32];
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
    FILE *out = level == CUZK_LOG_INFO ? stdout : stderr;
    pthread_mutex_lock(&mu);
    fprintf(out, "%s.%03ldZ %s cuzk serve: %s\n", when, ts.tv_nsec / 1000000, level <= CUZK_LOG_INFO ? names[level] : "?",
            message);
    fflush(out);
    pthread_mutex_unlock(&mu);
}

#define MAX_DIRS 64 /* --key-dir and --witness-dir, each */

/* An option's help (src/server/options.c renders it), indented as --help
 * prints every option. */
static void print_help_lines(FILE *out, const char *help)
{
    fputs("        ", out);
    for (const char *p = help; *p; p++) {
        fputc(*p, out);
        if (*p == '\n')
            fputs("        ", out);
    }
    fputc('\n', out);
}

/* The daemon's options as the man page lists them (docs/cuzk.1, between
 * its "serve options" marks; tests/test_cli.sh compares the two). */
/* Text as troff prints it: dashes as \-, backslashes escaped, the help's
 * line breaks as blanks (troff fills the paragraph). */
static void troff_text(FILE *out, const char *t)
{
    for (const char *p = t; *p; p++)
        if (*p == '\n')
            fputc(' ', out);
        else if (*p == '-')
            fputs("\\-", out);
        else if (*p == '\\')
            fputs("\\e", out);
        else
            fputc(*p, out);
}

static void serve_troff(FILE *out)
{
    char range[256];
    for (size_t i = 0; i < serve_option_count; i++) {
        const serve_option *o = &serve_options[i];
        /* the tag: .BI "--name " "ARG" (bold name, italic value), or .B */
        fputs(".TP\n", out);
        fputs(o->arg ? ".BI \"\\-\\-" : ".B \"\\-\\-", out);
        troff_text(out, o->name);
        if (o->arg) {
            fputs(" \" \"", out);
            troff_text(out, o->arg);
        }
        fputs("\"\n", out);
        troff_text(out, o->help);
        fputs("\n", out);
        serve_option_range(o, range, sizeof(range));
        if (range[0]) {
            fputs(".br\n", out);
            troff_text(out, range);
            fputs("\n", out);
        }
    }
}

static void serve_usage(FILE *out)
{
    fprintf(out, "usage: cuzk serve [--config FILE] [--listen HOST:PORT] --state-dir DIR [options]\n"
                 "\n"
                 "The proving daemon: an HTTP/JSON API (docs/api.md; docs/security.md: who may\n"
                 "reach it and what a client can make it open). SIGTERM or SIGINT stops it\n"
                 "within --shutdown-grace: long polls are answered, queued jobs stay journaled,\n"
                 "running proofs finish or stay journaled. SIGHUP (systemctl reload) reads the\n"
                 "--token-file and the --key keys again; what fails to load keeps what was\n"
                 "there (the log says why); other options need a restart.\n"
                 "\n"
                 "  --config FILE\n"
                 "        read options from FILE first: one 'key = value' a line, keys named like\n"
                 "        the options below without '--' (state-dir = /var/lib/cuzk), '#' starts a\n"
                 "        comment (at the start of a line or after a blank); options given on the\n"
                 "        command line override the file, the file the environment variables\n"
                 "        named below\n");
    char help[2048];
    for (size_t i = 0; i < serve_option_count; i++) {
        const serve_option *o = &serve_options[i];
        fprintf(out, "  --%s%s%s\n", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        serve_option_help(o, help, sizeof(help));
        print_help_lines(out, help);
    }
    cli_engine_options_help(out, 1);
    fprintf(out, "  --help\n        print this message\n"
                 "\n"
                 "Sizes (B) are bytes, or with a K, M, G or T suffix (powers of 1024), or 2^k.\n");
}

typedef struct serve_opts {
    cuzk_serve_config cfg;
    char host[64];
    const char *key_dirs[MAX_DIRS], *witness_dirs[MAX_DIRS];
    const char *key_ids[MAX_DIRS], *key_paths[MAX_DIRS], *key_r1cs[MAX_DIRS];
    char key_text[MAX_DIRS][CONFIG_MAX_LINE + 1]; /* ID=PATH, split at the '=' */
    /* --key-circuit ID=R1CS, matched to the --key ids once all are read */
    unsigned n_circuits;
    char circuit_text[MAX_DIRS][CONFIG_MAX_LINE + 1];
    char circuit_label[MAX_DIRS][96];
} serve_opts;

static int add_key_circuit(serve_opts *o, const char *label, const char *v)
{
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return fail("%s expects ID=R1CS (a --key id, then its circuit's .r1cs), got '%s'", label, v);
    if (o->n_circuits >= MAX_DIRS)
        return fail("%s: more than %d given", label, MAX_DIRS);
    char *t = o->circuit_text[o->n_circuits];
    snprintf(t, sizeof(o->circuit_text[0]), "%s", v);
    t[eq - v] = 0;
    snprintf(o->circuit_label[o->n_circuits], sizeof(o->circuit_label[0]), "%s", label);
    o->n_circuits++;
    return 0;
}

/* Each --key-circuit to its --key: one circuit a key, every id known. */
static int match_circuits(serve_opts *o)
{
    for (unsigned c = 0; c < o->n_circuits; c++) {
        const char *id = o->circuit_text[c], *r1cs = id + strlen(id) + 1;
        unsigned k = 0;
        while (k < o->cfg.n_keys && strcmp(o->key_ids[k], id) != 0)
            k++;
        if (k == o->cfg.n_keys)
            return fail("%s %s=%s: no --key %s=PATH names that id", o->circuit_label[c], id, r1cs, id);
        if (o->key_r1cs[k])
            return fail("%s %s: the key already has a circuit (%s)", o->circuit_label[c], id, o->key_r1cs[k]);
        o->key_r1cs[k] = r1cs;
    }
    return 0;
}

static int add_key(serve_opts *o, const char *label, const char *v)
{
    unsigned *n = &o->cfg.n_keys;
    const char *eq = strchr(v, '=');
    if (!eq || eq == v || !eq[1])
        return fail("%s expects ID=PATH (a key id, then the .zkey's path), got '%s'", label, v);
    if (*n >= MAX_DIRS)
        return fail("%s: more than %d given", label, MAX_DIRS);
    char *t = o->key_text[*n];
    snprintf(t, sizeof(o->key_text[0]), "%s", v);
    t[eq - v] = 0;
    o->key_ids[*n] = t;
    o->key_paths[*n] = t + (eq - v) + 1;
    (*n)++;
    return 0;
}

static int add_dir(const char *label, const char *v, const char **dirs, unsigned *n)
{
    struct stat st;
    if (!*v)
        return fail("%s expects a directory, got ''", label);
    if (stat(v, &st) != 0)
        return fail("%s '%s': %s", label, v, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return fail("%s '%s': not a directory", label, v);
    if (*n >= MAX_DIRS)
        return fail("%s: more than %d given", label, MAX_DIRS);
    dirs[(*n)++] = v;
    return 0;
}

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
    if (!strcmp(name, "key-dir"))
        return add_dir(label, v, o->key_dirs, &c->n_key_dirs);
    if (!strcmp(name, "witness-dir"))
        return add_dir(label, v, o->witness_dirs, &c->n_witness_dirs);
    if (!strcmp(name, "key"))
        return add_key(o, label, v);
    if (!strcmp(name, "key-circuit"))
        return add_key_circuit(o, label, v);
    const char **file = !strcmp(name, "token-file") ? &c->token_file
                        : !strcmp(name, "tls-cert") ? &c->tls_cert_file
                        : !strcmp(name, "tls-key")  ? &c->tls_key_file
                                                    : NULL;
    if (file) {
        struct stat st;
        if (!*v)
            return fail("%s expects a file, got ''", label);
        if (stat(v, &st) != 0)
            return fail("%s '%s': %s", label, v, strerror(errno));
        if (!S_ISREG(st.st_mode))
            return fail("%s '%s': not a regular file", label, v);
        *file = v;
        return 0;
    }
    const serve_option *so = serve_option_find(name);
    if (so && so->check_text && so->offset != SERVE_NO_FIELD) { /* node, queue: of a form the table checks */
        cuzk_error err = {0};
        if (so->check_text(label, v, &err) != CUZK_OK)
            return fail_err(&err);
        *(const char **)((char *)c + so->offset) = v;
        return 0;
    }
    if (so && so->type != SERVE_OPT_TEXT) { /* the table's numbers and flags */
        cuzk_error err = {0};
        return serve_option_set(c, so, label, v, &err) == CUZK_OK ? 0 : fail_err(&err);
    }
    return fail("%s: internal error: option '%s'", label, name);
}

/* Options are numbered: the daemon's first, then the engine table's; -1
 * for none (an engine alias counts as its option). */
static int option_index(const char *name)
{
    const serve_option *o = serve_option_find(name);
    if (o)
        return (int)(o - serve_options);
    const engine_option *e = engine_option_find(name);
    return e ? (int)serve_option_count + (int)(e - engine_options) : -1;
}

static const char *option_arg(int opt)
{
    return opt < (int)serve_option_count ? serve_options[opt].arg : engine_options[opt - (int)serve_option_count].arg;
}

static void option_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < serve_option_count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", serve_options[i].name);
    for (size_t i = 0; i < engine_option_count && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, ", %s", engine_options[i].name);
}

/* Reads FILE whole (a regular file, bounded); *text is NUL-terminated,
 * freed by the caller. */
static int read_config(const char *path, char **text, size_t *len)
{
    cuzk_error err = {0};
    if (read_file_bounded(path, CONFIG_MAX_BYTES, "a config file of 'key = value' lines", text, len, &err) != CUZK_OK)
        return fail("--config %s", err.message);
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
    int seen[128] = {0};
    _Static_assert(sizeof(seen) / sizeof(seen[0]) >= 25 + 40, "a line number for every option");
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
        if (seen[opt] && !(opt < (int)serve_option_count && serve_options[opt].repeatable))
            return fail("%s:%u: '%s' is already set on line %d", path, line_no, key, seen[opt]);
        seen[opt] = (int)line_no;
        snprintf(label, sizeof(label), "%s:%u: %s", path, line_no, key);
        if (!*value)
            return fail("%s has no value (expected %s)", label, option_arg(opt) ? option_arg(opt) : "yes or no");
        int bad = apply_option(o, key, label, value);
        if (bad)
            return bad;
    }
    return 0;
}

/* One of the daemon's options without a value (--allow-any-path). */
static int is_own_flag(const char *a)
{
    int opt = !strncmp(a, "--", 2) ? option_index(a + 2) : -1;
    return opt >= 0 && opt < (int)serve_option_count && serve_options[opt].type == SERVE_OPT_FLAG;
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
        if (!strcmp(a, "--help-troff")) { /* the man page's list (docs/cuzk.1) */
            serve_troff(stdout);
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
        if (is_own_flag(a))
            continue;
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
    o.cfg.log = log_line;
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
        if (is_own_flag(argv[i])) {
            int bad = apply_option(&o, argv[i] + 2, argv[i], "yes");
            if (bad) {
                free(text);
                return bad;
            }
            i--; /* no value */
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
    o.cfg.key_dirs = o.key_dirs;
    o.cfg.witness_dirs = o.witness_dirs;
    o.cfg.key_ids = o.key_ids;
    o.cfg.key_paths = o.key_paths;
    if (match_circuits(&o)) {
        free(text);
        return 2;
    }
    o.cfg.key_r1cs_paths = o.key_r1cs;
    if (!o.cfg.state_dir) {
        free(text);
        return fail("serve needs --state-dir DIR (or 'state-dir = DIR' in the --config file)");
    }
    cuzk_error err = {0};
    int rc = cuzk_serve(&o.cfg, &err) != CUZK_OK ? fail_err(&err) : 0;
    free(text);
    return rc;
}
