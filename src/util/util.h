/* Small helpers every layer uses: limb types, constant-time masks,
 * little-endian loads, macros. All static inline: the arithmetic core
 * (src/core/core.c, one translation unit per CPU backend) and every other file
 * include them alike.
 */
#ifndef CUZK_UTIL_H
#define CUZK_UTIL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if CHAR_BIT != 8
#error "cuzk needs 8-bit bytes"
#endif
#if !defined(__SIZEOF_INT128__)
#error "cuzk needs a compiler with unsigned __int128 (gcc or clang on a 64-bit target)"
#endif
#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
/* Points in .zkey files are used in place: their layout is our limb layout
 * on a little-endian host. */
#error "cuzk supports little-endian hosts only"
#endif

typedef uint64_t limb_t;
typedef unsigned __int128 dlimb_t;

#define CUZK_CAT_(a, b) a##b
#define CUZK_CAT(a, b) CUZK_CAT_(a, b)
#define CUZK_STR_(a) #a
#define CUZK_STR(a) CUZK_STR_(a)
#define CUZK_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define CUZK_UNUSED __attribute__((unused))
#define CUZK_INLINE static inline
#define CUZK_ALWAYS_INLINE static inline __attribute__((always_inline))

/* Little-endian loads from bytes at any alignment (mapped files). */
static inline uint32_t read_u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t read_u64le(const unsigned char *p)
{
    return (uint64_t)read_u32le(p) | (uint64_t)read_u32le(p + 4) << 32;
}

/* Keeps the compiler from turning a mask computation back into a branch. */
CUZK_ALWAYS_INLINE limb_t ct_launder(limb_t x)
{
    __asm__("" : "+r"(x));
    return x;
}

/* All-ones when x == 0, else zero. */
CUZK_ALWAYS_INLINE limb_t ct_is_zero_mask(limb_t x)
{
    return ct_launder((limb_t)0 - (((~x & (x - 1)) >> 63) & 1));
}

/* All-ones when bit is 1, zero when it is 0 (bit must be 0 or 1). */
CUZK_ALWAYS_INLINE limb_t ct_mask(limb_t bit)
{
    return ct_launder((limb_t)0 - bit);
}

/* r = mask ? a : r, limb by limb.
 *
 * The small limb loops here and in src/field launder each value through a
 * general register: left alone, gcc vectorizes them into 16-byte loads of
 * limbs just written by 8-byte stores (the Montgomery kernels' output),
 * which stalls on store forwarding. Measured with bench_arith: bls12_381 G1
 * double took 414 ns that way, against 298 ns with the same code inlined
 * where gcc kept it scalar. */
CUZK_ALWAYS_INLINE void ct_select_limbs(limb_t *r, const limb_t *a, limb_t mask, size_t n)
{
    for (size_t i = 0; i < n; i++)
        r[i] = ct_launder(r[i] ^ ((r[i] ^ a[i]) & mask));
}

/* Whether n bytes are all zero: in the library's point layout, the point
 * at infinity. */
CUZK_INLINE int bytes_all_zero(const unsigned char *p, size_t n)
{
    unsigned char acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= p[i];
    return acc == 0;
}

/* Whether two bit vectors (64 bits a word, bit i of word i / 64 at i % 64)
 * agree in their first `bits` bits. */
CUZK_INLINE int bits_equal(const uint64_t *x, const uint64_t *y, size_t bits)
{
    if (x == y)
        return 1;
    if (memcmp(x, y, bits / 64 * 8) != 0)
        return 0;
    uint64_t mask = bits % 64 ? (UINT64_C(1) << (bits % 64)) - 1 : 0;
    return !mask || ((x[bits / 64] ^ y[bits / 64]) & mask) == 0;
}

/* Zeroes memory in a way the compiler may not elide (for secrets). */
CUZK_INLINE void cuzk_memzero(void *p, size_t n)
{
    memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

#endif
