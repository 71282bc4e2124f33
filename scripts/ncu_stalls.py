#!/usr/bin/env python3
"""Where a kernel stalls, from Nsight Compute's per-instruction export.

    ncu --clock-control none -k regex:KERNEL -s 1 -c 1 \
        --section SourceCounters --section WarpStateStats -o R PROGRAM ...
    ncu -i R.ncu-rep --page source --csv --print-source sass | gzip > R.csv.gz
    scripts/ncu_stalls.py R.csv.gz [TOP]

Prints the stall reasons' shares of all samples, the samples and executed
instructions by opcode, and the "long scoreboard" (memory) samples charged
to the load each stalled instruction waits for: the nearest earlier load
that writes one of its source registers (a heuristic over straight-line
SASS; loops and branches can misattribute a few)."""
import collections
import csv
import gzip
import re
import sys


def main():
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    with (gzip.open(path, 'rt') if path.endswith('.gz') else open(path, newline='')) as f:
        rows = list(csv.reader(f))
    hi = next(i for i, r in enumerate(rows) if 'Source' in r and 'Address' in r)
    hdr = rows[hi]
    data = [r for r in rows[hi + 1:] if len(r) == len(hdr)]
    src = hdr.index('Source')
    samp = hdr.index('Warp Stall Sampling (All Samples)')
    ex = hdr.index('Instructions Executed')
    reasons = [h for h in hdr if h.startswith('stall_') and 'Not Issued' not in h]
    col = {h: hdr.index(h) for h in reasons}

    def num(s):
        try:
            return float(s.replace(',', ''))
        except ValueError:
            return 0.0

    def opcode(text):
        text = re.sub(r'^@!?U?P\w+\s+', '', text.strip())
        return text.split(' ')[0] if text else '?'

    total = sum(num(r[samp]) for r in data) or 1.0
    executed = sum(num(r[ex]) for r in data) or 1.0
    print(f"{len(data)} instructions, {total:.0f} samples, {executed:.3e} warp instructions executed")
    shares = {h: sum(num(r[col[h]]) for r in data) / total for h in reasons}
    print("stall reasons:", ", ".join(f"{h[6:]} {100 * v:.1f} %"
                                      for h, v in sorted(shares.items(), key=lambda x: -x[1]) if v > 0.005))
    by_op = collections.defaultdict(collections.Counter)
    for r in data:
        c = by_op[opcode(r[src]).split('.')[0]]
        c['ex'] += num(r[ex])
        c['samples'] += num(r[samp])
        c['long_sb'] += num(r[col['stall_long_sb']])
        c['wait'] += num(r[col['stall_wait']])
    print("\nopcode        executed %  samples %  long_sb %  wait %")
    for op, c in sorted(by_op.items(), key=lambda x: -x[1]['samples'])[:top]:
        print(f"{op:12s} {100 * c['ex'] / executed:10.2f} {100 * c['samples'] / total:10.2f}"
              f" {100 * c['long_sb'] / total:10.2f} {100 * c['wait'] / total:7.2f}")
    by_load = collections.Counter()
    for i, r in enumerate(data):
        v = num(r[col['stall_long_sb']])
        if v <= 0:
            continue
        operands = r[src].split(',', 1)[1] if ',' in r[src] else ''
        used = set(re.findall(r'\bR(\d+)\b', operands))
        found = None
        for k in range(i - 1, max(-1, i - 400), -1):
            t = data[k][src]
            o = opcode(t)
            if not o.startswith(('LD', 'S2R', 'SHFL')):
                continue
            m = re.search(r'^\s*(?:@!?P\w+\s+)?\S+\s+R(\d+)', t)
            if not m:
                continue
            width = 4 if '.128' in o else 2 if '.64' in o else 1
            if any(str(int(m.group(1)) + w) in used for w in range(width)):
                found = k
                break
        by_load[found] += v
    print("\nlong scoreboard samples by the load they wait for (% of all samples):")
    for k, v in by_load.most_common(top):
        where = f"[{k}] {data[k][src].strip()[:70]}" if k is not None else "(no load found)"
        print(f"  {100 * v / total:6.2f}  {where}")


if __name__ == '__main__':
    main()
