# Sourced by the shell tests (POSIX sh): where a .zkey's verification-key
# points lie, for tests that plant a degenerate key.
#   zkey_vk_points FILE: prints "NAME OFFSET BYTES" for alpha1, beta1,
#   beta2, gamma2, delta1, delta2 (section 2's points, in file order)
zkey_vk_points() {
  _u32() { od -An -tu4 -j "$2" -N4 "$1" | tr -d ' '; }
  _pos=12 _n=$(_u32 "$1" 8) _hdr=
  while [ "$_n" -gt 0 ]; do
    [ "$(_u32 "$1" "$_pos")" = 2 ] && _hdr=$((_pos + 12))
    _pos=$((_pos + 12 + $(_u32 "$1" $((_pos + 4))))) # section sizes here are < 2^32
    _n=$((_n - 1))
  done
  [ -n "$_hdr" ] || return 1
  _n8q=$(_u32 "$1" "$_hdr")
  _g1=$((2 * _n8q)) _g2=$((4 * _n8q)) _a=$((_hdr + 4 + _n8q + 4 + 32 + 12))
  echo "alpha1 $_a $_g1"
  echo "beta1 $((_a + _g1)) $_g1"
  echo "beta2 $((_a + 2 * _g1)) $_g2"
  echo "gamma2 $((_a + 2 * _g1 + _g2)) $_g2"
  echo "delta1 $((_a + 2 * _g1 + 2 * _g2)) $_g1"
  echo "delta2 $((_a + 3 * _g1 + 2 * _g2)) $_g2"
}
# zkey_degenerate IN OUT NAME: OUT is IN with point NAME at infinity (zeros)
zkey_degenerate() {
  cp "$1" "$2" || return 1
  zkey_vk_points "$1" | while read -r _name _at _bytes; do
    [ "$_name" = "$3" ] && dd if=/dev/zero of="$2" bs=1 seek="$_at" count="$_bytes" conv=notrunc 2>/dev/null
  done
}
