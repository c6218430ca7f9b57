#!/usr/bin/env bash
# Checklist #13 (runc CVE-2019-16884 class): the image ships its own /proc.
#   fake-dir        /proc is a regular directory with a fake driver/nvidia/params (and version,
#                   gpus/); runc mounts the live procfs over it as usual
#   fake-unmounted  the same image with the spec's proc mount (and /proc/driver tmpfs) removed,
#                   so the image's fake directory is what the hook finds at <rootfs>/proc
#   proc-symlink    /proc is a symlink to a host sentinel directory
# The hook must read the driver's params from the host side (the driver root), and its tmpfs over
# /proc/driver/nvidia must never land on the image's fake: the fake tree stays byte-identical,
# gets no new entries, and the container's params never show the fake's content.
# Host sentinels hash the same and the host mount table is unchanged.
# NVCT_HOOK_VARIANT (set by CTest) runs the hook normally or under tests/security/no_openat2.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/gpu.sh"

gpu_setup one-gpu
gpu_hook_variant
S="$E2E_TMP/host"
gpu_sentinel "$S/proc"
mounts_before="$(gpu_host_mounts)"
check "setup: the driver's params say ModifyDeviceFiles: 1" \
  grep -q "^ModifyDeviceFiles: 1" "$GPU_ROOT/proc/driver/nvidia/params"

# What the container sees at /proc/driver/nvidia: the fake's marker count and the filesystem.
extra_report='
echo "fakeparams $(grep -c FAKE-MARKER /proc/driver/nvidia/params 2>/dev/null)"
grep " /proc/driver/nvidia " /proc/self/mountinfo | sed "s/.* - \([^ ]*\) .*/procmnt \1/"
'
fake_bundle() {
  local b="$E2E_TMP/$1" p
  gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0
  printf '%s' "$extra_report" >>"$b/rootfs/report.sh"
  p="$b/rootfs/proc/driver/nvidia"
  mkdir -p "$p/gpus/0000:17:00.0"
  printf 'ModifyDeviceFiles: 1\nFAKE-MARKER: 1\n' >"$p/params"
  echo "FAKE-MARKER version" >"$p/version"
  echo "FAKE-MARKER info" >"$p/gpus/0000:17:00.0/information"
}
fake_digest() { gpu_sentinel_digest "$E2E_TMP/$1/rootfs/proc"; }

fake_bundle fake-dir
before="$(fake_digest fake-dir)"
rc=0
gpu_variant_run "$E2E_TMP/fake-dir" fake-dir || rc=$?
gpu_safe_outcome fake-dir "$rc" "proc"
if [ "$GPU_OUTCOME" = ran ]; then
  check_eq "fake-dir: the container's params come from the driver (ModifyDeviceFiles: 0)" \
    "ModifyDeviceFiles: 0" "$(gpu_field "$E2E_TMP/fake-dir.out" params)"
  check_eq "fake-dir: none of the fake's content is visible" 0 \
    "$(gpu_field "$E2E_TMP/fake-dir.out" fakeparams)"
  check_eq "fake-dir: /proc/driver/nvidia is the hook's tmpfs" tmpfs \
    "$(gpu_field "$E2E_TMP/fake-dir.out" procmnt | tail -1)"
  gpu_check_variant fake-dir
fi
check_eq "fake-dir: the image's fake /proc tree is unchanged" "$before" "$(fake_digest fake-dir)"

fake_bundle fake-unmounted
jq '.mounts |= map(select(.destination != "/proc" and .destination != "/proc/driver"))' \
  "$E2E_TMP/fake-unmounted/config.json" >"$E2E_TMP/c.new"
mv "$E2E_TMP/c.new" "$E2E_TMP/fake-unmounted/config.json"
before="$(fake_digest fake-unmounted)"
rc=0
gpu_variant_run "$E2E_TMP/fake-unmounted" fake-unmounted || rc=$?
# runc 1.1 cannot start a process without /proc (it lists /proc/self/fd), so creation fails
# either way; what matters is what the hook did first: with no procfs at <rootfs>/proc it must
# not put its tmpfs (or the gpus/ binds) on the image's directory. (A mount in the container's
# namespace cannot be seen from here, hence the hook's own log.)
check "fake-unmounted: creation fails (runc needs /proc)" test "$rc" -ne 0
check "fake-unmounted: the hook ran" grep -q "configuring container" \
  "$E2E_TMP/fake-unmounted.hook.log"
check_eq "fake-unmounted: the hook mounted nothing on the image's fake /proc/driver/nvidia" "" \
  "$(grep "mounted .* at /proc/driver/nvidia" "$E2E_TMP/fake-unmounted.hook.log" || true)"
check_eq "fake-unmounted: the image's fake /proc tree is unchanged" "$before" \
  "$(fake_digest fake-unmounted)"

gpu_bundle "$E2E_TMP/proc-symlink" NVIDIA_VISIBLE_DEVICES=0
rm -rf "$E2E_TMP/proc-symlink/rootfs/proc"
ln -s "$S/proc" "$E2E_TMP/proc-symlink/rootfs/proc"
rc=0
gpu_variant_run "$E2E_TMP/proc-symlink" proc-symlink || rc=$?
# runc refuses a /proc that is not an ordinary directory (CVE-2023-27561) before any hook runs;
# the check that matters here is the sentinel below.
check "proc-symlink: creation fails" test "$rc" -ne 0
echo "# proc-symlink: $(cat "$E2E_TMP/proc-symlink.err")"

gpu_sentinel_check
check_eq "host mount table unchanged" "$mounts_before" "$(gpu_host_mounts)"
e2e_finish
