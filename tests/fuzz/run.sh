#!/usr/bin/env bash
# Builds the libFuzzer harnesses with clang (AddressSanitizer + UBSan) in
# build-fuzz/ and runs each for SECONDS (default 600), two at a time,
# starting from the committed seed corpus. New inputs go to
# build-fuzz/corpus/<name>; crashes to build-fuzz/crash-<name>-*. Exits
# non-zero if any harness crashed.
#
#   tests/fuzz/run.sh [SECONDS] [NAME...]
set -euo pipefail
cd "$(dirname "$0")/../.."
secs=${1:-600}
shift || true
names=("$@")
[ ${#names[@]} -gt 0 ] || names=(zkey wtns r1cs json params filecoin)
CC=clang cmake -S . -B build-fuzz -DCUZK_FUZZ=ON -DCUZK_CUDA=OFF -DCUZK_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build-fuzz -j "$(nproc)" >/dev/null
status=0
run() {
  local n=$1
  mkdir -p "build-fuzz/corpus/$n"
  if ./build-fuzz/tests/fuzz/fuzz_"$n" -max_total_time="$secs" -max_len=65536 -timeout=20 -rss_limit_mb=4096 \
      -artifact_prefix="build-fuzz/crash-$n-" -print_final_stats=1 \
      "build-fuzz/corpus/$n" "tests/fuzz/corpus/$n" >"build-fuzz/fuzz-$n.log" 2>&1; then
    echo "fuzz_$n: $(grep -E 'stat::number_of_executed_units' "build-fuzz/fuzz-$n.log" | awk '{print $2}') runs in ${secs}s, no crash"
  else
    echo "fuzz_$n: FAILED, see build-fuzz/fuzz-$n.log"; tail -30 "build-fuzz/fuzz-$n.log"
    return 1
  fi
}
i=0; pids=()
for n in "${names[@]}"; do
  run "$n" & pids+=($!)
  i=$((i + 1))
  if [ $((i % 2)) -eq 0 ]; then for p in "${pids[@]}"; do wait "$p" || status=1; done; pids=(); fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
exit $status
