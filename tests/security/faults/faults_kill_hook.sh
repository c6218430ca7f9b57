#!/usr/bin/env bash
# Issue 18, Faults: the prestart hook SIGKILLed at random points of its run.
#  1. FAULT_HOOK_KILLS (default 100) kills of the hook invoked directly with the OCI state on
#     stdin against a fresh stand-in container each time (a process in a private mount namespace
#     with the rootfs bind-mounted onto itself, as runc leaves it at prestart); the delay is
#     uniform over 1.25 x the hook's measured lifetime (fault_inject exec-kill: the hook keeps its
#     pid, the killer holds a pidfd).
#  2. FAULT_RUNC_KILLS (default 10) kills of the hook started by runc through the shim.
# After every kill: this namespace's mount table (the hook's "host") is unchanged, the driver
# root (the host /dev stand-in with its device nodes, and the rootfs's source files) is unchanged
# file by file, no /dev/nvidia* appeared in the real /dev; runc reports the failure.
source "$(dirname "$0")/lib.sh"
source "$NVCT_SOURCE_DIR/tests/e2e/lib/rootfs.sh"
require_cmd busybox runc jq
HOOK_KILLS="${FAULT_HOOK_KILLS:-100}"
RUNC_KILLS="${FAULT_RUNC_KILLS:-20}"
# FAULT_HOOK_BIN: another hook binary in place of the built one (to show that the checks catch a
# hook that leaves a mount behind or touches the driver root).
HOOK="${FAULT_HOOK_BIN:-$HOOK}"

fault_mock_root one-gpu "$FT/driver-root"
[ -c "$FT/driver-root/dev/nvidia0" ] || e2e_die "the mock driver root has no device nodes"
ROOTFS="$FT/rootfs"
make_rootfs "$ROOTFS" glibc
mkdir -p "$ROOTFS/proc" "$FT/bundle"
cat >"$FT/bundle/config.json" <<JSON
{"ociVersion":"1.0.2","process":{"args":["sh"],"cwd":"/","env":["NVIDIA_VISIBLE_DEVICES=0","NVIDIA_DRIVER_CAPABILITIES=compute,utility"]},"root":{"path":"$ROOTFS"}}
JSON
cat >"$FT/hook.toml" <<TOML
[nvidia-container-cli]
root = "$FT/driver-root"
load-kmods = false
no-cgroups = true
ldconfig = "@/sbin/ldconfig"

[nvidia-container-runtime]
mode = "legacy"
TOML

# This namespace's mounts under the test's tmpfs or naming nvidia (the hook's targets and
# sources); other tests' mounts made before the unshare are copies that may come and go.
host_mounts() { grep -E "$FT|nvidia" /proc/self/mountinfo | awk '{ $1 = ""; $2 = ""; print }' | sort || true; }
real_dev() { ls -A /dev | grep -i nvidia || true; }
mounts_before="$(host_mounts)"
root_before="$(fault_snapshot "$FT/driver-root")"
dev_before="$(real_dev)"

CONTAINER=""
start_container() {
  unshare -m --propagation private sh -c "mount --bind '$ROOTFS' '$ROOTFS' &&
    mount -t proc proc '$ROOTFS/proc' && mount -t tmpfs tmpfs '$ROOTFS/proc/driver' &&
    exec sleep 600" &
  CONTAINER=$!
  local i
  for i in $(seq 1000); do
    [ "$(cat "/proc/$CONTAINER/comm" 2>/dev/null)" = sleep ] && return 0
    sleep 0.002
  done
  e2e_die "the stand-in container did not start"
}
stop_container() { kill -9 "$CONTAINER" 2>/dev/null || true; wait "$CONTAINER" 2>/dev/null || true; }
e2e_on_exit 'stop_container'
# run_hook <max delay us; 0: no kill>: the exit status of the hook
run_hook() {
  local rc=0
  printf '{"ociVersion":"1.0.2","id":"faults","status":"creating","pid":%s,"bundle":"%s"}' \
    "$CONTAINER" "$FT/bundle" >"$FT/state.json"
  if [ "$1" -eq 0 ]; then
    "$HOOK" -config "$FT/hook.toml" prestart <"$FT/state.json" >"$FT/hook.out" 2>&1 || rc=$?
  else
    "$FAULT_INJECT" exec-kill "$1" -- "$HOOK" -config "$FT/hook.toml" prestart \
      <"$FT/state.json" >"$FT/hook.out" 2>&1 || rc=$?
  fi
  return "$rc"
}

# Lifetime: the median of 5 unkilled runs (each must succeed).
times=()
for i in 1 2 3 4 5; do
  start_container
  t0=$(date +%s%N)
  run_hook 0 || e2e_die "an unkilled hook run failed: $(cat "$FT/hook.out")"
  times+=($((($(date +%s%N) - t0) / 1000)))
  stop_container
done
lifetime=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
# Delays spread over the median lifetime: under load the hook's time varies by 2x and more, so a
# wider spread lets most kills land after it ended (the fresh-clone CI run: 30 of 100 killed).
spread=$lifetime

killed=0 finished=0 other=0 mount_changes=0 root_changes=0 dev_changes=0
for i in $(seq "$HOOK_KILLS"); do
  start_container
  rc=0
  run_hook "$spread" 2>/dev/null || rc=$?
  case "$rc" in
    0) finished=$((finished + 1)) ;;
    137) killed=$((killed + 1)) ;;
    *) other=$((other + 1)); echo "# kill $i: the hook exited $rc: $(tail -2 "$FT/hook.out")" ;;
  esac
  stop_container
  [ "$(host_mounts)" = "$mounts_before" ] || { mount_changes=$((mount_changes + 1)); mounts_before="$(host_mounts)"; }
  [ "$(real_dev)" = "$dev_before" ] || dev_changes=$((dev_changes + 1))
  # The tree is hashed every 25th kill and at the end (a change stays visible until then).
  if [ $((i % 25)) -eq 0 ] || [ "$i" -eq "$HOOK_KILLS" ]; then
    [ "$(fault_snapshot "$FT/driver-root")" = "$root_before" ] || root_changes=$((root_changes + 1))
  fi
done
echo "# direct: kills=$HOOK_KILLS killed=$killed finished-first=$finished other-exit=$other lifetime_us=$lifetime spread_us=$spread"
check_eq "direct: the hook was killed in most runs (killed + finished = $HOOK_KILLS)" \
  "$HOOK_KILLS" "$((killed + finished))"
check "direct: at least a quarter of the delays landed before the hook ended ($killed killed)" \
  test "$killed" -ge $((HOOK_KILLS / 4))
check_eq "direct: the host mount table never changed" 0 "$mount_changes"
check_eq "direct: the driver root (host /dev stand-in, library sources) never changed" 0 "$root_changes"
check_eq "direct: no /dev/nvidia* appeared in the real /dev" 0 "$dev_changes"

# --- through runc (the shim in legacy mode injects the hook) ---
source "$NVCT_SOURCE_DIR/tests/e2e/lib/gpu.sh"
gpu_setup one-gpu
# The hook wrapper of gpu.sh, with the random killer in front.
# Half the spread: runc starts the hook with less around it than the direct runs above measure.
printf '#!/bin/sh\nexec %s exec-kill %s -- %s -config %s "$@"\n' "$FAULT_INJECT" "$((spread / 2))" \
  "$GPU_REAL_HOOK" "$GPU_CONFIG" >"$GPU_HOOK"
gpu_root_before="$(fault_snapshot "$GPU_ROOT")"
gpu_mounts_before="$(host_mounts)"
r_killed=0 r_finished=0 r_other=0 r_unreported=0
b="$FT/runc-bundle"
make_bundle "$b" glibc sh -c 'echo ok'
bundle_set_env "$b" NVIDIA_VISIBLE_DEVICES=0
gpu_add_mount "$b" '{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","mode=755"]}'
for i in $(seq "$RUNC_KILLS"); do
  rc=0
  gpu_run "$b" "faults-$i" || rc=$?
  if [ "$rc" -eq 0 ]; then
    r_finished=$((r_finished + 1))
  elif grep -q "killed" "$FT/faults-$i.err"; then
    r_killed=$((r_killed + 1))
  else
    r_other=$((r_other + 1))
    echo "# runc run $i: exit $rc without naming the kill: $(tail -2 "$FT/faults-$i.err")"
  fi
  if [ "$i" -eq 1 ] && [ "$rc" -ne 0 ]; then
    echo "# runc run 1: $(tail -1 "$FT/faults-$i.err" | cut -c1-300)"
  fi
done
echo "# runc: runs=$RUNC_KILLS killed-and-reported=$r_killed finished-first=$r_finished other=$r_other"
check_eq "runc: every failed create named the killed hook" 0 "$r_other"
check "runc: at least one hook was killed" test "$r_killed" -ge 1
check_eq "runc: the host mount table is unchanged" "$gpu_mounts_before" "$(host_mounts)"
check_eq "runc: the driver root is unchanged" "$gpu_root_before" "$(fault_snapshot "$GPU_ROOT")"
check_eq "runc: no /dev/nvidia* appeared in the real /dev" "$dev_before" "$(real_dev)"
e2e_finish
