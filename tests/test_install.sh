#!/usr/bin/env bash
# make install as a packager runs it (DESTDIR) and as a user does
# (PREFIX): every file in its place; libcuzk.so exports cuzk.h's names
# alone; examples/prove.c, built with `cc $(pkg-config --cflags --libs
# cuzk)` against the installed tree (and statically against libcuzk.a),
# proves and verifies a fixture; the installed cuzk runs; the unit names
# the installed binary.
# Usage: test_install.sh BUILD_DIR SOURCE_DIR
set -u
build=$1
src=$2
fx=$src/tests/fixtures
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v pkg-config >/dev/null; then
  [ -z "${CI:-}" ] || fail "pkg-config is not installed (CI installs it: .ci/run)"
  echo "SKIP: pkg-config not installed"; exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# DESTDIR: the tree lands under it, the paths inside name the prefix alone
DESTDIR=$tmp/dest cmake --install "$build" --prefix /opt/cuzk >"$tmp/log" 2>&1 || fail "DESTDIR install: $(cat "$tmp/log")"
root=$tmp/dest/opt/cuzk
for f in bin/cuzk lib/libcuzk.a lib/libcuzk.so lib/libcuzk.so.0 include/cuzk.h include/cuzk_engine.h include/cuzk_serve.h include/cuzk_supraseal.h lib/pkgconfig/cuzk.pc \
         share/man/man1/cuzk.1 lib/systemd/system/cuzk.service share/cuzk/cuzk.conf; do
  [ -e "$root/$f" ] || fail "DESTDIR install: no $f under $root: $(cat "$tmp/log")"
done
grep -q "^ExecStart=/opt/cuzk/bin/cuzk serve " "$root/lib/systemd/system/cuzk.service" ||
  fail "the unit's ExecStart: $(grep ExecStart "$root/lib/systemd/system/cuzk.service")"
if grep -rq "$tmp" "$root/lib/systemd" "$root/lib/pkgconfig"; then fail "DESTDIR leaked into the installed files"; fi

# PREFIX: a user's tree
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >"$tmp/log" 2>&1 || fail "install: $(cat "$tmp/log")"
"$prefix/bin/cuzk" version | grep -q "^cuzk [0-9]*\.[0-9]*\.[0-9]* (commit " || fail "installed cuzk version"
if command -v man >/dev/null; then
  MANWIDTH=80 man -l "$prefix/share/man/man1/cuzk.1" 2>"$tmp/man.err" | grep -q "^SIGNALS" ||
    fail "man -l cuzk.1: $(cat "$tmp/man.err")"
  [ ! -s "$tmp/man.err" ] || fail "man -l cuzk.1 warns: $(cat "$tmp/man.err")"
fi

# the shared library's dynamic symbols: the public headers' names and nothing else
nm -D --defined-only "$prefix/lib/libcuzk.so" | awk 'NF == 3 && $2 ~ /[TDBRVW]/ { print $3 }' | sort -u >"$tmp/dyn"
{ cat "$prefix/include/cuzk.h" "$prefix/include/cuzk_engine.h" "$prefix/include/cuzk_serve.h" | grep "^CUZK_API"; grep "^CUZK_SS_API" "$prefix/include/cuzk_supraseal.h"; } |
  grep -o "[ *][A-Za-z_][A-Za-z0-9_]*(" | tr -d ' *(' | sort -u >"$tmp/api"
extra=$(comm -23 "$tmp/dyn" "$tmp/api")
missing=$(comm -13 "$tmp/dyn" "$tmp/api")
[ -z "$extra" ] || fail "libcuzk.so exports names the headers do not declare: $(echo $extra | head -c 1000)"
[ -z "$missing" ] || fail "libcuzk.so lacks names the headers declare: $missing"

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion cuzk)" = "$("$prefix/bin/cuzk" version | sed -n 's/^cuzk \([^ ]*\) .*/\1/p')" ] ||
  fail "cuzk.pc's version: $(pkg-config --modversion cuzk)"
cc=${CC:-cc}
# shellcheck disable=SC2046
"$cc" -std=c11 -Wall -Wextra -Werror -o "$tmp/prove" "$src/examples/prove.c" $(pkg-config --cflags --libs cuzk) \
  2>"$tmp/cc.err" || fail "cc \$(pkg-config --cflags --libs cuzk): $(cat "$tmp/cc.err")"
LD_LIBRARY_PATH=$prefix/lib "$tmp/prove" "$fx/bn128/poseidon3.zkey" "$fx/bn128/poseidon3.wtns" >"$tmp/out" 2>&1 ||
  fail "examples/prove (shared): $(cat "$tmp/out")"
grep -q "verified" "$tmp/out" || fail "examples/prove (shared): $(cat "$tmp/out")"
# shellcheck disable=SC2046
"$cc" -std=c11 -o "$tmp/prove_static" "$src/examples/prove.c" $(pkg-config --cflags cuzk) "$prefix/lib/libcuzk.a" \
  $(pkg-config --static --libs-only-L --libs-only-l cuzk | sed 's/-lcuzk //') 2>"$tmp/cc.err" ||
  fail "cc with libcuzk.a and pkg-config --static: $(cat "$tmp/cc.err")"
"$tmp/prove_static" "$fx/bls12381/poseidon3.zkey" "$fx/bls12381/poseidon3.wtns" >"$tmp/out" 2>&1 ||
  fail "examples/prove (static): $(cat "$tmp/out")"
grep -q "verified" "$tmp/out" || fail "examples/prove (static): $(cat "$tmp/out")"
echo "install: DESTDIR and PREFIX trees complete; examples/prove built with pkg-config, shared and static, proved"
