#!/usr/bin/env bash
# The mock driver works inside a minimal container rootfs (busybox-static + glibc's libc.so.6
# and dynamic loader, no libstdc++): nvidia-smi finds the injected libnvidia-ml.so.1 through
# the rootfs's own ld.so.cache, and the mock NVML takes "/" as its root, seeing only the
# procfs files and device nodes that were injected.
source "$(dirname "$0")/lib/common.sh"
((EUID == 0)) || { echo "FAIL: this test needs root (chroot, device nodes)" >&2; exit 1; }
busybox="$(command -v busybox || true)"
if [[ -z "$busybox" ]] || readelf -d "$busybox" | grep -q NEEDED; then
  echo "FAIL: a statically linked busybox is needed (apt-get install busybox-static)" >&2
  exit 1
fi

build_root mig "$WORK/driver"
D="$WORK/driver" C="$WORK/rootfs" V=550.54.14

# A busybox rootfs with only glibc's loader and libc.
mkdir -p "$C/bin" "$C/etc" "$C/lib64" "$C/lib/x86_64-linux-gnu" "$C/$LIB64" "$C/usr/bin" \
         "$C/dev" "$C/proc/driver/nvidia/gpus"
cp "$busybox" "$C/bin/busybox"
ln -s busybox "$C/bin/sh"
cp -L /lib64/ld-linux-x86-64.so.2 "$C/lib64/"
cp -L /lib/x86_64-linux-gnu/libc.so.6 "$C/lib/x86_64-linux-gnu/"
printf '/lib/x86_64-linux-gnu\n/%s\n' "$LIB64" > "$C/etc/ld.so.conf"

# What a runtime injects for GPU 1 (no MIG) with the utility capability: nvidiactl, nvidia1,
# the library, nvidia-smi, version/params and GPU 1's procfs directory.
cp "$D/$LIB64/libnvidia-ml.so.$V" "$C/$LIB64/"
cp "$D/usr/bin/nvidia-smi" "$C/usr/bin/"
cp -a "$D/dev/nvidiactl" "$D/dev/nvidia1" "$C/dev/"
cp "$D/proc/driver/nvidia/version" "$D/proc/driver/nvidia/params" "$C/proc/driver/nvidia/"
cp -r "$D/proc/driver/nvidia/gpus/0000:2a:00.0" "$C/proc/driver/nvidia/gpus/"
# The container's ldconfig step (it also creates the libnvidia-ml.so.1 soname link).
ldconfig -r "$C"

expect_eq "no libstdc++ in the rootfs" "" "$(find "$C" -name 'libstdc++*')"
chroot_bin="$(command -v chroot)"
in_container() { env -i PATH=/usr/bin:/bin "$chroot_bin" "$C" "$@"; }
expect_eq "nvidia-smi -L in the container sees only the injected GPU" \
  "GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-11111111-2222-3333-4444-555555555551)" \
  "$(in_container /usr/bin/nvidia-smi -L)"
expect "busybox shell runs nvidia-smi" grep -q "Driver Version: $V" \
  <<< "$(in_container /bin/sh -c 'nvidia-smi')"

# Now inject GPU 0 with one MIG device (gi2/ci0), as --device=0:1 would.
cp -a "$D/dev/nvidia0" "$C/dev/"
cp -r "$D/proc/driver/nvidia/gpus/0000:17:00.0" "$C/proc/driver/nvidia/gpus/"
mkdir -p "$C/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0"
cp "$D/proc/driver/nvidia/capabilities/gpu0/mig/gi2/access" \
   "$C/proc/driver/nvidia/capabilities/gpu0/mig/gi2/"
cp "$D/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access" \
   "$C/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/"
expect_eq "the container sees GPU 0 with only the injected MIG device" \
  "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)
  MIG 3g.40gb      Device  0: (UUID: MIG-11111111-2222-3333-4444-000000000001)
GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-11111111-2222-3333-4444-555555555551)" \
  "$(in_container /usr/bin/nvidia-smi -L)"

# Without the library nvidia-smi fails the way the real one does.
rm "$C/$LIB64"/libnvidia-ml.so*
ldconfig -r "$C"
rc=0; out="$(in_container /usr/bin/nvidia-smi -L)" || rc=$?
expect_eq "no library in the container: exit code" 12 "$rc"
expect "no library in the container: message" grep -q "couldn't find libnvidia-ml.so" <<< "$out"

finish
