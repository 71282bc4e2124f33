/* Whole proofs in one process, the key resident between them: per-phase
 * medians over repetitions (the first proof, which uploads the key to the
 * GPU and warms up, is reported apart).
 *
 *   bench_prove <circuit.zkey> <witness.wtns> [--device cpu|gpu] [--reps N] [--threads T]
 *
 * The proof's GPU options come from the environment as for cuzk prove
 * (CUZK_GPU_UPLOAD, CUZK_GPU_EVAL, CUZK_GPU_MSM_CHUNK: tools/cuzk/cli.c);
 * the phases reported are every one of src/core/phases.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/programs.h"
#include "../tools/cuzk/cli.h"
#include "cuzk.h"

static void sort(double *v, int n)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s <circuit.zkey> <witness.wtns> [--device cpu|gpu] [--reps N] [--threads T]\n"
                        "       [--r1cs circuit.r1cs (the key is a bellperson .params key of it)]\n",
                argv[0]);
        return 2;
    }
    cuzk_prove_options opts = {0};
    int reps = 5;
    const char *r1cs = NULL;
    for (int i = 3; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--device")) {
            i++;
            opts.device = !strcmp(argv[i], "gpu") ? CUZK_DEVICE_GPU : !strcmp(argv[i], "cpu") ? CUZK_DEVICE_CPU
                                                                                               : CUZK_DEVICE_AUTO;
        } else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
            reps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--threads"))
            opts.threads = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--r1cs"))
            r1cs = argv[++i];
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1 || reps > 100)
        reps = 5;
    if (cli_env_backend() || cli_env_prove(&opts))
        return 2;
    cuzk_error err = {0};
    cuzk_zkey *zk;
    cuzk_wtns *w;
    int rc = r1cs ? cuzk_params_open(&zk, argv[1], r1cs, NULL, NULL, &err) : cuzk_zkey_open(&zk, argv[1], &err);
    if (rc != CUZK_OK || cuzk_wtns_open(&w, argv[2], &err) != CUZK_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    enum { NPH = TIMING_FIELDS + 1 }; /* every phase, then the total */
    double v[NPH][101];
    char device[16] = "";
    for (int r = 0; r <= reps; r++) {
        char *proof, *pub;
        cuzk_timings t;
        if (cuzk_prove(zk, w, &opts, &proof, &pub, &t, &err) != CUZK_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        cuzk_free(proof);
        cuzk_free(pub);
        snprintf(device, sizeof(device), "%s", t.device);
        if (r == 0) {
            printf("first proof: %.4f s (key upload %.4f s)\n", t.total, t.key_upload);
            continue;
        }
        for (size_t p = 0; p < TIMING_FIELDS; p++)
            v[p][r - 1] = timing_value(&t, &timing_fields[p]);
        v[TIMING_FIELDS][r - 1] = t.total;
    }
    printf("%s, %d proofs after the first, witness as in the key; medians:\n", device, reps);
    for (int p = 0; p < NPH; p++) {
        sort(v[p], reps);
        printf("  %-14s %9.4f s\n", p < (int)TIMING_FIELDS ? timing_fields[p].label : "total", v[p][reps / 2]);
    }
    cuzk_wtns_free(w);
    cuzk_zkey_free(zk);
    return 0;
}
