#!/bin/sh
# The cuzk command: exit codes, messages, no partial output files.
# Usage: test_cli.sh path/to/cuzk FIXTURES_DIR
set -u
cuzk=$1
fx=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
expect() { # expect CODE command...: run, check the exit code, keep stderr in $tmp/err
  want=$1; shift
  "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $(cat "$tmp/err")"
}

out=$("$cuzk" version) || fail "cuzk version exited $?"
echo "$out" | grep -Eq '^cuzk [0-9]+\.[0-9]+\.[0-9]+ \(commit ([0-9a-f]{12}(-dirty)?|unknown)\)$' ||
  fail "version line (a semantic version and the commit) missing: $out"
echo "$out" | grep -q '^cpu backend: ' || fail "backend line missing: $out"
# one line a GPU: name, memory, SMs, compute capability, PCI address
n=$(echo "$out" | sed -n 's/^cuda: built in; \([0-9]*\) device.*/\1/p')
[ "$(echo "$out" | grep -Ec '^gpu [0-9]+: .+, [0-9.]+ GiB, [0-9]+ SMs, sm_[0-9]+, PCI [0-9a-f:.]+$')" = "${n:-0}" ] ||
  fail "one 'gpu N:' line a device expected: $out"

"$cuzk" selftest >/dev/null || fail "selftest failed with the default backend"
out=$(CUZK_CPU_BACKEND=portable "$cuzk" selftest) || fail "selftest failed with the portable backend"
echo "$out" | grep -q 'portable' || fail "CUZK_CPU_BACKEND=portable not honoured: $out"

# progress: off a terminal nothing for short work; on one (script(1) gives
# a terminal) one redrawn line; --quiet (-q) anywhere silences it
fxk="$fx/bn128/tiny.zkey"
expect 0 "$cuzk" info "$fxk" --check
[ ! -s "$tmp/err" ] || fail "progress lines off a terminal for short work: $(cat "$tmp/err")"
if command -v script >/dev/null; then
  script -qc "'$cuzk' info '$fx/bls12381/poseidon3.zkey' --check" /dev/null >"$tmp/tty" 2>&1 ||
    fail "info --check on a terminal: $(cat "$tmp/tty")"
  grep -q "cuzk info --check: checking H: 100% (" "$tmp/tty" || fail "no progress line on a terminal: $(cat -v "$tmp/tty")"
  script -qc "'$cuzk' info '$fx/bls12381/poseidon3.zkey' --check --quiet" /dev/null >"$tmp/tty" 2>&1
  ! grep -q "checking" "$tmp/tty" || fail "--quiet: progress shown: $(cat -v "$tmp/tty")"
  script -qc "'$cuzk' -q info '$fx/bls12381/poseidon3.zkey' --check" /dev/null >"$tmp/tty" 2>&1
  ! grep -q "checking" "$tmp/tty" || fail "-q first: progress shown: $(cat -v "$tmp/tty")"
fi

# the environment the command maps to the library's options (the library
# reads none): good values work anywhere, a bad one exits 2 naming it
fxk="$fx/bn128/tiny.zkey"; fxw="$fx/bn128/tiny.wtns"
for v in "CUZK_GPU_UPLOAD=pageable" "CUZK_GPU_EVAL=cpu" "CUZK_GPU_MSM_CHUNK=2^10" "CUZK_CPU_BACKEND=auto"; do
  expect 0 env "$v" "$cuzk" prove "$fxk" "$fxw" "$tmp/ep.json" "$tmp/epub.json" --device cpu
done
for v in "CUZK_GPU_UPLOAD=fast:CUZK_GPU_UPLOAD expects pinned|pageable, got 'fast'" \
         "CUZK_GPU_EVAL=tpu:CUZK_GPU_EVAL expects gpu|cpu, got 'tpu'" \
         "CUZK_GPU_MSM_CHUNK=12x:CUZK_GPU_MSM_CHUNK expects an integer or 2^k" \
         "CUZK_GPU_MSM_CHUNK=0:CUZK_GPU_MSM_CHUNK expects an integer or 2^k in \[1," \
         "CUZK_CPU_BACKEND=fast:CUZK_CPU_BACKEND expects portable, x86_64-adx or auto, got 'fast'"; do
  expect 2 env "${v%%:*}" "$cuzk" prove "$fxk" "$fxw" "$tmp/ep.json" "$tmp/epub.json" --device cpu
  grep -q -- "${v#*:}" "$tmp/err" || fail "${v%%:*}: $(cat "$tmp/err")"
  [ ! -e "$tmp/ep.json.bad" ] || fail "partial output"
done
expect 2 env CUZK_GPU_UPLOAD=fast "$cuzk" bench "$fxk" "$fxw" --jobs 1 --device cpu
grep -q "CUZK_GPU_UPLOAD expects" "$tmp/err" || fail "bench CUZK_GPU_UPLOAD: $(cat "$tmp/err")"
expect 2 env CUZK_SETUP_DEVICE=tpu "$cuzk" setup "$fx/bn128/mul1k.r1cs" "$tmp/es.zkey"
grep -q "CUZK_SETUP_DEVICE expects auto, gpu or cpu, got 'tpu'" "$tmp/err" || fail "CUZK_SETUP_DEVICE: $(cat "$tmp/err")"
[ ! -e "$tmp/es.zkey" ] || fail "setup with a bad CUZK_SETUP_DEVICE left a key"

expect 2 "$cuzk"
expect 2 "$cuzk" frobnicate
grep -q "unknown command 'frobnicate'" "$tmp/err" || fail "unknown command message: $(cat "$tmp/err")"
expect 2 "$cuzk" version extra
"$cuzk" help | grep -q 'usage: cuzk' || fail "help text"
# every command answers --help (and cuzk help COMMAND) with its usage, exit 0
for c in prove verify setup circuit zkey info bench serve submit version selftest; do
  expect 0 "$cuzk" "$c" --help
  grep -q "usage" "$tmp/out" && grep -q "$c" "$tmp/out" || fail "cuzk $c --help: $(cat "$tmp/out" "$tmp/err")"
  expect 0 "$cuzk" help "$c"
  grep -q "$c" "$tmp/out" || fail "cuzk help $c: $(cat "$tmp/out")"
done
expect 0 "$cuzk" prove a.zkey --help # --help wins over the other arguments
expect 2 "$cuzk" help frobnicate
grep -q "unknown command 'frobnicate'" "$tmp/err" || fail "help of an unknown command: $(cat "$tmp/err")"

for c in bn128 bls12381; do
  d=$fx/$c
  # verify: valid, tampered (exit 1), malformed (exit 2)
  expect 0 "$cuzk" verify "$d/mul1k.vk.json" "$d/mul1k.public.json" "$d/mul1k.proof.json"
  grep -qx OK "$tmp/out" || fail "verify should print OK"
  sed 's/"[0-9]*"/"7"/' "$d/mul1k.public.json" >"$tmp/public.json"
  expect 1 "$cuzk" verify "$d/mul1k.vk.json" "$tmp/public.json" "$d/mul1k.proof.json"
  grep -qx INVALID "$tmp/out" || fail "verify should print INVALID"
  expect 1 "$cuzk" verify "$d/mul1k.vk.json" "$d/tiny.public.json" "$d/tiny.proof.json"
  head -c 100 "$d/mul1k.proof.json" >"$tmp/proof.json"
  expect 2 "$cuzk" verify "$d/mul1k.vk.json" "$d/mul1k.public.json" "$tmp/proof.json"
  grep -q "proof.json: not valid JSON" "$tmp/err" || fail "truncated proof message: $(cat "$tmp/err")"
  expect 2 "$cuzk" verify "$d/mul1k.vk.json" "$d/mul1k.public.json" "$tmp/missing.json"
  grep -q "missing.json: cannot open" "$tmp/err" || fail "missing file message: $(cat "$tmp/err")"
  expect 2 "$cuzk" verify "$d/mul1k.vk.json" "$d/mul1k.public.json"

  # zkey export-vk: same bytes as snarkjs; failures leave no file behind
  expect 0 "$cuzk" zkey export-vk "$d/poseidon3.zkey" "$tmp/vk.json"
  cmp -s "$tmp/vk.json" "$d/poseidon3.vk.json" || fail "export-vk differs from snarkjs's vk.json ($c)"
  expect 0 "$cuzk" zkey export verificationkey "$d/tiny.zkey" "$tmp/vk2.json"
  cmp -s "$tmp/vk2.json" "$d/tiny.vk.json" || fail "export verificationkey differs ($c)"
  expect 2 "$cuzk" zkey export-vk "$d/tiny.zkey" "$tmp/no/such/dir/vk.json"
  grep -q "cannot write" "$tmp/err" || fail "unwritable output message: $(cat "$tmp/err")"
  ls "$tmp/no" >/dev/null 2>&1 && fail "export-vk created a directory"
  head -c 2000 "$d/tiny.zkey" >"$tmp/trunc.zkey"
  expect 2 "$cuzk" zkey export-vk "$tmp/trunc.zkey" "$tmp/vk3.json"
  [ -e "$tmp/vk3.json" ] && fail "export-vk left a file behind after a failure"
  grep -q "trunc.zkey: truncated" "$tmp/err" || fail "truncated zkey message: $(cat "$tmp/err")"

  # info: every kind of file; bad files exit 2 with a message naming them
  expect 0 "$cuzk" info "$d/mul1k.zkey" --check --threads 2
  grep -q "curve: *$( [ $c = bn128 ] && echo BN254 || echo BLS12-381)" "$tmp/out" || fail "info curve"
  grep -q "check: " "$tmp/out" || fail "info --check result"
  expect 0 "$cuzk" info "$d/mul1k.wtns"
  grep -q "values: *1003" "$tmp/out" || fail "info wtns count"
  expect 0 "$cuzk" info "$d/mul1k.r1cs"
  grep -q "constraints: *1000" "$tmp/out" || fail "info r1cs constraints"
  expect 2 "$cuzk" info "$tmp/trunc.zkey"
  printf 'wtns\002\000\000\000' >"$tmp/short.wtns"
  expect 2 "$cuzk" info "$tmp/short.wtns"
  grep -q "short.wtns" "$tmp/err" || fail "short wtns message: $(cat "$tmp/err")"
  expect 2 "$cuzk" info "$d/mul1k.wtns" --check
  expect 2 "$cuzk" info "$d/mul1k.zkey" --threads many
  expect 2 "$cuzk" info "$d/mul1k.zkey" --bogus
  # prove: the proof verifies, public.json is snarkjs's
  rm -f "$tmp/proof.json" "$tmp/public.json"
  expect 0 "$cuzk" prove "$d/mul1k.zkey" "$d/mul1k.wtns" "$tmp/proof.json" "$tmp/public.json" --threads 2 --timings
  grep -q "^msm H" "$tmp/err" || fail "--timings table: $(cat "$tmp/err")"
  expect 0 "$cuzk" verify "$d/mul1k.vk.json" "$tmp/public.json" "$tmp/proof.json"
  cmp -s "$tmp/public.json" "$d/mul1k.public.json" || fail "public.json differs from snarkjs's ($c)"
  expect 0 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/proof2.json" "$tmp/public2.json" --json --no-verify
  grep -q '"msm_h"' "$tmp/out" || fail "--json output: $(cat "$tmp/out")"
  expect 0 "$cuzk" verify "$d/tiny.vk.json" "$tmp/public2.json" "$tmp/proof2.json"
  # prove: bad input exits 2 with a message and leaves no output behind
  rm -f "$tmp/p.json" "$tmp/q.json"
  expect 2 "$cuzk" prove "$d/mul1k.zkey" "$d/tiny.wtns" "$tmp/p.json" "$tmp/q.json"
  grep -q "tiny.wtns has 4 values, but .*mul1k.zkey expects 1003" "$tmp/err" || fail "length message: $(cat "$tmp/err")"
  other=$([ $c = bn128 ] && echo bls12381 || echo bn128)
  expect 2 "$cuzk" prove "$d/mul1k.zkey" "$fx/$other/mul1k.wtns" "$tmp/p.json" "$tmp/q.json"
  grep -q "witness, but" "$tmp/err" || fail "curve message: $(cat "$tmp/err")"
  cp "$d/tiny.zkey" "$tmp/v3.zkey"; printf '\003' | dd of="$tmp/v3.zkey" bs=1 seek=4 conv=notrunc 2>/dev/null
  expect 2 "$cuzk" prove "$tmp/v3.zkey" "$d/tiny.wtns" "$tmp/p.json" "$tmp/q.json"
  grep -q "version 3 is not supported" "$tmp/err" || fail "version message: $(cat "$tmp/err")"
  cp "$d/tiny.zkey" "$tmp/plonk.zkey"; printf '\002' | dd of="$tmp/plonk.zkey" bs=1 seek=24 conv=notrunc 2>/dev/null
  expect 2 "$cuzk" prove "$tmp/plonk.zkey" "$d/tiny.wtns" "$tmp/p.json" "$tmp/q.json"
  grep -q "not a Groth16 key" "$tmp/err" || fail "protocol message: $(cat "$tmp/err")"
  expect 2 "$cuzk" prove "$tmp/trunc.zkey" "$d/tiny.wtns" "$tmp/p.json" "$tmp/q.json"
  head -c 100 "$d/tiny.wtns" >"$tmp/trunc.wtns"
  expect 2 "$cuzk" prove "$d/tiny.zkey" "$tmp/trunc.wtns" "$tmp/p.json" "$tmp/q.json"
  grep -q "trunc.wtns" "$tmp/err" || fail "truncated witness message: $(cat "$tmp/err")"
  expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/no/dir/p.json" "$tmp/q.json"
  grep -q "cannot write" "$tmp/err" || fail "unwritable output message: $(cat "$tmp/err")"
  expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/p.json" "$tmp/no/dir/q.json"
  [ -e "$tmp/p.json" ] || [ -e "$tmp/q.json" ] && fail "prove left output behind after failures"
  ls "$tmp" | grep -q '\.tmp\.' && fail "prove left a temporary file behind"
  expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/p.json"
  expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/p.json" "$tmp/q.json" --threads -1
  expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/p.json" "$tmp/q.json" --fast
  # setup: the same key as snarkjs groth16 setup, byte for byte
  for n in tiny mul1k poseidon3; do
    expect 0 "$cuzk" setup "$d/$n.r1cs" "$tmp/$n.zkey" --ptau "$fx/ptau/${c}_10.ptau" --threads 2
    cmp -s "$tmp/$n.zkey" "$d/${n}_0.zkey" || fail "setup of $c/$n differs from snarkjs's ${n}_0.zkey"
  done
  # a key from cuzk setup proves, and the proof verifies with its exported vk
  expect 0 "$cuzk" prove "$tmp/mul1k.zkey" "$d/mul1k.wtns" "$tmp/sp.json" "$tmp/spub.json"
  expect 0 "$cuzk" zkey export-vk "$tmp/mul1k.zkey" "$tmp/svk.json"
  expect 0 "$cuzk" verify "$tmp/svk.json" "$tmp/spub.json" "$tmp/sp.json"
  # setup without a ptau: fresh randomness, a warning, a working key, and a
  # different key each time (snarkjs checks these keys in agree.mjs)
  expect 0 "$cuzk" setup "$d/mul1k.r1cs" "$tmp/r1.zkey" --threads 2
  grep -q "for testing only" "$tmp/err" || fail "random setup should warn: $(cat "$tmp/err")"
  expect 0 "$cuzk" setup "$d/mul1k.r1cs" "$tmp/r2.zkey"
  cmp -s "$tmp/r1.zkey" "$tmp/r2.zkey" && fail "two random setups of $c/mul1k wrote the same key"
  [ "$(wc -c <"$tmp/r1.zkey")" -eq "$(wc -c <"$d/mul1k_0.zkey")" ] || fail "random key size differs from snarkjs's"
  expect 0 "$cuzk" prove "$tmp/r1.zkey" "$d/mul1k.wtns" "$tmp/rp.json" "$tmp/rpub.json"
  expect 0 "$cuzk" zkey export-vk "$tmp/r1.zkey" "$tmp/rvk.json"
  expect 0 "$cuzk" verify "$tmp/rvk.json" "$tmp/rpub.json" "$tmp/rp.json"
  expect 0 "$cuzk" zkey export-vk "$tmp/r2.zkey" "$tmp/rvk2.json"
  expect 1 "$cuzk" verify "$tmp/rvk2.json" "$tmp/rpub.json" "$tmp/rp.json"
  # setup: bad input exits 2 with a message and leaves no key behind
  rm -f "$tmp/bad.zkey"
  expect 2 "$cuzk" setup "$d/mul1k.r1cs" "$tmp/bad.zkey" --ptau "$fx/ptau/${c}_02.ptau"
  grep -q "needs a domain of 2^10.*has powers up to 2^2" "$tmp/err" || fail "ptau too small message: $(cat "$tmp/err")"
  expect 2 "$cuzk" setup "$d/mul1k.r1cs" "$tmp/bad.zkey" --ptau "$fx/ptau/${other}_10.ptau"
  grep -q "circuit, but .* powers of tau" "$tmp/err" || fail "curve mismatch message: $(cat "$tmp/err")"
  head -c 300 "$d/mul1k.r1cs" >"$tmp/trunc.r1cs"
  expect 2 "$cuzk" setup "$tmp/trunc.r1cs" "$tmp/bad.zkey" --ptau "$fx/ptau/${c}_10.ptau"
  grep -q "trunc.r1cs" "$tmp/err" || fail "truncated r1cs message: $(cat "$tmp/err")"
  head -c 5000 "$fx/ptau/${c}_10.ptau" >"$tmp/trunc.ptau"
  expect 2 "$cuzk" setup "$d/tiny.r1cs" "$tmp/bad.zkey" --ptau "$tmp/trunc.ptau"
  grep -q "trunc.ptau" "$tmp/err" || fail "truncated ptau message: $(cat "$tmp/err")"
  expect 2 "$cuzk" setup "$d/tiny.r1cs" "$tmp/no/dir/x.zkey" --ptau "$fx/ptau/${c}_10.ptau"
  expect 2 "$cuzk" setup "$tmp/trunc.r1cs" "$tmp/bad.zkey"
  grep -q "trunc.r1cs" "$tmp/err" || fail "random setup: truncated r1cs message: $(cat "$tmp/err")"
  expect 2 "$cuzk" setup "$d/tiny.r1cs" "$tmp/no/dir/x.zkey"
  grep -q "cannot write" "$tmp/err" || fail "random setup: unwritable output message: $(cat "$tmp/err")"
  [ -e "$tmp/bad.zkey" ] && fail "setup left a key behind after failures"
done
# circuit sha256-chain: the printed digest is sha256sum's of the message,
# the public outputs are its bits, the key from a random setup proves it
for c in bn128 bls12381; do
  expect 0 "$cuzk" circuit sha256-chain "$tmp/ch.r1cs" "$tmp/ch.wtns" --constraints 1 --curve $c --seed 7 \
    --public 16 --message-out "$tmp/msg.bin"
  digest=$(sed -n 's/^digest: //p' "$tmp/out")
  [ "$digest" = "$(sha256sum "$tmp/msg.bin" | cut -c1-64)" ] || fail "sha256-chain digest $digest is not sha256sum's"
  [ "$(wc -c <"$tmp/msg.bin")" -eq 64 ] || fail "sha256-chain: a one-block message should be 64 bytes"
  grep -q "^constraints: 459" "$tmp/out" || fail "sha256-chain size: $(cat "$tmp/out")"
  expect 0 "$cuzk" setup "$tmp/ch.r1cs" "$tmp/ch.zkey"
  expect 0 "$cuzk" prove "$tmp/ch.zkey" "$tmp/ch.wtns" "$tmp/chp.json" "$tmp/chpub.json"
  expect 0 "$cuzk" zkey export-vk "$tmp/ch.zkey" "$tmp/chvk.json"
  expect 0 "$cuzk" verify "$tmp/chvk.json" "$tmp/chpub.json" "$tmp/chp.json"
  # the 16 public bits are the first two digest bytes, most significant first
  bits=$(tr -dc '01\n' <"$tmp/chpub.json" | tr -d '\n')
  want=$(echo "$digest" | cut -c1-4 | sed 's/0/0000/g;s/1/0001/g;s/2/0010/g;s/3/0011/g;s/4/0100/g;s/5/0101/g;s/6/0110/g;s/7/0111/g;s/8/1000/g;s/9/1001/g;s/a/1010/g;s/b/1011/g;s/c/1100/g;s/d/1101/g;s/e/1110/g;s/f/1111/g')
  [ "$bits" = "$want" ] || fail "sha256-chain public bits $bits, digest says $want"
done
expect 0 "$cuzk" circuit sha256-chain "$tmp/ch.r1cs" "$tmp/ch.wtns" --constraints 2^17 --public 0
grep -q "^blocks: 4 " "$tmp/out" || fail "2^17 constraints should be 4 blocks: $(cat "$tmp/out")"
"$cuzk" info "$tmp/ch.r1cs" | grep -q "0 public outputs, 0 public inputs, 64 private inputs" ||
  fail "sha256-chain r1cs header: $("$cuzk" info "$tmp/ch.r1cs")"
rm -f "$tmp/bad.r1cs" "$tmp/bad.wtns"
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/bad.wtns"
grep -q "needs --constraints" "$tmp/err" || fail "circuit without --constraints: $(cat "$tmp/err")"
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/bad.wtns" --constraints lots
grep -q "\-\-constraints expects" "$tmp/err" || fail "bad --constraints message: $(cat "$tmp/err")"
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/bad.wtns" --constraints 2^40
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/bad.wtns" --constraints 10 --public 257
grep -q "\-\-public expects" "$tmp/err" || fail "bad --public message: $(cat "$tmp/err")"
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/bad.wtns" --constraints 10 --curve p256
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/bad.wtns" --constraints 10 --fast
expect 2 "$cuzk" circuit md5-chain "$tmp/bad.r1cs" "$tmp/bad.wtns" --constraints 10
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/bad.r1cs" --constraints 10
expect 2 "$cuzk" circuit sha256-chain "$tmp/bad.r1cs" "$tmp/no/dir/bad.wtns" --constraints 10
grep -q "cannot write" "$tmp/err" || fail "unwritable wtns message: $(cat "$tmp/err")"
[ -e "$tmp/bad.r1cs" ] || [ -e "$tmp/bad.wtns" ] && fail "circuit left a file behind after failures"
ls "$tmp" | grep -q '\.tmp\.' && fail "circuit left a temporary file behind"

# prove --device / --gpu
expect 0 "$cuzk" prove "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/dp.json" "$tmp/dq.json" --device cpu
expect 2 "$cuzk" prove "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/dp.json" "$tmp/dq.json" --device tpu
grep -q "\-\-device expects" "$tmp/err" || fail "bad --device message: $(cat "$tmp/err")"
expect 2 "$cuzk" prove "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/dp.json" "$tmp/dq.json" --gpu x
grep -q "\-\-gpu expects" "$tmp/err" || fail "bad --gpu message: $(cat "$tmp/err")"
if ! "$cuzk" version | grep -q "cuda: built in; [1-9]"; then # no GPU here: --device gpu must say so
  expect 2 "$cuzk" prove "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/dp.json" "$tmp/dq.json" --device gpu
  grep -qi "gpu\|cuda" "$tmp/err" || fail "--device gpu without a GPU: $(cat "$tmp/err")"
fi
# serve: bad arguments exit 2 with a message (the daemon itself: test_serve.sh)
expect 2 "$cuzk" serve --listen 127.0.0.1:0
grep -q "state-dir" "$tmp/err" || fail "serve without --state-dir: $(cat "$tmp/err")"
expect 2 "$cuzk" serve --listen localhost --state-dir "$tmp/st"
expect 2 "$cuzk" serve --listen 127.0.0.1:99999 --state-dir "$tmp/st"
expect 2 "$cuzk" serve --listen 127.0.0.1:0 --state-dir "$tmp/st" --workers 0
expect 2 "$cuzk" serve --listen 127.0.0.1:0 --state-dir "$tmp/st" --max-body -5
expect 2 "$cuzk" serve --listen 127.0.0.1:0 --state-dir "$tmp/st" --bogus 1
# the daemon's options come from one table (src/server/options.c): the
# man page's list is its rendering, the example config's keys are its
# names, and a value out of a range the help states is refused naming it
root=$(cd "$(dirname "$0")/.." && pwd)
expect 0 "$cuzk" serve --help-troff
sed -n '/^\.\\" begin serve options/,/^\.\\" end serve options/p' "$root/docs/cuzk.1" | sed '1d;$d' >"$tmp/man_opts"
cmp -s "$tmp/out" "$tmp/man_opts" ||
  fail "docs/cuzk.1's serve options differ from cuzk serve --help-troff (write it there): $(diff "$tmp/out" "$tmp/man_opts" | head -5)"
expect 0 "$cuzk" serve --help
for k in $(grep -o '^[a-z-]* *=' "$root/contrib/cuzk.conf" | tr -d ' ='); do
  grep -q "^  --$k\b" "$tmp/out" || fail "contrib/cuzk.conf's key $k is no option of cuzk serve --help"
done
grep -q "^        1 to 256; default 8$" "$tmp/out" || fail "serve --help: --http-threads' range and default: $(grep -A2 http-threads "$tmp/out")"
expect 2 "$cuzk" serve --listen 127.0.0.1:0 --state-dir "$tmp/st" --http-threads 257
grep -q "\-\-http-threads expects an integer in \[1, 256\], got '257'" "$tmp/err" || fail "serve --http-threads 257: $(cat "$tmp/err")"
expect 2 "$cuzk" serve --listen 127.0.0.1:0 --state-dir "$tmp/st" --max-connections 64 --max-connections-per-ip 65
grep -q "max-connections-per-ip (65) is above --max-connections (64)" "$tmp/err" ||
  fail "serve per-ip above the total: $(cat "$tmp/err")"

# bench: proofs through the engine, a report, bad arguments
expect 0 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --jobs 6 --workers 2 --threads 1 --device cpu
grep -q "6 proofs, 2 in flight, on cpu" "$tmp/out" || fail "bench report: $(cat "$tmp/out")"
grep -q "latency (submit to proof) p50" "$tmp/out" || fail "bench latency: $(cat "$tmp/out")"
expect 0 "$cuzk" bench "$fx/bls12381/tiny.zkey" "$fx/bls12381/tiny.wtns" --jobs 2 --json
grep -q '"proofs_per_s"' "$tmp/out" || fail "bench --json: $(cat "$tmp/out")"
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey"
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --jobs 0
grep -q "\-\-jobs expects" "$tmp/err" || fail "bench --jobs message: $(cat "$tmp/err")"
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --workers 999
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --device tpu
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --gpu-memory 12X
grep -q "\-\-gpu-memory expects a size" "$tmp/err" || fail "bench --gpu-memory message: $(cat "$tmp/err")"
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --gpu-memory
# GPU G's own budget: G=B items beside the every-GPU one, each checked
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --gpu-memory 80G,16=1G
grep -q "\-\-gpu-memory's GPU number expects an integer in \[0, 15\], got '16'" "$tmp/err" ||
  fail "bench --gpu-memory GPU message: $(cat "$tmp/err")"
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --gpu-memory 1=12X
grep -q "\-\-gpu-memory (GPU 1) expects a size" "$tmp/err" || fail "bench --gpu-memory G=B message: $(cat "$tmp/err")"
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --gpu-memory 1G,
grep -q "\-\-gpu-memory expects a size or GPU=size items" "$tmp/err" || fail "bench --gpu-memory 1G, message: $(cat "$tmp/err")"
for v in 0 65 2x; do
  expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --gpu-msm-copies $v
  grep -q "\-\-gpu-msm-copies expects an integer in \[1, 64\], got '$v'" "$tmp/err" ||
    fail "bench --gpu-msm-copies $v message: $(cat "$tmp/err")"
done
expect 0 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --jobs 1 --device cpu --gpu-msm-copies 3
expect 0 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --device cpu --gpu-memory 80G,1=20G,0=2^30
# a budget and pre-staging do nothing on the CPU, and are accepted
expect 0 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --jobs 2 --device cpu --gpu-memory 1G --prestage 1
expect 0 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" --jobs 2 --device cpu --no-prestage
expect 2 "$cuzk" bench "$fx/bn128/tiny.zkey" "$fx/bls12381/tiny.wtns"
grep -q "witness" "$tmp/err" || fail "bench curve mismatch message: $(cat "$tmp/err")"

# the command's own edges (issue 17): only regular files are read, sizes
# checked first; outputs never replace a link, a device or an input
d=$fx/bn128
expect 2 timeout 10 "$cuzk" verify "$d/tiny.vk.json" /dev/urandom "$d/tiny.proof.json"
grep -q "/dev/urandom: is a character device, expected a regular file" "$tmp/err" || fail "verify /dev/urandom: $(cat "$tmp/err")"
truncate -s 300M "$tmp/huge.json"
expect 2 timeout 10 "$cuzk" verify "$d/tiny.vk.json" "$tmp/huge.json" "$d/tiny.proof.json"
grep -q "huge.json: 314572800 bytes, larger than the .* accepted for a JSON file" "$tmp/err" || fail "a huge JSON: $(cat "$tmp/err")"
mkfifo "$tmp/fifo"
expect 2 timeout 10 "$cuzk" prove "$tmp/fifo" "$d/tiny.wtns" "$tmp/p.json" "$tmp/q.json"
grep -q "fifo: is a FIFO, expected a regular file" "$tmp/err" || fail "prove a FIFO: $(cat "$tmp/err")"
expect 2 timeout 10 "$cuzk" info "$tmp/fifo"
expect 2 timeout 10 "$cuzk" serve --config "$tmp/fifo" --state-dir "$tmp/st"
grep -q "fifo: is a FIFO" "$tmp/err" || fail "serve --config FIFO: $(cat "$tmp/err")"
echo keep >"$tmp/target.json"
ln -s "$tmp/target.json" "$tmp/link.json"
expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/link.json" "$tmp/q.json"
grep -q "proof.json $tmp/link.json: is a symbolic link; refusing to replace it" "$tmp/err" || fail "symlink output: $(cat "$tmp/err")"
[ -L "$tmp/link.json" ] && [ "$(cat "$tmp/target.json")" = keep ] && [ ! -e "$tmp/q.json" ] || fail "symlink output: replaced"
expect 2 "$cuzk" zkey export-vk "$d/tiny.zkey" "$tmp/link.json"
expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/p.json" /dev/null
grep -q "/dev/null: is a character device; an output must be a regular file" "$tmp/err" || fail "device output: $(cat "$tmp/err")"
cp "$d/tiny.zkey" "$tmp/k.zkey"
expect 2 "$cuzk" zkey export-vk "$tmp/k.zkey" "$tmp/k.zkey"
grep -q "verification_key.json $tmp/k.zkey is the input circuit.zkey" "$tmp/err" || fail "export-vk over its key: $(cat "$tmp/err")"
ln "$tmp/k.zkey" "$tmp/hard.json"
expect 2 "$cuzk" zkey export-vk "$tmp/k.zkey" "$tmp/hard.json"
cmp -s "$tmp/k.zkey" "$d/tiny.zkey" || fail "export-vk replaced its key"
expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/same.json" "$tmp/same.json"
grep -q "proof.json and public.json are the same file" "$tmp/err" || fail "proof = public: $(cat "$tmp/err")"
expect 2 "$cuzk" prove "$d/tiny.zkey" "$d/tiny.wtns" "$tmp/p.json" "$d/tiny.wtns"
grep -q "is the input witness.wtns" "$tmp/err" || fail "public = witness: $(cat "$tmp/err")"
expect 2 "$cuzk" setup "$d/tiny.r1cs" "$d/tiny.r1cs"
grep -q "is the input circuit.r1cs" "$tmp/err" || fail "setup over its r1cs: $(cat "$tmp/err")"
# a damaged key point is blamed on the key, not on the witness
cp "$d/mul1k.zkey" "$tmp/badh.zkey"
printf '\125' | dd of="$tmp/badh.zkey" bs=1 seek=$((409880 + 5 * 64 + 3)) conv=notrunc 2>/dev/null # H point 5
expect 2 "$cuzk" prove "$tmp/badh.zkey" "$d/mul1k.wtns" "$tmp/p.json" "$tmp/q.json"
grep -q "the key is damaged: $tmp/badh.zkey: section 9 (H): point 5 of 1024" "$tmp/err" || fail "a bad H point: $(cat "$tmp/err")"
expect 2 "$cuzk" info "$tmp/badh.zkey" --check
grep -q "^cuzk: $tmp/badh.zkey: section 9 (H): point 5" "$tmp/err" || fail "info --check names the file: $(cat "$tmp/err")"
# a key truncated while cuzk prove reads it: an error or a proof, never a crash
"$cuzk" circuit sha256-chain "$tmp/big.r1cs" "$tmp/big.wtns" --constraints 2^16 >/dev/null 2>&1 &&
  "$cuzk" setup "$tmp/big.r1cs" "$tmp/big.zkey" >/dev/null 2>&1 || fail "making a larger key"
for delay in 0 0.02 0.05 0.1 0.2; do
  cp "$tmp/big.zkey" "$tmp/t.zkey"
  "$cuzk" prove "$tmp/t.zkey" "$tmp/big.wtns" "$tmp/tp.json" "$tmp/tq.json" --threads 1 >/dev/null 2>"$tmp/err" &
  p=$!
  sleep "$delay"; truncate -s 4096 "$tmp/t.zkey"
  wait "$p"; rc=$?
  [ "$rc" -lt 128 ] || fail "cuzk prove died (exit $rc) when its key was truncated after ${delay}s: $(cat "$tmp/err")"
done

head -c 5000 /dev/zero >"$tmp/zeros.bin"
expect 2 "$cuzk" info "$tmp/zeros.bin"
grep -q "zeros.bin" "$tmp/err" || fail "unknown file message: $(cat "$tmp/err")"
expect 2 "$cuzk" info "$tmp/nonexistent"

# a degenerate key (alpha, beta, gamma or delta at infinity: its
# verification accepts forged proofs) is refused by every command that reads
# it, naming the point: info --check, zkey export-vk, prove
. "$(dirname "$0")/zkey_points.sh"
for c in bn128 bls12381; do
  k="$fx/$c/poseidon3.zkey"
  [ "$(zkey_vk_points "$k" | wc -l)" = 6 ] || fail "$c: no section 2 in $k"
  for p in alpha1 beta1 beta2 gamma2 delta1 delta2; do
    zkey_degenerate "$k" "$tmp/degenerate.zkey" "$p"
    for cmd in "info $tmp/degenerate.zkey --check" "zkey export-vk $tmp/degenerate.zkey $tmp/dvk.json" \
               "prove $tmp/degenerate.zkey $fx/$c/poseidon3.wtns $tmp/degp.json $tmp/degpub.json --device cpu"; do
      # shellcheck disable=SC2086
      expect 2 "$cuzk" $cmd
      grep -q "$p is the point at infinity" "$tmp/err" || fail "$c $p at infinity, cuzk $cmd: $(cat "$tmp/err")"
      [ ! -e "$tmp/dvk.json" ] && [ ! -e "$tmp/degp.json" ] || fail "$c $p at infinity, cuzk $cmd: output written"
    done
  done
done
echo "cli: ok"
