/* What the files of the cuzk command share: messages and exits (only this
 * program exits; the library returns status codes), option parsing (the
 * parsers are the library's, src/util/parse.c; the engine's options come
 * from its table, src/engine/options.c), the environment variables the
 * command maps to options (the library reads none), progress lines, and
 * writing proof.json/public.json. The commands' entry points are in
 * commands.h; nothing here depends on them. */
#ifndef CUZK_TOOLS_CLI_H
#define CUZK_TOOLS_CLI_H

#include <stdio.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"

/* Prints "cuzk: <message>" on stderr and returns code (fail: 2, bad input
 * or usage). */
int fail_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fail_err(const cuzk_error *err);
/* A verification's outcome as the verify commands report it: OK (exit 0),
 * INVALID and why (exit 1), or the error (exit 2). */
int cli_verdict(int rc, const cuzk_error *err);

/* Values of flags (or config lines): 0, or 2 after printing "<label>
 * expects ..., got '<text>'" (label names the input: "--workers", or
 * "FILE:LINE: workers"). */
int parse_count(const char *label, const char *s, long lo, long hi, int *out);
int parse_bytes(const char *label, const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *out);
int parse_size(const char *label, const char *s, unsigned long long max, unsigned long long *out); /* n or 2^k */
int parse_device(const char *label, const char *s, int *out);
int parse_threads(const char *s, int *out); /* --threads: 0 (all cores) to 1024 */

/* The engine's option `name` (its table's name or alias, no "--") set from
 * text: 0, 2 after a message naming label, or -1 when name is no engine
 * option (or one for serve only, with !for_serve). */
int cli_engine_option(cuzk_engine_config *cfg, const char *name, const char *label, const char *text, int for_serve);
/* --no-NAME for an on/off engine option (--no-prestage): 0, or -1 if none. */
int cli_engine_flag_off(cuzk_engine_config *cfg, const char *name, int for_serve);
/* Whether flag (with its "--") is an engine option taking a value. */
int cli_is_engine_option(const char *flag, int for_serve);
/* The engine options' help: "  --name ARG\n        help" lines. */
void cli_engine_options_help(FILE *out, int for_serve);

/* The environment the command maps to options, read once per command: 0,
 * or 2 after a message naming the variable, what it expects and found.
 *   CUZK_CPU_BACKEND   portable | x86_64-adx | auto (cuzk_set_cpu_backend)
 *   CUZK_GPU_UPLOAD    pinned | pageable      (gpu_upload)
 *   CUZK_GPU_EVAL      gpu | cpu              (gpu_eval)
 *   CUZK_GPU_MSM_CHUNK N                      (gpu_msm_chunk)
 *   CUZK_SETUP_DEVICE  auto | gpu | cpu       (cuzk_setup_options.device) */
int cli_env_backend(void);
int cli_env_engine(cuzk_engine_config *cfg);
int cli_env_prove(cuzk_prove_options *opts);
int cli_env_setup(cuzk_setup_options *opts);

/* Progress on stderr (a cuzk_progress_fn; ctx is a progress_state, made
 * by progress_start): on a terminal one line redrawn as the work goes
 * (stage, percent, rate, time left); otherwise a line every 5 s for a
 * stage that runs longer than 2 s, and one when it ends; nothing with
 * --quiet (cli_quiet). Safe from several threads. */
#include "../../src/programs.h"
extern int cli_quiet;
typedef struct progress_state {
    const char *what; /* "setup": the lines begin "cuzk setup: " */
    int tty, quiet;
    int drawn;        /* a terminal line is on the screen */
    double last;      /* the last draw */
    progress_meter m;
} progress_state;
progress_state progress_start(const char *what);
void print_progress(void *ctx, const char *stage, unsigned long long done, unsigned long long total);
/* Ends the terminal line (it stays on the screen), if one was drawn. */
void progress_done(progress_state *ps);

/* Writes proof.json and public.json so that both appear or neither. */
int write_pair(const char *p1, const char *t1, const char *p2, const char *t2);
/* The same with the first file's bytes given (a binary proof). */
int write_pair_bytes(const char *p1, const void *t1, size_t len1, const char *p2, const char *t2);

/* A file a command reads or writes, named as its usage names it. */
typedef struct cli_file {
    const char *label; /* "proof.json" */
    const char *path;  /* NULL: not given */
} cli_file;
/* Before any work: every output may be written (check_output_path: no
 * symbolic link, no device), no two outputs are one file, and no output is
 * one of the inputs (zkey export-vk k.zkey k.zkey would replace the key).
 * 0, or 2 after a message naming both. */
int cli_check_outputs(const cli_file *outs, int n_out, const cli_file *ins, int n_in);

#endif
