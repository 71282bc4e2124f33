/* Shared by every test program: a seeded generator whose seed is printed
 * on failure, random limbs with long runs of 0 and 1 bits (where carry bugs
 * hide), the seeded source the library's testing hooks take (r and s, a
 * random setup's toxic waste), and CHECK. Every random input of a test
 * comes from the seed, so a failure replays.
 *
 *   CUZK_TEST_SEED=n   rerun with a given seed (printed on every failure)
 *   CUZK_TEST_ITERS=n  random iterations per property (default per test)
 *
 * Programs built per CPU backend (they include the core's headers) name it
 * with CUZK_BACKEND_NAME; the others test the library as linked.
 */
#ifndef CUZK_TEST_UTIL_H
#define CUZK_TEST_UTIL_H

#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

#define TEST_UNUSED __attribute__((unused))

#ifdef CUZK_BACKEND_NAME
#define TEST_BACKEND CUZK_BACKEND_NAME
#else
#define TEST_BACKEND "library"
#endif

/* 1 when the CPU has BMI2 and ADX (CPUID leaf 7: EBX bits 8 and 19). */
TEST_UNUSED static int test_cpu_has_adx(void)
{
#if defined(__x86_64__)
    unsigned a, b, c, d;
    return __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 8 & 1) && (b >> 19 & 1);
#else
    return 0;
#endif
}

/* Programs built for the ADX backend call this first: on a CPU without
 * BMI2/ADX they print why and exit with 77, ctest's "skipped". */
TEST_UNUSED static void test_require_backend(void)
{
#if defined(CUZK_BACKEND_ADX) && CUZK_BACKEND_ADX
    if (!test_cpu_has_adx()) {
        printf("SKIP: this CPU lacks BMI2/ADX, the x86_64-adx backend cannot run here\n");
        exit(77);
    }
#endif
}

static uint64_t test_seed;
static uint64_t test_rng[4];
static const char *test_context = "";
static _Atomic long test_checks; /* engine tests check from their hook's threads too */
static _Atomic uint64_t test_random_counter;

#define CHECK(cond)                                                                                     \
    do {                                                                                                \
        test_checks++;                                                                                  \
        if (!(cond)) {                                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n  context: %s\n  backend: %s\n  rerun with "      \
                            "CUZK_TEST_SEED=%" PRIu64 "\n",                                             \
                    __FILE__, __LINE__, #cond, test_context, TEST_BACKEND, test_seed);            \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

/* CHECK with printf arguments said on failure: what was found. */
#define CHECK_MSG(cond, ...)                                                                            \
    do {                                                                                                \
        test_checks++;                                                                                  \
        if (!(cond)) {                                                                                  \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n  found: ", __FILE__, __LINE__, #cond);           \
            fprintf(stderr, __VA_ARGS__);                                                               \
            fprintf(stderr, "\n  context: %s\n  backend: %s\n  rerun with CUZK_TEST_SEED=%" PRIu64 "\n", \
                    test_context, TEST_BACKEND, test_seed);                                             \
            exit(1);                                                                                    \
        }                                                                                               \
    } while (0)

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* xoshiro256** */
TEST_UNUSED static uint64_t test_rand64(void)
{
    uint64_t *s = test_rng;
    uint64_t result = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* n bytes from the seeded generator */
TEST_UNUSED static void test_rand_bytes(void *buf, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ((unsigned char *)buf)[i] = (unsigned char)test_rand64();
}

static void test_init(const char *name)
{
    const char *env = getenv("CUZK_TEST_SEED");
    test_seed = env ? strtoull(env, NULL, 10) : (uint64_t)time(NULL) ^ ((uint64_t)clock() << 32);
    uint64_t x = test_seed;
    for (int i = 0; i < 4; i++)
        test_rng[i] = splitmix64(&x);
    atomic_store(&test_random_counter, x);
    printf("%s (%s backend): seed %" PRIu64 "\n", name, TEST_BACKEND, test_seed);
}

/* A cuzk_random_fn for the library's testing hooks (cuzk_prove_options,
 * cuzk_engine_config, cuzk_setup_options .random): splitmix64 over a
 * counter that starts from the seed. Thread-safe (engine workers draw at
 * once); which job gets which bytes may vary with scheduling, the bytes
 * drawn do not. */
TEST_UNUSED static int test_random_bytes(void *ctx, unsigned char *out, size_t len)
{
    (void)ctx;
    uint64_t x = atomic_fetch_add(&test_random_counter, (len + 7) / 8 * 0x9e3779b97f4a7c15ULL);
    for (size_t i = 0; i < len; i += 8) {
        uint64_t v = splitmix64(&x);
        size_t n = len - i < 8 ? len - i : 8;
        memcpy(out + i, &v, n);
    }
    return 0; /* CUZK_OK */
}

TEST_UNUSED static long test_iters(long dflt)
{
    const char *env = getenv("CUZK_TEST_ITERS");
    return env ? atol(env) : dflt;
}

/* n limbs, uniformly random or (half the time) made of runs of equal bits
 * of random lengths 1..128. */
TEST_UNUSED static void test_rand_limbs(uint64_t *r, size_t n)
{
    if (test_rand64() & 1) {
        for (size_t i = 0; i < n; i++)
            r[i] = test_rand64();
        return;
    }
    memset(r, 0, n * 8);
    size_t pos = 0, nbits = 64 * n;
    int bit = (int)(test_rand64() & 1);
    while (pos < nbits) {
        size_t len = 1 + test_rand64() % 128;
        for (size_t k = 0; k < len && pos < nbits; k++, pos++)
            if (bit)
                r[pos / 64] |= 1ULL << (pos % 64);
        bit ^= 1;
    }
}

/* *r := an element of field F (a prefix: bn254_fr, bls12_381_fp, ...) from
 * the seed: limbs with long runs of equal bits, cut to the modulus's bit
 * length and drawn again until below it (backend programs only: they
 * include the field templates). */
#define TEST_RAND_FIELD(F, r)                                                                       \
    do {                                                                                            \
        limb_t t_[CUZK_ARRAY_LEN(F##_modulus.l)];                                                   \
        const size_t n_ = CUZK_ARRAY_LEN(t_);                                                       \
        const int top_ = 64 - __builtin_clzll(F##_modulus.l[n_ - 1]);                               \
        do {                                                                                        \
            test_rand_limbs(t_, n_);                                                                \
            if (top_ < 64)                                                                          \
                t_[n_ - 1] &= ((limb_t)1 << top_) - 1;                                              \
        } while (!(F##_raw_is_canonical_mask(t_) & 1));                                             \
        F##_from_raw((r), t_);                                                                      \
    } while (0)

TEST_UNUSED static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Parses exactly 2*len hex digits into len bytes; 0 on success. */
TEST_UNUSED static int test_hex_to_bytes(unsigned char *out, size_t len, const char *hex)
{
    if (strlen(hex) != 2 * len)
        return -1;
    for (size_t i = 0; i < len; i++) {
        int hi = hexval(hex[2 * i]), lo = hexval(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    return 0;
}

static void test_done(const char *name)
{
    printf("%s (%s backend): %ld checks passed\n", name, TEST_BACKEND, test_checks);
}

#endif
