#!/usr/bin/env bash
# `nvidia-container-cli configure` of nvct and of libnvidia-container 1.17 on the same mock
# driver roots, each case in a fresh rootfs and a fresh stand-in container (a process in its own
# mount namespace with a procfs on the rootfs's /proc): the exit status and message, the mount
# table inside (target, type, options, source), the links and files made in the rootfs, the
# container's /proc/driver/nvidia, the entries of its ld.so.cache and the rules of its device
# cgroup must be equal, except where docs/deviations.md names the difference (the `allowed` table
# below points at its rows). Capability sets, device selections (index, UUID, bus id, MIG, all),
# MIG config/monitor, IMEX, --compat32, --no-devbind, --no-cgroups and requirement failures.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/lib/peers.sh"
require_root
require_cmd unshare nsenter mount find
peers_require

peers_enter "$0" "$@"

cli="$(nvct_bin nvidia-container-cli)"
peer="$PEER_BIN/nvidia-container-cli"
template="$E2E_TMP/rootfs-template"
make_rootfs "$template" glibc

allowed() { # <topology> <args>: the docs/deviations.md phrase that explains a difference
  case "$1|$2" in
    *--mig-config=all*--mig-monitor=all*) echo "bound read-only once" ;;
    graphics\|*--imex-channel=*) echo "crashes (SIGSEGV)" ;;
  esac
}

# effects <cli> <root> <args...>: what one configure did (peers_report).
effects() {
  local bin="$1" root="$2" rootfs="$E2E_TMP/rootfs" rc=0
  shift 2
  peers_container "$template" "$rootfs"
  "$bin" --root "$root" configure --pid "$PEERS_PID" --ldconfig=@/sbin/ldconfig "$@" \
    "$rootfs" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
  peers_report "$rootfs" "$rc" "$E2E_TMP/err"
}

compare() { # <topology> <root> <args...>
  local topo="$1" root="$2"
  shift 2
  effects "$cli" "$root" "$@" >"$E2E_TMP/nvct.txt"
  effects "$peer" "$root" "$@" >"$E2E_TMP/peer.txt"
  [ -n "${CONFORMANCE_KEEP:-}" ] && cp "$E2E_TMP/nvct.txt" "$CONFORMANCE_KEEP/$topo-$PEERS_CASES.txt"
  peers_compare "$topo [$*]" "$E2E_TMP/nvct.txt" "$E2E_TMP/peer.txt" "$(allowed "$topo" "$*")"
}

for topo in one-gpu mig eight-gpus graphics; do
  root="$E2E_TMP/root-$topo"
  peers_mock_root "$topo" "$root"
  mount --bind "$root/proc/devices" /proc/devices
  mount --bind "$root/proc/driver" /proc/driver
  conf="$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topo.conf"
  uuid1="$(sed -n 's/^gpu = .*uuid=\([^;]*\);.*/\1/p' "$conf" | sed -n 2p)"
  bus0="$(sed -n 's/^gpu = .*bus=\([^;]*\);.*/\1/p' "$conf" | head -1)"
  while IFS= read -r line; do
    # shellcheck disable=SC2086 # the option lists split on purpose
    compare "$topo" "$root" $line
  done <<CASES
--device=0 --utility
--device=0 --compute --utility
--device=all --compute --utility --video
--device=0 --graphics
--device=0 --display
--device=0 --ngx
--device=all --compute --utility --compat32
--device=all --compute --utility --video --graphics --display --ngx --compat32
--device=${uuid1:-0} --utility
--device=$bus0 --compute
--device=0:0 --utility --compute
--device=0 --mig-config=all --utility
--device=0 --mig-monitor=all --utility
--device=all --mig-config=all --mig-monitor=all --utility
--device=0 --imex-channel=0 --utility
--device=0 --no-devbind --utility
--device=all --no-cgroups --compute --utility
--device=0 --compute --require=cuda>=99.0
--device=0 --compute --require=cuda>=12.0 --require=brand=tesla
--device=7 --utility
--utility
CASES
  umount /proc/driver
  umount /proc/devices
done
peers_summary conformance_configure "configure cases with libnvidia-container 1.17"
e2e_finish
