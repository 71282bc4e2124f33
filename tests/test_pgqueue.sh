#!/usr/bin/env bash
# The PostgreSQL job queue (tests/test_pgqueue.c) against a server of the
# test's own (tests/pg_server.sh), stopped at the end; skips (77) without
# PostgreSQL's server programs.
# usage: test_pgqueue.sh TEST_PGQUEUE
set -u
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
chmod 0755 "$tmp" # the server runs as postgres when this runs as root
trap '"$here/pg_server.sh" stop "$tmp/pg" >/dev/null 2>&1; rm -rf "$tmp"' EXIT
conninfo=$("$here/pg_server.sh" start "$tmp/pg"); rc=$?
[ $rc = 0 ] || exit $rc
timeout 120 "$1" "$conninfo" "\"$here/pg_server.sh\" restart \"$tmp/pg\""
