/* cuzk bench porep: the PoRep C2 job (issue 20) through the engine. A
 * porep-shape circuit in its native form and its .params key are made (or
 * taken from --cache DIR), then K proofs of P partitions each run through
 * the engine's pipeline: each partition's witness made by a prepare worker
 * (live) or made before the timing (pregenerated: what the GPU alone
 * sustains); every partition's proof is pairing-checked by the engine.
 * Prints seconds per proof, the phases of a partition, how busy the GPU and
 * the CPU were, and the host's peak memory and the GPU's key and pool. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/circuit/source.h"
#include "../../src/engine/stats.h"
#include "../../src/formats/wtns.h"
#include "../../src/groth16/timings.h"
#include "../../src/util/clock.h"
#include "../../src/util/size_text.h"
#include "cli.h"
#include "commands.h"

static void porep_usage(FILE *out)
{
    fprintf(out,
            "usage: cuzk bench porep [--constraints N] [--partitions P] [--proofs K] [--device gpu|cpu]\n"
            "                        [--witness live|pregenerated] [--cache DIR] [--json] [engine options]\n"
            "\n"
            "The PoRep C2 job: a porep-shape circuit (default the full 130,278,869\n"
            "constraints, 10 partitions; native form) and its .params key, made in DIR\n"
            "(--cache: kept and reused when they match; else a temporary directory), then\n"
            "K proofs (default 1) of P partitions each through the engine, after one\n"
            "untimed partition that loads the key and uploads it. live (the default): each\n"
            "partition's witness is made by a prepare worker as the pipeline runs;\n"
            "pregenerated: the P witnesses are made before the timing. Every partition's\n"
            "proof is checked with the pairing. Prints seconds per proof, the mean phases\n"
            "of a partition, the GPU's and the CPU's busy fractions, the host's peak\n"
            "memory and the GPU's key and working memory; --json as one object.\n");
    cli_engine_options_help(out, 0);
}

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec * 1e-6;
}

static double peak_rss_bytes(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss * 1024.0; /* kilobytes on Linux */
}

/* The circuit and key in dir: reused when the circuit says the same size
 * and partitions (and the key is there), else made. */
static int make_circuit_and_key(const char *dir, unsigned long long n, unsigned parts, int device, int *made,
                                progress_state *ps)
{
    char circ[4200], key[4200];
    snprintf(circ, sizeof(circ), "%s/circuit.porep", dir);
    snprintf(key, sizeof(key), "%s/key.params", dir);
    cuzk_error err = {0};
    circuit_source *s = NULL;
    struct stat st;
    int same_size = 0, same = 0; /* the key depends on the size alone */
    if (stat(circ, &st) == 0 && circuit_source_open(&s, circ, NULL, &err) == CUZK_OK) {
        same_size = s->n_constraints == n && circuit_source_r1cs(s) == NULL;
        same = same_size && s->partitions == parts;
        circuit_source_free(s);
    }
    *made = 0;
    if (!same) {
        cuzk_porep_shape_options o = {.constraints = n, .partitions = parts, .seed = 1,
                                      .format = CUZK_POREP_FORMAT_NATIVE};
        if (cuzk_circuit_porep_shape(dir, &o, NULL, &err) != CUZK_OK)
            return fail_err(&err);
        if (!same_size)
            unlink(key);
    }
    if (stat(key, &st) != 0) {
        cuzk_setup_options so = {.device = device, .format = CUZK_KEY_PARAMS, .progress = print_progress,
                                 .progress_ctx = ps};
        if (cuzk_setup(circ, NULL, key, &so, &err) != CUZK_OK)
            return fail_err(&err);
        *made = 1;
    }
    return 0;
}

int cmd_bench_porep(int argc, char **argv)
{
    unsigned long long n = CUZK_POREP_CONSTRAINTS, v;
    unsigned parts = CUZK_POREP_PARTITIONS;
    int proofs = 1, json = 0, device = CUZK_DEVICE_AUTO, pregenerated = 0;
    const char *cache = NULL;
    cuzk_engine_config cfg = {.workers = 1};
    if (cli_env_engine(&cfg))
        return 2;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        int bad = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            porep_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--json"))
            json = 1;
        else if (!strncmp(a, "--", 2) && cli_engine_flag_off(&cfg, a + 2, 0) == 0)
            continue;
        else if (!strcmp(a, "--constraints") || !strcmp(a, "--partitions") || !strcmp(a, "--proofs") ||
                 !strcmp(a, "--device") || !strcmp(a, "--witness") || !strcmp(a, "--cache") ||
                 cli_is_engine_option(a, 0)) {
            if (i + 1 >= argc)
                return fail("bench porep: %s needs a value", a);
            const char *val = argv[++i];
            if (!strcmp(a, "--constraints")) {
                if (parse_size(a, val, CUZK_POREP_NATIVE_MAX, &n))
                    return 2;
                if (n < 1024)
                    return fail("--constraints expects at least 1024, got %llu", n);
            } else if (!strcmp(a, "--partitions")) {
                if (parse_size(a, val, 1000, &v))
                    return 2;
                if (!v)
                    return fail("--partitions expects 1 to 1000, got 0");
                parts = (unsigned)v;
            } else if (!strcmp(a, "--proofs"))
                bad = parse_count("--proofs", val, 1, 10000, &proofs);
            else if (!strcmp(a, "--device")) {
                if (!strcmp(val, "gpu"))
                    device = CUZK_DEVICE_GPU;
                else if (!strcmp(val, "cpu"))
                    device = CUZK_DEVICE_CPU;
                else
                    return fail("--device expects gpu or cpu, got '%s'", val);
            } else if (!strcmp(a, "--witness")) {
                if (!strcmp(val, "live"))
                    pregenerated = 0;
                else if (!strcmp(val, "pregenerated"))
                    pregenerated = 1;
                else
                    return fail("--witness expects live or pregenerated, got '%s'", val);
            } else if (!strcmp(a, "--cache"))
                cache = val;
            else
                bad = cli_engine_option(&cfg, a + 2, a, val, 0);
        } else
            return fail("bench porep: unknown argument '%s'; see cuzk bench porep --help", a);
        if (bad)
            return bad;
    }
    if (device != CUZK_DEVICE_AUTO)
        cfg.device = device;
    char tmpl[] = "/tmp/cuzk-bench-porep-XXXXXX";
    const char *dir = cache;
    if (cache) {
        struct stat st;
        if (mkdir(cache, 0777) != 0 && errno != EEXIST)
            return fail("--cache %s: cannot create the directory: %s", cache, strerror(errno));
        if (stat(cache, &st) != 0 || !S_ISDIR(st.st_mode))
            return fail("--cache %s: not a directory", cache);
        if (strlen(cache) > 4000)
            return fail("--cache: the path is too long");
    } else if (!(dir = mkdtemp(tmpl)))
        return fail("cannot make a temporary directory: %s", strerror(errno));
    char circ[4200], key[4200];
    snprintf(circ, sizeof(circ), "%s/circuit.porep", dir);
    snprintf(key, sizeof(key), "%s/key.params", dir);
    int rc = 0, made = 0;
    progress_state ps = progress_start("bench porep");
    double t_setup = cuzk_now();
    rc = make_circuit_and_key(dir, n, parts, cfg.device, &made, &ps);
    t_setup = cuzk_now() - t_setup;
    cuzk_engine *e = NULL;
    cuzk_error err = {0};
    cuzk_wtns **wits = NULL;
    unsigned long long *ids = NULL;
    circuit_source *src = NULL;
    const unsigned jobs = (unsigned)proofs * parts;
    cfg.max_jobs = jobs + 1;
    cfg.progress = print_progress;
    cfg.progress_ctx = &ps;
    if (rc == 0 && cuzk_engine_create(&cfg, &e, &err) != CUZK_OK)
        rc = fail_err(&err);
    double t_load = cuzk_now();
    if (rc == 0 && cuzk_engine_key_load_params(e, "porep", key, circ, &err) != CUZK_OK)
        rc = fail_err(&err);
    t_load = cuzk_now() - t_load;
    /* the first partition loads nothing more but uploads the key: not timed */
    cuzk_job_request req = {.key_id = "porep", .priority = CUZK_PRIORITY_NORMAL, .generate_witness = 1};
    cuzk_job_info info;
    unsigned long long id;
    double t_first = cuzk_now();
    if (rc == 0) {
        print_progress(&ps, "the first partition (not timed)", 0, 1);
        if (cuzk_engine_submit(e, &req, &id, &err) != CUZK_OK || cuzk_engine_wait(e, id, -1, &info, &err) != CUZK_OK)
            rc = fail_err(&err);
        else if (info.state != CUZK_JOB_DONE)
            rc = fail("the first partition: %s", info.error);
        else if (cuzk_engine_release(e, id, &err) != CUZK_OK) {
        }
    }
    t_first = cuzk_now() - t_first;
    char devname[16] = "";
    if (rc == 0)
        snprintf(devname, sizeof(devname), "%s", info.timings.device);
    /* pregenerated: the P witnesses before the timing */
    double t_wit = 0;
    if (rc == 0 && pregenerated) {
        t_wit = cuzk_now();
        wits = calloc(parts, sizeof(*wits));
        if (!wits)
            rc = fail("out of memory");
        if (rc == 0 && circuit_source_open(&src, circ, NULL, &err) != CUZK_OK)
            rc = fail_err(&err);
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        for (unsigned p = 0; rc == 0 && p < parts; p++) {
            unsigned char *vals;
            print_progress(&ps, "the witnesses (before the timing)", p, parts);
            if (wtns_alloc(&wits[p], src->curve, src->n_wires, "witness", &vals, &err) != CUZK_OK ||
                src->witness(src, p, vals, cpus > 0 ? (int)cpus : 1, &err) != CUZK_OK)
                rc = fail_err(&err);
        }
        t_wit = cuzk_now() - t_wit;
    }
    cuzk_engine_stats st0, st;
    cuzk_timings sum = {0};
    double wit_sum = 0, wall = 0, cpu = 0;
    int failed = 0;
    if (rc == 0 && !(ids = malloc(jobs * sizeof(*ids))))
        rc = fail("out of memory");
    if (rc == 0) {
        cuzk_engine_get_stats(e, &st0);
        double c0 = cpu_seconds(), t0 = cuzk_now();
        unsigned submitted = 0;
        for (unsigned k = 0; k < jobs && rc == 0; k++, submitted++) {
            cuzk_job_request r = req;
            r.partition = k % parts;
            if (pregenerated) {
                r.generate_witness = 0;
                r.witness_wtns = wits[r.partition];
            }
            if (cuzk_engine_submit(e, &r, &ids[k], &err) != CUZK_OK)
                rc = fail_err(&err);
        }
        for (unsigned k = 0; k < submitted; k++) {
            print_progress(&ps, "partitions", k, jobs);
            if (cuzk_engine_wait(e, ids[k], -1, &info, &err) != CUZK_OK || info.state != CUZK_JOB_DONE) {
                if (!failed)
                    fprintf(stderr, "cuzk: partition %u of proof %u failed: %s\n", k % parts, k / parts, info.error);
                failed++;
                continue;
            }
            wit_sum += info.witness;
            for (size_t f = 0; f < TIMING_FIELDS; f++)
                *(double *)(void *)((char *)&sum + timing_fields[f].offset) +=
                    timing_value(&info.timings, &timing_fields[f]);
        }
        wall = cuzk_now() - t0;
        cpu = cpu_seconds() - c0;
        if (rc == 0)
            print_progress(&ps, "partitions", jobs, jobs);
        cuzk_engine_get_stats(e, &st);
        bench_timed_stats(&st, &st0);
    }
    progress_done(&ps);
    cuzk_engine_destroy(e);
    for (unsigned p = 0; wits && p < parts; p++)
        cuzk_wtns_free(wits[p]);
    free(wits);
    free(ids);
    circuit_source_free(src);
    if (!cache) {
        unlink(circ);
        unlink(key);
        rmdir(dir);
    }
    if (rc == 0 && failed)
        rc = fail("%d of %u partitions failed", failed, jobs);
    if (rc)
        return rc;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double cpu_busy = cores > 0 && wall > 0 ? cpu / (wall * (double)cores) : 0;
    double gpu_busy = st.gpus > 0 ? st.gpu_busy[0] : 0;
    double vram = st.gpus > 0 ? (double)st.gpu_key_bytes[0] + (double)st.gpu_pool_bytes[0] : 0;
    double rss = peak_rss_bytes();
    if (json) {
        printf("{\"constraints\": %llu, \"partitions\": %u, \"proofs\": %d, \"device\": \"%s\", \"witness\": \"%s\", "
               "\"setup_s\": %.3f, \"setup_made\": %s, \"key_load_s\": %.3f, \"first_partition_s\": %.3f, "
               "\"pregenerate_s\": %.3f, \"wall_s\": %.6f, \"s_per_proof\": %.6f, \"s_per_partition\": %.6f, "
               "\"gpu_busy\": %.4f, \"cpu_busy\": %.4f, \"host_peak_bytes\": %.0f, \"gpu_bytes\": %.0f, "
               "\"witness_s\": %.6f, \"mean_phases\": {",
               n, parts, proofs, devname, pregenerated ? "pregenerated" : "live", t_setup, made ? "true" : "false",
               t_load, t_first, t_wit, wall, wall / proofs, wall / jobs, gpu_busy, cpu_busy, rss, vram,
               wit_sum / jobs);
        for (size_t f = 0; f < TIMING_FIELDS; f++)
            printf("%s\"%s\": %.6f", f ? ", " : "", timing_fields[f].key, timing_value(&sum, &timing_fields[f]) / jobs);
        printf("}}\n");
        return 0;
    }
    printf("porep: %d proof%s of %u partitions of %llu constraints on %s, witnesses %s\n", proofs,
           proofs == 1 ? "" : "s", parts, n, devname, pregenerated ? "pregenerated" : "made live");
    printf("circuit and key: %s (%.1f s); key loaded in %.1f s; first partition (key upload) %.2f s\n",
           made ? "made" : "reused", t_setup, t_load, t_first);
    if (pregenerated)
        printf("witnesses made before the timing: %.2f s\n", t_wit);
    printf("%.3f s per proof (%.3f s per partition; %.3f s for %u partitions)\n", wall / proofs, wall / jobs, wall,
           jobs);
    printf("GPU busy %.1f %%, CPU busy %.1f %% of %ld cores; host memory peak %s, GPU key + working memory %s\n",
           100 * gpu_busy, 100 * cpu_busy, cores, cuzk_size_str((uint64_t)rss).s, cuzk_size_str((uint64_t)vram).s);
    printf("mean per partition: witness %.4f s\n", wit_sum / jobs);
    for (size_t f = 0; f < TIMING_FIELDS; f++)
        printf("  %-10s %9.4f s\n", timing_fields[f].label, timing_value(&sum, &timing_fields[f]) / jobs);
    return 0;
}
