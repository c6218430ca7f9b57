#!/usr/bin/env bash
# With no config.toml on disk every binary behaves as with the packaged default (the file the
# packages write with `nvidia-ctk config default`, spec/packaging.md §4.5). The binaries run from
# a `cmake --install` tree (DESTDIR), so they also find each other the way an install does: the
# shim injects the hook installed next to it, and nothing falls back to a path that is not there.
source "$(dirname "$0")/lib/common.sh"
require_cmd jq cmake

DEST="$E2E_TMP/dest"
DESTDIR="$DEST" cmake --install "$NVCT_BUILD_DIR" --prefix /usr >"$E2E_TMP/install.log" 2>&1 ||
  e2e_die "cmake --install failed: $(tail -5 "$E2E_TMP/install.log")"
BIN="$DEST/usr/bin"
[ -x "$BIN/nvidia-container-runtime" ] || e2e_die "the install has no $BIN/nvidia-container-runtime"

FAKEBIN="$E2E_TMP/fakebin"
REC="$E2E_TMP/rec"
mkdir -p "$FAKEBIN" "$REC"
ln -s "$(fake_runtime_bin)" "$FAKEBIN/runc"  # the default runtimes = ["runc", "crun"]

MISSING="$E2E_TMP/etc/absent/config.toml"
PACKAGED="$E2E_TMP/etc/packaged/config.toml"
mkdir -p "$(dirname "$PACKAGED")"
"$BIN/nvidia-ctk" config default --output="$PACKAGED" || e2e_die "nvidia-ctk config default failed"
check "the packaged default file was written" test -s "$PACKAGED"

# --- nvidia-ctk: the effective configuration it shows -----------------------------------------
for which in missing packaged; do
  file="$MISSING"
  [ "$which" = packaged ] && file="$PACKAGED"
  NVIDIA_CTK_CONFIG_FILE_PATH="$file" "$BIN/nvidia-ctk" config >"$E2E_TMP/ctk-config-$which" 2>&1 ||
    failed "nvidia-ctk config with the $which file failed: $(cat "$E2E_TMP/ctk-config-$which")"
done
check "nvidia-ctk config: no file shows exactly the packaged default" \
  cmp -s "$E2E_TMP/ctk-config-missing" "$E2E_TMP/ctk-config-packaged"
check "nvidia-ctk config shows the default mode" grep -q '^mode = "auto"' "$E2E_TMP/ctk-config-missing"

# --- the shim: the config.json it hands to runc -----------------------------------------------
new_bundle() {
  local b="$E2E_TMP/bundle-$1"
  mkdir -p "$b/rootfs"
  printf '{"ociVersion":"1.0.2","process":{"args":["sh"],"env":["PATH=/bin","NVIDIA_VISIBLE_DEVICES=all"],"cwd":"/"},"root":{"path":"rootfs"}}\n' \
    >"$b/config.json"
  echo "$b"
}
# run_shim <program> <config file> <case>: create through the installed shim (or an alias of it)
# in front of the fake runc; leaves $E2E_TMP/shim-<case>.{rc,err} and the bundle's config.json.
run_shim() {
  local program="$1" file="$2" case="$3" b rc=0
  b="$(new_bundle "$case")"
  rm -f "$REC"/*
  env -i PATH="$FAKEBIN:/usr/sbin:/usr/bin:/sbin:/bin" NVIDIA_CTK_CONFIG_FILE_PATH="$file" \
    FAKE_RUNTIME_DIR="$REC" "$program" create --bundle "$b" "ctr-$case" \
    </dev/null >"$E2E_TMP/shim-$case.err" 2>&1 || rc=$?
  echo "$rc" >"$E2E_TMP/shim-$case.rc"
  # The hook gets `-config <file>` only when the file exists (both then read the same one).
  jq -S 'del(.hooks.prestart[]?.args[] | select(. == "-config" or startswith("'"$E2E_TMP"'")))' \
    "$b/config.json" >"$E2E_TMP/spec-$case.json"
  sed -e "s|$file|<config>|g" -e "s|bundle-$case|bundle|g" "$E2E_TMP/shim-$case.err" \
    >"$E2E_TMP/shim-$case.norm"
}

# The default mode (auto): whatever it does on this host, it does the same with and without the file.
run_shim "$BIN/nvidia-container-runtime" "$MISSING" auto-missing
run_shim "$BIN/nvidia-container-runtime" "$PACKAGED" auto-packaged
check_eq "shim (mode auto): same exit status with no file and with the packaged default" \
  "$(cat "$E2E_TMP/shim-auto-packaged.rc")" "$(cat "$E2E_TMP/shim-auto-missing.rc")"
check_eq "shim (mode auto): same messages" \
  "$(cat "$E2E_TMP/shim-auto-packaged.norm")" "$(cat "$E2E_TMP/shim-auto-missing.norm")"
check "shim (mode auto): same config.json" \
  cmp -s "$E2E_TMP/spec-auto-missing.json" "$E2E_TMP/spec-auto-packaged.json"

# Legacy mode through the installed alias (mode from argv[0]): the prestart hook is injected.
LEGACY="$BIN/nvidia-container-runtime.legacy"
check_eq "the install has the .legacy alias as a relative link" "nvidia-container-runtime" \
  "$(readlink "$LEGACY")"
run_shim "$LEGACY" "$MISSING" missing
run_shim "$LEGACY" "$PACKAGED" packaged
for which in missing packaged; do
  check_eq "shim .legacy ($which file) succeeded" 0 "$(cat "$E2E_TMP/shim-$which.rc")"
done
check "shim .legacy: no file gives the same config.json as the packaged default" \
  cmp -s "$E2E_TMP/spec-missing.json" "$E2E_TMP/spec-packaged.json"
check_eq "shim: the injected hook is the one installed next to the shim" \
  "$BIN/nvidia-container-runtime-hook" \
  "$(jq -r '.hooks.prestart[0].path' "$E2E_TMP/spec-missing.json")"
check_eq "shim: the hook gets -config only when the file exists" \
  "nvidia-container-runtime-hook -config $PACKAGED prestart" \
  "$(jq -r '.hooks.prestart[0].args | join(" ")' "$E2E_TMP/bundle-packaged/config.json")"

# --- a configured hook path that is not there: a clear error, nothing written ------------------
BAD="$E2E_TMP/etc/bad/config.toml"
mkdir -p "$(dirname "$BAD")"
printf '[nvidia-container-runtime-hook]\npath = "/opt/nowhere/nvidia-container-runtime-hook"\n' >"$BAD"
b="$(new_bundle bad)"
before="$(cat "$b/config.json")"
rm -f "$REC"/*
set +e
env -i PATH="$FAKEBIN:/usr/bin:/bin" NVIDIA_CTK_CONFIG_FILE_PATH="$BAD" FAKE_RUNTIME_DIR="$REC" \
  "$LEGACY" create --bundle "$b" ctr-bad </dev/null >"$E2E_TMP/bad.out" 2>&1
rc=$?
set -e
check "a missing configured hook fails the GPU container" test "$rc" -ne 0
check_contains "the error names the key, the file and the path" \
  "nvidia-container-runtime-hook.path in $BAD is set to /opt/nowhere/nvidia-container-runtime-hook, which is not an executable file" \
  "$(cat "$E2E_TMP/bad.out")"
check_eq "config.json is untouched" "$before" "$(cat "$b/config.json")"
check "runc was never called" test ! -e "$REC/last.json"

# --- cdi generate: the hook written into the spec is the installed one ------------------------
gpu_root_setup() {
  source "$NVCT_SOURCE_DIR/tests/e2e/lib/gpu.sh"
  gpu_setup one-gpu >/dev/null
}
if [ -e "$NVCT_BUILD_DIR/tests/mock-driver/bin/nvidia-smi" ] && [ "$(id -u)" -eq 0 ]; then
  gpu_root_setup
  for which in missing packaged; do
    file="$MISSING"
    [ "$which" = packaged ] && file="$PACKAGED"
    env -i PATH=/usr/bin:/bin NVIDIA_CTK_CONFIG_FILE_PATH="$file" "$BIN/nvidia-ctk" cdi generate \
      --driver-root "$GPU_ROOT" --dev-root "$GPU_ROOT" --format json >"$E2E_TMP/cdi-$which.json" \
      2>"$E2E_TMP/cdi-$which.err" || failed "cdi generate ($which): $(cat "$E2E_TMP/cdi-$which.err")"
  done
  check "cdi generate: no file gives the same spec as the packaged default" \
    cmp -s "$E2E_TMP/cdi-missing.json" "$E2E_TMP/cdi-packaged.json"
  check_eq "cdi generate: every hook is the nvidia-cdi-hook installed next to nvidia-ctk" \
    "$BIN/nvidia-cdi-hook" \
    "$(jq -r '[.. | objects | select(has("hookName")) | .path] | unique | join(" ")' "$E2E_TMP/cdi-missing.json")"
else
  failed "cdi generate case needs root and the mock driver (cmake --build $NVCT_BUILD_DIR --target mock_driver)"
fi

e2e_finish
