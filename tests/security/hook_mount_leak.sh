#!/usr/bin/env bash
# Checklist #31 mount-leak: a GPU container whose library directory is a bind mount of a host
# directory with shared propagation. Every mount the hook's mount library makes inside the
# container must be private, so nothing propagates back into the host's mount namespace: after
# the container exits, the host's mount table is exactly what it was. (nvct's mount library
# refuses such a target outright, which is the fail-closed branch below.)
# NVCT_HOOK_VARIANT (set by CTest) runs the hook normally or under tests/security/no_openat2.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/gpu.sh"

gpu_setup one-gpu
gpu_hook_variant
shared="$E2E_TMP/shared-libdir"
mkdir -p "$shared"
mount --bind "$shared" "$shared"
e2e_on_exit "umount -l '$shared'"
mount --make-shared "$shared"
before="$(gpu_host_mounts)"
check_eq "setup: the shared bind mount is in place" 1 "$(grep -c " $shared " /proc/self/mountinfo)"

b="$E2E_TMP/b"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0
gpu_add_mount "$b" "{\"destination\":\"/usr/lib/x86_64-linux-gnu\",\"type\":\"bind\",\"source\":\"$shared\",\"options\":[\"rbind\",\"rshared\"]}"
jq '.linux.rootfsPropagation = "shared"' "$b/config.json" >"$b/config.json.new"
mv "$b/config.json.new" "$b/config.json"
# SAFE (security.md §9): either the container runs with every mount confined, or creation fails
# closed with a clear error (nvct's mount library refuses targets on shared mounts).
if gpu_variant_run "$b" leak; then
  check_eq "ran: the container got libcuda.so.1 in the shared directory" \
    "/usr/lib/x86_64-linux-gnu/libcuda.so.1" \
    "$(gpu_field "$E2E_TMP/leak.out" lib | awk '$1 == "libcuda.so.1" { print $2 }')"
else
  check_contains "refused: creation fails closed naming the shared propagation" \
    "nvidia-container-cli: mount error: " "$(cat "$E2E_TMP/leak.err")"
  check_contains "refused: ... because of the shared mount" "shared propagation" "$(cat "$E2E_TMP/leak.err")"
fi
gpu_check_variant leak
check_eq "no mount propagated into the host's shared directory" 1 \
  "$(grep -c "$shared" /proc/self/mountinfo)"
check_eq "host mount table unchanged" "$before" "$(gpu_host_mounts)"
e2e_finish
