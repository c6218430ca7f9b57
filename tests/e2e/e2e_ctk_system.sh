#!/usr/bin/env bash
# nvidia-ctk system create-dev-char-symlinks / create-device-nodes (spec/ctk.md §8) and
# nvidia-ctk info (§3; nvct prints the host's toolkit facts, issue 16), run as the built binary
# against the one-GPU mock driver root (nvidia 195, nvidia-uvm 238, nvidia-caps 235; real
# character device nodes).
source "$(dirname "$0")/lib/common.sh"
require_root
require_cmd stat unshare

CTK="$(nvct_bin nvidia-ctk)"
make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
[ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"
ROOT="$E2E_TMP/driver-root"
bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/one-gpu.conf" --out "$ROOT" \
  >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"
[ -c "$ROOT/dev/nvidiactl" ] || e2e_die "mock root has no character device nodes (not root?)"

# run_ctk <args...>: sets RC, OUT, ERR.
run_ctk() {
  RC=0
  "$CTK" "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || RC=$?
  OUT="$(cat "$E2E_TMP/out")"
  ERR="$(cat "$E2E_TMP/err")"
}
# "MAJ:MIN => target" for every link of a directory, sorted.
links_of() {
  local l
  for l in "$1"/*; do
    [ -L "$l" ] && echo "$(basename "$l") => $(readlink "$l")"
  done | sort
}
# Every link's name must be the device number of the node it reaches.
links_match_devices() {
  local l want got
  for l in "$1"/*; do
    want="$(basename "$l")"
    got="$(stat -L -c '%Hr:%Lr' "$l")" || return 1
    [ "$(stat -L -c %F "$l")" = "character special file" ] || return 1
    [ "$want" = "$got" ] || { echo "$l: $got" >&2; return 1; }
  done
}

# --- info and the system group --------------------------------------------------------------
run_ctk info
check_eq "info exits 0" 0 "$RC"
check_contains "info prints the version" "NVIDIA Container Toolkit CLI version" "$OUT"
check_contains "info prints the config in use" "Config file: " "$OUT"
check_contains "info prints the mode" "Mode: " "$OUT"
check_contains "info prints the driver root" "Driver root: " "$OUT"
check_contains "info prints the driver version" "Driver version: " "$OUT"
check_contains "info prints the GPUs" "GPUs: " "$OUT"
run_ctk system
check_eq "system alone exits 0" 0 "$RC"
check_contains "system lists create-dev-char-symlinks" "create-dev-char-symlinks" "$OUT"
check_contains "system lists create-device-nodes" "create-device-nodes" "$OUT"

# --- create-dev-char-symlinks: existing nodes -----------------------------------------------
CHAR="$E2E_TMP/char"
run_ctk system create-dev-char-symlinks --driver-root "$ROOT" --dev-char-path "$CHAR" --dry-run
check_eq "dry-run exits 0" 0 "$RC"
check "dry-run creates nothing" test ! -e "$CHAR"
check_contains "dry-run says what it would link" "Creating link $CHAR/195:0 => $ROOT/dev/nvidia0" "$ERR"

run_ctk system create-dev-char-symlinks --driver-root "$ROOT" --dev-char-path "$CHAR"
check_eq "links: exits 0" 0 "$RC"
links="$(links_of "$CHAR")"
for want in "195:255 => $ROOT/dev/nvidiactl" "195:254 => $ROOT/dev/nvidia-modeset" \
  "195:0 => $ROOT/dev/nvidia0" "238:0 => $ROOT/dev/nvidia-uvm" \
  "238:1 => $ROOT/dev/nvidia-uvm-tools" "235:1 => $ROOT/dev/nvidia-caps/nvidia-cap1" \
  "235:2 => $ROOT/dev/nvidia-caps/nvidia-cap2"; do
  check_contains "links: $want" "$want" "$links"
done
check "links: every link is named after the st_rdev of its node" links_match_devices "$CHAR"
check_eq "links: no link for the imex channels (not in the command's node list)" "" \
  "$(links_of "$CHAR" | grep 'imex-channels' || true)"

ino_before="$(stat -c %i "$CHAR/195:0")"
ln -sfn /nowhere "$CHAR/195:255"
run_ctk system create-dev-char-symlinks --driver-root "$ROOT" --dev-char-path "$CHAR"
check_eq "second run exits 0" 0 "$RC"
check_eq "second run keeps a correct link (same inode)" "$ino_before" "$(stat -c %i "$CHAR/195:0")"
check_eq "second run repairs a stale link" "$ROOT/dev/nvidiactl" "$(readlink "$CHAR/195:255")"

# A node of the wrong number is never linked.
mv "$ROOT/dev/nvidia0" "$E2E_TMP/nvidia0.saved"
mknod "$ROOT/dev/nvidia0" c 1 3
CHAR2="$E2E_TMP/char2"
run_ctk system create-dev-char-symlinks --driver-root "$ROOT" --dev-char-path "$CHAR2"
check "wrong major: no link for a node that is not the device" test ! -e "$CHAR2/1:3"
check_contains "wrong major: warned" "/dev/nvidia0 is not a character device with major 195" "$ERR"
rm -f "$ROOT/dev/nvidia0"
mv "$E2E_TMP/nvidia0.saved" "$ROOT/dev/nvidia0"

# --- environment variables ------------------------------------------------------------------
CHAR3="$E2E_TMP/char3"
RC=0
DEV_CHAR_PATH="$CHAR3" NVIDIA_DRIVER_ROOT="$ROOT" DRIVER_ROOT=/nonexistent \
  "$CTK" system create-dev-char-symlinks >/dev/null 2>&1 || RC=$?
check_eq "env: DEV_CHAR_PATH and NVIDIA_DRIVER_ROOT (before DRIVER_ROOT) used" "0 $ROOT/dev/nvidiactl" \
  "$RC $(readlink "$CHAR3/195:255")"
CHAR4="$E2E_TMP/char4"
RC=0
DRY_RUN=true DRIVER_ROOT="$ROOT" "$CTK" system create-dev-char-symlinks --dev-char-path "$CHAR4" \
  >/dev/null 2>&1 || RC=$?
check_eq "env: DRY_RUN=true with DRIVER_ROOT creates nothing" "0 no" "$RC $([ -e "$CHAR4" ] && echo yes || echo no)"
RC=0
DRY_RUN=maybe "$CTK" system create-dev-char-symlinks --driver-root "$ROOT" --dev-char-path "$CHAR4" \
  >/dev/null 2>"$E2E_TMP/err" || RC=$?
check_eq "env: an invalid boolean fails" 1 "$RC"
check_contains "env: the variable is named" 'invalid boolean value \"maybe\" for DRY_RUN' "$(cat "$E2E_TMP/err")"
RC=0
DRY_RUN=1 "$CTK" system create-dev-char-symlinks --driver-root "$ROOT" --dev-char-path "$CHAR4" \
  --dry-run=false >/dev/null 2>&1 || RC=$?
check_eq "env: the flag wins over the variable" "0 yes" "$RC $([ -L "$CHAR4/195:0" ] && echo yes || echo no)"

# --- --create-all ---------------------------------------------------------------------------
rm "$ROOT/dev/nvidiactl" "$ROOT/dev/nvidia-uvm"
CHAR5="$E2E_TMP/char5"
run_ctk system create-dev-char-symlinks --driver-root "$ROOT" --dev-char-path "$CHAR5" \
  --create-all --create-device-nodes --load-kernel-modules
check_eq "create-all: exits 0" 0 "$RC"
check_eq "create-all: nvidiactl recreated as 195:255 mode 666" "c 195:255 666" \
  "$(stat -c '%F %Hr:%Lr %a' "$ROOT/dev/nvidiactl" | sed 's/character special file/c/')"
check_eq "create-all: nvidia-uvm recreated as 238:0" "238:0" "$(stat -c '%Hr:%Lr' "$ROOT/dev/nvidia-uvm")"
check_contains "create-all: module load skipped without modprobe in the root" \
  "Skipping kernel module load: /sbin/modprobe not found in $ROOT" "$ERR"
check "create-all: every link reaches its device" links_match_devices "$CHAR5"
check_eq "create-all: GPU link from the driver's GPU list" "$ROOT/dev/nvidia0" "$(readlink "$CHAR5/195:0")"

# --- create-device-nodes --------------------------------------------------------------------
DEVROOT="$E2E_TMP/devroot"
mkdir -p "$DEVROOT"
run_ctk system create-device-nodes --control-devices --driver-root "$ROOT" --dev-root "$DEVROOT" --dry-run
check_eq "nodes dry-run: exits 0" 0 "$RC"
check "nodes dry-run: creates nothing" test ! -e "$DEVROOT/dev"
run_ctk system create-device-nodes --control-devices --root "$ROOT" --dev-root "$DEVROOT"
check_eq "nodes: exits 0" 0 "$RC"
got=""
for n in nvidiactl nvidia-modeset nvidia-uvm nvidia-uvm-tools; do
  got+="$n $(stat -c '%Hr:%Lr %a' "$DEVROOT/dev/$n" 2>/dev/null || echo missing); "
done
check_eq "nodes: control devices with /proc/devices majors, mode 0666" \
  "nvidiactl 195:255 666; nvidia-modeset 195:254 666; nvidia-uvm 238:0 666; nvidia-uvm-tools 238:1 666; " "$got"
check "nodes: character devices" test -c "$DEVROOT/dev/nvidia-uvm-tools"
run_ctk system create-device-nodes --control-devices --root "$ROOT" --dev-root "$DEVROOT"
check_eq "nodes: a second run keeps the existing nodes (EEXIST tolerated)" 0 "$RC"
DEVROOT2="$E2E_TMP/devroot2"
mkdir -p "$DEVROOT2"
RC=0
ROOT="$ROOT" NVIDIA_DEV_ROOT="$DEVROOT2" "$CTK" system create-device-nodes --control-devices \
  >/dev/null 2>&1 || RC=$?
check_eq "nodes env: ROOT and NVIDIA_DEV_ROOT" "0 195:255" "$RC $(stat -c '%Hr:%Lr' "$DEVROOT2/dev/nvidiactl" 2>/dev/null)"
RC=0
unshare --user --map-root-user "$CTK" system create-device-nodes --load-kernel-modules \
  --root "$ROOT" >/dev/null 2>"$E2E_TMP/err" || RC=$?
check_eq "nodes in a user namespace: module load skipped, exit 0" 0 "$RC"
check_contains "nodes in a user namespace: clear warning" "running in a user namespace" "$(cat "$E2E_TMP/err")"
NOROOT="$E2E_TMP/not-loaded"
mkdir -p "$NOROOT/proc"
printf 'Character devices:\n  1 mem\n\nBlock devices:\n' >"$NOROOT/proc/devices"
run_ctk system create-device-nodes --control-devices --root "$NOROOT"
check_eq "nodes without the nvidia module: exit 1" 1 "$RC"
check_contains "nodes without the nvidia module: says why" "the NVIDIA kernel module is not loaded" "$ERR"

e2e_finish
