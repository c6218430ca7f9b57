#!/usr/bin/env bash
# The README's demo: a full GPU container through nvidia-container-runtime -> runc -> the nvct
# prestart hook. Builds nvct, picks the driver (the host's real one when `nvidia-smi -L` works
# here, else a mock driver root from tests/mock-driver with two GPUs, one of them MIG-enabled),
# makes a glibc OCI bundle from local files, and runs a container requesting
# NVIDIA_VISIBLE_DEVICES=all. Prints what the container sees (device nodes, the driver libraries
# in its ld.so.cache, nvidia-smi -L, ModifyDeviceFiles), the hook the shim injected and the logs.
#
# Idempotent: everything lives in a temporary directory removed on exit. Run as root.
# NVCT_DEMO_BUILD_DIR=<dir> reuses an existing build tree (development);
# NVCT_DEMO_DEVICES=<value> overrides NVIDIA_VISIBLE_DEVICES (default all).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

if [ -n "${NVCT_DEMO_BUILD_DIR:-}" ]; then
  echo "== 1-2. using the existing build in $NVCT_DEMO_BUILD_DIR"
  NVCT_BUILD_DIR="$(cd "$NVCT_DEMO_BUILD_DIR" && pwd)"
  export NVCT_BUILD_DIR
else
  echo "== 1. dependencies (scripts/install-deps.sh --demo)"
  scripts/install-deps.sh --demo
  echo "== 2. build: the binaries and the mock driver only (release, build/demo)"
  scripts/build.sh demo >/dev/null
  export NVCT_BUILD_DIR="$repo/build/demo"
fi
export NVCT_SOURCE_DIR="$repo"

# Temp dir + cleanup trap, bundle builders, the container report and the mock driver setup.
source tests/e2e/lib/common.sh
source tests/e2e/lib/rootfs.sh
source tests/e2e/lib/gpu.sh
require_root
require_cmd runc jq
devices="${NVCT_DEMO_DEVICES:-all}"
id="nvct-demo-$$"

echo "== 3. driver"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "    real NVIDIA driver on this host:"
  nvidia-smi -L | sed 's/^/      /'
  real_driver=1
  GPU_SHIM="$(shim_bin)"
  GPU_REAL_HOOK="$(nvct_bin nvidia-container-runtime-hook)"
  GPU_CONFIG="$E2E_TMP/config.toml"
  GPU_HOOKDIR="$E2E_TMP/hookbin"
  GPU_HOOK="$GPU_HOOKDIR/nvidia-container-runtime-hook"
  GPU_STATE="$E2E_TMP/runc-state"
  mkdir -p "$GPU_HOOKDIR" "$GPU_STATE"
  printf '#!/bin/sh\nexec %s -config %s "$@"\n' "$GPU_REAL_HOOK" "$GPU_CONFIG" >"$GPU_HOOK"
  chmod 0755 "$GPU_HOOK"
  cat >"$GPU_CONFIG" <<TOML
[nvidia-container-runtime]
debug = "$E2E_TMP/shim-debug.log"
mode = "legacy"
runtimes = ["runc"]

[nvidia-container-runtime-hook]
path = "$GPU_HOOK"
TOML
  export NVIDIA_CTK_CONFIG_FILE_PATH="$GPU_CONFIG"
  e2e_on_exit "runc --root '$GPU_STATE' delete --force '$id'"
else
  echo "    no usable NVIDIA driver here: building a mock driver root (tests/mock-driver, mig topology)"
  real_driver=0
  [ -e "$NVCT_BUILD_DIR/tests/mock-driver/bin/nvidia-smi" ] ||
    cmake --build "$NVCT_BUILD_DIR" --target mock_driver >/dev/null
  gpu_setup mig
  echo "    driver root: $GPU_ROOT"
  LD_LIBRARY_PATH="$GPU_ROOT/usr/lib/x86_64-linux-gnu" "$GPU_ROOT/usr/bin/nvidia-smi" -L | sed 's/^/      /'
fi

bundle="$E2E_TMP/bundle"
echo "== 4. glibc bundle in $bundle, NVIDIA_VISIBLE_DEVICES=$devices"
make_bundle "$bundle" glibc sh /report.sh
printf '%s' "$GPU_REPORT" >"$bundle/rootfs/report.sh"
bundle_set_env "$bundle" "NVIDIA_VISIBLE_DEVICES=$devices"
if [ "$real_driver" = 0 ]; then
  # Without the kernel module the container's procfs has no /proc/driver/nvidia; a tmpfs on
  # /proc/driver stands in for the directory the driver creates (tests/e2e/lib/gpu.sh).
  gpu_add_mount "$bundle" \
    '{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","mode=755"]}'
fi

echo "== 5. config ($GPU_CONFIG); the hook is called through a wrapper that passes -config"
sed 's/^/    /' "$GPU_CONFIG"

echo "== 6. nvidia-container-runtime --root $GPU_STATE run --bundle $bundle $id"
rc=0
"$GPU_SHIM" --root "$GPU_STATE" run --bundle "$bundle" "$id" </dev/null >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
if [ "$rc" -ne 0 ]; then
  echo "    container failed (exit $rc):"
  sed 's/^/      /' "$E2E_TMP/err"
  exit 1
fi
echo "    device nodes:       $(gpu_nodes "$E2E_TMP/out")"
echo "    ld.so.cache:"
gpu_field "$E2E_TMP/out" lib | grep -E '^(libcuda|libnvidia-ml)\.so\.1 ' | sed 's/^/      /'
gpu_field "$E2E_TMP/out" real | awk '{ print "      " $1 " -> " $2 }'
echo "    nvidia-smi -L (exit $(gpu_field "$E2E_TMP/out" smirc)):"
gpu_field "$E2E_TMP/out" smi | sed 's/^/      /'
echo "    /proc/driver/nvidia/params: $(gpu_field "$E2E_TMP/out" params)"
echo "    open() of the GPU nodes:"
gpu_field "$E2E_TMP/out" open | sed 's/^/      /'

echo "== 7. prestart hook injected into config.json"
jq -c '.hooks.prestart[]' "$bundle/config.json" | sed 's/^/    /'

echo "== 8. shim log"
sed 's/^/    /' "$E2E_TMP/shim-debug.log" 2>/dev/null || true
echo "== demo finished; $E2E_TMP is removed on exit"
