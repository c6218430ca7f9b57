#!/usr/bin/env bash
# Checklist #4, #9, #10, #11: the file the hook mounts a driver library onto
# (/usr/lib/x86_64-linux-gnu/libcuda.so.<ver>) is, in the image,
#   trailing-abs   an absolute symlink to an existing host file (the sentinel's victim)
#   trailing-in-root  the same, with a file of that name inside the rootfs too
#   dangling-abs   an absolute symlink into a host directory, to a name that does not exist
#   dangling-jump  a symlink through /jump -> <host dir>, as in runc's tests
#   loop           a two-link loop (a -> b -> a)
#   chain41        a chain of 41 links ending in a host directory (beyond the kernel's 40)
#   fifo           a FIFO (opening it without O_PATH would hang the hook)
# SAFE: the container runs with the target created inside the rootfs (the link replaced or
# resolved in-root), or creation fails with the hook's error; never a hang (each run < 30 s).
# Host sentinels hash the same and the host mount table is unchanged.
# NVCT_HOOK_VARIANT (set by CTest) runs the hook normally or under tests/security/no_openat2.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/gpu.sh"

gpu_setup one-gpu
gpu_hook_variant
S="$E2E_TMP/host"
for d in trailing dangling jump chain; do gpu_sentinel "$S/$d"; done
mounts_before="$(gpu_host_mounts)"
lib=usr/lib/x86_64-linux-gnu
target="$lib/libcuda.so.550.54.14"

# A GPU bundle; the caller then plants its trick at <bundle>/rootfs/$target.
new_bundle() {
  gpu_bundle "$E2E_TMP/$1" NVIDIA_VISIBLE_DEVICES=0
  mkdir -p "$E2E_TMP/$1/rootfs/$lib"
  echo "$E2E_TMP/$1/rootfs"
}
# Runs case <id>: SAFE outcome, in time; when it ran, libcuda.so.1 in the container is the mock
# driver's (the mount landed on an in-root target).
run_case() {
  local id="$1" rc=0 start="$SECONDS"
  gpu_variant_run "$E2E_TMP/$id" "$id" || rc=$?
  check "$id: no hang (took $((SECONDS - start)) s)" test $((SECONDS - start)) -lt 30
  gpu_safe_outcome "$id" "$rc" "libcuda.so.550.54.14"
  if [ "$GPU_OUTCOME" = ran ]; then
    check_eq "$id: the container's libcuda.so.1 is the mock driver's" \
      "$(md5sum <"$GPU_ROOT/$target" | cut -d' ' -f1)" \
      "$(gpu_field "$E2E_TMP/$id.out" real | awk '$1 == "libcuda.so.1" { print $3 }')"
  fi
  gpu_check_variant "$id"
}

r="$(new_bundle trailing-abs)"
ln -s "$S/trailing/victim" "$r/$target"
run_case trailing-abs

# The same link, with the file it names present inside the rootfs: resolved in-root, it names
# that in-root copy (runc semantics) and never the host file.
r="$(new_bundle trailing-in-root)"
ln -s "$S/trailing/victim" "$r/$target"
mkdir -p "$r$S/trailing" && echo "in-root copy" >"$r$S/trailing/victim"
run_case trailing-in-root

r="$(new_bundle dangling-abs)"
ln -s "$S/dangling/new-file" "$r/$target"
run_case dangling-abs

r="$(new_bundle dangling-jump)"
ln -s /jump/baz/libcuda "$r/$target"
ln -s "$S/jump" "$r/jump"
run_case dangling-jump

r="$(new_bundle loop)"
ln -s loop-b "$r/$target"
ln -s libcuda.so.550.54.14 "$r/$lib/loop-b"
run_case loop

r="$(new_bundle chain41)"
ln -s "$S/chain/end" "$r/$lib/hop41"
for i in $(seq 40 -1 1); do ln -s "hop$((i + 1))" "$r/$lib/hop$i"; done
ln -s hop1 "$r/$target"
run_case chain41

r="$(new_bundle fifo)"
mkfifo "$r/$target"
run_case fifo

gpu_sentinel_check
check_eq "host mount table unchanged" "$mounts_before" "$(gpu_host_mounts)"
e2e_finish
