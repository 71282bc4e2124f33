#!/usr/bin/env bash
# supraseal-c2's C ABI (include/cuzk_supraseal.h): tests/test_supraseal.c
# proves, through the ABI alone, the BLS12-381 fixtures and a generated
# circuit with several witnesses, 32 circuits a call, from .params keys
# `cuzk setup --format params` writes; its proofs verify with the pairing
# there and here with snarkjs through the key's exported vk. The header
# also compiles with Curio's signature (-DCUZK_SUPRASEAL_CURIO).
# Usage: test_supraseal.sh CUZK TEST_SUPRASEAL NODE FIXTURES CC
set -u
cuzk=$1 prog=$2 node=$3 fx=$4 cc=$5
here=$(cd "$(dirname "$0")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
run() { "$@" >"$tmp/out" 2>&1 || fail "$*: $(tail -20 "$tmp/out")"; }
snarkjs=$here/snarkjs/node_modules/snarkjs/cli.js
have_snarkjs=0
if [ -x "$node" ] && [ -f "$snarkjs" ]; then have_snarkjs=1
elif [ -n "${CI:-}" ]; then fail "snarkjs is missing (cd tests/snarkjs && npm ci)"
else echo "note: snarkjs missing: proofs checked with cuzk's pairing only"; fi

# Curio's signature of generate_groth16_proofs_c compiles against the header
printf '#include "cuzk_supraseal.h"\nint main(void){ RustError e = generate_groth16_proofs_c(0, 0, 0, 0, 0, 0, 0, -1); return e.code; }\n' >"$tmp/curio.c"
"$cc" -std=c11 -Wall -Werror -DCUZK_SUPRASEAL_CURIO -I"$here/../include" -fsyntax-only "$tmp/curio.c" ||
  fail "the header with -DCUZK_SUPRASEAL_CURIO"

lg=${CUZK_SUPRASEAL_LOG:-12} # the generated circuit: 2^lg constraints
run "$cuzk" circuit sha256-chain "$tmp/chain.r1cs" "$tmp/w1.wtns" --constraints 2^$lg --curve bls12381 --public 4 --seed 1
run "$cuzk" circuit sha256-chain "$tmp/chain2.r1cs" "$tmp/w2.wtns" --constraints 2^$lg --curve bls12381 --public 4 --seed 2
run "$cuzk" circuit sha256-chain "$tmp/chain3.r1cs" "$tmp/w3.wtns" --constraints 2^$lg --curve bls12381 --public 4 --seed 3
cmp -s "$tmp/chain.r1cs" "$tmp/chain2.r1cs" || fail "sha256-chain: the seed changed the circuit, not only the witness"
seed=${CUZK_TEST_SEED:-$(date +%s)}
echo "seed $seed (CUZK_TEST_SEED repeats it)"
for c in tiny mul1k poseidon3 chain; do
  if [ "$c" = chain ]; then r=$tmp/chain.r1cs ws="$tmp/w1.wtns $tmp/w2.wtns $tmp/w3.wtns"
  else r=$fx/bls12381/$c.r1cs ws=$fx/bls12381/$c.wtns; fi
  run "$cuzk" setup "$r" "$tmp/$c.params" --format params --quiet
  run "$cuzk" zkey export-vk "$tmp/$c.params" "$tmp/$c.vk.json"
  mkdir -p "$tmp/$c"
  # shellcheck disable=SC2086
  "$prog" "$tmp/$c.params" "$r" "$tmp/$c.vk.json" "$tmp/$c" "$seed" $ws >"$tmp/out" 2>&1 ||
    fail "test_supraseal $c (seed $seed): $(tail -30 "$tmp/out")"
  cat "$tmp/out"
  if [ "$have_snarkjs" = 1 ]; then
    for i in 0 1 2 3; do
      "$node" "$snarkjs" groth16 verify "$tmp/$c.vk.json" "$tmp/$c/proof$i.public.json" "$tmp/$c/proof$i.proof.json" \
        >"$tmp/sj" 2>&1 || fail "snarkjs rejects $c proof $i (seed $seed): $(cat "$tmp/sj")"
      grep -q "OK" "$tmp/sj" || fail "snarkjs $c proof $i: $(cat "$tmp/sj")"
    done
  fi
done
if [ "$have_snarkjs" = 1 ]; then how="pairing and snarkjs"; else how=pairing; fi
echo "supraseal ABI: proofs of 4 circuits verified ($how)"
