#!/usr/bin/env bash
# Filecoin's real PoRep circuit through the cuzk command, end to end at
# 2 KiB on the CPU: cuzk circuit stacked (the shape, the native form),
# cuzk porep seal (a sector sealed here: its C1 output and record), a
# .params key and its .vk from cuzk setup of the native form, cuzk porep
# c2 (the 192-byte proof, each partition checked against the public inputs
# a verifier derives and against the .vk, the record's proof filled);
# cuzk porep verify (verify_seal from the record alone) accepts it and
# rejects a changed seed, sector, comm_r, proof, a cut proof and a .vk
# that disagrees; snarkjs and cuzk verify accept the partition's proof
# with the key's exported vk and reject it with a public input changed;
# a SyntheticPoRep sector proves with the same key and verifies only as
# one, so does a sparse sector (porep seal --sparse; 32 GiB's written in
# seconds); a key of another circuit is refused before the circuit is
# recorded; a tampered C1 output (a label's parent, a sibling, the seed), a cut
# one and bad arguments are refused with the field named and nothing
# written.
# CUZK_TEST_LIGHT=1 (make asan-test) leaves out the setup and the proof
# (minutes unoptimized): a bad C1 output is refused before the key is read.
# Usage: test_porep.sh CUZK NODE
set -u
cuzk=$1 node=$2
. "$(dirname "$0")/snarkjs_lib.sh"

# the shape: rust-fil-proofs' base-8 test circuit (8 nodes, 2 layers, 1 challenge): 22 inputs, 1,199,620
# constraints and bellperson's 22 input constraints
expect 0 '"inputs":22,"constraints":1199642,' circuit stacked --nodes 8 --layers 2 --challenges 1 --tree 8 --json
expect 0 '"inputs":40,' circuit stacked --sector-size 2KiB --json -o "$tmp/k"
grep -qx "proof StackedDrg2KiBV1_1" "$tmp/k/circuit.stacked" || fail "native form: $(cat "$tmp/k/circuit.stacked")"
expect 2 "--sector-size '3KiB'" circuit stacked --sector-size 3KiB --json
expect 2 "none given" circuit stacked --sector-size 2KiB

# seal, set up, prove
expect 0 "sealed a 2KiB sector" porep seal --sector-size 2KiB --seed 3 "$tmp/s"
[ -s "$tmp/s/c1.json" ] && [ -s "$tmp/s/record.json" ] || fail "seal wrote no c1.json or record.json"
grep -q '"registered_proof":"StackedDrg2KiBV1_1"' "$tmp/s/c1.json" || fail "c1.json: $(head -c 200 "$tmp/s/c1.json")"
grep -q '"api_version":"V1_1_0"' "$tmp/s/record.json" || fail "record.json: $(cat "$tmp/s/record.json")"
light=${CUZK_TEST_LIGHT:-0}
key=$tmp/k/key.params
if [ "$light" != 0 ]; then
  echo "test_porep: the setup and the proof skipped (CUZK_TEST_LIGHT)"
  key=$tmp/k/circuit.stacked # never read: the C1 output is refused first
else
expect 0 "its verifying key $tmp/k/key.vk" setup "$tmp/k/circuit.stacked" "$tmp/k/key.params" --format params
# bellperson's .vk: the key's 864 bytes, IC's count and its 40 points (ONE and 39 public inputs)
[ "$(stat -c %s "$tmp/k/key.vk")" = $((864 + 4 + 40 * 96)) ] || fail "key.vk: $(stat -c %s "$tmp/k/key.vk") bytes"
cmp -s -n $((864 + 4 + 40 * 96)) "$tmp/k/key.vk" "$tmp/k/key.params" || fail "key.vk is not the key's first bytes"
mkdir -p "$tmp/j"
expect 0 "1 proofs of 192 bytes" porep c2 "$tmp/s/c1.json" "$tmp/k/key.params" "$tmp/out.proof" --device cpu \
  --json "$tmp/j" --vk "$tmp/k/key.vk" --record "$tmp/s/record.json"
grep -q "the proofs verify against" "$tmp/err" || fail "porep c2 --vk: $(cat "$tmp/err")"
[ "$(stat -c %s "$tmp/out.proof")" = 192 ] || fail "out.proof is not 192 bytes"
python3 - "$tmp/s/record.json" "$tmp/out.proof" <<'PY' || fail "the record's proof is not out.proof"
import json, sys
assert bytes(json.load(open(sys.argv[1]))["proof"]) == open(sys.argv[2], "rb").read()
PY

# verify_seal from the record alone: OK with the .vk or the .params; a changed value or proof: INVALID
expect 0 "OK" porep verify "$tmp/k/key.vk" "$tmp/s/record.json"
expect 0 "OK" porep verify "$tmp/k/key.params" "$tmp/s/record.json"
record() { # record OUT PYTHON: the record changed by PYTHON (on r)
  python3 - "$tmp/s/record.json" "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(json.dumps(r))
PY
}
record "$tmp/r_seed.json" 'r["seed"][0] ^= 1'
expect 1 "INVALID" porep verify "$tmp/k/key.vk" "$tmp/r_seed.json"
record "$tmp/r_sector.json" 'r["sector_id"] += 1'
expect 1 "does not verify" porep verify "$tmp/k/key.vk" "$tmp/r_sector.json"
record "$tmp/r_commr.json" 'r["comm_r"][5] ^= 1'
expect 1 "INVALID" porep verify "$tmp/k/key.vk" "$tmp/r_commr.json"
record "$tmp/r_big.json" 'r["comm_d"][31] = 255'
expect 1 "comm_d is not a field element" porep verify "$tmp/k/key.vk" "$tmp/r_big.json"
record "$tmp/r_proof.json" 'r["proof"][150] ^= 1'
expect 1 "INVALID" porep verify "$tmp/k/key.vk" "$tmp/r_proof.json"
record "$tmp/r_cut.json" 'r["proof"] = r["proof"][:191]'
expect 1 "a proof of 191 bytes" porep verify "$tmp/k/key.vk" "$tmp/r_cut.json"
record "$tmp/r_size.json" 'r["porep_config"]["sector_size"] = 4096'
expect 2 "no registered seal proof of 4096-byte sectors" porep verify "$tmp/k/key.vk" "$tmp/r_size.json"
record "$tmp/r_ni.json" 'r["porep_config"]["api_features"] = ["NonInteractivePoRep"]; r["porep_config"]["partitions"] = 13'
expect 2 "aggregated" porep verify "$tmp/k/key.vk" "$tmp/r_ni.json"
head -c 100 "$tmp/s/record.json" >"$tmp/r_trunc.json"
expect 2 "r_trunc.json: byte" porep verify "$tmp/k/key.vk" "$tmp/r_trunc.json"
# a .vk of another circuit (fewer inputs), one with bytes after it, and one whose points disagree with the key
python3 - "$tmp/k/key.vk" "$tmp" <<'PY'
import sys
v = open(sys.argv[1], "rb").read()
d = sys.argv[2]
open(d + "/few.vk", "wb").write(v[:864] + (22).to_bytes(4, "big") + v[868:868 + 22 * 96])
open(d + "/long.vk", "wb").write(v + b"\0")
open(d + "/swap.vk", "wb").write(v[576:672] + v[96:576] + v[0:96] + v[672:])  # alpha and delta_g1 swapped
PY
expect 2 "has 21 public inputs; StackedDrg2KiBV1_1's circuit has 39" porep verify "$tmp/few.vk" "$tmp/s/record.json"
expect 2 "1 bytes after the last vector (IC)" porep verify "$tmp/long.vk" "$tmp/s/record.json"
expect 1 "INVALID" porep verify "$tmp/swap.vk" "$tmp/s/record.json"
expect 2 "porep verify takes 2 files" porep verify "$tmp/k/key.vk"
# c2 against a .vk that disagrees with the key: refused, nothing written
rm -f "$tmp/bad.proof"
expect 2 "disagree; nothing was written" porep c2 "$tmp/s/c1.json" "$tmp/k/key.params" "$tmp/bad.proof" --device cpu \
  --vk "$tmp/swap.vk"
[ ! -e "$tmp/bad.proof" ] || fail "a proof was written though it fails the .vk"
expect 2 "is it the verifying key of StackedDrg2KiBV1_1" porep c2 "$tmp/s/c1.json" "$tmp/k/key.params" \
  "$tmp/bad.proof" --device cpu --vk "$tmp/few.vk"

# SyntheticPoRep: the same circuit and key, the challenges drawn from the synthetic ones
expect 0 "StackedDrg2KiBV1_1_Feat_SyntheticPoRep" porep seal --proof StackedDrg2KiBV1_1_Feat_SyntheticPoRep --seed 4 \
  "$tmp/syn"
grep -q '"api_features":\["SyntheticPoRep"\]' "$tmp/syn/record.json" || fail "record.json: $(cat "$tmp/syn/record.json")"
expect 2 "is not of the sector of" porep c2 "$tmp/s/c1.json" "$tmp/k/key.params" "$tmp/bad.proof" --device cpu \
  --record "$tmp/syn/record.json"
expect 0 "1 proofs of 192 bytes" porep c2 "$tmp/syn/c1.json" "$tmp/k/key.params" "$tmp/syn.proof" --device cpu \
  --vk "$tmp/k/key.vk" --record "$tmp/syn/record.json"
expect 0 "OK" porep verify "$tmp/k/key.vk" "$tmp/syn/record.json"
python3 - "$tmp/syn/record.json" "$tmp/r_inter.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
r["porep_config"]["api_features"] = []
open(sys.argv[2], "w").write(json.dumps(r))
PY
expect 1 "INVALID" porep verify "$tmp/k/key.vk" "$tmp/r_inter.json"

# a sparse sector (zero data, made-up nodes off the challenged paths): proves and verifies as a sealed one
expect 0 "sealed a sparse 2KiB sector" porep seal --sector-size 2KiB --sparse --seed 5 "$tmp/sp"
expect 0 "1 proofs of 192 bytes" porep c2 "$tmp/sp/c1.json" "$tmp/k/key.params" "$tmp/sp.proof" --device cpu \
  --vk "$tmp/k/key.vk" --record "$tmp/sp/record.json"
expect 0 "OK" porep verify "$tmp/k/key.vk" "$tmp/sp/record.json"
# a key of another circuit: refused before the circuit is recorded
fixtures=$(cd "$(dirname "$0")/fixtures/bls12381" && pwd)
expect 0 "" setup "$fixtures/mul1k.r1cs" "$tmp/mul.params" --format params
expect 2 "is it the key of StackedDrg2KiBV1_1" porep c2 "$tmp/sp/c1.json" "$tmp/mul.params" "$tmp/bad.proof" --device cpu
grep -q "recording its circuit" "$tmp/err" && fail "the circuit was recorded before the key was refused"

# snarkjs and cuzk verify the partition's proof with the key's vk; a changed public input fails
expect 0 "" zkey export-vk "$tmp/k/key.params" "$tmp/vk.json"
sj "OK" groth16 verify "$tmp/vk.json" "$tmp/j/public_0.json" "$tmp/j/proof_0.json"
expect 0 "OK" verify "$tmp/vk.json" "$tmp/j/public_0.json" "$tmp/j/proof_0.json"
sed '5s/"\([0-9]*\)"/"1\1"/' "$tmp/j/public_0.json" >"$tmp/j/public_bad.json"
cmp -s "$tmp/j/public_0.json" "$tmp/j/public_bad.json" && fail "the public input was not changed"
expect 1 "INVALID" verify "$tmp/vk.json" "$tmp/j/public_bad.json" "$tmp/j/proof_0.json"
fi

# a bad C1 output: refused, naming what is wrong, and nothing written
bad() { # bad PATTERN FILE
  rm -f "$tmp/bad.proof"
  expect 2 "$1" porep c2 "$2" "$key" "$tmp/bad.proof" --device cpu
  [ ! -e "$tmp/bad.proof" ] || fail "a proof was written for a bad C1 output ($1)"
}
# the last digit of the first number after a key, one more or less (still a byte)
flip() { # flip KEY_PATTERN OUT
  python3 - "$tmp/s/c1.json" "$1" "$2" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
m = re.search(sys.argv[2] + r'\[*(\d+)', t)
i = m.end(1) - 1
open(sys.argv[3], 'w').write(t[:i] + chr(ord(t[i]) ^ 1) + t[i + 1:])
PY
}
flip '"labeling_proofs":\[\{"parents":' "$tmp/c1_label.json"
bad "labeling_proofs\[0\].parents\[0\]" "$tmp/c1_label.json"
flip '"comm_d_proofs":\{"data":\{"Single":\{"root":' "$tmp/c1_root.json"
bad "comm_d_proofs" "$tmp/c1_root.json"
flip '"seed":' "$tmp/c1_seed.json"
bad "the seed challenges node" "$tmp/c1_seed.json"
head -c 5000 "$tmp/s/c1.json" >"$tmp/c1_cut.json"
bad "byte" "$tmp/c1_cut.json"
echo '{"registered_proof":"StackedDrg3KiBV1"}' >"$tmp/c1_name.json"
bad "not a registered seal proof" "$tmp/c1_name.json"
expect 2 "3 files" porep c2 "$tmp/s/c1.json" "$key"
expect 2 "unknown subcommand" porep c3
expect 0 "sealed a sparse 32GiB sector" porep seal --sector-size 32GiB --sparse "$tmp/sp32"
[ "$(stat -c %s "$tmp/sp32/c1.json")" -gt 30000000 ] || fail "a sparse 32 GiB C1 output of $(stat -c %s "$tmp/sp32/c1.json") bytes"
expect 2 "interactive proofs only" porep seal --proof StackedDrg2KiBV1_1_Feat_SyntheticPoRep --sparse "$tmp/sp_syn"
expect 2 "--sparse makes a C1 output of any size" porep seal --sector-size 32GiB "$tmp/sp_no"
echo "test_porep: OK"
