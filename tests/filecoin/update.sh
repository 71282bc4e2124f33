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
#   seal_regression_records-v*.json  rust-fil-proofs' seal regression records
#                                  (one JSON record a line): the first of each
#                                  kind (sector size, API version, features)
#                                  goes into seal-records.jsonl
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=${1:-$here/../../../shared/filecoin}
[ -f "$src/window-post-32gib.vproof" ] || { echo "usage: $0 SOURCE (no window-post-32gib.vproof in '$src')" >&2; exit 2; }
for f in window-post-32gib.vproof window-post-32gib.public.json; do
  cp "$src/$f" "$here/$f"
done
python3 - "$src" "$here/seal-records.jsonl" <<'PY'
import json, sys
seen, out = set(), []
for name in ("seal_regression_records-v16.json", "seal_regression_records-v18.json"):
    for line in open(sys.argv[1] + "/" + name):
        c = json.loads(line)["porep_config"]
        kind = (c["sector_size"], c["api_version"], tuple(c["api_features"]))
        if kind not in seen:
            seen.add(kind)
            out.append(line.rstrip("\n"))
open(sys.argv[2], "w").write("\n".join(out) + "\n")
PY
echo "copied into $here"
