/* cuzk serve: options from the command line and from an optional config
 * file (--config FILE: "key = value" lines, keys named like the long
 * options), then the daemon (src/server/server.c). Every option goes
 * through apply_option, so a file and the command line accept exactly the
 * same values and name the offending input the same way. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CONFIG_MAX_BYTES (1u << 20) /* a config file is a few lines; a larger one is a wrong path */
#define CONFIG_MAX_LINE 4096

enum { OPT_LISTEN, OPT_STATE_DIR, OPT_WORKERS, OPT_GPU_WORKERS, OPT_THREADS, OPT_DEVICE, OPT_MAX_JOBS, OPT_KEY_CACHE_BYTES,
       OPT_GPU_MEMORY, OPT_PRESTAGE, OPT_MAX_BODY, OPT_RESULT_TTL, N_OPTS };

/* The options, in the order of the help; `help` is printed under each. */
static const struct {
    const char *name, *arg, *help;
} options[N_OPTS] = {
    [OPT_LISTEN] = {"listen", "HOST:PORT",
                    "where to listen: an IPv4 address and a port (0: a free one, printed);\n"
                    "default 127.0.0.1:8080 (loopback: the API has no authentication)"},
    [OPT_STATE_DIR] = {"state-dir", "DIR",
                       "the job journal (created if missing); jobs accepted before a crash run\n"
                       "again after a restart on the same DIR. Required"},
    [OPT_WORKERS] = {"workers", "W", "proofs in flight at once on the CPU (no GPU), 1-256 (default 1)"},
    [OPT_GPU_WORKERS] = {"gpu-workers-per-device", "G",
                         "proofs in flight at once per GPU, 1-64 (default 2: one computes while the\n"
                         "next one's witness goes up; they share the GPU's compute lock)"},
    [OPT_THREADS] = {"threads", "T", "CPU threads per proof, 0-1024 (default 0: the cores shared among the workers)"},
    [OPT_DEVICE] = {"device", "auto|gpu|cpu", "where proofs run (default auto: a GPU when present)"},
    [OPT_MAX_JOBS] = {"max-jobs", "N",
                      "jobs queued or running at once, 1-1000000 (default 1024); beyond it\n"
                      "submissions get 429 and Retry-After"},
    [OPT_KEY_CACHE_BYTES] = {"key-cache-bytes", "B",
                             "evict unused keys (least recently used) beyond B bytes of key files\n"
                             "(default 0: no budget)"},
    [OPT_GPU_MEMORY] = {"gpu-memory", "B",
                        "device memory each GPU may hold for keys and proofs (docs/engine.md);\n"
                        "a proof that cannot fit even alone runs on the CPU (device auto) or fails\n"
                        "(device gpu) (default 0: the GPU's free memory at start less 1 GiB)"},
    [OPT_PRESTAGE] = {"prestage", "0|1",
                      "1 (default): a GPU proof's witness goes up outside the GPU's compute\n"
                      "lock while another proof computes, when the memory plan has room\n"
                      "(docs/engine.md); 0: inside the lock"},
    [OPT_MAX_BODY] = {"max-body", "B",
                      "largest request body, 1024 to 2^40 (default 256M); an uploaded witness is\n"
                      "4/3 of its file in base64"},
    [OPT_RESULT_TTL] = {"result-ttl", "S", "seconds results are kept, 1 to 2592000 (default 3600)"},
};

void serve_usage(FILE *out)
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
                 "        command line override the file\n");
    for (int i = 0; i < N_OPTS; i++) {
        fprintf(out, "  --%s %s\n        ", options[i].name, options[i].arg);
        for (const char *p = options[i].help; *p; p++) {
            fputc(*p, out);
            if (*p == '\n')
                fputs("        ", out);
        }
        fputc('\n', out);
    }
    fprintf(out, "  --help\n        print this message\n"
                 "\n"
                 "Sizes (B) are bytes, or with a K, M, G or T suffix (powers of 1024), or 2^k.\n");
}

int parse_bytes(const char *label, const char *s, unsigned long long lo, unsigned long long hi,
                       unsigned long long *out)
{
    char *end;
    unsigned long long v = 0;
    int ok = 0;
    errno = 0;
    if (s[0] == '2' && s[1] == '^') {
        unsigned long k = strtoul(s + 2, &end, 10);
        ok = !errno && !*end && end != s + 2 && s[2] != '-' && k < 64;
        if (ok)
            v = 1ull << k;
    } else if (s[0] >= '0' && s[0] <= '9') {
        v = strtoull(s, &end, 10);
        ok = !errno;
        int shift = 0;
        if (ok && *end) {
            const char *units = "KMGT";
            const char *u = strchr(units, *end);
            ok = u && *u && end[1] == 0;
            if (ok)
                shift = 10 * (int)(u - units + 1);
        }
        if (ok && shift) {
            ok = v <= (~0ull >> shift);
            v <<= shift;
        }
    }
    if (!ok || v < lo || v > hi)
        return fail("%s expects a size in [%llu, %llu] bytes (an integer, with an optional K, M, G or T suffix, "
                    "or 2^k), got '%s'",
                    label, lo, hi, s);
    *out = v;
    return 0;
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

/* Applies one option; label names it in messages ("--workers" or
 * "FILE:LINE: workers"). value must outlive the serve (state-dir keeps it). */
static int apply_option(serve_opts *o, int opt, const char *label, const char *v)
{
    cuzk_serve_config *c = &o->cfg;
    int n;
    switch (opt) {
    case OPT_LISTEN:
        return parse_listen(label, v, o);
    case OPT_STATE_DIR:
        if (!*v)
            return fail("%s expects a directory, got ''", label);
        c->state_dir = v;
        return 0;
    case OPT_WORKERS:
        return parse_count(label, v, 1, 256, &c->engine.workers);
    case OPT_GPU_WORKERS:
        return parse_count(label, v, 1, 64, &c->engine.gpu_workers_per_device);
    case OPT_THREADS:
        return parse_count(label, v, 0, 1024, &c->engine.threads_per_worker);
    case OPT_DEVICE:
        return parse_device(label, v, &c->engine.device);
    case OPT_MAX_JOBS:
        if (parse_count(label, v, 1, 1000000, &n))
            return 2;
        c->engine.max_jobs = (unsigned)n;
        return 0;
    case OPT_KEY_CACHE_BYTES:
        return parse_bytes(label, v, 0, 1ull << 62, &c->engine.key_cache_bytes);
    case OPT_GPU_MEMORY:
        return parse_bytes(label, v, 0, 1ull << 50, &c->engine.gpu_memory_budget);
    case OPT_PRESTAGE:
        if (parse_count(label, v, 0, 1, &n))
            return 2;
        c->engine.prestage = n ? 1 : -1; /* the engine's 0 is its default (on) */
        return 0;
    case OPT_MAX_BODY:
        return parse_bytes(label, v, 1024, 1ull << 40, &c->max_body);
    case OPT_RESULT_TTL:
        if (parse_count(label, v, 1, 86400 * 30, &n))
            return 2;
        c->result_ttl = n;
        return 0;
    default:
        return fail("%s: internal error: option %d", label, opt);
    }
}

static int option_index(const char *name)
{
    for (int i = 0; i < N_OPTS; i++)
        if (!strcmp(name, options[i].name))
            return i;
    return -1;
}

static void option_names(char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < N_OPTS && used < n; i++)
        used += (size_t)snprintf(buf + used, n - used, "%s%s", i ? ", " : "", options[i].name);
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
    int seen[N_OPTS] = {0};
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
        if (opt < 0) {
            char names[256];
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
            return fail("%s has no value (expected %s)", label, options[opt].arg);
        int bad = apply_option(o, opt, label, value);
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
    for (int i = 0; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--config"))
            continue;
        int bad = apply_option(&o, option_index(argv[i] + 2), argv[i], argv[i + 1]);
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
