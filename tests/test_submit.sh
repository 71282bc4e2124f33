#!/usr/bin/env bash
# cuzk submit against cuzk serve on loopback, and cuzk serve --config
# (bounded in time: every wait has a limit). Round trips on both curves with
# the witness uploaded, by path (--no-upload) and with a preloaded key
# (--key-id), each proof checked by snarkjs and its files laid out as cuzk
# prove writes them; a failed job, an unknown key, a body over --max-body,
# no daemon, a full daemon (429, retried), --wait running out then --job,
# a daemon killed and restarted while a client waits; request ids: the same
# --request-id again gets the same job, another request under it is refused,
# a POST whose answer is lost (flaky_proxy) is sent again and proves once;
# config files: a valid
# one starts the daemon, flags override it, bad keys, values and files are
# named with FILE:LINE; every option in cuzk serve --help exists.
# usage: test_submit.sh CUZK FIXTURES_DIR [NODE [FLAKY_PROXY]]
set -u
cuzk=$1 fx=$(cd "$2" && pwd) node=${3:-} proxy=${4:-}
. "$(dirname "$0")/daemon_lib.sh"
unset CUZK_SERVER

start() { start_daemon "$@"; } # start ARGS...: sets $port and $pid (ARGS name the state directory)
stop() { kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"; }
expect() { # expect CODE command...: run (60 s at most), check the exit code; stderr in $tmp/err
  local want=$1 got; shift
  timeout 60 "$@" >"$tmp/out" 2>"$tmp/err"; got=$?
  [ "$got" -eq "$want" ] || fail "'$*' exited $got, expected $want; stderr: $(cat "$tmp/err")"
}
has() { grep -q -- "$1" "$tmp/err" || fail "expected '$1' in the message: $(cat "$tmp/err")"; }
layout() { sed 's/"[0-9]*"/"N"/g' "$1"; } # a proof.json with its numbers blanked

# --- config file: valid file starts the daemon, the command line overrides it
cat >"$tmp/ok.conf" <<EOF
# the test daemon
listen = 127.0.0.1:0
key-dir = $fx         # repeatable: the fixtures and the scratch directory
key-dir = $tmp
witness-dir = $fx
witness-dir = $tmp
state-dir = $tmp/s1   # comments may follow a value
workers=2
gpu-workers-per-device = 3   # accepted; unused with device = cpu
  threads = 1
max-jobs = 64
key-cache-bytes = 1G
max-body = 2^26
result-ttl = 600
device = cpu
EOF
start --config "$tmp/ok.conf"
srv=127.0.0.1:$port
expect 0 "$cuzk" submit --server "$srv" --status
jq -e '.workers == 2' "$tmp/out" >/dev/null || fail "config workers = 2 not applied: $(cat "$tmp/out")"

# --- round trips on both curves: uploaded, by path, by preloaded key
prove_layout_checked=0
triples=()
n=0
for cv in bn128 bls12381; do
  for nm in tiny poseidon3 mul1k; do
    d=$fx/$cv
    for mode in upload path; do
      flags=(); [ $mode = path ] && flags=(--no-upload)
      expect 0 "$cuzk" submit --server "$srv" "$d/$nm.zkey" "$d/$nm.wtns" "$tmp/p$n.json" "$tmp/pub$n.json" \
        "${flags[@]}" --priority high --wait 60
      has "submitted to $srv"
      has " done: proved on "
      cmp -s "$tmp/pub$n.json" "$d/$nm.public.json" || fail "$cv/$nm ($mode): public.json differs from snarkjs's"
      triples+=("$d/$nm.vk.json:$tmp/pub$n.json:$tmp/p$n.json")
      n=$((n + 1))
    done
  done
  # the same layout, byte for byte but for the numbers, as cuzk prove writes
  expect 0 "$cuzk" prove "$d/poseidon3.zkey" "$d/poseidon3.wtns" "$tmp/prove.json" "$tmp/prove_pub.json"
  expect 0 "$cuzk" submit --server "$srv" "$d/poseidon3.zkey" "$d/poseidon3.wtns" "$tmp/sub.json" "$tmp/sub_pub.json"
  cmp -s "$tmp/prove_pub.json" "$tmp/sub_pub.json" || fail "$cv: submit's public.json differs from prove's"
  cmp -s <(layout "$tmp/prove.json") <(layout "$tmp/sub.json") || fail "$cv: submit's proof.json is laid out differently"
  prove_layout_checked=$((prove_layout_checked + 1))
  # a key preloaded under an id; the server taken from CUZK_SERVER
  code=$(curl -s -o "$tmp/body" -w "%{http_code}" -X POST "$srv/v1/keys/mul_$cv" -d "{\"path\":\"$d/mul1k.zkey\"}")
  [ "$code" = 200 ] || fail "preload: HTTP $code $(cat "$tmp/body")"
  expect 0 env CUZK_SERVER="$srv" "$cuzk" submit --key-id "mul_$cv" "$d/mul1k.wtns" "$tmp/p$n.json" "$tmp/pub$n.json"
  cmp -s "$tmp/pub$n.json" "$d/mul1k.public.json" || fail "$cv --key-id: public.json differs"
  triples+=("$d/mul1k.vk.json:$tmp/pub$n.json:$tmp/p$n.json")
  n=$((n + 1))
done
for t in "${triples[@]}"; do
  IFS=: read -r vk pub proof <<<"$t"
  expect 0 "$cuzk" verify "$vk" "$pub" "$proof"
done
if [ -n "$node" ] && [ -d "$(dirname "$0")/snarkjs/node_modules/snarkjs" ]; then
  "$node" "$(dirname "$0")/snarkjs/verify_many.mjs" "${triples[@]}" || fail "snarkjs rejected a proof submit wrote"
else
  echo "note: snarkjs not installed; proofs checked with cuzk verify only"
fi

# --- a job of partitions (Filecoin's PoRep form): the daemon makes the
# witnesses from a .params key's native circuit; arrays out, each proof
# verified; --proof-format bellperson: 192 bytes a partition, each decoded
# by noble into a proof cuzk verify accepts
pr=$tmp/pr
"$cuzk" circuit porep-shape "$pr" --constraints 4096 --partitions 3 --format native -q >/dev/null || fail "porep-shape"
"$cuzk" setup "$pr/circuit.porep" "$pr/k.params" --format params -q 2>/dev/null || fail "setup porep-shape"
expect 0 "$cuzk" zkey export-vk "$pr/k.params" "$pr/vk.json"
expect 0 "$cuzk" submit --server "$srv" "$pr/k.params" --r1cs "$pr/circuit.porep" --partitions 2 --partition 1 \
  "$pr/proofs.json" "$pr/publics.json"
has "done: 2 partitions proved on "
expect 0 "$cuzk" submit --server "$srv" "$pr/k.params" --r1cs "$pr/circuit.porep" --partitions 3 \
  --proof-format bellperson "$pr/proofs.bin" "$pr/publics3.json"
[ "$(stat -c %s "$pr/proofs.bin")" = 576 ] || fail "--partitions 3 --proof-format bellperson: not 576 bytes"
[ "$(jq -c '.[1:]' "$pr/publics3.json")" = "$(jq -c . "$pr/publics.json")" ] || fail "partitions 1, 2 differ by job"
for p in 0 1; do
  jq ".[$p]" "$pr/proofs.json" >"$pr/proof.$p.json"
  jq ".[$p]" "$pr/publics.json" >"$pr/public.$p.json"
  expect 0 "$cuzk" verify "$pr/vk.json" "$pr/public.$p.json" "$pr/proof.$p.json"
done
if [ -n "$node" ] && [ -d "$(dirname "$0")/vectors/node_modules/@noble/curves" ]; then
  for p in 0 1 2; do
    tail -c +$((192 * p + 1)) "$pr/proofs.bin" | head -c 192 >"$pr/bp.$p.bin"
    "$node" "$(dirname "$0")/vectors/bellperson_proof.mjs" "$pr/bp.$p.bin" "$pr/bp.$p.json" || fail "noble refused proof $p"
    jq ".[$p]" "$pr/publics3.json" >"$pr/bpub.$p.json"
    expect 0 "$cuzk" verify "$pr/vk.json" "$pr/bpub.$p.json" "$pr/bp.$p.json"
  done
fi
rm -f "$pr"/f.json "$pr"/fp.json
expect 1 "$cuzk" submit --server "$srv" "$pr/k.params" --r1cs "$pr/circuit.porep" --partitions 4 "$pr/f.json" "$pr/fp.json"
has "failed: partition 3: .*the circuit has 3"
expect 2 "$cuzk" submit --server "$srv" "$pr/k.params" --partition 1 "$fx/bn128/tiny.wtns" "$pr/f.json" "$pr/fp.json"
has "goes with --partitions"
expect 2 "$cuzk" submit --server "$srv" "$pr/k.params" --partitions 0 "$pr/f.json" "$pr/fp.json"
expect 2 "$cuzk" submit --server "$srv" "$pr/k.params" --partitions 2 --no-upload "$pr/f.json" "$pr/fp.json"
expect 2 "$cuzk" submit --server "$srv" --key-id x --r1cs "$pr/circuit.porep" --partitions 2 "$pr/f.json" "$pr/fp.json"
expect 2 "$cuzk" submit --server "$srv" "$pr/k.params" --partitions 2 "$pr/f.json"
has "takes 3 files"
expect 2 "$cuzk" submit --server "$srv" "$pr/k.params" --partitions 2 --proof-format zcash "$pr/f.json" "$pr/fp.json"
expect 2 "$cuzk" submit --server "$srv" "$pr/k.params" --r1cs "$pr/circuit.porep" --partitions 2 "$pr/k.params" \
  "$pr/fp.json"
has "is the input"
[ ! -e "$pr/f.json" ] && [ ! -e "$pr/fp.json" ] || fail "a refused job of partitions left a file"

# --- failures: the daemon's message, a non-zero exit, no files written
rm -f "$tmp"/f.json "$tmp"/fp.json
expect 1 "$cuzk" submit --server "$srv" "$fx/bn128/tiny.zkey" "$fx/bls12381/tiny.wtns" "$tmp/f.json" "$tmp/fp.json"
has "failed: .*witness"
expect 1 "$cuzk" submit --server "$srv" "$fx/bn128/poseidon3.zkey" "$fx/bn128/mul1k.wtns" "$tmp/f.json" "$tmp/fp.json"
has "failed"
expect 2 "$cuzk" submit --server "$srv" "$tmp/missing.zkey" "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json" --no-upload
has "refused the job: key_path '$tmp/missing.zkey': no such file (HTTP 404)"
expect 2 "$cuzk" submit --server "$srv" /etc/passwd "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json" --no-upload
has "refused the job: key_path '/etc/passwd': not a file under this daemon's --key-dir directories (HTTP 403)"
expect 2 "$cuzk" submit --server "$srv" --key-id nope "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json"
has "refused the job: no key was loaded under the id 'nope'"
expect 2 "$cuzk" submit --server "$srv" "$fx/bn128/tiny.zkey" "$tmp/missing.wtns" "$tmp/f.json" "$tmp/fp.json"
has "missing.wtns"
expect 2 "$cuzk" submit --server "$srv" "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.zkey" "$tmp/f.json" "$tmp/fp.json"
[ ! -e "$tmp/f.json" ] && [ ! -e "$tmp/fp.json" ] || fail "a failed submit left files"
ls "$tmp" | grep -q "\.tmp\." && fail "a failed submit left temporary files"
# usage errors name the input
expect 2 "$cuzk" submit --server "$srv" "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/f.json"
has "submit takes 4 files"
expect 2 "$cuzk" submit --priority urgent "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json"
has "--priority expects low, normal, high or critical, got 'urgent'"
expect 2 "$cuzk" submit --wait -1 "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json"
has "--wait expects seconds"
expect 2 "$cuzk" submit --server "localhost" --status
has "--server: server 'localhost': expected HOST:PORT"
expect 2 env CUZK_SERVER=127.0.0.1:99999 "$cuzk" submit --status
has "CUZK_SERVER: .*port in \[1, 65535\]"
expect 2 "$cuzk" submit --status --key-id x
expect 2 "$cuzk" submit --frobnicate
has "unknown option '--frobnicate'"
expect 0 "$cuzk" submit --help
grep -q -- "--no-upload" "$tmp/out" && grep -q -- "--request-id ID" "$tmp/out" || fail "submit --help"

# --- request ids: a submission repeated under its id proves once
done_count() { "$cuzk" submit --server "$srv" --status | jq .done; }
expect 2 "$cuzk" submit --request-id "a b" "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json"
has "--request-id expects 1 to 64 letters, digits, '.', '_' or '-', got 'a b'"
expect 2 "$cuzk" submit --status --request-id r-1
d0=$(done_count)
expect 0 "$cuzk" submit --server "$srv" --request-id sub-1 "$fx/bn128/mul1k.zkey" "$fx/bn128/mul1k.wtns" \
  "$tmp/i1.json" "$tmp/ip1.json"
id1=$(sed -n 's/^cuzk: job \([0-9a-f]*\) submitted.*/\1/p' "$tmp/err")
expect 0 "$cuzk" submit --server "$srv" --request-id sub-1 "$fx/bn128/mul1k.zkey" "$fx/bn128/mul1k.wtns" \
  "$tmp/i2.json" "$tmp/ip2.json"
has "request id sub-1 names job $id1, accepted before: not submitted again"
has "job $id1 done"
cmp -s "$tmp/i1.json" "$tmp/i2.json" && cmp -s "$tmp/ip2.json" "$fx/bn128/mul1k.public.json" ||
  fail "the repeated submission wrote another proof"
[ "$(done_count)" = $((d0 + 1)) ] || fail "a repeated --request-id proved again: done went from $d0 to $(done_count)"
expect 2 "$cuzk" submit --server "$srv" --request-id sub-1 "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" \
  "$tmp/f.json" "$tmp/fp.json"
has "refused the job: request_id 'sub-1' names another request.*(HTTP 409)"
# the answer to the POST lost on the way back: sent again under the same id, proved once
if [ -x "$proxy" ]; then
  for rid in "--request-id lost-1" ""; do # a given id, then one drawn at random
    "$proxy" "$port" 1 >"$tmp/proxy.out" 2>"$tmp/proxy.err" &
    pids+=($!); prx=$!
    for _ in $(seq 50); do grep -q "^port" "$tmp/proxy.out" && break; sleep 0.1; done
    pport=$(sed -n 's/^port //p' "$tmp/proxy.out")
    [ -n "$pport" ] || fail "flaky_proxy did not start: $(cat "$tmp/proxy.err")"
    d0=$(done_count)
    # shellcheck disable=SC2086 # $rid is an option and its value, or nothing
    expect 0 "$cuzk" submit --server "127.0.0.1:$pport" $rid "$fx/bls12381/mul1k.zkey" "$fx/bls12381/mul1k.wtns" \
      "$tmp/l.json" "$tmp/lp.json" --wait 60
    has "lost the daemon at 127.0.0.1:$pport (.*closed before an answer); sending the job again under request id"
    has "names job [0-9a-f]*, accepted before: not submitted again"
    grep -q "dropped the answer" "$tmp/proxy.err" || fail "flaky_proxy dropped nothing"
    cmp -s "$tmp/lp.json" "$fx/bls12381/mul1k.public.json" || fail "after a lost answer: public.json differs"
    expect 0 "$cuzk" verify "$fx/bls12381/mul1k.vk.json" "$tmp/lp.json" "$tmp/l.json"
    [ "$(done_count)" = $((d0 + 1)) ] || fail "a POST sent again proved twice: done went from $d0 to $(done_count)"
    kill "$prx"; wait "$prx" 2>/dev/null
  done
  grep -q "request id lost-1" "$tmp/err" && fail "the second run reused the given request id"
else
  echo "note: no flaky_proxy given; a lost POST answer is not exercised"
fi
stop
# no daemon there any more: a clear message
expect 3 "$cuzk" submit --server "$srv" "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json"
has "no daemon listens at $srv (connection refused)"
expect 3 "$cuzk" submit --server "$srv" --status
has "no daemon listens at $srv"

# --- a busy daemon: one worker, three jobs at most, small bodies; flags override the file
"$cuzk" circuit sha256-chain "$tmp/blk.r1cs" "$tmp/blk.wtns" --constraints 2^17 >/dev/null 2>&1 &&
  "$cuzk" setup "$tmp/blk.r1cs" "$tmp/blk.zkey" >/dev/null 2>&1 &&
  "$cuzk" zkey export-vk "$tmp/blk.zkey" "$tmp/blk.vk.json" >/dev/null 2>&1 || fail "making the blocker circuit"
start --config "$tmp/ok.conf" --workers 1 --max-jobs 3 --max-body 100000 --state-dir "$tmp/s2"
srv=127.0.0.1:$port
expect 0 "$cuzk" submit --server "$srv" --status
jq -e '.workers == 1' "$tmp/out" >/dev/null || fail "--workers 1 did not override the file: $(cat "$tmp/out")"
[ -d "$tmp/s2/jobs" ] || fail "--state-dir did not override the file"
# a body over --max-body: 413, with the way out named
expect 2 "$cuzk" submit --server "$srv" "$tmp/blk.zkey" "$tmp/blk.wtns" "$tmp/f.json" "$tmp/fp.json"
has "refused the job: request body of [0-9]* bytes: larger than --max-body, 100000 bytes"
has "--no-upload"
# two blockers, then a job that waits behind them: --wait runs out (exit 4), --job fetches it
blockers=()
for b in 1 2; do
  "$cuzk" submit --server "$srv" --no-upload "$tmp/blk.zkey" "$tmp/blk.wtns" "$tmp/b$b.json" "$tmp/bp$b.json" \
    --priority low --wait 120 2>"$tmp/blk$b.err" &
  blockers+=($!)
  for _ in $(seq 100); do grep -q queued "$tmp/blk$b.err" && break; sleep 0.05; done
done
for _ in $(seq 100); do grep -q running "$tmp/blk1.err" && break; sleep 0.05; done
grep -q "running" "$tmp/blk1.err" || fail "the blocker did not report running: $(cat "$tmp/blk1.err")"
expect 4 "$cuzk" submit --server "$srv" "$fx/bls12381/poseidon3.zkey" "$fx/bls12381/poseidon3.wtns" \
  "$tmp/w.json" "$tmp/wp.json" --wait 0.2
has "--wait passed; job [0-9a-f]* is still queued"
has " queued$"
wid=$(sed -n 's/^cuzk: job \([0-9a-f]*\) submitted.*/\1/p' "$tmp/err")
[ -n "$wid" ] || fail "no job id printed: $(cat "$tmp/err")"
[ ! -e "$tmp/w.json" ] || fail "files written before the job ended"
# the daemon is full now (two blockers and the queued job = --max-jobs 3): 429
expect 3 "$cuzk" submit --server "$srv" "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/f.json" "$tmp/fp.json" \
  --busy-retries 0
has "the daemon at $srv is full"
# ... and with retries it gets in once a blocker is done
expect 0 "$cuzk" submit --server "$srv" "$fx/bn128/tiny.zkey" "$fx/bn128/tiny.wtns" "$tmp/r.json" "$tmp/rp.json" \
  --busy-retries 60
has "is full .*retrying in"
expect 0 "$cuzk" submit --server "$srv" --job "$wid" "$tmp/w.json" "$tmp/wp.json" --wait 60
cmp -s "$tmp/wp.json" "$fx/bls12381/poseidon3.public.json" || fail "--job: public.json differs"
expect 0 "$cuzk" verify "$fx/bls12381/poseidon3.vk.json" "$tmp/wp.json" "$tmp/w.json"
for b in 1 2; do
  wait "${blockers[$((b - 1))]}" || fail "blocker $b's submit: $(cat "$tmp/blk$b.err")"
  expect 0 "$cuzk" verify "$tmp/blk.vk.json" "$tmp/bp$b.json" "$tmp/b$b.json"
done
grep -q "queued" "$tmp/blk2.err" && grep -q "running" "$tmp/blk2.err" || fail "progress: $(cat "$tmp/blk2.err")"
expect 3 "$cuzk" submit --server "$srv" --job 0123456789abcdef0123456789abcdef "$tmp/f.json" "$tmp/fp.json"
has "has no job 0123456789abcdef0123456789abcdef"

# --- the daemon killed (-9) while a client waits, restarted on its port: the client gets its proof
"$cuzk" submit --server "$srv" --no-upload "$tmp/blk.zkey" "$tmp/blk.wtns" "$tmp/b3.json" "$tmp/bp3.json" \
  --priority low --wait 120 2>"$tmp/b3.err" &
blk=$!
# the blocker must be accepted before the kill (a submit refused at the door
# is not one that waits across a restart)
for _ in $(seq 200); do grep -q "queued\|running" "$tmp/b3.err" && break; sleep 0.05; done
"$cuzk" submit --server "$srv" "$fx/bn128/poseidon3.zkey" "$fx/bn128/poseidon3.wtns" "$tmp/k.json" "$tmp/kp.json" \
  --wait 120 2>"$tmp/k.err" &
cli=$!
for _ in $(seq 100); do grep -q "queued" "$tmp/k.err" && break; sleep 0.05; done
kill -9 "$pid"; wait "$pid" 2>/dev/null
start --config "$tmp/ok.conf" --listen "$srv" --state-dir "$tmp/s2"
wait "$cli" || fail "the client across the restart: $(cat "$tmp/k.err")"
grep -q "lost the daemon" "$tmp/k.err" || fail "no lost-daemon note: $(cat "$tmp/k.err")"
cmp -s "$tmp/kp.json" "$fx/bn128/poseidon3.public.json" || fail "after the restart: public.json differs"
wait "$blk" || fail "the blocker across the restart: $(cat "$tmp/b3.err")"
stop

# --- config errors: FILE:LINE, what was expected and found; the daemon does not start
conf_err() { # conf_err 'file text' 'expected message'
  printf '%s\n' "$1" >"$tmp/bad.conf"
  expect 2 "$cuzk" serve --config "$tmp/bad.conf" --state-dir "$tmp/s3"
  has "$2"
}
conf_err $'listen = 127.0.0.1:0\nworkerz = 2' "bad.conf:2: unknown key 'workerz'"
conf_err $'# c\nworkers = many' "bad.conf:2: workers expects an integer in \[1, 256\], got 'many'"
conf_err $'workers = 0' "bad.conf:1: workers expects an integer in \[1, 256\], got '0'"
conf_err $'device = tpu' "bad.conf:1: device expects auto, gpu or cpu, got 'tpu'"
conf_err $'listen = 127.0.0.1' "bad.conf:1: listen expects HOST:PORT"
conf_err $'listen = localhost:80' "bad.conf:1: listen expects HOST:PORT with an IPv4 address.*'localhost' is not one"
conf_err $'max-body = 12Q' "bad.conf:1: max-body expects a size"
conf_err $'gpu-memory = 12Q' "bad.conf:1: gpu-memory expects a size"
conf_err $'gpu-memory = 80G,2=12Q' "bad.conf:1: gpu-memory (GPU 2) expects a size"
conf_err $'prestage = 2' "bad.conf:1: prestage expects an integer in \[0, 1\], got '2'"
conf_err $'gpu-workers-per-device = 0' "bad.conf:1: gpu-workers-per-device expects an integer in \[1, 64\], got '0'"
conf_err $'gpu-msm-copies = 65' "bad.conf:1: gpu-msm-copies expects an integer in \[1, 64\], got '65'"
conf_err $'\n\nworkers 2' "bad.conf:3: expected 'key = value', got 'workers 2'"
conf_err $'workers = 1\nworkers = 2' "bad.conf:2: 'workers' is already set on line 1"
conf_err $'result-ttl =' "bad.conf:1: result-ttl has no value"
conf_err $'--workers = 2' "bad.conf:1: unknown key '--workers'"
conf_err $'config = x' "bad.conf:1: 'config' cannot be set"
expect 2 "$cuzk" serve --config "$tmp/nonexistent.conf" --state-dir "$tmp/s3"
has "--config $tmp/nonexistent.conf: cannot open: No such file or directory"
expect 2 "$cuzk" serve --config "$tmp/ok.conf" --workers 0
has "^cuzk: --workers expects an integer in \[1, 256\], got '0'"
printf 'listen = 127.0.0.1:0\n' >"$tmp/nostate.conf"
expect 2 "$cuzk" serve --config "$tmp/nostate.conf"
has "serve needs --state-dir DIR"
[ ! -e "$tmp/s3" ] || fail "a bad config created the state directory"
# every option in the help exists, as a flag and as a config key
expect 0 "$cuzk" serve --help
opts=$(grep -o '^  --[a-z-]*' "$tmp/out" | sed 's/^  --//' | grep -v -e '^help$' -e '^config$')
[ "$(echo "$opts" | wc -l)" -ge 9 ] || fail "serve --help lists too few options: $opts"
for o in listen state-dir workers threads device max-jobs key-cache-bytes max-body result-ttl; do
  echo "$opts" | grep -qx "$o" || fail "serve --help does not list --$o"
done
flags=$(grep -o '^  --[a-z-]*$' "$tmp/out" | sed 's/^  --//') # options without a value
for o in $opts; do
  bad=@bad@; [ "$o" = state-dir ] && bad="" # any other text is a directory name
  if ! echo "$flags" | grep -qx "$o"; then
    expect 2 "$cuzk" serve "--$o" "$bad"
    grep -q "unknown option" "$tmp/err" && fail "--$o is in the help but not accepted"
  fi
  printf '%s = %s\n' "$o" "$bad" >"$tmp/opt.conf"
  "$cuzk" serve --config "$tmp/opt.conf" >/dev/null 2>"$tmp/err" &
  p=$!; pids+=("$p")
  for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  kill -0 "$p" 2>/dev/null && { kill -9 "$p"; fail "serve with '$o = @bad@' started"; }
  has "opt.conf:1: $o"
done
echo "submit: ok ($n proofs verified; layout matched prove on $prove_layout_checked curves)"
