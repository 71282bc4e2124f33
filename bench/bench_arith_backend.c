/* Field and curve operation timings for one CPU backend; compiled twice
 * (CUZK_BACKEND_ADX=0/1) into bench_arith, which prints both side by side. */
#include "bench.h"
#include "pairing/pairings.h"

#if CUZK_BACKEND_ADX
#define BENCH_ENTRY bench_arith_adx
#else
#define BENCH_ENTRY bench_arith_portable
#endif

size_t BENCH_ENTRY(struct bench_row *rows, int reps, double scale);

/* Non-trivial inputs: fixed multiples of the generators and field elements
 * derived from their coordinates. */
#define FIELD_BENCH(F, label, x0, y0)                                                            \
    do {                                                                                         \
        F x = (x0), y = (y0);                                                                    \
        BENCH(rows, &n, reps, label " mul", 20000 * scale, F##_mul(&x, &x, &y));               \
        BENCH(rows, &n, reps, label " sqr", 20000 * scale, F##_sqr(&x, &x));                   \
        BENCH(rows, &n, reps, label " add", 20000 * scale, F##_add(&x, &x, &y));               \
        BENCH(rows, &n, reps, label " inv (constant time)", 500 * scale, F##_inv(&x, &x));      \
        BENCH(rows, &n, reps, label " inv_var", 500 * scale, F##_inv_var(&x, &x));              \
        sink ^= x.l[0];                                                                          \
    } while (0)

#define FP2_BENCH(F2, label, x0, y0)                                                             \
    do {                                                                                         \
        F2 x = (x0), y = (y0);                                                                   \
        BENCH(rows, &n, reps, label " mul", 100000 * scale, F2##_mul(&x, &x, &y));               \
        BENCH(rows, &n, reps, label " sqr", 100000 * scale, F2##_sqr(&x, &x));                   \
        sink ^= x.c0.l[0];                                                                       \
    } while (0)

#define GROUP_BENCH(G, label, R)                                                                 \
    do {                                                                                         \
        G##_jacobian g, p, q, r;                                                                 \
        G##_affine qa;                                                                           \
        G##_xyzz xz;                                                                             \
        const limb_t k1[1] = {0x1234567890abcdefULL}, k2[1] = {0x0fedcba987654321ULL};          \
        G##_generator(&g);                                                                       \
        G##_mul_var(&p, &g, k1, 64);                                                             \
        G##_mul_var(&q, &g, k2, 64);                                                             \
        G##_to_affine(&qa, &q);                                                                  \
        r = p;                                                                                   \
        BENCH(rows, &n, reps, label " add (Jacobian, complete, constant time)", 20000 * scale, \
              G##_add(&r, &r, &q));                                                              \
        BENCH(rows, &n, reps, label " add_var (Jacobian)", 20000 * scale, G##_add_var(&r, &r, &q)); \
        BENCH(rows, &n, reps, label " add_affine_var (mixed)", 20000 * scale,                   \
              G##_add_affine_var(&r, &r, &qa));                                                  \
        BENCH(rows, &n, reps, label " double (Jacobian)", 20000 * scale, G##_double(&r, &r));   \
        G##_xyzz_set_infinity(&xz);                                                              \
        G##_xyzz_add_affine_var(&xz, &xz, &qa);                                                  \
        BENCH(rows, &n, reps, label " xyzz_add_affine_var", 20000 * scale,                      \
              G##_xyzz_add_affine_var(&xz, &xz, &qa));                                           \
        BENCH(rows, &n, reps, label " mul (255-bit, constant time)", 50 * scale,               \
              G##_mul(&r, &r, R, 255));                                                          \
        BENCH(rows, &n, reps, label " mul_var (255-bit)", 50 * scale, G##_mul_var(&r, &r, R, 255)); \
        BENCH(rows, &n, reps, label " subgroup check", 50 * scale, sink += (limb_t)G##_in_subgroup_var(&r)); \
        sink ^= *(const limb_t *)&r.x ^ *(const limb_t *)&xz.x;                                  \
    } while (0)

#define PAIRING_BENCH(C, label)                                                                  \
    do {                                                                                         \
        C##_g1_jacobian g1, t1;                                                                  \
        C##_g2_jacobian g2, t2;                                                                  \
        C##_g1_affine P[4];                                                                      \
        C##_g2_affine Q[4];                                                                      \
        C##_g1_generator(&g1);                                                                   \
        C##_g2_generator(&g2);                                                                   \
        for (int i = 0; i < 4; i++) {                                                            \
            const limb_t k[1] = {0x9e3779b97f4a7c15ULL * (limb_t)(i + 1)};                       \
            C##_g1_mul_var(&t1, &g1, k, 64);                                                     \
            C##_g2_mul_var(&t2, &g2, k, 64);                                                     \
            C##_g1_to_affine(&P[i], &t1);                                                        \
            C##_g2_to_affine(&Q[i], &t2);                                                        \
        }                                                                                        \
        C##_fp12 e, f;                                                                           \
        BENCH(rows, &n, reps, label " Miller loop", 20 * scale + 1, C##_miller_loop_batch(&f, P, Q, 1)); \
        BENCH(rows, &n, reps, label " final exponentiation", 20 * scale + 1,                     \
              C##_final_exponentiation(&e, &f));                                                 \
        BENCH(rows, &n, reps, label " pairing", 20 * scale + 1, C##_pairing_var(&e, &P[0], &Q[0])); \
        BENCH(rows, &n, reps, label " 4-pairing product", 10 * scale + 1,                        \
              C##_multi_pairing_var(&e, P, Q, 4));                                               \
        sink ^= e.c0.c0.c0.l[0];                                                                 \
    } while (0)

size_t BENCH_ENTRY(struct bench_row *rows, int reps, double scale)
{
    size_t n = 0;
    limb_t sink = 0;
    /* a scalar with about half its bits set, below r */
    static const limb_t k[4] = {0x9f2c6a4b1d8e3f57ULL, 0x5a3c9e1f7b2d4c68ULL, 0x3e7a1c5b9d2f4a86ULL,
                                0x1c4e7a2b5d8f3a69ULL};
    bls12_381_g1_jacobian g1;
    bls12_381_g1_generator(&g1);
    bn254_g2_jacobian h2;
    bn254_g2_generator(&h2);
    bls12_381_fr a381, b381;
    bn254_fr abn, bbn;
    bls12_381_fr_from_raw(&a381, k);
    bls12_381_fr_from_u64(&b381, 0xfedcba9876543211ULL);
    bn254_fr_from_raw(&abn, k);
    bn254_fr_from_u64(&bbn, 0xfedcba9876543211ULL);
    FIELD_BENCH(bls12_381_fp, "bls12_381 Fp", g1.x, g1.y);
    FIELD_BENCH(bls12_381_fr, "bls12_381 Fr", a381, b381);
    FIELD_BENCH(bn254_fp, "bn254 Fp", h2.x.c0, h2.y.c1);
    FIELD_BENCH(bn254_fr, "bn254 Fr", abn, bbn);
    bls12_381_g2_jacobian g2;
    bls12_381_g2_generator(&g2);
    FP2_BENCH(bls12_381_fp2, "bls12_381 Fp2", g2.x, g2.y);
    FP2_BENCH(bn254_fp2, "bn254 Fp2", h2.x, h2.y);
    GROUP_BENCH(bls12_381_g1, "bls12_381 G1", k);
    GROUP_BENCH(bls12_381_g2, "bls12_381 G2", k);
    GROUP_BENCH(bn254_g1, "bn254 G1", k);
    GROUP_BENCH(bn254_g2, "bn254 G2", k);
    PAIRING_BENCH(bls12_381, "bls12_381");
    PAIRING_BENCH(bn254, "bn254");
    /* keep the chains alive */
    if (sink == 0x123456789)
        rows[0].ns += 1e-9;
    return n;
}
