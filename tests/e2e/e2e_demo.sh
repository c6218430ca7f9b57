#!/usr/bin/env bash
# The README's main command, scripts/demo.sh, run on this build (NVCT_DEMO_BUILD_DIR skips its
# dependency install and build): it exits 0 and shows a GPU container started through the shim
# and runc (the mock driver here, or the real driver where `nvidia-smi -L` works): the GPU device
# nodes, libcuda/libnvidia-ml in the container's ld.so.cache, nvidia-smi -L listing the GPUs, the
# injected prestart hook and the shim's log. Also: the demo preset builds only what the demo runs
# (release binaries and the mock driver, no test tree), which is what keeps it within 5 minutes.
source "$(dirname "$0")/lib/common.sh"

require_root
require_cmd runc jq python3
out="$E2E_TMP/demo.out"
if NVCT_DEMO_BUILD_DIR="$NVCT_BUILD_DIR" bash "$NVCT_SOURCE_DIR/scripts/demo.sh" >"$out" 2>&1; then
  pass "scripts/demo.sh exits 0"
else
  failed "scripts/demo.sh failed: $(tail -20 "$out")"
fi
text="$(cat "$out")"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  check_contains "driver: the host's real one" "real NVIDIA driver on this host" "$text"
else
  check_contains "driver: the mock driver root" "no usable NVIDIA driver here" "$text"
  check_contains "the container has both mock GPUs' nodes" \
    "/dev/nvidia-uvm /dev/nvidia-uvm-tools /dev/nvidia0 /dev/nvidia1 /dev/nvidiactl" \
    "$(grep 'device nodes:' "$out")"
  check_contains "... and the MIG devices' capability nodes" "/dev/nvidia-caps/nvidia-cap12" \
    "$(grep 'device nodes:' "$out")"
  check_contains "nvidia-smi -L in the container lists GPU 1" "GPU 1: NVIDIA A100" "$text"
fi
check_contains "libcuda.so.1 is in the container's ld.so.cache" "libcuda.so.1 /usr/lib/x86_64-linux-gnu/libcuda.so.1" "$text"
check_contains "nvidia-smi -L ran in the container" "nvidia-smi -L (exit 0):" "$text"
check_contains "the shim injected the prestart hook" '"args":["nvidia-container-runtime-hook","-config"' "$text"
check_contains "the shim's log says what it did" "applying legacy mode modifiers" "$text"
check_contains "the demo ends" "== demo finished" "$text"

# The demo preset: a release build of the programs and the mock driver, tests off.
preset="$(python3 - "$NVCT_SOURCE_DIR/CMakePresets.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
conf = next(c for c in p["configurePresets"] if c["name"] == "demo")["cacheVariables"]
build = next(b for b in p["buildPresets"] if b["name"] == "demo")
print(conf.get("CMAKE_BUILD_TYPE"), conf.get("BUILD_TESTING"), conf.get("NVCT_BUILD_MOCK_DRIVER"),
      " ".join(sorted(build.get("targets", []))))
PY
)"
check_eq "demo preset: Release, no tests, mock driver, only the demo's targets" \
  "Release OFF ON mock_driver nvidia-container-runtime nvidia-container-runtime-hook nvidia-container-runtime-nvml" \
  "$preset"
check_contains "demo.sh builds with the demo preset" "scripts/build.sh demo" \
  "$(cat "$NVCT_SOURCE_DIR/scripts/demo.sh")"

e2e_finish
