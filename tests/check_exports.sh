#!/bin/sh
# libcuzk.a exports the names its public headers declare (CUZK_API in
# include/cuzk.h, cuzk_engine.h and cuzk_serve.h; CUZK_SS_API in
# include/cuzk_supraseal.h) and nothing else, and reads no environment variable (no reference to getenv: the
# cuzk command and the benches map the variables to options).
# Usage: check_exports.sh path/to/libcuzk.a path/to/cuzk.exports [nm]
set -u
lib=$1
exports=$2
nm=${3:-nm}
fail() { echo "FAIL: $*" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# (DW.ref.*: hidden COMDAT references of C++ exception handling, linker-internal; CMakeLists.txt)
"$nm" -g --defined-only "$lib" | awk 'NF == 3 && $3 !~ /^DW\.ref\./ { print $3 }' | sort -u >"$tmp/defined" ||
  fail "nm $lib"
sort -u "$exports" >"$tmp/api"
[ -s "$tmp/api" ] || fail "no CUZK_API names found in $exports"
extra=$(comm -23 "$tmp/defined" "$tmp/api")
missing=$(comm -13 "$tmp/defined" "$tmp/api")
[ -z "$extra" ] || fail "$lib exports names the public headers do not declare: $(echo $extra | head -c 2000)"
[ -z "$missing" ] || fail "$lib lacks names the public headers declare: $missing"
if "$nm" -u "$lib" | awk '{ print $NF }' | grep -qx 'getenv\|secure_getenv'; then
  fail "$lib calls getenv: the library must read no environment variable"
fi
echo "exports: $(wc -l <"$tmp/api") names, all of the public headers' and nothing else; no getenv"
