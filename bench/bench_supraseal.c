/* supraseal-c2's C ABI (include/cuzk_supraseal.h) against the library's
 * own proofs, same process, same key: what bellperson would see.
 *
 *   bench_supraseal <circuit.params> <circuit.r1cs> <witness.wtns> [--circuits N] [--reps R]
 *
 * The Assignments are made here as bellperson would hand them over (a and b
 * from the circuit's matrices, Montgomery form; densities from the key's
 * variable lists). Reported, per circuit (medians over reps, after one
 * warm-up call that uploads the key):
 *   abi N        one call of N circuits (pipelined: two workers a GPU)
 *   abi 1 x N    N calls of one circuit (no overlap between circuits)
 *   library      cuzk_prove with the circuit-aware key (the GPU evaluates
 *                a and b from its resident matrices)
 * Every proof is checked with the pairing by the code under test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../include/cuzk.h"
#include "../include/cuzk_supraseal.h"
#include "../src/core.h"
#include "../src/formats/wtns.h"
#include "../src/formats/zkey.h"
#include "../src/groth16/prove.h"
#include "../src/util/clock.h"

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(double), cmp_double);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: %s <circuit.params> <circuit.r1cs> <witness.wtns> [--circuits N] [--reps R]\n",
                argv[0]);
        return 2;
    }
    int n = 10, reps = 3;
    for (int i = 4; i < argc; i++) {
        if (i + 1 < argc && !strcmp(argv[i], "--circuits"))
            n = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
            reps = atoi(argv[++i]);
        else {
            fprintf(stderr, "unknown argument %s\n", argv[i]);
            return 2;
        }
    }
    if (n < 1 || n > 64)
        n = 10;
    if (reps < 1 || reps > 50)
        reps = 3;
    cuzk_error err = {0};
    cuzk_zkey *zk = NULL;
    cuzk_wtns *w = NULL;
    if (cuzk_params_open(&zk, argv[1], argv[2], NULL, NULL, &err) != CUZK_OK ||
        cuzk_wtns_open(&w, argv[3], &err) != CUZK_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    const struct cuzk_core_ops *core = cuzk_core();
    const size_t nv = zk->n_vars, npub1 = (size_t)zk->n_public + 1, n_aux = nv - npub1, m = zk->domain_size;
    /* a, b as bellperson computes them (Montgomery), the assignment in
     * Montgomery form, the densities of the key's variable lists */
    unsigned char zero32[32] = {0};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    core_prove_in in = prove_core_input(zk, w, zero32, zero32, cpus > 0 ? (int)cpus : 1, NULL);
    unsigned char *a = calloc(m, 32), *b = calloc(m, 32), *mont = malloc(nv * 32);
    uint64_t *a_aux = calloc(n_aux / 64 + 1, 8), *b_inp = calloc(npub1 / 64 + 1, 8), *b_aux = calloc(n_aux / 64 + 1, 8);
    core_prove_out out = {0};
    if (!a || !b || !mont || !a_aux || !b_inp || !b_aux || core->groth16_eval(&in, a, b, &out) != CUZK_OK) {
        fprintf(stderr, "cannot evaluate the circuit\n");
        return 1;
    }
    core->fr_to_mont(CUZK_CURVE_BLS12_381, mont, w->values, nv, 0);
    size_t pa = 0, pbi = 0, pba = 0;
    for (uint32_t k = 0; k < zk->n_a; k++)
        if (zk->a_vars[k] >= npub1) {
            size_t v = zk->a_vars[k] - npub1;
            a_aux[v / 64] |= UINT64_C(1) << (v % 64);
            pa++;
        }
    for (uint32_t k = 0; k < zk->n_b; k++) {
        size_t v = zk->b_vars[k];
        if (v < npub1) {
            b_inp[v / 64] |= UINT64_C(1) << (v % 64);
            pbi++;
        } else {
            v -= npub1;
            b_aux[v / 64] |= UINT64_C(1) << (v % 64);
            pba++;
        }
    }
    cuzk_ss_assignment as = {
        .a_aux_density = a_aux, .a_aux_bit_len = n_aux, .a_aux_popcount = pa,
        .b_inp_density = b_inp, .b_inp_bit_len = npub1, .b_inp_popcount = pbi,
        .b_aux_density = b_aux, .b_aux_bit_len = n_aux, .b_aux_popcount = pba,
        .a = (const cuzk_ss_fr *)a, .b = (const cuzk_ss_fr *)b, .c = NULL, .abc_size = m,
        .inp_assignment_data = (const cuzk_ss_fr *)mont, .inp_assignment_size = npub1,
        .aux_assignment_data = (const cuzk_ss_fr *)(mont + 32 * npub1), .aux_assignment_size = n_aux,
    };
    cuzk_ss_assignment *prov = malloc((size_t)n * sizeof(*prov));
    cuzk_ss_fr *rs = calloc((size_t)n, sizeof(cuzk_ss_fr));
    groth16_proof *proofs = malloc((size_t)n * sizeof(*proofs));
    for (int i = 0; i < n; i++) {
        prov[i] = as;
        rs[i].l[0] = 1000003u * (uint64_t)(i + 1); /* below r; any values do */
    }
    SRS srs = {NULL};
    double t = cuzk_now();
    RustError e = create_SRS(&srs, argv[1], false);
    double load = cuzk_now() - t;
    if (e.code) {
        fprintf(stderr, "create_SRS: %s\n", e.message);
        return 1;
    }
    t = cuzk_now();
    e = generate_groth16_proofs_c(prov, 1, rs, rs, proofs, &srs); /* uploads the key */
    double first = cuzk_now() - t;
    if (e.code) {
        fprintf(stderr, "generate_groth16_proofs_c: %s\n", e.message);
        return 1;
    }
    double *batch = malloc(sizeof(double) * (size_t)reps), *single = malloc(sizeof(double) * (size_t)reps),
           *lib = malloc(sizeof(double) * (size_t)reps);
    for (int r = 0; r < reps; r++) {
        t = cuzk_now();
        e = generate_groth16_proofs_c(prov, (size_t)n, rs, rs, proofs, &srs);
        batch[r] = (cuzk_now() - t) / n;
        if (e.code) {
            fprintf(stderr, "generate_groth16_proofs_c (%d): %s\n", n, e.message);
            return 1;
        }
        t = cuzk_now();
        for (int i = 0; i < n && !e.code; i++)
            e = generate_groth16_proofs_c(prov + i, 1, rs + i, rs + i, proofs + i, &srs);
        single[r] = (cuzk_now() - t) / n;
        if (e.code) {
            fprintf(stderr, "generate_groth16_proofs_c (1): %s\n", e.message);
            return 1;
        }
    }
    /* the library's own path with the circuit-aware key: one warm-up */
    char *pj = NULL, *pu = NULL;
    for (int r = -1; r < reps; r++) {
        t = cuzk_now();
        for (int i = 0; i < (r < 0 ? 1 : n); i++) {
            if (cuzk_prove(zk, w, NULL, &pj, &pu, NULL, &err) != CUZK_OK) {
                fprintf(stderr, "cuzk_prove: %s\n", err.message);
                return 1;
            }
            free(pj);
            free(pu);
        }
        if (r >= 0)
            lib[r] = (cuzk_now() - t) / n;
    }
    int gpus = 0;
    if (cuzk_gpu_count(&gpus) != CUZK_OK)
        gpus = 0;
    printf("bench_supraseal: a domain of %zu rows, %zu variables (A %u, B %u), %d circuits a call, %d GPU(s)\n", m, nv,
           zk->n_a, zk->n_b, n, gpus);
    printf("  create_SRS            %8.3f s\n", load);
    printf("  first call (upload)   %8.3f s\n", first);
    printf("  abi %2d circuits/call  %8.2f ms per circuit\n", n, 1e3 * median(batch, reps));
    printf("  abi 1 circuit x %-2d    %8.2f ms per circuit\n", n, 1e3 * median(single, reps));
    printf("  library cuzk_prove    %8.2f ms per proof (a, b evaluated from the resident matrices)\n",
           1e3 * median(lib, reps));
    drop_SRS(&srs);
    cuzk_zkey_free(zk);
    cuzk_wtns_free(w);
    free(a);
    free(b);
    free(mont);
    free(a_aux);
    free(b_inp);
    free(b_aux);
    free(prov);
    free(rs);
    free(proofs);
    free(batch);
    free(single);
    free(lib);
    return 0;
}
