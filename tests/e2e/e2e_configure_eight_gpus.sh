#!/usr/bin/env bash
# `nvidia-container-cli configure` on the eight-gpus mock driver (index != minor on purpose):
# device selection by index into a container, --device=all, and failures that must leave
# nothing behind (unsatisfied requirement, unknown device), with the reference's messages.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/configure.sh"

cfg_setup eight-gpus
uuid() { printf 'GPU-8a8a8a8a-0000-4000-8000-%012d' "$1"; }
tree_of() { (cd "$CFG_ROOTFS" && find . | sort); }

# Failures first, on a pristine rootfs: nothing may change, in the container or on the host.
tree_before="$(tree_of)"
host_before="$(cfg_host_mounts)"
cfg_start_container

# expect_failure <description> <stderr line> <configure args...>
expect_failure() {
  local what="$1" want="$2" rc=0
  shift 2
  cfg_configure "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
  check_eq "$what: exit status" 1 "$rc"
  # The reference's line first, byte for byte (nvct's reason may follow on a second line).
  check_eq "$what: message" "$want" "$(head -1 "$E2E_TMP/err")"
  check_eq "$what: no mount in the container" "" "$(cfg_container_mounts)"
  check_eq "$what: rootfs unchanged" "$tree_before" "$(tree_of)"
  check_eq "$what: host mounts unchanged" "$host_before" "$(cfg_host_mounts)"
}
expect_failure "unsatisfied cuda requirement" \
  "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a newer version, or use an earlier cuda container" \
  --device=0 --compute --utility --no-cgroups '--require=cuda>=99.0'
expect_failure "arch requirement on every selected GPU" \
  "nvidia-container-cli: requirement error: unsatisfied condition: arch<9.0" \
  --device=all --utility --no-cgroups '--require=arch<9.0'
expect_failure "invalid requirement" "nvidia-container-cli: requirement error: invalid expression: 'cuda==12.4' (each factor is cuda, driver or arch with = != < <= > >= and a version, or brand= / brand!= and a name; spaces separate alternatives, commas join conditions)" \
  --device=0 --utility --no-cgroups '--require=cuda==12.4'
valid="$(for i in 0 1 2 3 4 5 6 7; do printf '%s (%s), ' "$i" "$(uuid "$i")"; done)or all"
expect_failure "unknown device" \
  "nvidia-container-cli: device error: 8: unknown device (from --device); valid devices: $valid" \
  --device=8 --utility --no-cgroups
rc=0
"$CFG_CLI" --root "$CFG_ROOT" configure --pid "$CFG_PID" --utility / 2>"$E2E_TMP/err" || rc=$?
check_eq "rootfs / is refused: exit status" 1 "$rc"
check_eq "rootfs / is refused: message" \
  "nvidia-container-cli: container error: rootfs / must be an absolute path other than /" \
  "$(cat "$E2E_TMP/err")"

# Indexes 1 and 3 are the GPUs with minors 3 and 1.
if cfg_configure --device=1,3 --compute --utility --no-cgroups 2>"$E2E_TMP/err"; then
  pass "configure --device=1,3 exits 0"
else
  failed "configure --device=1,3: $(cat "$E2E_TMP/err")"
fi
check_eq "device nodes of the selected GPUs only (by minor)" \
  "$(printf '%s\n' /dev/nvidia1 /dev/nvidia3)" "$(cfg_in 'ls /dev/nvidia[0-9]*' | sort)"
check_eq "nvidia-smi -L lists exactly the selected GPUs in bus order" \
  "$(printf 'GPU 0: NVIDIA H100 80GB HBM3 (UUID: %s)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: %s)' \
    "$(uuid 1)" "$(uuid 3)")" \
  "$(cfg_in '/usr/bin/nvidia-smi -L' 2>&1)"
check_eq "procfs holds only the selected GPUs" "$(printf '%s\n' 0000:2a:00.0 0000:5d:00.0)" \
  "$(cfg_in 'ls /proc/driver/nvidia/gpus')"
check "fabric manager socket with utility" cfg_in 'test -S /run/nvidia-fabricmanager/socket'
cfg_stop_container

# --device=all in a fresh container; --no-fabricmanager drops that socket.
cfg_setup eight-gpus
cfg_start_container
if cfg_configure --device=all --utility --no-cgroups --no-fabricmanager 2>"$E2E_TMP/err"; then
  pass "configure --device=all exits 0"
else
  failed "configure --device=all: $(cat "$E2E_TMP/err")"
fi
check_eq "all eight GPU nodes" 8 "$(cfg_in 'ls /dev/nvidia[0-9]*' | wc -l)"
check_eq "utility only: no uvm node" "" "$(cfg_in 'ls /dev/nvidia-uvm 2>/dev/null' || true)"
check_eq "nvidia-smi -L lists eight GPUs" 8 "$(cfg_in '/usr/bin/nvidia-smi -L' | grep -c '^GPU ')"
check "no fabric manager socket with --no-fabricmanager" \
  cfg_in '! test -e /run/nvidia-fabricmanager/socket'
check "no libcuda without compute" cfg_in '! ldconfig -p | grep -q libcuda.so.1'
cfg_stop_container
check_eq "host mounts unchanged at the end" "$host_before" "$(cfg_host_mounts)"

e2e_finish
