#!/usr/bin/env bash
# `nvidia-container-cli configure` on the mig mock driver (GPU0: MIG gi1/ci0 and gi2/ci0; GPU1:
# no MIG): a selected MIG device gets its parent's node, its access cap nodes and proc files
# (mount.md §8); --mig-config/--mig-monitor=all give the capabilities tree, /dev/nvidia-caps and
# the mig-minors cgroup rules of MIG-capable GPUs only; the reference's MIG errors.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/configure.sh"

cfg_setup mig
cfg_start_container cgroup
if cfg_configure --device=0:1 --utility 2>"$E2E_TMP/err"; then
  pass "configure --device=0:1 exits 0"
else
  failed "configure --device=0:1: $(cat "$E2E_TMP/err")"
fi
check_eq "MIG device: parent node and its gi/ci access cap nodes" \
  "$(printf '%s\n' /dev/nvidia-caps/nvidia-cap21 /dev/nvidia-caps/nvidia-cap22 /dev/nvidia0 \
    /dev/nvidiactl)" \
  "$(cfg_in 'find /dev -type c | sort')"
check_eq "only the selected MIG device's access files are visible" \
  "$(printf '%s\n' /proc/driver/nvidia/capabilities/gpu0/mig/gi2/access \
    /proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access)" \
  "$(cfg_in 'find /proc/driver/nvidia/capabilities -type f | sort')"
check_eq "access files are ro,nosuid,nodev,noexec" "ro,nosuid,nodev,noexec,relatime" \
  "$(cfg_mount_options /proc/driver/nvidia/capabilities/gpu0/mig/gi2/access)"
check_eq "nvidia-smi -L shows the GPU with only the selected MIG device" \
  "$(printf '%s\n  %s' 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)' \
    'MIG 3g.40gb      Device  0: (UUID: MIG-11111111-2222-3333-4444-000000000001)')" \
  "$(cfg_in '/usr/bin/nvidia-smi -L' 2>&1)"
rules="$(cat "$CFG_CGROUP/devices.list")"
check_contains "cgroup rule for the gi access cap" "c 235:21 rw" "$rules"
check_contains "cgroup rule for the ci access cap" "c 235:22 rw" "$rules"
check_contains "cgroup rule for the parent GPU" "c 195:0 rw" "$rules"
cfg_stop_container

cfg_setup mig
cfg_start_container cgroup
if cfg_configure --device=all --mig-config=all --mig-monitor=all --utility 2>"$E2E_TMP/err"; then
  pass "configure --mig-config=all --mig-monitor=all exits 0"
else
  failed "configure --mig-config=all: $(cat "$E2E_TMP/err")"
fi
check "the whole capabilities tree is visible" \
  cfg_in 'test -f /proc/driver/nvidia/capabilities/mig/config'
check_eq "/dev/nvidia-caps is bound rw,nosuid,noexec" "rw,nosuid,noexec,relatime" \
  "$(cfg_mount_options /dev/nvidia-caps)"
check_eq "nvidia-smi -L shows both MIG devices" 2 \
  "$(cfg_in '/usr/bin/nvidia-smi -L' | grep -c 'MIG 3g')"
rules="$(cat "$CFG_CGROUP/devices.list")"
check_contains "rule for the mig config cap" "c 235:1 rw" "$rules"
check_contains "rule for the mig monitor cap" "c 235:2 rw" "$rules"
check_contains "rule for a GPU0 mig-minors entry (gi1)" "c 235:12 rw" "$rules"
check_contains "rule for a GPU0 mig-minors entry (gi14/ci7)" "c 235:134 rw" "$rules"
check "no rule for GPU1, which cannot do MIG (gi0 minor 138)" \
  bash -c "! grep -qx 'c 235:138 rw' '$CFG_CGROUP/devices.list'"

expect_error() {
  local what="$1" want="$2" rc=0
  shift 2
  cfg_configure "$@" >/dev/null 2>"$E2E_TMP/err" || rc=$?
  check_eq "$what: exit status" 1 "$rc"
  check_eq "$what: message" "$want" "$(cat "$E2E_TMP/err")"
}
expect_error "mig-config with a specific MIG device" \
  "nvidia-container-cli: mig-config error: all: cannot enable mig-config with specific MIG devices selected" \
  --device=0:0 --mig-config=all --utility --no-cgroups
expect_error "mig-monitor other than all" \
  "nvidia-container-cli: mig-monitor error: 0: only 'all' devices are currently supported" \
  --device=0 --mig-monitor=0 --utility --no-cgroups
expect_error "IMEX channel out of range" \
  "nvidia-container-cli: error parsing IMEX info: unsupported IMEX channel value: 1048576" \
  --imex-channel=1048576 --utility --no-cgroups
cfg_stop_container

e2e_finish
