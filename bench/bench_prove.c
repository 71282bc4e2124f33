/* Whole proofs in one process, the key resident between them: per-phase
 * medians over repetitions (the first proof, which uploads the key to the
 * GPU and warms up, is reported apart).
 *
 *   bench_prove <circuit.zkey> <witness.wtns> [--device cpu|gpu] [--reps N] [--threads T] */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        fprintf(stderr, "usage: %s <circuit.zkey> <witness.wtns> [--device cpu|gpu] [--reps N] [--threads T]\n",
                argv[0]);
        return 2;
    }
    cuzk_prove_options opts = {0};
    int reps = 5;
    for (int i = 3; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--device")) {
            i++;
            opts.device = !strcmp(argv[i], "gpu") ? CUZK_DEVICE_GPU : !strcmp(argv[i], "cpu") ? CUZK_DEVICE_CPU
                                                                                               : CUZK_DEVICE_AUTO;
        } else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
            reps = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--threads"))
            opts.threads = atoi(argv[++i]);
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (reps < 1 || reps > 100)
        reps = 5;
    cuzk_error err = {0};
    cuzk_zkey *zk;
    cuzk_wtns *w;
    if (cuzk_zkey_open(&zk, argv[1], &err) != CUZK_OK || cuzk_wtns_open(&w, argv[2], &err) != CUZK_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    enum { EVAL, UPLOAD, NTT, MA, MB1, MB2, MC, MH, BLIND, VERIFY, TOTAL, NPH };
    static const char *names[NPH] = {"eval+classify", "gpu upload", "ntt", "msm A", "msm B1", "msm B2",
                                     "msm C", "msm H", "blind", "verify", "total"};
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
        double row[NPH] = {t.eval, t.gpu_upload, t.ntt, t.msm_a, t.msm_b1, t.msm_b2, t.msm_c, t.msm_h,
                           t.blind, t.verify, t.total};
        if (r == 0) {
            printf("first proof: %.4f s (key upload %.4f s)\n", t.total, t.key_upload);
            continue;
        }
        for (int p = 0; p < NPH; p++)
            v[p][r - 1] = row[p];
    }
    printf("%s, %d proofs after the first, witness as in the key; medians:\n", device, reps);
    for (int p = 0; p < NPH; p++) {
        sort(v[p], reps);
        printf("  %-14s %9.4f s\n", names[p], v[p][reps / 2]);
    }
    cuzk_wtns_free(w);
    cuzk_zkey_free(zk);
    return 0;
}
