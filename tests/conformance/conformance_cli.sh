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

if [ -z "${CONFORMANCE_INNER:-}" ]; then
  rm -rf "$E2E_TMP" # exec drops the EXIT trap; the inner run makes its own
  exec unshare -m --propagation private env CONFORMANCE_INNER=1 bash "$0" "$@"
fi

cli="$(nvct_bin nvidia-container-cli)"
peer="$PEER_BIN/nvidia-container-cli"

# allowed <topology> <args>: prints the docs/deviations.md phrase that explains a difference.
allowed() {
  case "$1|$2" in
    # nvct describes a driver without NVML from procfs; the reference fails.
    no-nvml\|info* | no-nvml\|list*) echo "an NVML library that cannot be used" ;;
  esac
}

cases=0 same=0 explained=0
compare() { # <topology> <root> <args...>
  local topo="$1" root="$2"
  shift 2
  local args="$*" rn=0 rp=0 why
  cases=$((cases + 1))
  "$cli" --root "$root" "$@" >"$E2E_TMP/n.out" 2>"$E2E_TMP/n.err" || rn=$?
  "$peer" --root "$root" "$@" >"$E2E_TMP/p.out" 2>"$E2E_TMP/p.err" || rp=$?
  if [ "$rn" = "$rp" ] && same_file "$E2E_TMP/n.out" "$E2E_TMP/p.out" &&
    same_file "$E2E_TMP/n.err" "$E2E_TMP/p.err"; then
    same=$((same + 1))
    return 0
  fi
  why="$(allowed "$topo" "$args")"
  if [ -n "$why" ] && grep -qF "$why" "$NVCT_SOURCE_DIR/docs/deviations.md"; then
    explained=$((explained + 1))
    echo "# $topo [$args]: differs, explained in docs/deviations.md ($why)"
    return 0
  fi
  failed "$topo [$args]: nvct exit $rn, NVIDIA exit $rp
--- NVIDIA stdout / +++ nvct stdout
$(diff -u "$E2E_TMP/p.out" "$E2E_TMP/n.out" | tail -n +3 | head -40)
--- NVIDIA stderr / +++ nvct stderr
$(diff -u "$E2E_TMP/p.err" "$E2E_TMP/n.err" | tail -n +3 | head -10)"
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
echo "# conformance_cli: $cases cases: $same identical, $explained explained by docs/deviations.md"
[ "$cases" -gt 0 ] && pass "compared $cases cases with libnvidia-container 1.17"
e2e_finish
