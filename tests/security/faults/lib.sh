# shellcheck shell=bash
# Shared set-up of the fault-injection scripts. Source it first thing: the script is re-run in a
# private mount namespace (unshare -m) with its work directory on a tmpfs, so nothing a killed
# writer leaves and no mount it makes can reach the host; the host's /etc is never written (every
# command gets an explicit --config / --output / -config under $FT).
#   FT             the tmpfs work directory
#   FAULT_INJECT   tests/security/faults/fault_inject (built), FAULT_SLOW_WRITE its preload lib
#   CTK CLI HOOK CDI_HOOK   the built binaries
#   fault_kill <fault_inject kill args...>   runs it, prints its summary line, records failure
#   fault_mock_root <topology> <dir>         a mock driver root (tests/mock-driver)
#   fault_snapshot <dir>                     a listing of a tree with types, modes, devices,
#                                            sizes and content hashes, for before/after checks
if [ -z "${FAULT_IN_NS:-}" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "FATAL: $0 must run as root (mount namespaces, tmpfs)" >&2; exit 1; }
  command -v unshare >/dev/null || { echo "FATAL: unshare not found (util-linux)" >&2; exit 1; }
  FAULT_IN_NS=1 exec unshare -m --propagation private bash "$0" "$@"
fi
source "$(dirname "${BASH_SOURCE[0]}")/../../e2e/lib/common.sh"
export LC_ALL=C
require_root
require_cmd sha256sum find
# The host's /etc read-only in this namespace: a command that forgot its --config or --output
# fails with EROFS here instead of editing the host (the engines' default drop-in paths are there).
mount --bind /etc /etc && mount -o remount,bind,ro /etc || e2e_die "cannot make /etc read-only"
mount -t tmpfs -o size=512m,mode=755 fault-tmp "$E2E_TMP" || e2e_die "cannot mount a tmpfs on $E2E_TMP"
e2e_on_exit "umount -l '$E2E_TMP'"
FT="$E2E_TMP"

FAULT_INJECT="${FAULT_INJECT:-$NVCT_BUILD_DIR/tests/security/faults/fault_inject}"
FAULT_SLOW_WRITE="${FAULT_SLOW_WRITE:-$NVCT_BUILD_DIR/tests/security/faults/slow_write.so}"
[ -x "$FAULT_INJECT" ] ||
  e2e_die "$FAULT_INJECT not built (cmake --build $NVCT_BUILD_DIR --target fault_inject)"
[ -f "${FAULT_SLOW_WRITE%% *}" ] ||
  e2e_die "$FAULT_SLOW_WRITE not built (cmake --build $NVCT_BUILD_DIR --target fault_slow_write)"
CTK="$(nvct_bin nvidia-ctk)"
CLI="$(nvct_bin nvidia-container-cli)"
HOOK="$(nvct_bin nvidia-container-runtime-hook)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"
# Kills per file kind (the issue's figure is the default).
FAULT_KILLS="${FAULT_KILLS:-200}"

fault_kill() {
  local out rc=0 kind="${2:-?}"
  out="$("$FAULT_INJECT" kill "$@" 2>"$FT/fault_kill.err")" || rc=$?
  echo "$out"
  if [ "$rc" -eq 0 ]; then
    pass "$(echo "$out" | sed -n 's/^faults\[\([^]]*\)\].*violations=0.*/\1: every kill left the old or the new file; the next run swept the leftovers/p')"
  else
    sed 's/^/  /' "$FT/fault_kill.err" >&2
    failed "$kind: kill test failed (exit $rc)"
  fi
}

differs() { ! cmp -s "$1" "$2"; }

fault_mock_root() {
  local topology="$1" out="$2"
  local make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
  [ -e "$NVCT_BUILD_DIR/tests/mock-driver/bin/nvidia-smi" ] ||
    e2e_die "mock driver not built (cmake --build $NVCT_BUILD_DIR --target mock_driver)"
  bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$out" \
    >"$FT/make-root.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$FT/make-root.log")"
}

fault_snapshot() {
  (cd "$1" && find . -exec stat -c '%n %F %a %u:%g %s %t:%T %i %Y' {} + | sort &&
    find . -type f -exec sha256sum {} + | sort -k2) 2>&1
}
