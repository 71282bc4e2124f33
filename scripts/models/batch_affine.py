#!/usr/bin/env python3
# Model of the batch-affine bucket accumulation planned for the GPU MSM
# (issue 21; cuda/msm/msm_impl.cuh accumulates in XYZZ today), written
# before the kernel so that its bookkeeping and its cost are settled first:
#   - the sorted (key, point) entries are cut into virtual slots of V
#     entries; thread t of a warp of W threads walks L of them side by side
#     (its lanes), one entry a lane a step;
#   - a step's additions are independent (one a lane), so their
#     denominators share one inversion: each thread multiplies its lanes'
#     denominators (a prefix), the warp scans the threads' products both
#     ways (shuffles), one inversion of the warp's total, then each thread
#     walks its lanes back (Montgomery's trick);
#   - a run (one bucket) starting in a lane is a plain copy; equal x is a
#     doubling (denominator 2y) or a cancellation (the run's sum becomes
#     infinity); infinity points are skipped;
#   - each virtual slot ends as msm_accumulate_body's slots do (a bucket
#     written, or a head / tail for the fix-up), so the fix-up is unchanged.
# Checks every bucket against a direct sum on BN254 G1 (points from a small
# pool of multiples of G, so equal, opposite and infinity points meet in one
# run) and counts field operations, to compare with XYZZ's mixed addition
# (8 multiplications, 2 squarings) at the measured H200 rates.
#   python3 scripts/models/batch_affine.py [seed]
import random, sys

P = 21888242871839275222246405745257275088696311157297823662689037894645226208583
B = 3
G = (1, 2)
INF = None
ops = {"mul": 0, "sqr": 0, "inv": 0}


def mul(a, b):
    ops["mul"] += 1
    return a * b % P


def sqr(a):
    ops["sqr"] += 1
    return a * a % P


def inv(a):
    ops["inv"] += 1
    return pow(a, P - 2, P)


def add_ref(p, q):  # affine addition, uncounted: the oracle
    if p is INF:
        return q
    if q is INF:
        return p
    (x1, y1), (x2, y2) = p, q
    if x1 == x2:
        if (y1 + y2) % P == 0:
            return INF
        lam = 3 * x1 * x1 * pow(2 * y1, P - 2, P) % P
    else:
        lam = (y2 - y1) * pow(x2 - x1, P - 2, P) % P
    x3 = (lam * lam - x1 - x2) % P
    return (x3, (lam * (x1 - x3) - y1) % P)


def model(entries, V, L, W):
    """entries: sorted [(key, point)]; returns {key: sum} through the
    batch-affine slots and a fix-up, and the additions made"""
    n = len(entries)
    slots = (n + V - 1) // V
    threads = (slots + L - 1) // L
    warps = (threads + W - 1) // W
    buckets = {}
    heads = [None] * slots  # (point, continues past the slot's end) of a run begun before the slot
    tails = [None] * slots  # (key, point) of the slot's last run when it continues past the end
    # a lane's state: its slot, the current run's key and sum, whether the run began before the slot
    lane = [dict(s=s, cur=None, acc=INF, head=False) for s in range(slots)]
    adds = 0

    def close(st, s, key, acc, is_head, cont):
        if is_head:
            heads[s] = (acc, cont)
        elif cont:
            tails[s] = (key, acc)
        else:
            buckets[key] = add_ref(buckets.get(key, INF), acc)  # never two writers: a key's run ends once

    for j in range(V):
        for w in range(warps):
            # per lane: the addition it needs this step, as (numerator, denominator)
            pending = []  # (state, point, num, den) in thread-major lane order
            for t in range(w * W, min((w + 1) * W, threads)):
                for l in range(L):
                    s = t * L + l
                    if s >= slots:
                        continue
                    st = lane[s]
                    e = s * V + j
                    if e >= min(n, (s + 1) * V):
                        continue
                    key, pt = entries[e]
                    if j == 0:
                        st["cur"], st["head"] = key, e > 0 and entries[e - 1][0] == key
                        st["acc"] = INF
                    elif key != st["cur"]:
                        close(st, s, st["cur"], st["acc"], st["head"], False)
                        st["cur"], st["acc"], st["head"] = key, INF, False
                    if pt is INF:
                        continue
                    if st["acc"] is INF:
                        st["acc"] = pt  # a run's first point: a copy
                        continue
                    (x1, y1), (x2, y2) = st["acc"], pt
                    if x1 == x2:
                        if (y1 + y2) % P == 0:
                            st["acc"] = INF  # cancelled
                            continue
                        x1s = sqr(x1)
                        pending.append((st, pt, (3 * x1s) % P, 2 * y1 % P))  # doubling: 3x^2 / 2y
                    else:
                        pending.append((st, pt, (y2 - y1) % P, (x2 - x1) % P))
            if not pending:
                continue
            # Montgomery's trick over the warp: prefix products (a thread's
            # lanes, then the warp's scan), one inversion, back
            pre, run = [], 1
            for (_, _, _, d) in pending:
                run = mul(run, d) if pre else d
                pre.append(run)
            r = inv(pre[-1])
            for k in range(len(pending) - 1, -1, -1):
                st, pt, num, d = pending[k]
                i_d = mul(r, pre[k - 1]) if k else r
                if k:
                    r = mul(r, d)
                lam = mul(num, i_d)
                (x1, y1), (x2, _) = st["acc"], pt
                x3 = (sqr(lam) - x1 - x2) % P
                st["acc"] = (x3, (mul(lam, (x1 - x3) % P) - y1) % P)
                adds += 1
            # the warp scan's own products: 2 log2(W) per thread and step (both directions)
            ops["mul"] += 2 * (W.bit_length() - 1) * min(W, threads - w * W)
    for s in range(slots):
        st = lane[s]
        if st["cur"] is None:
            continue
        end = min(n, (s + 1) * V)
        cont = end < n and entries[end][0] == st["cur"]
        close(st, s, st["cur"], st["acc"], st["head"], cont)
    # the fix-up, sequentially (the GPU's tree gives the same sums)
    open_key, open_acc = None, INF
    for s in range(slots):
        if heads[s] is not None:
            acc, cont = heads[s]
            open_acc = add_ref(open_acc, acc)
            if not cont:
                buckets[open_key] = add_ref(buckets.get(open_key, INF), open_acc)
                open_key, open_acc = None, INF
        if tails[s] is not None:
            open_key, open_acc = tails[s]
    return buckets, adds


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else random.randrange(1 << 30)
    rnd = random.Random(seed)
    pool = [INF]
    q = G
    for _ in range(12):
        pool.append(q)
        pool.append((q[0], P - q[1]))  # its negative
        q = add_ref(q, G)
    for (n, keys, V, L, W) in [(3000, 40, 8, 4, 8), (3000, 3, 16, 2, 4), (5000, 400, 32, 8, 32), (777, 1, 4, 3, 5)]:
        # skewed keys: some buckets far longer than a slot
        ks = sorted(min(int(rnd.expovariate(3 / keys)), keys - 1) for _ in range(n))
        entries = [(k, rnd.choice(pool)) for k in ks]
        for k in range(0, n - 1, 97):  # equal points side by side (doublings)
            if entries[k][0] == entries[k + 1][0]:
                entries[k + 1] = entries[k]
        want = {}
        for k, pt in entries:
            want[k] = add_ref(want.get(k, INF), pt)
        got, _ = model(entries, V, L, W)
        for k in want:
            assert got.get(k, INF) == want[k], (seed, n, V, L, W, k)
    print("batch_affine: buckets equal the direct sums (seed %d)" % seed)
    # The cost per addition, in multiplications of issue time (BLS12-381 Fp
    # on the H200: 27.5 G products/s, 32.6 G squares/s). A warp issues an
    # instruction for its 32 threads at once, so an inversion made by one
    # thread costs its whole warp the inversion's time: sharing it pays only
    # where other warps use the SM meanwhile (a block's threads waiting at a
    # barrier while one thread inverts, other blocks resident).
    mul_rate, sqr_rate = 27.5, 32.6
    inv_cost = 380 * (mul_rate / sqr_rate) + 190  # Fermat over a 381-bit p
    xyzz = 8 + 2 * mul_rate / sqr_rate
    for k in ops:
        ops[k] = 0
    entries = sorted((rnd.randrange(64), rnd.choice(pool[1:])) for _ in range(4096 * 8))
    _, adds = model(entries, 64, 8, 32)
    # without the model's warp scans (2 log2 32 products a thread and step), accounted below
    per = (ops["mul"] - 2 * 5 * (len(entries) // 64 // 8) * 64 + ops["sqr"] * mul_rate / sqr_rate) / adds
    print("  the trick and the affine formulas: %.2f multiplications an addition (XYZZ's mixed addition %.2f)"
          % (per, xyzz))
    print("  with the inversion (%.0f) and the scans shared by T threads of L lanes each:" % inv_cost)
    for L in (8, 16, 32, 64):
        row = []
        for T in (1, 32, 256, 1024):
            scan_ops = 2 * (T.bit_length() - 1) / L
            inv_share = inv_cost * (1 if T <= 32 else 32 / T) / L
            row.append("T %4d: %5.2f (%.2fx)" % (T, per + scan_ops + inv_share, (per + scan_ops + inv_share) / xyzz))
        print("    L %2d  " % L + "  ".join(row))


if __name__ == "__main__":
    main()
