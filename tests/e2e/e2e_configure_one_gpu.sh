#!/usr/bin/env bash
# `nvidia-container-cli configure` on the one-gpu mock driver into a container at prestart
# (mount.md §3-§7, §10, §11): device nodes, libraries and ldconfig, mock nvidia-smi, procfs
# rewrite, mount flags, v1 device cgroup rules, and a host mount table left untouched.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/configure.sh"

cfg_setup one-gpu
host_before="$(cfg_host_mounts)"
cfg_start_container cgroup

if cfg_configure --device=0 --compute --utility --imex-channel=1 2>"$E2E_TMP/err"; then
  pass "configure --device=0 --compute --utility exits 0"
else
  failed "configure failed: $(cat "$E2E_TMP/err")"
fi

check_eq "device nodes: control nodes for compute, the GPU, the IMEX channel, no modeset" \
  "$(printf '%s\n' /dev/nvidia-caps-imex-channels/channel1 /dev/nvidia-uvm /dev/nvidia-uvm-tools \
    /dev/nvidia0 /dev/nvidiactl)" \
  "$(cfg_in 'find /dev -type c | sort')"
check_eq "nvidiactl is 195:255 (hex c3:ff)" "c3:ff" "$(cfg_in 'stat -c "%t:%T" /dev/nvidiactl')"

ldp="$(cfg_in 'ldconfig -p')"
check_contains "ldconfig -p lists libcuda.so.1 at the injected path" \
  "libcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1" "$ldp"
check_contains "ldconfig -p lists libnvidia-ml.so.1 at the injected path" \
  "libnvidia-ml.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1" "$ldp"
check_eq "libcuda.so link (mount.md §6)" "libcuda.so.1" \
  "$(cfg_in 'readlink /usr/lib/x86_64-linux-gnu/libcuda.so')"

check_eq "nvidia-smi -L lists exactly the selected GPU" \
  "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)" \
  "$(cfg_in '/usr/bin/nvidia-smi -L' 2>&1)"
check_contains "params shows ModifyDeviceFiles: 0" "ModifyDeviceFiles: 0" \
  "$(cfg_in 'cat /proc/driver/nvidia/params')"
check_eq "only the selected GPU's procfs dir" "0000:17:00.0" \
  "$(cfg_in 'ls /proc/driver/nvidia/gpus')"
check "GSP firmware is mounted" cfg_in 'test -f /lib/firmware/nvidia/550.54.14/gsp_ga10x.bin'
check "persistenced socket is mounted at its real path" \
  cfg_in 'test -S /run/nvidia-persistenced/socket'

check_eq "library flags ro,nosuid,nodev" "ro,nosuid,nodev,relatime" \
  "$(cfg_mount_options /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14)"
check_eq "binary flags ro,nosuid,nodev" "ro,nosuid,nodev,relatime" \
  "$(cfg_mount_options /usr/bin/nvidia-smi)"
check_eq "device flags ro,nosuid,noexec" "ro,nosuid,noexec,relatime" \
  "$(cfg_mount_options /dev/nvidia0)"
check_eq "ipc flags rw,nosuid,nodev,noexec" "rw,nosuid,nodev,noexec,relatime" \
  "$(cfg_mount_options /run/nvidia-persistenced/socket)"
check_eq "procfs tmpfs flags" "rw,nosuid,nodev,noexec,relatime" \
  "$(cfg_mount_options /proc/driver/nvidia)"
check "no shared propagation on injected mounts" \
  bash -c "! grep -F '$CFG_ROOTFS' /proc/$CFG_PID/mountinfo | grep -q shared:"

rules="$(cat "$CFG_CGROUP/devices.list")"
for r in "c 195:255 rw" "c 195:0 rw" "c 238:0 rw" "c 238:1 rw" "c 234:1 rw"; do
  check_contains "device cgroup allows $r" "$r" "$rules"
done

check_eq "host mount table unchanged while the container lives" "$host_before" "$(cfg_host_mounts)"
cfg_stop_container
check_eq "host mount table unchanged after the namespace is gone" "$host_before" \
  "$(cfg_host_mounts)"
check_eq "the rootfs holds no mount on the host" "" \
  "$(awk -v r="$CFG_ROOTFS" 'index($5, r) == 1' /proc/self/mountinfo)"

e2e_finish
