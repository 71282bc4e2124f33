/* The cuzk command-line tool: the subcommands that are one library call
 * each (prove, setup, verify, zkey, info, circuit, version, selftest) and
 * the dispatch; bench.c, serve.c and submit.c hold the larger ones, cli.c
 * what they share. Only this program exits; the library returns status
 * codes.
 *
 * Exit codes: 0 success; 1 a proof that does not verify (verify); 2 bad
 * input or usage, with a message on stderr. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../include/cuzk.h"
#include "../../include/cuzk_serve.h"
#include "../../include/cuzk_testcircuits.h"
#include "../../src/programs.h"
#include "cli.h"
#include "commands.h"
#include "git_commit.h" /* CUZK_GIT_COMMIT, from the build (cmake/git_commit.cmake) */

/* Every command: its name, its function, whether it prints its own
 * --help (the options of bench, serve and submit are tables of their
 * own), and its lines of `cuzk help`, which `cuzk <command> --help` prints
 * for the others. */
typedef struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    int own_help;
    const char *usage;
} command;

static const command *find_command(const char *name);

static void usage(FILE *out)
{
    fprintf(out, "usage: cuzk <command> [arguments]\n\ncommands:\n");
    for (const command *c = find_command(NULL); c->name; c++)
        fputs(c->usage, out);
    fprintf(out, "  help [command]\n"
                 "             print this message, or one command's\n"
                 "\n"
                 "cuzk <command> --help prints one command's usage. Long work (setup, circuit,\n"
                 "reading and checking a key, its first upload to a GPU, bench) shows its progress\n"
                 "on stderr: one updating line on a terminal, else a line every 5 s; --quiet (-q),\n"
                 "anywhere on the line, silences it.\n");
}

static int cmd_version(int argc, char **argv)
{
    if (argc > 0)
        return fail("'version' takes no arguments, got '%s'", argv[0]);
    int gpus = 0;
    int err = cuzk_gpu_count(&gpus);
    printf("cuzk %s (commit %s)\n", cuzk_version(), CUZK_GIT_COMMIT);
    printf("cpu backend: %s\n", cuzk_cpu_backend());
    if (!cuzk_has_cuda())
        printf("cuda: not built in\n");
    else if (err != CUZK_OK)
        printf("cuda: built in; device query failed: %s\n", cuzk_strerror(err));
    else
        printf("cuda: built in; %d device%s\n", gpus, gpus == 1 ? "" : "s");
    for (int d = 0; err == CUZK_OK && d < gpus; d++) {
        cuzk_gpu_properties gp;
        int rc = cuzk_gpu_get_properties(d, &gp);
        if (rc != CUZK_OK)
            printf("gpu %d: properties unavailable: %s\n", d, cuzk_strerror(rc));
        else
            printf("gpu %d: %s, %.1f GiB, %d SMs, sm_%d%d, PCI %s\n", d, gp.name,
                   (double)gp.memory_bytes / (1024.0 * 1024.0 * 1024.0), gp.multiprocessors, gp.compute_major,
                   gp.compute_minor, gp.pci_bus_id);
    }
    printf("json input: %s\n", cuzk_has_json() ? "yes (jansson)" : "no (built without jansson)");
    printf("daemon: %s\n", cuzk_has_server() ? "yes (libmicrohttpd)" : "no (built without libmicrohttpd or jansson)");
    printf("queue: %s\n", cuzk_has_queue() ? "yes (PostgreSQL, libpq: cuzk serve --queue)" : "no (built without libpq)");
    return 0;
}

static int cmd_selftest(int argc, char **argv)
{
    if (argc > 0)
        return fail("'selftest' takes no arguments, got '%s'", argv[0]);
    int err = cuzk_selftest();
    if (err != CUZK_OK)
        return fail("selftest failed with the %s backend: %s", cuzk_cpu_backend(), cuzk_strerror(err));
    printf("selftest passed (%s backend)\n", cuzk_cpu_backend());
    return 0;
}

/* cuzk prove --partitions P: a job of P partitions through the engine
 * (their witnesses made from the key's native circuit, from partition
 * `first`; each partition's next one prepared and uploaded while the GPU
 * proves it), the proofs and publics written as arrays, or bellperson's
 * 192 bytes a proof. */
static int prove_partitions(const char *key, const char *r1cs, const char *proofs_out, const char *publics_out,
                            unsigned first, unsigned parts, const cuzk_prove_options *opts, int bellperson_proof,
                            int timings)
{
    cuzk_engine_config cfg = {.proof = *opts, .max_jobs = parts};
    progress_state ps = progress_start("prove");
    cfg.progress = print_progress;
    cfg.progress_ctx = &ps;
    cuzk_engine *e = NULL;
    cuzk_error err = {0};
    double t0 = cuzk_now();
    unsigned long long id = 0;
    cuzk_job_info info = {0};
    char *proofs = NULL, *pubs = NULL;
    unsigned char *bytes = NULL;
    size_t nbytes = 0;
    int rc = cuzk_engine_create(&cfg, &e, &err);
    if (rc == CUZK_OK)
        rc = cuzk_engine_key_load_params(e, "key", key, r1cs, &err);
    if (rc == CUZK_OK) {
        cuzk_job_request req = {.key_id = "key", .generate_witness = 1, .partition = first, .partitions = parts};
        rc = cuzk_engine_submit(e, &req, &id, &err);
    }
    for (unsigned shown = 0; rc == CUZK_OK; shown = info.partitions_ended) {
        if ((rc = cuzk_engine_wait(e, id, 1.0, &info, &err)) != CUZK_OK || info.state >= CUZK_JOB_DONE)
            break;
        if (info.partitions_ended != shown || !shown)
            print_progress(&ps, "partitions", info.partitions_ended, parts);
    }
    progress_done(&ps);
    if (rc == CUZK_OK && info.state != CUZK_JOB_DONE)
        rc = cuzk_error_set(&err, info.status ? info.status : CUZK_ERR_CANCELLED, "%s", info.error);
    if (rc == CUZK_OK)
        rc = cuzk_engine_result(e, id, &proofs, &pubs, &err);
    if (rc == CUZK_OK && bellperson_proof)
        rc = cuzk_engine_result_bellperson(e, id, &bytes, &nbytes, &err);
    cuzk_engine_destroy(e);
    int out = rc != CUZK_OK ? fail_err(&err)
              : bellperson_proof ? write_pair_bytes(proofs_out, bytes, nbytes, publics_out, pubs)
                                 : write_pair(proofs_out, proofs, publics_out, pubs);
    cuzk_free(proofs);
    cuzk_free(pubs);
    cuzk_free(bytes);
    if (out != 0)
        return out;
    double wall = cuzk_now() - t0;
    fprintf(stderr, "cuzk: %u partitions proved on %s in %.3f s (key loaded and uploaded included; %.3f s of proving "
                    "a partition)\n",
            parts, strcmp(info.timings.device, "cpu") ? info.timings.device : "the CPU", wall,
            info.timings.compute / parts);
    if (timings) {
        fprintf(stderr, "phase        seconds (summed over the partitions)\n");
        for (size_t i = 0; i < TIMING_FIELDS; i++) {
            const timing_field *f = &timing_fields[i];
            double v = timing_value(&info.timings, f);
            if (f->kind == TIMING_GPU && v <= 0)
                continue;
            fprintf(stderr, "%-10s %9.4f\n", f->label, v);
        }
        fprintf(stderr, "witness    %9.4f (made by the prepare workers)\n", info.witness);
    }
    return 0;
}

static int cmd_prove(int argc, char **argv)
{
    const char *paths[4], *r1cs = NULL;
    int npaths = 0, timings = 0, json = 0, bellperson_proof = 0, partition = -1, partitions = 0, gpu_given = 0;
    cuzk_prove_options opts = {0};
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--partition")) {
            if (i + 1 >= argc)
                return fail("--partition needs a value: the partition whose witness the native circuit makes");
            if (parse_count("--partition", argv[++i], 0, 999, &partition))
                return 2;
        } else if (!strcmp(argv[i], "--partitions")) {
            if (i + 1 >= argc)
                return fail("--partitions needs a value: how many partitions one job proves");
            if (parse_count("--partitions", argv[++i], 1, CUZK_JOB_MAX_PARTITIONS, &partitions))
                return 2;
        } else if (!strcmp(argv[i], "--r1cs")) {
            if (i + 1 >= argc)
                return fail("--r1cs needs a value: the circuit of a .params key (circuit.r1cs)");
            r1cs = argv[++i];
        } else if (!strcmp(argv[i], "--proof-format")) {
            if (i + 1 >= argc)
                return fail("--proof-format needs a value: snarkjs or bellperson");
            const char *f = argv[++i];
            if (!strcmp(f, "snarkjs"))
                bellperson_proof = 0;
            else if (!strcmp(f, "bellperson"))
                bellperson_proof = 1;
            else
                return fail("--proof-format expects snarkjs (proof.json) or bellperson (its 192 bytes), got '%s'",
                            f);
        } else if (!strcmp(argv[i], "--threads")) {
            if (i + 1 >= argc)
                return fail("--threads needs a value");
            if (parse_threads(argv[++i], &opts.threads))
                return 2;
        } else if (!strcmp(argv[i], "--device")) {
            if (i + 1 >= argc)
                return fail("--device needs a value: auto, gpu or cpu");
            if (parse_device("--device", argv[++i], &opts.device))
                return 2;
        } else if (!strcmp(argv[i], "--gpu")) {
            if (i + 1 >= argc)
                return fail("--gpu needs a value (a CUDA device index)");
            char *end;
            long v = strtol(argv[++i], &end, 10);
            if (*argv[i] == 0 || *end || v < 0 || v > 1023)
                return fail("--gpu expects a device index in [0, 1023], got '%s'", argv[i]);
            opts.gpu = (int)v;
            gpu_given = 1;
        } else if (!strcmp(argv[i], "--timings"))
            timings = 1;
        else if (!strcmp(argv[i], "--json"))
            json = 1;
        else if (!strcmp(argv[i], "--no-verify"))
            opts.no_verify = 1;
        else if (argv[i][0] == '-' && argv[i][1])
            return fail("prove: unknown option '%s'", argv[i]);
        else if (npaths == 4)
            return fail("prove takes 4 files: <circuit.zkey> <witness.wtns> <proof.json> <public.json>; '%s' is a "
                        "fifth",
                        argv[i]);
        else
            paths[npaths++] = argv[i];
    }
    if (partitions) {
        /* a job of partitions through the engine: key, proofs, publics */
        if (!r1cs)
            return fail("--partitions makes the witnesses from a native circuit: give it with --r1cs circuit.porep");
        if (npaths != 3)
            return fail("prove --partitions takes 3 files: <circuit.params> <proofs.json> <publics.json>, got %d",
                        npaths);
        if (gpu_given || opts.no_verify || json)
            return fail("prove --partitions runs the engine: every GPU (CUDA_VISIBLE_DEVICES picks them), every "
                        "proof verified, --timings (not --gpu, --no-verify or --json)");
        if (cli_env_prove(&opts))
            return 2;
        const cli_file ins[] = {{"circuit.params", paths[0]}, {"--r1cs", r1cs}};
        const cli_file outs[] = {{bellperson_proof ? "proofs" : "proofs.json", paths[1]}, {"publics.json", paths[2]}};
        if (cli_check_outputs(outs, 2, ins, 2))
            return 2;
        return prove_partitions(paths[0], r1cs, paths[1], paths[2], partition >= 0 ? (unsigned)partition : 0,
                                (unsigned)partitions, &opts, bellperson_proof, timings);
    }
    if (partition >= 0) {
        /* the witness made from the native circuit: key, proof, public */
        if (!r1cs)
            return fail("--partition makes the witness from a native circuit: give it with --r1cs circuit.porep");
        if (npaths != 3)
            return fail("prove --partition takes 3 files: <circuit.params> <proof.json> <public.json>, got %d",
                        npaths);
        paths[3] = paths[2];
        paths[2] = paths[1];
        paths[1] = NULL;
    } else if (npaths != 4)
        return fail("prove takes 4 files: <circuit.zkey> <witness.wtns> <proof.json> <public.json>, got %d", npaths);
    if (cli_env_prove(&opts))
        return 2;
    const cli_file ins[] = {{r1cs ? "circuit.params" : "circuit.zkey", paths[0]}, {"circuit.r1cs", r1cs},
                            {"witness.wtns", paths[1]}};
    const cli_file outs[] = {{bellperson_proof ? "proof" : "proof.json", paths[2]}, {"public.json", paths[3]}};
    if (cli_check_outputs(outs, 2, ins, 3)) /* inputs not given are NULL */
        return 2;
    double t0 = cuzk_now();
    cuzk_error err = {0};
    cuzk_zkey *zk = NULL;
    cuzk_wtns *w = NULL;
    progress_state ps = progress_start("prove");
    int rc;
    char magic[5];
    cuzk_error merr = {0};
    int iden3 = binfile_peek_magic(paths[0], magic, &merr) == CUZK_OK &&
                (!strcmp(magic, "zkey") || !strcmp(magic, "r1cs") || !strcmp(magic, "wtns") || !strcmp(magic, "ptau"));
    if (r1cs) {
        if (iden3)
            return fail("%s is a .%s file; --r1cs is for bellperson .params keys (a .zkey holds its circuit)",
                        paths[0], magic);
        rc = cuzk_params_open(&zk, paths[0], r1cs, print_progress, &ps, &err);
    } else {
        if (!iden3 && merr.code == CUZK_OK)
            return fail("%s is not a .zkey; a bellperson .params key proves with its circuit: --r1cs circuit.r1cs",
                        paths[0]);
        rc = cuzk_zkey_open_progress(&zk, paths[0], print_progress, &ps, &err);
    }
    progress_done(&ps);
    if (rc != CUZK_OK)
        return fail_err(&err);
    cuzk_zkey_info zi;
    cuzk_zkey_get_info(zk, &zi);
    if (bellperson_proof && zi.curve != CUZK_CURVE_BLS12_381) {
        cuzk_zkey_free(zk);
        return fail("--proof-format bellperson writes BLS12-381 proofs; %s is a BN254 key", paths[0]);
    }
    if (partition >= 0 ? key_make_witness(zk, (unsigned)partition, opts.threads, &w, &err) != CUZK_OK
                       : cuzk_wtns_open(&w, paths[1], &err) != CUZK_OK) {
        cuzk_zkey_free(zk);
        return fail_err(&err);
    }
    double load = cuzk_now() - t0;
    char *proof = NULL, *pub = NULL;
    cuzk_timings t;
    opts.progress = print_progress; /* the key's upload to a GPU */
    opts.progress_ctx = &ps;
    rc = cuzk_prove(zk, w, &opts, &proof, &pub, &t, &err);
    progress_done(&ps);
    cuzk_wtns_free(w);
    cuzk_zkey_free(zk);
    if (rc != CUZK_OK)
        return fail_err(&err);
    if (bellperson_proof) {
        unsigned char bytes[CUZK_BELLPERSON_PROOF_BYTES];
        rc = cuzk_proof_to_bellperson(proof, strlen(proof), bytes, &err);
        if (rc == CUZK_OK)
            rc = write_pair_bytes(paths[2], bytes, sizeof(bytes), paths[3], pub);
        else
            rc = fail_err(&err);
    } else
        rc = write_pair(paths[2], proof, paths[3], pub);
    cuzk_free(proof);
    cuzk_free(pub);
    if (rc != 0)
        return rc;
    if (t.device_note[0])
        fprintf(stderr, "cuzk: proved on the CPU: %s\n", t.device_note);
    else if (opts.device != CUZK_DEVICE_CPU && !json)
        fprintf(stderr, "cuzk: proved on %s\n", strcmp(t.device, "cpu") ? t.device : "the CPU (no GPU found)");
    if (timings) {
        /* every time of a proof (src/core/phases.h); the GPU's when it ran */
        fprintf(stderr, "phase        seconds\n");
        fprintf(stderr, "load       %9.4f\n", load);
        for (size_t i = 0; i < TIMING_FIELDS; i++) {
            const timing_field *f = &timing_fields[i];
            double v = timing_value(&t, f);
            if (f->kind == TIMING_GPU && v <= 0)
                continue;
            const char *note = f->offset == offsetof(cuzk_timings, key_upload)          ? "  (once per key and process)"
                               : f->offset == offsetof(cuzk_timings, verify) && opts.no_verify ? " (skipped)"
                                                                                              : "";
            fprintf(stderr, "%-10s %9.4f%s\n", f->label, v, note);
        }
        fprintf(stderr, "total      %9.4f (%s; %s backend; witness: %llu ones, %llu other)\n", load + t.total,
                t.device, cuzk_cpu_backend(), t.witness_ones, t.witness_other);
    }
    if (json) {
        printf("{\"load\": %.6f", load);
        for (size_t i = 0; i < TIMING_FIELDS; i++)
            printf(", \"%s\": %.6f", timing_fields[i].key, timing_value(&t, &timing_fields[i]));
        printf(", \"total\": %.6f, \"device\": \"%s\", \"backend\": \"%s\", \"witness_ones\": %llu, "
               "\"witness_other\": %llu}\n",
               load + t.total, t.device, cuzk_cpu_backend(), t.witness_ones, t.witness_other);
    }
    return 0;
}

static int cmd_setup(int argc, char **argv)
{
    const char *paths[2], *ptau = NULL;
    int npaths = 0, threads = 0, format = CUZK_KEY_ZKEY;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--format")) {
            if (i + 1 >= argc)
                return fail("--format needs a value: zkey or params");
            const char *f = argv[++i];
            if (!strcmp(f, "zkey"))
                format = CUZK_KEY_ZKEY;
            else if (!strcmp(f, "params"))
                format = CUZK_KEY_PARAMS;
            else
                return fail("--format expects zkey (snarkjs) or params (bellperson, BLS12-381), got '%s'", f);
        } else if (!strcmp(argv[i], "--ptau")) {
            if (i + 1 >= argc)
                return fail("--ptau needs a file");
            ptau = argv[++i];
        } else if (!strcmp(argv[i], "--threads")) {
            if (i + 1 >= argc)
                return fail("--threads needs a value");
            if (parse_threads(argv[++i], &threads))
                return 2;
        } else if (argv[i][0] == '-' && argv[i][1])
            return fail("setup: unknown option '%s'", argv[i]);
        else if (npaths == 2)
            return fail("setup takes 2 files: <circuit.r1cs> <circuit.zkey>; '%s' is a third", argv[i]);
        else
            paths[npaths++] = argv[i];
    }
    if (npaths != 2)
        return fail("setup takes 2 files: <circuit.r1cs> <circuit.zkey>, got %d", npaths);
    /* a .params key's .vk beside it (bellperson's verifying key, as
     * Filecoin publishes one beside each key): KEY.params -> KEY.vk */
    char vk_path[4096] = "";
    if (format == CUZK_KEY_PARAMS) {
        size_t n = strlen(paths[1]);
        if (n >= 7 && !strcmp(paths[1] + n - 7, ".params"))
            n -= 7;
        if (n + 4 >= sizeof vk_path)
            return fail("setup: the key's path is too long (%zu bytes)", strlen(paths[1]));
        snprintf(vk_path, sizeof vk_path, "%.*s.vk", (int)n, paths[1]);
    }
    const cli_file ins[] = {{"circuit.r1cs", paths[0]}, {"--ptau", ptau}};
    const cli_file outs[] = {{"circuit.zkey", paths[1]}, {"its .vk", vk_path[0] ? vk_path : NULL}};
    if (cli_check_outputs(outs, 2, ins, 2))
        return 2;
    cuzk_error err = {0};
    progress_state ps = progress_start("setup");
    cuzk_setup_options o = {.threads = threads, .progress = print_progress, .progress_ctx = &ps, .format = format};
    if (cli_env_setup(&o))
        return 2;
    if (!ptau)
        fprintf(stderr, "cuzk: warning: no --ptau: a setup from fresh randomness, for testing only (whoever runs it "
                        "could keep the toxic waste and forge proofs)\n");
    int rc = cuzk_setup(paths[0], ptau, paths[1], &o, &err);
    progress_done(&ps);
    if (rc != CUZK_OK)
        return fail_err(&err);
    if (vk_path[0]) {
        params_file pf;
        if ((rc = params_open(&pf, paths[1], &err)) == CUZK_OK) {
            rc = params_write_vk(&pf, vk_path, &err);
            params_close(&pf);
        }
        if (rc != CUZK_OK)
            return fail_err(&err);
        fprintf(stderr, "cuzk setup: %s, and its verifying key %s\n", paths[1], vk_path);
    }
    return 0;
}

static int cmd_verify(int argc, char **argv)
{
    if (argc != 3)
        return fail("verify takes 3 arguments: <verification_key.json> <public.json> <proof.json>, got %d", argc);
    cuzk_error err = {0};
    int rc = cuzk_verify_files(argv[0], argv[1], argv[2], &err);
    return cli_verdict(rc, &err);
}

static int cmd_zkey(int argc, char **argv)
{
    if (argc >= 1 && (!strcmp(argv[0], "export-vk") ||
                      (!strcmp(argv[0], "export") && argc >= 2 && !strcmp(argv[1], "verificationkey")))) {
        int skip = !strcmp(argv[0], "export") ? 2 : 1;
        argc -= skip;
        argv += skip;
        if (argc != 2)
            return fail("zkey export-vk takes 2 arguments: <circuit.zkey|circuit.params> <verification_key.json>, got %d",
                        argc);
        const cli_file in = {"circuit.zkey", argv[0]}, out = {"verification_key.json", argv[1]};
        if (cli_check_outputs(&out, 1, &in, 1))
            return 2;
        cuzk_error err = {0};
        char magic[5];
        if (binfile_peek_magic(argv[0], magic, &err) != CUZK_OK && err.code == CUZK_ERR_IO)
            return fail_err(&err);
        char *json;
        int rc;
        if (strcmp(magic, "zkey") != 0) {
            /* no magic: a bellperson .params key (mapped: its vk and IC are read) */
            params_file pf;
            if (params_open(&pf, argv[0], &err) != CUZK_OK)
                return fail("%s (neither a .zkey nor a bellperson .params key)", err.message);
            rc = params_export_vk(&pf, &json, &err);
            params_close(&pf);
        } else {
            cuzk_zkey *zk;
            progress_state ps = progress_start("zkey export-vk");
            rc = cuzk_zkey_open_progress(&zk, argv[0], print_progress, &ps, &err);
            progress_done(&ps);
            if (rc != CUZK_OK)
                return fail_err(&err);
            rc = cuzk_zkey_export_vk(zk, &json, &err);
            cuzk_zkey_free(zk);
        }
        if (rc != CUZK_OK)
            return fail_err(&err);
        rc = write_file_atomic(argv[1], json, strlen(json), &err);
        cuzk_free(json);
        return rc == CUZK_OK ? 0 : fail_err(&err);
    }
    return fail("unknown zkey command%s%s (known: export-vk)", argc ? " " : "", argc ? argv[0] : "");
}

static void print_sections(const binfile *bf)
{
    printf("  sections:      ");
    for (uint32_t i = 0; i < bf->n_sections; i++)
        printf("%s%u (%llu bytes)", i ? ", " : "", bf->sections[i].id, (unsigned long long)bf->sections[i].size);
    printf("\n");
}

static int info_zkey(const char *path, int check, int threads)
{
    cuzk_error err = {0};
    cuzk_zkey *zk; /* mapped: a look at a large key costs its header (main's SIGBUS handler) */
    if (zkey_file_map(&zk, path, &err) != CUZK_OK)
        return fail_err(&err);
    cuzk_zkey_info in;
    cuzk_zkey_get_info(zk, &in);
    int log2 = 0;
    while ((1u << log2) < in.domain_size)
        log2++;
    printf("%s: snarkjs Groth16 proving key (zkey version %u)\n", path, in.version);
    printf("  curve:         %s (%s)\n", zk->curve->display, zk->curve->name);
    printf("  signals:       %u (the constant 1, %u public, %u private)\n", in.n_vars, in.n_public,
           in.n_vars - in.n_public - 1);
    printf("  domain size:   %u (2^%d)\n", in.domain_size, log2);
    printf("  coefficients:  %llu (A and B matrices)\n", in.n_coefs);
    printf("  file size:     %llu bytes\n", in.file_size);
    print_sections(&zk->bf);
    int rc = 0;
    if (check) {
        progress_state ps = progress_start("info --check");
        int crc = cuzk_zkey_check_progress(zk, 1, threads, print_progress, &ps, &err);
        progress_done(&ps);
        if (crc != CUZK_OK)
            rc = fail_err(&err);
        else
            printf("  check:         every point canonical, on the curve and in the subgroup; coefficients in range\n");
    }
    cuzk_zkey_free(zk);
    return rc;
}

static int info_wtns(const char *path)
{
    cuzk_error err = {0};
    cuzk_wtns *w;
    if (cuzk_wtns_map(&w, path, &err) != CUZK_OK)
        return fail_err(&err);
    cuzk_wtns_info in;
    cuzk_wtns_get_info(w, &in);
    printf("%s: circom witness (wtns version %u)\n", path, in.version);
    printf("  curve:         %s (%s)\n", w->curve->display, w->curve->name);
    printf("  values:        %u\n", in.n_witness);
    print_sections(&w->bf);
    cuzk_wtns_free(w);
    return 0;
}

static int info_r1cs(const char *path)
{
    cuzk_error err = {0};
    cuzk_r1cs *r;
    if (cuzk_r1cs_map(&r, path, &err) != CUZK_OK)
        return fail_err(&err);
    cuzk_r1cs_info in;
    cuzk_r1cs_get_info(r, &in);
    printf("%s: circom constraint system (r1cs version %u)\n", path, in.version);
    printf("  curve:         %s (%s)\n", r->curve->display, r->curve->name);
    printf("  wires:         %u (%u public outputs, %u public inputs, %u private inputs)\n", in.n_wires, in.n_pub_out,
           in.n_pub_in, in.n_prv_in);
    printf("  labels:        %llu\n", in.n_labels);
    printf("  constraints:   %u (%llu terms)\n", in.n_constraints, in.n_terms);
    print_sections(&r->bf);
    cuzk_r1cs_free(r);
    return 0;
}

static int info_ptau(const char *path)
{
    cuzk_error err = {0};
    ptau_file pt;
    if (ptau_open(&pt, path, &err) != CUZK_OK)
        return fail_err(&err);
    printf("%s: powers of tau, prepared for phase 2 (ptau version %u)\n", path, pt.bf.version);
    printf("  curve:         %s (%s)\n", pt.curve->display, pt.curve->name);
    printf("  power:         %u (circuits of fewer than 2^%u constraints + public signals; ceremony power %u)\n", pt.power,
           pt.power, pt.ceremony_power);
    print_sections(&pt.bf);
    ptau_close(&pt);
    return 0;
}

static int info_params(const char *path, int check, int threads)
{
    cuzk_error err = {0};
    params_file pf;
    if (params_open(&pf, path, &err) != CUZK_OK)
        return fail("%s (not a .zkey, .wtns, .r1cs or .ptau file either: no magic matched)", err.message);
    printf("%s: bellperson Groth16 parameters (BLS12-381)\n", path);
    for (int v = 0; v < PARAMS_VECTORS; v++)
        printf("  %-5s          %u points\n", params_vector_name[v], pf.count[v]);
    printf("  file size:     %zu bytes\n", pf.size);
    int rc = 0;
    if (check) {
        if (threads <= 0)
            threads = cpu_cores();
        progress_state ps = progress_start("info --check");
        int crc = params_check(&pf, threads, &(progress_sink){print_progress, &ps, NULL}, &err);
        progress_done(&ps);
        if (crc != CUZK_OK)
            rc = fail_err(&err);
        else
            printf("  check:         every point canonical, on the curve, in the subgroup and not at infinity\n");
    }
    params_close(&pf);
    return rc;
}

/* cuzk circuit porep-shape OUT_DIR [--constraints N] [--partitions P] [--seed S]
 *                          [--format r1cs|native] [--witnesses] */
static int cmd_circuit_porep(int argc, char **argv)
{
    const char *dir = NULL;
    unsigned long long v;
    cuzk_porep_shape_options o = {.seed = 1};
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--constraints") || !strcmp(a, "--seed") || !strcmp(a, "--partitions")) {
            if (i + 1 >= argc)
                return fail("%s needs a value", a);
            const char *val = argv[++i];
            if (!strcmp(a, "--constraints")) {
                if (parse_size(a, val, CUZK_POREP_CONSTRAINTS, &o.constraints))
                    return 2;
                if (!o.constraints)
                    return fail("--constraints expects at least 1024, got 0");
            } else if (!strcmp(a, "--seed")) {
                if (parse_size(a, val, ~0ull - 1, &o.seed))
                    return 2;
            } else {
                if (parse_size(a, val, 1000, &v))
                    return 2;
                if (!v)
                    return fail("--partitions expects 1 to 1000, got 0");
                o.partitions = (unsigned)v;
            }
        } else if (!strcmp(a, "--format")) {
            if (i + 1 >= argc)
                return fail("--format needs a value: r1cs or native");
            const char *f = argv[++i];
            if (!strcmp(f, "r1cs"))
                o.format = CUZK_POREP_FORMAT_R1CS;
            else if (!strcmp(f, "native"))
                o.format = CUZK_POREP_FORMAT_NATIVE;
            else
                return fail("--format expects r1cs or native, got '%s'", f);
        } else if (!strcmp(a, "--witnesses"))
            o.witness_files = 1;
        else if (a[0] == '-' && a[1])
            return fail("circuit porep-shape: unknown option '%s'", a);
        else if (dir)
            return fail("circuit porep-shape takes one directory; '%s' is a second", a);
        else
            dir = a;
    }
    if (!dir)
        return fail("circuit porep-shape needs OUT_DIR (it gets circuit.r1cs and partition_K.wtns, or circuit.porep)");
    progress_state ps = progress_start("circuit");
    o.progress = print_progress;
    o.progress_ctx = &ps;
    cuzk_error err = {0};
    cuzk_porep_shape_info in;
    double t0 = cuzk_now();
    int rc = cuzk_circuit_porep_shape(dir, &o, &in, &err);
    progress_done(&ps);
    if (rc != CUZK_OK)
        return fail_err(&err);
    double n = (double)in.constraints;
    printf("constraints: %llu (%llu public inputs, %llu aux variables), %llu partitions in %s\n", in.constraints,
           in.n_public, in.aux, in.partitions, dir);
    printf("nonzeros per constraint: A %.3f, B %.3f, C %.3f (A %llu, B %llu, C %llu)\n", (double)in.nonzeros[0] / n,
           (double)in.nonzeros[1] / n, (double)in.nonzeros[2] / n, in.nonzeros[0], in.nonzeros[1], in.nonzeros[2]);
    printf("aux variables in A: %.2f%%, in B: %.2f%%\n", 100.0 * (double)in.aux_in_a / (double)in.aux,
           100.0 * (double)in.aux_in_b / (double)in.aux);
    if (in.witness_values)
        printf("aux values in {0,1}: %.3f%% (%llu of %llu)\n",
               100.0 * (double)in.witness_binary / (double)in.witness_values, in.witness_binary, in.witness_values);
    if (in.format == CUZK_POREP_FORMAT_NATIVE)
        printf("native form: %s/circuit.porep (where a .r1cs goes: cuzk setup, cuzk prove --r1cs);%s\n", dir,
               in.witness_values ? " witnesses in partition_K.wtns"
                                 : " the witnesses are made where they are proved (or write them with --witnesses)");
    printf("time: %.2f s\n", cuzk_now() - t0);
    return 0;
}

static int cmd_circuit(int argc, char **argv)
{
    if (argc >= 1 && !strcmp(argv[0], "stacked"))
        return cmd_circuit_stacked(argc - 1, argv + 1);
    if (argc >= 1 && !strcmp(argv[0], "porep-shape"))
        return cmd_circuit_porep(argc - 1, argv + 1);
    if (argc < 1 || strcmp(argv[0], "sha256-chain") != 0)
        return fail("circuit: the generators are sha256-chain (cuzk circuit sha256-chain <out.r1cs> <out.wtns> "
                    "--constraints N) and porep-shape (cuzk circuit porep-shape OUT_DIR), got '%s'",
                    argc ? argv[0] : "");
    const char *paths[2];
    int npaths = 0, have_n = 0;
    unsigned long long v;
    cuzk_circuit_options o = {.curve = CUZK_CURVE_BN254, .seed = 1, .n_public = 256};
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--constraints") || !strcmp(a, "--seed") || !strcmp(a, "--public") ||
            !strcmp(a, "--curve") || !strcmp(a, "--message-out")) {
            if (i + 1 >= argc)
                return fail("%s needs a value", a);
            const char *val = argv[++i];
            if (!strcmp(a, "--constraints")) {
                if (parse_size(a, val, 1ull << 31, &o.constraints))
                    return 2;
                have_n = 1;
            } else if (!strcmp(a, "--seed")) {
                if (parse_size(a, val, ~0ull - 1, &o.seed))
                    return 2;
            } else if (!strcmp(a, "--public")) {
                if (parse_size(a, val, 256, &v))
                    return 2;
                o.n_public = (unsigned)v;
            } else if (!strcmp(a, "--curve")) {
                const curve_desc *cd = curve_by_name(val);
                if (!cd)
                    return fail("--curve expects bn128 or bls12381, got '%s'", val);
                o.curve = cd->id;
            } else
                o.message_path = val;
        } else if (a[0] == '-' && a[1])
            return fail("circuit: unknown option '%s'", a);
        else if (npaths == 2)
            return fail("circuit sha256-chain takes 2 files: <out.r1cs> <out.wtns>; '%s' is a third", a);
        else
            paths[npaths++] = a;
    }
    if (npaths != 2)
        return fail("circuit sha256-chain takes 2 files: <out.r1cs> <out.wtns>, got %d", npaths);
    if (!have_n)
        return fail("circuit sha256-chain needs --constraints N (an integer or 2^k)");
    const cli_file outs[] = {{"out.r1cs", paths[0]}, {"out.wtns", paths[1]}, {"--message-out", o.message_path}};
    if (cli_check_outputs(outs, 3, NULL, 0))
        return 2;
    progress_state ps = progress_start("circuit");
    o.progress = print_progress;
    o.progress_ctx = &ps;
    cuzk_error err = {0};
    cuzk_circuit_info info;
    double t0 = cuzk_now();
    int rc = cuzk_circuit_sha256_chain(paths[0], paths[1], &o, &info, &err);
    progress_done(&ps);
    if (rc != CUZK_OK)
        return fail_err(&err);
    double el = cuzk_now() - t0;
    unsigned long long values = info.witness_binary + info.witness_other;
    printf("blocks: %llu (+1 padding)\nconstraints: %llu\nwires: %llu\n", info.blocks, info.constraints, info.wires);
    printf("witness values in {0,1}: %llu of %llu (%.4f%%)\n", info.witness_binary, values,
           values ? 100.0 * (double)info.witness_binary / (double)values : 0.0);
    printf("digest: ");
    for (int i = 0; i < 32; i++)
        printf("%02x", info.digest[i]);
    printf("\ntime: %.2f s\n", el);
    return 0;
}

static int cmd_info(int argc, char **argv)
{
    const char *path = NULL;
    int check = 0, threads = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--check"))
            check = 1;
        else if (!strcmp(argv[i], "--threads")) {
            if (i + 1 >= argc)
                return fail("--threads needs a value");
            if (parse_threads(argv[++i], &threads))
                return 2;
        } else if (argv[i][0] == '-' && argv[i][1])
            return fail("info: unknown option '%s'", argv[i]);
        else if (path)
            return fail("info takes one file, got '%s' and '%s'", path, argv[i]);
        else
            path = argv[i];
    }
    if (!path)
        return fail("info needs a file: cuzk info <file> [--check] [--threads N]");
    cuzk_error err = {0};
    char magic[5];
    if (binfile_peek_magic(path, magic, &err) != CUZK_OK && err.code == CUZK_ERR_IO)
        return fail_err(&err);
    if (check && (!strcmp(magic, "wtns") || !strcmp(magic, "r1cs") || !strcmp(magic, "ptau")))
        return fail("--check applies to keys (.zkey and .params files) only; %s is a .%s file", path, magic);
    if (!strcmp(magic, "zkey"))
        return info_zkey(path, check, threads);
    if (!strcmp(magic, "wtns"))
        return info_wtns(path);
    if (!strcmp(magic, "r1cs"))
        return info_r1cs(path);
    if (!strcmp(magic, "ptau"))
        return info_ptau(path);
    return info_params(path, check, threads);
}

/* A mapped file (a .ptau or .params, or what `cuzk info` looks at:
 * src/formats/binfile.h) truncated while in use: the kernel answers a read
 * past its new end with SIGBUS. Proofs read their files into memory
 * instead, so this is a clear message, not a crash. Only
 * async-signal-safe calls here. */
static void on_sigbus(int sig)
{
    (void)sig;
    static const char msg[] = "cuzk: a file mapped for reading was truncated or replaced while in use (SIGBUS); "
                              "nothing was written: run again once the file is complete\n";
    ssize_t w = write(2, msg, sizeof(msg) - 1);
    (void)w;
    _exit(2);
}

static const command commands[] = {
    {"prove", cmd_prove, 0,
     "  prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
     "        [--threads N] [--device auto|gpu|cpu] [--gpu I] [--timings] [--json]\n"
     "        [--no-verify] [--r1cs <circuit.r1cs>] [--proof-format snarkjs|bellperson]\n"
     "             make a Groth16 proof (rapidsnark's and snarkjs's arguments); the proof\n"
     "             is verified before it is written; --device: where the transforms and\n"
     "             MSMs run (auto: a GPU when present; it says which on stderr), --gpu:\n"
     "             which CUDA device (0); --timings prints each phase's time to stderr,\n"
     "             --json prints timings and counts as JSON to stdout; with --r1cs the\n"
     "             key is a bellperson .params key (Filecoin's) of that circuit;\n"
     "             --proof-format bellperson writes the proof as bellperson does (192\n"
     "             bytes, BLS12-381) instead of proof.json\n"
     "  prove <circuit.params> <proof.json> <public.json> --r1cs <circuit.porep> --partition K\n"
     "             the same, with partition K's witness made from porep-shape's native\n"
     "             circuit (cuzk circuit porep-shape) instead of read from a .wtns\n"
     "  prove <circuit.params> <proofs.json> <publics.json> --r1cs <circuit.porep> --partitions P\n"
     "        [--partition K] [--proof-format snarkjs|bellperson] [--device D] [--threads N]\n"
     "             one job of P partitions (Filecoin's PoRep: 10) through the engine, from\n"
     "             partition K (default 0): the next one's witness made and uploaded while\n"
     "             the GPU proves the last; arrays of proofs and publics, or 192 bytes a\n"
     "             proof (1,920 for a PoRep)\n"},
    {"setup", cmd_setup, 0,
     "  setup <circuit.r1cs> <circuit.zkey> [--ptau <pot.ptau>] [--threads N]\n"
     "        [--format zkey|params]\n"
     "             circuit-specific setup from a phase-2-prepared powers of tau: the same\n"
     "             key, byte for byte, as snarkjs groth16 setup. Without --ptau: from\n"
     "             fresh randomness, for testing and benchmarking only. --format params\n"
     "             writes a bellperson .params key instead (BLS12-381; docs/filecoin.md)\n"
     "             and its verifying key beside it (KEY.params -> KEY.vk, bellperson's)\n"},
    {"circuit", cmd_circuit, 0,
     "  circuit sha256-chain <out.r1cs> <out.wtns> --constraints N [--seed S]\n"
     "        [--public K] [--curve bn128|bls12381] [--message-out <file>]\n"
     "             a satisfied test circuit of about N constraints (an integer or 2^k):\n"
     "             SHA-256 of a message from the seed (default 1), about 27,000\n"
     "             constraints per 64-byte block; the first K digest bits (default 256)\n"
     "             are public; prints the digest, which sha256sum of --message-out matches\n"
     "  circuit porep-shape OUT_DIR [--constraints N] [--partitions P] [--seed S]\n"
     "        [--format r1cs|native] [--witnesses]\n"
     "             a BLS12-381 circuit in a PoRep partition's proportions (default the full\n"
     "             130,278,869 constraints, 10 partitions): circuit.r1cs and partition_K.wtns,\n"
     "             or (native: the default above 2^24) circuit.porep, which goes where a\n"
     "             .r1cs goes; its witnesses are made where they are proved (--witnesses\n"
     "             writes them)\n"
     "  circuit stacked (--sector-size 2KiB|8MiB|512MiB|32GiB|64GiB | --nodes N --layers L\n"
     "        --challenges C [--tree B-S-T]) [--json] [-o DIR] [--bench-witness [--threads N]]\n"
     "        [--bench-record]\n"
     "             Filecoin's PoRep circuit of one partition (rust-fil-proofs' StackedCircuit):\n"
     "             --json prints its shape (inputs, constraints, aux, densities' popcounts,\n"
     "             nonzeros), -o writes DIR/circuit.stacked, its native form;\n"
     "             --bench-witness times a partition's witness synthesis on N threads\n"
     "             (default: every core), --bench-record its R1CS recording\n"},
    {"porep", cmd_porep, 1,
     "  porep seal (--sector-size SIZE | --proof NAME) [--sparse] [--seed N] DIR\n"
     "  porep c2 <c1.json> <key.params> <out.proof> [--vk KEY.vk] [--record R.json]\n"
     "        [--device D] [--threads N]\n"
     "  porep verify <KEY.vk> <RECORD.json>\n"
     "             Filecoin's PoRep C2 from a C1 output, verify_seal of a record, and\n"
     "             test sealing that makes C1 outputs; cuzk porep --help\n"},
    {"verify", cmd_verify, 0,
     "  verify <verification_key.json> <public.json> <proof.json>\n"
     "             check a Groth16 proof (snarkjs's argument order); prints OK (exit 0)\n"
     "             or INVALID (exit 1); malformed input exits 2\n"},
    {"zkey", cmd_zkey, 0,
     "  zkey export-vk <circuit.zkey|circuit.params> <verification_key.json>\n"
     "             write the verification key as snarkjs does (of a bellperson .params\n"
     "             key too: snarkjs then checks its proofs)\n"},
    {"info", cmd_info, 0,
     "  info <file> [--check] [--threads N]\n"
     "             describe a .zkey, .wtns, .r1cs, .ptau or bellperson .params file;\n"
     "             --check also checks every point of a key (.zkey or .params: on the\n"
     "             curve and in the subgroup) with N threads (default: all cores)\n"},
    {"bench", cmd_bench, 1,
     "  bench <circuit.zkey> <witness.wtns> [--jobs N] [--json] [engine options]\n"
     "             prove N times (default 20) through the engine's pipeline (prepare ->\n"
     "             compute -> finalize; docs/engine.md) with the engine options cuzk serve\n"
     "             takes (--workers W, --gpu-workers G, --threads T, --device, --gpu-memory B,\n"
     "             --prestage 0|1 or --no-prestage, --prepare-workers P, --finalize-workers F,\n"
     "             --ready-depth R, --finalize-depth D, --ahead A, ...; cuzk bench --help: all).\n"
     "             Prints throughput, latency percentiles, the engine's stats over the\n"
     "             timed run (how busy each pool, worker and GPU was, the queues, the\n"
             "             device-memory plan) and the mean phases of a proof\n"
     "  bench porep [--constraints N] [--partitions P] [--proofs K] [--device gpu|cpu]\n"
     "        [--witness live|pregenerated] [--cache DIR] [--json] [engine options]\n"
     "             the PoRep C2 job: K proofs of P partitions of a porep-shape circuit\n"
     "             (default the full size, 10 partitions) and its .params key (made, or\n"
     "             reused from --cache DIR); seconds per proof, a partition's phases, GPU and\n"
     "             CPU busy, memory peaks (cuzk bench porep --help)\n"},
    {"serve", cmd_serve, 1,
     "  serve [--config FILE] [--listen HOST:PORT] --state-dir DIR [--max-body B]\n"
     "        [--result-ttl S] [engine options]\n"
     "             the proving daemon: an HTTP/JSON API (docs/api.md) on HOST:PORT\n"
     "             (default 127.0.0.1:8080; PORT 0: a free port, printed), jobs journaled\n"
     "             in DIR so that none is lost across a crash; the engine options as\n"
     "             bench takes them, and --max-jobs N, --key-cache-bytes B; options also\n"
     "             from a 'key = value' FILE; SIGTERM stops it cleanly, SIGHUP reloads the\n"
     "             token file and the --key keys; cuzk serve --help: all\n"},
    {"submit", cmd_submit, 1,
     "  submit [--server HOST:PORT] (<circuit.zkey> | --key-id ID) <witness.wtns>\n"
     "        <proof.json> <public.json> [--priority low|normal|high|critical]\n"
     "        [--wait S] [--no-upload] [--busy-retries N] [--request-id ID]\n"
     "  submit --job ID <proof.json> <public.json> | submit --status\n"
     "             prove through a running cuzk serve (default 127.0.0.1:8080 or\n"
     "             $CUZK_SERVER) and write the files as prove does; under a request id\n"
     "             (random, or ID), so a POST whose answer is lost is sent again without\n"
     "             proving twice; exit 1: the job failed, 3: no daemon or it refused,\n"
     "             4: --wait passed; cuzk submit --help: all\n"},
    {"version", cmd_version, 0,
     "  version    print the version, the CPU backend and the GPUs found\n"},
    {"selftest", cmd_selftest, 0,
     "  selftest   run the arithmetic known-answer checks\n"},
    {NULL, NULL, 0, NULL},
};

/* The command named so (the first of the table when name is NULL). */
static const command *find_command(const char *name)
{
    if (!name)
        return commands;
    for (const command *c = commands; c->name; c++)
        if (!strcmp(c->name, name))
            return c;
    return NULL;
}

static int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return 1;
    return 0;
}

static int cmd_help(int argc, char **argv)
{
    if (argc == 0) {
        usage(stdout);
        return 0;
    }
    const command *c = find_command(argv[0]);
    if (argc > 1)
        return fail("help takes one command name, got %d arguments", argc);
    if (!c)
        return fail("help: unknown command '%s' (cuzk help lists them)", argv[0]);
    if (c->own_help) {
        char help[] = "--help";
        char *args[] = {help, NULL};
        return c->run(1, args);
    }
    printf("usage:\n%s", c->usage);
    return 0;
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_sigbus;
    sigaction(SIGBUS, &sa, NULL);
    cuzk_error rerr;
    if (cuzk_testcircuits_register(&rerr) != CUZK_OK) { /* porep-shape's native form, where a .r1cs goes */
        fprintf(stderr, "cuzk: %s\n", rerr.message);
        return 1;
    }
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    /* --quiet (or -q), anywhere: no progress lines (every command) */
    int kept = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--quiet") || !strcmp(argv[i], "-q"))
            cli_quiet = 1;
        else
            argv[kept++] = argv[i];
    }
    argc = kept;
    argv[argc] = NULL;
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    const char *cmd = argv[1];
    /* the one variable every command honours (the others are read by the
     * commands they concern) */
    if (cli_env_backend())
        return 2;
    if (!strcmp(cmd, "--version"))
        cmd = "version";
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h"))
        return cmd_help(argc - 2, argv + 2);
    const command *c = find_command(cmd);
    if (!c) {
        fprintf(stderr, "cuzk: unknown command '%s'\n\n", cmd);
        usage(stderr);
        return 2;
    }
    if (!c->own_help && wants_help(argc - 2, argv + 2)) {
        printf("usage:\n%s", c->usage);
        return 0;
    }
    return c->run(argc - 2, argv + 2);
}
