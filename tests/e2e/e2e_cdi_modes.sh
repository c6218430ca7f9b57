#!/usr/bin/env bash
# The runtime's three modes give a container the same view of the GPUs. On the MIG mock driver
# (GPU 0: H100 with two MIG devices, GPU 1: A100) each request runs through the nvct shim and runc
# in legacy mode (NVIDIA_DRIVER_CAPABILITIES=all, so it mounts everything a CDI spec holds), in
# cdi mode (a spec written by `nvidia-ctk cdi generate` into a private spec dir) and in jit-cdi
# mode (edits built in memory at create). The /dev/nvidia* nodes, the x86-64 libraries in the
# container's ld.so.cache, the real files behind libcuda.so.1/libnvidia-ml.so.1 and nvidia-smi's
# GPU list must be identical. Also: the generated spec (0644, cdiVersion 0.5.0, hooks with env),
# the NVIDIA prestart hook removed in the CDI modes, an unresolvable CDI device and an unknown
# JIT device failing creation, and auto mode choosing cdi for qualified names and jit-cdi
# otherwise. The static shim's NVML query runs in the nvidia-container-runtime-nvml helper, so
# jit-cdi sees the MIG devices (G:M and MIG UUID requests, "all" with the MIG capability nodes)
# and never falls back to procfs; a shim copied away from its helper falls back with a warning.
#
# The mock host has no nvidia kernel module, so there is no host /proc/driver/nvidia for the mock
# NVML inside a CDI container (legacy mode writes its own copy). The CDI runs therefore get a
# createContainer hook (test plumbing) that copies the mock root's proc/driver/nvidia into the
# container's /proc/driver tmpfs, standing in for the kernel driver's procfs. Because that copy
# is the host's, not the legacy mode's filtered one, the procfs lines (params) are not compared.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"

gpu_setup mig
CTK="$(nvct_bin nvidia-ctk)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"
SPEC_DIR="$E2E_TMP/cdi"

# --- cdi generate ---------------------------------------------------------------------------------
umask 077  # the spec must still be 0644
# The legacy list of driver libraries, so that the containers of all modes can be compared
# (e2e_cdi_generate.sh covers the default: every *.so.<version> of the ldcache).
"$CTK" cdi generate --driver-root "$GPU_ROOT" --nvidia-cdi-hook-path "$CDI_HOOK" \
  --feature-flag enable-explicit-driver-libraries \
  --output "$SPEC_DIR/nvidia.yaml" 2>"$E2E_TMP/generate.err" ||
  e2e_die "cdi generate failed: $(cat "$E2E_TMP/generate.err")"
umask 022
SPEC="$SPEC_DIR/nvidia.yaml"
check_eq "generated spec mode is 0644" 644 "$(stat -c %a "$SPEC")"
check_eq "generated spec needs only cdiVersion 0.5.0" "cdiVersion: 0.5.0" "$(grep '^cdiVersion' "$SPEC")"
check_eq "generated devices (index names, MIG G:M, all)" \
  "nvidia.com/gpu=0 nvidia.com/gpu=0:0 nvidia.com/gpu=0:1 nvidia.com/gpu=1 nvidia.com/gpu=all" \
  "$("$CTK" cdi list --spec-dir "$SPEC_DIR" 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
check_contains "hooks carry NVIDIA_CTK_DEBUG=false" "NVIDIA_CTK_DEBUG=false" "$(cat "$SPEC")"
check_contains "hooks use the given nvidia-cdi-hook" "path: $CDI_HOOK" "$(cat "$SPEC")"
check_contains "library mounts are ro,nosuid,nodev,rbind,rprivate" \
  "$(printf -- '- ro\n            - nosuid\n            - nodev\n            - rbind\n            - rprivate')" \
  "$(cat "$SPEC")"
"$CTK" cdi generate --driver-root "$GPU_ROOT" --format json --device-name-strategy uuid \
  --no-all-device >"$E2E_TMP/uuid.json" 2>/dev/null || failed "cdi generate --format json failed"
check_eq "json + uuid names + --no-all-device" \
  "GPU-11111111-2222-3333-4444-555555555550 MIG-11111111-2222-3333-4444-000000000000 MIG-11111111-2222-3333-4444-000000000001 GPU-11111111-2222-3333-4444-555555555551" \
  "$(jq -r '.devices[].name' "$E2E_TMP/uuid.json" | tr '\n' ' ' | sed 's/ $//')"
if "$CTK" cdi generate --driver-root "$GPU_ROOT" --device-id 99 >/dev/null 2>"$E2E_TMP/99.err"; then
  failed "--device-id 99 should fail"
else
  check_contains "--device-id 99 fails like NVML" \
    "failed to get device handle from index: ERROR_INVALID_ARGUMENT" "$(cat "$E2E_TMP/99.err")"
fi

# --- per-mode configs ---------------------------------------------------------------------------
write_mode_config() {
  local mode="$1" file="$E2E_TMP/config-$1.toml"
  sed "s/^mode = .*/mode = \"$mode\"/" "$GPU_CONFIG" >"$file"
  cat >>"$file" <<TOML

[nvidia-container-runtime.modes.cdi]
spec-dirs = ["$SPEC_DIR"]

[nvidia-container-runtime.modes.jit-cdi]
nvcdi-feature-flags = ["enable-explicit-driver-libraries"]

[nvidia-ctk]
path = "$CTK"
TOML
  echo "$file"
}
CONFIG_LEGACY="$GPU_CONFIG"
CONFIG_CDI="$(write_mode_config cdi)"
CONFIG_JIT="$(write_mode_config jit-cdi)"
CONFIG_AUTO="$(write_mode_config auto)"

cat >"$E2E_TMP/procfs-hook.sh" <<SH
#!/bin/sh
# Test plumbing: the kernel driver's /proc/driver/nvidia, which the mock host does not have.
bundle="\$(jq -r .bundle)"
root="\$(jq -r .root.path "\$bundle/config.json")"
case "\$root" in /*) ;; *) root="\$bundle/\$root" ;; esac
cp -a "$GPU_ROOT/proc/driver/nvidia" "\$root/proc/driver/"
SH

# run_mode <mode> <name> <env...>
run_mode() {
  local mode="$1" name="$2" b="$E2E_TMP/b-$2" config
  shift 2
  gpu_bundle "$b" "$@"
  case "$mode" in
    legacy) config="$CONFIG_LEGACY" ;;
    cdi) config="$CONFIG_CDI" ;;
    jit-cdi) config="$CONFIG_JIT" ;;
    auto) config="$CONFIG_AUTO" ;;
  esac
  if [ "$mode" != legacy ]; then
    jq --arg s "$E2E_TMP/procfs-hook.sh" \
      '.hooks.createContainer += [{"path":"/bin/sh","args":["sh",$s],"env":["PATH=/usr/bin:/bin"]}]' \
      "$b/config.json" >"$b/config.json.new"
    mv "$b/config.json.new" "$b/config.json"
  fi
  if NVIDIA_CTK_CONFIG_FILE_PATH="$config" gpu_run "$b" "$name"; then
    check "$name: container ran to the end" grep -qx "done" "$E2E_TMP/$name.out"
  else
    failed "$name: run failed: $(tr '\n' ' ' <"$E2E_TMP/$name.err")"
  fi
}

# The parts of a report that must not depend on the mode.
view() {
  local out="$E2E_TMP/$1.out"
  echo "nodes: $(gpu_nodes "$out")"
  # libnvidia-nvvm70 is CDI-only content (cdi.md §6.3): legacy mode does not mount it.
  gpu_field "$out" lib | sed '/^libnvidia-nvvm70\.so/d' | sort
  gpu_field "$out" real
  echo "smirc: $(gpu_field "$out" smirc)"
  echo "gpus: $(gpu_smi_gpus "$out")"
}

# compare_modes <case> <NVIDIA_VISIBLE_DEVICES> [modes]: legacy, then each of the modes ("cdi",
# "jit"), whose container views must equal legacy's.
compare_modes() {
  local case="$1" request="$2" modes="${3:-cdi jit}" m
  run_mode legacy "legacy-$case" "NVIDIA_VISIBLE_DEVICES=$request" NVIDIA_DRIVER_CAPABILITIES=all
  for m in $modes; do
    case "$m" in
      cdi) run_mode cdi "cdi-$case" "NVIDIA_VISIBLE_DEVICES=$request" ;;
      jit) run_mode jit-cdi "jit-$case" "NVIDIA_VISIBLE_DEVICES=$request" ;;
    esac
  done
  view "legacy-$case" >"$E2E_TMP/view-legacy-$case"
  check "$case: legacy view has libcuda.so.1 and a GPU" grep -q "^libcuda.so.1 " "$E2E_TMP/view-legacy-$case"
  for m in $modes; do
    view "$m-$case" >"$E2E_TMP/view-$m-$case"
    if same_file "$E2E_TMP/view-legacy-$case" "$E2E_TMP/view-$m-$case"; then
      pass "$case: $m mode gives the legacy container view"
    else
      failed "$case: $m view differs from legacy: $(diff "$E2E_TMP/view-legacy-$case" "$E2E_TMP/view-$m-$case" | tr '\n' ' ')"
    fi
  done
}

# The shim is static; its NVML query runs in the dynamically linked nvidia-container-runtime-nvml
# helper built next to it, so jit-cdi sees NVML's MIG devices, as legacy mode does.
HELPER="$(dirname "$GPU_SHIM")/nvidia-container-runtime-nvml"
[ -x "$HELPER" ] || e2e_die "$HELPER is not built (it is built with the nvidia-container-runtime target)"
check "the NVML helper is dynamically linked" sh -c "file -L '$HELPER' | grep -q 'dynamically linked'"

compare_modes idx1 1
compare_modes idx0 0
compare_modes all all
compare_modes mig01 0:1
compare_modes miguuid MIG-11111111-2222-3333-4444-000000000001 jit
check "mig01: jit-cdi gives the MIG device's capability nodes" \
  sh -c "grep '^nodes: ' '$E2E_TMP/view-jit-mig01' | grep -q /dev/nvidia-caps/"
check "all: jit-cdi gives the MIG capability nodes" \
  sh -c "grep '^nodes: ' '$E2E_TMP/view-jit-all' | grep -q /dev/nvidia-caps/"
check_eq "all: nvidia-smi lists both GPUs in jit-cdi mode" 2 \
  "$(gpu_field "$E2E_TMP/jit-all.out" smi | grep -c '^GPU ')"
check_eq "jit-cdi runs: the shim never fell back to /proc/driver/nvidia" 0 \
  "$(grep -c 'instead of NVML' "$E2E_TMP/shim-debug.log" || true)"

# Without the helper (a copy of the shim alone in a directory, install helper dir without one),
# jit-cdi still works from /proc/driver/nvidia and the shim's log says why.
LONE="$E2E_TMP/lone"
mkdir -p "$LONE"
cp "$GPU_SHIM" "$LONE/nvidia-container-runtime"
HELPER_DIR="$(sed -n 's/.*install_helper_dir() { return "\(.*\)"; }/\1/p' "$NVCT_BUILD_DIR/generated/install_dirs.cpp")"
[ -n "$HELPER_DIR" ] || e2e_die "no install_helper_dir() in $NVCT_BUILD_DIR/generated/install_dirs.cpp"
if [ -e "$HELPER_DIR/nvidia-container-runtime-nvml" ]; then
  failed "an installed nvidia-container-runtime-nvml exists on this host; the fallback case cannot be shown"
else
  SAVED_SHIM="$GPU_SHIM"
  GPU_SHIM="$LONE/nvidia-container-runtime"
  : >"$E2E_TMP/shim-debug.log"
  run_mode jit-cdi jit-nohelper NVIDIA_VISIBLE_DEVICES=1
  GPU_SHIM="$SAVED_SHIM"
  check_contains "no helper: the shim warns that it fell back to procfs, naming the reason" \
    "no usable NVML helper nvidia-container-runtime-nvml: $LONE/nvidia-container-runtime-nvml (missing)" \
    "$(cat "$E2E_TMP/shim-debug.log")"
  check_contains "no helper: ... and that it used /proc/driver/nvidia" \
    "using /proc/driver/nvidia instead of NVML" "$(cat "$E2E_TMP/shim-debug.log")"
  check_eq "no helper: jit-cdi still gives the legacy view of GPU 1" \
    "$(cat "$E2E_TMP/view-legacy-idx1")" "$(view jit-nohelper)"
fi

# --- hook removal ------------------------------------------------------------------------------
b="$E2E_TMP/b-hookrm"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0
jq '.hooks.prestart = [{"path":"/usr/bin/nvidia-container-runtime-hook","args":["nvidia-container-runtime-hook","prestart"]}]' \
  "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
NVIDIA_CTK_CONFIG_FILE_PATH="$CONFIG_CDI" "$GPU_SHIM" --root "$GPU_STATE" create --bundle "$b" hookrm \
  </dev/null >/dev/null 2>"$E2E_TMP/hookrm.err" || failed "hookrm: create failed: $(cat "$E2E_TMP/hookrm.err")"
runc --root "$GPU_STATE" delete --force hookrm >/dev/null 2>&1 || true
check_eq "cdi mode removes the NVIDIA prestart hook (prestart absent)" null "$(jq -c '.hooks.prestart' "$b/config.json")"
check_eq "cdi mode injected /dev/nvidia0 into linux.devices" 1 \
  "$(jq '[.linux.devices[] | select(.path == "/dev/nvidia0")] | length' "$b/config.json")"
check_eq "cdi hooks are createContainer hooks with an explicit env" '["NVIDIA_CTK_DEBUG=false"]' \
  "$(jq -c '[.hooks.createContainer[] | select(.path == "'"$CDI_HOOK"'")][0].env' "$b/config.json")"

# --- failures ----------------------------------------------------------------------------------
expect_create_failure() {
  local name="$1" config="$2" want="$3" b="$E2E_TMP/b-$1"
  shift 3
  gpu_bundle "$b" "$@"
  cp "$b/config.json" "$E2E_TMP/$name.before"
  if NVIDIA_CTK_CONFIG_FILE_PATH="$config" gpu_run "$b" "$name"; then
    failed "$name: container creation should fail"
  else
    check_contains "$name: error names the cause" "$want" "$(cat "$E2E_TMP/$name.err")"
    check "$name: config.json left unchanged" same_file "$E2E_TMP/$name.before" "$b/config.json"
  fi
}
expect_create_failure cdi-unresolvable "$CONFIG_CDI" \
  "unresolvable CDI devices nvidia.com/gpu=7, nvidia.com/gpu=8" NVIDIA_VISIBLE_DEVICES=7,8
expect_create_failure jit-unknown "$CONFIG_JIT" \
  "failed to get device handle from index: ERROR_INVALID_ARGUMENT" NVIDIA_VISIBLE_DEVICES=5

# --- auto ----------------------------------------------------------------------------------------
run_mode auto auto-qualified NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=1
check_contains "auto with a qualified name resolves to cdi" "mode auto resolved to cdi" \
  "$(cat "$E2E_TMP/shim-debug.log")"
check_eq "auto (cdi) gives the legacy view" "$(cat "$E2E_TMP/view-legacy-idx1")" "$(view auto-qualified)"
run_mode auto auto-index NVIDIA_VISIBLE_DEVICES=1
check_contains "auto with an index resolves to jit-cdi (NVML in the driver root)" \
  "mode auto resolved to jit-cdi" "$(cat "$E2E_TMP/shim-debug.log")"
check_eq "auto (jit-cdi) gives the legacy view" "$(cat "$E2E_TMP/view-legacy-idx1")" "$(view auto-index)"

e2e_finish
