#!/usr/bin/env bash
# cuzk serve under hostile clients and unlucky operators (issue 17;
# docs/security.md), on loopback, bounded in time and count. One section a
# class:
#   1 connections: 1000 idle, slow or long-polling connections, and one
#     address flooding: /healthz and proofs still answered promptly
#   5 shutdown: SIGTERM with long polls, queued and running jobs: bounded,
#     exit 0, queued jobs run after the restart
#   2 paths a client names: only under --key-dir/--witness-dir (else one
#     message, whether the file exists or not), only regular files, no
#     file's bytes in a message; uploads and the operator's --key ids work
#     with no directory at all
#   3 key files that change: rewritten in place (cp), truncated, while
#     cached and while a proof holds the key: no SIGBUS, no proof with the
#     old key
#   4 capabilities: a bearer token (--token-file, rotated by SIGHUP) and TLS (--tls-cert),
#     both required off loopback; cuzk submit with both
#   6 durability (FAULT_FS, an LD_PRELOAD disk that fails on demand): a
#     result that cannot be written is not reported done (and is written
#     when the disk recovers), new work is refused with 503 meanwhile, a
#     failed delete says so and keeps the job, a crash's leftovers go at
#     the start, an uploaded witness goes with its job's end, a stored
#     proof that no longer verifies is proved again
#   7 replies: a cut UTF-8 character, a client's error as a 4xx, HEAD,
#     a JSON array body
# usage: test_hostile.sh CUZK FIXTURES_DIR CONN_FLOOD [FAULT_FS]
set -u
cuzk=$1 fx=$(cd "$2" && pwd) flood=$3 shim=${4:-}
. "$(dirname "$0")/daemon_lib.sh"

# healthz_fast N: N answers to GET /healthz, each within a second
healthz_fast() {
  for _ in $(seq "$1"); do
    code=$(curl -s -o /dev/null -w "%{http_code}" --max-time 1 "127.0.0.1:$port/healthz")
    [ "$code" = 200 ] || fail "/healthz did not answer within 1 s (HTTP $code) $2"
  done
}
# flood_start NAME ARGS...: conn_flood in the background, waits until it
# has opened its connections
flood_start() {
  local name=$1; shift
  "$flood" "127.0.0.1:$port" "$@" >"$tmp/$name.out" 2>&1 &
  eval "${name}_pid=$!"
  for _ in $(seq 300); do grep -q "^ready" "$tmp/$name.out" && return 0; sleep 0.1; done
  fail "conn_flood $name did not get ready: $(cat "$tmp/$name.out")"
}
flood_field() { sed -n "s/^$2 .*$3=\([0-9]*\).*/\1/p" "$tmp/$1.out"; }
tk=$fx/bn128/tiny.zkey tw=$fx/bn128/tiny.wtns
# a blocker: a generated circuit of 2^17 constraints (about 0.6 s a proof on one core)
"$cuzk" circuit sha256-chain "$tmp/blk.r1cs" "$tmp/blk.wtns" --constraints 2^17 >/dev/null 2>&1 &&
  "$cuzk" setup "$tmp/blk.r1cs" "$tmp/blk.zkey" >/dev/null 2>&1 || fail "making the blocker circuit"
paths=(--key-dir "$fx" --key-dir "$tmp" --witness-dir "$fx" --witness-dir "$tmp")

# --- 1. connections
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s1" "${paths[@]}" --workers 1 --device cpu --threads 1 \
  --idle-timeout 3 --max-connections-per-ip 1500
flood_start idle 1000 idle 30
[ "$(flood_field idle ready opened)" = 1000 ] || fail "1000 idle connections: $(cat "$tmp/idle.out")"
healthz_fast 20 "with 1000 idle connections open"
id=$(submit_paths "$tk" "$tw")
expect_code 200 --max-time 10 "127.0.0.1:$port/v1/proofs/$id?wait=10"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "a proof with 1000 idle connections open: $(cat "$tmp/body")"
# idle ones are closed after --idle-timeout (3 s)
wait "$idle_pid"
[ "$(flood_field idle done closed)" = 1000 ] || fail "idle connections not closed after --idle-timeout: $(cat "$tmp/idle.out")"
# slow ones (a byte a second) are not idle, and cost no thread
flood_start slow 1000 slow 6
healthz_fast 20 "with 1000 slow connections open"
wait "$slow_pid"
# 1000 long polls on a job queued behind blockers: no thread each, answered
# when it ends
for _ in 1 2 3; do submit_paths "$tmp/blk.zkey" "$tmp/blk.wtns" >/dev/null; done
target=$(submit_paths "$tk" "$tw")
flood_start polls 1000 poll 60 "/v1/proofs/$target?wait=3600"
healthz_fast 10 "with 1000 long polls parked"
expect_code 200 "127.0.0.1:$port/v1/status"
wait "$polls_pid"
[ "$(flood_field polls done ok)" = 1000 ] || fail "1000 long polls: not all answered 200: $(cat "$tmp/polls.out")"
expect_code 200 "127.0.0.1:$port/v1/proofs/$target"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "long-polled job: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
# one address over its share: refused beyond it, everyone else still served
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s2" "${paths[@]}" --max-connections-per-ip 100
flood_start hog 1000 idle 5 --bind 127.0.0.2
healthz_fast 10 "while 127.0.0.2 holds its 100 connections"
wait "$hog_pid"
[ "$(flood_field hog done closed)" -ge 900 ] || fail "127.0.0.2 kept more than its 100 connections: $(cat "$tmp/hog.out")"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
# slow headers (a byte a second: never silent) from 4 addresses filling
# --max-connections: the oldest are closed near the limit, so /healthz
# still answers, and every one is closed at --header-timeout
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s2b" "${paths[@]}" --max-connections 64 \
  --max-connections-per-ip 16 --header-timeout 4
for a in 2 3 4 5; do flood_start "trickle$a" 16 slow 9 --bind "127.0.0.$a"; done
healthz_fast 10 "with 64 slow connections from 4 addresses filling --max-connections 64"
closed=0
for a in 2 3 4 5; do
  wait "$(eval echo "\$trickle${a}_pid")"
  closed=$((closed + $(flood_field "trickle$a" done closed)))
done
[ "$closed" = 64 ] || fail "slow connections still open after --header-timeout: $closed of 64 closed"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"

# --- 5. shutdown: bounded, long polls answered, queued jobs left journaled
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s3" "${paths[@]}" --workers 1 --device cpu --threads 1 \
  --ahead -1 --shutdown-grace 1
running=$(submit_paths "$tmp/blk.zkey" "$tmp/blk.wtns")
queued=()
for _ in $(seq 6); do queued+=("$(submit_paths "$tmp/blk.zkey" "$tmp/blk.wtns")"); done
flood_start sdpolls 200 poll 30 "/v1/proofs/${queued[5]}?wait=3600"
t0=$(date +%s.%N)
kill -TERM "$pid"; wait "$pid"; rc=$?
t1=$(date +%s.%N)
[ "$rc" = 0 ] || fail "SIGTERM with jobs and long polls: exit $rc: $(cat "$out")"
awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a < 5) }' || fail "SIGTERM took $(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }') s"
wait "$sdpolls_pid"
[ "$(flood_field sdpolls done ok)" = 200 ] || fail "long polls at shutdown: $(cat "$tmp/sdpolls.out")"
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s3" "${paths[@]}" --workers 2 --device cpu --threads 1
grep -q "7 journaled jobs resumed" "$out" || grep -q "6 journaled jobs resumed" "$out" ||
  fail "restart after SIGTERM: $(cat "$out")"
for id in "$running" "${queued[@]}"; do
  expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=60"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "job $id after a SIGTERM and a restart: $(cat "$tmp/body")"
done
# the grace lets a running proof finish: its result is journaled before the exit
slow=$(submit_paths "$tmp/blk.zkey" "$tmp/blk.wtns")
expect_code 200 "127.0.0.1:$port/v1/proofs/$slow?wait=10&state=queued"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
grep -q '"state":"done"' "$tmp/s3/jobs/$slow.res" || fail "a running proof under the default grace: not journaled done"

# --- 2. paths a client names
mkdir -p "$tmp/keys" "$tmp/outside"
cp "$fx/bn128/tiny.zkey" "$tmp/keys/tiny.zkey"
cp "$fx/bn128/tiny.zkey" "$tmp/outside/tiny.zkey"
printf 'SECRET-PASSWORD-1234567890' >"$tmp/keys/secret.zkey"
mkfifo "$tmp/keys/fifo.zkey"
ln -s /dev/zero "$tmp/keys/zero.zkey"
ln -s "$tmp/outside/tiny.zkey" "$tmp/keys/link-out.zkey"
post() { api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$1\",\"witness_path\":\"$2\"}"; }
# no directories: no client path at all; uploads and the operator's keys work
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s5" --key "tiny=$fx/bn128/tiny.zkey"
expect_code 403 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$tk\",\"witness_path\":\"$tw\"}"
grep -q -- "--key-dir DIR" "$tmp/body" || fail "no --key-dir: $(cat "$tmp/body")"
expect_code 403 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"tiny\",\"witness_path\":\"$tw\"}"
grep -q -- "--witness-dir DIR" "$tmp/body" || fail "no --witness-dir: $(cat "$tmp/body")"
expect_code 403 -X POST "127.0.0.1:$port/v1/keys/k" -d "{\"path\":\"$tk\"}"
expect_code 202 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"tiny\",\"witness\":\"$(base64 -w0 "$tw")\"}"
id=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=30"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "preloaded key, uploaded witness: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
# one key directory
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s6" --key-dir "$tmp/keys" --witness-dir "$fx"
[ "$(post "$tmp/keys/tiny.zkey" "$tw")" = 202 ] || fail "a key in --key-dir: $(cat "$tmp/body")"
# outside, existing or not, or through a link: one message, nothing about the file
for p in /etc/passwd /etc/nonexistent.zkey "$tmp/outside/tiny.zkey" "$tmp/keys/../outside/tiny.zkey" \
         "$tmp/keys/link-out.zkey" "$tmp/keys/zero.zkey" /dev/zero; do
  [ "$(post "$p" "$tw")" = 403 ] || fail "key_path $p: HTTP $(cat "$tmp/body")"
  [ "$(jq -r .error "$tmp/body")" = "key_path '$p': not a file under this daemon's --key-dir directories" ] ||
    fail "key_path $p: $(cat "$tmp/body")"
done
[ "$(post "$tmp/keys/missing.zkey" "$tw")" = 404 ] || fail "a missing key in --key-dir: $(cat "$tmp/body")"
[ "$(post "$tmp/keys/fifo.zkey" "$tw")" = 400 ] && grep -q "is a FIFO, expected a regular file" "$tmp/body" ||
  fail "a FIFO: $(cat "$tmp/body")"
[ "$(post "keys/tiny.zkey" "$tw")" = 400 ] && grep -q "expected an absolute path" "$tmp/body" ||
  fail "a relative path: $(cat "$tmp/body")"
[ "$(post "$tmp/keys/tiny.zkey" "$tmp/keys/tiny.zkey")" = 403 ] || fail "witness outside --witness-dir: $(cat "$tmp/body")"
expect_code 403 -X POST "127.0.0.1:$port/v1/keys/k" -d '{"path":"/etc/shadow"}'
# a private file in the directory: the job fails without quoting it
[ "$(post "$tmp/keys/secret.zkey" "$tw")" = 202 ] || fail "secret.zkey: $(cat "$tmp/body")"
id=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=30"
[ "$(jq -r .state "$tmp/body")" = failed ] && grep -q 'not a .zkey file' "$tmp/body" || fail "secret.zkey: $(cat "$tmp/body")"
grep -q SECRET "$tmp/body" && fail "a file's bytes in a message: $(cat "$tmp/body")"
# a FIFO swapped in after the check fails its job at once (opened without blocking)
cp "$fx/bn128/tiny.zkey" "$tmp/keys/swap.zkey"
[ "$(post "$tmp/keys/swap.zkey" "$tw")" = 202 ] || fail "swap.zkey: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
rm "$tmp/keys/swap.zkey"; mkfifo "$tmp/keys/swap.zkey"
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s6" --key-dir "$tmp/keys" --witness-dir "$fx" --workers 2
healthz_fast 3 "after a restart with a FIFO as a journaled job's key"
expect_code 200 --max-time 20 "127.0.0.1:$port/v1/status"
for _ in $(seq 100); do jq -e '.running == 0 and ([.queued[]] | add) == 0' "$tmp/body" >/dev/null && break
  sleep 0.1; api "127.0.0.1:$port/v1/status" >/dev/null; done
jq -e '.running == 0' "$tmp/body" >/dev/null || fail "a job stuck on a FIFO: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM with a FIFO journaled: exit $?"
rm "$tmp/keys/swap.zkey"
# a witness or key swapped for a link to a file outside after the POST
# (the job queued behind blockers meanwhile): the job fails, the outside
# file is never proved (what is checked is what is opened)
mkdir -p "$tmp/wits"
cp "$tw" "$tmp/wits/w1.wtns"; cp "$tw" "$tmp/wits/w2.wtns"; cp "$tw" "$tmp/outside/w.wtns"
cp "$tk" "$tmp/keys/sw1.zkey"; cp "$tk" "$tmp/keys/sw2.zkey"
cp "$tmp/blk.zkey" "$tmp/keys/blk.zkey"; cp "$tmp/blk.wtns" "$tmp/wits/blk.wtns"
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s8" --key-dir "$tmp/keys" --witness-dir "$tmp/wits" \
  --workers 1 --device cpu --threads 1
for _ in 1 2 3; do submit_paths "$tmp/keys/blk.zkey" "$tmp/wits/blk.wtns" >/dev/null; done
wid=$(submit_paths "$tmp/keys/sw1.zkey" "$tmp/wits/w1.wtns")
kid=$(submit_paths "$tmp/keys/sw2.zkey" "$tmp/wits/w2.wtns")
ln -sf "$tmp/outside/w.wtns" "$tmp/wits/w1.wtns"
ln -sf "$tmp/outside/tiny.zkey" "$tmp/keys/sw2.zkey"
for j in "$wid witness" "$kid key"; do
  set -- $j
  expect_code 200 "127.0.0.1:$port/v1/proofs/$1?wait=60"
  [ "$(jq -r .state "$tmp/body")" = failed ] && grep -q "not a file beneath the directories allowed for it" "$tmp/body" ||
    fail "a $2 swapped for a link outside after the POST: $(cat "$tmp/body")"
done
# a degenerate key (gamma at infinity: it would accept forged proofs) is
# refused by the daemon too, the point named: a job's, and a key loaded by id
. "$(dirname "$0")/zkey_points.sh"
zkey_degenerate "$tk" "$tmp/keys/deg.zkey" gamma2
did=$(submit_paths "$tmp/keys/deg.zkey" "$tmp/wits/w2.wtns" critical)
expect_code 200 "127.0.0.1:$port/v1/proofs/$did?wait=60"
[ "$(jq -r .state "$tmp/body")" = failed ] && grep -q "gamma2 is the point at infinity" "$tmp/body" ||
  fail "a job of a degenerate key: $(cat "$tmp/body")"
code=$(api -X POST "127.0.0.1:$port/v1/keys/deg" -d "{\"path\":\"$tmp/keys/deg.zkey\"}")
[ "${code:0:1}" = 4 ] && grep -q "gamma2 is the point at infinity" "$tmp/body" ||
  fail "a degenerate key loaded by id: HTTP $code $(cat "$tmp/body")"
# a large file is not read before its header is checked: a 4 GiB sparse
# file that is no witness, and one whose header is a witness's but whose
# size is past any witness of its key, fail at once in little memory
truncate -s 4G "$tmp/wits/sparse.wtns"
{ head -c 64 "$tw"; printf '\002\000\000\000\000\000\000\000\001\000\000\000'; } >"$tmp/wits/big.wtns"
truncate -s $((64 + 12 + 4294967296)) "$tmp/wits/big.wtns"
sid=$(submit_paths "$tmp/keys/tiny.zkey" "$tmp/wits/sparse.wtns" critical)
bid=$(submit_paths "$tmp/keys/tiny.zkey" "$tmp/wits/big.wtns" critical)
for j in "$sid:not a .wtns file" "$bid:larger than the .* of a witness of this key"; do
  expect_code 200 "127.0.0.1:$port/v1/proofs/${j%%:*}?wait=60"
  [ "$(jq -r .state "$tmp/body")" = failed ] && grep -q "${j#*:}" "$tmp/body" ||
    fail "a 4 GiB witness ($j): $(cat "$tmp/body")"
done
hwm=$(sed -n 's/^VmHWM: *\([0-9]*\) kB/\1/p' "/proc/$pid/status")
[ "${hwm:-0}" -lt 1048576 ] || fail "4 GiB witnesses refused, but the daemon's memory peaked at $hwm kB"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"

# --- 3. key files that change under the daemon
cp "$fx/bn128/mul1k.zkey" "$tmp/keys/k.zkey"
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s7" --key-dir "$tmp/keys" --witness-dir "$fx" \
  --witness-dir "$tmp" --workers 1 --device cpu --threads 1
prove_with() { # prove_with KEY CIRCUIT: the job's state; its proof checked against CIRCUIT's vk
  [ "$(post "$1" "$fx/bn128/$2.wtns")" = 202 ] || fail "submit $1: $(cat "$tmp/body")"
  local id; id=$(jq -r .id "$tmp/body")
  expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=60"
  local st; st=$(jq -r .state "$tmp/body")
  if [ "$st" = done ]; then
    jq .proof "$tmp/body" >"$tmp/kp.json"; jq .public "$tmp/body" >"$tmp/kpub.json"
    "$cuzk" verify "$fx/bn128/$2.vk.json" "$tmp/kpub.json" "$tmp/kp.json" >/dev/null 2>&1 ||
      fail "a proof with $1 does not verify against $2's key"
  fi
  echo "$st"
}
[ "$(prove_with "$tmp/keys/k.zkey" mul1k)" = done ] || fail "the first key"
cp "$fx/bn128/poseidon3.zkey" "$tmp/keys/k.zkey" # in place, as cp does
[ "$(prove_with "$tmp/keys/k.zkey" poseidon3)" = done ] || fail "a key rewritten in place: $(cat "$tmp/body")"
truncate -s 100 "$tmp/keys/k.zkey"
[ "$(prove_with "$tmp/keys/k.zkey" poseidon3)" = failed ] || fail "a truncated key: $(cat "$tmp/body")"
grep -q "k.zkey" "$tmp/body" || fail "a truncated key's message: $(cat "$tmp/body")"
healthz_fast 3 "after a truncated key"
# truncated while a proof holds it: that proof still ends well
cp "$tmp/blk.zkey" "$tmp/keys/b.zkey"
[ "$(post "$tmp/keys/b.zkey" "$tmp/blk.wtns")" = 202 ] || fail "blocker: $(cat "$tmp/body")"
bid=$(jq -r .id "$tmp/body")
for _ in $(seq 300); do # read, and being proved with
  api "127.0.0.1:$port/v1/status" >/dev/null
  jq -e '.pipeline.stages.computing == 1' "$tmp/body" >/dev/null && break
  sleep 0.01
done
jq -e '.pipeline.stages.computing == 1' "$tmp/body" >/dev/null || fail "the blocker never computed: $(cat "$tmp/body")"
truncate -s 0 "$tmp/keys/b.zkey"
expect_code 200 "127.0.0.1:$port/v1/proofs/$bid?wait=60"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "a key truncated under its proof: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"

# --- 4. authentication and TLS
head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token"
printf 'short\n' >"$tmp/short.token"
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s8" "${paths[@]}" --token-file "$tmp/token" --key "t=$tk"
tok=$(cat "$tmp/token")
expect_code 200 "127.0.0.1:$port/healthz" # a probe needs no token
for h in "" "Authorization: Bearer wrong-token-0123456789" "Authorization: Basic $tok" "Authorization: Bearer"; do
  code=$(curl -s -D "$tmp/hdr" -o "$tmp/body" -w "%{http_code}" ${h:+-H "$h"} "127.0.0.1:$port/v1/status")
  [ "$code" = 401 ] && grep -qi "^www-authenticate: bearer" "$tmp/hdr" || fail "status with '$h': HTTP $code"
done
expect_code 401 -X POST "127.0.0.1:$port/v1/proofs" -d '{}'
expect_code 200 -H "Authorization: Bearer $tok" "127.0.0.1:$port/v1/status"
timeout 60 "$cuzk" submit --server "127.0.0.1:$port" "$tk" "$tw" "$tmp/a.json" "$tmp/ap.json" 2>"$tmp/err"
[ $? = 2 ] && grep -q "HTTP 401" "$tmp/err" || fail "submit without the token: $(cat "$tmp/err")"
timeout 60 "$cuzk" submit --server "127.0.0.1:$port" --token-file "$tmp/token" "$tk" "$tw" "$tmp/a.json" "$tmp/ap.json" \
  2>"$tmp/err" || fail "submit --token-file: $(cat "$tmp/err")"
CUZK_TOKEN_FILE=$tmp/token timeout 60 "$cuzk" submit --server "127.0.0.1:$port" --status >/dev/null 2>"$tmp/err" ||
  fail "CUZK_TOKEN_FILE: $(cat "$tmp/err")"
# SIGHUP reloads the token file (and the --key keys): a rotated token
# works at once, the old one no more; a broken file keeps the token
wait_log() { # wait_log PATTERN: the daemon's log has PATTERN within 10 s
  for _ in $(seq 200); do grep -q -- "$1" "$out" && return 0; sleep 0.05; done
  fail "no '$1' in the daemon's log: $(tail -5 "$out")"
}
head -c 32 /dev/urandom | base64 | tr -d '=+/' >"$tmp/token.new"
mv "$tmp/token.new" "$tmp/token"
kill -HUP "$pid"
wait_log "SIGHUP: reloaded the token, 1 key"
expect_code 401 -H "Authorization: Bearer $tok" "127.0.0.1:$port/v1/status"
tok=$(cat "$tmp/token")
expect_code 200 -H "Authorization: Bearer $tok" "127.0.0.1:$port/v1/status"
printf 'short\n' >"$tmp/token"
kill -HUP "$pid"
wait_log "the old token stays"
expect_code 200 -H "Authorization: Bearer $tok" "127.0.0.1:$port/v1/status"
printf '%s\n' "$tok" >"$tmp/token"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
expect_fail_start() { # expect_fail_start MESSAGE SERVE_ARGS...: refuses to start, saying MESSAGE
  local msg=$1; shift
  timeout 20 "$cuzk" serve "$@" >"$tmp/out" 2>&1 && fail "serve $* started"
  grep -q -- "$msg" "$tmp/out" || fail "serve $*: $(cat "$tmp/out")"
}
expect_fail_start "its first line must be the token, 16 to 4096" --listen 127.0.0.1:0 --state-dir "$tmp/s9" \
  --token-file "$tmp/short.token"
expect_fail_start "is not a loopback address: the daemon then needs --token-file" --listen 0.0.0.0:0 \
  --state-dir "$tmp/s9"
expect_fail_start "is not a loopback address" --listen 0.0.0.0:0 --state-dir "$tmp/s9" --token-file "$tmp/token"
if command -v openssl >/dev/null; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$tmp/key.pem" -out "$tmp/cert.pem" \
    -days 2 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 >/dev/null 2>&1 || fail "openssl req"
  expect_fail_start "--tls-cert and --tls-key go together" --listen 127.0.0.1:0 --state-dir "$tmp/s9" \
    --tls-cert "$tmp/cert.pem"
  expect_fail_start "--tls-key .*: not a PEM file" --listen 127.0.0.1:0 --state-dir "$tmp/s9" \
    --tls-cert "$tmp/cert.pem" --tls-key "$tmp/token"
  "$cuzk" serve --listen 0.0.0.0:0 --state-dir "$tmp/s10" "${paths[@]}" --token-file "$tmp/token" \
    --tls-cert "$tmp/cert.pem" --tls-key "$tmp/key.pem" >"$tmp/tls.out" 2>&1 &
  pid=$!; pids+=("$pid")
  for _ in $(seq 100); do grep -q "listening on" "$tmp/tls.out" && break; sleep 0.1; done
  port=$(grep -so "listening on 0.0.0.0:[0-9]*" "$tmp/tls.out" | cut -d: -f2)
  [ -n "$port" ] && grep -q "HTTPS, bearer token required" "$tmp/tls.out" || fail "TLS daemon: $(cat "$tmp/tls.out")"
  code=$(curl -s -o "$tmp/body" -w "%{http_code}" --cacert "$tmp/cert.pem" "https://127.0.0.1:$port/healthz")
  [ "$code" = 200 ] || fail "https /healthz: $code"
  code=$(curl -s -o /dev/null -w "%{http_code}" --max-time 5 "http://127.0.0.1:$port/healthz")
  [ "$code" = 000 ] || [ "${code:0:1}" = 4 ] || fail "plain HTTP to the TLS port answered $code"
  srv=https://127.0.0.1:$port
  timeout 60 "$cuzk" submit --server "$srv" --ca-file "$tmp/cert.pem" --token-file "$tmp/token" "$tk" "$tw" \
    "$tmp/t.json" "$tmp/tp.json" 2>"$tmp/err" || fail "submit over https: $(cat "$tmp/err")"
  "$cuzk" verify "$fx/bn128/tiny.vk.json" "$tmp/tp.json" "$tmp/t.json" >/dev/null || fail "the proof over https"
  timeout 60 "$cuzk" submit --server "$srv" --token-file "$tmp/token" --status >/dev/null 2>"$tmp/err"
  [ $? = 3 ] && grep -q "certificate is not trusted" "$tmp/err" || fail "an untrusted certificate: $(cat "$tmp/err")"
  timeout 60 "$cuzk" submit --server "127.0.0.1:$port" --token-file "$tmp/token" --status >/dev/null 2>"$tmp/err"
  [ $? = 3 ] || fail "plain HTTP to the TLS port: $(cat "$tmp/err")"
  kill -TERM "$pid"; wait "$pid" || fail "SIGTERM (TLS): exit $?"
else
  echo "note: openssl not installed; the TLS cases are skipped"
fi

# --- 6. durability
if [ -n "$shim" ] && [ -f "$shim" ]; then
  sd=$tmp/s11 ctl=$tmp/fault.ctl
  : >"$ctl"
  daemon_env=("CUZK_FAULT_DIR=$sd" "CUZK_FAULT_CTL=$ctl" "LD_PRELOAD=$shim" "ASAN_OPTIONS=verify_asan_link_order=0")
  dstart() { start_daemon --listen 127.0.0.1:0 --state-dir "$sd" "${paths[@]}" --workers 1 --device cpu --threads 1; }
  checked() { # checked N: waits until the watcher says it checked the N stored proofs
    for _ in $(seq 300); do grep -q "$1 stored proofs\{0,1\} checked" "$out" && return 0; sleep 0.05; done
    fail "the $1 stored proofs not checked: $(cat "$out")"
  }
  computing() { # waits until the one job computes
    for _ in $(seq 500); do
      api "127.0.0.1:$port/v1/status" >/dev/null
      jq -e '.pipeline.stages.computing == 1' "$tmp/body" >/dev/null && return 0
      sleep 0.01
    done
    fail "no job computing: $(cat "$tmp/body")"
  }
  engine_done() { # waits until the engine counts N done
    for _ in $(seq 500); do
      api "127.0.0.1:$port/v1/status" >/dev/null
      jq -e --argjson n "$1" '.done == $n' "$tmp/body" >/dev/null && return 0
      sleep 0.02
    done
    fail "the engine did not count $1 done: $(cat "$tmp/body")"
  }
  dstart
  # an idle daemon whose disk turns read-only or full says so in /healthz
  # (looked at every 2 s), and ok again once it recovers
  healthz_is() { # healthz_is CODE PATTERN: within 6 s
    for _ in $(seq 60); do
      code=$(api "127.0.0.1:$port/healthz")
      [ "$code" = "$1" ] && grep -q "$2" "$tmp/body" && return 0
      sleep 0.1
    done
    fail "/healthz: $code, want $1 and '$2': $(cat "$tmp/body")"
  }
  for f in "ro:Read-only file system" "full:No space left on device"; do
    echo "${f%%:*}" >"$ctl"
    healthz_is 503 "cannot write the state directory.*${f#*:}"
    : >"$ctl"
    healthz_is 200 '"ok"'
  done
  # a full disk while a proof runs: not reported done, new work refused
  b1=$(submit_paths "$tmp/blk.zkey" "$tmp/blk.wtns")
  computing
  echo full >"$ctl"
  engine_done 1
  sleep 0.2
  expect_code 200 "127.0.0.1:$port/v1/proofs/$b1"
  [ "$(jq -r .state "$tmp/body")" = running ] || fail "a result not written is reported: $(cat "$tmp/body")"
  expect_code 503 "127.0.0.1:$port/healthz"
  jq -e '.status == "degraded" and (.journal | test("No space left on device"))' "$tmp/body" >/dev/null ||
    fail "healthz with a full disk: $(cat "$tmp/body")"
  expect_code 503 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$tk\",\"witness_path\":\"$tw\"}"
  grep -q "cannot journal the request.*No space left on device; it takes no new work" "$tmp/body" ||
    fail "POST with a full disk: $(cat "$tmp/body")"
  expect_code 200 "127.0.0.1:$port/v1/status"
  jq -e '.journal | test("No space left on device")' "$tmp/body" >/dev/null || fail "status journal: $(cat "$tmp/body")"
  : >"$ctl" # the disk has room again: the result is written, then shown
  expect_code 200 "127.0.0.1:$port/v1/proofs/$b1?wait=10"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "the result after the disk recovered: $(cat "$tmp/body")"
  expect_code 200 "127.0.0.1:$port/healthz"
  # full again, then a crash before the result is written: proved again after the restart
  b2=$(submit_paths "$tmp/blk.zkey" "$tmp/blk.wtns")
  computing
  echo full >"$ctl"
  engine_done 2
  kill -9 "$pid"; wait "$pid" 2>/dev/null
  : >"$ctl"
  dstart
  grep -q "1 journaled job resumed" "$out" || fail "restart after a lost result: $(cat "$out")"
  grep -q "1 stored proof to check before it is served" "$out" || fail "restart: no stored proof to check: $(cat "$out")"
  expect_code 200 "127.0.0.1:$port/v1/proofs/$b2?wait=30"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "a job whose result was lost: $(cat "$tmp/body")"
  checked 1
  expect_code 200 "127.0.0.1:$port/v1/proofs/$b1"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "a stored result after the restart: $(cat "$tmp/body")"
  expect_code 200 "127.0.0.1:$port/v1/status"
  jq -e '.done == 1' "$tmp/body" >/dev/null || fail "a stored result proved again: $(cat "$tmp/body")"
  # a read-only disk: a delete fails and says so; the job stays, also after a restart
  echo ro >"$ctl"
  expect_code 503 -X DELETE "127.0.0.1:$port/v1/proofs/$b1"
  grep -q "was not deleted: its files .* cannot be removed: Read-only file system" "$tmp/body" ||
    fail "DELETE on a read-only disk: $(cat "$tmp/body")"
  expect_code 200 "127.0.0.1:$port/v1/proofs/$b1"
  kill -TERM "$pid"; wait "$pid" || fail "SIGTERM on a read-only disk: exit $?"
  : >"$ctl"
  # leftovers of a crash, removed at the start
  touch "$sd/jobs/.0123456789abcdef0123456789abcdef.req.tmp" "$sd/jobs/0123456789abcdef0123456789abcdef.wtns" \
    "$sd/jobs/0123456789abcdef0123456789abcdef.res" "$sd/vks/.x.json.tmp"
  dstart
  grep -q "removed 4 files a crash left behind" "$out" || fail "leftovers: $(cat "$out"; ls -a "$sd/jobs")"
  expect_code 200 "127.0.0.1:$port/v1/proofs/$b1?wait=10" # shown running until its proof is checked
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "a stored result after its check: $(cat "$tmp/body")"
  expect_code 200 -X DELETE "127.0.0.1:$port/v1/proofs/$b1"
  # an uploaded witness goes once its job's result is written
  expect_code 202 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$tk\",\"witness\":\"$(base64 -w0 "$tw")\"}"
  up=$(jq -r .id "$tmp/body")
  expect_code 200 "127.0.0.1:$port/v1/proofs/$up?wait=30"
  [ ! -e "$sd/jobs/$up.wtns" ] || fail "an ended job's uploaded witness is kept"
  kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
  # a stored proof altered on disk: checked at the start, proved again
  jq -c '.proof.pi_a[0] = "1"' "$sd/jobs/$b2.res" >"$tmp/res" && mv "$tmp/res" "$sd/jobs/$b2.res"
  dstart
  expect_code 200 "127.0.0.1:$port/v1/proofs/$b2?wait=30"
  grep -q "job $b2: its stored proof does not verify against its key (damaged?); proving it again" "$out" ||
    fail "an altered stored proof: $(cat "$out")"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "an altered proof, proved again: $(cat "$tmp/body")"
  jq .proof "$tmp/body" >"$tmp/bp.json"; jq .public "$tmp/body" >"$tmp/bq.json"
  "$cuzk" zkey export-vk "$tmp/blk.zkey" "$tmp/blk.vk.json" >/dev/null
  "$cuzk" verify "$tmp/blk.vk.json" "$tmp/bq.json" "$tmp/bp.json" >/dev/null || fail "the proof proved again"
  kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
  daemon_env=()
else
  echo "note: no fault_fs library; the durability cases are skipped"
fi

# --- 7. replies
start_daemon --listen 127.0.0.1:0 --state-dir "$tmp/s4" "${paths[@]}"
long=$(printf '\xc3\xa9%.0s' $(seq 400)) # 400 x e-acute: any cut lands inside a character
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"$long\",\"witness_path\":\"$tw\"}"
jq -e '.error | test("key_id.*expected 1 to 64 letters")' "$tmp/body" >/dev/null ||
  fail "a message cut inside a character: $(cat "$tmp/body")"
# every string a client gives is bounded: a 4 MiB key id or path is refused with a 400, not stored
big=$(head -c 4194304 /dev/zero | tr '\0' a)
printf '{"key_id":"%s","witness_path":"%s"}' "$big" "$tw" >"$tmp/big.json"
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" --data-binary @"$tmp/big.json"
printf '{"key_path":"/%s","witness_path":"%s"}' "$big" "$tw" >"$tmp/big.json"
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" --data-binary @"$tmp/big.json"
grep -q "longer than the 4095 a path may have" "$tmp/body" || fail "a 4 MiB path: $(head -c 300 "$tmp/body")"
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -H "Idempotency-Key: ${big:0:65536}" -d "{\"key_path\":\"$tk\",\"witness_path\":\"$tw\"}")
[ "${code:0:1}" = 4 ] || fail "a 64 KiB request id: HTTP $code"
expect_code 200 -I "127.0.0.1:$port/healthz"
id=$(submit_paths "$tk" "$tw")
expect_code 200 -I "127.0.0.1:$port/v1/proofs/$id"
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d '[1, 2]'
grep -q 'expected a JSON object, found an array' "$tmp/body" || fail "array body: $(cat "$tmp/body")"
expect_code 400 -X POST "127.0.0.1:$port/v1/keys/k" -d '"path"'
grep -q 'found a string' "$tmp/body" || fail "string body: $(cat "$tmp/body")"
code=$(api -X POST "127.0.0.1:$port/v1/keys/k" -d '{"path":"/nonexistent/k.zkey"}')
[ "${code:0:1}" = 4 ] || fail "a client's missing key file: HTTP $code, want a 4xx: $(cat "$tmp/body")"
expect_code 413 -X POST "127.0.0.1:$port/v1/proofs" -H "Content-Length: 999999999999" -d x
# framing a proxy in front could read another way (request smuggling), or
# with no end to find: 400 at once
raw() { # raw REQUEST: the status line of the answer to REQUEST sent as is (printf's escapes), within 5 s
  trap '' PIPE # the daemon may answer and close before all is sent
  exec 3<>"/dev/tcp/127.0.0.1/$port" || fail "cannot connect"
  printf "$1" >&3
  timeout 5 head -n 1 <&3 | tr -d '\r'
  exec 3<&-
}
# (headers alone: the answer comes before any body is read)
for r in 'Content-Length: 2\r\nContent-Length: 3\r\n\r\n' 'Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n' \
         'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n' 'Transfer-Encoding: gzip\r\n\r\n'; do
  got=$(raw "POST /v1/proofs HTTP/1.1\r\nHost: x\r\n$r")
  [ "$got" = "HTTP/1.1 400 Bad Request" ] || fail "framing '$r': '$got', want 400"
done
[ "$(raw 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')" = "HTTP/1.1 200 OK" ] || fail "raw healthz"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"

# --- 8. the state directory: one daemon on it; results bound to their jobs; journal edge cases
sd=$tmp/s12
start_daemon --listen 127.0.0.1:0 --state-dir "$sd" "${paths[@]}"
first=$pid
"$cuzk" serve --listen 127.0.0.1:0 --state-dir "$sd" "${paths[@]}" >"$tmp/second.out" 2>&1 &
second=$!; pids+=("$second")
for _ in $(seq 100); do kill -0 "$second" 2>/dev/null || break; sleep 0.1; done
kill -0 "$second" 2>/dev/null && fail "a second daemon runs on the same --state-dir: $(cat "$tmp/second.out")"
wait "$second"; rc=$?
[ "$rc" != 0 ] && grep -q "is in use by another cuzk serve (process $first, " "$tmp/second.out" ||
  fail "a second daemon on one --state-dir: exit $rc: $(cat "$tmp/second.out")"
# two jobs of two curves, done; then one's result copied over the other's
a=$(submit_paths "$tk" "$tw")
b=$(submit_paths "$fx/bls12381/tiny.zkey" "$fx/bls12381/tiny.wtns")
for id in "$a" "$b"; do
  expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=30"; [ "$(jq -r .state "$tmp/body")" = done ] || fail "job $id"
done
expect_code 200 "127.0.0.1:$port/v1/proofs/$a"; jq -S '{proof, public}' "$tmp/body" >"$tmp/a.result"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
cp "$sd/jobs/$a.res" "$sd/jobs/$b.res"
# a request file copied under another job's name, and a FIFO named like a request
c=0123456789abcdef0123456789abcdef
cp "$sd/jobs/$a.req" "$sd/jobs/$c.req"
mkfifo "$sd/jobs/fedcba9876543210fedcba9876543210.req" "$sd/jobs/fedcba9876543210fedcba9876543210.res"
start_daemon --listen 127.0.0.1:0 --state-dir "$sd" "${paths[@]}"
grep -q "$c.req: it is the request of another job (a copy?); not resumed" "$out" || fail "a copied request: $(cat "$out")"
grep -q "job $b: its stored result is unreadable or another job's; proving it again" "$out" ||
  fail "a result copied over another job's: $(cat "$out")"
expect_code 404 "127.0.0.1:$port/v1/proofs/$c"
expect_code 200 "127.0.0.1:$port/v1/proofs/$b?wait=30"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "job $b after its result was replaced: $(cat "$tmp/body")"
jq -S '{proof, public}' "$tmp/body" >"$tmp/b.result"
cmp -s "$tmp/a.result" "$tmp/b.result" && fail "job $b served job $a's result"
jq .proof "$tmp/body" >"$tmp/bp.json"; jq .public "$tmp/body" >"$tmp/bq.json"
"$cuzk" verify "$fx/bls12381/tiny.vk.json" "$tmp/bq.json" "$tmp/bp.json" >/dev/null || fail "job $b's proof"
expect_code 200 "127.0.0.1:$port/v1/proofs/$a?wait=30"
cmp -s <(jq -S '{proof, public}' "$tmp/body") "$tmp/a.result" || fail "job $a's own result changed"
# a stored result with a field it should not have (the proof carries more than a proof): proved again
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
rm -f "$sd/jobs/fedcba9876543210fedcba9876543210".re[qs]
jq -c '.proof.extra = "<script>"' "$sd/jobs/$a.res" >"$tmp/res" && mv "$tmp/res" "$sd/jobs/$a.res"
start_daemon --listen 127.0.0.1:0 --state-dir "$sd" "${paths[@]}"
grep -q "job $a: its stored result is unreadable" "$out" || fail "a stored proof with an extra field: $(cat "$out")"
expect_code 200 "127.0.0.1:$port/v1/proofs/$a?wait=30"
grep -q "script" "$tmp/body" && fail "a stored field served unchecked: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM: exit $?"
echo "hostile: ok"
