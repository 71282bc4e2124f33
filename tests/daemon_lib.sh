# Shared by the daemon's shell tests (test_serve.sh, test_submit.sh,
# test_hostile.sh), sourced after they set $cuzk: a scratch directory,
# cleanup of every daemon they started, fail(), the skips when curl, jq or
# the daemon are missing, start_daemon, and the requests they make (api,
# expect_code, submit_paths) of the daemon at $port.
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
  env ${daemon_env[@]+"${daemon_env[@]}"} "$cuzk" serve "$@" >"$out" 2>&1 & # daemon_env: VAR=VALUE words
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

api() { curl -s -o "$tmp/body" -w "%{http_code}" "$@"; } # api CURL_ARGS...: the status; the body in $tmp/body
expect_code() { # expect_code STATUS CURL_ARGS...
  local want=$1; shift
  local got; got=$(api "$@")
  [ "$got" = "$want" ] || fail "$* -> $got, want $want: $(cat "$tmp/body")"
}
submit_paths() { # submit_paths KEY WITNESS [PRIORITY]: a job by paths; prints its id
  local code
  code=$(api -X POST "127.0.0.1:$port/v1/proofs" \
    -d "{\"key_path\":\"$1\",\"witness_path\":\"$2\",\"priority\":\"${3:-normal}\"}")
  [ "$code" = 202 ] || fail "submit $1 $2: HTTP $code $(cat "$tmp/body")"
  jq -r .id "$tmp/body"
}
