/* cuzk bench porep: the PoRep C2 job through the engine. A
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

#include "../../include/cuzk_testcircuits.h"
#include "../../src/programs.h"
#include "cli.h"
#include "commands.h"

static void porep_usage(FILE *out)
{
    fprintf(out,
            "usage: cuzk bench porep [--constraints N] [--partitions P] [--proofs K] [--device gpu|cpu]\n"
            "                        [--witness live|pregenerated] [--cache DIR] [--json] [--explain]\n"
            "                        [--timeline FILE.html] [engine options]\n"
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
            "memory and the GPU's key and working memory; --json as one object.\n"
            "--explain: what bounds the throughput (the GPU, the CPU's witness work or\n"
            "verification, or too few partitions in flight), with the numbers that show it\n"
            "and the phases that would move it. --timeline FILE.html: a picture of the run,\n"
            "one row per worker (prepare, GPU, finalize), one bar per stage of a partition.\n");
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

/* When each stage of a partition ran, seconds from the timing's start,
 * from what the engine reports: its submission, the waits and the stages'
 * lengths (prepare includes loading and the witness). */
typedef struct span_set {
    double t[6]; /* prepare start, end, compute start, end, finalize start, end */
    int worker;  /* the compute worker */
    unsigned partition, proof;
} span_set;

static void spans_of(span_set *s, double submitted, const cuzk_job_info *in)
{
    s->t[0] = submitted + in->queue_wait;
    s->t[1] = s->t[0] + in->load + in->timings.prepare;
    s->t[2] = s->t[1] + in->ready_wait;
    s->t[3] = s->t[2] + in->timings.compute;
    s->t[4] = s->t[3] + in->finalize_wait;
    s->t[5] = s->t[4] + in->timings.finalize;
    s->worker = in->compute_worker;
}

enum { MAX_LANES = 64 };

/* The lane of a bar in its row: the first whose last bar ended before it
 * starts (the pools' workers are not named in the job's info). */
static int lane_for(double *lane_end, int *lanes, double start, double end)
{
    for (int l = 0; l < *lanes; l++)
        if (lane_end[l] <= start + 1e-9) {
            lane_end[l] = end;
            return l;
        }
    if (*lanes == MAX_LANES)
        return MAX_LANES - 1;
    lane_end[*lanes] = end;
    return (*lanes)++;
}

static int write_timeline(const char *path, const span_set *sp, unsigned n, double wall, const char *title)
{
    static const char *const row_name[3] = {"prepare (CPU: key, witness)", "compute (GPU)", "finalize (CPU: verify)"};
    static const char *const color[3] = {"#6a9fd8", "#d8894a", "#73b36b"};
    int lane[3][1024];
    double lane_end[3][MAX_LANES];
    int lanes[3] = {0, 0, 0};
    unsigned m = n < 1024 ? n : 1024;
    for (int r = 0; r < 3; r++)
        for (unsigned k = 0; k < m; k++)
            lane[r][k] = r == 1 && sp[k].worker >= 0 && sp[k].worker < MAX_LANES
                             ? sp[k].worker
                             : lane_for(lane_end[r], &lanes[r], sp[k].t[2 * r], sp[k].t[2 * r + 1]);
    for (unsigned k = 0; k < m; k++)
        if (lane[1][k] + 1 > lanes[1])
            lanes[1] = lane[1][k] + 1;
    const double width = 1200, left = 220, lh = 22;
    double scale = wall > 0 ? width / wall : 1, y = 40;
    FILE *f = fopen(path, "w");
    if (!f)
        return fail("--timeline %s: cannot write it: %s", path, strerror(errno));
    int total_lanes = lanes[0] + lanes[1] + lanes[2];
    fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>cuzk bench porep</title></head><body>\n"
               "<h3 style=\"font-family:sans-serif\">%s</h3>\n"
               "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
               "font-size=\"11\">\n",
            title, left + width + 20, y + (total_lanes + 3) * lh + 40);
    for (int s = 0; s <= 10; s++) { /* the time axis */
        double x = left + width * s / 10;
        fprintf(f, "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"%.0f\" stroke=\"#ddd\"/>\n", x, x,
                y + (total_lanes + 3) * lh);
        fprintf(f, "<text x=\"%.1f\" y=\"24\" text-anchor=\"middle\">%.2f s</text>\n", x, wall * s / 10);
    }
    for (int r = 0; r < 3; r++) {
        fprintf(f, "<text x=\"4\" y=\"%.1f\" font-weight=\"bold\">%s</text>\n", y + 15, row_name[r]);
        for (unsigned k = 0; k < m; k++) {
            double x0 = left + sp[k].t[2 * r] * scale, x1 = left + sp[k].t[2 * r + 1] * scale;
            double yy = y + lane[r][k] * lh + 2;
            fprintf(f,
                    "<rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.0f\" fill=\"%s\" stroke=\"#333\" "
                    "stroke-width=\"0.5\"><title>proof %u, partition %u: %s %.4f s to %.4f s (%.4f s)</title></rect>\n",
                    x0, yy, x1 - x0 > 0.5 ? x1 - x0 : 0.5, lh - 4, color[r], sp[k].proof, sp[k].partition,
                    row_name[r], sp[k].t[2 * r], sp[k].t[2 * r + 1], sp[k].t[2 * r + 1] - sp[k].t[2 * r]);
            if (x1 - x0 > 18)
                fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%u</text>\n", (x0 + x1) / 2,
                        yy + 13, sp[k].partition);
        }
        for (int l = 0; l < (lanes[r] ? lanes[r] : 1); l++)
            fprintf(f, "<text x=\"200\" y=\"%.1f\" text-anchor=\"end\" fill=\"#666\">%s %d</text>\n",
                    y + l * lh + 15, r == 1 ? "worker" : "lane", l);
        y += (lanes[r] ? lanes[r] : 1) * lh + lh;
    }
    fprintf(f, "</svg>\n<p style=\"font-family:sans-serif;font-size:12px\">Bars from the engine's report of each "
               "partition: its submission, the waits between stages and each stage's length. Numbers: the "
               "partition.</p>\n</body></html>\n");
    if (fclose(f) != 0)
        return fail("--timeline %s: cannot write it: %s", path, strerror(errno));
    return 0;
}

/* --explain: the resource that bounds the run, with its numbers. */
static void explain(const cuzk_engine_stats *st, const cuzk_timings *mean, double witness, double prepare,
                    double finalize, double per_partition, int threads, long cores, int pregenerated)
{
    double gpu_busy = st->gpus > 0 ? st->gpu_busy[0] : 0, gpu = mean->compute;
    printf("explain:\n");
    if (st->gpus > 0) {
        /* the GPU's own time: its phases (the compute stage also counts the
         * wait of a worker whose witness is staged for the GPU's lock) */
        gpu = mean->key_upload + mean->eval + mean->gpu_upload + mean->ntt + mean->msm_a + mean->msm_b1 +
              mean->msm_b2 + mean->msm_c + mean->msm_h;
        printf("  GPU: %.4f s of work a partition (its phases), busy %.1f %% of the run; the compute stage %.4f s "
               "(with the wait for the GPU's lock, %d workers)\n",
               gpu, 100 * gpu_busy, mean->compute, st->workers);
    }
    else
        printf("  CPU compute workers: %.4f s a partition, %d workers busy %.1f %%\n", gpu, st->workers,
               100 * st->worker_busy);
    printf("  prepare workers (%d): %.4f s a partition (witness %.4f s on %d threads), busy %.1f %%\n",
           st->prepare_workers, prepare, witness, threads, 100 * st->prepare_busy);
    printf("  finalize workers (%d): %.4f s a partition (verify %.4f s), busy %.1f %%\n", st->finalize_workers,
           finalize, mean->verify, 100 * st->finalize_busy);
    double need = gpu > 0 ? witness * threads / gpu : 0;
    if (st->gpus > 0 && gpu_busy >= 0.9) {
        printf("  bound: GPU-bound: %.3f s per partition, %.1f %% busy", per_partition, 100 * gpu_busy);
        if (!pregenerated)
            printf("; witness generation needs %.1f of %ld cores to keep up", need, cores);
        printf("\n");
        /* the GPU phases by size: what would move the bound */
        struct {
            const char *name;
            double v;
        } ph[] = {{"msm H", mean->msm_h}, {"ntt", mean->ntt},     {"eval", mean->eval},   {"msm A", mean->msm_a},
                  {"msm B2", mean->msm_b2}, {"msm C", mean->msm_c}, {"msm B1", mean->msm_b1},
                  {"upload", mean->gpu_upload}};
        size_t np = sizeof(ph) / sizeof(ph[0]);
        for (size_t i = 1; i < np; i++)
            for (size_t k = i; k > 0 && ph[k].v > ph[k - 1].v; k--) {
                __typeof__(ph[0]) t = ph[k];
                ph[k] = ph[k - 1];
                ph[k - 1] = t;
            }
        printf("  moves it: the GPU's phases,");
        for (size_t i = 0; i < np && i < 4; i++)
            printf(" %s %.4f s (%.0f %%)%s", ph[i].name, ph[i].v, gpu > 0 ? 100 * ph[i].v / gpu : 0,
                   i + 1 < 4 ? "," : "\n");
    } else if (st->gpus == 0 && st->worker_busy >= 0.9)
        printf("  bound: CPU-bound: the compute workers (the whole proof on the CPU's cores: MSM H %.4f s, ntt "
               "%.4f s a partition) are %.1f %% busy; a GPU moves it\n",
               mean->msm_h, mean->ntt, 100 * st->worker_busy);
    else if (st->prepare_busy >= 0.9)
        printf("  bound: CPU-bound: the prepare workers (witness %.4f s a partition on %d threads: %.1f cores "
               "for each second of GPU) are %.1f %% busy while the GPU is %.1f %%; more prepare workers or "
               "threads, or pregenerated witnesses, move it\n",
               witness, threads, need, 100 * st->prepare_busy, 100 * gpu_busy);
    else if (st->finalize_busy >= 0.9)
        printf("  bound: CPU-bound: the finalize workers (verification) are %.1f %% busy; more finalize "
               "workers move it\n",
               100 * st->finalize_busy);
    else
        printf("  bound: none of the pools is busy (GPU %.1f %%, prepare %.1f %%, finalize %.1f %%): too few "
               "partitions in flight to fill the pipeline (more proofs, or --ahead, move it)\n",
               100 * gpu_busy, 100 * st->prepare_busy, 100 * st->finalize_busy);
}

int cmd_bench_porep(int argc, char **argv)
{
    unsigned long long n = CUZK_POREP_CONSTRAINTS, v;
    unsigned parts = CUZK_POREP_PARTITIONS;
    int proofs = 1, json = 0, device = CUZK_DEVICE_AUTO, pregenerated = 0, want_explain = 0;
    const char *cache = NULL, *timeline = NULL;
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
        else if (!strcmp(a, "--explain"))
            want_explain = 1;
        else if (!strncmp(a, "--", 2) && cli_engine_flag_off(&cfg, a + 2, 0) == 0)
            continue;
        else if (!strcmp(a, "--constraints") || !strcmp(a, "--partitions") || !strcmp(a, "--proofs") ||
                 !strcmp(a, "--device") || !strcmp(a, "--witness") || !strcmp(a, "--cache") || !strcmp(a, "--timeline") ||
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
            else if (!strcmp(a, "--device"))
                bad = parse_device("--device", val, &device);
            else if (!strcmp(a, "--witness")) {
                if (!strcmp(val, "live"))
                    pregenerated = 0;
                else if (!strcmp(val, "pregenerated"))
                    pregenerated = 1;
                else
                    return fail("--witness expects live or pregenerated, got '%s'", val);
            } else if (!strcmp(a, "--cache"))
                cache = val;
            else if (!strcmp(a, "--timeline"))
                timeline = val;
            else
                bad = cli_engine_option(&cfg, a + 2, a, val, 0);
        } else
            return fail("bench porep: unknown argument '%s'; see cuzk bench porep --help", a);
        if (bad)
            return bad;
    }
    if (device != CUZK_DEVICE_AUTO)
        cfg.proof.device = device;
    if (timeline) {
        cuzk_error terr = {0};
        if (check_output_path(timeline, &terr) != CUZK_OK)
            return fail("--timeline %s", terr.message);
    }
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
    rc = make_circuit_and_key(dir, n, parts, cfg.proof.device, &made, &ps);
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
        int cpus = cpu_cores();
        for (unsigned p = 0; rc == 0 && p < parts; p++) {
            unsigned char *vals;
            print_progress(&ps, "the witnesses (before the timing)", p, parts);
            if (wtns_alloc(&wits[p], src->curve, src->n_wires, "witness", &vals, &err) != CUZK_OK ||
                src->witness(src, p, vals, cpus, &err) != CUZK_OK)
                rc = fail_err(&err);
        }
        t_wit = cuzk_now() - t_wit;
    }
    cuzk_engine_stats st0, st;
    cuzk_timings sum = {0};
    double wit_sum = 0, comp_sum = 0, prep_sum = 0, fin_sum = 0, wall = 0, cpu = 0, *submitted_at = NULL;
    span_set *spans = NULL;
    int failed = 0;
    size_t result_bytes = 0;
    if (rc == 0 && (!(ids = malloc((size_t)proofs * sizeof(*ids))) ||
                    !(submitted_at = malloc((size_t)proofs * sizeof(double))) || !(spans = calloc(jobs, sizeof(*spans)))))
        rc = fail("out of memory");
    if (rc == 0) {
        cuzk_engine_get_stats(e, &st0);
        double c0 = cpu_seconds(), t0 = cuzk_now();
        /* a proof is one job of P partitions: witnesses made by the
         * prepare workers, or the pregenerated ones */
        int submitted = 0;
        for (int q = 0; q < proofs && rc == 0; q++, submitted++) {
            cuzk_job_request r = req;
            r.partitions = parts;
            if (pregenerated) {
                r.generate_witness = 0;
                r.partition_wtns = (const cuzk_wtns *const *)wits;
            }
            submitted_at[q] = cuzk_now() - t0;
            if (cuzk_engine_submit(e, &r, &ids[q], &err) != CUZK_OK)
                rc = fail_err(&err);
        }
        for (int q = 0; q < submitted; q++) {
            print_progress(&ps, "partitions", (unsigned long long)q * parts, jobs);
            cuzk_job_info job;
            if (cuzk_engine_wait(e, ids[q], -1, &job, &err) != CUZK_OK || job.state != CUZK_JOB_DONE) {
                fprintf(stderr, "cuzk: proof %d failed: %s\n", q, job.error);
                failed += (int)parts;
                continue;
            }
            if (q == 0) { /* the job's result as Filecoin takes it: 192 bytes a partition */
                unsigned char *bytes = NULL;
                if (cuzk_engine_result_bellperson(e, ids[q], &bytes, &result_bytes, &err) != CUZK_OK)
                    result_bytes = 0;
                cuzk_free(bytes);
            }
            for (unsigned p = 0; p < parts; p++) {
                unsigned k = (unsigned)q * parts + p;
                if (cuzk_engine_partition_info(e, ids[q], p, &info, &err) != CUZK_OK) {
                    failed++;
                    continue;
                }
                wit_sum += info.witness;
                comp_sum += info.timings.compute;
                prep_sum += info.load + info.timings.prepare;
                fin_sum += info.timings.finalize;
                spans_of(&spans[k], submitted_at[q], &info);
                spans[k].partition = p;
                spans[k].proof = (unsigned)q;
                for (size_t f = 0; f < TIMING_FIELDS; f++)
                    *(double *)(void *)((char *)&sum + timing_fields[f].offset) +=
                        timing_value(&info.timings, &timing_fields[f]);
            }
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
    free(submitted_at);
    circuit_source_free(src);
    if (!cache) {
        unlink(circ);
        unlink(key);
        rmdir(dir);
    }
    if (rc == 0 && failed)
        rc = fail("%d of %u partitions failed", failed, jobs);
    if (rc == 0 && timeline) {
        char title[200];
        snprintf(title, sizeof(title), "cuzk bench porep: %d proof%s of %u partitions of %llu constraints, %s", proofs,
                 proofs == 1 ? "" : "s", parts, n, devname);
        rc = write_timeline(timeline, spans, jobs, wall, title);
    }
    free(spans);
    if (rc)
        return rc;
    int cores = cpu_cores();
    double cpu_busy = wall > 0 ? cpu / (wall * (double)cores) : 0;
    double gpu_busy = st.gpus > 0 ? st.gpu_busy[0] : 0;
    double vram = st.gpus > 0 ? (double)st.gpu_key_bytes[0] + (double)st.gpu_pool_bytes[0] : 0;
    double rss = peak_rss_bytes();
    if (json) {
        printf("{\"constraints\": %llu, \"partitions\": %u, \"proofs\": %d, \"device\": \"%s\", \"witness\": \"%s\", "
               "\"setup_s\": %.3f, \"setup_made\": %s, \"key_load_s\": %.3f, \"first_partition_s\": %.3f, "
               "\"pregenerate_s\": %.3f, \"wall_s\": %.6f, \"s_per_proof\": %.6f, \"s_per_partition\": %.6f, "
               "\"gpu_busy\": %.4f, \"cpu_busy\": %.4f, \"host_peak_bytes\": %.0f, \"gpu_bytes\": %.0f, "
               "\"witness_s\": %.6f, \"proof_bytes\": %zu, \"job_bytes_max\": %llu, \"mean_phases\": {",
               n, parts, proofs, devname, pregenerated ? "pregenerated" : "live", t_setup, made ? "true" : "false",
               t_load, t_first, t_wit, wall, wall / proofs, wall / jobs, gpu_busy, cpu_busy, rss, vram,
               wit_sum / jobs, result_bytes, st.job_bytes_max);
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
    printf("GPU busy %.1f %%, CPU busy %.1f %% of %d cores; host memory peak %s, GPU key + working memory %s\n",
           100 * gpu_busy, 100 * cpu_busy, cores, cuzk_size_str((uint64_t)rss).s, cuzk_size_str((uint64_t)vram).s);
    printf("the jobs' host memory (witnesses, prepared arrays) at most %s%s\n",
           cuzk_size_str(st.job_bytes_max).s, cfg.job_memory_budget ? " (--job-memory)" : "");
    if (result_bytes)
        printf("a proof: one job of %u partitions, %zu bytes in bellperson's form\n", parts, result_bytes);
    printf("mean per partition: witness %.4f s\n", wit_sum / jobs);
    for (size_t f = 0; f < TIMING_FIELDS; f++)
        printf("  %-10s %9.4f s\n", timing_fields[f].label, timing_value(&sum, &timing_fields[f]) / jobs);
    if (want_explain) {
        cuzk_timings mean = sum;
        for (size_t f = 0; f < TIMING_FIELDS; f++)
            *(double *)(void *)((char *)&mean + timing_fields[f].offset) = timing_value(&sum, &timing_fields[f]) / jobs;
        mean.compute = comp_sum / jobs;
        int pw = st.prepare_workers > 0 ? st.prepare_workers : 1;
        int threads = cfg.proof.threads > 0 ? cfg.proof.threads : (int)(cores > pw ? cores / pw : 1);
        explain(&st, &mean, wit_sum / jobs, prep_sum / jobs, fin_sum / jobs, wall / jobs, threads, cores,
                pregenerated);
    }
    return 0;
}
