/* The helpers the cuzk command's files share (cli.h). */
#include "cli.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/programs.h"

static int vfail(int code, const char *fmt, va_list ap)
{
    fputs("cuzk: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    return code;
}

int fail_code(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    code = vfail(code, fmt, ap);
    va_end(ap);
    return code;
}

int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int code = vfail(2, fmt, ap);
    va_end(ap);
    return code;
}

int fail_err(const cuzk_error *err)
{
    return fail("%s", err->message[0] ? err->message : cuzk_strerror(err->code));
}

int cli_verdict(int rc, const cuzk_error *err)
{
    if (rc == CUZK_OK) {
        printf("OK\n");
        return 0;
    }
    if (rc == CUZK_ERR_INVALID_PROOF) {
        printf("INVALID\n");
        fprintf(stderr, "cuzk: %s\n", err->message);
        return 1;
    }
    return fail_err(err);
}

/* ------------------------------------------------------------ values */

int parse_count(const char *label, const char *s, long lo, long hi, int *out)
{
    cuzk_error err = {0};
    long long v;
    if (parse_int_text(label, s, lo, hi, &v, &err) != CUZK_OK)
        return fail_err(&err);
    *out = (int)v;
    return 0;
}

int parse_bytes(const char *label, const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *out)
{
    cuzk_error err = {0};
    return parse_bytes_text(label, s, lo, hi, out, &err) == CUZK_OK ? 0 : fail_err(&err);
}

int parse_size(const char *label, const char *s, unsigned long long max, unsigned long long *out)
{
    cuzk_error err = {0};
    return parse_count_text(label, s, max, out, &err) == CUZK_OK ? 0 : fail_err(&err);
}

int parse_device(const char *label, const char *s, int *out)
{
    cuzk_error err = {0};
    return parse_device_text(label, s, out, &err) == CUZK_OK ? 0 : fail_err(&err);
}

int parse_threads(const char *s, int *out)
{
    cuzk_error err = {0};
    long long v;
    if (parse_int_text("--threads", s, 0, 1024, &v, &err) != CUZK_OK)
        return fail("--threads expects an integer in [0, 1024] (0: all cores), got '%s'", s);
    *out = (int)v;
    return 0;
}

/* ------------------------------------------------------------ engine options */

static const engine_option *engine_option_for(const char *name, int for_serve)
{
    const engine_option *o = engine_option_find(name);
    return o && (for_serve || !o->serve_only) ? o : NULL;
}

int cli_engine_option(cuzk_engine_config *cfg, const char *name, const char *label, const char *text, int for_serve)
{
    const engine_option *o = engine_option_for(name, for_serve);
    if (!o)
        return -1;
    cuzk_error err = {0};
    return engine_option_set(cfg, o, label, text, &err) == CUZK_OK ? 0 : fail_err(&err);
}

int cli_engine_flag_off(cuzk_engine_config *cfg, const char *name, int for_serve)
{
    if (strncmp(name, "no-", 3) != 0)
        return -1;
    const engine_option *o = engine_option_for(name + 3, for_serve);
    if (!o || o->type != ENGINE_OPT_OFF)
        return -1;
    cuzk_error err = {0};
    return engine_option_set(cfg, o, name, "0", &err) == CUZK_OK ? 0 : fail_err(&err);
}

int cli_is_engine_option(const char *flag, int for_serve)
{
    return !strncmp(flag, "--", 2) && engine_option_for(flag + 2, for_serve) != NULL;
}

void cli_engine_options_help(FILE *out, int for_serve)
{
    for (size_t i = 0; i < engine_option_count; i++) {
        const engine_option *o = &engine_options[i];
        if (o->serve_only && !for_serve)
            continue;
        fprintf(out, "  --%s %s", o->name, o->arg);
        if (o->alias)
            fprintf(out, " (or --%s)", o->alias);
        if (o->env)
            fprintf(out, " (environment: %s)", o->env);
        fputs("\n        ", out);
        for (const char *p = o->help; *p; p++) {
            fputc(*p, out);
            if (*p == '\n')
                fputs("        ", out);
        }
        fputc('\n', out);
    }
}

/* ------------------------------------------------------------ environment */

/* A variable set to something (empty counts as unset). */
static const char *env_value(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

int cli_env_backend(void)
{
    const char *v = env_value("CUZK_CPU_BACKEND");
    if (!v)
        return 0;
    int backend;
    if (!strcmp(v, "portable"))
        backend = CUZK_CPU_BACKEND_PORTABLE;
    else if (!strcmp(v, "x86_64-adx") || !strcmp(v, "adx"))
        backend = CUZK_CPU_BACKEND_ADX;
    else if (!strcmp(v, "auto"))
        backend = CUZK_CPU_BACKEND_AUTO;
    else
        return fail("CUZK_CPU_BACKEND expects portable, x86_64-adx or auto, got '%.64s'", v);
    cuzk_error err = {0};
    if (cuzk_set_cpu_backend(backend, &err) != CUZK_OK)
        return fail("CUZK_CPU_BACKEND=%s: %s", v, err.message);
    return 0;
}

int cli_env_engine(cuzk_engine_config *cfg)
{
    for (size_t i = 0; i < engine_option_count; i++) {
        const engine_option *o = &engine_options[i];
        const char *v = o->env ? env_value(o->env) : NULL;
        cuzk_error err = {0};
        if (v && engine_option_set(cfg, o, o->env, v, &err) != CUZK_OK)
            return fail_err(&err);
    }
    return 0;
}

int cli_env_prove(cuzk_prove_options *opts)
{
    /* the same variables as the engine's, read through its table into the
     * proof options it holds */
    cuzk_engine_config cfg = {.proof = *opts};
    int rc = cli_env_engine(&cfg);
    if (!rc)
        *opts = cfg.proof;
    return rc;
}

int cli_env_setup(cuzk_setup_options *opts)
{
    const char *v = env_value("CUZK_SETUP_DEVICE");
    return v ? parse_device("CUZK_SETUP_DEVICE", v, &opts->device) : 0;
}

/* ------------------------------------------------------------ progress */

int cli_quiet;
static pthread_mutex_t progress_mu = PTHREAD_MUTEX_INITIALIZER;

enum { PROGRESS_QUIET_FOR = 2, PROGRESS_EVERY = 5 }; /* seconds, off a terminal */
#define PROGRESS_REDRAW 0.1                          /* seconds between redraws on a terminal */

progress_state progress_start(const char *what)
{
    progress_state ps;
    memset(&ps, 0, sizeof(ps));
    ps.what = what;
    ps.tty = isatty(2);
    ps.quiet = cli_quiet;
    return ps;
}

void print_progress(void *ctx, const char *stage, unsigned long long done, unsigned long long total)
{
    progress_state *ps = ctx;
    if (ps->quiet)
        return;
    double now = cuzk_now();
    char line[400];
    pthread_mutex_lock(&progress_mu);
    int fresh = progress_meter_update(&ps->m, stage, done, total, now);
    int finished = done >= total;
    progress_meter *m = &ps->m;
    if (m->ended) {
        /* a repeat of the last report */
    } else if (ps->tty) {
        if (fresh || finished || now - ps->last >= PROGRESS_REDRAW) {
            progress_format(m, done, total, now, line, sizeof(line));
            fprintf(stderr, "\r\033[Kcuzk %s: %s", ps->what, line);
            fflush(stderr);
            ps->last = now;
            ps->drawn = 1;
        }
    } else if ((now - m->start >= PROGRESS_QUIET_FOR && now - m->last_line >= PROGRESS_EVERY) ||
               (finished && m->lines)) {
        progress_format(m, done, total, now, line, sizeof(line));
        fprintf(stderr, "cuzk %s: %s%s", ps->what, line, finished ? "" : "\n");
        if (finished)
            fprintf(stderr, " in %.1f s\n", now - m->start);
        m->last_line = now;
        m->lines++;
    }
    if (finished)
        m->ended = 1;
    pthread_mutex_unlock(&progress_mu);
}

void progress_done(progress_state *ps)
{
    pthread_mutex_lock(&progress_mu);
    if (ps->tty && ps->drawn)
        fputc('\n', stderr); /* the last line stays */
    ps->drawn = 0;
    pthread_mutex_unlock(&progress_mu);
}

/* ------------------------------------------------------------ output */

/* The first goes to a temporary file, the second is written (atomically),
 * then the first is renamed into place. */
int write_pair(const char *p1, const char *t1, const char *p2, const char *t2)
{
    return write_pair_bytes(p1, t1, strlen(t1), p2, t2);
}

int write_pair_bytes(const char *p1, const void *t1, size_t len1, const char *p2, const char *t2)
{
    cuzk_error err = {0};
    char *tmp1 = tmp_path_for(p1);
    if (!tmp1)
        return fail("out of memory");
    FILE *f = fopen(tmp1, "wb");
    int ok = f && fwrite(t1, 1, len1, f) == len1;
    int e = errno;
    if (f && fclose(f) != 0 && ok) {
        ok = 0;
        e = errno;
    }
    if (!ok) {
        remove(tmp1);
        free(tmp1);
        return fail("%s: cannot write: %s", p1, strerror(e));
    }
    if (write_file_atomic(p2, t2, strlen(t2), &err) != CUZK_OK) {
        remove(tmp1);
        free(tmp1);
        return fail_err(&err);
    }
    if (rename(tmp1, p1) != 0) {
        e = errno;
        remove(tmp1);
        remove(p2);
        free(tmp1);
        return fail("%s: cannot write: %s", p1, strerror(e));
    }
    free(tmp1);
    return 0;
}

/* The same file: the same name, or (both existing) the same inode. */
static int names_one_file(const char *a, const char *b)
{
    return !strcmp(a, b) || same_file(a, b);
}

int cli_check_outputs(const cli_file *outs, int n_out, const cli_file *ins, int n_in)
{
    for (int i = 0; i < n_out; i++) {
        if (!outs[i].path)
            continue;
        cuzk_error err = {0};
        if (check_output_path(outs[i].path, &err) != CUZK_OK)
            return fail("%s %s", outs[i].label, err.message);
        for (int k = 0; k < i; k++)
            if (outs[k].path && names_one_file(outs[i].path, outs[k].path))
                return fail("%s and %s are the same file (%s): name two files", outs[k].label, outs[i].label,
                            outs[i].path);
        for (int k = 0; k < n_in; k++)
            if (ins[k].path && names_one_file(outs[i].path, ins[k].path))
                return fail("%s %s is the input %s: writing it would replace that file; name another output",
                            outs[i].label, outs[i].path, ins[k].label);
    }
    return 0;
}
