#!/usr/bin/env bash
# Checklist #1-#3, #14 (CVE-2024-0133/0134 class, CVE-2026-41579 class): an image whose
# directories that the hook injects into are symlinks to host directories. The hook runs before
# pivot_root, so a link followed by the kernel from the host's root would land on the host.
#   libdir-abs      /usr/lib/x86_64-linux-gnu -> <host sentinel>                  (absolute)
#   libdir-dotdot   /usr/lib/x86_64-linux-gnu -> ../../../../../../../..<sentinel>  (relative)
#   lib64-abs       a non-Debian image (libs go to /usr/lib64): /usr/lib64 -> <sentinel>
#   firmware        /lib/firmware -> <sentinel>, and /lib/firmware/nvidia/<ver> ->
#                   /../../../../<sentinel> (NVIDIA's own e2e case)
#   dev-abs         the image's /dev (no tmpfs from the spec) -> <sentinel>, made a link just
#                   before the hook starts (runc's own /dev setup would follow it otherwise)
#   imex-caps       /dev/nvidia-caps-imex-channels -> <sentinel>, with an IMEX channel requested
# SAFE: the container runs with every link resolved inside its rootfs (the targets then exist
# under <rootfs><sentinel path>), or creation fails with the hook's error. Either way each host
# sentinel hashes the same and the host mount table is unchanged.
# NVCT_HOOK_VARIANT (set by CTest) runs the hook normally or under tests/security/no_openat2.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/gpu.sh"

gpu_setup one-gpu
gpu_hook_variant
S="$E2E_TMP/host"
for d in libdir dotdot lib64 firmware fwver dev caps; do gpu_sentinel "$S/$d"; done
mounts_before="$(gpu_host_mounts)"
ver=550.54.14
dots=../../../../../../../../../../../..

# A GPU bundle whose rootfs path <rel> is replaced by a symlink to <target>.
link_bundle() {
  local b="$1" rel="$2" target="$3"
  shift 3
  gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0 "$@"
  rm -rf "${b:?}/rootfs/$rel"
  mkdir -p "$(dirname "$b/rootfs/$rel")"
  ln -s "$target" "$b/rootfs/$rel"
}
# Runs case <id>; when it ran, <in-root file> must exist: the proof the link was followed inside
# the rootfs, where the hook created its target.
run_case() {
  local id="$1" in_root="$2" rc=0
  gpu_variant_run "$E2E_TMP/$id" "$id" || rc=$?
  gpu_safe_outcome "$id" "$rc" "${3:-$id}"
  [ "$GPU_OUTCOME" = ran ] &&
    check "$id: the target was created inside the rootfs ($in_root)" test -e "$in_root"
  gpu_check_variant "$id"
}

# Control: the same image without a trick gets its GPU in this variant (mounts work at all).
gpu_bundle "$E2E_TMP/control" NVIDIA_VISIBLE_DEVICES=0
run_case control "$E2E_TMP/control/rootfs/usr/lib/x86_64-linux-gnu/libcuda.so.$ver" "-"
check_eq "control: ran" ran "$GPU_OUTCOME"

link_bundle "$E2E_TMP/libdir-abs" usr/lib/x86_64-linux-gnu "$S/libdir"
run_case libdir-abs "$E2E_TMP/libdir-abs/rootfs$S/libdir/libcuda.so.$ver" "mount"
[ "$GPU_OUTCOME" = ran ] && check_eq "libdir-abs: libcuda.so.1 is the mock driver's" \
  "$(md5sum <"$GPU_ROOT/usr/lib/x86_64-linux-gnu/libcuda.so.$ver" | cut -d' ' -f1)" \
  "$(gpu_field "$E2E_TMP/libdir-abs.out" real | awk '$1 == "libcuda.so.1" { print $3 }')"

link_bundle "$E2E_TMP/libdir-dotdot" usr/lib/x86_64-linux-gnu "$dots$S/dotdot"
run_case libdir-dotdot "$E2E_TMP/libdir-dotdot/rootfs$S/dotdot/libcuda.so.$ver" "mount"

link_bundle "$E2E_TMP/lib64-abs" usr/lib64 "$S/lib64"
rm "$E2E_TMP/lib64-abs/rootfs/etc/debian_version"
run_case lib64-abs "$E2E_TMP/lib64-abs/rootfs$S/lib64/libcuda.so.$ver" "mount"

# The mock driver ships GSP firmware under /lib/firmware/nvidia/<ver>.
link_bundle "$E2E_TMP/firmware" lib/firmware "$S/firmware"
run_case firmware "$E2E_TMP/firmware/rootfs$S/firmware/nvidia/$ver" "mount"
link_bundle "$E2E_TMP/fwver" "lib/firmware/nvidia/$ver" "/../../../..$S/fwver"
run_case fwver "$E2E_TMP/fwver/rootfs$S/fwver" "mount"

# runc mounts a tmpfs on /dev unless the spec says otherwise; without it the image's /dev is used.
no_dev_tmpfs() {
  jq '.mounts |= map(select(.destination != "/dev" and .destination != "/dev/pts" and
    .destination != "/dev/shm" and .destination != "/dev/mqueue"))' "$1/config.json" >"$1/c.new"
  mv "$1/c.new" "$1/config.json"
}
# runc itself writes its /dev links (fd, ptmx, stdin...) through an image /dev symlink when the
# spec has no /dev tmpfs, so the image keeps a real /dev for runc and the prelude turns it into
# a link to the host sentinel after runc is done and just before the hook runs.
gpu_bundle "$E2E_TMP/dev-abs" NVIDIA_VISIBLE_DEVICES=0
no_dev_tmpfs "$E2E_TMP/dev-abs"
r="$E2E_TMP/dev-abs/rootfs"
cat >"$E2E_TMP/prelude" <<SH
if [ -d $r/dev ] && [ ! -L $r/dev ]; then /bin/mv $r/dev $r/dev.image && /bin/ln -s $S/dev $r/dev; fi
SH
gpu_hook_prelude "$E2E_TMP/prelude"
run_case dev-abs "$r$S/dev/nvidia0" "dev"
check "dev-abs: the prelude made /dev a link before the hook ran" test -L "$r/dev"

gpu_bundle "$E2E_TMP/imex-caps" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_IMEX_CHANNELS=0
no_dev_tmpfs "$E2E_TMP/imex-caps"
ln -s "$S/caps" "$E2E_TMP/imex-caps/rootfs/dev/nvidia-caps-imex-channels"
run_case imex-caps "$E2E_TMP/imex-caps/rootfs$S/caps/channel0" "nvidia-caps-imex-channels"

gpu_sentinel_check
check_eq "host mount table unchanged" "$mounts_before" "$(gpu_host_mounts)"
e2e_finish
