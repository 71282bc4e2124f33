#!/usr/bin/env bash
# Three `cuzk serve --queue` nodes on one PostgreSQL server of the test's own
# (tests/pg_server.sh), on loopback, bounded in time (issue 22, docs/cluster.md):
#   - 300 jobs from 8 clients spread over the nodes, each read back from
#     another node than the one that took it, every result verified by
#     snarkjs; every node proved some;
#   - kill -9 of the node proving a job: the job finishes on another node
#     (attempt 2, the first attempt's reason kept); nothing lost;
#   - the database restarted under load: the nodes reconnect, every job ends;
#   - a node frozen (SIGSTOP) past its lease: the job is proved elsewhere,
#     and the frozen node, let go, writes nothing;
#   - a node cut off from the database by the network (flaky_proxy stalls
#     its path: no error reaches either end) past its lease: it notices
#     (no answer within its statement timeout), the job is proved
#     elsewhere, and once the path is back the node writes nothing;
#   - a critical job submitted behind 100 normal ones is claimed next;
#   - keys: jobs of a key only one node may open are proved there alone
#     (the others never claim them, and say why in /v1/status); a key file
#     changed behind the registry's back (its digest no longer the one the
#     nodes registered) is proved by no node until the operator clears its
#     registry row, then with the new key (verified by snarkjs); a node
#     whose --queue-max-queued is reached answers a POST with 429;
#   - uploads, request ids, DELETE and /v1/status from any node; bad input
#     gets its 4xx and the node keeps serving.
# Under the sanitizers (CUZK_TEST_ITERS set, as make asan-test does) 60 jobs
# and 30 normal ones, the slow job of 2^15 constraints: the same paths at a
# fraction of the proofs.
#   - a key id names one key fleet-wide: two nodes loading different keys
#     under one id, the second never claims its jobs (every result verifies
#     with the first's key); a node's table of keys, full of 4,100 keys no
#     node holds, still takes a critical job's new key; a second --node of
#     a live name is refused; a node whose state disk is full claims
#     nothing and says so in /healthz, and no job's attempt is spent on it;
#     a killed node's uploaded witnesses go at its restart.
# usage: test_cluster.sh CUZK FIXTURES_DIR [NODE [FLAKY_PROXY [FAULT_FS]]]
set -u
jobs=300 normals=100 slow_size=2^17
[ -n "${CUZK_TEST_ITERS:-}" ] && jobs=60 normals=30 slow_size=2^15
cuzk=$1 fx=$(cd "$2" && pwd) node=${3:-} proxy=${4:-} shim=${5:-}
. "$(dirname "$0")/daemon_lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
"$cuzk" version | grep -q "^queue: yes" || { echo "SKIP: cuzk built without libpq (the job queue)"; exit 77; }
chmod 0755 "$tmp" # the server runs as postgres when this runs as root
uri=$("$here/pg_server.sh" start "$tmp/pg"); rc=$?
[ $rc = 0 ] || exit $rc
trap '"$here/pg_server.sh" stop "$tmp/pg" >/dev/null 2>&1; rm -rf "${only1:-}"; cleanup' EXIT
sql() { "$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql" "$uri" -Atc "$1"; }

ports=() npids=() npids_out=()
only1=$(mktemp -d) && cp "$fx/bn128/tiny.zkey" "$only1/" # keys n1 alone may open (not under the others' --key-dir)
start_node() { # start_node K [URI]: node nK (again after a kill)
  local only=(); [ "$1" = 1 ] && only=(--key-dir "$only1")
  start_daemon --queue "${2:-$uri}" --node "n$1" --listen 127.0.0.1:0 --state-dir "$tmp/s$1" --key-dir "$fx" --key-dir "$tmp" "${only[@]}" \
    --witness-dir "$fx" --witness-dir "$tmp" --device cpu --workers 1 --threads 1 --lease 2 --queue-max-witness 1M
  ports[$1]=$port npids[$1]=$pid npids_out[$1]=$out
}
for k in 1 2 3; do start_node $k; done
at() { echo "127.0.0.1:${ports[$1]}"; } # at K: node K's address
post() { # post K BODY: a job through node K; prints its id
  local code; code=$(api -X POST "$(at "$1")/v1/proofs" -d "$2")
  [ "$code" = 202 ] || fail "POST to n$1: HTTP $code $(cat "$tmp/body")"
  jq -r .id "$tmp/body"
}
await() { # await K ID: the job, done, read from node K; its JSON in $tmp/body
  local code; code=$(api "$(at "$1")/v1/proofs/$2?wait=120")
  [ "$code" = 200 ] && [ "$(jq -r .state "$tmp/body")" = done ] || fail "job $2 from n$1: HTTP $code $(head -c 400 "$tmp/body")"
}

# --- $jobs jobs from 8 clients over the three nodes; each read back from another node
names=(tiny mul1k poseidon3) curves=(bn128 bls12381)
clients=()
for c in $(seq 8); do
  (
    per=$(( (jobs + 7) / 8 ))
    for i in $(seq $([ $c = 8 ] && echo $(( jobs - 7 * per )) || echo $per)); do # all 8 together: $jobs
      n=$(( (c - 1) * per + i ))
      k=$(( n % 6 )); cv=${curves[$((k / 3))]}; nm=${names[$((k % 3))]}; node=$(( n % 3 + 1 ))
      if [ $((i % 3)) = 0 ]; then
        printf '{"key_path":"%s","witness":"%s"}' "$fx/$cv/$nm.zkey" "$(base64 -w0 "$fx/$cv/$nm.wtns")" >"$tmp/req.$c"
        code=$(curl -s -o "$tmp/resp.$c" -w "%{http_code}" -X POST "$(at $node)/v1/proofs" -d @"$tmp/req.$c")
      else
        code=$(curl -s -o "$tmp/resp.$c" -w "%{http_code}" -X POST "$(at $node)/v1/proofs" \
          -d "{\"key_path\":\"$fx/$cv/$nm.zkey\",\"witness_path\":\"$fx/$cv/$nm.wtns\"}")
      fi
      [ "$code" = 202 ] || { echo "client $c: HTTP $code $(cat "$tmp/resp.$c")" >"$tmp/client_fail"; exit 1; }
      echo "$(jq -r .id "$tmp/resp.$c") $cv $nm $node" >>"$tmp/ids.$c"
    done
  ) &
  clients+=($!)
done
wait "${clients[@]}"
[ -e "$tmp/client_fail" ] && fail "$(cat "$tmp/client_fail")"
cat "$tmp"/ids.* >"$tmp/ids"
total=$(wc -l <"$tmp/ids")
[ "$total" = "$jobs" ] || fail "expected $jobs accepted jobs, got $total"
triples=() n=0
while read -r id cv nm node; do
  await $(( node % 3 + 1 )) "$id"
  jq .proof "$tmp/body" >"$tmp/p$n.json"; jq .public "$tmp/body" >"$tmp/pub$n.json"
  cmp -s <(jq -c . "$tmp/pub$n.json") <(jq -c . "$fx/$cv/$nm.public.json") || fail "job $id: public differs"
  jq -r .node "$tmp/body" >>"$tmp/provers"
  triples+=("$fx/$cv/$nm.vk.json:$tmp/pub$n.json:$tmp/p$n.json")
  n=$((n + 1))
done <"$tmp/ids"
for k in 1 2 3; do grep -qx "n$k" "$tmp/provers" || fail "node n$k proved none of the $total jobs"; done
if [ -n "$node" ] && [ -d "$here/snarkjs/node_modules/snarkjs" ]; then
  "$node" "$here/snarkjs/verify_many.mjs" "${triples[@]}" || fail "snarkjs rejected a proof of the queue"
fi
expect_code 200 "$(at 2)/v1/status"
jq -e ".queue.done >= $total and (.queue.nodes | length) == 3 and .queue.running == 0" "$tmp/body" >/dev/null ||
  fail "status: $(jq -c .queue "$tmp/body")"
expect_code 200 "$(at 3)/metrics"
grep -q 'cuzk_queue_jobs{state="done"}' "$tmp/body" && grep -q 'cuzk_queue_node_heartbeat_age_seconds{node="n1"}' "$tmp/body" &&
  grep -Eq '^cuzk_queue_node_keys_ready\{node="n2"\} [1-9]' "$tmp/body" && grep -q 'cuzk_queue_node_gpus{node="n3"} 0' "$tmp/body" ||
  fail "metrics: the queue's lines: $(grep cuzk_queue "$tmp/body")"

# --- a slow job (2^17 constraints, a few seconds on one core), for the node failures below
"$cuzk" circuit sha256-chain "$tmp/blk.r1cs" "$tmp/blk.wtns" --constraints "$slow_size" -q >/dev/null || fail "circuit"
"$cuzk" setup "$tmp/blk.r1cs" "$tmp/blk.zkey" -q 2>/dev/null || fail "setup"
slow="{\"key_path\":\"$tmp/blk.zkey\",\"witness_path\":\"$tmp/blk.wtns\"}"
running_on() { # running_on ID: waits (10 s at most) until the job runs, prints its node's number
  for _ in $(seq 100); do
    code=$(api "$(at 1)/v1/proofs/$1")
    [ "$(jq -r .state "$tmp/body")" = running ] && { jq -r .node "$tmp/body" | tr -d n; return 0; }
    sleep 0.1
  done
  fail "job $1 never ran: $(cat "$tmp/body")"
}

# --- kill -9 of the node proving it: another node finishes it
id=$(post 1 "$slow")
k=$(running_on "$id")
kill -9 "${npids[$k]}"; wait "${npids[$k]}" 2>/dev/null
await $(( k % 3 + 1 )) "$id"
jq -e ".attempts == 2 and .node != \"n$k\" and (.attempt_errors[0].reason | test(\"lease of node n$k expired\"))" \
  "$tmp/body" >/dev/null || fail "a killed node's job: $(jq -c '{node, attempts, attempt_errors}' "$tmp/body")"
# what the killed node had written of its claims' uploads goes at its restart
touch "$tmp/s$k/jobs/0123456789abcdef0123456789abcdef.wtns" "$tmp/s$k/jobs/0123456789abcdef0123456789abcdef.3.wtns"
start_node "$k"
grep -q "removed 2 uploaded witnesses of claims a previous run left" "${npids_out[$k]}" ||
  fail "a killed node's uploads at its restart: $(cat "${npids_out[$k]}")"

# --- a node frozen past its lease: the job goes elsewhere; let go, the node writes nothing
id=$(post 2 "$slow")
k=$(running_on "$id")
kill -STOP "${npids[$k]}"
other=$(( k % 3 + 1 ))
await "$other" "$id"
winner=$(jq -r .node "$tmp/body")
[ "$winner" != "n$k" ] || fail "the frozen node's result stands"
kill -CONT "${npids[$k]}"
sleep 3 # its renewal fails: it stops the job, writes nothing
expect_code 200 "$(at "$other")/v1/proofs/$id"
[ "$(jq -r .node "$tmp/body")" = "$winner" ] || fail "the result changed after the frozen node came back"
grep -q "job $id: the lease is lost" "$tmp/serve."*.out || fail "the frozen node did not say it lost the lease"

# --- a node cut off by the network past its lease: it notices; the job goes elsewhere; back, it writes nothing
if [ -n "$proxy" ]; then
  pgport=${uri##*:} && pgport=${pgport%%/*}
  "$proxy" "$pgport" 0 >"$tmp/cut.port" 2>"$tmp/cut.err" &
  cutpid=$!
  pids+=("$cutpid")
  for _ in $(seq 50); do grep -q "^port " "$tmp/cut.port" && break; sleep 0.1; done
  cport=$(awk '/^port /{print $2}' "$tmp/cut.port")
  [ -n "$cport" ] || fail "flaky_proxy did not start: $(cat "$tmp/cut.err")"
  start_node 4 "${uri/:$pgport\//:$cport/}"
  for k in 1 2 3; do kill -STOP "${npids[$k]}"; done # n4 alone claims it
  id=$(post 4 "$slow")
  for _ in $(seq 100); do
    api "$(at 4)/v1/proofs/$id" >/dev/null
    [ "$(jq -r .state "$tmp/body")" = running ] && break
    sleep 0.1
  done
  [ "$(jq -r .node "$tmp/body")" = n4 ] || fail "the job behind the proxy: $(cat "$tmp/body")"
  kill -USR1 "$cutpid"
  for k in 1 2 3; do kill -CONT "${npids[$k]}"; done
  await 1 "$id"
  winner=$(jq -r .node "$tmp/body")
  [ "$winner" != n4 ] || fail "the cut-off node's result stands"
  for _ in $(seq 150); do grep -q "no answer in" "${npids_out[4]}" && break; sleep 0.1; done
  grep -q "no answer in" "${npids_out[4]}" || fail "the cut-off node did not notice: $(tail -5 "${npids_out[4]}")"
  kill -USR2 "$cutpid"
  for _ in $(seq 150); do grep -q "job $id: the lease \(is\|was\) lost" "${npids_out[4]}" && break; sleep 0.1; done
  grep -q "job $id: the lease \(is\|was\) lost" "${npids_out[4]}" || fail "the cut-off node, back: $(tail -5 "${npids_out[4]}")"
  expect_code 200 "$(at 2)/v1/proofs/$id"
  [ "$(jq -r .node "$tmp/body")" = "$winner" ] || fail "the result changed after the cut-off node came back"
  expect_code 200 "$(at 4)/v1/status" # connected again
  kill -TERM "${npids[4]}"; wait "${npids[4]}" || fail "node n4: SIGTERM exit $?"
  kill "$cutpid"
else
  echo "note: no flaky_proxy given; a node cut off by the network is not exercised"
fi

# --- the database restarted under load: every job ends
ids=()
for i in $(seq 12); do ids+=("$(post $(( i % 3 + 1 )) "{\"key_path\":\"$fx/bn128/mul1k.zkey\",\"witness_path\":\"$fx/bn128/mul1k.wtns\"}")"); done
"$here/pg_server.sh" restart "$tmp/pg" || fail "restart the database"
for id in "${ids[@]}"; do
  for _ in $(seq 50); do # a GET in the restart's moment gets 503: asked again
    code=$(api "$(at 1)/v1/proofs/$id?wait=60")
    [ "$code" = 200 ] && break
    sleep 0.2
  done
  [ "$(jq -r .state "$tmp/body")" = done ] || fail "after the restart, job $id: $code $(cat "$tmp/body")"
done
expect_code 202 -X POST "$(at 3)/v1/proofs" -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}"

# --- priorities across the fleet: a critical job behind $normals normal ones is claimed next
blockers=()
for k in 1 2 3 1 2 3; do blockers+=("$(post $k "$slow")"); done # every slot of every node busy (2 each)
for id in "${blockers[@]}"; do running_on "$id" >/dev/null; done
normal="{\"key_path\":\"$fx/bn128/mul1k.zkey\",\"witness_path\":\"$fx/bn128/mul1k.wtns\",\"priority\":\"normal\"}"
posters=()
for c in $(seq 10); do # all at once, before a blocker ends
  ( for i in $(seq $(( normals / 10 ))); do curl -s -o /dev/null -X POST "$(at $(( (c + i) % 3 + 1 )))/v1/proofs" -d "$normal"; done ) &
  posters+=($!)
done
wait "${posters[@]}"
crit=$(post 1 "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\",\"priority\":\"critical\"}")
await 2 "$crit"
before=$(sql "SELECT count(*) FROM cuzk_jobs WHERE priority = 1 AND claimed < (SELECT claimed FROM cuzk_jobs WHERE id = '$crit') AND submitted > (SELECT submitted FROM cuzk_jobs WHERE id = '${blockers[5]}')")
[ "$before" -le 6 ] || fail "the critical job was claimed after $before of the $normals normal ones"

# --- keys: a key only n1 may open is proved by n1 alone; the others say why
only=()
for i in 1 2 3 4 5 6; do only+=("$(post 1 "{\"key_path\":\"$only1/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}")"); done
for id in "${only[@]}"; do
  await $(( RANDOM % 3 + 1 )) "$id"
  jq -e '.node == "n1" and .attempts == 1' "$tmp/body" >/dev/null ||
    fail "a job of a key only n1 may open: $(jq -c '{node, attempts, attempt_errors}' "$tmp/body")"
done
absent_on() { # absent_on NODE KEY STATE: the node's heartbeat lists the key as absent or mismatch (60 s at most: a key's digest is hashed and the next heartbeat sent, slower under AddressSanitizer on a busy machine)
  for _ in $(seq 600); do
    api "$(at 1)/v1/status" >/dev/null
    jq -e --arg n "$1" --arg k "$2" --arg st "$3" '[.queue.nodes[] | select(.name == $n) | .info.keys[$st][] | select(.key == $k)] | length == 1' \
      "$tmp/body" >/dev/null && return 0
    sleep 0.1
  done
  fail "node $1 does not list key $2 as $3: $(jq -c '.queue.nodes' "$tmp/body")"
}
absent_on n2 "$only1/tiny.zkey" absent
absent_on n3 "$only1/tiny.zkey" absent

# --- a key file changed behind the registry's back: no node proves it until the operator clears the registry's row
cp "$fx/bn128/tiny.zkey" "$tmp/mm.zkey"
mm="{\"key_path\":\"$tmp/mm.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}"
id=$(post 2 "$mm")
await 3 "$id" # its digest registered
[ "$(sql "SELECT count(*) FROM cuzk_keys WHERE path = '$tmp/mm.zkey'")" = 1 ] || fail "the key's digest is not registered"
expect_code 200 "$(at 2)/v1/status"
jq -e --arg k "$tmp/mm.zkey" '[.queue.keys[] | select(.path == $k and (.digest | length) == 64)] | length == 1' "$tmp/body" \
  >/dev/null || fail "status: the key registry: $(jq -c .queue.keys "$tmp/body")"
"$cuzk" setup "$fx/bn128/tiny.r1cs" "$tmp/mm2.zkey" -q 2>/dev/null || fail "setup of a second tiny key"
cp "$tmp/mm2.zkey" "$tmp/mm.zkey" # the same circuit, another key: not the registered digest
id=$(post 3 "$mm")
for k in 1 2 3; do absent_on "n$k" "$tmp/mm.zkey" mismatch; done
expect_code 200 "$(at 1)/v1/proofs/$id"
[ "$(jq -r .state "$tmp/body")" = queued ] || fail "a job of a key no node's copy matches: $(cat "$tmp/body")"
grep -q "key $tmp/mm.zkey: this node's copy has digest" "$tmp"/serve.*.out || fail "no node logged the mismatch"
# a node bounding the queue at one waiting job: that job waits, so a POST gets 429 (a retry of a known request id is answered)
start_daemon --queue "$uri" --node n5 --listen 127.0.0.1:0 --state-dir "$tmp/s5" --key-dir "$fx" --key-dir "$tmp" \
  --witness-dir "$fx" --device cpu --workers 1 --threads 1 --lease 2 --queue-max-queued 1
code=$(curl -s -D "$tmp/h5" -o "$tmp/body" -w "%{http_code}" -X POST "127.0.0.1:$port/v1/proofs" \
  -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}")
[ "$code" = 429 ] && grep -qi "^retry-after: 1" "$tmp/h5" && grep -q "queue-max-queued" "$tmp/body" ||
  fail "a POST past --queue-max-queued: HTTP $code $(cat "$tmp/body")"
kill -TERM "$pid"; wait "$pid" || fail "node n5: SIGTERM exit $?"
sql "DELETE FROM cuzk_keys WHERE path = '$tmp/mm.zkey'" >/dev/null # the operator: the new file is the right one
await 1 "$id"
jq .proof "$tmp/body" >"$tmp/mm.proof.json"; jq .public "$tmp/body" >"$tmp/mm.public.json"
"$cuzk" zkey export-vk "$tmp/mm2.zkey" "$tmp/mm2.vk.json" >/dev/null 2>&1 || fail "export-vk"
if [ -n "$node" ] && [ -d "$here/snarkjs/node_modules/snarkjs" ]; then
  "$node" "$here/snarkjs/verify_many.mjs" "$tmp/mm2.vk.json:$tmp/mm.public.json:$tmp/mm.proof.json" ||
    fail "the proof with the replaced key does not verify against its vk"
fi

# --- request ids, DELETE and bad input from any node
id=$(post 1 "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\",\"request_id\":\"c-1\"}")
expect_code 200 -X POST "$(at 2)/v1/proofs" -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\",\"request_id\":\"c-1\"}"
[ "$(jq -r .id "$tmp/body")" = "$id" ] && jq -e '.duplicate == true' "$tmp/body" >/dev/null || fail "a retry on another node"
expect_code 409 -X POST "$(at 3)/v1/proofs" -d "{\"key_path\":\"$fx/bn128/mul1k.zkey\",\"witness_path\":\"$fx/bn128/mul1k.wtns\",\"request_id\":\"c-1\"}"
await 3 "$id"
expect_code 200 -X DELETE "$(at 2)/v1/proofs/$id"
expect_code 404 "$(at 1)/v1/proofs/$id"
expect_code 400 -X POST "$(at 1)/v1/proofs" -d '{not json'
expect_code 400 -X POST "$(at 2)/v1/proofs" -d "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness\":\"***\"}"
expect_code 403 -X POST "$(at 3)/v1/proofs" -d "{\"key_path\":\"/etc/passwd\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}"
expect_code 404 "$(at 1)/v1/proofs/0123456789abcdef0123456789abcdef"
expect_code 404 -X DELETE "$(at 2)/v1/proofs/0123456789abcdef0123456789abcdef"
head -c 2000000 /dev/zero >"$tmp/big.wtns" # over the nodes' --queue-max-witness 1M
printf '{"key_path":"%s","witness":"%s"}' "$fx/bn128/tiny.zkey" "$(base64 -w0 "$tmp/big.wtns")" >"$tmp/big.json"
expect_code 413 -X POST "$(at 1)/v1/proofs" -d @"$tmp/big.json"
grep -q "queue-max-witness" "$tmp/body" || fail "a witness over the queue's limit: $(cat "$tmp/body")"
expect_code 200 "$(at 1)/healthz"

# --- a key id names one key fleet-wide: n2 and n3 load two keys of one circuit under one id; n2
# registers its digest first, so n3 (mismatched) claims none of its jobs
"$cuzk" setup "$fx/bn128/tiny.r1cs" "$tmp/dup2.zkey" -q 2>/dev/null || fail "setup of a second tiny key"
expect_code 200 -X POST "$(at 2)/v1/keys/dup" -d "{\"path\":\"$fx/bn128/tiny.zkey\"}"
dupjob="{\"key_id\":\"dup\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}"
await 2 "$(post 2 "$dupjob")"
[ "$(sql "SELECT count(*) FROM cuzk_keys WHERE path = 'id:dup'")" = 1 ] || fail "the id's digest is not registered"
expect_code 200 -X POST "$(at 3)/v1/keys/dup" -d "{\"path\":\"$tmp/dup2.zkey\"}"
absent_on n3 id:dup mismatch
dups=()
for i in $(seq 9); do dups+=("$(post $(( i % 3 + 1 )) "$dupjob")"); done
for id in "${dups[@]}"; do
  await 1 "$id"
  jq .proof "$tmp/body" >"$tmp/dp.json"; jq .public "$tmp/body" >"$tmp/dq.json"
  [ "$(jq -r .node "$tmp/body")" = n2 ] && "$cuzk" verify "$fx/bn128/tiny.vk.json" "$tmp/dq.json" "$tmp/dp.json" >/dev/null ||
    fail "a job of key id dup proved by $(jq -r .node "$tmp/body") with another key than the registered one"
done

# --- a node's table of keys is bounded by eviction: 4,100 queued jobs of keys no node holds fill it,
# and a critical job of a key the nodes have not met yet is still claimed
sql "INSERT INTO cuzk_jobs (id, priority, state, request, max_attempts) SELECT md5('absent' || i), 1, 'queued',
     jsonb_build_object('key_path', '/nonexistent/many/k' || i || '.zkey', 'witness_path', '/nonexistent/w.wtns',
     'priority', 1), 3 FROM generate_series(1, 4100) i" >/dev/null || fail "queueing 4,100 jobs of absent keys"
for _ in $(seq 300); do # the nodes meet 256 keys a second at most
  api "$(at 1)/v1/status" >/dev/null
  jq -e '[.queue.nodes[] | select(.name == "n1") | .info.keys.absent_total] | .[0] >= 4000' "$tmp/body" >/dev/null && break
  sleep 0.2
done
jq -e '[.queue.nodes[] | select(.name == "n1") | .info.keys.absent_total] | .[0] >= 4000' "$tmp/body" >/dev/null ||
  fail "n1 did not meet the 4,100 absent keys: $(jq -c '.queue.nodes[] | select(.name == "n1") | .info.keys | del(.absent)' "$tmp/body")"
cp "$fx/bn128/tiny.zkey" "$tmp/fresh.zkey"
crit=$(post 3 "{\"key_path\":\"$tmp/fresh.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\",\"priority\":\"critical\"}")
await 1 "$crit"
sql "DELETE FROM cuzk_jobs WHERE id IN (SELECT md5('absent' || i) FROM generate_series(1, 4100) i)" >/dev/null

# --- one live node a name: a second --node n2 is refused
"$cuzk" serve --queue "$uri" --node n2 --listen 127.0.0.1:0 --state-dir "$tmp/sdup" >"$tmp/dupnode.out" 2>&1 &
dpid=$!; pids+=("$dpid")
for _ in $(seq 150); do kill -0 "$dpid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$dpid" 2>/dev/null && fail "a second node named n2 runs: $(cat "$tmp/dupnode.out")"
wait "$dpid"; rc=$?
[ "$rc" != 0 ] && grep -q -- "--node n2: a live node of the queue has this name" "$tmp/dupnode.out" ||
  fail "a second node named n2: exit $rc: $(cat "$tmp/dupnode.out")"

# --- a node whose state disk is full claims nothing (its /healthz says why), and no attempt of a job
# is spent on it; once the disk is back it proves them
if [ -n "$shim" ] && [ -f "$shim" ]; then
  for k in 1 2 3; do kill -STOP "${npids[$k]}"; done # n6 alone claims
  : >"$tmp/fault.ctl"
  daemon_env=("CUZK_FAULT_DIR=$tmp/s6" "CUZK_FAULT_CTL=$tmp/fault.ctl" "LD_PRELOAD=$shim" "ASAN_OPTIONS=verify_asan_link_order=0")
  start_node 6
  daemon_env=()
  echo full >"$tmp/fault.ctl"
  sick=()
  for i in 1 2 3; do
    sick+=("$(post 6 "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness\":\"$(base64 -w0 "$fx/bn128/tiny.wtns")\"}")")
    sick+=("$(post 6 "{\"key_path\":\"$fx/bn128/tiny.zkey\",\"witness_path\":\"$fx/bn128/tiny.wtns\"}")")
  done
  for _ in $(seq 60); do code=$(api "$(at 6)/healthz"); [ "$code" = 503 ] && break; sleep 0.1; done
  [ "$code" = 503 ] && grep -q "No space left on device" "$tmp/body" || fail "/healthz of a node with a full disk: $code $(cat "$tmp/body")"
  sleep 3
  for id in "${sick[@]}"; do
    expect_code 200 "$(at 6)/v1/proofs/$id"
    jq -e '.state == "queued" and .attempts == 0' "$tmp/body" >/dev/null ||
      fail "a job on a fleet whose only node has a full disk: $(jq -c '{state, attempts, attempt_errors}' "$tmp/body")"
  done
  : >"$tmp/fault.ctl"
  for id in "${sick[@]}"; do
    await 6 "$id"
    jq -e '.attempts == 1' "$tmp/body" >/dev/null || fail "attempts spent on a full disk: $(jq -c '{attempts, attempt_errors}' "$tmp/body")"
  done
  expect_code 200 "$(at 6)/healthz"
  kill -TERM "${npids[6]}"; wait "${npids[6]}" || fail "node n6: SIGTERM exit $?"
  for k in 1 2 3; do kill -CONT "${npids[$k]}"; done
else
  echo "note: no fault_fs library; a node with a full disk is not exercised"
fi

for k in 1 2 3; do kill -TERM "${npids[$k]}"; wait "${npids[$k]}" || fail "node n$k: SIGTERM exit $?"; done
echo "cluster: $total jobs over 3 nodes verified by snarkjs; kill -9, a frozen node, a node cut off, a database restart, priorities, keys: ok"
