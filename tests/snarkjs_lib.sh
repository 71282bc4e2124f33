# Shared by the command's shell tests that check with snarkjs
# (test_porep.sh, test_porep_shape.sh), sourced after they set $cuzk and
# $node: fail(), the skip when snarkjs is missing (a failure in CI), a
# scratch directory removed at exit, expect (cuzk's exit code and words)
# and sj (snarkjs succeeds and says something).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
snarkjs=$here/snarkjs/node_modules/snarkjs/cli.js
if [ ! -x "$node" ] || [ ! -f "$snarkjs" ]; then
  [ -z "${CI:-}" ] || fail "snarkjs is missing (cd tests/snarkjs && npm ci)"
  echo "SKIP: snarkjs missing"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
expect() { # expect CODE PATTERN ARGS...
  local want=$1 pat=$2; shift 2
  "$cuzk" "$@" >"$tmp/out" 2>"$tmp/err"; local got=$?
  [ "$got" = "$want" ] || fail "cuzk $* exited $got, want $want: $(cat "$tmp/err")"
  [ -z "$pat" ] || grep -q -- "$pat" "$tmp/err" "$tmp/out" || fail "cuzk $*: no '$pat' in: $(cat "$tmp/err" "$tmp/out")"
}
sj() { # sj PATTERN ARGS...: snarkjs ARGS succeeds and says PATTERN
  local pat=$1; shift
  "$node" "$snarkjs" "$@" >"$tmp/sj" 2>&1 || fail "snarkjs $*: $(cat "$tmp/sj")"
  grep -q "$pat" "$tmp/sj" || fail "snarkjs $*: no '$pat' in: $(cat "$tmp/sj")"
}
