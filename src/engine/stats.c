#include "stats.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../util/size_text.h"

#define OFF(f) offsetof(cuzk_engine_stats, f)
#define ONE(json, metric, labels, text, help, type, kind, unit, f)                                              \
    {json, metric, labels, text, help, type, kind, unit, STAT_ONE, OFF(f)}
#define PER(per, json, metric, labels, text, help, type, kind, unit, f)                                         \
    {json, metric, labels, text, help, type, kind, unit, per, OFF(f)}

/* In the order of the renderings; entries of one JSON object (and of one
 * metric name) stand together. */
const stat_desc engine_stats[] = {
    ONE("queued.low", "cuzk_jobs_queued", "priority=\"low\"", "queued low", "jobs in the admission queue",
        STAT_U32, STAT_GAUGE, STAT_COUNT, queued[0]),
    ONE("queued.normal", "cuzk_jobs_queued", "priority=\"normal\"", "queued normal", NULL, STAT_U32, STAT_GAUGE,
        STAT_COUNT, queued[1]),
    ONE("queued.high", "cuzk_jobs_queued", "priority=\"high\"", "queued high", NULL, STAT_U32, STAT_GAUGE,
        STAT_COUNT, queued[2]),
    ONE("queued.critical", "cuzk_jobs_queued", "priority=\"critical\"", "queued critical", NULL, STAT_U32,
        STAT_GAUGE, STAT_COUNT, queued[3]),
    ONE("running", "cuzk_jobs_running", NULL, "jobs running", "jobs past admission, not ended", STAT_U32, STAT_GAUGE,
        STAT_COUNT, running),
    ONE("done", "cuzk_jobs_total", "state=\"done\"", "jobs done", "jobs ended, by how", STAT_U64, STAT_COUNTER,
        STAT_COUNT, done),
    ONE("failed", "cuzk_jobs_total", "state=\"failed\"", "jobs failed", NULL, STAT_U64, STAT_COUNTER, STAT_COUNT,
        failed),
    ONE("cancelled", "cuzk_jobs_total", "state=\"cancelled\"", "jobs cancelled", NULL, STAT_U64, STAT_COUNTER,
        STAT_COUNT, cancelled),
    ONE("keys_cached", "cuzk_keys_cached", NULL, "keys cached", "keys loaded in the cache", STAT_U32, STAT_GAUGE,
        STAT_COUNT, keys_cached),
    ONE("key_bytes", "cuzk_key_cache_bytes", NULL, "key cache", "file bytes of the cached keys", STAT_U64,
        STAT_GAUGE, STAT_BYTES, key_bytes),
    ONE("uptime", "cuzk_uptime_seconds", NULL, "uptime", "seconds since the engine started", STAT_F64, STAT_GAUGE,
        STAT_SECONDS, uptime),
    ONE("worker_busy", "cuzk_worker_busy_ratio", NULL, "compute workers busy",
        "share of uptime the compute workers spent computing", STAT_F64, STAT_GAUGE, STAT_RATIO, worker_busy),
    ONE("workers", "cuzk_workers", "pool=\"compute\"", "compute workers", "threads in each pool", STAT_I32,
        STAT_GAUGE, STAT_COUNT, workers),
    ONE("pipeline.workers.prepare", "cuzk_workers", "pool=\"prepare\"", "prepare workers", NULL, STAT_I32,
        STAT_GAUGE, STAT_COUNT, prepare_workers),
    ONE("pipeline.workers.finalize", "cuzk_workers", "pool=\"finalize\"", "finalize workers", NULL, STAT_I32,
        STAT_GAUGE, STAT_COUNT, finalize_workers),
    ONE("pipeline.gpus", "cuzk_gpus_proving", NULL, "GPUs proving", "GPUs the engine proves on (0: the CPU)",
        STAT_I32, STAT_GAUGE, STAT_COUNT, gpus),
    ONE("pipeline.stages.preparing", "cuzk_jobs_in_stage", "stage=\"prepare\"", "jobs preparing",
        "jobs in each stage and queue of the pipeline", STAT_U32, STAT_GAUGE, STAT_COUNT, preparing),
    ONE("pipeline.stages.ready", "cuzk_jobs_in_stage", "stage=\"ready\"", "jobs ready", NULL, STAT_U32, STAT_GAUGE,
        STAT_COUNT, ready),
    ONE("pipeline.stages.computing", "cuzk_jobs_in_stage", "stage=\"compute\"", "jobs computing", NULL, STAT_U32,
        STAT_GAUGE, STAT_COUNT, computing),
    ONE("pipeline.stages.finalize_waiting", "cuzk_jobs_in_stage", "stage=\"finalize_wait\"", "jobs waiting to finalize",
        NULL, STAT_U32, STAT_GAUGE, STAT_COUNT, finalize_waiting),
    ONE("pipeline.stages.finalizing", "cuzk_jobs_in_stage", "stage=\"finalize\"", "jobs finalizing", NULL, STAT_U32,
        STAT_GAUGE, STAT_COUNT, finalizing),
    ONE("pipeline.queues.ready_depth", "cuzk_queue_depth", "queue=\"ready\"", "ready queue depth",
        "the bound of each queue between stages", STAT_U32, STAT_GAUGE, STAT_COUNT, ready_queue_depth),
    ONE("pipeline.queues.finalize_depth", "cuzk_queue_depth", "queue=\"finalize\"", "finalize queue depth", NULL,
        STAT_U32, STAT_GAUGE, STAT_COUNT, finalize_queue_depth),
    ONE("pipeline.queues.ready_max", "cuzk_queue_max", "queue=\"ready\"", "ready queue most held",
        "the most jobs each queue has held at once", STAT_U32, STAT_GAUGE, STAT_COUNT, ready_max),
    ONE("pipeline.queues.finalize_max", "cuzk_queue_max", "queue=\"finalize\"", "finalize queue most held", NULL,
        STAT_U32, STAT_GAUGE, STAT_COUNT, finalize_queue_max),
    ONE("pipeline.queues.prepare_ahead", "cuzk_prepare_ahead", NULL, "jobs prepared ahead",
        "jobs prepared before a compute worker is free for them", STAT_I32, STAT_GAUGE, STAT_COUNT, prepare_ahead),
    ONE("pipeline.busy.prepare", "cuzk_pool_busy_ratio", "pool=\"prepare\"", "prepare pool busy",
        "share of uptime each pool spent at work", STAT_F64, STAT_GAUGE, STAT_RATIO, prepare_busy),
    ONE("pipeline.busy.compute", "cuzk_pool_busy_ratio", "pool=\"compute\"", "compute pool busy", NULL, STAT_F64,
        STAT_GAUGE, STAT_RATIO, worker_busy),
    ONE("pipeline.busy.finalize", "cuzk_pool_busy_ratio", "pool=\"finalize\"", "finalize pool busy", NULL, STAT_F64,
        STAT_GAUGE, STAT_RATIO, finalize_busy),
    PER(STAT_PER_GPU, "pipeline.busy.gpu", "cuzk_gpu_busy_ratio", "gpu=\"%u\"", "GPU %u computing",
        "share of uptime with a job in compute on each GPU", STAT_F64, STAT_GAUGE, STAT_RATIO, gpu_busy),
    PER(STAT_PER_WORKER, "pipeline.busy.compute_workers", "cuzk_compute_worker_busy_ratio", "worker=\"%u\"",
        "compute worker %u busy", "share of uptime each compute worker spent computing", STAT_F64, STAT_GAUGE,
        STAT_RATIO, compute_worker_busy),
    PER(STAT_PER_WORKER, "pipeline.compute_worker_gpu", "cuzk_compute_worker_gpu", "worker=\"%u\"",
        "compute worker %u on GPU", "the GPU each compute worker proves on (-1: the CPU)", STAT_I32, STAT_GAUGE,
        STAT_COUNT, compute_worker_gpu),
    ONE("pipeline.mean_seconds.queue_wait", "cuzk_stage_mean_seconds", "stage=\"queue_wait\"", "mean queue wait",
        "mean seconds per job done, by stage and wait", STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_queue_wait),
    ONE("pipeline.mean_seconds.load", "cuzk_stage_mean_seconds", "stage=\"load\"", "mean load", NULL, STAT_F64,
        STAT_GAUGE, STAT_SECONDS, mean_load),
    ONE("pipeline.mean_seconds.prepare", "cuzk_stage_mean_seconds", "stage=\"prepare\"", "mean prepare", NULL,
        STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_prepare),
    ONE("pipeline.mean_seconds.ready_wait", "cuzk_stage_mean_seconds", "stage=\"ready_wait\"", "mean ready wait",
        NULL, STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_ready_wait),
    ONE("pipeline.mean_seconds.compute", "cuzk_stage_mean_seconds", "stage=\"compute\"", "mean compute", NULL,
        STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_compute),
    ONE("pipeline.mean_seconds.finalize_wait", "cuzk_stage_mean_seconds", "stage=\"finalize_wait\"",
        "mean finalize wait", NULL, STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_finalize_wait),
    ONE("pipeline.mean_seconds.finalize", "cuzk_stage_mean_seconds", "stage=\"finalize\"", "mean finalize", NULL,
        STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_finalize),
    ONE("pipeline.mean_seconds.verify", "cuzk_stage_mean_seconds", "stage=\"verify\"", "mean verify", NULL,
        STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_verify),
    ONE("pipeline.mean_seconds.latency", "cuzk_stage_mean_seconds", "stage=\"latency\"", "mean latency", NULL,
        STAT_F64, STAT_GAUGE, STAT_SECONDS, mean_latency),
    ONE("pipeline.job_bytes", "cuzk_job_memory_bytes", "use=\"held\"", "jobs' host memory",
        "host bytes the jobs in the pipeline hold (witnesses, prepared arrays: --job-memory), now and the most",
        STAT_U64, STAT_GAUGE, STAT_BYTES, job_bytes),
    ONE("pipeline.job_bytes_max", "cuzk_job_memory_bytes", "use=\"max\"", "jobs' host memory, most", NULL, STAT_U64,
        STAT_GAUGE, STAT_BYTES, job_bytes_max),
    PER(STAT_PER_GPU, "gpu_memory[].budget", "cuzk_gpu_memory_bytes", "gpu=\"%u\",use=\"budget\"",
        "GPU %u memory budget", "the device-memory plan per GPU: its budget, the keys' copies, the proofs' pool",
        STAT_U64, STAT_GAUGE, STAT_BYTES, gpu_budget),
    PER(STAT_PER_GPU, "gpu_memory[].keys", "cuzk_gpu_memory_bytes", "gpu=\"%u\",use=\"keys\"", "GPU %u keys", NULL,
        STAT_U64, STAT_GAUGE, STAT_BYTES, gpu_key_bytes),
    PER(STAT_PER_GPU, "gpu_memory[].proofs", "cuzk_gpu_memory_bytes", "gpu=\"%u\",use=\"proofs\"",
        "GPU %u proofs' pool", NULL, STAT_U64, STAT_GAUGE, STAT_BYTES, gpu_pool_bytes),
    ONE("gpu_plan.waits", "cuzk_gpu_plan_events_total", "event=\"wait\"", "proofs waited for GPU memory",
        "events of the device-memory plan", STAT_U64, STAT_COUNTER, STAT_COUNT, plan_waits),
    ONE("gpu_plan.drops", "cuzk_gpu_plan_events_total", "event=\"key_dropped\"", "key copies dropped for room", NULL,
        STAT_U64, STAT_COUNTER, STAT_COUNT, plan_drops),
    ONE("gpu_plan.to_cpu", "cuzk_gpu_plan_events_total", "event=\"to_cpu\"", "proofs sent to the CPU", NULL, STAT_U64,
        STAT_COUNTER, STAT_COUNT, plan_cpu),
    ONE("gpu_plan.other_gpu", "cuzk_gpu_plan_events_total", "event=\"other_gpu\"", "proofs sent to another GPU",
        NULL, STAT_U64, STAT_COUNTER, STAT_COUNT, plan_other_gpu),
    ONE("gpu_plan.streamed", "cuzk_gpu_plan_events_total", "event=\"streamed\"", "proofs on the streamed path", NULL,
        STAT_U64, STAT_COUNTER, STAT_COUNT, plan_chunked),
    ONE("gpu_plan.staged", "cuzk_gpu_plan_events_total", "event=\"staged\"", "proofs with the witness pre-staged",
        NULL, STAT_U64, STAT_COUNTER, STAT_COUNT, plan_staged),
    ONE("gpu_plan.unstaged", "cuzk_gpu_plan_events_total", "event=\"unstaged\"", "GPU proofs not pre-staged", NULL,
        STAT_U64, STAT_COUNTER, STAT_COUNT, plan_unstaged),
};
#undef PER
#undef ONE
#undef OFF

const size_t engine_stat_count = sizeof(engine_stats) / sizeof(engine_stats[0]);

unsigned stat_values(const stat_desc *d, const cuzk_engine_stats *st)
{
    int n = d->per == STAT_PER_GPU ? st->gpus : d->per == STAT_PER_WORKER ? st->workers : 1;
    int max = d->per == STAT_PER_GPU ? CUZK_ENGINE_MAX_GPUS : CUZK_ENGINE_MAX_WORKERS;
    return n < 0 ? 0 : n > max ? (unsigned)max : (unsigned)n;
}

double stat_value(const stat_desc *d, const cuzk_engine_stats *st, unsigned i)
{
    const char *p = (const char *)st + d->offset;
    switch (d->type) {
    case STAT_U32:
        return ((const unsigned *)(const void *)p)[i];
    case STAT_U64:
        return (double)((const unsigned long long *)(const void *)p)[i];
    case STAT_I32:
        return ((const int *)(const void *)p)[i];
    default:
        return ((const double *)(const void *)p)[i];
    }
}

/* ------------------------------------------------------------ a growing text */

typedef struct text {
    char *s;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(text *t, const char *fmt, ...)
{
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s ? t->s + t->len : NULL, t->s ? t->cap - t->len : 0, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if (t->s && t->len + (size_t)n < t->cap) {
            t->len += (size_t)n;
            return;
        }
        size_t cap = (t->cap ? 2 * t->cap : 4096) + (size_t)n;
        char *g = realloc(t->s, cap);
        if (!g) {
            t->failed = 1;
            return;
        }
        t->s = g;
        t->cap = cap;
    }
}

static char *finish(text *t)
{
    if (!t->s && !t->failed)
        put(t, "%s", "");
    if (t->failed) {
        free(t->s);
        return NULL;
    }
    return t->s;
}

/* A value as the machine renderings write it: integers exactly, the rest
 * with six decimals. */
static void put_number(text *t, const stat_desc *d, double v)
{
    if (d->type == STAT_F64)
        put(t, "%.6f", v);
    else
        put(t, "%.0f", v);
}

/* ------------------------------------------------------------ JSON */

/* The length of the path's first n components' prefix. */
static size_t prefix_len(const char *path, int n)
{
    size_t i = 0;
    for (int k = 0; k < n; k++) {
        const char *dot = strchr(path + i, '.');
        if (!dot)
            return strlen(path);
        i = (size_t)(dot - path) + 1;
    }
    return i;
}

static int components(const char *path)
{
    int n = 1;
    for (; *path; path++)
        n += *path == '.';
    return n;
}

/* The i-th component of path, as [*s, *s + *n). */
static void component(const char *path, int i, const char **s, size_t *n)
{
    const char *p = path;
    for (int k = 0; k < i; k++)
        p = strchr(p, '.') + 1;
    const char *dot = strchr(p, '.');
    *s = p;
    *n = dot ? (size_t)(dot - p) : strlen(p);
}

/* How many leading components a and b share (as objects: not the leaf). */
static int shared(const char *a, const char *b)
{
    int na = components(a), nb = components(b), k = 0;
    while (k < na - 1 && k < nb - 1) {
        size_t la = prefix_len(a, k + 1), lb = prefix_len(b, k + 1);
        if (la != lb || strncmp(a, b, la))
            break;
        k++;
    }
    return k;
}

char *stats_json_members(const cuzk_engine_stats *st)
{
    text t = {0};
    char prev[128] = ""; /* the path of the last value written (an array of objects: its name) */
    int open = 0;            /* objects open along prev */
    int first = 1;           /* no member yet at the current depth */
    for (size_t i = 0; i < engine_stat_count; i++) {
        const stat_desc *d = &engine_stats[i];
        const char *brackets = strstr(d->json, "[]");
        /* "X[].k": the run of entries under X[] is one array of objects */
        size_t run = 1;
        if (brackets)
            while (i + run < engine_stat_count &&
                   !strncmp(engine_stats[i + run].json, d->json, (size_t)(brackets - d->json) + 2))
                run++;
        /* the path whose objects must be open: X for "X[].k" */
        char path[128];
        snprintf(path, sizeof(path), "%.*s", brackets ? (int)(brackets - d->json) : (int)strlen(d->json), d->json);
        int keep = prev[0] ? shared(prev, path) : 0;
        while (open > keep) {
            put(&t, "}");
            open--;
            first = 0;
        }
        int depth = components(path) - 1;
        while (open < depth) {
            const char *s;
            size_t n;
            component(path, open, &s, &n);
            put(&t, "%s\"%.*s\": {", first ? "" : ", ", (int)n, s);
            open++;
            first = 1;
        }
        const char *leaf;
        size_t leaf_n;
        component(path, depth, &leaf, &leaf_n);
        put(&t, "%s\"%.*s\": ", first ? "" : ", ", (int)leaf_n, leaf);
        first = 0;
        if (brackets) {
            unsigned n = stat_values(d, st);
            put(&t, "[");
            for (unsigned k = 0; k < n; k++) {
                put(&t, "%s{", k ? ", " : "");
                for (size_t r = 0; r < run; r++) {
                    const stat_desc *e = &engine_stats[i + r];
                    put(&t, "%s\"%s\": ", r ? ", " : "", strstr(e->json, "[].") + 3);
                    put_number(&t, e, stat_value(e, st, k));
                }
                put(&t, "}");
            }
            put(&t, "]");
            i += run - 1;
        } else if (d->per != STAT_ONE) {
            unsigned n = stat_values(d, st);
            put(&t, "[");
            for (unsigned k = 0; k < n; k++) {
                put(&t, "%s", k ? ", " : "");
                put_number(&t, d, stat_value(d, st, k));
            }
            put(&t, "]");
        } else
            put_number(&t, d, stat_value(d, st, 0));
        memcpy(prev, path, sizeof(prev));
    }
    while (open-- > 0)
        put(&t, "}");
    return finish(&t);
}

/* ------------------------------------------------------------ Prometheus */

char *stats_prometheus(const cuzk_engine_stats *st)
{
    text t = {0};
    for (size_t i = 0; i < engine_stat_count; i++) {
        const stat_desc *d = &engine_stats[i];
        if (!i || strcmp(engine_stats[i - 1].metric, d->metric)) {
            /* the first of its name: # HELP from the first entry that has one */
            const char *help = NULL;
            for (size_t k = i; k < engine_stat_count && !strcmp(engine_stats[k].metric, d->metric) && !help; k++)
                help = engine_stats[k].help;
            if (help)
                put(&t, "# HELP %s %s\n", d->metric, help);
            put(&t, "# TYPE %s %s\n", d->metric, d->kind == STAT_COUNTER ? "counter" : "gauge");
        }
        unsigned n = stat_values(d, st);
        for (unsigned k = 0; k < n; k++) {
            put(&t, "%s", d->metric);
            if (d->labels) {
                put(&t, "{");
                put(&t, d->labels, k); /* the table's formats take the index */
                put(&t, "}");
            }
            put(&t, " ");
            put_number(&t, d, stat_value(d, st, k));
            put(&t, "\n");
        }
    }
    return finish(&t);
}

/* ------------------------------------------------------------ text */

char *stats_text(const cuzk_engine_stats *st)
{
    text t = {0};
    for (size_t i = 0; i < engine_stat_count; i++) {
        const stat_desc *d = &engine_stats[i];
        unsigned n = stat_values(d, st);
        for (unsigned k = 0; k < n; k++) {
            char label[96];
            snprintf(label, sizeof(label), d->text, k);
            double v = stat_value(d, st, k);
            put(&t, "  %s ", label);
            switch (d->unit) {
            case STAT_RATIO:
                put(&t, "%.1f %%\n", 100 * v);
                break;
            case STAT_SECONDS:
                put(&t, "%.4f s\n", v);
                break;
            case STAT_BYTES:
                put(&t, "%s\n", cuzk_size_str((unsigned long long)v).s);
                break;
            default:
                put(&t, "%.0f\n", v);
            }
        }
    }
    return finish(&t);
}
