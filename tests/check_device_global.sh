#!/usr/bin/env bash
# No device-global CUDA call on the proving path (issue 23; docs/gpu.md):
# one such call (a device synchronization, a memory query, a synchronous
# allocation or free, a pool trim) waits for or stalls every worker on the
# GPU, and a design that had them ran 2.3x slower
# (../shared/notes/filecoin-gpu-provers.md). Every call of the list below
# in cuda/ and src/ (the test kits, *_test.cu, aside) carries a comment
# "device-global:" on its line or the line above, saying when it runs
# (a device's first use, a key's load or release: never once per proof). A
# new call without one fails here, named by file and line.
# usage: check_device_global.sh   (from anywhere; reads the source tree)
set -u
cd "$(dirname "$0")/.." || exit 2
calls='cudaDeviceSynchronize|cudaDeviceReset|cudaMemGetInfo|cudaMemPoolTrimTo|cudaMemPoolSetAttribute|cudaDeviceSetLimit|cudaDeviceSetCacheConfig|cudaMallocManaged|cudaMalloc\(|cudaMallocHost|cudaHostAlloc|cudaFree\(|cudaFreeHost|cudaHostRegister|cudaHostUnregister'
bad=0 seen=0
while IFS=: read -r file line _; do
  seen=$((seen + 1))
  if ! sed -n "$((line > 1 ? line - 1 : 1)),${line}p" "$file" | grep -q "device-global:"; then
    echo "FAIL: $file:$line: a device-global CUDA call without a 'device-global:' comment saying when it runs: $(sed -n "${line}p" "$file" | sed 's/^ *//')"
    bad=$((bad + 1))
  fi
done < <(grep -rnE "$calls" cuda src --include='*.cu' --include='*.cuh' --include='*.c' --include='*.h' --include='*.cpp' |
  grep -v '_test\.cu:' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*(//|/\*|\*)')
[ "$seen" -gt 0 ] || { echo "FAIL: no CUDA call found at all: is this the source tree?"; exit 1; }
[ "$bad" = 0 ] || exit 1
echo "device-global calls: $seen, each marked with when it runs"
