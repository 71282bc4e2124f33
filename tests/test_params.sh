#!/usr/bin/env bash
# bellperson .params files (src/formats/params.c) against @noble/curves:
# a file of noble's points is read, every point passes `cuzk info --check`
# and `cuzk zkey export-vk` writes noble's points; one planted fault (a point off the curve, outside the
# subgroup, at infinity, a vector of the other group's points) is named
# with its vector and index; truncations
# at every vector boundary and inside a point, a count past the end and
# trailing bytes are refused with exit 2 and a message; cuzk setup
# --format params writes keys that check, with the zkey's alpha, beta,
# gamma and delta; a key of bellperson's conventions set up by noble
# (tests/vectors/bellperson_key.mjs) proves, and snarkjs accepts.
# Usage: test_params.sh CUZK NODE VECTORS_DIR
set -u
cuzk=$1
node=$2
vec=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
if [ ! -x "$node" ] || [ ! -d "$vec/node_modules/@noble/curves" ]; then
  [ -z "${CI:-}" ] || fail "node or @noble/curves is missing (cd tests/vectors && npm ci)"
  echo "SKIP: node or @noble/curves missing"; exit 77
fi
command -v jq >/dev/null || { [ -z "${CI:-}" ] || fail "jq is missing"; echo "SKIP: jq missing"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
make() { "$node" "$vec/make_params.mjs" "$@" || fail "make_params.mjs $*"; }
expect() { # expect CODE PATTERN ARGS...: cuzk ARGS exits CODE, stderr matching PATTERN
  local want=$1 pat=$2; shift 2
  "$cuzk" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  [ "$got" = "$want" ] || fail "cuzk $* exited $got, want $want: $(cat "$tmp/err")"
  [ -z "$pat" ] || grep -q -- "$pat" "$tmp/err" || fail "cuzk $*: no '$pat' in: $(cat "$tmp/err")"
}

make "$tmp/good.params"
expect 0 "" info "$tmp/good.params" --check --threads 2
grep -q "check: .*not at infinity" "$tmp/out" || fail "no check line: $(cat "$tmp/out")"
grep -q "B_G2 *3 points" "$tmp/out" || fail "counts: $(cat "$tmp/out")"
for t in 1 2 3; do expect 0 "" info "$tmp/good.params" --check --threads "$t"; done
# its verification key as snarkjs writes one: noble's points
expect 0 "" zkey export-vk "$tmp/good.params" "$tmp/vk.json"
for k in nPublic vk_alpha_1 vk_beta_2 vk_gamma_2 vk_delta_2 IC; do
  [ "$(jq -c ".$k" "$tmp/vk.json")" = "$(jq -c ".$k" "$tmp/good.params.vk.json")" ] ||
    fail "export-vk $k: $(jq -c ".$k" "$tmp/vk.json") against noble's $(jq -c ".$k" "$tmp/good.params.vk.json")"
done
[ "$(jq -r '.protocol + " " + .curve' "$tmp/vk.json")" = "groth16 bls12381" ] || fail "export-vk: protocol, curve"
[ "$(jq '.vk_alphabeta_12 | flatten | length' "$tmp/vk.json")" = 12 ] || fail "export-vk: vk_alphabeta_12"

for f in "off-curve H 4:the H vector: point 4 of 7: point is not on the curve" \
         "off-curve B_G2 0:the B_G2 vector: point 0 of 3: point is not on the curve" \
         "not-in-subgroup A 1:the A vector: point 1 of 6: point is not in the prime-order subgroup" \
         "infinity L 2:the L vector: point 2 of 5: the point at infinity" \
         "infinity IC 0:the IC vector: point 0 of 3: the point at infinity"; do
  args=${f%%:*} msg=${f#*:}
  # shellcheck disable=SC2086
  make "$tmp/bad.params" $args
  expect 2 "$msg" info "$tmp/bad.params" --check
  expect 0 "" info "$tmp/bad.params" # the layout alone is fine
done
# a degenerate key (a verification-key point at infinity: it would accept
# forged proofs) is refused naming the point, by info --check and export-vk
i=0
for name in alpha_g1 beta_g1 beta_g2 gamma_g2 delta_g1 delta_g2; do
  make "$tmp/deg.params" infinity vk $i
  expect 2 "$name is the point at infinity" info "$tmp/deg.params" --check
  expect 2 "$name is the point at infinity" zkey export-vk "$tmp/deg.params" "$tmp/deg.vk.json"
  [ ! -e "$tmp/deg.vk.json" ] || fail "export-vk of a degenerate key wrote its vk"
  i=$((i + 1))
done

# the layout: cut at every vector's count, inside it, inside a point; a count past the end; bytes after the end
size=$(stat -c %s "$tmp/good.params")
for cut in 0 100 863 864 866 868 900 1500 3000 $((size - 1)); do
  head -c "$cut" "$tmp/good.params" >"$tmp/cut.params"
  expect 2 "cut.params" info "$tmp/cut.params"
done
{ cat "$tmp/good.params"; printf 'x'; } >"$tmp/long.params"
expect 2 "1 bytes after the last vector" info "$tmp/long.params"
cp "$tmp/good.params" "$tmp/count.params"
printf '\377\377\377\377' | dd of="$tmp/count.params" bs=1 seek=864 conv=notrunc 2>/dev/null
expect 2 "the IC vector declares 4294967295 points" info "$tmp/count.params"
# a vector of the wrong group: B_G2's bytes are G1 points (H's), L's are halves of G2 points (B_G2's)
"$node" -e '
const fs = require("fs"); const [src, g2bad, g1bad] = process.argv.slice(1);
const f = fs.readFileSync(src); let pos = 864; const at = [];
for (let v = 0; v < 6; v++) { const n = f.readUInt32BE(pos); at.push([pos + 4, n]); pos += 4 + n * (v === 5 ? 192 : 96); }
const [h, nh] = at[1], [l, nl] = at[2], [b2, nb2] = at[5];
const a = Buffer.from(f); f.copy(a, b2, h, h + Math.min(nh * 96, nb2 * 192)); fs.writeFileSync(g2bad, a);
const b = Buffer.from(f); f.copy(b, l, b2, b2 + Math.min(nb2 * 192, nl * 96)); fs.writeFileSync(g1bad, b);
' "$tmp/good.params" "$tmp/g2bad.params" "$tmp/g1bad.params" || fail "node: the wrong-group files"
expect 2 "the B_G2 vector: point 0 of 3" info "$tmp/g2bad.params" --check
expect 2 "the L vector: point 0 of 5" info "$tmp/g1bad.params" --check
expect 2 "applies to keys" info "$vec/../fixtures/bn128/tiny.wtns" --check
expect 2 "neither a .zkey nor a bellperson .params key" zkey export-vk "$tmp/cut.params" "$tmp/x.json"
[ ! -e "$tmp/x.json" ] || fail "export-vk of a broken file left an output"
# cuzk setup --format params: a key that checks, with the zkey's verification key
fx=$vec/../fixtures
for p in "" "--ptau $fx/ptau/bls12381_10.ptau"; do
  # shellcheck disable=SC2086
  expect 0 "" setup "$fx/bls12381/poseidon3.r1cs" "$tmp/s.params" --format params $p
  expect 0 "" info "$tmp/s.params" --check
  grep -q "H  *1023 points" "$tmp/out" || fail "setup --format params $p: H: $(cat "$tmp/out")"
done
expect 0 "" setup "$fx/bls12381/poseidon3.r1cs" "$tmp/s.zkey" --ptau "$fx/ptau/bls12381_10.ptau"
expect 0 "" zkey export-vk "$tmp/s.zkey" "$tmp/s.zkey.vk.json"
expect 0 "" zkey export-vk "$tmp/s.params" "$tmp/s.params.vk.json"
# the same ptau: alpha, beta, gamma, delta are the zkey's; IC differs, a
# .params key's rows being bellperson's powers of its root (src/ntt/ntt_impl.h)
cmp -s <(jq -c 'del(.IC, .vk_alphabeta_12)' "$tmp/s.zkey.vk.json") <(jq -c 'del(.IC, .vk_alphabeta_12)' "$tmp/s.params.vk.json") ||
  fail "the same ptau: the .params and .zkey verification keys differ outside IC"
expect 2 "bellperson .params keys (--format params) are BLS12-381's" setup "$fx/bn128/poseidon3.r1cs" "$tmp/bn.params" --format params
[ ! -e "$tmp/bn.params" ] || fail "a refused setup left its output"
expect 2 "--format expects zkey" setup "$fx/bls12381/poseidon3.r1cs" "$tmp/x.params" --format bellman

# proving with .params keys: snarkjs verifies through the exported vk; the
# bellperson proof bytes decode with noble into a proof snarkjs accepts
snarkjs=$vec/../snarkjs/node_modules/snarkjs/cli.js
if [ -f "$snarkjs" ]; then
  sj() { "$node" "$snarkjs" "$@" >"$tmp/sj" 2>&1 || fail "snarkjs $*: $(cat "$tmp/sj")"; }
  expect 0 "" circuit sha256-chain "$tmp/chain.r1cs" "$tmp/chain.wtns" --constraints 2^16 --curve bls12381 --public 8
  proved=0
  for c in tiny mul1k poseidon3 chain; do
    if [ "$c" = chain ]; then r=$tmp/chain.r1cs w=$tmp/chain.wtns; else r=$fx/bls12381/$c.r1cs w=$fx/bls12381/$c.wtns; fi
    for p in "" "--ptau $fx/ptau/bls12381_10.ptau"; do
      [ "$c" = chain ] && [ -n "$p" ] && continue # 2^16: past the bundled 2^10 ptau
      # shellcheck disable=SC2086
      expect 0 "" setup "$r" "$tmp/k.params" --format params $p
      expect 0 "" zkey export-vk "$tmp/k.params" "$tmp/k.vk.json"
      expect 0 "" prove "$tmp/k.params" "$w" "$tmp/proof.json" "$tmp/public.json" --r1cs "$r" --device cpu
      sj groth16 verify "$tmp/k.vk.json" "$tmp/public.json" "$tmp/proof.json"
      expect 0 "" prove "$tmp/k.params" "$w" "$tmp/proof.bin" "$tmp/public.json" --r1cs "$r" --device cpu \
        --proof-format bellperson
      [ "$(stat -c %s "$tmp/proof.bin")" = 192 ] || fail "$c: the bellperson proof is not 192 bytes"
      "$node" "$vec/bellperson_proof.mjs" "$tmp/proof.bin" "$tmp/bp.json" || fail "$c: noble refused the proof bytes"
      sj groth16 verify "$tmp/k.vk.json" "$tmp/public.json" "$tmp/bp.json"
      # and cuzk's own verifier
      expect 0 "" verify "$tmp/k.vk.json" "$tmp/public.json" "$tmp/bp.json"
      proved=$((proved + 1))
    done
  done
else
  [ -z "${CI:-}" ] || fail "snarkjs is missing (cd tests/snarkjs && npm ci)"
  proved=0
fi
# bellperson's conventions, from an implementation that shares nothing with
# cuzk: a key set up by tests/vectors/bellperson_key.mjs (@noble/curves;
# its domain's root bellperson's, 7^((r-1)/2^32)) proves with cuzk, and
# snarkjs accepts the proofs through the script's own verification key
r=$fx/bls12381/poseidon3.r1cs w=$fx/bls12381/poseidon3.wtns
oracle=0
if [ -f "$snarkjs" ]; then
  "$node" "$vec/bellperson_key.mjs" "$r" "$tmp/noble.params" 11 >/dev/null || fail "node: bellperson_key.mjs"
  expect 0 "" info "$tmp/noble.params" --check
  expect 0 "" prove "$tmp/noble.params" "$w" "$tmp/proof.json" "$tmp/public.json" --r1cs "$r" --device cpu
  sj groth16 verify "$tmp/noble.params.vk.json" "$tmp/public.json" "$tmp/proof.json"
  oracle=1
fi
# what a user can get wrong
expect 0 "" setup "$r" "$tmp/k.params" --format params
expect 2 "is not a .zkey; a bellperson .params key proves with its circuit: --r1cs" \
  prove "$tmp/k.params" "$w" "$tmp/p.json" "$tmp/q.json"
expect 2 "is not a key of .*mul1k.r1cs: its IC vector holds" \
  prove "$tmp/k.params" "$w" "$tmp/p.json" "$tmp/q.json" --r1cs "$fx/bls12381/mul1k.r1cs"
expect 2 "BLS12-381" prove "$tmp/k.params" "$w" "$tmp/p.json" "$tmp/q.json" --r1cs "$fx/bn128/poseidon3.r1cs"
expect 2 "values, but" prove "$tmp/k.params" "$fx/bls12381/tiny.wtns" "$tmp/p.json" "$tmp/q.json" --r1cs "$r"
expect 2 "is a .zkey" prove "$fx/bls12381/poseidon3.zkey" "$w" "$tmp/p.json" "$tmp/q.json" --r1cs "$r"
expect 2 "--proof-format expects snarkjs" prove "$tmp/k.params" "$w" "$tmp/p.json" "$tmp/q.json" --r1cs "$r" \
  --proof-format zcash
expect 2 "the input circuit.r1cs" prove "$tmp/k.params" "$w" "$r" "$tmp/q.json" --r1cs "$r"
head -c 5000 "$tmp/k.params" >"$tmp/cut.params"
expect 2 "cut.params" prove "$tmp/cut.params" "$w" "$tmp/p.json" "$tmp/q.json" --r1cs "$r"
expect 2 "proof-format bellperson writes BLS12-381" prove "$fx/bn128/poseidon3.zkey" "$fx/bn128/poseidon3.wtns" \
  "$tmp/p.bin" "$tmp/q.json" --proof-format bellperson
# a witness of the right shape whose values do not satisfy the circuit: the
# proof fails its own check, named, and nothing is written
"$node" -e 'const fs = require("fs"); const d = fs.readFileSync(process.argv[1]); d[d.length - 5] ^= 1;
  fs.writeFileSync(process.argv[2], d);' "$w" "$tmp/bad.wtns" || fail "node: the bad witness"
expect 2 "do not satisfy the circuit" prove "$tmp/k.params" "$tmp/bad.wtns" "$tmp/p.json" "$tmp/q.json" --r1cs "$r" \
  --device cpu
[ ! -e "$tmp/p.json" ] && [ ! -e "$tmp/p.bin" ] && [ ! -e "$tmp/q.json" ] || fail "a refused proof left a file"

echo "params: noble's points read and checked; 5 planted faults, 12 broken layouts refused; $proved .params proofs verified by snarkjs (JSON and bellperson's bytes through noble); $oracle key of noble's bellperson setup proved"
