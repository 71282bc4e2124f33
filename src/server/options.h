/* The daemon's own options, in one table as the engine's are
 * (src/engine/options.h): name, value, bounds, default and help of each,
 * and the field of cuzk_serve_config it sets. `cuzk serve` reads its
 * flags and its --config file through it and renders its --help from it,
 * the daemon fills its defaults and checks a configuration with it
 * (cuzk_serve), `/v1/status` shows the values in force, and the man
 * page's list of the daemon's options is its rendering (`cuzk serve
 * --help-troff`, checked by tests/test_cli.sh). */
#ifndef CUZK_SERVER_OPTIONS_H
#define CUZK_SERVER_OPTIONS_H

#include <stddef.h>

#include "../../include/cuzk_serve.h"

typedef enum serve_option_type {
    SERVE_OPT_TEXT,    /* a string the command checks itself (an address, a path, a name) */
    SERVE_OPT_FLAG,    /* an int field, 1 by the bare flag or yes/no in a config file */
    SERVE_OPT_BYTES,   /* an unsigned long long field: a size (K, M, G, T suffixes, 2^k) */
    SERVE_OPT_SECONDS, /* a double field: whole seconds */
    SERVE_OPT_UINT     /* an unsigned field */
} serve_option_type;

#define SERVE_NO_FIELD ((size_t)-1) /* an option the command turns into several fields (listen, key) */

typedef struct serve_option {
    const char *name;  /* as the flag (--name) and the --config key spell it */
    const char *arg;   /* the value's shape in the help ("S", "B", "DIR"); NULL for a flag */
    serve_option_type type;
    long long lo, hi;  /* the values a user may give (numbers) */
    long long dflt;    /* what the field's 0 means (numbers; 0: see dflt_text) */
    const char *dflt_text; /* the default in words where it is not one number, or NULL */
    int zero_is_none;  /* a user's 0 means none (stored as -1: shutdown-grace) */
    int repeatable;    /* may be given many times (key-dir, witness-dir, key, key-circuit) */
    size_t offset;     /* of the field in cuzk_serve_config, or SERVE_NO_FIELD */
    const char *help;  /* the meaning, for --help (range and default are added) */
    /* a TEXT option's form, checked where it is given and by cuzk_serve
     * (NULL: the command checks it: a path, an address) */
    int (*check_text)(const char *label, const char *text, cuzk_error *err);
} serve_option;

extern const serve_option serve_options[];
extern const size_t serve_option_count;

/* By name; NULL if none. */
const serve_option *serve_option_find(const char *name);
/* Sets a FLAG, BYTES, SECONDS or UINT option's field from text; a bad
 * value fails with err saying "<label> expects ..., got '<text>'". */
int serve_option_set(cuzk_serve_config *cfg, const serve_option *o, const char *label, const char *text,
                     cuzk_error *err);
/* Every numeric field left 0 gets its default (the derived ones too:
 * max-connections-per-ip, max-body-total), then each is checked against
 * its bounds and the others (max-body-total >= max-body, a node's name). */
int serve_options_resolve(cuzk_serve_config *cfg, cuzk_error *err);
/* The option's range and default in words ("" for an option with
 * neither), and its help followed by them on a line of their own, as
 * --help prints it (lines of at most 78 characters, indented by the
 * caller). */
void serve_option_range(const serve_option *o, char *buf, size_t n);
void serve_option_help(const serve_option *o, char *buf, size_t n);
/* The option's value in cfg as text ("" for none), for /v1/status. */
void serve_option_value(const cuzk_serve_config *cfg, const serve_option *o, char *buf, size_t n);

#endif
