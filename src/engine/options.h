/* The engine's options, in one table (redis's config table is the model):
 * name, value type, bounds, default and help of each, and the field of
 * cuzk_engine_config it sets. `cuzk serve` (its flags and its --config
 * file), `cuzk bench` and the engine's own check of a configuration
 * (cuzk_engine_create) all read it, so they accept the same values and
 * answer a bad one the same way. */
#ifndef CUZK_ENGINE_OPTIONS_H
#define CUZK_ENGINE_OPTIONS_H

#include <stddef.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"

typedef enum engine_option_type {
    ENGINE_OPT_INT,    /* an int field */
    ENGINE_OPT_UINT,   /* an unsigned field */
    ENGINE_OPT_BYTES,  /* an unsigned long long field: a size (K, M, G, T suffixes, 2^k) */
    ENGINE_OPT_COUNT,  /* an unsigned long long field: a count (2^k allowed) */
    ENGINE_OPT_DEVICE, /* an int field: auto|gpu|cpu */
    ENGINE_OPT_CHOICE, /* an int field: the index of one of `choices` */
    ENGINE_OPT_OFF,    /* an int field set to 1 by the value 0: "prestage 0" sets no_prestage */
    ENGINE_OPT_GPU_BYTES /* gpu_memory_budget: "B" (every GPU), "G=B" (GPU G: gpu_memory_budgets[G]),
                            or several of them, comma-separated */
} engine_option_type;

typedef struct engine_option {
    const char *name;  /* as the flag (--name) and the --config key spell it */
    const char *alias; /* another flag name accepted (cuzk bench's --gpu-workers), or NULL */
    const char *env;   /* the environment variable the cuzk command maps to it, or NULL */
    const char *field; /* the cuzk_engine_config field, for messages about a config struct */
    const char *arg;   /* the value's shape in the help: "W", "B", "0|1" */
    engine_option_type type;
    long long lo, hi;  /* the values a user may give */
    int zero_default;  /* the field's 0 (a config struct left zero) means the default */
    const char *const *choices; /* ENGINE_OPT_CHOICE: value i is choices[i], NULL-terminated */
    size_t offset;     /* of the field in cuzk_engine_config */
    const char *help;  /* the meaning, the range and the default, for --help */
    int serve_only;    /* only cuzk serve takes it (not cuzk bench) */
} engine_option;

extern const engine_option engine_options[];
extern const size_t engine_option_count;

/* By name or alias; NULL if none. */
const engine_option *engine_option_find(const char *name);
/* Sets the option's field in cfg from text. A bad value fails with err
 * saying "<label> expects ..., got '<text>'" (label: "--workers",
 * "FILE:LINE: workers", "CUZK_GPU_UPLOAD"). */
int engine_option_set(cuzk_engine_config *cfg, const engine_option *o, const char *label, const char *text,
                      cuzk_error *err);
/* Every field of cfg against its option: 0 where that means the default,
 * else within the bounds (what cuzk_engine_create checks first). */
int engine_options_check(const cuzk_engine_config *cfg, cuzk_error *err);

#endif
