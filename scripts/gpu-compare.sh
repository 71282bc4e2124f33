#!/usr/bin/env bash
# Before/after on one GPU machine, in one run: two builds of cuzk (packed
# by `scripts/gpu-check.sh pack`, e.g. the last commit's and a change's),
# the same inputs, their benchmarks interleaved so that clocks, thermals
# and the machine's other load hit both alike. Prints one table.
#
#   scripts/gpu-compare.sh BEFORE.tar.xz AFTER.tar.xz
#
#   bench    bench_gpu: field rates, MSMs, NTTs, the H step (sizes from
#            BENCH_ARGS, default a subset up to 2^26 / 2^27)
#   prove    bench_prove on sha256-chain circuits of 2^PROVE_LOGS
#            constraints (default "22 24"), each curve of PROVE_CURVES,
#            GPU, uploads pinned (the default): the circuits and keys are
#            made once (by AFTER's cuzk) and proved by both
#   engine   cuzk bench on 2^ENGINE_LOG (default 20) circuits, ENGINE_JOBS
#            (default 48) proofs, the defaults and one GPU worker
#
# WHAT (default "bench prove engine") picks the parts; OUT (default
# /tmp/cuzk-gpu-compare) gets every log and summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: $0 BEFORE.tar.xz AFTER.tar.xz" >&2; exit 2; }
FINAL=${OUT:-/tmp/cuzk-gpu-compare}
OUT=$(mktemp -d)
mkdir -p "$FINAL"
trap 'tar -C "$OUT" -czf "$FINAL/logs.tgz" . 2>/dev/null; cp "$OUT/summary.txt" "$FINAL/" 2>/dev/null || true' EXIT
WHAT=${WHAT:-"bench prove engine"}
PROVE_LOGS=${PROVE_LOGS:-"22 24"}
PROVE_CURVES=${PROVE_CURVES:-"bls12381 bn128"}
BENCH_ARGS=${BENCH_ARGS:-"--min-log-g1 20 --max-log-g1 26 --max-log-g2 24 --min-log-ntt 24 --max-log-ntt 27 --reps 3"}
summary="$OUT/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
want() { case " $WHAT " in *" $1 "*) return 0 ;; esac; return 1; }

# optional dependencies carried as Debian packages (notes/gpu-machine.md)
if [ -d .deps ] && ls .deps/*.deb >/dev/null 2>&1; then
  R=$(mktemp -d)
  for f in .deps/*.deb; do dpkg -x "$f" "$R"; done
  export LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
fi
for side in before after; do
  mkdir -p "$OUT/$side"
  f=$1
  [ "$side" = after ] && f=$2
  tar -C "$OUT/$side" -xJf "$f"
done
B=$OUT/before A=$OUT/after
note "builds: before $1, after $2; GPU: $(nvidia-smi --query-gpu=name,clocks.sm --format=csv,noheader 2>/dev/null || echo none)"

if want bench; then
  for side in before after; do
    # shellcheck disable=SC2086
    "$OUT/$side/bench/bench_gpu" $BENCH_ARGS >"$OUT/bench_$side.txt" 2>&1 || note "bench_gpu ($side) failed"
  done
  # every line both printed, side by side: the figure before, after, ratio
  paste -d'|' "$OUT/bench_before.txt" "$OUT/bench_after.txt" | awk -F'|' '
    /^(msm|ntt|h|field) / {
      # the first figure of the line (the number before the first "ms" or
      # "G/s"), and the words before it as the line'"'"'s name
      n = split($1, a, /[ \t]+/); split($2, b, /[ \t]+/); key = ""; va = ""
      for (i = 1; i < n; i++) {
        if (a[i] ~ /^[0-9.]+$/ && (a[i + 1] == "ms" || a[i + 1] == "G/s")) { va = a[i]; vb = b[i]; break }
        key = key " " a[i]
      }
      if (va != "" && va + 0 > 0) printf "%-48s %10s %10s  %.3f\n", key, va, vb, vb / va
    }' | tee -a "$summary"
fi

if want prove || want engine; then
  d=$(mktemp -d)
  logs=$PROVE_LOGS
  want engine && logs="$logs ${ENGINE_LOG:-20}"
  for lg in $(echo "$logs" | tr ' ' '\n' | sort -nu); do
    for curve in $PROVE_CURVES; do
      c="$d/c${lg}_$curve"
      "$A/cuzk" circuit sha256-chain "$c.r1cs" "$c.wtns" --constraints "2^$lg" --curve "$curve" >"$OUT/circuit_${lg}_$curve.log" 2>&1
      "$A/cuzk" setup "$c.r1cs" "$c.zkey" >"$OUT/setup_${lg}_$curve.log" 2>&1
      rm -f "$c.r1cs"
    done
  done
fi

if want prove; then
  for lg in $PROVE_LOGS; do
    for curve in $PROVE_CURVES; do
      c="$d/c${lg}_$curve"
      for side in before after; do
        "$OUT/$side/bench/bench_prove" "$c.zkey" "$c.wtns" --device gpu --reps 5 >"$OUT/prove_${side}_${lg}_$curve.txt" 2>&1 ||
          note "bench_prove ($side, 2^$lg $curve) failed: $(tail -2 "$OUT/prove_${side}_${lg}_$curve.txt")"
      done
      tb=$(awk '/^  total/ { print $2 }' "$OUT/prove_before_${lg}_$curve.txt")
      ta=$(awk '/^  total/ { print $2 }' "$OUT/prove_after_${lg}_$curve.txt")
      note "$(printf '%-48s %10s %10s  %s' "bench_prove 2^$lg $curve total (s)" "$tb" "$ta" \
        "$(awk -v a="$tb" -v b="$ta" 'BEGIN { if (a > 0) printf "%.3f", b / a }')")"
    done
  done
fi

if want engine; then
  lg=${ENGINE_LOG:-20}
  n=${ENGINE_JOBS:-48}
  for curve in $PROVE_CURVES; do
    c="$d/c${lg}_$curve"
    for setting in "defaults|--device gpu --jobs $n" "1_gpu_worker|--device gpu --jobs $n --gpu-workers 1"; do
      name=${setting%%|*} args=${setting#*|}
      for side in before after; do
        # shellcheck disable=SC2086
        "$OUT/$side/cuzk" bench "$c.zkey" "$c.wtns" $args >"$OUT/engine_${side}_${curve}_$name.txt" 2>&1 ||
          note "cuzk bench ($side, $curve $name) failed: $(tail -2 "$OUT/engine_${side}_${curve}_$name.txt")"
      done
      pb=$(head -1 "$OUT/engine_before_${curve}_$name.txt" | grep -o '[0-9.]* proofs/s' | cut -d' ' -f1)
      pa=$(head -1 "$OUT/engine_after_${curve}_$name.txt" | grep -o '[0-9.]* proofs/s' | cut -d' ' -f1)
      note "$(printf '%-48s %10s %10s  %s' "cuzk bench 2^$lg $curve $name (proofs/s)" "$pb" "$pa" \
        "$(awk -v a="$pb" -v b="$pa" 'BEGIN { if (a > 0) printf "%.3f", b / a }')")"
    done
  done
fi
[ -n "${d:-}" ] && rm -rf "$d"
echo
echo "=== before / after ($FINAL) ==="
cat "$summary"
