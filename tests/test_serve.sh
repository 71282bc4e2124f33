#!/usr/bin/env bash
# cuzk serve on loopback (bounded in time): 208 jobs from 16 concurrent
# clients over every fixture, both curves, each result verified by snarkjs;
# kill -9 under load and a restart on the same state directory lose no
# accepted job; cancel; priorities; 429 under overload; 413; bad input gets
# its 4xx and the daemon stays up; SIGTERM exits 0; request ids: a retry
# gets the job the first POST made (also racing it, when the daemon is full,
# and after kill -9 and a restart), another request under the same id a
# 409, a malformed id a 400, an expired or deleted job's id is free again.
# usage: test_serve.sh CUZK FIXTURES_DIR [NODE]
set -u
cuzk=$1 fx=$(cd "$2" && pwd) node=${3:-}
. "$(dirname "$0")/daemon_lib.sh"

start() { # start STATE_DIR [args...]: sets $port and $pid; clients may name the fixtures and $tmp's files
  local dir=$1; shift
  start_daemon --listen 127.0.0.1:0 --state-dir "$dir" --key-dir "$fx" --key-dir "$tmp" --witness-dir "$fx" \
    --witness-dir "$tmp" "$@"
}
submit() { submit_paths "$fx/$1/$2.zkey" "$fx/$1/$2.wtns" "${3:-normal}"; } # submit CURVE NAME [PRIORITY]

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
# a key that goes missing between the POST and the proof: the job fails naming it
cp "$fx/bn128/tiny.zkey" "$tmp/gone.zkey"
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$tmp/gone.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\",\"priority\":\"low\"}")
bad=$(jq -r .id "$tmp/body")
rm "$tmp/gone.zkey"
expect_code 200 "127.0.0.1:$port/v1/proofs/$bad?wait=30"
[ "$(jq -r .state "$tmp/body")" = done ] ||
  jq -r .error "$tmp/body" | grep -q "gone.zkey" || fail "a key gone: $(cat "$tmp/body")"
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
# a bellperson .params key with its circuit: by path and by id; the proof verifies with its exported vk
"$cuzk" setup "$fx/bls12381/poseidon3.r1cs" "$tmp/bp.params" --format params -q 2>/dev/null || fail "setup .params"
"$cuzk" zkey export-vk "$tmp/bp.params" "$tmp/bp.vk.json" || fail "export-vk .params"
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$tmp/bp.params\",\"r1cs_path\":\"$fx/bls12381/poseidon3.r1cs\",\"witness_path\":\"$fx/bls12381/poseidon3.wtns\"}")
[ "$code" = 202 ] || fail "submit a .params key: $code $(cat "$tmp/body")"
pid_bp=$(jq -r .id "$tmp/body")
expect_code 200 -X POST "127.0.0.1:$port/v1/keys/bp" -d "{\"path\":\"$tmp/bp.params\",\"r1cs_path\":\"$fx/bls12381/poseidon3.r1cs\"}"
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"bp\",\"witness_path\":\"$fx/bls12381/poseidon3.wtns\"}")
[ "$code" = 202 ] || fail "submit by a .params key's id: $code"
kid_bp=$(jq -r .id "$tmp/body")
for j in "$pid_bp" "$kid_bp"; do
  expect_code 200 "127.0.0.1:$port/v1/proofs/$j?wait=30"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail ".params job: $(cat "$tmp/body")"
  jq .proof "$tmp/body" >"$tmp/bp.proof.json"
  jq .public "$tmp/body" >"$tmp/bp.public.json"
  "$cuzk" verify "$tmp/bp.vk.json" "$tmp/bp.public.json" "$tmp/bp.proof.json" >/dev/null || fail ".params proof rejected"
done
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"bp\",\"r1cs_path\":\"$fx/bls12381/poseidon3.r1cs\",\"witness_path\":\"$fx/bls12381/poseidon3.wtns\"}"
expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$tmp/bp.params\",\"r1cs_path\":7,\"witness_path\":\"$fx/bls12381/poseidon3.wtns\"}"
expect_code 403 -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_path\":\"$tmp/bp.params\",\"r1cs_path\":\"/etc/passwd\",\"witness_path\":\"$fx/bls12381/poseidon3.wtns\"}"
expect_code 400 -X POST "127.0.0.1:$port/v1/keys/bp" -d "{\"path\":\"$tmp/bp.params\",\"r1cs_path\":[]}"
expect_code 200 -X DELETE "127.0.0.1:$port/v1/keys/bp"
# jobs of several partitions (Filecoin's PoRep: one key, P proofs): made from
# the key's native circuit, by witness paths, by uploads; each proof of the
# arrays verified with the key's exported vk, bellperson's bytes 192 a
# partition, the same publics whichever way the witnesses came; a retry under
# a request id finds its job; bad requests get their 4xx
"$cuzk" circuit porep-shape "$tmp/pr" --constraints 4096 --partitions 3 --format native --witnesses -q >/dev/null ||
  fail "porep-shape"
"$cuzk" setup "$tmp/pr/circuit.porep" "$tmp/pr/k.params" --format params -q 2>/dev/null || fail "setup porep-shape"
"$cuzk" zkey export-vk "$tmp/pr/k.params" "$tmp/pr/vk.json" || fail "export-vk porep-shape"
pk="\"key_path\":\"$tmp/pr/k.params\",\"r1cs_path\":\"$tmp/pr/circuit.porep\""
wpaths="[\"$tmp/pr/partition_0.wtns\",\"$tmp/pr/partition_1.wtns\",\"$tmp/pr/partition_2.wtns\"]"
printf '{%s,"witnesses":["%s","%s","%s"]}' "$pk" "$(base64 -w0 "$tmp/pr/partition_0.wtns")" \
  "$(base64 -w0 "$tmp/pr/partition_1.wtns")" "$(base64 -w0 "$tmp/pr/partition_2.wtns")" >"$tmp/pr/up.json"
part_ids=() triples_pr=()
for body in "{$pk,\"partitions\":3,\"request_id\":\"parts-1\"}" "{$pk,\"witness_paths\":$wpaths}" @"$tmp/pr/up.json" \
            "{$pk,\"partitions\":2,\"partition\":1}"; do
  code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "$body")
  [ "$code" = 202 ] || fail "submit a job of partitions ($body): $code $(cat "$tmp/body")"
  part_ids+=("$(jq -r .id "$tmp/body")")
done
expect_code 200 -X POST "127.0.0.1:$port/v1/proofs" -d "{$pk,\"partitions\":3,\"request_id\":\"parts-1\"}"
jq -e --arg id "${part_ids[0]}" '.id == $id and .duplicate == true' "$tmp/body" >/dev/null || fail "retry of a job of partitions"
expect_code 409 -X POST "127.0.0.1:$port/v1/proofs" -d "{$pk,\"partitions\":2,\"request_id\":\"parts-1\"}"
k=0
for j in "${part_ids[@]}"; do
  expect_code 200 "127.0.0.1:$port/v1/proofs/$j?wait=60"
  n=$([ $k = 3 ] && echo 2 || echo 3)
  jq -e --argjson n "$n" '.state == "done" and .partitions == $n and (.proof | length) == $n and (.public | length) == $n' \
    "$tmp/body" >/dev/null || fail "job of partitions $k: $(head -c 600 "$tmp/body")"
  [ "$(jq -r .bellperson "$tmp/body" | base64 -d | wc -c)" = $((192 * n)) ] || fail "job of partitions $k: bellperson bytes"
  jq -c .public "$tmp/body" >"$tmp/pr/pub.$k"
  for p in $(seq 0 $((n - 1))); do
    jq ".proof[$p]" "$tmp/body" >"$tmp/pr/proof.$k.$p.json"
    jq ".public[$p]" "$tmp/body" >"$tmp/pr/public.$k.$p.json"
    "$cuzk" verify "$tmp/pr/vk.json" "$tmp/pr/public.$k.$p.json" "$tmp/pr/proof.$k.$p.json" >/dev/null ||
      fail "job of partitions $k: partition $p rejected"
    triples_pr+=("$tmp/pr/vk.json:$tmp/pr/public.$k.$p.json:$tmp/pr/proof.$k.$p.json")
  done
  k=$((k + 1))
done
if [ -n "$node" ] && [ -d "$(dirname "$0")/snarkjs/node_modules/snarkjs" ]; then
  "$node" "$(dirname "$0")/snarkjs/verify_many.mjs" "${triples_pr[@]}" || fail "snarkjs rejected a partition's proof"
fi
cmp -s "$tmp/pr/pub.0" "$tmp/pr/pub.1" && cmp -s "$tmp/pr/pub.0" "$tmp/pr/pub.2" || fail "partitions' publics differ by form"
[ "$(jq -c '.[1]' "$tmp/pr/pub.0")" = "$(jq -c '.[0]' "$tmp/pr/pub.3")" ] || fail "partition 1 from \"partition\": 1"
[ "$(jq -c '.[0]' "$tmp/pr/pub.0")" != "$(jq -c '.[1]' "$tmp/pr/pub.0")" ] || fail "partitions 0 and 1 have one witness"
ls "$tmp/s1/jobs" | grep -q "^${part_ids[2]}\..*wtns" && fail "uploaded witnesses kept after the result"
# partitions 1 to 3 of a circuit of 3: failed, naming partition 3
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{$pk,\"partitions\":3,\"partition\":1}")
bad=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$bad?wait=60"
jq -e '.state == "failed" and (.error | startswith("partition 3: "))' "$tmp/body" >/dev/null ||
  fail "a partition past the circuit's: $(cat "$tmp/body")"
for body in "{$pk,\"partitions\":0}" "{$pk,\"partitions\":\"3\"}" "{$pk,\"partitions\":2000}" \
            "{$pk,\"partitions\":2,\"partition\":-1}" "{$pk,\"partition\":1,\"witness_paths\":$wpaths}" \
            "{$pk,\"partitions\":3,\"witness_paths\":$wpaths}" "{$pk,\"witness_paths\":[]}" \
            "{$pk,\"witness_paths\":[7]}" "{$pk,\"witness_paths\":\"$tmp/pr/partition_0.wtns\"}" \
            "{$pk,\"witnesses\":[\"***\"]}" "{$pk,\"witnesses\":{}}"; do
  expect_code 400 -X POST "127.0.0.1:$port/v1/proofs" -d "$body"
done
expect_code 403 -X POST "127.0.0.1:$port/v1/proofs" -d "{$pk,\"witness_paths\":[\"$tmp/pr/partition_0.wtns\",\"/etc/passwd\"]}"
grep -q 'witness_paths\\"\[1\]' "$tmp/body" || fail "the refused path is named by its place: $(cat "$tmp/body")"
# kept across kill -9: each stored proof of the arrays checked, then served as before
kill -9 "$pid"; wait "$pid" 2>/dev/null
start "$tmp/s1" --workers 2 --threads 1
expect_code 200 "127.0.0.1:$port/v1/proofs/${part_ids[2]}?wait=60"
jq -e '.state == "done" and .partitions == 3' "$tmp/body" >/dev/null && cmp -s <(jq -c .public "$tmp/body") "$tmp/pr/pub.2" ||
  fail "a job of partitions after a restart: $(head -c 600 "$tmp/body")"
# the kept results are checked in the background: the one deleted below once it is
expect_code 200 "127.0.0.1:$port/v1/proofs/$kid?wait=60"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "job $kid after the restart: $(head -c 300 "$tmp/body")"
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
# one compute worker, on the CPU also on a GPU machine: the blocker must
# still run while the jobs behind it are submitted, and a 2^17 proof on a
# GPU ends within a few curl calls; and nothing prepared ahead (as on the
# CPU by default: a job already prepared is not overtaken, so whether an
# early submission got there first would be a race)
start "$tmp/s2" --workers 1 --device cpu --threads 1 --ahead -1 --max-jobs 6 --max-body 100000
code=$(api -X POST "127.0.0.1:$port/v1/proofs" \
  -d "{\"key_path\":\"$tmp/blk.zkey\",\"witness_path\":\"$tmp/blk.wtns\",\"priority\":\"low\",\"request_id\":\"blk-1\"}")
[ "$code" = 202 ] || fail "blocker: HTTP $code $(cat "$tmp/body")"
blk=$(jq -r .id "$tmp/body")
ids=()
for p in low normal critical high low; do ids+=("$(submit bn128 poseidon3 "$p")"); done
code=$(curl -s -D "$tmp/hdr" -o "$tmp/body" -w "%{http_code}" -X POST "127.0.0.1:$port/v1/proofs" \
  -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}")
[ "$code" = 429 ] || fail "overload: HTTP $code $(cat "$tmp/body")"
grep -qi "^retry-after" "$tmp/hdr" || fail "429 without Retry-After"
# full: a retry of an accepted job still gets it (it adds nothing); a new
# request id is refused like any new job, and not remembered
expect_code 200 -X POST "127.0.0.1:$port/v1/proofs" -H "Idempotency-Key: blk-1" \
  -d "{\"key_path\":\"$tmp/blk.zkey\",\"witness_path\":\"$tmp/blk.wtns\",\"priority\":0}"
jq -e --arg id "$blk" '.id == $id and .duplicate' "$tmp/body" >/dev/null || fail "retry while full: $(cat "$tmp/body")"
full_req="{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\",\"request_id\":\"full-1\"}"
expect_code 429 -X POST "127.0.0.1:$port/v1/proofs" -d "$full_req"
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
expect_code 202 -X POST "127.0.0.1:$port/v1/proofs" -d "$full_req" # refused when full: not taken then
kill -TERM "$pid"; wait "$pid"

# --- request ids (idempotent submission)
start "$tmp/s4" --workers 1 --threads 1
body_for() { # body_for KEY WITNESS REQUEST_ID [PRIORITY]: a request by paths
  printf '{"key_path":"%s","witness_path":"%s","priority":"%s","request_id":"%s"}' "$1" "$2" "${4:-normal}" "$3"
}
post() { expect_code "$1" -X POST "127.0.0.1:$port/v1/proofs" "${@:2}"; }
tk=$fx/bn128/tiny.zkey tw=$fx/bn128/tiny.wtns
post 202 -d "$(body_for "$tk" "$tw" r-1)"
r1=$(jq -r .id "$tmp/body")
jq -e '.request_id == "r-1" and .state == "queued" and (has("duplicate") | not)' "$tmp/body" >/dev/null ||
  fail "first POST under a request id: $(cat "$tmp/body")"
post 200 -d "$(body_for "$tk" "$tw" r-1)"
jq -e --arg id "$r1" '.id == $id and .duplicate == true and .request_id == "r-1"' "$tmp/body" >/dev/null ||
  fail "retry: $(cat "$tmp/body")"
# the header as the field; priority 1 is "normal"
post 200 -H "Idempotency-Key: r-1" -d "{\"key_path\":\"$tk\",\"witness_path\":\"$tw\",\"priority\":1}"
[ "$(jq -r .id "$tmp/body")" = "$r1" ] || fail "retry by Idempotency-Key: $(cat "$tmp/body")"
# the same id on another request: 409 naming the id, never its job (a job
# id is the right to read and delete the job's result)
for other in "$(body_for "$tk" "$fx/bn128/mul1k.wtns" r-1)" "$(body_for "$tk" "$tw" r-1 high)" \
             "$(body_for "$fx/bn128/mul1k.zkey" "$tw" r-1)"; do
  post 409 -d "$other"
  grep -q "request_id 'r-1' names another request" "$tmp/body" || fail "409 message: $(cat "$tmp/body")"
  ! grep -q "$r1" "$tmp/body" || fail "409 hands out the job id: $(cat "$tmp/body")"
done
# malformed ids: 400 naming the field, the rule and what came
long=$(printf 'x%.0s' $(seq 65))
for bad in '""' '"a b"' '"x/y"' '12' "\"$long\""; do
  post 400 -d "{\"key_path\":\"$tk\",\"witness_path\":\"$tw\",\"request_id\":$bad}"
  grep -q '"request_id\\" expects .*1 to 64 letters, digits' "$tmp/body" || fail "bad request_id $bad: $(cat "$tmp/body")"
done
grep -q "got 'xxxxxxxx" "$tmp/body" || fail "bad request_id: what came is not shown: $(cat "$tmp/body")"
post 400 -H "Idempotency-Key: a:b" -d "$(body_for "$tk" "$tw" r-1)"
grep -q "Idempotency-Key header: expects 1 to 64 .*got 'a:b'" "$tmp/body" || fail "bad header: $(cat "$tmp/body")"
post 400 -H "Idempotency-Key: r-2" -d "$(body_for "$tk" "$tw" r-1)"
grep -q "differ" "$tmp/body" || fail "header and field disagree: $(cat "$tmp/body")"
post 202 -d "$(body_for "$tk" "$tw" "${long:1}")" # 64 characters are fine
l64=$(jq -r .id "$tmp/body")
# an uploaded witness compares by its bytes: URL-safe base64 without padding is the same request
w=$(base64 -w0 "$tw")
post 202 -d "{\"key_path\":\"$tk\",\"witness\":\"$w\",\"request_id\":\"up-1\"}"
up=$(jq -r .id "$tmp/body")
post 200 -d "{\"key_path\":\"$tk\",\"witness\":\"$(printf %s "$w" | tr '+/' '-_' | tr -d =)\",\"request_id\":\"up-1\"}"
[ "$(jq -r .id "$tmp/body")" = "$up" ] || fail "uploaded retry: $(cat "$tmp/body")"
post 409 -d "{\"key_path\":\"$tk\",\"witness\":\"$(base64 -w0 "$fx/bn128/mul1k.wtns")\",\"request_id\":\"up-1\"}"
# eight POSTs racing under one id: one job
racers=()
for i in $(seq 8); do
  curl -s -o "$tmp/race.$i" -w "%{http_code}" -X POST "127.0.0.1:$port/v1/proofs" \
    -d "$(body_for "$tk" "$tw" race-1)" >"$tmp/race_code.$i" &
  racers+=($!)
done
wait "${racers[@]}"
[ "$(cat "$tmp"/race_code.* | fold -w3 | sort | uniq -c | tr -s ' \n' ' ')" = " 7 200 1 202 " ] ||
  fail "racing retries: one 202 and seven 200 expected, got $(cat "$tmp"/race_code.*)"
[ "$(jq -r .id "$tmp"/race.* | sort -u | wc -l)" = 1 ] || fail "racing retries got several jobs: $(cat "$tmp"/race.*)"
for id in "$r1" "$l64" "$up" "$(jq -r .id "$tmp/race.1")"; do
  expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=60"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "job $id: $(cat "$tmp/body")"
done
# an ended job's retry gets it, done; only the four jobs above ran
post 200 -d "$(body_for "$tk" "$tw" r-1)"
jq -e --arg id "$r1" '.id == $id and .state == "done"' "$tmp/body" >/dev/null || fail "retry after done: $(cat "$tmp/body")"
expect_code 200 "127.0.0.1:$port/v1/status"
jq -e '.done == 4 and .duplicates == 11' "$tmp/body" >/dev/null ||
  fail "status after retries: $(cat "$tmp/body")"
jq -e '(.gpu_devices | type) == "array" and (.gpu_devices | length) == .gpus and
       all(.gpu_devices[]; (.name | length) > 0 and .memory_bytes > 0)' "$tmp/body" >/dev/null ||
  fail "status: one gpu_devices entry a GPU: $(cat "$tmp/body")"
# the daemon's options in force, from its table: sizes as the flags take
# them, a path or the queue's URI only as "set"
jq -e '.options["max-body"] == "256M" and .options["http-threads"] == "8" and .options["max-body-total"] == "1G" and
       .options["state-dir"] == "set" and .options["token-file"] == "" and .options["allow-any-path"] == "no" and
       .options["shutdown-grace"] == "30"' "$tmp/body" >/dev/null || fail "status: the options in force: $(jq -c .options "$tmp/body")"
g=$(jq .gpus "$tmp/body")
expect_code 200 "127.0.0.1:$port/metrics"
grep -q "^cuzk_submissions_duplicate_total 11$" "$tmp/body" || fail "metrics: duplicates"
[ "$(grep -c '^cuzk_gpu_info{gpu="[0-9]*",name="[^"]*",pci="[^"]*",compute="[0-9.]*",memory_bytes="[0-9]*"} 1$' "$tmp/body")" = "$g" ] ||
  fail "metrics: one cuzk_gpu_info line a GPU ($g)"
# an ended job deleted: its request id is free again
post 202 -d "$(body_for "$tk" "$tw" del-1)"
d1=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$d1?wait=60"
expect_code 200 -X DELETE "127.0.0.1:$port/v1/proofs/$d1"
post 202 -d "$(body_for "$tk" "$tw" del-1)"
d2=$(jq -r .id "$tmp/body")
[ "$d2" != "$d1" ] || fail "a deleted job's request id gave the old job"
expect_code 200 "127.0.0.1:$port/v1/proofs/$d2?wait=60"
expect_code 200 -X DELETE "127.0.0.1:$port/v1/proofs/$d2"
# kill -9, restart: retries still get their jobs, ended or not, and nothing runs twice
post 202 -d "$(body_for "$tmp/blk.zkey" "$tmp/blk.wtns" kill-blk low)"
kblk=$(jq -r .id "$tmp/body")
post 202 -d "$(body_for "$fx/bn128/poseidon3.zkey" "$fx/bn128/poseidon3.wtns" kill-q)"
kq=$(jq -r .id "$tmp/body")
kill -9 "$pid"; wait "$pid" 2>/dev/null
start "$tmp/s4" --workers 1 --threads 1
for pair in "r-1 $r1 $tk $tw normal" "kill-blk $kblk $tmp/blk.zkey $tmp/blk.wtns low" \
            "kill-q $kq $fx/bn128/poseidon3.zkey $fx/bn128/poseidon3.wtns normal"; do
  read -r rid id k w p <<<"$pair"
  post 200 -d "$(body_for "$k" "$w" "$rid" "$p")"
  jq -e --arg id "$id" '.id == $id and .duplicate' "$tmp/body" >/dev/null ||
    fail "retry of $rid after kill -9: $(cat "$tmp/body")"
  expect_code 200 "127.0.0.1:$port/v1/proofs/$id?wait=120"
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "job $id after kill -9: $(cat "$tmp/body")"
done
post 409 -d "$(body_for "$tk" "$fx/bn128/mul1k.wtns" kill-q)"
[ "$(ls "$tmp/s4/jobs"/*.req | wc -l)" = 6 ] || fail "jobs journaled: $(ls "$tmp/s4/jobs")"
kill -TERM "$pid"; wait "$pid"
# once a job's record expires (--result-ttl), its request id is free again
start "$tmp/s5" --workers 1 --threads 1 --result-ttl 1
post 202 -d "$(body_for "$tk" "$tw" ttl-1)"
t1=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$t1?wait=60"
for _ in $(seq 100); do
  [ "$(api "127.0.0.1:$port/v1/proofs/$t1")" = 404 ] && break
  sleep 0.1
done
post 202 -d "$(body_for "$tk" "$tw" ttl-1)"
[ "$(jq -r .id "$tmp/body")" != "$t1" ] || fail "an expired request id gave the old job"
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

# --- a .params key preloaded by the operator: --key ID=PATH with --key-circuit ID=R1CS
r=$fx/bls12381/poseidon3.r1cs
"$cuzk" serve --state-dir "$tmp/s4" --key-circuit bp=$r >"$tmp/kc.out" 2>&1 && fail "--key-circuit without its --key"
grep -q "no --key bp=PATH" "$tmp/kc.out" || fail "--key-circuit alone: $(cat "$tmp/kc.out")"
"$cuzk" serve --state-dir "$tmp/s4" --key "bp=$tmp/bp.params" --key-circuit bp=$r --key-circuit bp=$r >"$tmp/kc.out" 2>&1 &&
  fail "two circuits for one key"
grep -q "already has a circuit" "$tmp/kc.out" || fail "two --key-circuit: $(cat "$tmp/kc.out")"
start "$tmp/s4" --key "bp=$tmp/bp.params" --key-circuit "bp=$r"
code=$(api -X POST "127.0.0.1:$port/v1/proofs" -d "{\"key_id\":\"bp\",\"witness_path\":\"$fx/bls12381/poseidon3.wtns\"}")
[ "$code" = 202 ] || fail "submit by a preloaded .params key: $code"
j=$(jq -r .id "$tmp/body")
expect_code 200 "127.0.0.1:$port/v1/proofs/$j?wait=30"
[ "$(jq -r .state "$tmp/body")" = done ] || fail "preloaded .params job: $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid"
echo "serve: ok"
