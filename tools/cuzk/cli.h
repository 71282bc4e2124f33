/* What the files of the cuzk command share: messages and exits (only this
 * program exits; the library returns status codes), option parsing, and
 * writing proof.json/public.json. */
#ifndef CUZK_TOOLS_CLI_H
#define CUZK_TOOLS_CLI_H

#include <stdio.h>

#include "../../include/cuzk.h"

/* Prints "cuzk: <message>" on stderr and returns code (fail: 2, bad input
 * or usage). */
int fail_code(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fail_err(const cuzk_error *err);

/* An integer in [lo, hi]; on failure prints "<flag> expects ..." (flag
 * names the input: "--workers", or "FILE:LINE: workers") and returns 2. */
int parse_count(const char *flag, const char *s, long lo, long hi, int *out);
/* A size in bytes in [lo, hi]: an integer, optionally with a K/M/G/T
 * suffix (powers of 1024), or 2^k; on failure prints what it expected and
 * returns 2 (tools/cuzk/serve.c). */
int parse_bytes(const char *label, const char *s, unsigned long long lo, unsigned long long hi,
                unsigned long long *out);
/* auto, gpu or cpu, as CUZK_DEVICE_*. */
int parse_device(const char *flag, const char *s, int *out);

/* Writes proof.json and public.json so that both appear or neither. */
int write_pair(const char *p1, const char *t1, const char *p2, const char *t2);

int cmd_serve(int argc, char **argv);
int cmd_submit(int argc, char **argv);
void serve_usage(FILE *out);
void submit_usage(FILE *out);

#endif
