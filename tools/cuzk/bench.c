/* cuzk bench: N proofs of one key and witness through the engine (its
 * options from the engine's table, src/engine/options.c, as cuzk serve
 * takes them), then throughput, latency percentiles, the engine's stats
 * over the timed run (src/engine/stats.c renders them) and the mean
 * phases of a proof (src/core/phases.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/programs.h"
#include "cli.h"
#include "commands.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void bench_usage(FILE *out)
{
    fprintf(out, "usage: cuzk bench <circuit.zkey> <witness.wtns> [--jobs N] [--json] [engine options]\n"
                 "\n"
                 "Proves N times (default 20) through the engine's pipeline (prepare -> compute\n"
                 "-> finalize; docs/engine.md) after one untimed proof that loads the key (and\n"
                 "uploads it to a GPU); prints throughput, latency percentiles, the engine's\n"
                 "stats over the timed run (how busy each pool, worker and GPU was, the queues,\n"
                 "the device-memory plan) and the mean phases of a proof; --json prints them\n"
                 "as one JSON object.\n"
                 "\n"
                 "  --jobs N\n        proofs timed, 1-100000 (default 20)\n"
                 "  --json\n        the report as JSON on stdout\n");
    cli_engine_options_help(out, 0);
}

/* The stats over the timed run: the engine's figures since its start,
 * less those at the start of the timing (the busy fractions rescaled to
 * the run's span, the means over the timed jobs). */
void bench_timed_stats(cuzk_engine_stats *st, const cuzk_engine_stats *st0)
{
    double span = st->uptime - st0->uptime;
    if (span > 0) {
#define RESCALE(f) st->f = (st->f * st->uptime - st0->f * st0->uptime) / span
        RESCALE(prepare_busy);
        RESCALE(worker_busy);
        RESCALE(finalize_busy);
        for (int g = 0; g < st->gpus && g < CUZK_ENGINE_MAX_GPUS; g++)
            RESCALE(gpu_busy[g]);
        for (int w = 0; w < st->workers && w < CUZK_ENGINE_MAX_WORKERS; w++)
            RESCALE(compute_worker_busy[w]);
#undef RESCALE
    }
    double n = (double)(st->done - st0->done);
    if (n > 0) {
#define RESCALE(f) st->f = (st->f * (double)st->done - st0->f * (double)st0->done) / n
        RESCALE(mean_queue_wait);
        RESCALE(mean_load);
        RESCALE(mean_prepare);
        RESCALE(mean_ready_wait);
        RESCALE(mean_compute);
        RESCALE(mean_finalize_wait);
        RESCALE(mean_finalize);
        RESCALE(mean_verify);
        RESCALE(mean_latency);
#undef RESCALE
    }
    /* the counters: events of the timed run only */
    st->done -= st0->done;
    st->failed -= st0->failed;
    st->cancelled -= st0->cancelled;
    st->plan_waits -= st0->plan_waits;
    st->plan_drops -= st0->plan_drops;
    st->plan_cpu -= st0->plan_cpu;
    st->plan_staged -= st0->plan_staged;
    st->plan_unstaged -= st0->plan_unstaged;
    st->plan_chunked -= st0->plan_chunked;
    st->uptime = span;
}

int cmd_bench(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "porep"))
        return cmd_bench_porep(argc - 1, argv + 1);
    const char *paths[2];
    int npaths = 0, jobs = 20, json = 0;
    cuzk_engine_config cfg = {.workers = 1};
    if (cli_env_engine(&cfg)) /* CUZK_GPU_UPLOAD, ...: flags override them */
        return 2;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            bench_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json"))
            json = 1;
        else if (!strncmp(a, "--", 2) && cli_engine_flag_off(&cfg, a + 2, 0) == 0)
            continue;
        else if (!strcmp(a, "--jobs") || cli_is_engine_option(a, 0)) {
            if (i + 1 >= argc)
                return fail("bench: %s needs a value", a);
            const char *v = argv[++i];
            bad = !strcmp(a, "--jobs") ? parse_count("--jobs", v, 1, 100000, &jobs)
                                       : cli_engine_option(&cfg, a + 2, a, v, 0);
        } else if (a[0] == '-' && a[1])
            return fail("bench: unknown option '%s'; see cuzk bench --help", a);
        else if (npaths == 2)
            return fail("bench takes 2 files: <circuit.zkey> <witness.wtns>; '%s' is a third", a);
        else
            paths[npaths++] = a;
        if (bad)
            return bad;
    }
    if (npaths != 2)
        return fail("bench takes 2 files: <circuit.zkey> <witness.wtns>, got %d", npaths);
    cfg.max_jobs = (unsigned)jobs;
    cuzk_error err = {0};
    cuzk_engine *e;
    progress_state ps = progress_start("bench"); /* the key's read and upload, then the jobs */
    cfg.progress = print_progress;
    cfg.progress_ctx = &ps;
    if (cuzk_engine_create(&cfg, &e, &err) != CUZK_OK)
        return fail_err(&err);
    /* the first proof loads the key (and uploads it to a GPU): not timed */
    unsigned long long id;
    cuzk_job_request req = {.key_path = paths[0], .witness_path = paths[1], .priority = CUZK_PRIORITY_NORMAL};
    cuzk_job_info info;
    print_progress(&ps, "the first proof (not timed)", 0, 1);
    if (cuzk_engine_submit(e, &req, &id, &err) != CUZK_OK || cuzk_engine_wait(e, id, -1, &info, &err) != CUZK_OK) {
        cuzk_engine_destroy(e);
        progress_done(&ps);
        return fail_err(&err);
    }
    print_progress(&ps, "the first proof (not timed)", 1, 1);
    if (info.state != CUZK_JOB_DONE) {
        cuzk_engine_destroy(e);
        return fail("%s", info.error);
    }
    char device[16];
    snprintf(device, sizeof(device), "%s", info.timings.device);
    if (cuzk_engine_release(e, id, &err) != CUZK_OK) { /* cannot fail for an ended job */
    }
    unsigned long long *ids = malloc((size_t)jobs * sizeof(*ids));
    double *lat = malloc((size_t)jobs * sizeof(*lat));
    if (!ids || !lat) {
        free(ids);
        free(lat);
        cuzk_engine_destroy(e);
        return fail("out of memory");
    }
    cuzk_engine_stats st0;
    cuzk_engine_get_stats(e, &st0);
    double t0 = cuzk_now();
    for (int i = 0; i < jobs; i++)
        if (cuzk_engine_submit(e, &req, &ids[i], &err) != CUZK_OK) {
            free(ids);
            free(lat);
            cuzk_engine_destroy(e);
            return fail_err(&err);
        }
    cuzk_timings sum = {0};
    int failed = 0;
    for (int i = 0; i < jobs; i++) {
        print_progress(&ps, "proofs", (unsigned long long)i, (unsigned long long)jobs);
        if (cuzk_engine_wait(e, ids[i], -1, &info, &err) != CUZK_OK || info.state != CUZK_JOB_DONE) {
            if (!failed)
                fprintf(stderr, "cuzk: job %d failed: %s\n", i, info.error);
            failed++;
            continue;
        }
        lat[i] = info.latency;
        for (size_t k = 0; k < TIMING_FIELDS; k++)
            *(double *)(void *)((char *)&sum + timing_fields[k].offset) += timing_value(&info.timings, &timing_fields[k]);
    }
    double wall = cuzk_now() - t0;
    print_progress(&ps, "proofs", (unsigned long long)jobs, (unsigned long long)jobs);
    progress_done(&ps);
    cuzk_engine_stats st;
    cuzk_engine_get_stats(e, &st);
    cuzk_engine_destroy(e);
    free(ids);
    if (failed) {
        free(lat);
        return fail("%d of %d jobs failed", failed, jobs);
    }
    bench_timed_stats(&st, &st0);
    qsort(lat, (size_t)jobs, sizeof(*lat), cmp_double);
    double p50 = lat[jobs / 2], p90 = lat[(int)(jobs * 0.9)], p99 = lat[(int)(jobs * 0.99)];
    free(lat);
    char *engine = json ? stats_json_members(&st) : stats_text(&st);
    if (!engine)
        return fail("out of memory");
    if (json) {
        printf("{\"jobs\": %d, \"device\": \"%s\", \"wall\": %.6f, \"proofs_per_s\": %.4f, \"latency_p50\": %.6f, "
               "\"latency_p90\": %.6f, \"latency_p99\": %.6f, \"mean_phases\": {",
               jobs, device, wall, jobs / wall, p50, p90, p99);
        for (size_t k = 0; k < TIMING_FIELDS; k++)
            printf("%s\"%s\": %.6f", k ? ", " : "", timing_fields[k].key,
                   timing_value(&sum, &timing_fields[k]) / jobs);
        printf("}, \"engine\": {%s}}\n", engine);
    } else {
        printf("%d proofs, %d in flight, on %s: %.3f s, %.2f proofs/s\n", jobs, st.workers, device, wall,
               jobs / wall);
        printf("latency (submit to proof) p50 %.4f s, p90 %.4f s, p99 %.4f s\n", p50, p90, p99);
        printf("engine over the timed run:\n%s", engine);
        printf("mean phases per proof:\n");
        for (size_t k = 0; k < TIMING_FIELDS; k++)
            printf("  %-10s %9.4f s\n", timing_fields[k].label, timing_value(&sum, &timing_fields[k]) / jobs);
    }
    free(engine);
    return 0;
}
