#!/usr/bin/env bash
# Checklist #5 (CVE-2024-0132, and the source side of CVE-2025-23359): the image's CUDA
# forward-compat directory holds
#   libnvidia-ml.so.999        -> /proc/1/cwd/usr/lib/libnvidia-ml.so.1, which -> / (the PoC's
#                                 magic-link chain), and /host -> the libs dir's libnvidia-ml.so.1
#   libcuda.so.999.1.1         -> <host sentinel>/victim (absolute)
#   libnvidia-ptxjitcompiler.so.999.1 -> ../../../..<host sentinel>/victim (relative)
#   libcuda.so.9999.0/         a directory of that name
# run with the compat mode of every config that could pick them up: the default (compat libs
# from the image not allowed), cuda-compat-mode = "mount", "ldconfig", and
# allow-cuda-compat-libs-from-container = true.
# SAFE: nothing from the image is ever a mount source (no mount in the container has a source
# under the image or the filesystem root as its root), no host file or tree is visible in the
# container (/host/etc/hostname does not exist, no sentinel content), the host sentinel hashes
# the same and the host mount table is unchanged.
# NVCT_HOOK_VARIANT (set by CTest) runs the hook normally or under tests/security/no_openat2.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/gpu.sh"

gpu_setup one-gpu
gpu_hook_variant
S="$E2E_TMP/host"
gpu_sentinel "$S/compat"
mounts_before="$(gpu_host_mounts)"
cp "$GPU_CONFIG" "$E2E_TMP/config.base"

extra_report='
if [ -e /host/etc/hostname ]; then echo "hostview yes"; else echo "hostview no"; fi
echo "sentinelseen $(grep -rls "host sentinel" /usr/lib /usr/local /host/ 2>/dev/null | wc -l)"
awk '"'"'{ print "mnt", $4, $5 }'"'"' /proc/self/mountinfo
'
compat_bundle() {
  local b="$E2E_TMP/$1" r
  gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=compute,utility
  r="$b/rootfs"
  printf '%s' "$extra_report" >>"$r/report.sh"
  mkdir -p "$r/usr/local/cuda/compat/libcuda.so.9999.0" "$r/usr/lib"
  echo "image file" >"$r/usr/local/cuda/compat/libcuda.so.9999.0/inner"
  ln -s /proc/1/cwd/usr/lib/libnvidia-ml.so.1 "$r/usr/local/cuda/compat/libnvidia-ml.so.999"
  ln -s / "$r/usr/lib/libnvidia-ml.so.1"
  ln -s /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 "$r/host"
  ln -s "$S/compat/victim" "$r/usr/local/cuda/compat/libcuda.so.999.1.1"
  ln -s "../../../../../../../../..$S/compat/victim" \
    "$r/usr/local/cuda/compat/libnvidia-ptxjitcompiler.so.999.1"
}
# Runs case <id> with <toml> appended to the base config.
run_case() {
  local id="$1" toml="$2" rc=0 out="$E2E_TMP/$1.out"
  cp "$E2E_TMP/config.base" "$GPU_CONFIG"
  printf '%s\n' "$toml" >>"$GPU_CONFIG"
  compat_bundle "$id"
  gpu_variant_run "$E2E_TMP/$id" "$id" || rc=$?
  gpu_safe_outcome "$id" "$rc" "compat"
  [ "$GPU_OUTCOME" = ran ] || return 0
  gpu_check_variant "$id"
  check_eq "$id: no host tree at /host" "no" "$(gpu_field "$out" hostview)"
  check_eq "$id: no host sentinel content visible in the container" 0 \
    "$(gpu_field "$out" sentinelseen)"
  check_eq "$id: no mount comes from the image's compat dir" "" \
    "$(gpu_field "$out" mnt | awk '$1 ~ /cuda\/compat/')"
  check_eq "$id: no filesystem root is mounted anywhere but /" "" \
    "$(gpu_field "$out" mnt | awk '$1 == "/" && $2 != "/" && $2 !~ /^\/(proc|dev|sys)/')"
  check "$id: the report lists the driver's mounts in the libs dir" test \
    "$(gpu_field "$out" mnt | awk '$2 ~ /^\/usr\/lib\/x86_64-linux-gnu\/libcuda/' | wc -l)" -ge 1
  check_eq "$id: every mount in the libs dir comes from the driver root" "" \
    "$(gpu_field "$out" mnt | awk '$2 ~ /^\/usr\/lib/ && $1 !~ /driver-root\//')"
  check_eq "$id: no compat library was mounted into the libs dir" "" \
    "$(gpu_field "$out" mnt | awk '$2 ~ /\.so\.999/')"
}

run_case default ""
run_case mode-mount $'[nvidia-container-runtime.modes.legacy]\ncuda-compat-mode = "mount"'
run_case mode-ldconfig $'[nvidia-container-runtime.modes.legacy]\ncuda-compat-mode = "ldconfig"'
run_case allow-flag $'[features]\nallow-cuda-compat-libs-from-container = true'

gpu_sentinel_check
check_eq "host mount table unchanged" "$mounts_before" "$(gpu_host_mounts)"
e2e_finish
