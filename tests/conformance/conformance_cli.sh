#!/usr/bin/env bash
# `nvidia-container-cli info`, `info --csv` and `list` (every option and selection form) of nvct
# and of libnvidia-container 1.17 on the same mock driver roots (1 GPU with IMEX channels, MIG,
# 8 GPUs, graphics, no NVML): stdout, stderr and the exit status must be equal, except where
# docs/deviations.md names the difference (the `allowed` table below points at its rows).
#
# Both run in a private mount namespace where the root's proc/devices and proc/driver are bound
# over /proc/devices and /proc/driver: libnvidia-container reads the kernel's majors and
# nvidia-caps/mig-minors from the host's /proc, nvct from the driver root's (the same files on a
# real host), and the mock's list the NVIDIA majors and MIG minors.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/lib/peers.sh"
require_root
require_cmd unshare mount
peers_require

peers_enter "$0" "$@"

cli="$(nvct_bin nvidia-container-cli)"
peer="$PEER_BIN/nvidia-container-cli"

# allowed <topology> <args>: prints the docs/deviations.md phrase that explains a difference.
allowed() {
  case "$1|$2" in
    # nvct describes a driver without NVML from procfs; the reference fails.
    no-nvml\|info* | no-nvml\|list*) echo "an NVML library that cannot be used" ;;
  esac
}

# report <cli> <root> <args...>: exit status, stdout and stderr of one run.
report() {
  local bin="$1" root="$2" rc=0
  shift 2
  "$bin" --root "$root" "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
  echo "exit $rc"
  cat "$E2E_TMP/out"
  echo "--- stderr"
  cat "$E2E_TMP/err"
}
compare() { # <topology> <root> <args...>
  local topo="$1" root="$2"
  shift 2
  report "$cli" "$root" "$@" >"$E2E_TMP/nvct.txt"
  report "$peer" "$root" "$@" >"$E2E_TMP/peer.txt"
  peers_compare "$topo [$*]" "$E2E_TMP/nvct.txt" "$E2E_TMP/peer.txt" "$(allowed "$topo" "$*")"
}

for topo in one-gpu mig eight-gpus graphics no-nvml; do
  root="$E2E_TMP/root-$topo"
  peers_mock_root "$topo" "$root"
  mount --bind "$root/proc/devices" /proc/devices
  mount --bind "$root/proc/driver" /proc/driver
  uuid0="$(sed -n 's/^gpu = .*uuid=\([^;]*\);.*/\1/p' "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topo.conf" | head -1)"
  bus0="$(sed -n 's/^gpu = .*bus=\([^;]*\);.*/\1/p' "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topo.conf" | head -1)"
  compare "$topo" "$root" info
  compare "$topo" "$root" info --csv
  while IFS= read -r line; do
    # shellcheck disable=SC2086 # the option lists split on purpose
    compare "$topo" "$root" list $line
  done <<LISTS

-l
-b
-i
-f
--compat32
-l --compat32
-l -b -i -f
-d all
-d 0
-d 0,1
-d 1,0
-d 1 -d 0
-d 1,all
-d all,nope
-d 0,0
-d $uuid0
-d $bus0
-d 0:0
-d 0:1 -l
-d 1,0:1,0:0
-d 0:1,1,0:0
-d 0 --mig-config=all
-d 0 --mig-monitor=all
-d all --mig-config=all --mig-monitor=all
-d 0 --mig-config=0
-d 0 --mig-monitor=ALL
--imex-channel=0
--imex-channel=1,0 -d 0
--imex-channel=7
--imex-channel=1048576
-i --no-persistenced
-i --no-fabricmanager
-f --no-gsp-firmware
--no-persistenced
-d 9
-d GPU-00000000-0000-0000-0000-000000000000
-d 0,nope
LISTS
  umount /proc/driver
  umount /proc/devices
done
peers_summary conformance_cli "cases with libnvidia-container 1.17"
e2e_finish
