/* supraseal-c2's C ABI (include/cuzk_supraseal.h), called as bellperson
 * calls it and written against that header alone (cuzk.h only for
 * cuzk_verify_json, the pairing check): the circuit's .r1cs and witnesses
 * are read here, a, b, c and the densities computed with GMP (the
 * input constraints appended, as bellperson's prover does), the scalars
 * handed over in blst's Montgomery form; the proofs that come back are
 * converted to snarkjs JSON and checked with the pairing against the
 * key's verification key (exported by `cuzk zkey export-vk`; tests/
 * test_supraseal.sh also runs snarkjs on them). Then every way a call can
 * be wrong: each gives an error code and a message, never a crash.
 *
 * Usage: test_supraseal KEY.params CIRCUIT.r1cs VK.json OUT_DIR SEED W.wtns...
 * (CUZK_SUPRASEAL_CIRCUITS: circuits in the big call, 4..64, default 32) */
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../include/cuzk.h"
#include "../include/cuzk_supraseal.h"

static const char *R_HEX = "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001";
static const char *P_HEX =
    "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab";
static mpz_t R, P, RINV_P; /* the primes; 2^-384 mod p */
static unsigned long seed;
static int failures;

#define CHECK(cond, ...)                                                                                        \
    do {                                                                                                        \
        if (!(cond)) {                                                                                          \
            fprintf(stderr, "FAIL (seed %lu) %s:%d: ", seed, __FILE__, __LINE__);                               \
            fprintf(stderr, __VA_ARGS__);                                                                       \
            fprintf(stderr, "\n");                                                                              \
            failures++;                                                                                         \
        }                                                                                                       \
    } while (0)

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc((size_t)n + 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    if (b)
        b[n] = 0;
    *len = (size_t)n;
    return b;
}

static uint32_t u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t u64(const unsigned char *p)
{
    return u32(p) | (uint64_t)u32(p + 4) << 32;
}

static void from_le(mpz_t z, const unsigned char *p, size_t n)
{
    mpz_import(z, n, -1, 1, 0, 0, p);
}

/* blst_fr of z: z 2^256 mod r in four little-endian limbs */
static void to_mont(cuzk_ss_fr *out, const mpz_t z)
{
    mpz_t t;
    mpz_init(t);
    mpz_mul_2exp(t, z, 256);
    mpz_mod(t, t, R);
    memset(out, 0, sizeof(*out));
    mpz_export(out->l, NULL, -1, 8, 0, 0, t);
    mpz_clear(t);
}

/* a coordinate of blst's (six limbs, Montgomery) as a decimal string */
static void fp_decimal(char *out, const uint64_t l[6])
{
    mpz_t t;
    mpz_init(t);
    mpz_import(t, 6, -1, 8, 0, 0, l);
    mpz_mul(t, t, RINV_P);
    mpz_mod(t, t, P);
    mpz_get_str(out, 10, t);
    mpz_clear(t);
}

/* ------------------------------------------------------------ the circuit */

typedef struct term {
    uint32_t wire;
    mpz_t coef;
} term;
typedef struct lc {
    size_t n;
    term *t;
} lc;

typedef struct circuit {
    uint32_t n_wires, npub1, n_constraints;
    lc *abc; /* 3 per constraint */
    size_t n_aux, abc_size;
    uint64_t *a_aux, *b_inp, *b_aux;
    size_t pop_a, pop_bi, pop_ba;
} circuit;

static void set_bit(uint64_t *v, size_t i)
{
    v[i / 64] |= UINT64_C(1) << (i % 64);
}

/* A circom binary file (magic, version, sections): its sections 1 and 2 */
static unsigned char *read_sections(const char *path, const char *magic, size_t *len, const unsigned char **s1,
                                    const unsigned char **s2)
{
    unsigned char *d = slurp(path, len);
    *s1 = *s2 = NULL;
    if (!d || *len < 12 || memcmp(d, magic, 4) != 0) {
        free(d);
        return NULL;
    }
    size_t off = 12;
    for (uint32_t s = 0; s < u32(d + 8) && off + 12 <= *len; s++) {
        uint32_t type = u32(d + off);
        if (type == 1)
            *s1 = d + off + 12;
        if (type == 2)
            *s2 = d + off + 12;
        off += 12 + u64(d + off + 4);
    }
    if (!*s1 || !*s2) {
        free(d);
        return NULL;
    }
    return d;
}

static int read_r1cs(circuit *c, const char *path)
{
    size_t len;
    const unsigned char *hdr, *cons;
    unsigned char *d = read_sections(path, "r1cs", &len, &hdr, &cons);
    if (!d)
        return -1;
    uint32_t n8 = u32(hdr);
    const unsigned char *h = hdr + 4 + n8;
    c->n_wires = u32(h);
    c->npub1 = 1 + u32(h + 4) + u32(h + 8);
    c->n_constraints = u32(h + 24);
    c->n_aux = c->n_wires - c->npub1;
    c->abc_size = (size_t)c->n_constraints + c->npub1;
    c->abc = calloc((size_t)c->n_constraints * 3, sizeof(lc));
    size_t words = c->n_aux / 64 + 1;
    c->a_aux = calloc(words, 8);
    c->b_aux = calloc(words, 8);
    c->b_inp = calloc(c->npub1 / 64 + 1, 8);
    const unsigned char *p = cons;
    for (uint32_t k = 0; k < c->n_constraints; k++)
        for (int m = 0; m < 3; m++) {
            lc *l = &c->abc[3 * (size_t)k + m];
            l->n = u32(p);
            p += 4;
            l->t = calloc(l->n + 1, sizeof(term));
            for (size_t i = 0; i < l->n; i++, p += 4 + n8) {
                l->t[i].wire = u32(p);
                mpz_init(l->t[i].coef);
                from_le(l->t[i].coef, p + 4, n8);
                if (m == 2 || mpz_sgn(l->t[i].coef) == 0)
                    continue;
                uint32_t w = l->t[i].wire;
                if (w >= c->npub1)
                    set_bit(m == 0 ? c->a_aux : c->b_aux, w - c->npub1);
                else if (m == 1)
                    set_bit(c->b_inp, w);
            }
        }
    for (size_t w = 0; w < words; w++) {
        c->pop_a += (size_t)__builtin_popcountll(c->a_aux[w]);
        c->pop_ba += (size_t)__builtin_popcountll(c->b_aux[w]);
    }
    for (size_t w = 0; w < c->npub1 / 64 + 1; w++)
        c->pop_bi += (size_t)__builtin_popcountll(c->b_inp[w]);
    free(d);
    return 0;
}

/* One witness's Assignment arrays. */
typedef struct assignment {
    cuzk_ss_fr *a, *b, *c, *inp, *aux;
    char **publics; /* decimal, npub1 - 1 */
} assignment;

static int read_witness(const circuit *c, const char *path, assignment *as)
{
    size_t len;
    const unsigned char *hdr, *val;
    unsigned char *d = read_sections(path, "wtns", &len, &hdr, &val);
    if (!d)
        return -1;
    if (u32(hdr + 4 + u32(hdr)) != c->n_wires)
        return -1;
    uint32_t n8 = u32(hdr);
    mpz_t *w = malloc(c->n_wires * sizeof(mpz_t));
    for (uint32_t i = 0; i < c->n_wires; i++) {
        mpz_init(w[i]);
        from_le(w[i], val + (size_t)n8 * i, n8);
    }
    as->a = calloc(c->abc_size, sizeof(cuzk_ss_fr));
    as->b = calloc(c->abc_size, sizeof(cuzk_ss_fr));
    as->c = calloc(c->abc_size, sizeof(cuzk_ss_fr));
    as->inp = calloc(c->npub1, sizeof(cuzk_ss_fr));
    as->aux = calloc(c->n_aux + 1, sizeof(cuzk_ss_fr));
    as->publics = calloc(c->npub1, sizeof(char *));
    mpz_t e[3], t;
    mpz_inits(e[0], e[1], e[2], t, NULL);
    int unsatisfied = 0;
    for (uint32_t k = 0; k < c->n_constraints; k++) {
        for (int m = 0; m < 3; m++) {
            const lc *l = &c->abc[3 * (size_t)k + m];
            mpz_set_ui(e[m], 0);
            for (size_t i = 0; i < l->n; i++)
                mpz_addmul(e[m], l->t[i].coef, w[l->t[i].wire]);
            mpz_mod(e[m], e[m], R);
        }
        to_mont(&as->a[k], e[0]);
        to_mont(&as->b[k], e[1]);
        to_mont(&as->c[k], e[2]);
        mpz_mul(t, e[0], e[1]);
        mpz_sub(t, t, e[2]);
        mpz_mod(t, t, R);
        unsatisfied += mpz_sgn(t) != 0;
    }
    /* bellperson's input constraints: A = the input, B = C = 0 */
    for (uint32_t i = 0; i < c->npub1; i++)
        to_mont(&as->a[c->n_constraints + i], w[i]);
    for (uint32_t i = 0; i < c->n_wires; i++) {
        to_mont(i < c->npub1 ? &as->inp[i] : &as->aux[i - c->npub1], w[i]);
        if (i >= 1 && i < c->npub1)
            as->publics[i - 1] = mpz_get_str(NULL, 10, w[i]);
    }
    mpz_clears(e[0], e[1], e[2], t, NULL);
    for (uint32_t i = 0; i < c->n_wires; i++)
        mpz_clear(w[i]);
    free(w);
    free(d);
    return unsatisfied ? -2 : 0;
}

static cuzk_ss_assignment make_assignment(const circuit *c, const assignment *as)
{
    return (cuzk_ss_assignment){
        .a_aux_density = c->a_aux,
        .a_aux_bit_len = c->n_aux,
        .a_aux_popcount = c->pop_a,
        .b_inp_density = c->b_inp,
        .b_inp_bit_len = c->npub1,
        .b_inp_popcount = c->pop_bi,
        .b_aux_density = c->b_aux,
        .b_aux_bit_len = c->n_aux,
        .b_aux_popcount = c->pop_ba,
        .a = as->a,
        .b = as->b,
        .c = as->c,
        .abc_size = c->abc_size,
        .inp_assignment_data = as->inp,
        .inp_assignment_size = c->npub1,
        .aux_assignment_data = as->aux,
        .aux_assignment_size = c->n_aux,
    };
}

/* ------------------------------------------------------------ proofs */

static char *proof_json(const groth16_proof *p)
{
    static char x[6][200];
    fp_decimal(x[0], p->a.x);
    fp_decimal(x[1], p->a.y);
    char bx0[200], bx1[200], by0[200], by1[200], cx[200], cy[200];
    fp_decimal(bx0, p->b.x[0]);
    fp_decimal(bx1, p->b.x[1]);
    fp_decimal(by0, p->b.y[0]);
    fp_decimal(by1, p->b.y[1]);
    fp_decimal(cx, p->c.x);
    fp_decimal(cy, p->c.y);
    char *out = malloc(4096);
    snprintf(out, 4096,
             "{\"pi_a\":[\"%s\",\"%s\",\"1\"],\"pi_b\":[[\"%s\",\"%s\"],[\"%s\",\"%s\"],[\"1\",\"0\"]],"
             "\"pi_c\":[\"%s\",\"%s\",\"1\"],\"protocol\":\"groth16\",\"curve\":\"bls12381\"}",
             x[0], x[1], bx0, bx1, by0, by1, cx, cy);
    return out;
}

static char *public_json(const circuit *c, const assignment *as)
{
    size_t cap = 64 + (size_t)c->npub1 * 100, o = 0;
    char *out = malloc(cap);
    o += (size_t)snprintf(out + o, cap - o, "[");
    for (uint32_t i = 1; i < c->npub1; i++)
        o += (size_t)snprintf(out + o, cap - o, "%s\"%s\"", i > 1 ? "," : "", as->publics[i - 1]);
    snprintf(out + o, cap - o, "]");
    return out;
}

static int verify(const char *vk, const circuit *c, const assignment *as, const groth16_proof *p, const char *save)
{
    char *pj = proof_json(p), *pub = public_json(c, as);
    cuzk_error err = {0};
    int rc = cuzk_verify_json(vk, strlen(vk), pub, strlen(pub), pj, strlen(pj), &err);
    if (rc != CUZK_OK)
        fprintf(stderr, "verify: %d %s\n", rc, err.message);
    if (save) {
        char path[4200];
        snprintf(path, sizeof(path), "%.4000s.proof.json", save);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs(pj, f);
            fclose(f);
        }
        snprintf(path, sizeof(path), "%.4000s.public.json", save);
        if ((f = fopen(path, "w"))) {
            fputs(pub, f);
            fclose(f);
        }
    }
    free(pj);
    free(pub);
    return rc;
}

static void random_scalar(cuzk_ss_fr *out, gmp_randstate_t rs, int kind)
{
    mpz_t z;
    mpz_init(z);
    if (kind == 0)
        mpz_set_ui(z, 0);
    else if (kind == 1)
        mpz_sub_ui(z, R, 1); /* r - 1 */
    else
        mpz_urandomm(z, rs, R);
    to_mont(out, z);
    mpz_clear(z);
}

/* A call that must fail: a code and a message, freed here. */
static void expect_error(RustError e, const char *want, const char *what)
{
    CHECK(e.code != 0, "%s: succeeded", what);
    CHECK(e.code == 0 || (e.message && (!want || strstr(e.message, want))), "%s: message '%s' lacks '%s'", what,
          e.message ? e.message : "(null)", want ? want : "");
    free(e.message);
}

int main(int argc, char **argv)
{
    if (argc < 7) {
        fprintf(stderr, "usage: test_supraseal KEY.params CIRCUIT.r1cs VK.json OUT_DIR SEED W.wtns...\n");
        return 2;
    }
    const char *params = argv[1], *out_dir = argv[4];
    seed = strtoul(argv[5], NULL, 10);
    mpz_inits(R, P, RINV_P, NULL);
    mpz_set_str(R, R_HEX, 16);
    mpz_set_str(P, P_HEX, 16);
    mpz_set_ui(RINV_P, 1);
    mpz_mul_2exp(RINV_P, RINV_P, 384);
    mpz_invert(RINV_P, RINV_P, P);
    gmp_randstate_t rs;
    gmp_randinit_default(rs);
    gmp_randseed_ui(rs, seed);
    size_t vk_len;
    char *vk = (char *)slurp(argv[3], &vk_len);
    circuit c = {0};
    if (!vk || read_r1cs(&c, argv[2]) != 0) {
        fprintf(stderr, "cannot read %s or %s\n", argv[3], argv[2]);
        return 2;
    }
    int n_w = argc - 6;
    assignment *as = calloc((size_t)n_w, sizeof(*as));
    for (int i = 0; i < n_w; i++) {
        int rc = read_witness(&c, argv[6 + i], &as[i]);
        if (rc != 0) {
            fprintf(stderr, "%s: %s\n", argv[6 + i], rc == -2 ? "does not satisfy the circuit" : "unreadable");
            return 2;
        }
    }

    /* the key: a handle, a cached second one (the same key), a clone */
    SRS srs = {NULL}, cached = {NULL}, cached2 = {NULL};
    RustError e = create_SRS(&srs, params, false);
    CHECK(e.code == 0 && srs.ptr, "create_SRS: %d %s", e.code, e.message ? e.message : "");
    free(e.message);
    if (!srs.ptr)
        return 1;
    e = create_SRS(&cached, params, true);
    CHECK(e.code == 0 && cached.ptr && cached.ptr != srs.ptr, "create_SRS cached: %d", e.code);
    free(e.message);
    e = create_SRS(&cached2, params, true);
    CHECK(e.code == 0 && cached2.ptr == cached.ptr, "create_SRS: the cache shares one key per path");
    free(e.message);
    SRS clone = clone_SRS(&srs);
    CHECK(clone.ptr == srs.ptr, "clone_SRS: the same key");

    /* 32 circuits in one call: the witnesses in turn, r and s random with
     * 0 and r - 1 among them */
    /* CUZK_SUPRASEAL_CIRCUITS: fewer under the sanitizers (make asan-test) */
    enum { MAX_N = 64 };
    const char *nenv = getenv("CUZK_SUPRASEAL_CIRCUITS");
    int N = nenv ? atoi(nenv) : 32;
    if (N < 4 || N > MAX_N)
        N = 32;
    cuzk_ss_assignment prov[MAX_N];
    cuzk_ss_fr r_s[MAX_N], s_s[MAX_N];
    groth16_proof proofs[MAX_N];
    for (int i = 0; i < N; i++) {
        prov[i] = make_assignment(&c, &as[i % n_w]);
        random_scalar(&r_s[i], rs, i == 1 ? 0 : i == 2 ? 1 : 2);
        random_scalar(&s_s[i], rs, i == 1 ? 0 : i == 3 ? 1 : 2);
    }
    memset(proofs, 0, sizeof(proofs));
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    e = generate_groth16_proofs_c(prov, N, r_s, s_s, proofs, &clone);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double call_s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    CHECK(e.code == 0, "generate_groth16_proofs_c: %d %s", e.code, e.message ? e.message : "");
    free(e.message);
    for (int i = 0; i < N && e.code == 0; i++) {
        char save[4096];
        snprintf(save, sizeof(save), "%s/proof%d", out_dir, i);
        CHECK(verify(vk, &c, &as[i % n_w], &proofs[i], i < 4 ? save : NULL) == CUZK_OK, "proof %d does not verify", i);
    }
    /* the same r and s give the same proof, whichever entry point */
    groth16_proof again[3];
    void *mtx = create_gpu_mutex();
    CHECK(mtx != NULL, "create_gpu_mutex");
    e = generate_groth16_proofs_gpu_c(prov, 3, r_s, s_s, again, &cached, mtx, -1);
    CHECK(e.code == 0 && memcmp(again, proofs, sizeof(again)) == 0, "generate_groth16_proofs_gpu_c: %d %s", e.code,
          e.message ? e.message : "(proofs differ)");
    free(e.message);
    void *pending = NULL;
    e = generate_groth16_proofs_start_c(prov, 3, r_s, s_s, &srs, NULL, -1, &pending);
    CHECK(e.code == 0 && pending, "generate_groth16_proofs_start_c: %d %s", e.code, e.message ? e.message : "");
    free(e.message);
    memset(again, 0, sizeof(again));
    e = finalize_groth16_proof_c(pending, again);
    CHECK(e.code == 0 && memcmp(again, proofs, sizeof(again)) == 0, "finalize_groth16_proof_c: %d %s", e.code,
          e.message ? e.message : "(proofs differ)");
    free(e.message);
    e = generate_groth16_proofs_start_c(prov, 2, r_s, s_s, &srs, mtx, -1, &pending);
    CHECK(e.code == 0 && pending, "start (to destroy): %d", e.code);
    free(e.message);
    destroy_pending_proof(pending);

    /* every way a call can be wrong */
    groth16_proof one[1];
    SRS none = {NULL};
    expect_error(generate_groth16_proofs_c(prov, 0, r_s, s_s, one, &srs), "num_circuits is 0", "zero circuits");
    expect_error(generate_groth16_proofs_c(NULL, 1, r_s, s_s, one, &srs), "provers is NULL", "provers NULL");
    expect_error(generate_groth16_proofs_c(prov, 1, NULL, s_s, one, &srs), "r_s is NULL", "r_s NULL");
    expect_error(generate_groth16_proofs_c(prov, 1, r_s, NULL, one, &srs), "s_s is NULL", "s_s NULL");
    expect_error(generate_groth16_proofs_c(prov, 1, r_s, s_s, NULL, &srs), "proofs is NULL", "proofs NULL");
    expect_error(generate_groth16_proofs_c(prov, 1, r_s, s_s, one, NULL), "SRS handle is NULL", "srs NULL");
    expect_error(generate_groth16_proofs_c(prov, 1, r_s, s_s, one, &none), "SRS handle is NULL", "srs empty");
    expect_error(generate_groth16_proofs_gpu_c(prov, 1, r_s, s_s, one, &srs, NULL, 99), "gpu_index 99",
                 "gpu_index");
    expect_error(generate_groth16_proofs_start_c(prov, 1, r_s, s_s, &srs, NULL, -1, NULL), "pending_out",
                 "pending_out NULL");
    expect_error(finalize_groth16_proof_c(NULL, one), "pending", "finalize NULL");
    struct {
        const char *what, *want;
        cuzk_ss_assignment p;
    } bad[16];
    int nb = 0;
#define BADCASE(WHAT, WANT, FIELD, VALUE)                                                                       \
    do {                                                                                                        \
        bad[nb].what = WHAT;                                                                                    \
        bad[nb].want = WANT;                                                                                    \
        bad[nb].p = prov[1];                                                                                    \
        bad[nb].p.FIELD = VALUE;                                                                                \
        nb++;                                                                                                   \
    } while (0)
    BADCASE("aux size", "aux_assignment_size", aux_assignment_size, c.n_aux + 1);
    BADCASE("input size", "inp_assignment_size", inp_assignment_size, c.npub1 - 1);
    BADCASE("a_aux bits", "a_aux_bit_len", a_aux_bit_len, c.n_aux - 1);
    BADCASE("b_inp bits", "b_inp_bit_len", b_inp_bit_len, c.npub1 + 1);
    BADCASE("popcount", "popcounts", a_aux_popcount, c.pop_a + 1);
    BADCASE("abc past the domain", "domain", abc_size, (size_t)1 << 30);
    BADCASE("abc too short", "input constraints", abc_size, 0);
    BADCASE("a NULL", "evaluation a is NULL", a, NULL);
    BADCASE("aux NULL", "aux assignment is NULL", aux_assignment_data, NULL);
    BADCASE("density NULL", "density vector is NULL", b_aux_density, NULL);
    for (int i = 0; i < nb; i++) {
        cuzk_ss_assignment two[2] = {prov[0], bad[i].p};
        expect_error(generate_groth16_proofs_c(two, 2, r_s, s_s, one, &srs), bad[i].want, bad[i].what);
    }
    /* a density that differs from the key's first call's */
    uint64_t *other = calloc(c.n_aux / 64 + 1, 8);
    memcpy(other, c.a_aux, (c.n_aux / 64 + 1) * 8);
    size_t set = 0, unset = 0;
    while (set < c.n_aux && !((other[set / 64] >> (set % 64)) & 1))
        set++;
    while (unset < c.n_aux && ((other[unset / 64] >> (unset % 64)) & 1))
        unset++;
    if (set < c.n_aux && unset < c.n_aux) { /* move one bit: the popcount stays */
        other[set / 64] &= ~(UINT64_C(1) << (set % 64));
        other[unset / 64] |= UINT64_C(1) << (unset % 64);
        cuzk_ss_assignment p = prov[0];
        p.a_aux_density = other;
        expect_error(generate_groth16_proofs_c(&p, 1, r_s, s_s, one, &srs), "densities differ", "densities");
        /* a fresh key whose first call brings those wrong densities: it
         * fails, and a right call after it succeeds (the densities of a
         * call that failed are not the key's) */
        SRS fresh = {NULL};
        e = create_SRS(&fresh, params, false);
        CHECK(e.code == 0, "create_SRS (fresh): %d", e.code);
        free(e.message);
        RustError w = generate_groth16_proofs_c(&p, 1, r_s, s_s, one, &fresh);
        CHECK(w.code != 0, "a call with wrong densities succeeded");
        free(w.message);
        e = generate_groth16_proofs_c(prov, 1, r_s, s_s, one, &fresh);
        CHECK(e.code == 0 && memcmp(one, proofs, sizeof(one)) == 0, "a right call after a failed first one: %d %s",
              e.code, e.message ? e.message : "(proofs differ)");
        free(e.message);
        expect_error(generate_groth16_proofs_c(&p, 1, r_s, s_s, one, &fresh), "densities differ",
                     "wrong densities after a right call");
        drop_SRS(&fresh);
    }
    free(other);
    /* a cached key whose file is rewritten in place is read again */
    {
        char copy[4200];
        snprintf(copy, sizeof(copy), "%s/copy.params", out_dir);
        size_t plen;
        unsigned char *bytes = slurp(params, &plen);
        FILE *f = bytes ? fopen(copy, "wb") : NULL;
        CHECK(f && fwrite(bytes, 1, plen, f) == plen && fclose(f) == 0, "copying %s", params);
        SRS x = {NULL}, y = {NULL}, z = {NULL};
        e = create_SRS(&x, copy, true);
        free(e.message);
        e = create_SRS(&y, copy, true);
        free(e.message);
        CHECK(x.ptr && x.ptr == y.ptr, "the cache shares the copy's key");
        struct timespec nap = {0, 20 * 1000 * 1000};
        nanosleep(&nap, NULL); /* a later mtime, whatever the file system's clock grain */
        f = fopen(copy, "r+b"); /* in place: same inode, new times */
        CHECK(f && fwrite(bytes, 1, plen, f) == plen && fclose(f) == 0, "rewriting %s", copy);
        e = create_SRS(&z, copy, true);
        CHECK(e.code == 0 && z.ptr && z.ptr != x.ptr, "create_SRS served a cached key whose file was rewritten");
        free(e.message);
        e = generate_groth16_proofs_c(prov, 1, r_s, s_s, one, &z);
        CHECK(e.code == 0 && memcmp(one, proofs, sizeof(one)) == 0, "the key read again: %d", e.code);
        free(e.message);
        drop_SRS(&x);
        drop_SRS(&y);
        drop_SRS(&z);
        /* a degenerate key (gamma_g2, the file's fourth point, at infinity:
         * ZCash's flag, then zeros) is refused, the point named */
        memset(bytes + 384, 0, 192);
        bytes[384] = 0x40;
        f = fopen(copy, "wb");
        CHECK(f && fwrite(bytes, 1, plen, f) == plen && fclose(f) == 0, "writing %s", copy);
        RustError d = create_SRS(&x, copy, false);
        CHECK(d.code != 0 && !x.ptr && d.message && strstr(d.message, "gamma_g2 is the point at infinity"),
              "a degenerate key: %d %s", d.code, d.message ? d.message : "(null)");
        free(d.message);
        free(bytes);
        remove(copy);
    }
    /* input 0 not one; r not below r; an assignment that does not satisfy */
    cuzk_ss_fr *inp = malloc(c.npub1 * sizeof(cuzk_ss_fr)), big = {{~0ull, ~0ull, ~0ull, ~0ull}};
    memcpy(inp, as[0].inp, c.npub1 * sizeof(cuzk_ss_fr));
    inp[0].l[0] ^= 1;
    cuzk_ss_assignment p = prov[0];
    p.inp_assignment_data = inp;
    expect_error(generate_groth16_proofs_c(&p, 1, r_s, s_s, one, &srs), "constant one", "input 0");
    expect_error(generate_groth16_proofs_c(prov, 1, &big, s_s, one, &srs), "not below r", "r_s too large");
    /* a changed at a constraint whose b is not 0: a b != c there */
    cuzk_ss_fr *a2 = malloc(c.abc_size * sizeof(cuzk_ss_fr));
    memcpy(a2, as[0].a, c.abc_size * sizeof(cuzk_ss_fr));
    size_t k = 0;
    static const cuzk_ss_fr zero;
    while (k < c.n_constraints && memcmp(&as[0].b[k], &zero, sizeof(zero)) == 0)
        k++;
    a2[k < c.n_constraints ? k : 0].l[0] ^= 2;
    p = prov[0];
    p.a = a2;
    RustError u = generate_groth16_proofs_c(&p, 1, r_s, s_s, one, &srs);
    CHECK(u.code != 0 && u.message && (strstr(u.message, "does not satisfy") || strstr(u.message, "pairing")),
          "unsatisfied: %d %s", u.code, u.message ? u.message : "(null)");
    free(u.message);
    free(a2);
    free(inp);
    /* a missing file, a NULL path, a NULL handle */
    SRS missing = {(void *)1};
    e = create_SRS(&missing, "/nonexistent/x.params", false);
    CHECK(e.code != 0 && missing.ptr == NULL && e.message && strstr(e.message, "/nonexistent/x.params"),
          "missing file: %d %s", e.code, e.message ? e.message : "(null)");
    free(e.message);
    expect_error(create_SRS(&missing, NULL, true), "path is NULL", "NULL path");
    expect_error(create_SRS(NULL, params, true), "NULL", "NULL handle");
    drop_SRS(&none);
    evict_SRS(&none);
    drop_SRS(NULL);

    /* the key lives until its last handle */
    evict_SRS(&cached);
    drop_SRS(&cached);
    CHECK(cached.ptr == NULL, "drop_SRS clears the handle");
    e = generate_groth16_proofs_c(prov, 1, r_s, s_s, one, &cached2);
    CHECK(e.code == 0 && memcmp(one, proofs, sizeof(one)) == 0, "after evict and a drop: %d", e.code);
    free(e.message);
    drop_SRS(&cached2);
    drop_SRS(&srs);
    e = generate_groth16_proofs_c(prov, 1, r_s, s_s, one, &clone);
    CHECK(e.code == 0 && memcmp(one, proofs, sizeof(one)) == 0, "the clone outlives the original: %d", e.code);
    free(e.message);
    drop_SRS(&clone);
    destroy_gpu_mutex(mtx);
    destroy_gpu_mutex(NULL);

    for (int i = 0; i < n_w; i++) {
        free(as[i].a);
        free(as[i].b);
        free(as[i].c);
        free(as[i].inp);
        free(as[i].aux);
        for (uint32_t j = 0; j + 1 < c.npub1; j++)
            free(as[i].publics[j]);
        free(as[i].publics);
    }
    free(as);
    for (size_t l = 0; l < (size_t)c.n_constraints * 3; l++) {
        for (size_t t = 0; t < c.abc[l].n; t++)
            mpz_clear(c.abc[l].t[t].coef);
        free(c.abc[l].t);
    }
    free(c.abc);
    free(c.a_aux);
    free(c.b_aux);
    free(c.b_inp);
    free(vk);
    gmp_randclear(rs);
    mpz_clears(R, P, RINV_P, NULL);
    printf("supraseal ABI: %d circuits of %u constraints (%u inputs, %zu aux; A %zu, B %zu aux variables): %s; "
           "%d circuits in %.3f s\n",
           N, c.n_constraints, c.npub1, c.n_aux, c.pop_a, c.pop_ba, failures ? "FAIL" : "ok", N, call_s);
    return failures ? 1 : 0;
}
