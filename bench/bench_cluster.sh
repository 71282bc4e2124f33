#!/usr/bin/env bash
# The PostgreSQL job queue's throughput and own cost (issue 22,
# docs/cluster.md): a server of its own (tests/pg_server.sh), then for 1, 2
# and 3 `cuzk serve --queue` nodes on loopback (CPU proving, one worker of
# one thread each), JOBS jobs of a small circuit submitted at once by 4
# clients over the nodes; prints proofs/s for each node count, and from the
# database's own timestamps the queue's cost per job: submit to claim while
# a node is idle (one job at a time), and claim to end beside the proof's
# own time. Prints a table last.
# With BENCH_PGQUEUE (bench/bench_pgqueue), also the queue's ceiling: jobs a
# second through the queue alone, from 1, 4 and 16 connections.
#   bench/bench_cluster.sh CUZK FIXTURES_DIR [JOBS [BENCH_PGQUEUE]]   (default 120)
set -u
cuzk=$1 fx=$(cd "$2" && pwd) jobs=${3:-120} pgbench=${4:-}
here=$(cd "$(dirname "$0")/../tests" && pwd)
tmp=$(mktemp -d)
chmod 0755 "$tmp"
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; "$here/pg_server.sh" stop "$tmp/pg" >/dev/null 2>&1; rm -rf "$tmp"; }
trap cleanup EXIT
uri=$("$here/pg_server.sh" start "$tmp/pg") || exit $?
psql=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)/psql
sql() { "$psql" "$uri" -Atc "$1"; }
key=$fx/bn128/tiny.zkey wit=$fx/bn128/tiny.wtns
body="{\"key_path\":\"$key\",\"witness_path\":\"$wit\"}"

ports=()
start_nodes() { # start_nodes N
  for k in $(seq "$1"); do
    "$cuzk" serve --queue "$uri" --node "b$k" --listen 127.0.0.1:0 --state-dir "$tmp/s$k" --key-dir "$fx" \
      --witness-dir "$fx" --device cpu --workers 1 --threads 1 >"$tmp/n$k.log" 2>&1 &
    pids+=($!)
    for _ in $(seq 100); do
      p=$(grep -so "listening on 127.0.0.1:[0-9]*" "$tmp/n$k.log" | cut -d: -f2)
      [ -n "$p" ] && break
      sleep 0.1
    done
    ports[$k]=$p
  done
}
stop_nodes() { for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; wait "$p" 2>/dev/null; done; pids=(); }

rows=()
for n in 1 2 3; do
  sql "DELETE FROM cuzk_jobs" >/dev/null 2>&1
  start_nodes "$n"
  # warm: each node's key loaded
  for k in $(seq "$n"); do curl -s -X POST "127.0.0.1:${ports[$k]}/v1/proofs" -d "$body" >/dev/null; done
  sleep 1
  sql "DELETE FROM cuzk_jobs" >/dev/null
  clients=()
  for c in 1 2 3 4; do
    ( for i in $(seq $((jobs / 4))); do
        k=$(( (c + i) % n + 1 ))
        curl -s -o /dev/null -X POST "127.0.0.1:${ports[$k]}/v1/proofs" -d "$body"
      done ) &
    clients+=($!)
  done
  wait "${clients[@]}"
  for _ in $(seq 600); do
    [ "$(sql "SELECT count(*) FROM cuzk_jobs WHERE state = 'done'")" -ge $((jobs / 4 * 4)) ] && break
    sleep 0.1
  done
  t1=$(sql "SELECT extract(epoch FROM max(ended)) FROM cuzk_jobs")
  t0db=$(sql "SELECT extract(epoch FROM min(submitted)) FROM cuzk_jobs")
  rate=$(awk -v j=$((jobs / 4 * 4)) -v a="$t0db" -v b="$t1" 'BEGIN { printf "%.1f", j / (b - a) }')
  rows+=("$n node(s): $((jobs / 4 * 4)) jobs, $rate proofs/s")
  stop_nodes
done

# the queue's own cost, one node idle: one job at a time
sql "DELETE FROM cuzk_jobs" >/dev/null
start_nodes 1
curl -s -X POST "127.0.0.1:${ports[1]}/v1/proofs" -d "$body" >/dev/null
sleep 1
sql "DELETE FROM cuzk_jobs" >/dev/null
for i in $(seq 30); do
  id=$(curl -s -X POST "127.0.0.1:${ports[1]}/v1/proofs" -d "$body" | sed 's/.*"id":"\([0-9a-f]*\)".*/\1/')
  curl -s -o /dev/null "127.0.0.1:${ports[1]}/v1/proofs/$id?wait=30"
done
cost=$(sql "SELECT round(avg(extract(epoch FROM claimed - submitted)) * 1000, 2), round((percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM claimed - submitted)) * 1000)::numeric, 2), round(avg(extract(epoch FROM ended - claimed)) * 1000, 2), round((avg((result->'timings'->>'total')::float) * 1000)::numeric, 2) FROM cuzk_jobs WHERE state = 'done'")
stop_nodes
IFS='|' read -r sc_mean sc_med ce_mean proof_mean <<<"$cost"

ceiling=()
if [ -n "$pgbench" ]; then
  for c in 1 4 16; do
    sql "DELETE FROM cuzk_jobs" >/dev/null
    ceiling+=("$("$pgbench" "$uri" $c 5)")
  done
fi

echo "=== bench_cluster: $(nproc) cores, PostgreSQL $("$psql" --version | awk '{print $3}'), circuit bn128/tiny, CPU proving"
for r in "${rows[@]}"; do echo "  $r"; done
echo "  queue cost, one idle node: submit -> claim ${sc_mean} ms mean (${sc_med} median); claim -> end ${ce_mean} ms of which the proof ${proof_mean} ms"
for r in "${ceiling[@]}"; do echo "  $r"; done
