#!/usr/bin/env bash
# A PostgreSQL server of the tests' own (issue 22): Debian's initdb and
# pg_ctl in a directory, trust authentication for the user "cuzk" on
# loopback at a free port and on a Unix socket in the directory; run as the
# postgres user when called as root (initdb refuses root). Bounded: every
# step has a time limit.
#   pg_server.sh start DIR     prints the connection string (libpq's URI form)
#   pg_server.sh stop DIR      stops it (fast), leaves DIR
#   pg_server.sh restart DIR   stops and starts it again on the same port
# Exit 77 (a skip for ctest) when the server programs are not installed.
set -u
cmd=${1:-} dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: pg_server.sh start|stop|restart DIR" >&2; exit 2; }
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "SKIP: PostgreSQL's server is not installed (apt-get install postgresql)" >&2
  exit 77
fi
as=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || { echo "pg_server.sh: root, and no postgres user to run the server as" >&2; exit 1; }
  as=(runuser -u postgres --)
fi
run() { timeout 60 "${as[@]}" "$@"; }

start() {
  local port=$1
  run "$bin/pg_ctl" -D "$dir/data" -l "$dir/log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c fsync=off" start >/dev/null ||
    return 1
  echo "$port" >"$dir/port"
}

case $cmd in
start)
  mkdir -p "$dir" || exit 1
  [ ${#as[@]} -eq 0 ] || chown postgres "$dir"
  run test -w "$dir" ||
    { echo "pg_server.sh: the server's user cannot write $dir (its parents must be searchable: chmod o+x)" >&2; exit 1; }
  run "$bin/initdb" -D "$dir/data" -A trust -U cuzk -E UTF8 >"$dir/initdb.log" 2>&1 ||
    { echo "pg_server.sh: initdb failed: $(tail -5 "$dir/initdb.log")" >&2; exit 1; }
  for _ in $(seq 20); do # a free port: another process may take one first
    port=$((20000 + RANDOM % 40000))
    start "$port" && break
    port=
  done
  [ -n "${port:-}" ] || { echo "pg_server.sh: the server did not start: $(tail -5 "$dir/log")" >&2; exit 1; }
  echo "postgresql://cuzk@127.0.0.1:$port/postgres"
  ;;
stop)
  run "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1
  ;;
restart)
  run "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1
  start "$(cat "$dir/port")" || { echo "pg_server.sh: the server did not start again: $(tail -5 "$dir/log")" >&2; exit 1; }
  ;;
*)
  echo "usage: pg_server.sh start|stop|restart DIR" >&2
  exit 2
  ;;
esac
