# Shared by the daemon's shell tests (test_serve.sh, test_submit.sh), sourced
# after they set $cuzk: a scratch directory, cleanup of every daemon they
# started, fail(), the skips when curl, jq or the daemon are missing, and
# start_daemon.
tmp=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null || { echo "SKIP: curl not installed"; exit 77; }
command -v jq >/dev/null || { echo "SKIP: jq not installed"; exit 77; }
"$cuzk" version | grep -q "^daemon: yes" ||
  { echo "SKIP: cuzk built without the daemon (libmicrohttpd, jansson)"; exit 77; }

start_daemon() { # start_daemon SERVE_ARGS...: sets $port, $pid and $out (its log)
  # a new file per daemon: the shell opens it in the child, later than the
  # grep below may run, and a reused file could still hold the last port
  starts=$((${starts:-0} + 1)); out=$tmp/serve.$starts.out
  "$cuzk" serve "$@" >"$out" 2>&1 &
  pid=$!
  pids+=("$pid")
  for _ in $(seq 100); do
    port=$(grep -so "listening on 127.0.0.1:[0-9]*" "$out" | cut -d: -f2)
    [ -n "$port" ] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  fail "server did not start ($*): $(cat "$out")"
}
