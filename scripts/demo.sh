#!/usr/bin/env bash
# The README's "main job" at this stage: build nvct, make a busybox OCI bundle from local files,
# configure the shim through NVIDIA_CTK_CONFIG_FILE_PATH and run a container that requests
# NVIDIA_VISIBLE_DEVICES=all through nvidia-container-runtime -> runc. Prints what the container
# sees and the prestart hook the shim injected into its config.json.
#
# The prestart hook is a recording stand-in until nvidia-container-runtime-hook lands: it shows
# the hook was called by runc with the OCI state on stdin and the minimal environment nvct sets.
# Idempotent: everything lives in a temporary directory removed on exit. Run as root.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$(pwd)"

# NVCT_DEMO_BUILD_DIR=<dir> reuses an existing build tree instead of steps 1-2 (development).
if [ -n "${NVCT_DEMO_BUILD_DIR:-}" ]; then
  echo "== 1-2. using the existing build in $NVCT_DEMO_BUILD_DIR"
  NVCT_BUILD_DIR="$(cd "$NVCT_DEMO_BUILD_DIR" && pwd)"
  export NVCT_BUILD_DIR
else
  echo "== 1. dependencies (scripts/install-deps.sh)"
  scripts/install-deps.sh
  echo "== 2. build (scripts/build.sh ci)"
  scripts/build.sh ci >/dev/null
  export NVCT_BUILD_DIR="$repo/build/ci"
fi
export NVCT_SOURCE_DIR="$repo"

# Temp dir, cleanup trap, the stand-in hook and the shim config writer.
source tests/e2e/lib/common.sh
source tests/e2e/lib/rootfs.sh
require_root
require_cmd runc jq

shim="$(shim_bin)"
work="$E2E_TMP"
state="$work/runc-state"
bundle="$work/bundle"
id="nvct-demo-$$"
e2e_on_exit "runc --root '$state' delete --force '$id'"

echo "== 3. busybox bundle in $bundle"
make_bundle "$bundle" busybox sh -c \
  'echo "container: hostname=$(hostname) pid=$$"; echo "container: NVIDIA_VISIBLE_DEVICES=$NVIDIA_VISIBLE_DEVICES"; echo "container: /dev has: $(ls /dev | tr "\n" " ")"'
bundle_set_env "$bundle" NVIDIA_VISIBLE_DEVICES=all

echo "== 4. shim config ($work/config.toml)"
hook="$(make_record_hook "$work/hook")"
write_shim_config "$work/config.toml" '["runc"]' "$hook" auto "$work/nvidia-container-runtime.log"
export NVIDIA_CTK_CONFIG_FILE_PATH="$work/config.toml"
sed 's/^/    /' "$work/config.toml"

echo "== 5. nvidia-container-runtime --root $state run --bundle $bundle $id"
mkdir -p "$state"
"$shim" --root "$state" run --bundle "$bundle" "$id" </dev/null | sed 's/^/    /'

echo "== 6. prestart hook injected into config.json"
jq '.hooks.prestart' "$bundle/config.json" | sed 's/^/    /'

echo "== 7. what the hook received from runc"
sed 's/^/    /' "$work/hook/hook-called"

echo "== 8. shim log"
sed 's/^/    /' "$work/nvidia-container-runtime.log"
echo "== demo finished; $work is removed on exit"
