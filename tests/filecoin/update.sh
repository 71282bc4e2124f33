#!/usr/bin/env bash
# Copies the real Filecoin data the tests use into tests/filecoin/.
#
#   tests/filecoin/update.sh [SOURCE]
#
# SOURCE (default: ../shared/filecoin next to the repository) holds:
#   window-post-32gib.vproof       a real 32 GiB sector's WindowPoSt vanilla
#                                  proof (bincode, FallbackPoStSectorProof),
#                                  Curio's lib/proof/testgolden/post.vproof
#   window-post-32gib.public.json  its public values: the randomness, the
#                                  sector's number and SealedCID (comm_r)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../../shared/filecoin}
[ -f "$src/window-post-32gib.vproof" ] || { echo "usage: $0 SOURCE (no window-post-32gib.vproof in '$src')" >&2; exit 2; }
for f in window-post-32gib.vproof window-post-32gib.public.json; do
  cp "$src/$f" "$here/$f"
done
echo "copied into $here"
