/* cuzk porep: Filecoin's PoRep C2 from a C1 output (c2), the test sealing
 * that makes C1 outputs of small sectors (seal), and cuzk circuit
 * stacked: the real circuit's shape and native form. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "../../src/programs.h"
#include "cli.h"
#include "commands.h"

#define C1_MAX (1ull << 30) /* a 32 GiB sector's C1 output is tens of MB */

static const char porep_usage[] =
    "usage:\n"
    "  cuzk porep seal (--sector-size SIZE | --proof NAME) [--sparse] [--seed N] DIR\n"
    "             test sealing (PC1, PC2, C1) of a sector of random data from the seed\n"
    "             (default 1): DIR/c1.json, the C1 output (filecoin-ffi's JSON), and\n"
    "             DIR/record.json, its public values as rust-fil-proofs' seal records\n"
    "             hold them (the proof empty). --sector-size seals the interactive\n"
    "             V1_1 proof of that size; --proof names the registered seal proof\n"
    "             (e.g. StackedDrg2KiBV1_1_Feat_SyntheticPoRep, StackedDrg8MiBV1).\n"
    "             In memory: (layers + 3) x the sector, so 2KiB, 8MiB and 512MiB;\n"
    "             --sparse makes a C1 output of any size (32GiB, 64GiB) in kilobytes:\n"
    "             a sector of zero data (committed capacity) whose challenged nodes'\n"
    "             labels are computed from their parents' and whose other labels and\n"
    "             tree nodes are made up - valid for every check c2 makes, for\n"
    "             benchmarks and tests (interactive proofs only)\n"
    "  cuzk porep c2 <c1.json> <key.params> <out.proof> [--vk KEY.vk]\n"
    "        [--record RECORD.json] [--device auto|gpu|cpu] [--threads N] [--json DIR]\n"
    "             the PoRep C2: the C1 output (or Curio's {\"SectorNum\",\"Phase1Out\",...}\n"
    "             wrapper of it) read and checked, each partition's witness synthesized\n"
    "             and proved with the key (rust-fil-proofs' StackedCircuit of the C1's\n"
    "             registered proof), every proof checked with the key's verifying key:\n"
    "             out.proof holds the partitions' proofs, 192 bytes each (bellperson's\n"
    "             encoding; 1,920 for a 32 GiB sector). Nothing is written on an error.\n"
    "             --threads: the witness synthesis's and the CPU's (default every core).\n"
    "             --json DIR also writes each partition's DIR/proof_K.json and\n"
    "             DIR/public_K.json as snarkjs does (snarkjs groth16 verify checks them\n"
    "             with cuzk zkey export-vk's verification key). --vk also checks the\n"
    "             proofs against that verifying key (bellperson's .vk file, as Filecoin\n"
    "             publishes one beside each .params); --record fills RECORD.json's proof\n"
    "             (a record of the same sector, as porep seal writes one)\n"
    "  cuzk porep verify <KEY.vk> <RECORD.json>\n"
    "             verify_seal: the record's proof checked against the verifying key (a\n"
    "             .vk, or the .params key it begins) with the public inputs derived from\n"
    "             the record's values alone (replica_id, the challenges from the seed);\n"
    "             prints OK (exit 0) or INVALID (exit 1); a malformed input exits 2\n";

/* 32 bytes from a splitmix64 stream */
static void fill_random(uint64_t *state, unsigned char *out, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        out[i] = (unsigned char)(z ^ (z >> 31));
    }
}

static int write_text(const char *path, char *text, size_t len)
{
    cuzk_error err;
    int rc = write_file_atomic(path, text, len, &err);
    free(text);
    return rc ? fail_err(&err) : 0;
}

static int porep_seal(int argc, char **argv)
{
    const char *size = NULL, *proof = NULL, *dir = NULL;
    unsigned long long seed = 1;
    int sparse = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--sector-size") && i + 1 < argc)
            size = argv[++i];
        else if (!strcmp(argv[i], "--sparse"))
            sparse = 1;
        else if (!strcmp(argv[i], "--proof") && i + 1 < argc)
            proof = argv[++i];
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            char *e;
            errno = 0;
            seed = strtoull(argv[++i], &e, 10);
            if (*e || errno || !*argv[i])
                return fail("porep seal: --seed takes a non-negative integer, got '%s'", argv[i]);
        } else if (argv[i][0] == '-')
            return fail("porep seal: unknown option '%s' (cuzk porep --help)", argv[i]);
        else if (!dir)
            dir = argv[i];
        else
            return fail("porep seal takes one directory, got '%s' and '%s'", dir, argv[i]);
    }
    if (!(size || proof) || (size && proof) || !dir)
        return fail("porep seal needs --sector-size SIZE or --proof NAME (one of them) and a directory (cuzk porep "
                    "--help)");
    const fc_porep_config *c = size ? fc_porep_config_by_size(size) : fc_porep_config_by_name(proof);
    if (!c && size)
        return fail("porep seal: --sector-size '%s': 2KiB, 8MiB, 512MiB, 32GiB or 64GiB expected", size);
    if (!c)
        return fail("porep seal: --proof '%s' is not a registered seal proof (StackedDrg<size>V1, V1_1, "
                    "V1_1_Feat_SyntheticPoRep or V1_2_Feat_NonInteractivePoRep)",
                    proof);
    if (c->sector_size > 512ull << 20 && !sparse)
        return fail("porep seal: %s sectors are not sealed here (test sealing keeps (layers + 3) x the sector "
                    "in memory); 2KiB, 8MiB and 512MiB are, and --sparse makes a C1 output of any size",
                    c->size_name);
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return fail("porep seal: cannot make the directory %s: %s", dir, strerror(errno));
    uint64_t st = seed;
    fc_record rec = {.config = c, .sector_id = seed, .api_version = fc_record_api_version(c)};
    unsigned char(*data)[32] = sparse ? NULL : malloc(c->shape.nodes * 32);
    if (!sparse && !data)
        return fail("porep seal: out of memory (%llu bytes of data)", (unsigned long long)c->sector_size);
    if (data) {
        fill_random(&st, (unsigned char *)data, c->shape.nodes * 32);
        for (uint64_t i = 0; i < c->shape.nodes; i++)
            data[i][31] &= 0x3f; /* fr32: each node below 2^254 */
    }
    fill_random(&st, rec.prover_id, 32);
    fill_random(&st, rec.ticket, 32);
    fill_random(&st, rec.seed, 32);
    /* the top bits as Lotus clears them: below the field's modulus */
    rec.prover_id[31] = rec.ticket[31] = rec.seed[31] = 0;
    fc_sealed s;
    cuzk_error err;
    progress_state ps = progress_start("porep seal");
    int rc = sparse ? fc_seal_sparse(c, rec.prover_id, rec.sector_id, rec.ticket, rec.seed, &s, &err)
                    : fc_seal(c, (const unsigned char(*)[32])data, rec.prover_id, rec.sector_id, rec.ticket, &s, &err);
    free(data);
    progress_done(&ps);
    if (rc)
        return fail_err(&err);
    char path[4096], *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f || (rc = fc_c1_write(f, &s, rec.seed, &err)) != CUZK_OK) {
        if (f)
            fclose(f);
        free(text);
        fc_sealed_free(&s);
        return f ? fail_err(&err) : fail("porep seal: out of memory");
    }
    fclose(f);
    snprintf(path, sizeof path, "%s/c1.json", dir);
    if ((rc = write_text(path, text, len)))
        return fc_sealed_free(&s), rc;
    /* the record: rust-fil-proofs' seal regression record's fields */
    fc_porep_id(c, rec.porep_id);
    memcpy(rec.comm_r, s.comm_r, 32);
    memcpy(rec.comm_d, s.comm_d, 32);
    fc_sealed_free(&s);
    if (!(f = open_memstream(&text, &len)))
        return fail("porep seal: out of memory");
    fc_record_write(f, &rec);
    fclose(f);
    snprintf(path, sizeof path, "%s/record.json", dir);
    if ((rc = write_text(path, text, len)))
        return rc;
    printf("sealed a %s%s sector (%s): %s/c1.json, %s/record.json\n", sparse ? "sparse " : "", c->size_name, c->name,
           dir, dir);
    return 0;
}

/* the public inputs a verifier derives, as public.json writes them */
static int derived_public_json(const fc_c1 *c, unsigned k, char **out, cuzk_error *err)
{
    unsigned n = 3 + 18 * c->challenges;
    fr *in = malloc(n * sizeof *in);
    if (!in)
        return cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    int rc = fc_porep_public_inputs(c->config, NULL, c->replica_id, c->comm_d, c->comm_r, c->seed, k, in, err);
    char *text = NULL;
    size_t len = 0;
    FILE *f = rc ? NULL : open_memstream(&text, &len);
    if (!rc && !f)
        rc = cuzk_error_set(err, CUZK_ERR_NO_MEMORY, "out of memory");
    if (f) {
        fputc('[', f);
        for (unsigned i = 0; i < n; i++) {
            char dec[100];
            bls12_381_fr_to_decimal(dec, sizeof dec, &in[i]);
            fprintf(f, "%s\n \"%s\"", i ? "," : "", dec);
        }
        fputs("\n]", f);
        fclose(f);
    }
    free(in);
    *out = text;
    return rc;
}

/* the same values in both: whitespace aside */
static int same_json_values(const char *a, const char *b)
{
    for (;;) {
        while (*a == ' ' || *a == '\n' || *a == '\r' || *a == '\t')
            a++;
        while (*b == ' ' || *b == '\n' || *b == '\r' || *b == '\t')
            b++;
        if (*a != *b)
            return 0;
        if (!*a)
            return 1;
        a++, b++;
    }
}

/* A verifying key: a .vk file, or the .params key it begins */
static int open_vk(const char *path, params_vk *vk, cuzk_error *err)
{
    params_file pf;
    int rc = params_open_vk(&pf, path, err);
    if (rc == CUZK_ERR_FORMAT) {
        cuzk_error e2;
        if (params_open(&pf, path, &e2) == CUZK_OK)
            rc = CUZK_OK;
    }
    if (rc)
        return rc;
    rc = params_read_vk(&pf, vk, err);
    params_close(&pf);
    return rc;
}

/* A seal record (record.h), one JSON object. */
static int read_record(const char *path, fc_record *r, cuzk_error *err)
{
    char *text;
    size_t len;
    int rc = read_file_bounded(path, 1 << 20, "a seal record", &text, &len, err);
    if (rc)
        return rc;
    rc = fc_record_read(text, len, path, r, err);
    free(text);
    return rc;
}

/* The record names the sector the C1 output is of: the same proof, comm_r,
 * comm_d, seed and replica_id (and so prover_id, sector_id, ticket and
 * porep_id). */
static int record_matches(const fc_record *r, const fc_c1 *c, const char *rpath, const char *cpath)
{
    unsigned char replica_id[32], porep_id[32];
    fc_record_replica_id(r, replica_id);
    fc_porep_id(c->config, porep_id);
    const char *bad = r->config != c->config         ? "the registered proof"
                      : memcmp(r->comm_r, c->comm_r, 32) ? "comm_r"
                      : memcmp(r->comm_d, c->comm_d, 32) ? "comm_d"
                      : memcmp(r->seed, c->seed, 32)     ? "seed"
                      : memcmp(r->porep_id, porep_id, 32) ? "porep_id"
                      : memcmp(replica_id, c->replica_id, 32)
                          ? "replica_id (from its prover_id, sector_id, ticket, comm_d and porep_id)"
                          : NULL;
    if (bad)
        return fail("porep c2: --record %s is not of the sector of %s: its %s differs", rpath, cpath, bad);
    return 0;
}

/* A partition's witness made straight into a witness's memory (4 GB at
 * 32 GiB, not copied again) */
typedef struct witness_memory {
    const char *name;
    struct cuzk_wtns *w;
    cuzk_error err;
} witness_memory;

static unsigned char *witness_file_memory(void *ctx, uint64_t n)
{
    witness_memory *m = ctx;
    unsigned char *v;
    if (n >= UINT32_MAX) {
        cuzk_error_set(&m->err, CUZK_ERR_UNSUPPORTED, "%s: a witness of %llu values", m->name, (unsigned long long)n);
        return NULL;
    }
    return wtns_alloc(&m->w, curve_by_id(CUZK_CURVE_BLS12_381), (uint32_t)n, m->name, &v, &m->err) ? NULL : v;
}

static int porep_c2(int argc, char **argv)
{
    const char *paths[3], *json_dir = NULL, *vk_path = NULL, *record_path = NULL;
    int n_paths = 0;
    cuzk_prove_options po = {0};
    if (cli_env_prove(&po))
        return 2;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc) {
            if (parse_device("--device", argv[++i], &po.device))
                return 2;
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            if (parse_threads(argv[++i], &po.threads))
                return 2;
        } else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json_dir = argv[++i];
        else if (!strcmp(argv[i], "--vk") && i + 1 < argc)
            vk_path = argv[++i];
        else if (!strcmp(argv[i], "--record") && i + 1 < argc)
            record_path = argv[++i];
        else if (argv[i][0] == '-' && argv[i][1])
            return fail("porep c2: unknown option '%s' (cuzk porep --help)", argv[i]);
        else if (n_paths == 3)
            return fail("porep c2 takes 3 files: <c1.json> <key.params> <out.proof>");
        else
            paths[n_paths++] = argv[i];
    }
    if (n_paths != 3)
        return fail("porep c2 takes 3 files: <c1.json> <key.params> <out.proof>, got %d", n_paths);
    const cli_file ins[] = {{"c1.json", paths[0]}, {"key.params", paths[1]}, {"--vk", vk_path}};
    const cli_file outs[] = {{"out.proof", paths[2]}, {"--record", record_path}};
    if (cli_check_outputs(outs, 2, ins, 3))
        return 2;
    cuzk_error err;
    char *text;
    size_t len;
    fc_c1 c1 = {0};
    fc_record rec = {0};
    params_vk vk = {0};
    cuzk_zkey *zk = NULL;
    unsigned char *out = NULL;
    int rc;
    if (read_file_bounded(paths[0], C1_MAX, "a C1 output", &text, &len, &err))
        return fail_err(&err);
    rc = fc_c1_read(text, len, paths[0], &c1, &err);
    free(text);
    if (rc)
        return fail_err(&err);
    const fc_porep_config *cf = c1.config;
    params_file pf;
    if ((rc = fc_c1_check(&c1, &err))) {
        rc = fail("%s: the C1 output is not valid: %s", paths[0], err.message);
        goto done;
    }
    if (cf->kind == FC_POREP_NON_INTERACTIVE) {
        rc = fail("porep c2: %s is a non-interactive PoRep: its partitions' proofs are aggregated (SnarkPack), "
                  "which cuzk does not do",
                  cf->name);
        goto done;
    }
    if (record_path && read_record(record_path, &rec, &err)) {
        rc = fail_err(&err);
        goto done;
    }
    if (record_path && (rc = record_matches(&rec, &c1, record_path, paths[0])))
        goto done;
    /* the keys' public inputs (and the .params key's layout) before the
     * circuit's recording: a minute and 9 GB at 32 GiB */
    char what[4200];
    snprintf(what, sizeof what, "--vk %s", vk_path ? vk_path : "");
    if (vk_path && (rc = open_vk(vk_path, &vk, &err)) == CUZK_OK)
        rc = fc_porep_key_fits(cf, vk.n_ic, what, "verifying key", &err);
    if (!rc && (rc = params_open(&pf, paths[1], &err)) == CUZK_OK) {
        rc = fc_porep_key_fits(cf, pf.count[PARAMS_IC], paths[1], "key", &err);
        params_close(&pf);
    }
    if (rc) {
        rc = fail_err(&err);
        goto done;
    }
    fprintf(stderr, "cuzk porep c2: %s, %u partitions of %u challenges; recording its circuit\n", cf->name,
            c1.partitions, c1.challenges);
    circuit_source *src;
    progress_state ps = progress_start("porep c2");
    if ((rc = fc_stacked_source_make(&src, cf->name, &cf->shape, &err)) == CUZK_OK)
        rc = params_key_open_source(&zk, paths[1], src, NULL, print_progress, &ps, &err);
    progress_done(&ps);
    if (rc) {
        rc = fail_err(&err);
        goto done;
    }
    out = malloc((size_t)c1.partitions * CUZK_BELLPERSON_PROOF_BYTES);
    if (!out) {
        rc = fail("porep c2: out of memory");
        goto done;
    }
    for (unsigned k = 0; k < c1.partitions; k++) {
        fc_stacked_partition part;
        unsigned char *values;
        uint64_t n;
        char *proof = NULL, *pub = NULL, *want = NULL, name[64];
        double t0 = cuzk_now();
        snprintf(name, sizeof name, "partition %u", k);
        witness_memory wm = {name, NULL, {0}};
        rc = fc_c1_partition(&c1, k, &part, &err);
        if (!rc) {
            rc = fc_stacked_witness_to(&part, po.threads > 0 ? po.threads : cpu_cores(), witness_file_memory, &wm,
                                       &values, &n, &err);
            fc_stacked_free(&part);
            if (rc && wm.err.code)
                err = wm.err;
        }
        struct cuzk_wtns *w = wm.w;
        double t1 = cuzk_now();
        if (!rc)
            rc = cuzk_prove(zk, w, &po, &proof, &pub, NULL, &err);
        if (rc == CUZK_ERR_FORMAT)
            fprintf(stderr, "cuzk porep c2: the key and the circuit of %s disagree: is %s the key of %s?\n",
                    cf->name, paths[1], cf->name);
        /* the inputs the proof is of, against those a verifier derives */
        if (!rc)
            rc = derived_public_json(&c1, k, &want, &err);
        if (!rc && !same_json_values(pub, want))
            rc = cuzk_error_set(&err, CUZK_ERR_INTERNAL,
                                "%s: the circuit's public inputs differ from those a verifier derives", name);
        if (!rc)
            rc = cuzk_proof_to_bellperson(proof, strlen(proof), out + (size_t)k * CUZK_BELLPERSON_PROOF_BYTES, &err);
        if (!rc && json_dir) {
            char pp[4096], pq[4096];
            snprintf(pp, sizeof pp, "%s/proof_%u.json", json_dir, k);
            snprintf(pq, sizeof pq, "%s/public_%u.json", json_dir, k);
            if (write_pair(pp, proof, pq, pub))
                rc = cuzk_error_set(&err, CUZK_ERR_IO, "writing %s and %s failed", pp, pq);
        }
        cuzk_free(proof);
        cuzk_free(pub);
        free(want);
        cuzk_wtns_free(w);
        if (rc) {
            rc = fail("porep c2: %s: %s", name, err.message);
            goto done;
        }
        fprintf(stderr, "cuzk porep c2: partition %u proved and verified (witness %.2f s, proof %.2f s)\n", k,
                t1 - t0, cuzk_now() - t1);
    }
    size_t out_len = (size_t)c1.partitions * CUZK_BELLPERSON_PROOF_BYTES;
    if (vk_path) {
        unsigned char porep_id[32];
        fc_porep_id(cf, porep_id);
        rc = fc_porep_verify(cf, porep_id, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, out, out_len, &vk, "the proofs",
                             &err);
        if (rc) {
            rc = fail("porep c2: %s, though they verify against %s's own: the .vk %s and the key disagree; nothing "
                      "was written",
                      err.message, paths[1], vk_path);
            goto done;
        }
        fprintf(stderr, "cuzk porep c2: the proofs verify against %s\n", vk_path);
    }
    if (write_file_atomic(paths[2], out, out_len, &err)) {
        rc = fail_err(&err);
        goto done;
    }
    printf("%s: %u proofs of %d bytes\n", paths[2], c1.partitions, CUZK_BELLPERSON_PROOF_BYTES);
    if (record_path) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (!f) {
            rc = fail("porep c2: out of memory");
            goto done;
        }
        free(rec.proof);
        rec.proof = out;
        rec.proof_len = out_len;
        fc_record_write(f, &rec);
        fclose(f);
        rec.proof = NULL;
        if ((rc = write_text(record_path, text, len)) == 0)
            printf("%s: the proof recorded\n", record_path);
    }
done:
    fc_record_free(&rec);
    params_vk_free(&vk);
    free(out);
    cuzk_zkey_free(zk);
    fc_c1_free(&c1);
    return rc;
}

static int porep_verify(int argc, char **argv)
{
    if (argc != 2)
        return fail("porep verify takes 2 files: <KEY.vk> <RECORD.json>, got %d", argc);
    cuzk_error err;
    fc_record rec;
    params_vk vk;
    if (read_record(argv[1], &rec, &err))
        return fail_err(&err);
    if (open_vk(argv[0], &vk, &err)) {
        fc_record_free(&rec);
        return fail_err(&err);
    }
    int rc = fc_seal_verify(&rec, &vk, argv[1], &err);
    fc_record_free(&rec);
    params_vk_free(&vk);
    return cli_verdict(rc, &err);
}

int cmd_porep(int argc, char **argv)
{
    if (argc < 1 || !strcmp(argv[0], "--help") || !strcmp(argv[0], "-h")) {
        fputs(porep_usage, argc < 1 ? stderr : stdout);
        return argc < 1 ? 2 : 0;
    }
    if (!strcmp(argv[0], "seal"))
        return porep_seal(argc - 1, argv + 1);
    if (!strcmp(argv[0], "c2"))
        return porep_c2(argc - 1, argv + 1);
    if (!strcmp(argv[0], "verify"))
        return porep_verify(argc - 1, argv + 1);
    return fail("porep: unknown subcommand '%s' (seal, c2 or verify; cuzk porep --help)", argv[0]);
}

/* cuzk circuit stacked: the shape (--json) and native form (-o DIR) */
int cmd_circuit_stacked(int argc, char **argv)
{
    const char *size = NULL, *dir = NULL, *tree = NULL;
    unsigned long long nodes = 0;
    int layers = 0, challenges = 0, json = 0, bench = 0, bench_record = 0, threads = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--sector-size") && i + 1 < argc)
            size = argv[++i];
        else if (!strcmp(a, "--nodes") && i + 1 < argc) {
            char *e;
            nodes = strtoull(argv[++i], &e, 10);
            if (*e || !nodes)
                return fail("circuit stacked: --nodes takes a power of two, got '%s'", argv[i]);
        } else if (!strcmp(a, "--layers") && i + 1 < argc) {
            if (parse_count("--layers", argv[++i], 2, 11, &layers))
                return 2;
        } else if (!strcmp(a, "--challenges") && i + 1 < argc) {
            if (parse_count("--challenges", argv[++i], 1, 4096, &challenges))
                return 2;
        } else if (!strcmp(a, "--tree") && i + 1 < argc)
            tree = argv[++i];
        else if (!strcmp(a, "--json"))
            json = 1;
        else if (!strcmp(a, "--bench-witness"))
            bench = 1;
        else if (!strcmp(a, "--bench-record"))
            bench_record = 1;
        else if (!strcmp(a, "--threads") && i + 1 < argc) {
            if (parse_threads(argv[++i], &threads))
                return 2;
        }
        else if (!strcmp(a, "-o") && i + 1 < argc)
            dir = argv[++i];
        else
            return fail("circuit stacked: unknown option '%s'", a);
    }
    fc_porep_shape shape;
    const fc_porep_config *c = NULL;
    if (size) {
        if (!(c = fc_porep_config_by_size(size)))
            return fail("circuit stacked: --sector-size '%s': 2KiB, 8MiB, 512MiB, 32GiB or 64GiB expected", size);
        shape = c->shape;
    } else {
        unsigned a[3] = {8, 0, 0};
        if (tree && sscanf(tree, "%u-%u-%u", &a[0], &a[1], &a[2]) < 1)
            return fail("circuit stacked: --tree B[-S[-T]] (arities: 2, 4 or 8 and 0), got '%s'", tree);
        if (!nodes || !layers || !challenges)
            return fail("circuit stacked needs --sector-size, or --nodes N --layers L --challenges C [--tree B-S-T]");
        shape = (fc_porep_shape){nodes, (unsigned)layers, (unsigned)challenges, {a[0], a[1], a[2]}};
    }
    if (!json && !dir && !bench && !bench_record)
        return fail("circuit stacked: --json prints the shape, -o DIR writes the native form, --bench-witness "
                    "times a partition's witness, --bench-record its recording; none given");
    cuzk_error err;
    char desc[256];
    fc_stacked_description(c ? c->name : NULL, &shape, desc, sizeof desc);
    if (json) {
        fc_stacked_partition blank;
        cs_system cs;
        if (fc_stacked_blank(&shape, &blank, &err) || cs_init(&cs, CS_COUNT, 0, &err))
            return fail_err(&err);
        fc_stacked_circuit(&cs, &blank);
        fc_stacked_free(&blank);
        if (cs_failed(&cs))
            return fail("circuit stacked: %s", cs.err.message);
        cs_shape s;
        cs_shape_get(&cs, &s);
        cs_free(&cs);
        /* as bellperson counts them: its input constraints (input_i * 0 = 0)
         * among the constraints and A's nonzeros */
        printf("{\"inputs\":%llu,\"constraints\":%llu,\"aux\":%llu,\"a_aux_popcount\":%llu,\"b_aux_popcount\":%llu,"
               "\"b_inp_popcount\":%llu,\"nnz_a\":%llu,\"nnz_b\":%llu,\"nnz_c\":%llu}\n",
               (unsigned long long)s.inputs, (unsigned long long)(s.constraints + s.inputs),
               (unsigned long long)s.aux, (unsigned long long)s.a_aux_popcount,
               (unsigned long long)s.b_aux_popcount, (unsigned long long)s.b_inp_popcount,
               (unsigned long long)(s.nnz[0] + s.inputs), (unsigned long long)s.nnz[1],
               (unsigned long long)s.nnz[2]);
    }
    if (bench_record) { /* the R1CS recorded, as porep c2 does before reading the key (BENCHMARKS.md R17) */
        circuit_source *src;
        double t0 = cuzk_now();
        if (fc_stacked_source_make(&src, c ? c->name : NULL, &shape, &err))
            return fail_err(&err);
        double secs = cuzk_now() - t0;
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("circuit recorded: %.2f s, one thread; peak memory %.2f GB\n", secs, ru.ru_maxrss / 1e6);
        circuit_source_free(src);
    }
    if (bench) { /* the witness of a blank partition, made in parts on threads (BENCHMARKS.md R17) */
        fc_stacked_partition blank;
        if (fc_stacked_blank(&shape, &blank, &err))
            return fail_err(&err);
        unsigned char *values;
        uint64_t n;
        int t = threads > 0 ? threads : cpu_cores();
        double t0 = cuzk_now();
        int rc = fc_stacked_witness(&blank, t, &values, &n, &err);
        double secs = cuzk_now() - t0;
        fc_stacked_free(&blank);
        if (rc)
            return fail_err(&err);
        free(values);
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("witness synthesis: %.2f s on %d thread%s, %llu values; peak memory %.2f GB\n", secs, t,
               t == 1 ? "" : "s", (unsigned long long)n, ru.ru_maxrss / 1e6);
    }
    if (dir) {
        if (mkdir(dir, 0755) != 0 && errno != EEXIST)
            return fail("circuit stacked: cannot make the directory %s: %s", dir, strerror(errno));
        char path[4096];
        snprintf(path, sizeof path, "%s/circuit.stacked", dir);
        if (write_file_atomic(path, desc, strlen(desc), &err))
            return fail_err(&err);
        fprintf(json ? stderr : stdout, "native form: %s (where a .r1cs goes: cuzk setup, cuzk prove --r1cs)\n",
                path);
    }
    return 0;
}
