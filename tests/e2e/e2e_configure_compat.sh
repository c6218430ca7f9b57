#!/usr/bin/env bash
# CUDA forward-compat libs in the image (mount.md §9): with compute, the compat folder whose libs
# are newer than the driver becomes an extra ldconfig folder and nothing of the image is ever
# mounted (CVE-2024-0132); `mount` mode behaves the same; disabled / --no-cntlibs ignore it.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/configure.sh"

# add_compat_libs: a CUDA 12.6-style compat dir reached through an absolute /usr/local/cuda link;
# the "newer" libcuda is the mock's file (soname libcuda.so.1) under a 560 name.
add_compat_libs() {
  local dir="$CFG_ROOTFS/usr/local/cuda-12.6/compat"
  mkdir -p "$dir"
  cp "$CFG_ROOT/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14" "$dir/libcuda.so.560.35.03"
  ln -s libcuda.so.560.35.03 "$dir/libcuda.so.1"
  ln -s /usr/local/cuda-12.6 "$CFG_ROOTFS/usr/local/cuda"
}

for mode in ldconfig mount; do
  cfg_setup one-gpu
  add_compat_libs
  cfg_start_container
  if cfg_configure --device=0 --compute --utility --no-cgroups --cuda-compat-mode=$mode \
    2>"$E2E_TMP/err"; then
    pass "configure --cuda-compat-mode=$mode exits 0"
  else
    failed "configure --cuda-compat-mode=$mode: $(cat "$E2E_TMP/err")"
  fi
  check_contains "$mode: the compat folder is in the ld.so.cache" \
    "=> /usr/local/cuda-12.6/compat/libcuda.so.1" "$(cfg_in 'ldconfig -p')"
  check_eq "$mode: nothing under the compat folder is a mount" "" \
    "$(cfg_container_mounts | grep -F /usr/local/ || true)"
  # Field 4 (the mount's root in its filesystem) is a host path when the temp dir is on "/";
  # the driver's libcuda proves that before the rootfs check relies on it.
  check_eq "$mode: mount sources are comparable host paths" \
    "$CFG_ROOT/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14" \
    "$(awk -v p="$CFG_ROOTFS/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14" '$5 == p {print $4}' \
      "/proc/$CFG_PID/mountinfo")"
  # (the rootfs's own bind mount, made as runc makes it, aside)
  check_eq "$mode: no mount has a source inside the rootfs" "" \
    "$(awk -v r="$CFG_ROOTFS" 'index($4, r) == 1 && !($4 == r && $5 == r)' "/proc/$CFG_PID/mountinfo")"
  cfg_stop_container
done

cfg_setup one-gpu
add_compat_libs
cfg_start_container
check "disabled: configure exits 0" cfg_configure --device=0 --compute --no-cgroups \
  --cuda-compat-mode=disabled
check "disabled: the compat folder is not in the ld.so.cache" \
  cfg_in '! ldconfig -p | grep -q /usr/local/cuda-12.6/compat'
rc=0
cfg_configure --device=0 --compute --no-cgroups --cuda-compat-mode=mount \
  --cuda-compat-mode=ldconfig 2>"$E2E_TMP/err" || rc=$?
check_eq "two modes: exit status" 1 "$rc"
check_eq "two modes: message" \
  "nvidia-container-cli: container error: only one cuda-compat-mode can be specified at a time" \
  "$(cat "$E2E_TMP/err")"
cfg_stop_container

e2e_finish
