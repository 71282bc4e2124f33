#!/usr/bin/env python3
# Model of cuda/field/field.cuh fp::operator* (CIOS with the running sum
# split into even and odd limb products) with the PTX carry flag, for
# operands below 2p on the fields with 4p < R (BLS12-381 Fp, BN254 Fp):
# every carry claim asserted, the result before its conditional subtraction
# checked to be below 2p (what fp::mul_lazy returns) and after it below p.
# The squaring's model (sqr_redc.py) is run on operands below 2p too.
# python3 scripts/models/mul_lazy.py [seed]
import random, sys, os
sys.argv, _args = sys.argv[:1], sys.argv[1:]
here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import importlib.util
spec = importlib.util.spec_from_file_location("sqr_redc", os.path.join(here, "sqr_redc.py"))
sq = importlib.util.module_from_spec(spec); spec.loader.exec_module(sq)   # runs its own checks
from_sq = sq
M32 = sq.M32; CC = sq.CC
add_cc, addc_cc, addc = sq.add_cc, sq.addc_cc, sq.addc
mad_lo_cc, madc_lo_cc, madc_hi_cc, madc_hi = sq.mad_lo_cc, sq.madc_lo_cc, sq.madc_hi_cc, sq.madc_hi
def val(w): return sum(x << (32 * k) for k, x in enumerate(w))

def mul_core(a, b, p, N, M0):
    pv = [(p >> (32 * j)) & M32 for j in range(N)]
    def mad_row(e, o, x, y, odd):
        e[0] = mad_lo_cc(x[0], y, e[0]); e[1] = madc_hi_cc(x[0], y, e[1])
        for j in range(2, N, 2):
            e[j] = madc_lo_cc(x[j], y, e[j]); e[j + 1] = madc_hi_cc(x[j], y, e[j + 1])
        assert o[N - 1] + CC.c <= M32, "O's top word overflowed"
        o[N - 1] = addc(o[N - 1], 0)
        if odd:
            o[0] = mad_lo_cc(x[1], y, o[0]); o[1] = madc_hi_cc(x[1], y, o[1])
            for j in range(2, N, 2):
                o[j] = madc_lo_cc(x[j + 1], y, o[j]); o[j + 1] = madc_hi_cc(x[j + 1], y, o[j + 1])
            assert CC.c == 0, "O carried out of N words"
    def reduce_row(e, o):
        mad_row(e, o, pv, (e[0] * M0) & M32, 1)
        assert e[0] == 0
    e = [0] * N; o = [0] * N
    b0 = b[0]
    for j in range(0, N, 2):
        e[j] = (a[j] * b0) & M32; e[j + 1] = (a[j] * b0) >> 32
        o[j] = (a[j + 1] * b0) & M32; o[j + 1] = (a[j + 1] * b0) >> 32
    reduce_row(e, o)
    for i in range(1, N):
        bi = b[i]
        t = e[:]; e = o[:]
        e[0] = add_cc(e[0], t[1])
        o = [0] * N
        for j in range(0, N - 2, 2):
            o[j] = madc_lo_cc(a[j + 1], bi, t[j + 2]); o[j + 1] = madc_hi_cc(a[j + 1], bi, t[j + 3])
        o[N - 2] = madc_lo_cc(a[N - 1], bi, 0)
        assert ((a[N - 1] * bi) >> 32) + CC.c <= M32
        o[N - 1] = madc_hi(a[N - 1], bi, 0)
        mad_row(e, o, a, bi, 0)
        reduce_row(e, o)
    r = [0] * N
    r[0] = add_cc(o[0], e[1])
    for k in range(1, N - 1):
        r[k] = addc_cc(o[k], e[k + 1])
    assert o[N - 1] + CC.c <= M32
    r[N - 1] = addc(o[N - 1], 0)
    return val(r)

fields = {k: v for k, v in sq.fields.items() if k.endswith('_fp')}
seed = int(_args[0]) if _args else 1
rng = random.Random(seed)
for name, p in fields.items():
    N = 12 if p.bit_length() > 256 else 8
    R = 1 << (32 * N)
    assert 4 * p < R, name
    M0 = (-pow(p, -1, 1 << 32)) % (1 << 32)
    Rinv = pow(R, -1, p)
    edge = [0, 1, p - 1, p, p + 1, 2 * p - 1, 2 * p - 2, (R % p), p + (R % p) if p + (R % p) < 2 * p else 1]
    pairs = [(x, y) for x in edge for y in edge]
    pairs += [(rng.randrange(2 * p), rng.randrange(2 * p)) for _ in range(4000)]
    pairs += [(2 * p - 1 - rng.randrange(1 << 40), 2 * p - 1 - rng.randrange(1 << 40)) for _ in range(300)]
    worst = 0
    for x, y in pairs:
        a = [(x >> (32 * j)) & M32 for j in range(N)]
        b = [(y >> (32 * j)) & M32 for j in range(N)]
        r = mul_core(a, b, p, N, M0)
        assert r < 2 * p, (name, hex(x), hex(y))
        assert r % p == (x * y * Rinv) % p, (name, hex(x), hex(y))
        worst = max(worst, r)
        # the squaring on a value below 2p (its output is reduced)
        got = sq.sqr(a, p, N, M0)
        assert got == (x * x * Rinv) % p, (name, 'sqr', hex(x))
    print(name, 'lazy product and squaring on operands below 2p ok', len(pairs), 'pairs; largest lazy result / p = %.4f' % (worst / p))
