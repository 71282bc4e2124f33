#!/usr/bin/env bash
# The library's layers (docs/architecture.md): a file of src/ or cuda/
# includes headers of its own folder, of include/ (the public API), and of
# folders below its own in the table here, never of one above or beside
# it; and no two files of one folder include each other in a circle. A
# new include that breaks either fails here, named by file and line, as
# does a folder missing from the table. The test kits (*_test.cu) prove
# the layers below them and may include any of them. The programs in
# tools/ and bench/ take the internals from src/programs.h alone.
# usage: check_layers.sh   (from anywhere; reads the source tree)
set -u
cd "$(dirname "$0")/.." || exit 2

# folder rank: a folder may include folders of a lower rank. Ranks that
# several folders share are independent of each other.
layers='
include        0   the public API: cuzk.h, cuzk_supraseal.h, cuzk_testcircuits.h
src/util       1   errors, files, clocks, parsing: no arithmetic
src/field      2   the prime fields and their towers
src/ec         3   curves: points, encodings
src/msm        4   multi-scalar multiplication (CPU)
src/ntt        4   number-theoretic transforms (CPU)
src/pairing    4   the pairing
src/core       5   the arithmetic core and the data it reads: matrices, circuit rows, phase slots
cuda           6   the GPU API (gpu.h): types and extern "C" entry points
src/formats    6   file formats: .zkey, .params, .wtns, .r1cs, ptau, JSON
src/cs         6   the constraint-system builder (witness, count, record) and the gadgets of bellpepper
cuda/util      7   CUDA error handling
src/filecoin   7   Filecoin: Poseidon, the PoRep circuit and its gadgets, C1 outputs, test sealing
cuda/field     8   GPU fields
src/circuit    8   where circuits come from: .r1cs files, the PoRep circuit, registered generators
cuda/ec        9   GPU curves
cuda/msm       10  GPU MSM
cuda/ntt       10  GPU NTT
cuda/device    11  a GPU context: streams, the compute lock, copies, first-use reservations
cuda/groth16   12  the GPU part of a proof and of a setup
src/gpu        13  which GPU, and what each GPU holds (keys, memory plan)
src/groth16    14  a proof (prepare, compute, finalize), keys, setups, verification
src/engine     15  the scheduler: jobs, workers, key cache
src/abi        16  supraseal-c2 C ABI over the engine
src/server     16  the HTTP daemon, its journal and the PostgreSQL queue
src            17  the library entry (lib.c); programs.h, what tools/ and bench/ use of the internals
src/testcircuits 18 the test circuits: their own library, above libcuzk
'
declare -A rank
while read -r dir r _; do
  [ -n "$dir" ] && rank[$dir]=$r
done <<<"$layers"

bad=0 seen=0
fail() { echo "FAIL: $*"; bad=$((bad + 1)); }
edges=$(mktemp)
trap 'rm -f "$edges"' EXIT

while IFS= read -r file; do
  dir=$(dirname "$file")
  mine=${rank[$dir]:-}
  if [ -z "$mine" ]; then
    fail "$file: its folder $dir is not in tests/check_layers.sh's table of layers"
    continue
  fi
  case "$file" in *_test.cu) test_kit=1 ;; *) test_kit=0 ;; esac
  while IFS=: read -r line inc; do
    seen=$((seen + 1))
    target=$(realpath -m --relative-to=. "$dir/$inc")
    if [ ! -e "$target" ]; then
      fail "$file:$line: includes \"$inc\", which is not $target"
      continue
    fi
    tdir=$(dirname "$target")
    if [ "$tdir" = "$dir" ]; then
      echo "$file $target" >>"$edges"
      continue
    fi
    theirs=${rank[$tdir]:-}
    if [ -z "$theirs" ]; then
      fail "$file:$line: includes $target, whose folder $tdir is not in the table of layers"
    elif [ "$test_kit" = 0 ] && [ "$theirs" -ge "$mine" ]; then
      fail "$file:$line: $dir (layer $mine) includes $target of $tdir (layer $theirs): a layer includes only the ones below it"
    fi
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" |
    sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1:\2/')
done < <(find include src cuda -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.cpp' \) | sort)

# circles within a folder: tsort names the files of a loop
for dir in $(awk '{ print $1 }' "$edges" | xargs -r -n1 dirname | sort -u); do
  loop=$(grep "^$dir/[^/ ]* " "$edges" | tsort 2>&1 >/dev/null | grep -v 'input contains a loop' | sed 's/^tsort: //' | tr '\n' ' ')
  [ -z "$loop" ] || fail "$dir: files that include each other in a circle: $loop"
done

# the programs (tools/, bench/) include the public headers and of the
# internals src/programs.h alone; the benches of one layer measure it and
# include it directly, as its tests do
programs=0
while IFS= read -r file; do
  case "$file" in bench/bench_arith*|bench/bench_msm.c|bench/bench_gpu.c) continue ;; esac
  programs=$((programs + 1))
  while IFS=: read -r line inc; do
    target=$(realpath -m --relative-to=. "$(dirname "$file")/$inc")
    case "$target" in
      src/programs.h|include/*|tools/*|bench/*|build*) ;;
      *) fail "$file:$line: includes $target: a program takes the library's internals from src/programs.h alone" ;;
    esac
  done < <(grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]+"' "$file" |
    sed -E 's/^([0-9]+):[[:space:]]*#[[:space:]]*include[[:space:]]+"([^"]+)".*/\1:\2/')
done < <(find tools bench -type f \( -name '*.c' -o -name '*.h' \) | sort)

[ "$seen" -gt 100 ] || { echo "FAIL: only $seen includes found: is this the source tree?"; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "layers: $seen includes in ${#rank[@]} folders, each of its own layer or one below, no circles; $programs programs take the internals from src/programs.h alone"
