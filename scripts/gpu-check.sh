#!/usr/bin/env bash
# Builds cuzk with CUDA on a GPU machine, runs the GPU tests and the
# benchmarks, and prints a short table last. $OUT (default
# /tmp/cuzk-gpu-check) gets summary.txt, bench_gpu.txt and logs.tgz (every
# log: a few files, since the device tool returns only a few).
#
#   scripts/gpu-check.sh [tests|bench|targets|prove|params|supraseal|porep|filecoin|sass|engine|serve|multigpu|all]...
#                         (default: all)
#   scripts/gpu-check.sh pack        (here, without a GPU: build and pack)
#   PREBUILT=build-gpu.tar.xz scripts/gpu-check.sh tests ...   (there)
#
# pack   builds the binaries the modes run and packs them into $PACK
#        (default build-gpu.tar.xz, git-ignored) instead of running
#        anything: carry it (and .deps, which the packed cuzk needs at run
#        time) to the GPU machine and run with PREBUILT=$PACK there, which
#        unpacks it instead of building (saves the 150-190 s build of every
#        device call; nvcc here targets sm_90 as there). Built on an older
#        glibc than the GPU machine's, which runs it. .deps holds Debian
#        12's packages, made here with `apt-get download libgmp-dev
#        libjansson4 libjansson-dev libmicrohttpd12 libmicrohttpd-dev`,
#        plus `libpq5 libldap-2.5-0` where the build found libpq (the
#        PostgreSQL queue): without them the packed tests that link it
#        fail to start there ("libpq.so.5: cannot open shared object").
# tests  test_gpu (GPU vs CPU: fields, points, MSM, NTT, proof bytes),
#        test_prove (every fixture's proof, on the GPU where one exists),
#        test_engine (the engine's pipeline, on the GPU), test_engine_gpu
#        (the device-memory plan under forced budgets) and test_filecoin_gpu
#        (the PoRep circuit's proofs at 2 KiB, GPU bytes = CPU bytes)
# filecoin  Filecoin's PoRep C2 on the GPU through the cuzk command, for
#        each of FILECOIN_SIZES (default "2KiB 8MiB"; 512MiB seals for
#        minutes; 32GiB, sparse only, needs a 45 GiB key on disk and an
#        H200 to hold it): porep seal (and --sparse), the circuit's native
#        form and its .params key and .vk (setup on the GPU), porep c2
#        --device gpu --vk --record, porep verify
# bench  bench_gpu: MSM 2^16..2^26 (G1) / 2^24 (G2), NTT 2^20..2^27
# prove  sha256-chain circuits of 2^20, 2^22, 2^24 constraints: random
#        setup, then bench_prove on the GPU (uploads pinned, then pageable:
#        CUZK_GPU_UPLOAD) and on the CPU's cores
# params a sha256-chain circuit of 2^PARAMS_LOG (default 20) constraints,
#        BLS12-381: a .zkey and a bellperson .params key of it proved side
#        by side (bench_prove on the GPU, and the CPU)
# supraseal  supraseal-c2's C ABI (tests/test_supraseal.sh) on the GPU: the
#        fixtures and a sha256-chain of 2^SUPRASEAL_LOG (default 18)
#        constraints, 32 circuits a call (needs GMP: carried in .deps)
# porep  a porep-shape circuit of 2^POREP_LOG (default 24) constraints in
#        its native form (no .r1cs), or POREP_CONSTRAINTS of them (full: the
#        PoRep's 130,278,869): the .params setup on the GPU (its stages'
#        times from the progress lines), then bench_prove of one
#        partition's witness on the GPU (the key's matrices resident;
#        POREP_SINGLE=0 skips it), and cuzk bench porep: POREP_PROOFS
#        (default 2) proofs of 10 partitions, witnesses made as POREP_MODES
#        says (default "live pregenerated"), POREP_ARGS more of its flags
#        (e.g. "--job-memory 12G"); then, with POREP_ABI, the
#        partitions through supraseal-c2's C ABI (bench_supraseal --porep,
#        POREP_ABI_BATCH partitions a call, default 2): "cuzk" the
#        library's, a path a shared library's (supraseal-c2 built outside
#        this repository), several in order. POREP_DIR keeps the circuit
#        and key (default: a temporary directory, removed)
# targets  issue 21's MSM targets, one bench_gpu process a row (medians
#        of TARGET_REPS, default 3) with the shifted copies the targets
#        were measured with; a row whose copies do not fit the GPU's memory
#        says so (12 copies of 2^26 BLS12-381 points and 5 of 2^27 need
#        more than 80 GB). targets.txt: the table. Not part of all.
# sass   opcode counts and registers of the hot kernels (cuobjdump)
# serve  the daemon's tests (tests/test_serve.sh, test_submit.sh) with the
#        GPU proving: needs libmicrohttpd and jansson, carried as Debian
#        packages in .deps (notes/gpu-machine.md; curl and jq are the
#        machine's own — carrying Debian's jq breaks it)
# multigpu  the engine on one GPU and on all (and two of four), one call:
#        proofs/s and GPU busy per device for sha256-chain 2^22/2^24 and
#        10-partition porep-shape jobs, one job's latency, test_engine_gpu
#        with every device (issue 23; MULTI_* variables below the mode)
# engine the engine's pipeline on the GPU (cuzk bench): a sha256-chain
#        circuit of 2^ENGINE_LOG constraints, proofs/s, latency, GPU busy
#        fraction at several worker settings, and the CPU's for comparison
#
# Environment: BUILD (build directory, default build-gpu), JOBS, PROVE_LOGS
# (the circuit sizes, default "20 22 24"), PROVE_CURVES (default "bls12381
# bn128"), CPU_PROVE_MAX_LOG (largest size also proved on the CPU, default
# 22), BENCH_REPS, BENCH_ARGS (extra bench_gpu arguments), ENGINE_LOG
# (default 20), ENGINE_JOBS (proofs per setting, default 48), ENGINE_CURVES
# (default: PROVE_CURVES), PACK (pack's file), PREBUILT, CMAKE_ARGS (extra
# configure arguments, e.g. -DCMAKE_CUDA_FLAGS=-DSOME_EXPERIMENT).
set -euo pipefail
cd "$(dirname "$0")/.."
FINAL=${OUT:-/tmp/cuzk-gpu-check}
OUT=$(mktemp -d)
BUILD=${BUILD:-build-gpu}
PACK=${PACK:-build-gpu.tar.xz}
JOBS=${JOBS:-$(nproc)}
PROVE_LOGS=${PROVE_LOGS:-"20 22 24"}
PROVE_CURVES=${PROVE_CURVES:-"bls12381 bn128"}
CPU_PROVE_MAX_LOG=${CPU_PROVE_MAX_LOG:-22}
mkdir -p "$FINAL"
trap 'tar -C "$OUT" -czf "$FINAL/logs.tgz" . 2>/dev/null; cp "$OUT/summary.txt" "$OUT/bench_gpu.txt" "$OUT/profile.txt" "$OUT/targets.txt" "$FINAL/" 2>/dev/null || true' EXIT
trap 'exit 124' TERM # a `timeout` around this script still leaves the logs
what=("$@")
[ ${#what[@]} -eq 0 ] && what=(all)
want() { for w in "${what[@]}"; do { [ "$w" = all ] && [ "$1" != pack ] && [ "$1" != multigpu ] && [ "$1" != targets ]; } || [ "$w" = "$1" ] && return 0; done; return 1; }
summary="$OUT/summary.txt"
: >"$summary"
note() { echo "$*" | tee -a "$summary"; }
step=$(date +%s)
lap() { local n; n=$(date +%s); dt="$((n - step)) s"; step=$n; } # dt: time since the last lap

# optional dependencies carried as Debian packages (notes/gpu-machine.md)
if [ -d .deps ] && ls .deps/*.deb >/dev/null 2>&1; then
  R=$(mktemp -d)
  for f in .deps/*.deb; do dpkg -x "$f" "$R"; done
  export CPATH=$R/usr/include:$R/usr/include/x86_64-linux-gnu
  export LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu LD_LIBRARY_PATH=$R/usr/lib/x86_64-linux-gnu
  export CMAKE_PREFIX_PATH=$R/usr
fi

{ command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,memory.total,clocks.sm,driver_version --format=csv,noheader; } >"$OUT/gpu.txt" 2>&1 ||
  echo none >"$OUT/gpu.txt"
t0=$(date +%s)
# what the modes below run (and `pack` packs), relative to $BUILD
binaries=(cuzk tests/test_gpu tests/test_prove_portable tests/test_engine tests/test_engine_gpu tests/test_filecoin_gpu
          bench/bench_gpu bench/bench_prove bench/bench_supraseal tests/flaky_proxy libcuzk_internal.a)
if [ -n "${PREBUILT:-}" ]; then
  mkdir -p "$BUILD"
  tar -C "$BUILD" -xJf "$PREBUILT"
  note "build: none, $PREBUILT unpacked ($(( $(date +%s) - t0 )) s); GPU: $(cat "$OUT/gpu.txt")"
else
  # shellcheck disable=SC2086
  cmake -S . -B "$BUILD" -DCUZK_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release ${CMAKE_ARGS:-} \
    >"$OUT/configure.log" 2>&1
  extra=()
  # supraseal's test (it needs GMP, which the configure found or not); a
  # pack carries it for the supraseal mode there
  if { want supraseal || want pack; } && grep -q '^GMP_LIBRARY:FILEPATH=/' "$BUILD/CMakeCache.txt"; then
    extra=(test_supraseal)
    binaries+=(tests/test_supraseal)
  fi
  cmake --build "$BUILD" -j"$JOBS" --target cuzk_cli test_gpu test_prove_portable test_engine test_engine_gpu \
    test_filecoin_gpu bench_gpu bench_prove bench_supraseal flaky_proxy "${extra[@]}" >"$OUT/build.log" 2>&1 ||
    { tail -40 "$OUT/build.log"; exit 1; }
  note "build: $(( $(date +%s) - t0 )) s on $(nproc) cores; GPU: $(cat "$OUT/gpu.txt")"
fi
if want pack; then
  # one xz stream over all of them with a window larger than the lot: the
  # binaries share most of their device code, so this packs ~300 MB into
  # ~17 MB (under the device tool's 64 MiB carry) in 30 s on 2 cores; a
  # fast preset with that window packs as small as -9 (whose 64 MiB window
  # misses the repeats) packed in 8.5 min
  tar -C "$BUILD" -cf - "${binaries[@]}" | xz -T1 --lzma2=preset=2,dict=192MiB >"$PACK"
  note "packed: $PACK ($(du -h "$PACK" | cut -f1)); on the GPU machine: PREBUILT=$PACK scripts/gpu-check.sh ..."
  exit 0
fi
lap

status=0
if want tests; then
  if "$BUILD/tests/test_gpu" tests/fixtures >"$OUT/test_gpu.log" 2>&1; then lap; note "test_gpu: PASS ($(tail -1 "$OUT/test_gpu.log"); $dt)"
  else status=1; lap; note "test_gpu: FAIL ($dt)"; tail -20 "$OUT/test_gpu.log"; fi
  if "$BUILD/tests/test_prove_portable" tests/fixtures >"$OUT/test_prove.log" 2>&1; then lap; note "test_prove (GPU where present): PASS ($dt)"
  else status=1; lap; note "test_prove: FAIL ($dt)"; tail -20 "$OUT/test_prove.log"; fi
  for t in test_engine test_engine_gpu test_filecoin_gpu; do
    if "$BUILD/tests/$t" tests/fixtures >"$OUT/$t.log" 2>&1; then lap; note "$t: PASS ($(tail -1 "$OUT/$t.log"); $dt)"
    else status=1; lap; note "$t: FAIL ($dt)"; tail -20 "$OUT/$t.log"; fi
  done
fi

if want filecoin; then
  for size in ${FILECOIN_SIZES:-2KiB 8MiB}; do
    d=$(mktemp -d) fl="$OUT/filecoin_$size.log"
    ok=1
    kinds="s sp" # sealed and sparse; above 512 MiB (not sealed here) sparse only
    case $size in 32GiB|64GiB) kinds=sp ;; esac
    { { [ "$kinds" = sp ] || "$BUILD/cuzk" porep seal --sector-size "$size" "$d/s"; } &&
      "$BUILD/cuzk" porep seal --sector-size "$size" --sparse --seed 2 "$d/sp" &&
      "$BUILD/cuzk" circuit stacked --sector-size "$size" -o "$d/k" &&
      "$BUILD/cuzk" setup "$d/k/circuit.stacked" "$d/k/key.params" --format params --quiet &&
      for s in $kinds; do
        "$BUILD/cuzk" porep c2 "$d/$s/c1.json" "$d/k/key.params" "$d/$s.proof" --device gpu --vk "$d/k/key.vk" \
          --record "$d/$s/record.json" && "$BUILD/cuzk" porep verify "$d/k/key.vk" "$d/$s/record.json" || exit 1
      done; } >"$fl" 2>&1 || ok=0
    lap
    if [ $ok = 1 ]; then note "filecoin $size (sealed and sparse: c2 on the GPU, porep verify OK): PASS ($dt; $(grep -o 'witness [0-9.]* s, proof [0-9.]* s' "$fl" | tr '\n' ';'))"
    else status=1; note "filecoin $size: FAIL ($dt)"; tail -20 "$fl"; fi
    rm -rf "$d"
  done
fi

if want supraseal; then
  # supraseal-c2's ABI (tests/test_supraseal.sh) proving on the GPU: the
  # fixtures and a 2^SUPRASEAL_LOG sha256-chain, 32 circuits a call
  if CUZK_SUPRASEAL_LOG=${SUPRASEAL_LOG:-18} timeout 500 tests/test_supraseal.sh "$BUILD/cuzk" "$BUILD/tests/test_supraseal" \
      "$(command -v node || echo none)" tests/fixtures "${CC:-cc}" >"$OUT/test_supraseal.log" 2>&1; then
    lap; note "test_supraseal (GPU): PASS ($(grep -o '32 circuits in [0-9.]* s' "$OUT/test_supraseal.log" | tr '\n' ' ')$dt)"
  else status=1; lap; note "test_supraseal: FAIL ($dt)"; tail -20 "$OUT/test_supraseal.log"; fi
  # the ABI against the library's own proofs, same key and witness
  d=$(mktemp -d)
  for lg in ${SUPRASEAL_BENCH_LOGS:-20 22}; do
    c="$d/s$lg"
    "$BUILD/cuzk" circuit sha256-chain "$c.r1cs" "$c.wtns" --constraints "2^$lg" --curve bls12381 >/dev/null 2>&1 &&
      "$BUILD/cuzk" setup "$c.r1cs" "$c.params" --format params --quiet >/dev/null 2>&1 &&
      "$BUILD/bench/bench_supraseal" "$c.params" "$c.r1cs" "$c.wtns" --circuits 10 --reps 3 \
        >"$OUT/bench_supraseal_$lg.txt" 2>&1 ||
      { status=1; note "bench_supraseal 2^$lg: FAIL"; tail -5 "$OUT/bench_supraseal_$lg.txt"; }
    lap; note "bench_supraseal 2^$lg ($dt): $(grep -E 'abi|library' "$OUT/bench_supraseal_$lg.txt" | tr -s ' ' | tr '\n' ';')"
    rm -f "$c".*
  done
  rm -rf "$d"
fi

if want serve; then
  if ! "$BUILD/cuzk" version | grep -q "^daemon: yes"; then
    status=1; note "serve: cuzk was built without the daemon (carry libmicrohttpd and jansson in .deps)"
  else
    for t in serve submit; do
      args=("$BUILD/cuzk" tests/fixtures)
      [ "$t" = submit ] && args+=("" "$BUILD/tests/flaky_proxy")
      if timeout 400 "tests/test_$t.sh" "${args[@]}" >"$OUT/test_$t.log" 2>&1; then lap; note "test_$t (GPU daemon): PASS ($dt)"
      else status=1; lap; note "test_$t: FAIL ($dt)"; tail -20 "$OUT/test_$t.log"; fi
    done
  fi
fi

if want bench; then
  "$BUILD/bench/bench_gpu" --reps "${BENCH_REPS:-5}" ${BENCH_ARGS:-} >"$OUT/bench_gpu.txt" 2>&1 || { status=1; tail -5 "$OUT/bench_gpu.txt"; }
  CUZK_GPU_PROFILE=1 "$BUILD/bench/bench_gpu" --max-log-g1 26 --max-log-g2 16 --max-log-ntt 20 --reps 1 --no-heavy \
    >"$OUT/profile_bench.txt" 2>"$OUT/profile.txt" || true
  lap; note "bench_gpu: $dt"
fi

# issue 21's targets: label, target (ms), the MSM's line in bench_gpu's
# output (curve, group, size) and bench_gpu's arguments
if want targets; then
  tt="$OUT/targets.txt"
  printf '| MSM | ms | target | |\n|---|---:|---:|---|\n' >"$tt"
  target() {
    local label=$1 limit=$2 line=$3 out ms
    shift 3
    out=$("$BUILD/bench/bench_gpu" --reps "${TARGET_REPS:-3}" --no-heavy --min-log-ntt 2 --max-log-ntt 1 "$@" 2>&1)
    ms=$(printf '%s\n' "$out" | grep -E "^msm +$line random" | awk '{ for (i = 2; i <= NF; i++) if ($i == "ms") print $(i - 1) }' | tail -1)
    if [ -z "$ms" ]; then
      local why="out of GPU memory"
      printf '%s\n' "$out" | grep -q 'out of memory' || { why="failed: see logs"; status=1; }
      printf '%s\n' "$out" >"$OUT/target_failed_$(printf '%s' "$label" | tr -c 'A-Za-z0-9' _).txt"
      printf '| %s | — | %s | %s |\n' "$label" "$limit" "$why" >>"$tt"
    else
      printf '| %s | %s | %s | %s |\n' "$label" "$ms" "$limit" \
        "$(awk -v a="$ms" -v b="$limit" 'BEGIN { print a <= b ? "met" : sprintf("%.1f %% over", 100 * (a / b - 1)) }')" >>"$tt"
    fi
  }
  target "BLS12-381 G2 2^24" 400 "bls12-381 G2 +2\^24" --min-log-g1 28 --max-log-g1 27 --max-log-g2 24 --only "bls12-381 G2"
  target "BLS12-381 G1 2^24, 12 copies" 75 "bls12-381 G1 +2\^24" --min-log-g1 24 --max-log-g1 24 --max-log-g2 0 --only "bls12-381 G1" --msm-tune 0:0:0:0:12
  target "BLS12-381 G1 2^26, 12 copies" 280 "bls12-381 G1 +2\^26" --min-log-g1 26 --max-log-g1 26 --max-log-g2 0 --only "bls12-381 G1" --msm-tune 0:0:0:0:12
  target "BN254 G1 2^26, 12 copies" 140 "bn254 G1 +2\^26" --min-log-g1 26 --max-log-g1 26 --max-log-g2 0 --only "bn254 G1" --msm-tune 0:0:0:0:12
  for k in 5 6 3; do
    target "H: BLS12-381 G1 2^27, $k copies" 450 "bls12-381 G1 +2\^27" --min-log-g1 27 --max-log-g1 27 --max-log-g2 0 --only "bls12-381 G1" --msm-tune 0:0:0:0:$k
  done
  lap; note "targets: $dt"; tee -a "$summary" <"$tt"
fi

# the machine code of the hot kernels: instruction counts by opcode (what
# the compiler made of the carry chains), registers and spills
if want sass && command -v cuobjdump >/dev/null; then
  lib="$BUILD/libcuzk_internal.a"
  # BLS12-381: G1's default accumulation (the capped kernel), Fr's NTT
  # passes (every radix), and the field benchmark (Fp; Fr, and BN254 Fr
  # to compare); full
  # opcodes (IMAD.WIDE.U32, IADD3.X, ...) so the carry handling shows
  for k in "msm_accumulate_capped bls12_381_fp_params" "ntt_pass_radix bls12_381_fr_params" \
           "field_bench_kernel bls12_381_fp_params" "field_bench_kernel bls12_381_fr_params" \
           "field_bench_kernel bn254_fr_params"; do
    set -- $k
    cuobjdump -sass "$lib" 2>/dev/null | awk -v a="$1" -v b="$2" '/Function :/ { on = index($0, a) > 0 && index($0, b) > 0 } on && /^ +\/\*[0-9a-f]+\*\// { op = $2; if (op ~ /^@/) op = $3; sub(/;$/, "", op); n[op]++ } END { for (o in n) printf "%8d %s\n", n[o], o }' |
      sort -rn | head -30 >"$OUT/sass_$1_$2.txt"
  done
  cuobjdump -res-usage "$lib" 2>/dev/null | grep -A1 -E "msm_accumulate|ntt_pass_radix" | grep -B1 -E "REG" | head -40 >"$OUT/sass_regs.txt" || true
fi

if want engine; then
  d=$(mktemp -d)
  lg=${ENGINE_LOG:-20}
  for curve in ${ENGINE_CURVES:-$PROVE_CURVES}; do
    c="$d/e${lg}_$curve"
    "$BUILD/cuzk" circuit sha256-chain "$c.r1cs" "$c.wtns" --constraints "2^$lg" --curve "$curve" >"$OUT/ecircuit_$curve.log" 2>&1
    "$BUILD/cuzk" setup "$c.r1cs" "$c.zkey" >"$OUT/esetup_$curve.log" 2>&1
    rm -f "$c.r1cs"
    n=${ENGINE_JOBS:-48}
    # settings: name | arguments | environment (the defaults: two workers
    # a GPU, pinned uploads, the next witness pre-staged)
    while IFS='|' read -r name args envs; do
      f="$OUT/engine_${curve}_$name.txt"
      # shellcheck disable=SC2086
      if env $envs "$BUILD/cuzk" bench "$c.zkey" "$c.wtns" $args >"$f" 2>&1; then
        note "engine 2^$lg $curve $name: $(head -1 "$f" | sed 's/.*: //'); $(grep -o 'GPU 0 computing [0-9.]* %' "$f" || true); $(grep -o 'p50 [0-9.]* s' "$f")"
      else status=1; note "engine $curve $name: FAIL"; tail -5 "$f"; fi
    done <<SETTINGS
gpu_w1|--device gpu --jobs $n --gpu-workers 1
gpu_w2|--device gpu --jobs $n --gpu-workers 2
gpu_w2_no_prestage|--device gpu --jobs $n --gpu-workers 2 --no-prestage
gpu_w2_pageable|--device gpu --jobs $n --gpu-workers 2|CUZK_GPU_UPLOAD=pageable
gpu_w2_no_prestage_pageable|--device gpu --jobs $n --gpu-workers 2 --no-prestage|CUZK_GPU_UPLOAD=pageable
gpu_w2_p4_f4|--device gpu --jobs $n --gpu-workers 2 --prepare-workers 4 --finalize-workers 4
gpu_w4_p4_f4|--device gpu --jobs $n --gpu-workers 4 --prepare-workers 4 --finalize-workers 4
gpu_w16_p4_f4|--device gpu --jobs $n --gpu-workers 16 --prepare-workers 4 --finalize-workers 4
cpu_w1_t16|--device cpu --jobs 4 --workers 1 --threads 16
SETTINGS
    rm -f "$c.zkey" "$c.wtns"
  done
  rm -rf "$d"
fi

# multigpu (issue 23): the engine on 1 GPU and on all of them, same call:
# sha256-chain proofs (MULTI_LOGS, default "22 24"; both curves) and
# 10-partition porep-shape jobs of 2^MULTI_POREP_LOG constraints (default
# 22: throughput over MULTI_POREP_PROOFS jobs, and one job's latency), GPU
# busy per device; then test_engine_gpu with every device visible
if want multigpu; then
  ngpu=$(nvidia-smi -L 2>/dev/null | wc -l)
  all=$(seq -s, 0 $((ngpu - 1)))
  sets="0"
  [ "$ngpu" -ge 4 ] && sets="$sets 0,1"
  [ "$ngpu" -ge 2 ] && sets="$sets $all"
  note "multigpu: $ngpu GPUs ($(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | sort | uniq -c | tr -s ' ' | tr '\n' ';'))"
  "$BUILD/cuzk" version | grep '^gpu ' | sed 's/^/  /' >>"$summary"
  d=$(mktemp -d)
  for lg in ${MULTI_LOGS:-22 24}; do
    for curve in $PROVE_CURVES; do
      c="$d/m${lg}_$curve"
      "$BUILD/cuzk" circuit sha256-chain "$c.r1cs" "$c.wtns" --constraints "2^$lg" --curve "$curve" >/dev/null 2>&1 &&
        "$BUILD/cuzk" setup "$c.r1cs" "$c.zkey" -q >/dev/null 2>&1 || { status=1; note "multigpu 2^$lg $curve: setup FAIL"; continue; }
      rm -f "$c.r1cs"
      for set in $sets; do
        g=$(echo "$set" | tr ',' '\n' | wc -l)
        f="$OUT/multi_${lg}_${curve}_g$g.txt"
        if CUDA_VISIBLE_DEVICES=$set "$BUILD/cuzk" bench "$c.zkey" "$c.wtns" --device gpu \
             --jobs $(( ${MULTI_JOBS_PER_GPU:-24} * g )) >"$f" 2>&1; then
          note "multigpu 2^$lg $curve on $g GPU(s): $(head -1 "$f" | sed 's/.*: //'); $(grep -o 'GPU [0-9]* computing [0-9.]* %' "$f" | tr '\n' ' ')"
        else status=1; note "multigpu 2^$lg $curve on $g GPU(s): FAIL"; tail -5 "$f"; fi
      done
      rm -f "$c.zkey" "$c.wtns"
    done
  done
  n="2^${MULTI_POREP_LOG:-22}"
  for set in $sets; do
    g=$(echo "$set" | tr ',' '\n' | wc -l)
    for proofs in "${MULTI_POREP_PROOFS:-4}" 1; do
      f="$OUT/multi_porep_g${g}_p$proofs.txt"
      CUDA_VISIBLE_DEVICES=$set "$BUILD/cuzk" bench porep --constraints "$n" --partitions 10 --proofs "$proofs" \
        --device gpu --cache "$d" --witness live >"$f" 2>"$f.log" || { status=1; tail -5 "$f.log"; }
      note "multigpu porep $n x 10, $proofs job(s) on $g GPU(s): $(grep -E 'per proof|busy' "$f" | tr '\n' ';')"
    done
  done
  rm -rf "$d"
  if "$BUILD/tests/test_engine_gpu" tests/fixtures >"$OUT/test_engine_gpu_multi.log" 2>&1; then
    note "test_engine_gpu on $ngpu GPUs: PASS ($(tail -1 "$OUT/test_engine_gpu_multi.log"))"
  else status=1; note "test_engine_gpu on $ngpu GPUs: FAIL"; tail -20 "$OUT/test_engine_gpu_multi.log"; fi
fi

if want prove; then
  d=$(mktemp -d)
  for lg in $PROVE_LOGS; do
    for curve in $PROVE_CURVES; do
      c="$d/c${lg}_$curve"
      lap
      "$BUILD/cuzk" circuit sha256-chain "$c.r1cs" "$c.wtns" --constraints "2^$lg" --curve "$curve" >"$OUT/circuit_${lg}_$curve.log" 2>&1
      ts=$(date +%s.%N)
      "$BUILD/cuzk" setup "$c.r1cs" "$c.zkey" >"$OUT/setup_${lg}_$curve.log" 2>&1
      lap; note "setup 2^$lg $curve: $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $ts }") s (circuit and setup: $dt)"
      rm -f "$c.r1cs"
      "$BUILD/bench/bench_prove" "$c.zkey" "$c.wtns" --device gpu --reps 5 >"$OUT/prove_gpu_${lg}_$curve.txt" 2>&1 ||
        { status=1; tail -5 "$OUT/prove_gpu_${lg}_$curve.txt"; }
      # the same with pageable uploads (CUZK_GPU_UPLOAD; pinned slots by default), side by side
      CUZK_GPU_UPLOAD=pageable "$BUILD/bench/bench_prove" "$c.zkey" "$c.wtns" --device gpu --reps 5 \
        >"$OUT/prove_gpupageable_${lg}_$curve.txt" 2>&1 || { status=1; tail -5 "$OUT/prove_gpupageable_${lg}_$curve.txt"; }
      if [ "$lg" -le "$CPU_PROVE_MAX_LOG" ]; then
        "$BUILD/bench/bench_prove" "$c.zkey" "$c.wtns" --device cpu --reps 3 >"$OUT/prove_cpu_${lg}_$curve.txt" 2>&1 ||
          { status=1; tail -5 "$OUT/prove_cpu_${lg}_$curve.txt"; }
      fi
      rm -f "$c.zkey" "$c.wtns"
    done
  done
  rm -rf "$d"
fi

# params: one sha256-chain circuit (2^PARAMS_LOG, BLS12-381) with a .zkey
# and a bellperson .params key, proved side by side in one run (GPU, and
# the CPU up to CPU_PROVE_MAX_LOG)
if want porep; then
  d=${POREP_DIR:-$(mktemp -d)}
  mkdir -p "$d"
  lg=${POREP_LOG:-24}
  n=${POREP_CONSTRAINTS:-2^$lg}
  "$BUILD/cuzk" circuit porep-shape "$d" --constraints "$n" --partitions 10 --format native \
    >"$OUT/porep_circuit.log" 2>&1 || { status=1; tail -5 "$OUT/porep_circuit.log"; }
  lap; note "porep-shape $n native: $dt; disk: $(df -h "$d" | awk 'NR == 2 { print $4 " free" }')"
  if [ ! -f "$d/key.params" ]; then
    ts=$(date +%s.%N)
    "$BUILD/cuzk" setup "$d/circuit.porep" "$d/key.params" --format params >"$OUT/porep_setup.log" 2>&1 ||
      { status=1; tail -5 "$OUT/porep_setup.log"; }
    lap; note "setup $n .params from the native form: $dt ($(du -h "$d/key.params" | cut -f1)); $(grep -E ' in [0-9.]+ s' "$OUT/porep_setup.log" | sed 's/.*setup: //' | tr '\n' ';')"
  fi
  if [ "${POREP_SINGLE:-1}" = 1 ]; then
    # one partition's witness as a .wtns (the same circuit: it does not depend on the seed or partitions)
    "$BUILD/cuzk" circuit porep-shape "$d/one" --constraints "$n" --partitions 1 --format native --witnesses \
      >>"$OUT/porep_circuit.log" 2>&1 &&
      "$BUILD/bench/bench_prove" "$d/key.params" "$d/one/partition_0.wtns" --r1cs "$d/one/circuit.porep" --device gpu \
        --reps 3 >"$OUT/prove_gpuporep_${lg}_bls12381.txt" 2>&1 || { status=1; tail -5 "$OUT/prove_gpuporep_${lg}_bls12381.txt"; }
    rm -rf "$d/one"
    lap; note "bench_prove porep $n (GPU): $dt"
  fi
  # the job: POREP_PROOFS proofs of 10 partitions through the engine, the key from above
  for mode in ${POREP_MODES:-live pregenerated}; do
    "$BUILD/cuzk" bench porep --constraints "$n" --partitions 10 --proofs "${POREP_PROOFS:-2}" \
      --device gpu --cache "$d" --witness $mode --explain --timeline "$OUT/porep_timeline_$mode.html" ${POREP_ARGS:-} \
      >"$OUT/bench_porep_$mode.txt" 2>"$OUT/bench_porep_$mode.log" ||
      { status=1; tail -5 "$OUT/bench_porep_$mode.log"; }
    lap; note "bench porep $n x 10 ($mode, $dt): $(grep -E 'per proof|busy|bound' "$OUT/bench_porep_$mode.txt" | tr '\n' ';')"
  done
  # the same partitions through supraseal-c2's C ABI, each implementation in turn
  for lib in ${POREP_ABI:-}; do
    args=()
    [ "$lib" != cuzk ] && args=(--lib "$lib")
    name=$(basename "$lib" .so)
    "$BUILD/bench/bench_supraseal" --porep "$d" --batch "${POREP_ABI_BATCH:-2}" --reps "${POREP_ABI_REPS:-2}" \
      "${args[@]}" >"$OUT/porep_abi_$name.txt" 2>&1 || { status=1; tail -5 "$OUT/porep_abi_$name.txt"; }
    lap; note "porep ABI $name ($dt): $(grep -E 'create_SRS|first call|a call|peak' "$OUT/porep_abi_$name.txt" | tr -s ' ' | tr '\n' ';')"
  done
  [ -n "${POREP_DIR:-}" ] || rm -rf "$d"
fi

if want params; then
  d=$(mktemp -d)
  lg=${PARAMS_LOG:-20}
  c="$d/p$lg"
  "$BUILD/cuzk" circuit sha256-chain "$c.r1cs" "$c.wtns" --constraints "2^$lg" --curve bls12381 >"$OUT/params_circuit.log" 2>&1
  "$BUILD/cuzk" setup "$c.r1cs" "$c.zkey" -q >"$OUT/params_setup_zkey.log" 2>&1
  ts=$(date +%s.%N)
  "$BUILD/cuzk" setup "$c.r1cs" "$c.params" --format params -q >"$OUT/params_setup.log" 2>&1
  note "setup 2^$lg .params: $(awk "BEGIN { printf \"%.1f\", $(date +%s.%N) - $ts }") s"
  ts=$(date +%s.%N)
  "$BUILD/cuzk" prove "$c.params" "$c.wtns" "$d/proof.json" "$d/public.json" --r1cs "$c.r1cs" --device gpu \
    --timings >"$OUT/params_cli.log" 2>&1 || { status=1; tail -5 "$OUT/params_cli.log"; }
  note "cuzk prove 2^$lg .params (GPU, open + prove): $(awk "BEGIN { printf \"%.2f\", $(date +%s.%N) - $ts }") s"
  for dev in gpu cpu; do
    [ "$dev" = cpu ] && [ "$lg" -gt "$CPU_PROVE_MAX_LOG" ] && continue
    "$BUILD/bench/bench_prove" "$c.zkey" "$c.wtns" --device $dev --reps 5 >"$OUT/prove_${dev}zkey_${lg}_bls12381.txt" 2>&1 ||
      { status=1; tail -5 "$OUT/prove_${dev}zkey_${lg}_bls12381.txt"; }
    "$BUILD/bench/bench_prove" "$c.params" "$c.wtns" --r1cs "$c.r1cs" --device $dev --reps 5 \
      >"$OUT/prove_${dev}params_${lg}_bls12381.txt" 2>&1 || { status=1; tail -5 "$OUT/prove_${dev}params_${lg}_bls12381.txt"; }
  done
  rm -rf "$d"
fi

echo
echo "=== summary ($FINAL) ==="
cat "$summary"
[ -f "$OUT/bench_gpu.txt" ] && grep -E "^(field|msm|ntt|h) " "$OUT/bench_gpu.txt" | sed 's/  */ /g' || true
for f in "$OUT"/prove_*_*.txt; do
  [ -f "$f" ] || continue
  echo "$(basename "$f" .txt): $(awk '/^  [a-z]/ { printf "%s=%s ", $1 ($2 ~ /^[0-9.]+$/ ? "" : $2), $(NF-1) }' "$f")"
done
exit $status
