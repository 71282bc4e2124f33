#!/usr/bin/env bash
# The daemon under load while it is killed (issue 17): SOAK_JOBS jobs from
# SOAK_CLIENTS clients (cuzk submit, each under its own request id, every
# fixture of both curves) while SOAK_IDLE idle connections are held open
# and the daemon is killed with -9 every SOAK_KILL_EVERY seconds and
# restarted on the same state directory and port. Then:
#   - every submission wrote its proof (0 accepted jobs lost; one that
#     found nothing listening, between a kill and the restart, goes again),
#   - each request id made exactly one job (0 proved twice under an id),
#   - every proof is verified by snarkjs (NODE given) and by cuzk verify,
#     and its public.json is the fixture's,
#   - /healthz answered within 1 s whenever the daemon was up (a probe that
#     found nothing listening, between a kill and the restart, or whose
#     connection a kill cut, is counted apart).
# The short form runs in make test; the long form's figures are in
# BENCHMARKS.md (SOAK_JOBS=1000 SOAK_CLIENTS=16 SOAK_IDLE=500).
# usage: soak.sh CUZK FIXTURES_DIR CONN_FLOOD [NODE]
set -u
cuzk=$1 fx=$(cd "$2" && pwd) flood=$3 node=${4:-}
jobs=${SOAK_JOBS:-1000} clients=${SOAK_CLIENTS:-16} idle=${SOAK_IDLE:-500} every=${SOAK_KILL_EVERY:-3}
. "$(dirname "$0")/daemon_lib.sh"
unset CUZK_SERVER CUZK_TOKEN_FILE

sd=$tmp/state
start_daemon --listen 127.0.0.1:0 --state-dir "$sd" --key-dir "$fx" --workers 2 --threads 1 --device cpu
fixed=$port
flood_pid=
hold_idle() { # idle connections to the daemon just started (a kill drops them)
  [ -n "$flood_pid" ] && kill "$flood_pid" 2>/dev/null
  "$flood" "127.0.0.1:$fixed" "$idle" idle 3600 >"$tmp/flood.out" 2>&1 &
  flood_pid=$!
}
hold_idle

# the health probe: every 0.2 s, at most 1 s each
(
  while [ ! -e "$tmp/stop" ]; do
    a=$(date +%s.%N)
    curl -s -o /dev/null --max-time 1 "127.0.0.1:$fixed/healthz"
    echo "$? $a $(date +%s.%N)" >>"$tmp/health"
    sleep 0.2
  done
) &
prober=$!

# the clients: job i of client c proves fixture (c + i) mod 6
curves=(bn128 bls12381) names=(tiny mul1k poseidon3)
per=$(( (jobs + clients - 1) / clients ))
t0=$(date +%s.%N)
cl=()
for c in $(seq "$clients"); do
  (
    for i in $(seq "$per"); do
      n=$(( (c - 1) * per + i )); [ "$n" -le "$jobs" ] || break
      k=$(( (c + i) % 6 )); cv=${curves[$((k / 3))]} nm=${names[$((k % 3))]}
      ok=0
      for _ in $(seq 60); do # a submission that could not connect (between a kill and the
        # restart) was never accepted: it goes again, as a client would, and is counted apart
        if timeout 600 "$cuzk" submit --server "127.0.0.1:$fixed" --request-id "soak-$n" --wait 500 \
             "$fx/$cv/$nm.zkey" "$fx/$cv/$nm.wtns" "$tmp/p$n.json" "$tmp/q$n.json" 2>"$tmp/err$n"; then
          ok=1; break
        fi
        # (refused, or reset while connecting: the daemon dying under it)
        grep -q "no daemon listens\|cannot reach the daemon at .*cannot connect" "$tmp/err$n" || break
        echo "$n" >>"$tmp/refused.$c"; sleep 0.2
      done
      if [ $ok = 0 ]; then
        echo "job $n ($cv/$nm): $(tail -3 "$tmp/err$n")" >>"$tmp/lost"
        continue
      fi
      echo "$n $cv $nm $(sed -n 's/^cuzk: job \([0-9a-f]*\) .*/\1/p' "$tmp/err$n" | head -1)" >>"$tmp/done.$c"
    done
  ) &
  cl+=($!)
done

# the killer: -9 every few seconds while clients run, a restart on the same port
kills=0
: >"$tmp/kills"
while :; do
  alive=0
  for p in "${cl[@]}"; do kill -0 "$p" 2>/dev/null && alive=1; done
  [ $alive = 1 ] || break
  sleep "$every"
  date +%s.%N >>"$tmp/kills"
  kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
  kills=$((kills + 1))
  start_daemon --listen "127.0.0.1:$fixed" --state-dir "$sd" --key-dir "$fx" --workers 2 --threads 1 --device cpu
  hold_idle
done
wait "${cl[@]}"
t1=$(date +%s.%N)
touch "$tmp/stop"; wait "$prober"
[ -n "$flood_pid" ] && kill "$flood_pid" 2>/dev/null
kill -TERM "$pid"; wait "$pid" || fail "SIGTERM at the end: exit $?"

# --- the accounts
[ -e "$tmp/lost" ] && fail "accepted jobs lost: $(head -20 "$tmp/lost")"
cat "$tmp"/done.* >"$tmp/done"
[ "$(wc -l <"$tmp/done")" = "$jobs" ] || fail "$(wc -l <"$tmp/done") of $jobs jobs written"
# one job per request id, in the journal and in what the clients were told
dups=$(cat "$sd"/jobs/*.req | jq -r '.request_id' | sort | uniq -d | head -5)
[ -z "$dups" ] || fail "request ids with more than one job: $dups"
[ "$(cut -d' ' -f4 "$tmp/done" | sort -u | wc -l)" = "$jobs" ] || fail "two submissions got one job id"
triples=()
while read -r n cv nm id; do
  cmp -s <(jq -c . "$tmp/q$n.json") <(jq -c . "$fx/$cv/$nm.public.json") || fail "job $n ($id): public.json differs"
  "$cuzk" verify "$fx/$cv/$nm.vk.json" "$tmp/q$n.json" "$tmp/p$n.json" >/dev/null || fail "job $n: cuzk verify rejects it"
  triples+=("$fx/$cv/$nm.vk.json:$tmp/q$n.json:$tmp/p$n.json")
done <"$tmp/done"
snarkjs=skipped
if [ -n "$node" ] && [ -d "$(dirname "$0")/snarkjs/node_modules/snarkjs" ]; then
  "$node" "$(dirname "$0")/snarkjs/verify_many.mjs" "${triples[@]}" || fail "snarkjs rejected a proof"
  snarkjs=verified
fi
refused=$(cat "$tmp"/refused.* 2>/dev/null | wc -l)
# each probe: curl's exit code, its start and end. 0 answered; 7 nothing
# listening (between a kill and the restart); 52 or 56 (the connection
# dropped) only where a kill fell within the probe; anything else (28: no
# answer within 1 s) fails
probes=$(wc -l <"$tmp/health")
read -r down cut slow < <(awk 'NR == FNR { k[n++] = $1; next }
  $1 == 0 { next } $1 == 7 { d++; next }
  $1 == 52 || $1 == 56 { for (i = 0; i < n; i++) if (k[i] >= $2 - 0.05 && k[i] <= $3 + 0.05) { c++; next } }
  { s++; print "probe at " $2 ": curl exit " $1 > "/dev/stderr" }
  END { print d + 0, c + 0, s + 0 }' "$tmp/kills" "$tmp/health")
[ "$slow" = 0 ] || fail "/healthz did not answer within 1 s $slow times of $probes"
# the answered probes' latency: median and slowest, in ms
read -r p50 pmax < <(awk '$1 == 0 { print ($3 - $2) * 1000 }' "$tmp/health" | sort -n |
  awk '{ v[NR] = $1 } END { printf "%.1f %.1f\n", v[int((NR + 1) / 2)], v[NR] }')
awk -v j="$jobs" -v c="$clients" -v i="$idle" -v k="$kills" -v p="$probes" -v d="$down" -v x="$cut" -v m="$p50" -v mx="$pmax" -v s="$snarkjs" -v r="$refused" \
    -v t="$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')" 'BEGIN {
  printf "soak: ok: %d jobs from %d clients with %d idle connections, %d kill -9s in %.1f s: 0 lost, 0 twice, snarkjs %s; %d submissions found the daemon down and went again; /healthz %d probes, all answered within 1 s while up (median %s ms, slowest %s ms; %d found it down, %d were cut by a kill)\n", j, c, i, k, t, s, r, p, m, mx, d, x }'
