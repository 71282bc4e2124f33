#!/usr/bin/env python3
# Model of cuda/field/field.cuh fp::mul_karatsuba with the PTX carry flag:
# each helper is one PTX instruction, the phases follow the CUDA code, and
# the claims its comment makes are asserted. One level of Karatsuba on
# N-limb operands (halves of H = N/2 limbs): z0 = a_lo b_lo, z2 = a_hi b_hi,
# m = |a_lo - a_hi| |b_lo - b_hi|, z1 = z0 + z2 -/+ m; T = z0 + z1 2^(32H) +
# z2 2^(32N); then the squaring's reduction of T's low half plus its high
# half. Checks 0, 1, p - 1 and random pairs of all four fields against
# Python's integers: python3 scripts/models/mul_karatsuba.py [seed]
import random, sys
M32 = (1 << 32) - 1
class CC: c = 0
def add_cc(a, b): s = a + b; CC.c = s >> 32; return s & M32
def addc_cc(a, b): s = a + b + CC.c; CC.c = s >> 32; return s & M32
def addc(a, b): return (a + b + CC.c) & M32
def mad_lo_cc(a, b, c): s = ((a * b) & M32) + c; CC.c = s >> 32; return s & M32
def madc_lo_cc(a, b, c): s = ((a * b) & M32) + c + CC.c; CC.c = s >> 32; return s & M32
def madc_hi_cc(a, b, c): s = ((a * b) >> 32) + c + CC.c; CC.c = s >> 32; return s & M32
def madc_hi(a, b, c): return (((a * b) >> 32) + c + CC.c) & M32
def sub_cc(a, b): s = a - b; CC.c = 1 if s < 0 else 0; return s & M32
def subc_cc(a, b): s = a - b - CC.c; CC.c = 1 if s < 0 else 0; return s & M32
def subc(a, b): return (a - b - CC.c) & M32
def val(w): return sum(x << (32 * k) for k, x in enumerate(w))

def half_product(x, y, H):
    # x y (H limbs each) into 2H words: row i's products with x's even limbs
    # form one chain of non-overlapping 64-bit words into E (word i + j),
    # those with x's odd limbs one into O (O[k] is word k + 1); a chain's
    # carry goes into the word above its top, which no earlier row reached
    E = [0] * (2 * H); O = [0] * (2 * H - 1)
    for i in range(H):
        for X, first, base in ((E, 0, 0), (O, 1, 1)):
            k = i + first - base
            X[k] = mad_lo_cc(x[first], y[i], X[k]); X[k + 1] = madc_hi_cc(x[first], y[i], X[k + 1])
            for j in range(first + 2, H, 2):
                k = i + j - base
                X[k] = madc_lo_cc(x[j], y[i], X[k]); X[k + 1] = madc_hi_cc(x[j], y[i], X[k + 1])
            top = k + 2
            if top < len(X):
                assert X[top] == 0, "word above a chain already set"
                X[top] = addc(X[top], 0)
            else:
                assert CC.c == 0, "carry lost at the top"
    C = [0] * (2 * H)
    C[0] = E[0]
    C[1] = add_cc(E[1], O[0])
    for k in range(2, 2 * H - 1):
        C[k] = addc_cc(E[k], O[k - 1])
    C[2 * H - 1] = addc(E[2 * H - 1], O[2 * H - 2])
    assert val(C) == val(x) * val(y), "half product wrong"
    return C

def abs_diff(x, y, H):
    # |x - y| over H words and whether x < y: the difference, then its
    # two's complement where it borrowed (xor with the mask, add the borrow)
    d = [0] * H
    d[0] = sub_cc(x[0], y[0])
    for k in range(1, H): d[k] = subc_cc(x[k], y[k])
    borrow = subc(0, 0) & 1
    mask = (0 - borrow) & M32
    d[0] = add_cc(d[0] ^ mask, borrow)
    for k in range(1, H): d[k] = addc_cc(d[k] ^ mask, 0)
    assert val(d) == abs(val(x) - val(y))
    return d, borrow

def mul(a, b, p, N, M0):
    H = N // 2
    pv = [(p >> (32 * j)) & M32 for j in range(N)]
    da, sa = abs_diff(a[:H], a[H:], H)
    db, sb = abs_diff(b[:H], b[H:], H)
    m = half_product(da, db, H)
    z0 = half_product(a[:H], b[:H], H)
    z2 = half_product(a[H:], b[H:], H)
    # z1 = z0 + z2 - m when the differences have one sign, + m otherwise:
    # m xor smask plus (1 - s) is -m (mod 2^(32N)) when s = 0; the word
    # above is c1 + c2 - (1 - s), 0 or 1 since 0 <= z1 < 2^(32N + 1)
    s = sa ^ sb
    smask = (s - 1) & M32                      # all ones when s = 0
    z1 = [0] * N
    z1[0] = add_cc(z0[0], z2[0])
    for k in range(1, N): z1[k] = addc_cc(z0[k], z2[k])
    c1 = addc(0, 0)
    add_cc(M32, 1 - s)                         # the carry flag := 1 - s
    z1[0] = addc_cc(z1[0], m[0] ^ smask)
    for k in range(1, N): z1[k] = addc_cc(z1[k], m[k] ^ smask)
    top = addc(c1, smask)                      # c1 + c2 - (1 - s)
    assert top in (0, 1), top
    z1.append(top)
    want_z1 = val(a[:H]) * val(b[H:]) + val(a[H:]) * val(b[:H])
    assert val(z1) == want_z1, "middle term wrong"
    # T = z0 + z2 2^(32N) + z1 2^(32H)
    T = z0 + z2
    T[H] = add_cc(T[H], z1[0])
    for k in range(1, N + 1): T[H + k] = addc_cc(T[H + k], z1[k])
    for k in range(H + N + 1, 2 * N): T[k] = addc_cc(T[k], 0)
    assert CC.c == 0, "T carried out"
    assert val(T) == val(a) * val(b), "product wrong"
    # reduction: the squaring's, unchanged
    e = T[:N]; o = [0] * N
    def mad_row_even(e, o, m):
        e[0] = mad_lo_cc(pv[0], m, e[0]); e[1] = madc_hi_cc(pv[0], m, e[1])
        for j in range(2, N, 2):
            e[j] = madc_lo_cc(pv[j], m, e[j]); e[j + 1] = madc_hi_cc(pv[j], m, e[j + 1])
        o[N - 1] = addc(o[N - 1], 0)
    q = (e[0] * M0) & M32
    mad_row_even(e, o, q)
    o[0] = mad_lo_cc(pv[1], q, o[0]); o[1] = madc_hi_cc(pv[1], q, o[1])
    for j in range(2, N, 2):
        o[j] = madc_lo_cc(pv[j + 1], q, o[j]); o[j + 1] = madc_hi_cc(pv[j + 1], q, o[j + 1])
    for r in range(1, N):
        t = e[:]
        e = o[:]
        e[0] = add_cc(e[0], t[1])
        q = (e[0] * M0) & M32
        o = [0] * N
        for j in range(0, N - 2, 2):
            o[j] = madc_lo_cc(pv[j + 1], q, t[j + 2]); o[j + 1] = madc_hi_cc(pv[j + 1], q, t[j + 3])
        o[N - 2] = madc_lo_cc(pv[N - 1], q, 0); o[N - 1] = madc_hi(pv[N - 1], q, 0)
        mad_row_even(e, o, q)
        assert e[0] == 0
    rr = [0] * N
    rr[0] = add_cc(o[0], e[1])
    for k in range(1, N - 1):
        rr[k] = addc_cc(o[k], e[k + 1])
    rr[N - 1] = addc(o[N - 1], 0)
    u = [0] * N
    u[0] = add_cc(rr[0], T[N])
    for k in range(1, N):
        u[k] = addc_cc(rr[k], T[N + k])
    hi = addc(0, 0)
    assert hi == 0
    d = [0] * N
    d[0] = sub_cc(u[0], pv[0])
    for k in range(1, N): d[k] = subc_cc(u[k], pv[k])
    borrow = subc(hi, 0)
    return val(u if borrow else d)

fields = {
 'bls12_381_fp': 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
 'bls12_381_fr': 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
 'bn254_fp': 0x30644e72e131a029b85045b68181585d97816a916871ca8d3c208c16d87cfd47,
 'bn254_fr': 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001,
}
seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
rng = random.Random(seed)
for name, p in fields.items():
    N = 12 if p.bit_length() > 256 else 8
    R = 1 << (32 * N)
    M0 = (-pow(p, -1, 1 << 32)) % (1 << 32)
    Rinv = pow(R, -1, p)
    edge = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, R % p, (R * R) % p, p >> 1]
    edge += [(1 << (32 * k)) - 1 for k in range(1, N) if (1 << (32 * k)) - 1 < p]
    edge += [(((1 << (32 * (N // 2))) - 1) << (32 * (N // 2))) % p]
    pairs = [(x, y) for x in edge for y in edge]
    pairs += [(rng.randrange(p), rng.randrange(p)) for _ in range(3000)]
    pairs += [(p - 1 - rng.randrange(1 << 40), rng.randrange(p)) for _ in range(200)]
    for x, y in pairs:
        a = [(x >> (32 * j)) & M32 for j in range(N)]
        b = [(y >> (32 * j)) & M32 for j in range(N)]
        got = mul(a, b, p, N, M0)
        assert got == (x * y * Rinv) % p, (name, seed, hex(x), hex(y))
    print(name, 'ok', len(pairs))
