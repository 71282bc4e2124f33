#!/usr/bin/env bash
# What `make demo`, `make test` and CI need on a Debian 12 or Ubuntu 24.04
# machine, installed when missing (the one list of them):
#
#   scripts/deps.sh demo   the compiler, CMake, jansson (verify reads JSON)
#   scripts/deps.sh test   also GMP, libmicrohttpd, libcurl, libpq and a
#                          PostgreSQL server (the job queue's tests start
#                          their own), pkg-config, curl, jq, openssl, node and
#                          npm, then the test oracles (snarkjs, @noble/curves)
#                          with npm ci
#
# Packages come from apt-get, run as root or through sudo; where neither
# can run it (or the system has no apt), it names the packages to install
# and stops. CUDA is optional and never installed: with nvcc present (on
# the PATH or in /usr/local/cuda) the GPU code is built too.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-demo}

packages=(build-essential cmake libjansson-dev)
commands=(cc make cmake)
if [ "$what" = test ]; then
  packages+=(libgmp-dev libmicrohttpd-dev libcurl4-openssl-dev libpq-dev postgresql pkg-config curl jq openssl)
  commands+=(pkg-config curl jq openssl)
elif [ "$what" != demo ]; then
  echo "usage: scripts/deps.sh demo|test" >&2
  exit 2
fi

missing=()
if command -v dpkg-query >/dev/null; then
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
else
  for c in "${commands[@]}"; do command -v "$c" >/dev/null || missing+=("$c"); done
fi
# node and npm may come from Debian or from elsewhere (NodeSource bundles npm)
if [ "$what" = test ] && ! { command -v node >/dev/null && command -v npm >/dev/null; }; then
  missing+=(nodejs npm)
fi

if [ ${#missing[@]} -gt 0 ]; then
  sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      sudo=(sudo)
    elif command -v sudo >/dev/null && [ -t 0 ]; then
      sudo=(sudo) # it asks for the password
    else
      sudo=(none)
    fi
  fi
  if ! command -v apt-get >/dev/null || [ "${sudo[0]:-}" = none ]; then
    echo "cuzk: missing: ${missing[*]}" >&2
    echo "cuzk: install them (Debian 12 / Ubuntu 24.04: sudo apt-get install ${missing[*]}), then run make again" >&2
    exit 1
  fi
  echo "== installing: ${missing[*]}"
  "${sudo[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" ||
    { echo "cuzk: apt-get could not install: ${missing[*]}" >&2; exit 1; }
fi

if [ "$what" = test ]; then
  # the oracles, once per lock file (npm ci again when it changes)
  for d in tests/snarkjs tests/vectors; do
    if [ ! -f "$d/node_modules/.package-lock.json" ] || [ "$d/package-lock.json" -nt "$d/node_modules/.package-lock.json" ]; then
      echo "== npm ci in $d"
      (cd "$d" && npm ci --silent --no-audit --no-fund) || { echo "cuzk: npm ci failed in $d (network to the npm registry?)" >&2; exit 1; }
    fi
  done
fi
