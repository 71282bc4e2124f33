#!/usr/bin/env bash
# cuzk serve on loopback (bounded in time): 208 jobs from 16 concurrent
# clients over every fixture, both curves, each result verified by snarkjs;
# kill -9 under load and a restart on the same state directory lose no
# accepted job; cancel; priorities; 429 under overload; 413; bad input gets
# its 4xx and the daemon stays up; SIGTERM exits 0.
# usage: test_serve.sh CUZK FIXTURES_DIR [NODE]
set -u
cuzk=$1 fx=$2 node=${3:-}
. "$(dirname "$0")/daemon_lib.sh"

start() { # start STATE_DIR [args...]: sets $port and $pid
  local dir=$1; shift
  start_daemon --listen 127.0.0.1:0 --state-dir "$dir" "$@"
}
api() { curl -s -o "$tmp/body" -w "%{http_code}" "$@"; }
submit() { # submit CURVE NAME [PRIORITY]: prints the id
  local code
  code=$(api -X POST "127.0.0.1:$port/v1/proofs" \
    -d "{\"key_path\":\"$fx/$1/$2.zkey\",\"witness_path\":\"$fx/$1/$2.wtns\",\"priority\":\"${3:-normal}\"}")
  [ "$code" = 202 ] || fail "submit $1/$2: HTTP $code $(cat "$tmp/body")"
  jq -r .id "$tmp/body"
}

# --- many jobs from concurrent clients
start "$tmp/s1" --workers 2 --threads 1
names=(tiny mul1k poseidon3)
curves=(bn128 bls12381)
clients=()
for c in $(seq 16); do
  (
    for i in $(seq 13); do
      k=$(( (c * 13 + i) % 6 )); cv=${curves[$((k / 3))]}; nm=${names[$((k % 3))]}
      if [ $((i % 2)) = 0 ]; then # half the witnesses inline, base64
        w=$(base64 -w0 "$fx/$cv/$nm.wtns")
        printf '{"key_path":"%s","witness":"%s"}' "$fx/$cv/$nm.zkey" "$w" >"$tmp/req.$c.$i"
        code=$(curl -s -o "$tmp/resp.$c.$i" -w "%{http_code}" -X POST "127.0.0.1:$port/v1/proofs" -d @"$tmp/req.$c.$i")
      else
        code=$(curl -s -o "$tmp/resp.$c.$i" -w "%{http_code}" -X POST "127.0.0.1:$port/v1/proofs" \
          -d "{\"key_path\":\"$fx/$cv/$nm.zkey\",\"witness_path\":\"$fx/$cv/$nm.wtns\"}")
      fi
      [ "$code" = 202 ] || { echo "client $c: HTTP $code" >"$tmp/client_fail"; exit 1; }
      echo "$(jq -r .id "$tmp/resp.$c.$i") $cv $nm" >>"$tmp/ids.$c"
    done
  ) &
  clients+=($!)
done
wait "${clients[@]}"
[ -e "$tmp/client_fail" ] && fail "$(cat "$tmp/client_fail")"
cat "$tmp"/ids.* >"$tmp/ids"
[ "$(wc -l <"$tmp/ids")" = 208 ] || fail "expected 208 accepted jobs"
triples=()
n=0
while read -r id cv nm; do
  code=$(api "127.0.0.1:$port/v1/proofs/$id?wait=60")
  [ "$code" = 200 ] || fail "GET $id: HTTP $code"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "job $id: $(cat "$tmp/body")"
  jq -e '.timings.total > 0 and .timings.msm_h > 0 and (.timings.queue_wait >= 0)' "$tmp/body" >/dev/null ||
    fail "job $id: timings missing"
  jq .proof "$tmp/body" >"$tmp/p$n.json"
  jq .public "$tmp/body" >"$tmp/pub$n.json"
  cmp -s <(jq -c . "$tmp/pub$n.json") <(jq -c . "$fx/$cv/$nm.public.json") || fail "job $id: public differs"
  triples+=("$fx/$cv/$nm.vk.json:$tmp/pub$n.json:$tmp/p$n.json")
  n=$((n + 1))
done <"$tmp/ids"
if [ -n "$node" ] && [ -d "$(dirname "$0")/snarkjs/node_modules/snarkjs" ]; then
  "$node" "$(dirname "$0")/snarkjs/verify_many.mjs" "${triples[@]}" || fail "snarkjs rejected a daemon proof"
fi
code=$(api "127.0.0.1:$port/v1/status"); [ "$code" = 200 ] && jq -e '.done == 208' "$tmp/body" >/dev/null ||
  fail "status: $(cat "$tmp/body")"
# the pipeline's figures: every stage seen, every mean measured
jq -e '.pipeline.busy.compute > 0 and .pipeline.busy.prepare > 0 and .pipeline.busy.finalize > 0
       and .pipeline.mean_seconds.latency > 0 and .pipeline.mean_seconds.compute > 0
       and .pipeline.queues.ready_depth >= 1 and (.pipeline.stages | length) == 5' "$tmp/body" >/dev/null ||
  fail "status pipeline: $(cat "$tmp/body")"
code=$(api "127.0.0.1:$port/metrics"); grep -q 'cuzk_jobs_total{state="done"} 208' "$tmp/body" || fail "metrics"
grep -q 'cuzk_jobs_in_stage{stage="compute"}' "$tmp/body" && grep -q 'cuzk_stage_mean_seconds{stage="latency"}' "$tmp/body" ||
  fail "metrics: the pipeline's lines"

# --- bad input: a 4xx naming the problem, and the daemon stays up
expect_code() { local want=$1; shift; local got; got=$(api "$@"); [ "$got" = "$want" ] || fail "$* -> $got, want $want: $(cat "$tmp/body")"; }
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d '{not json'
grep -q "JSON" "$tmp/body" || fail "malformed JSON message"
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d '{"witness_path":"x"}'
grep -q "key_path" "$tmp/body" || fail "missing key message"
expect_code 404 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"nope\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}"
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness\":\"***\"}"
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\",\"priority\":\"urgent\"}"
expect_code 404 "127.0.0.1:$port/v1/proofs/0123456789abcdef0123456789abcdef"
expect_code 400 "127.0.0.1:$port/v1/proofs/bad%2Fid"
expect_code 404 "127.0.0.1:$port/v1/nothing"
id=$(submit bls12381 tiny)
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bls12381/tiny.wtns\"}")
bad=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$bad?wait=30"
[ "$(jq -r .state "$tmp/body")" = failed ] && jq -r .error "$tmp/body" | grep -q "witness" ||
  fail "wrong-curve witness: $(cat "$tmp/body")"
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"/nonexistent.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}")
bad=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$bad?wait=30"
jq -r .error "$tmp/body" | grep -q "/nonexistent.zkey" || fail "bad key path: $(cat "$tmp/body")"
expect_code 200 "127.0.0.1:$port/healthz"
# keys: preload, use by id, evict
expect_code 200 -X POST "127.0.0.1:$port/v1/keys/mul" -d "{\"path\":\"$fx/bn128/mul1k.zkey\"}"
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"mul\",\"witness_path\":\"$fx/bn128/mul1k.wtns\"}")
[ "$code" = 202 ] || fail "submit by key id: $code"
kid=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$kid?wait=30"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "job by key id: $(cat "$tmp/body")"
expect_code 200 -X DELETE "127.0.0.1:$port/v1/keys/mul"
expect_code 404 -X DELETE "127.0.0.1:$port/v1/keys/mul"
# a finished job can be deleted, then it is gone
expect_code 200 -X DELETE "127.0.0.1:$port/v1/proofs/$kid"
expect_code 404 "127.0.0.1:$port/v1/proofs/$kid"
kill -TERM "$pid"; wait "$pid"; rc=$?
[ "$rc" = 0 ] || fail "SIGTERM: exit $rc"

# --- overload, cancellation, priorities: one worker, a small queue, big bodies refused
# a blocker that keeps the one worker busy for a second or more: a generated
# circuit of 2^17 constraints with a fresh (testing-only) key
"$cuzk" circuit sha256-chain "$tmp/blk.r1cs" "$tmp/blk.wtns" --constraints 2^17 >/dev/null 2>&1 &&
  "$cuzk" setup "$tmp/blk.r1cs" "$tmp/blk.zkey" >/dev/null 2>&1 || fail "making the blocker circuit"
start "$tmp/s2" --workers 1 --threads 1 --max-jobs 6 --max-body 100000
code=$(api -X POST "127.0.0.1:$port/v1/proofs" \
  -d "{\"key_path\":\"$tmp/blk.zkey\",\"witness_path\":\"$tmp/blk.wtns\",\"priority\":\"low\"}")
[ "$code" = 202 ] || fail "blocker: HTTP $code $(cat "$tmp/body")"
ids=()
for p in low normal critical high low; do ids+=("$(submit bn128 poseidon3 "$p")"); done
code=$(curl -s -D "$tmp/hdr" -o "$tmp/body" -w "%{http_code}" -X POST "127.0.0.1:$port/v1/proofs" \
  -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}")
[ "$code" = 429 ] || fail "overload: HTTP $code $(cat "$tmp/body")"
grep -qi "^retry-after" "$tmp/hdr" || fail "429 without Retry-After"
expect_code 202 -X DELETE "127.0.0.1:$port/v1/proofs/${ids[4]}" # cancel the second low
head -c 200000 /dev/zero | tr '\0' 'a' >"$tmp/big"
expect_code 413 -X POST "127.0.0.1:$port/v1/proofs" --data-binary @"$tmp/big"
prev=""
for k in 2 3 1 0; do # critical, high, normal, low must finish in that order
  expect_code 200 "127.0.0.1:$port/v1/proofs/${ids[$k]}?wait=60"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "priority job $k: $(cat "$tmp/body")"
  seq=$(jq -r .finished "$tmp/body")
  [ -z "$prev" ] || [ "$seq" -gt "$prev" ] || fail "priority order: job $k finished at $seq, before $prev"
  prev=$seq
done
expect_code 200 "127.0.0.1:$port/v1/proofs/${ids[4]}?wait=10"
[ "$(jq -r .state "$tmp/body")" = cancelled ] || fail "cancelled job: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid"

# --- kill -9 under load, restart: no accepted job lost
start "$tmp/s3" --workers 1 --threads 1
acc=()
for i in $(seq 12); do acc+=("$(submit bls12381 poseidon3)"); done
sleep 0.3
kill -9 "$pid"; wait "$pid" 2>/dev/null
start "$tmp/s3" --workers 2 --threads 1
grep -q "journaled job" "$out" || fail "restart banner"
for id in "${acc[@]}"; do
  expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=120"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "after kill -9: job $id: $(cat "$tmp/body")"
done
kill -TERM "$pid"; wait "$pid"
echo "serve: ok"
