#!/usr/bin/env bash
# cuzk circuit porep-shape (src/testcircuits/porep_shape.c): a circuit in the
# PoRep partition's proportions and the witnesses of several partitions.
# snarkjs checks each witness against the circuit (wtns check) and
# verifies each partition's proof from a .params key through the exported
# vk; the reported proportions are the PoRep's; the circuit does not
# depend on the seed, the witnesses do; bad options exit 2 with a message.
# Usage: test_porep_shape.sh CUZK NODE
set -u
cuzk=$1 node=$2
. "$(dirname "$0")/snarkjs_lib.sh"

expect 0 "" circuit porep-shape "$tmp/c" --constraints 2^14 --partitions 3 --seed 5 -q
cp "$tmp/out" "$tmp/stats"
grep -q "^constraints: 16384 (327 public inputs, 16384 aux variables), 3 partitions" "$tmp/stats" || fail "$(cat "$tmp/stats")"
# the PoRep's proportions: A 2.375, B 1.000, C 2.170 nonzeros a constraint; 99.7 % / 25.4 % of aux in A / B; >= 99 % bits
awk '/^nonzeros/ { a = $5 + 0; b = $7 + 0; c = $9 + 0; ok = a > 2.30 && a < 2.45 && b == 1 && c > 2.15 && c < 2.19 }
     /^aux variables in A/ { pa = $5 + 0; pb = $8 + 0; ok2 = pa >= 99.5 && pb > 25.0 && pb < 25.8 }
     /^aux values in/ { ok3 = $5 + 0 >= 99.0 }
     END { exit !(ok && ok2 && ok3) }' "$tmp/stats" || fail "proportions: $(cat "$tmp/stats")"
for p in 0 1 2; do [ -s "$tmp/c/partition_$p.wtns" ] || fail "no partition_$p.wtns"; done
cmp -s "$tmp/c/partition_0.wtns" "$tmp/c/partition_1.wtns" && fail "partitions 0 and 1 have one witness"
# the circuit is the seed's no more than the witness is the structure's
expect 0 "" circuit porep-shape "$tmp/d" --constraints 2^14 --partitions 1 --seed 6 -q
cmp -s "$tmp/c/circuit.r1cs" "$tmp/d/circuit.r1cs" || fail "the seed changed the circuit"
cmp -s "$tmp/c/partition_0.wtns" "$tmp/d/partition_0.wtns" && fail "another seed, the same witness"
expect 0 "" circuit porep-shape "$tmp/e" --constraints 2^14 --partitions 1 --seed 5 -q
cmp -s "$tmp/c/partition_0.wtns" "$tmp/e/partition_0.wtns" || fail "the same seed, another witness"

# snarkjs: every witness satisfies the circuit; every partition's proof verifies
expect 0 "" setup "$tmp/c/circuit.r1cs" "$tmp/c/k.params" --format params -q
expect 0 "" zkey export-vk "$tmp/c/k.params" "$tmp/c/vk.json" -q
for p in 0 1 2; do
  sj "WITNESS IS CORRECT" wtns check "$tmp/c/circuit.r1cs" "$tmp/c/partition_$p.wtns"
  expect 0 "" prove "$tmp/c/k.params" "$tmp/c/partition_$p.wtns" "$tmp/c/proof$p.json" "$tmp/c/public$p.json" \
    --r1cs "$tmp/c/circuit.r1cs" -q
  sj "OK" groth16 verify "$tmp/c/vk.json" "$tmp/c/public$p.json" "$tmp/c/proof$p.json"
done

# the native form (circuit.porep): the same witnesses; keys set up from it
# prove with either form of the circuit, and the proofs verify
expect 0 "native form" circuit porep-shape "$tmp/n" --constraints 2^14 --partitions 2 --seed 5 --format native \
  --witnesses -q
[ -f "$tmp/n/circuit.porep" ] && [ ! -e "$tmp/n/circuit.r1cs" ] || fail "native: $(ls "$tmp/n")"
for p in 0 1; do
  cmp -s "$tmp/c/partition_$p.wtns" "$tmp/n/partition_$p.wtns" || fail "native: partition $p's witness differs"
done
expect 0 "" setup "$tmp/n/circuit.porep" "$tmp/n/k.params" --format params -q
expect 0 "" zkey export-vk "$tmp/n/k.params" "$tmp/n/vk.json" -q
for circ in "$tmp/n/circuit.porep" "$tmp/c/circuit.r1cs"; do
  expect 0 "" prove "$tmp/n/k.params" "$tmp/n/partition_1.wtns" "$tmp/n/proof.json" "$tmp/n/public.json" \
    --r1cs "$circ" -q
  sj "OK" groth16 verify "$tmp/n/vk.json" "$tmp/n/public.json" "$tmp/n/proof.json"
done
expect 0 "" prove "$tmp/c/k.params" "$tmp/c/partition_0.wtns" "$tmp/n/proof.json" "$tmp/n/public.json" \
  --r1cs "$tmp/n/circuit.porep" -q
sj "OK" groth16 verify "$tmp/c/vk.json" "$tmp/n/public.json" "$tmp/n/proof.json"
# a .zkey from the native form: its section 4 is the .r1cs's (points differ: fresh randomness)
expect 0 "" setup "$tmp/n/circuit.porep" "$tmp/n/k.zkey" -q
expect 0 "" setup "$tmp/c/circuit.r1cs" "$tmp/c/k.zkey" -q
section4() { "$node" -e '
  const b = require("fs").readFileSync(process.argv[1]); let o = 12;
  for (let i = 0; i < b.readUInt32LE(8); i++) { const id = b.readUInt32LE(o), n = Number(b.readBigUInt64LE(o + 4));
    if (id === 4) { process.stdout.write(require("crypto").createHash("sha256").update(b.subarray(o + 12, o + 12 + n)).digest("hex")); }
    o += 12 + n; }' "$1"; }
[ "$(section4 "$tmp/n/k.zkey")" = "$(section4 "$tmp/c/k.zkey")" ] || fail "native and .r1cs: section 4 differs"
expect 0 "" zkey export-vk "$tmp/n/k.zkey" "$tmp/n/vkz.json" -q
expect 0 "" prove "$tmp/n/k.zkey" "$tmp/n/partition_0.wtns" "$tmp/n/proof.json" "$tmp/n/public.json" -q
sj "OK" groth16 verify "$tmp/n/vkz.json" "$tmp/n/public.json" "$tmp/n/proof.json"
# without --witnesses only the description; at the default size (the PoRep's) at once
expect 0 "made where they are proved" circuit porep-shape "$tmp/f" -q
[ "$(ls "$tmp/f")" = "circuit.porep" ] || fail "default: $(ls "$tmp/f")"
printf 'cuzk circuit porep-shape\nversion 1\nconstraints 130278869\npartitions 10\nseed 1\n' | cmp -s - "$tmp/f/circuit.porep" ||
  fail "default description: $(cat "$tmp/f/circuit.porep")"
grep -q "^constraints: 130278869 (327 public inputs, 130278869 aux variables), 10 partitions" "$tmp/out" || fail "$(cat "$tmp/out")"
# the PoRep partition's nonzeros: A 309.4 M, B 130.3 M, C 282.7 M (within 0.2 %)
awk '/^nonzeros/ { gsub(/[(),]/, ""); a = $11 / 309.4e6; b = $13 / 130.3e6; c = $15 / 282.7e6
       ok = a > 0.998 && a < 1.002 && b > 0.998 && b < 1.002 && c > 0.998 && c < 1.002 }
     END { exit !ok }' "$tmp/out" || fail "full-size nonzeros: $(cat "$tmp/out")"

# the CI-size PoRep job: 10 partitions of 2^14, each witness made from the native circuit
# (prove --partition), each proof verified by snarkjs; a partition's public inputs are its .wtns's
expect 0 "" circuit porep-shape "$tmp/j" --constraints 2^14 --partitions 10 --seed 5 --format native -q
expect 0 "" setup "$tmp/j/circuit.porep" "$tmp/j/k.params" --format params -q
expect 0 "" zkey export-vk "$tmp/j/k.params" "$tmp/j/vk.json" -q
for p in 0 1 2 3 4 5 6 7 8 9; do
  expect 0 "" prove "$tmp/j/k.params" "$tmp/j/proof$p.json" "$tmp/j/public$p.json" --r1cs "$tmp/j/circuit.porep" \
    --partition $p -q
  sj "OK" groth16 verify "$tmp/j/vk.json" "$tmp/j/public$p.json" "$tmp/j/proof$p.json"
done
for p in 0 1 2; do cmp -s "$tmp/j/public$p.json" "$tmp/c/public$p.json" || fail "partition $p: other public inputs"; done
# the same job as one: prove --partitions 10 (the engine's job of partitions): the arrays hold
# the proofs above's public inputs, each proof verified; bellperson's form is 1,920 bytes
expect 0 "10 partitions proved" prove "$tmp/j/k.params" "$tmp/j/proofs.json" "$tmp/j/publics.json" \
  --r1cs "$tmp/j/circuit.porep" --partitions 10 --device cpu
[ "$(jq length "$tmp/j/proofs.json")" = 10 ] || fail "prove --partitions 10: $(head -c 300 "$tmp/j/proofs.json")"
for p in 0 1 2 3 4 5 6 7 8 9; do
  [ "$(jq -c ".[$p]" "$tmp/j/publics.json")" = "$(jq -c . "$tmp/j/public$p.json")" ] || fail "job: partition $p's publics"
  jq ".[$p]" "$tmp/j/proofs.json" >"$tmp/j/jp$p.json"
  sj "OK" groth16 verify "$tmp/j/vk.json" "$tmp/j/public$p.json" "$tmp/j/jp$p.json"
done
expect 0 "" prove "$tmp/j/k.params" "$tmp/j/proofs.bin" "$tmp/j/publics2.json" --r1cs "$tmp/j/circuit.porep" \
  --partitions 10 --proof-format bellperson --device cpu -q
[ "$(stat -c %s "$tmp/j/proofs.bin")" = 1920 ] || fail "prove --partitions 10 --proof-format bellperson: not 1,920 bytes"
expect 2 "partition 10: " prove "$tmp/j/k.params" "$tmp/x.json" "$tmp/y.json" --r1cs "$tmp/j/circuit.porep" \
  --partitions 2 --partition 9 --device cpu
expect 2 "not --gpu" prove "$tmp/j/k.params" "$tmp/x.json" "$tmp/y.json" --r1cs "$tmp/j/circuit.porep" \
  --partitions 2 --no-verify
expect 2 "takes 3 files" prove "$tmp/j/k.params" "$tmp/x.json" --r1cs "$tmp/j/circuit.porep" --partitions 2
expect 2 "--partitions expects" prove "$tmp/j/k.params" "$tmp/x.json" "$tmp/y.json" --r1cs "$tmp/j/circuit.porep" \
  --partitions 0
[ ! -e "$tmp/x.json" ] && [ ! -e "$tmp/y.json" ] || fail "a refused job left a file"
expect 2 "the circuit has 10" prove "$tmp/j/k.params" "$tmp/x.json" "$tmp/y.json" --r1cs "$tmp/j/circuit.porep" \
  --partition 10
expect 2 "makes no witnesses" prove "$tmp/c/k.params" "$tmp/x.json" "$tmp/y.json" --r1cs "$tmp/c/circuit.r1cs" \
  --partition 0
expect 2 "give it with --r1cs" prove "$tmp/j/k.params" "$tmp/x.json" "$tmp/y.json" --partition 0
expect 2 "takes 3 files" prove "$tmp/j/k.params" "$tmp/j/partition_0.wtns" "$tmp/x.json" "$tmp/y.json" \
  --r1cs "$tmp/j/circuit.porep" --partition 0

# the job through the engine: cuzk bench porep, witnesses made live and beforehand, key reused
expect 0 "" bench porep --constraints 2^12 --partitions 3 --proofs 2 --device cpu --cache "$tmp/b" --json -q
grep -q '"partitions": 3, "proofs": 2, "device": "cpu", "witness": "live"' "$tmp/out" || fail "bench porep: $(cat "$tmp/out")"
grep -q '"setup_made": true' "$tmp/out" || fail "bench porep: no key made: $(cat "$tmp/out")"
expect 0 "witnesses made before the timing" bench porep --constraints 2^12 --partitions 2 --device cpu --cache "$tmp/b" \
  --witness pregenerated -q
grep -q "circuit and key: reused" "$tmp/out" || fail "bench porep: the cached key was not reused: $(cat "$tmp/out")"
expect 0 "  bound: " bench porep --constraints 2^12 --partitions 3 --device cpu \
  --cache "$tmp/b" --explain --timeline "$tmp/t.html" -q
grep -q "<svg" "$tmp/t.html" && [ "$(grep -c "<rect" "$tmp/t.html")" = 9 ] || fail "timeline: $(head -c 300 "$tmp/t.html")"
expect 2 "--timeline" bench porep --constraints 2^12 --partitions 1 --device cpu --timeline "$tmp"
expect 2 "live or pregenerated" bench porep --witness some
expect 2 "gpu or cpu" bench porep --device tpu
expect 2 "at least 1024" bench porep --constraints 1000
expect 2 "unknown argument" bench porep extra
: >"$tmp/notdir"
expect 2 "not a directory" bench porep --cache "$tmp/notdir"

# bad input
expect 2 "at least 1024" circuit porep-shape "$tmp/x" --constraints 100
expect 2 "at least 1024" circuit porep-shape "$tmp/x" --constraints 0
expect 2 "native form" circuit porep-shape "$tmp/x" --constraints 2^25 --format r1cs
expect 2 "native form" circuit porep-shape "$tmp/x" --format r1cs
expect 2 "r1cs or native" circuit porep-shape "$tmp/x" --format zkey
expect 2 "needs a value" circuit porep-shape "$tmp/x" --format
expect 2 "reads a .r1cs" setup "$tmp/n/circuit.porep" "$tmp/x.zkey" --ptau "$here/fixtures/ptau/bls12381_10.ptau"
printf 'cuzk circuit porep-shape\nversion 9\n' >"$tmp/bad.porep"
expect 2 "line 3" setup "$tmp/bad.porep" "$tmp/x.params" --format params
printf 'cuzk circuit porep-shape\nversion 1\nconstraints 20000\npartitions 1\nseed 1\n' >"$tmp/other.porep"
expect 2 "is not a key of" prove "$tmp/n/k.params" "$tmp/n/partition_0.wtns" "$tmp/x.json" "$tmp/y.json" \
  --r1cs "$tmp/other.porep"
expect 2 "1 to 1000" circuit porep-shape "$tmp/x" --partitions 0
expect 2 "partitions" circuit porep-shape "$tmp/x" --partitions 1001
expect 2 "unknown option" circuit porep-shape "$tmp/x" --curve bn128
expect 2 "needs OUT_DIR" circuit porep-shape --constraints 2^12
expect 2 "a second" circuit porep-shape "$tmp/x" "$tmp/y"
: >"$tmp/file"
expect 2 "not a directory" circuit porep-shape "$tmp/file" --constraints 2^12
expect 2 "cannot create" circuit porep-shape "$tmp/no/such/dir" --constraints 2^12
echo "porep-shape: 3 partitions of 16384 constraints in the PoRep's proportions, each witness checked and each proof verified by snarkjs; the native form's rows, witnesses and keys the .r1cs's; a 10-partition job from the native form, every proof verified by snarkjs"
