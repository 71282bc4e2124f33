#!/usr/bin/env python3
# Model of cuda/field/field.cuh fp::sqr (the squaring) with the PTX carry flag: each
# helper below is one PTX instruction (add.cc, madc.hi.cc, ...), the
# phases follow the CUDA code line for line, and the claims its comment
# makes (no carry lost at a chain's top, the square exact, one final
# subtraction) are asserted. Checks 0, 1, p - 1 and random values of all
# four fields against Python's integers: python3 scripts/models/sqr_redc.py [seed]
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
def madc_lo(a, b, c): return (((a * b) & M32) + c + CC.c) & M32
def sub_cc(a, b): s = a - b; CC.c = 1 if s < 0 else 0; return s & M32
def subc_cc(a, b): s = a - b - CC.c; CC.c = 1 if s < 0 else 0; return s & M32
def subc(a, b): return (a - b - CC.c) & M32
CC.c = 0

def sqr(a, p, N, M0):
    pv = [(p >> (32 * j)) & M32 for j in range(N)]
    W = 2 * N
    E = [0] * W          # word k
    O = [0] * (W - 1)    # O[k] = word k + 1
    # phase 1: cross products a_i a_j (i < j), offset i + j: odd offsets into O, even into E
    for i in range(N - 1):
        for first in (i + 1, i + 2):
            if first > N - 1: continue
            X, base = (O, 1) if (i + first) % 2 == 1 else (E, 0)
            k = i + first - base
            X[k] = mad_lo_cc(a[i], a[first], X[k]); X[k + 1] = madc_hi_cc(a[i], a[first], X[k + 1])
            j = first + 2
            while j <= N - 1:
                k = i + j - base
                X[k] = madc_lo_cc(a[i], a[j], X[k]); X[k + 1] = madc_hi_cc(a[i], a[j], X[k + 1])
                j += 2
            top = k + 2
            if top < len(X):
                assert X[top] + CC.c <= M32, ("overflow", i, first, X[top])
                X[top] = addc(X[top], 0)
            else:
                assert CC.c == 0, "carry lost at the top"
    # phase 2: C = E + O * 2^32
    C = [0] * W
    C[0] = E[0]
    C[1] = add_cc(E[1], O[0])
    for k in range(2, W - 1):
        C[k] = addc_cc(E[k], O[k - 1])
    C[W - 1] = addc(E[W - 1], O[W - 2])
    # phase 3: T = 2 C + sum a_i^2 2^(64 i)
    T = [0] * W
    T[0] = (C[0] << 1) & M32
    for k in range(1, W):
        T[k] = ((C[k] << 1) | (C[k - 1] >> 31)) & M32
    T[0] = mad_lo_cc(a[0], a[0], T[0]); T[1] = madc_hi_cc(a[0], a[0], T[1])
    for i in range(1, N):
        T[2 * i] = madc_lo_cc(a[i], a[i], T[2 * i]); T[2 * i + 1] = madc_hi_cc(a[i], a[i], T[2 * i + 1])
    assert CC.c == 0
    full = sum(x << (32 * k) for k, x in enumerate(T))
    aa = sum(x << (32 * k) for k, x in enumerate(a))
    assert full == aa * aa, "square wrong"
    # phase 4: REDC of T_lo with the e/o rows, then + T_hi
    e = T[:N]; o = [0] * N
    def mad_row_even(e, o, m):
        e[0] = mad_lo_cc(pv[0], m, e[0]); e[1] = madc_hi_cc(pv[0], m, e[1])
        for j in range(2, N, 2):
            e[j] = madc_lo_cc(pv[j], m, e[j]); e[j + 1] = madc_hi_cc(pv[j], m, e[j + 1])
        o[N - 1] = addc(o[N - 1], 0)
    # row 0
    m = (e[0] * M0) & M32
    mad_row_even(e, o, m)
    o[0] = mad_lo_cc(pv[1], m, o[0]); o[1] = madc_hi_cc(pv[1], m, o[1])
    for j in range(2, N, 2):
        o[j] = madc_lo_cc(pv[j + 1], m, o[j]); o[j + 1] = madc_hi_cc(pv[j + 1], m, o[j + 1])
    for r in range(1, N):
        t = e[:]
        e = o[:]
        e[0] = add_cc(e[0], t[1])
        m = (e[0] * M0) & M32           # no carry-flag effect
        o = [0] * N
        for j in range(0, N - 2, 2):
            o[j] = madc_lo_cc(pv[j + 1], m, t[j + 2]); o[j + 1] = madc_hi_cc(pv[j + 1], m, t[j + 3])
        o[N - 2] = madc_lo_cc(pv[N - 1], m, 0); o[N - 1] = madc_hi(pv[N - 1], m, 0)
        mad_row_even(e, o, m)
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
    # reduce once
    d = [0] * N
    d[0] = sub_cc(u[0], pv[0])
    for k in range(1, N): d[k] = subc_cc(u[k], pv[k])
    borrow = subc(hi, 0)
    res = u if borrow else d
    return sum(x << (32 * k) for k, x in enumerate(res))

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
    vals = [0, 1, 2, p - 1, p - 2, (p - 1) // 2, R % p, (R * R) % p, p >> 1]
    vals += [rng.randrange(p) for _ in range(3000)]
    vals += [p - 1 - rng.randrange(1 << 40) for _ in range(200)]
    vals += [int('ff' * (4 * N), 16) % p - rng.randrange(1 << 20) for _ in range(50)]
    # limbs of all-ones patterns below p
    for k in range(1, N):
        v = (1 << (32 * k)) - 1
        if v < p: vals.append(v)
    for x in vals:
        a = [(x >> (32 * j)) & M32 for j in range(N)]
        got = sqr(a, p, N, M0)
        want = (x * x * Rinv) % p
        assert got == want, (name, hex(x))
    print(name, 'ok', len(vals))
