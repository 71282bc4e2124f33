#!/bin/sh
# The cuzk command: exit codes and messages. Usage: test_cli.sh path/to/cuzk
set -u
cuzk=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$("$cuzk" version) || fail "cuzk version exited $?"
echo "$out" | grep -q '^cuzk [0-9]*\.[0-9]*\.[0-9]*$' || fail "version line missing: $out"
echo "$out" | grep -q '^cpu backend: ' || fail "backend line missing: $out"

"$cuzk" selftest >/dev/null || fail "selftest failed with the default backend"
out=$(CUZK_CPU_BACKEND=portable "$cuzk" selftest) || fail "selftest failed with the portable backend"
echo "$out" | grep -q 'portable' || fail "CUZK_CPU_BACKEND=portable not honoured: $out"

"$cuzk" >/dev/null 2>&1; [ $? -eq 2 ] || fail "no command should exit 2"
err=$("$cuzk" frobnicate 2>&1 >/dev/null); [ $? -eq 2 ] || fail "unknown command should exit 2"
echo "$err" | grep -q "unknown command 'frobnicate'" || fail "unknown command message: $err"
"$cuzk" version extra >/dev/null 2>&1; [ $? -eq 2 ] || fail "extra argument should exit 2"
"$cuzk" help | grep -q 'usage: cuzk' || fail "help text"
echo "cli: ok"
