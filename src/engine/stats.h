/* The engine's stats (cuzk_engine_stats), listed once: for each, where it
 * goes in the daemon's /v1/status JSON, its Prometheus name and labels in
 * /metrics, its line in cuzk bench's report, and its help. Every rendering
 * iterates this one table, so a stat added to the struct and the table
 * shows in all of them. */
#ifndef CUZK_ENGINE_STATS_H
#define CUZK_ENGINE_STATS_H

#include <stddef.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_engine.h"

typedef enum { STAT_U32, STAT_U64, STAT_I32, STAT_F64 } stat_type;
typedef enum { STAT_GAUGE, STAT_COUNTER } stat_kind;
typedef enum { STAT_COUNT, STAT_SECONDS, STAT_RATIO, STAT_BYTES } stat_unit;
/* One value, or one per GPU proving (stats.gpus) or per compute worker
 * (stats.workers, at most CUZK_ENGINE_MAX_WORKERS): the field is then an
 * array. */
typedef enum { STAT_ONE, STAT_PER_GPU, STAT_PER_WORKER } stat_per;

typedef struct stat_desc {
    /* the /v1/status path: "pipeline.stages.preparing" (objects by dots);
     * per GPU or worker the value is an array, and "gpu_memory[].budget"
     * makes an array of objects, one per GPU */
    const char *json;
    const char *metric; /* Prometheus name */
    const char *labels; /* its labels, "%u" standing for the GPU's or worker's index; NULL: none */
    const char *text;   /* cuzk bench's line, "%u" for the index */
    const char *help;
    stat_type type;
    stat_kind kind;
    stat_unit unit;
    stat_per per;
    size_t offset; /* of the field (of its array's first element) */
} stat_desc;

extern const stat_desc engine_stats[];
extern const size_t engine_stat_count;

/* How many values the stat has in st (1, or the GPUs or workers). */
unsigned stat_values(const stat_desc *d, const cuzk_engine_stats *st);
/* Its i-th value. */
double stat_value(const stat_desc *d, const cuzk_engine_stats *st, unsigned i);

/* The renderings, each a malloc'd NUL-terminated text (NULL: out of
 * memory):
 *   stats_json_members  the /v1/status members, `"queued": {...}, ...`
 *                       without the enclosing braces (the caller adds its
 *                       own members: the daemon's results kept, ...)
 *   stats_prometheus    the /metrics lines (# HELP, # TYPE, samples)
 *   stats_text          "  <text> <value>" lines (cuzk bench) */
char *stats_json_members(const cuzk_engine_stats *st);
char *stats_prometheus(const cuzk_engine_stats *st);
char *stats_text(const cuzk_engine_stats *st);

#endif
