#!/usr/bin/env bash
# Checklist rows 6 and 8 of spec/security.md (CVE-2025-23359, CVE-2026-24260, CVE-2025-23267) at
# the prestart hook: three flippers (tests/security/races/flipper.c) swap, with
# renameat2(RENAME_EXCHANGE), each of these image directories with an absolute symlink out of the
# rootfs while the real hook configures a GPU container on the mock driver over and over:
#   /usr/lib64               the libraries' directory (no /etc/debian_version: lib64 layout)
#   /etc/ld.so.conf.d        read by the native ld.so.cache writer
#   /usr/local/cuda/compat   a newer libcuda.so.999.* the hook selects for CUDA compat
# The hook runs straight from a state on stdin against a fresh stand-in container per run (a
# process in its own mount namespace with the rootfs bind-mounted on itself, procfs and a
# /proc/driver tmpfs, as runc leaves it before prestart hooks).
# Per run, from the stand-in's mount table, the cache and the hook's log: a run "raced" when it
# resolved through a link (its mounts, cache entries or compat pick sit under the link's in-root
# target); it escaped when a mount lies outside the rootfs or the cache lists the host-only
# library that only the host's copy of ld.so.conf.d names. Expected: 0 escapes, every run exits
# 0 or fails with a one-line error, the host sentinel tree and the host mount table unchanged.
# NVCT_HOOK_VARIANT=normal|no_openat2 (the latter under tests/security/no_openat2); every run's
# debug log proves the resolver. NVCT_RACE_HOOK_RUNS (default 1000 per variant)
# and NVCT_RACE_PAUSE_US (default 20) scale it.
source "$(dirname "$0")/../../e2e/lib/common.sh"
source "$(dirname "$0")/../../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../../e2e/lib/gpu.sh"
require_cmd sha256sum unshare find

RUNS="${NVCT_RACE_HOOK_RUNS:-1000}"
PAUSE_US="${NVCT_RACE_PAUSE_US:-20}"
VARIANT="${NVCT_HOOK_VARIANT:-normal}"
FLIPPER="$NVCT_BUILD_DIR/tests/security/races/race_flipper"
WRAP="$NVCT_BUILD_DIR/tests/security/no_openat2"
[ -x "$FLIPPER" ] || e2e_die "$FLIPPER not built (cmake --build $NVCT_BUILD_DIR --target race_flipper)"
gpu_setup one-gpu
HOOK=("$GPU_REAL_HOOK")
case "$VARIANT" in
  normal) ;;
  no_openat2)
    [ -x "$WRAP" ] || e2e_die "$WRAP not built (cmake --build $NVCT_BUILD_DIR --target no_openat2)"
    HOOK=("$WRAP" "$GPU_REAL_HOOK")
    ;;
  *) e2e_die "NVCT_HOOK_VARIANT='$VARIANT' (want normal or no_openat2)" ;;
esac
WALKER_LINE="with the userspace walker (openat2 unavailable)"
LOG="$E2E_TMP/hook-debug.log"
CONFIG="$E2E_TMP/race.toml"
sed "s|^root = .*|&\nno-cgroups = true\ndebug = \"$LOG\"|" "$GPU_CONFIG" >"$CONFIG"
echo "# variant $VARIANT: ${HOOK[*]}; $RUNS runs"

SENT="$(mktemp -d /tmp/nvct-race-sentinel.XXXXXX)"
e2e_on_exit "rm -rf '$SENT'"
mkdir -p "$SENT/lib" "$SENT/ld" "$SENT/compat"
echo host >"$SENT/lib/victim"
echo /opt/hostonly >"$SENT/ld/host.conf"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$SENT/compat/libcuda.so.999.1.1"
tree_hash() { (cd "$SENT" && find . -printf '%p %y %m %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat) | sha256sum; }
BEFORE="$(tree_hash)"
HOST_MOUNTS="$(gpu_host_mounts)"

b="$E2E_TMP/b"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0
R="$b/rootfs"
rm -f "$R/etc/debian_version"
mkdir -p "$R/usr/lib64" "$R/usr/local/cuda/compat" "$R/opt/hostonly" "$R/opt/raced"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/opt/hostonly/libhostonly.so.1"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/opt/raced/libraced.so.1"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/usr/local/cuda/compat/libcuda.so.999.1.1"
# The links' in-root targets: what a run that resolved through a link sees.
mkdir -p "$R$SENT/lib" "$R$SENT/ld" "$R$SENT/compat"
# Same name as the real directory's file: whichever listing, an open through the link shows.
echo /opt/raced >"$R$SENT/ld/x86_64-linux-gnu.conf"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R$SENT/compat/libcuda.so.999.1.1"

FLIPPERS=()
for pair in "usr/lib64:$SENT/lib" "etc/ld.so.conf.d:$SENT/ld" "usr/local/cuda/compat:$SENT/compat"; do
  dir="$R/${pair%%:*}"
  ln -s "${pair#*:}" "$dir.flip"
  "$FLIPPER" "$dir" "$dir.flip" "$PAUSE_US" >"$E2E_TMP/flips.${#FLIPPERS[@]}" 2>&1 &
  FLIPPERS+=($!)
done
e2e_on_exit 'for p in "${FLIPPERS[@]}"; do kill $p 2>/dev/null || true; done'

OK=0 FAILED=0 CRASHED=0 WALKER=0 RACED=0 ESCAPED=0 FIRST_FAILURE=""
RACED_LIB=0 RACED_LD=0 RACED_COMPAT=0
start=$SECONDS
for ((i = 0; i < RUNS; i++)); do
  rm -f "$E2E_TMP/ready" "$R/etc/ld.so.cache"
  unshare -m --propagation private sh -c "mount --bind '$R' '$R' && mount -t proc proc '$R/proc' &&
    mount -t tmpfs tmpfs '$R/proc/driver' && echo up >'$E2E_TMP/ready' && exec sleep 60" &
  fake=$!
  for ((w = 0; w < 500; w++)); do [ -s "$E2E_TMP/ready" ] && break; sleep 0.005; done
  : >"$LOG"
  printf '{"ociVersion":"1.0.2","id":"race","status":"creating","pid":%s,"bundle":"%s"}' "$fake" "$b" \
    >"$E2E_TMP/state.json"
  rc=0
  (cd "$b" && exec "${HOOK[@]}" -config "$CONFIG" prestart) <"$E2E_TMP/state.json" \
    >/dev/null 2>"$E2E_TMP/run.err" || rc=$?
  mounts="$(awk '{print $5}' "/proc/$fake/mountinfo" | grep -F -e libcuda -e nvidia || true)"
  kill "$fake" 2>/dev/null || true
  wait "$fake" 2>/dev/null || true
  log="$(<"$LOG")"
  [[ "$log" == *"$WALKER_LINE"* ]] && WALKER=$((WALKER + 1))
  case "$rc" in
    0) OK=$((OK + 1)) ;;
    1)
      FAILED=$((FAILED + 1))
      [ -n "$FIRST_FAILURE" ] || FIRST_FAILURE="$(tail -1 "$E2E_TMP/run.err")"
      ;;
    *)
      CRASHED=$((CRASHED + 1))
      echo "# run $i exited $rc: $(tail -2 "$E2E_TMP/run.err")" >&2
      ;;
  esac
  raced=0
  if grep -q -F -e "$R$SENT/lib" <<<"$mounts"; then raced=1 RACED_LIB=$((RACED_LIB + 1)); fi
  if [ -f "$R/etc/ld.so.cache" ] && grep -q -a /opt/raced/ "$R/etc/ld.so.cache"; then
    raced=1 RACED_LD=$((RACED_LD + 1))
  fi
  if [[ "$log" == *"selecting compat lib $SENT/compat"* ]]; then raced=1 RACED_COMPAT=$((RACED_COMPAT + 1)); fi
  RACED=$((RACED + raced))
  escaped=""
  if [ -n "$mounts" ] && grep -v -q -F "$R/" <<<"$mounts"; then
    escaped="a mount outside the rootfs: $(grep -v -F "$R/" <<<"$mounts" | head -3)"
  fi
  if [ -f "$R/etc/ld.so.cache" ] && grep -q -a /opt/hostonly/ "$R/etc/ld.so.cache"; then
    escaped="the cache lists the library only the host's ld.so.conf.d names"
  fi
  if [ -n "$escaped" ]; then
    ESCAPED=$((ESCAPED + 1))
    echo "# run $i escaped: $escaped" >&2
  fi
done
echo "# $RUNS hook runs in $((SECONDS - start)) s: $OK ok, $FAILED failed cleanly, $CRASHED crashed"
[ -z "$FIRST_FAILURE" ] || echo "# first failure: $FIRST_FAILURE"
echo "# $RACED runs raced (through the link: libraries dir $RACED_LIB, ld.so.conf.d $RACED_LD, compat $RACED_COMPAT)"
for n in "${!FLIPPERS[@]}"; do
  kill -TERM "${FLIPPERS[$n]}" 2>/dev/null || true
  rc=0
  wait "${FLIPPERS[$n]}" || rc=$?
  check_eq "flipper $n ran until stopped ($(cat "$E2E_TMP/flips.$n"))" 0 "$rc"
done
FLIPPERS=()
check_eq "0 runs escaped the rootfs" 0 "$ESCAPED"
check_eq "no run crashed" 0 "$CRASHED"
check "at least one run succeeded" test "$OK" -ge 1
check "at least one run raced" test "$RACED" -ge 1
if [ "$VARIANT" = normal ]; then
  check_eq "every run resolved with openat2 (no walker line)" 0 "$WALKER"
else
  check_eq "every run resolved with the userspace walker" "$RUNS" "$WALKER"
fi
check_eq "host sentinel tree unchanged" "$BEFORE" "$(tree_hash)"
check_eq "host mount table unchanged" "$HOST_MOUNTS" "$(gpu_host_mounts)"
e2e_finish
