#!/usr/bin/env bash
# Filecoin's real PoRep circuit through the cuzk command, end to end at
# 2 KiB on the CPU: cuzk circuit stacked (the shape, the native form),
# cuzk porep seal (a sector sealed here: its C1 output and record), a
# .params key from cuzk setup of the native form, cuzk porep c2 (the
# 192-byte proof, each partition checked against the public inputs a
# verifier derives); snarkjs and cuzk verify accept the partition's proof
# with the key's exported vk and reject it with a public input changed; a
# tampered C1 output (a label's parent, a sibling, the seed), a cut one
# and bad arguments are refused with the field named and nothing written.
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
expect 0 "" setup "$tmp/k/circuit.stacked" "$tmp/k/key.params" --format params
mkdir -p "$tmp/j"
expect 0 "1 proofs of 192 bytes" porep c2 "$tmp/s/c1.json" "$tmp/k/key.params" "$tmp/out.proof" --device cpu --json "$tmp/j"
[ "$(stat -c %s "$tmp/out.proof")" = 192 ] || fail "out.proof is not 192 bytes"

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
echo "test_porep: OK"
