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
 * Every proof is checked with the pairing by the code under test.
 *
 *   bench_supraseal --porep DIR [--batch B] [--reps R] [--lib PATH]
 *
 * The PoRep job's partitions through the ABI: DIR holds porep-shape's
 * native circuit.porep and its key.params (`cuzk bench porep --cache DIR`
 * makes them). B partitions' Assignments are made from the circuit (the
 * witness, a and b from its matrices, c = a o b: the circuit is satisfied,
 * bellperson's densities), then timed (medians over R, after a warm-up
 * call of one circuit that waits for the key's load and upload): one
 * circuit a call, then 2 and B a call. --lib PATH: the ABI's functions
 * come from that shared library (dlopen'ed with its own symbols first),
 * any implementation of supraseal-c2's C ABI (supraseal-c2's own, built
 * outside this repository, to compare in one run on one machine);
 * without, the library's own (include/cuzk_supraseal.h). Every proof
 * is checked here with the pairing against the key's verification key:
 * an implementation's wrong proof is named. Reported: the key's load, the
 * warm-up, and seconds per partition for each batch, with the host's
 * peak memory. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../include/cuzk.h"
#include "../include/cuzk_supraseal.h"
#include "../include/cuzk_testcircuits.h"
#include "../src/programs.h"

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

/* ------------------------------------------------------------ --porep */

/* The ABI's entry points: the library's own or another implementation's. */
typedef struct abi_fns {
    RustError (*create_srs)(SRS *ret, const char *path, bool cache);
    void (*drop_srs)(SRS *ref);
    RustError (*generate)(const cuzk_ss_assignment provers[], size_t num_circuits, const cuzk_ss_fr r_s[],
                          const cuzk_ss_fr s_s[], groth16_proof proofs[], SRS *srs);
} abi_fns;

static int abi_load(abi_fns *f, const char *lib)
{
    if (!lib) {
        f->create_srs = create_SRS;
        f->drop_srs = drop_SRS;
        f->generate = generate_groth16_proofs_c;
        return 0;
    }
    /* RTLD_DEEPBIND: the library's own references bind to its own
     * symbols, not to this program's copies of the same names */
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
    if (!h) {
        fprintf(stderr, "--lib %s: %s\n", lib, dlerror());
        return 1;
    }
    *(void **)(&f->create_srs) = dlsym(h, "create_SRS");
    *(void **)(&f->drop_srs) = dlsym(h, "drop_SRS");
    *(void **)(&f->generate) = dlsym(h, "generate_groth16_proofs_c");
    if (!f->create_srs || !f->drop_srs || !f->generate) {
        fprintf(stderr, "--lib %s: create_SRS, drop_SRS or generate_groth16_proofs_c missing\n", lib);
        return 1;
    }
    return 0;
}

static double peak_rss_gib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / (1024.0 * 1024.0);
}

/* One partition's Assignment and what it points to. */
typedef struct partition_data {
    unsigned char *wit;     /* n_wires values: the inputs then aux, Montgomery */
    unsigned char *a, *b, *c;
    unsigned char *publics; /* the n_public public values, plain */
} partition_data;

/* The key's verification key in the core's layout. */
typedef struct vk_data {
    unsigned char alpha1[96], beta1[96], beta2[192], gamma2[192], delta1[96], delta2[192];
    unsigned char *ic;
    size_t n_ic;
} vk_data;

static int vk_read(vk_data *vk, const char *path)
{
    params_file pf;
    cuzk_error err = {0};
    if (params_open(&pf, path, &err) != CUZK_OK)
        goto fail;
    vk->n_ic = pf.count[PARAMS_IC];
    vk->ic = malloc(vk->n_ic * 96);
    if (!vk->ic || params_decode_vk(&pf, vk->alpha1, vk->beta1, vk->beta2, vk->gamma2, vk->delta1, vk->delta2,
                                    &err) != CUZK_OK ||
        params_decode(&pf, PARAMS_IC, vk->ic, 1, NULL, 0, vk->n_ic, &err) != CUZK_OK) {
        params_close(&pf);
        goto fail;
    }
    params_close(&pf);
    return 0;
fail:
    fprintf(stderr, "%s: %s\n", path, err.message[0] ? err.message : "out of memory");
    return 1;
}

/* proofs[k] against the verification key: blst's affine layout is the
 * core's (Montgomery coordinates, little-endian limbs, c0 first). */
static int check_proofs(const vk_data *vk, const partition_data *pd, const groth16_proof *proofs, int n,
                        const char *what)
{
    const struct cuzk_core_ops *core = cuzk_core();
    core_vk v = {.alpha1 = vk->alpha1, .beta2 = vk->beta2, .gamma2 = vk->gamma2, .delta2 = vk->delta2,
                 .ic = vk->ic, .n_ic = vk->n_ic};
    for (int k = 0; k < n; k++) {
        core_proof p = {.a = (const unsigned char *)&proofs[k].a, .b = (const unsigned char *)&proofs[k].b,
                        .c = (const unsigned char *)&proofs[k].c};
        if (core->groth16_verify(CUZK_CURVE_BLS12_381, &v, pd[k].publics, &p) != CUZK_OK) {
            fprintf(stderr, "%s: the proof of partition %d does not verify\n", what, k);
            return 1;
        }
    }
    return 0;
}

static int porep_main(const char *dir, int batch, int reps, const char *lib)
{
    char circ[4200], key[4200];
    snprintf(circ, sizeof(circ), "%.4000s/circuit.porep", dir);
    snprintf(key, sizeof(key), "%.4000s/key.params", dir);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    int threads = cpus > 0 ? (int)cpus : 1;
    cuzk_error err = {0};
    circuit_source *src = NULL;
    cs_matrices *mat = NULL;
    uint32_t *a_vars = NULL, *b_vars = NULL, n_a = 0, n_b = 0;
    abi_fns abi;
    vk_data vk = {0};
    if (abi_load(&abi, lib) || vk_read(&vk, key))
        return 1;
    double t = cuzk_now();
    if (circuit_source_open(&src, circ, NULL, &err) != CUZK_OK ||
        cs_matrices_from_source(&mat, src, threads, &a_vars, &n_a, &b_vars, &n_b, NULL, &err) != CUZK_OK) {
        fprintf(stderr, "%s\n", err.message);
        return 1;
    }
    if (!src->witness || (unsigned)batch > src->partitions) {
        fprintf(stderr, "%s: a generated circuit of at least %d partitions expected\n", circ, batch);
        return 1;
    }
    const struct cuzk_core_ops *core = cuzk_core();
    const size_t nv = src->n_wires, npub1 = (size_t)src->n_public + 1, n_aux = nv - npub1, rows = mat->rows;
    size_t domain = 1;
    while (domain < rows)
        domain <<= 1;
    /* the densities, bellperson's: A's aux variables, B's inputs and aux */
    uint64_t *a_aux = calloc(n_aux / 64 + 1, 8), *b_inp = calloc(npub1 / 64 + 1, 8), *b_aux = calloc(n_aux / 64 + 1, 8);
    partition_data *pd = calloc((size_t)batch, sizeof(*pd));
    if (!a_aux || !b_inp || !b_aux || !pd) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    size_t pa = 0, pbi = 0, pba = 0;
    for (uint32_t k = 0; k < n_a; k++)
        if (a_vars[k] >= npub1) {
            a_aux[(a_vars[k] - npub1) / 64] |= UINT64_C(1) << ((a_vars[k] - npub1) % 64);
            pa++;
        }
    for (uint32_t k = 0; k < n_b; k++) {
        size_t v = b_vars[k];
        if (v < npub1) {
            b_inp[v / 64] |= UINT64_C(1) << (v % 64);
            pbi++;
        } else {
            b_aux[(v - npub1) / 64] |= UINT64_C(1) << ((v - npub1) % 64);
            pba++;
        }
    }
    cuzk_ss_assignment *prov = calloc((size_t)batch, sizeof(*prov));
    cuzk_ss_fr *rs = calloc((size_t)batch, sizeof(cuzk_ss_fr)), *ss = calloc((size_t)batch, sizeof(cuzk_ss_fr));
    groth16_proof *proofs = calloc((size_t)batch, sizeof(*proofs));
    if (!prov || !rs || !ss || !proofs) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    for (int p = 0; p < batch; p++) {
        partition_data *d = &pd[p];
        d->wit = malloc(nv * 32);
        d->a = calloc(domain, 32);
        d->b = calloc(domain, 32);
        d->c = malloc(rows * 32);
        d->publics = malloc(npub1 * 32);
        if (!d->wit || !d->a || !d->b || !d->c || !d->publics) {
            fprintf(stderr, "out of memory for partition %d's assignment (%.1f GiB each)\n", p,
                    (double)(nv + 2 * domain + rows) * 32 / (1u << 30));
            return 1;
        }
        if (src->witness(src, (unsigned)p, d->wit, threads, &err) != CUZK_OK) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        core_prove_in in = {.curve = CUZK_CURVE_BLS12_381, .threads = threads, .n_vars = (unsigned)nv,
                            .n_public = src->n_public, .domain_size = (unsigned)domain, .mat = mat,
                            .witness = d->wit};
        core_prove_out out;
        if (core->groth16_eval(&in, d->a, d->b, &out) != CUZK_OK) {
            fprintf(stderr, "cannot evaluate partition %d\n", p);
            return 1;
        }
        core->fr_mul(CUZK_CURVE_BLS12_381, d->c, d->a, d->b, rows, threads);
        memcpy(d->publics, d->wit + 32, (npub1 - 1) * 32);
        core->fr_to_mont(CUZK_CURVE_BLS12_381, d->wit, d->wit, nv, threads);
        prov[p] = (cuzk_ss_assignment){
            .a_aux_density = a_aux, .a_aux_bit_len = n_aux, .a_aux_popcount = pa,
            .b_inp_density = b_inp, .b_inp_bit_len = npub1, .b_inp_popcount = pbi,
            .b_aux_density = b_aux, .b_aux_bit_len = n_aux, .b_aux_popcount = pba,
            .a = (const cuzk_ss_fr *)d->a, .b = (const cuzk_ss_fr *)d->b, .c = (const cuzk_ss_fr *)d->c,
            .abc_size = rows,
            .inp_assignment_data = (const cuzk_ss_fr *)d->wit, .inp_assignment_size = npub1,
            .aux_assignment_data = (const cuzk_ss_fr *)(d->wit + 32 * npub1), .aux_assignment_size = n_aux,
        };
        rs[p].l[0] = 1000003u * (uint64_t)(p + 1); /* below r; any values do */
        ss[p].l[0] = 7919u * (uint64_t)(p + 2);
    }
    double t_asg = cuzk_now() - t;
    cs_matrices_free(mat);
    free(a_vars);
    free(b_vars);
    printf("bench_supraseal --porep: %u constraints (%zu rows, domain %zu), %zu variables (A %zu aux, B %zu + %zu); "
           "%d partitions' assignments made in %.2f s; ABI: %s\n",
           src->n_constraints, rows, domain, nv, pa, pbi, pba, batch, t_asg, lib ? lib : "libcuzk");
    fflush(stdout);
    SRS srs = {NULL};
    t = cuzk_now();
    RustError e = abi.create_srs(&srs, key, false);
    double load = cuzk_now() - t;
    if (e.code) {
        fprintf(stderr, "create_SRS: %s\n", e.message ? e.message : "failed");
        return 1;
    }
    printf("  create_SRS            %8.3f s\n", load);
    fflush(stdout);
    t = cuzk_now();
    e = abi.generate(prov, 1, rs, ss, proofs, &srs); /* waits for the key's load, uploads what it uploads */
    double first = cuzk_now() - t;
    if (e.code) {
        fprintf(stderr, "generate_groth16_proofs_c: %s\n", e.message ? e.message : "failed");
        return 1;
    }
    if (check_proofs(&vk, pd, proofs, 1, "warm-up"))
        return 1;
    printf("  first call (1)        %8.3f s (proof verified)\n", first);
    fflush(stdout);
    int sizes[3] = {1, 2, batch}, n_sizes = batch > 2 ? 3 : batch;
    double *v = malloc(sizeof(double) * (size_t)reps);
    for (int z = 0; z < n_sizes && v; z++) {
        int k = sizes[z];
        for (int r = 0; r < reps; r++) {
            memset(proofs, 0, (size_t)k * sizeof(*proofs));
            t = cuzk_now();
            e = abi.generate(prov, (size_t)k, rs, ss, proofs, &srs);
            v[r] = (cuzk_now() - t) / k;
            if (e.code) {
                fprintf(stderr, "generate_groth16_proofs_c (%d): %s\n", k, e.message ? e.message : "failed");
                return 1;
            }
            if (check_proofs(&vk, pd, proofs, k, "generate_groth16_proofs_c"))
                return 1;
        }
        printf("  %2d partition%s a call   %8.3f s per partition (median of %d; every proof verified)\n", k,
               k == 1 ? " " : "s", median(v, reps), reps);
        fflush(stdout);
    }
    printf("  host memory peak      %8.1f GiB\n", peak_rss_gib());
    abi.drop_srs(&srs);
    for (int p = 0; p < batch; p++) {
        free(pd[p].wit);
        free(pd[p].a);
        free(pd[p].b);
        free(pd[p].c);
        free(pd[p].publics);
    }
    free(pd);
    free(prov);
    free(rs);
    free(ss);
    free(proofs);
    free(a_aux);
    free(b_inp);
    free(b_aux);
    free(vk.ic);
    free(v);
    circuit_source_free(src);
    return 0;
}

int main(int argc, char **argv)
{
    cuzk_error rerr;
    if (cuzk_testcircuits_register(&rerr) != CUZK_OK) { /* --porep's circuit.porep */
        fprintf(stderr, "%s\n", rerr.message);
        return 1;
    }
    if (argc >= 3 && !strcmp(argv[1], "--porep")) {
        int batch = 2, reps = 2;
        const char *lib = NULL;
        for (int i = 3; i < argc; i++) {
            if (i + 1 < argc && !strcmp(argv[i], "--batch"))
                batch = atoi(argv[++i]);
            else if (i + 1 < argc && !strcmp(argv[i], "--reps"))
                reps = atoi(argv[++i]);
            else if (i + 1 < argc && !strcmp(argv[i], "--lib"))
                lib = argv[++i];
            else {
                fprintf(stderr, "unknown argument %s\n", argv[i]);
                return 2;
            }
        }
        if (batch < 1 || batch > 64 || reps < 1 || reps > 50) {
            fprintf(stderr, "--batch expects 1 to 64, --reps 1 to 50\n");
            return 2;
        }
        return porep_main(argv[2], batch, reps, lib);
    }
    if (argc < 4) {
        fprintf(stderr,
                "usage: %s <circuit.params> <circuit.r1cs> <witness.wtns> [--circuits N] [--reps R]\n"
                "       %s --porep DIR [--batch B] [--reps R] [--lib PATH]\n",
                argv[0], argv[0]);
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
