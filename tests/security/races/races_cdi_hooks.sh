#!/usr/bin/env bash
# Checklist rows 6 and 8 of spec/security.md (CVE-2025-23359, CVE-2026-24260) at the CDI-hook
# level: a sibling container sharing a volume flips a directory of the image between a real
# directory and an absolute symlink out of the rootfs with renameat2(RENAME_EXCHANGE)
# (tests/security/races/flipper.c) while the real nvidia-cdi-hook runs over and over:
#   update-ldcache      /etc/ld.so.conf.d        <-> link to $SENT/ld
#   enable-cuda-compat  /usr/local/cuda/compat   <-> link to $SENT/compat
#   create-symlinks     /usr/lib64 (link parent) <-> link to $SENT/lib
# Each link's target also exists inside the rootfs, so a run that resolved through the link
# leaves its output there (in-root, SAFE): the test counts those runs ("raced") and prints them.
# Expected: every run exits 0 or fails with a one-line error (no crash), the host sentinel tree
# hashes the same before and after, and every run used the resolver the variant asks for:
#   NVCT_HOOK_VARIANT=normal      openat2 (no walker line in any run's debug log)
#   NVCT_HOOK_VARIANT=no_openat2  under tests/security/no_openat2: every run logs the walker line
# NVCT_RACE_RUNS (default 1000) is the number of runs per hook, NVCT_RACE_PAUSE_US (default 20)
# the flipper's pause after each swap.
source "$(dirname "$0")/../../e2e/lib/common.sh"
source "$(dirname "$0")/../../e2e/lib/rootfs.sh"
require_root
require_cmd sha256sum find

RUNS="${NVCT_RACE_RUNS:-1000}"
# A pause after each swap keeps the flipper from taking a whole core of a 2-core CI machine; it
# still swaps many times during each run of a hook.
PAUSE_US="${NVCT_RACE_PAUSE_US:-20}"
VARIANT="${NVCT_HOOK_VARIANT:-normal}"
FLIPPER="$NVCT_BUILD_DIR/tests/security/races/race_flipper"
PROBE="$NVCT_BUILD_DIR/tests/security/sandbox_probe"
WRAP="$NVCT_BUILD_DIR/tests/security/no_openat2"
for f in "$FLIPPER" "$PROBE" "$WRAP"; do
  [ -x "$f" ] || e2e_die "$f not built (cmake --build $NVCT_BUILD_DIR --target race_flipper sandbox_probe no_openat2)"
done
HOOK_BIN="$(nvct_bin nvidia-cdi-hook)"
case "$VARIANT" in
  normal) HOOK=("$HOOK_BIN") ;;
  no_openat2) HOOK=("$WRAP" "$HOOK_BIN") ;;
  *) e2e_die "NVCT_HOOK_VARIANT='$VARIANT' (want normal or no_openat2)" ;;
esac
WALKER_LINE="with the userspace walker (openat2 unavailable)"
echo "# variant $VARIANT: ${HOOK[*]}; $RUNS runs per hook"

# Host sentinel tree: hashed before and after (names, types, modes, link targets, contents).
SENT="$(mktemp -d /tmp/nvct-race-sentinel.XXXXXX)"
e2e_on_exit "rm -rf '$SENT'"
mkdir -p "$SENT/ld" "$SENT/compat" "$SENT/lib"
echo host >"$SENT/ld/host.conf"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$SENT/compat/libcuda.so.999.1.1"
echo host >"$SENT/lib/victim"
tree_hash() { (cd "$SENT" && find . -printf '%p %y %m %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat) | sha256sum; }
BEFORE="$(tree_hash)"

B="$E2E_TMP/bundle"
make_bundle "$B" glibc
R="$B/rootfs"
STATE="$E2E_TMP/state.json"
printf '{"ociVersion":"1.0.2","id":"race","status":"creating","pid":1,"bundle":"%s"}' "$B" >"$STATE"
mkdir -p "$R/opt/nv" && cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/opt/nv/"
/sbin/ldconfig -r "$R" 2>/dev/null || true
[ -f "$R/etc/ld.so.cache" ] || : >"$R/etc/ld.so.cache"

# run_many <name> <hook args...>: $RUNS runs under the flipper; fills OK, FAILED, CRASHED,
# WALKER (runs whose debug log has the walker line) and keeps the first failure's message.
run_many() {
  local name="$1" i rc text log="$E2E_TMP/$1.err"
  shift
  OK=0 FAILED=0 CRASHED=0 WALKER=0 FIRST_FAILURE=""
  local start=$SECONDS
  for ((i = 0; i < RUNS; i++)); do
    rc=0
    env -i NVIDIA_CTK_DEBUG=true "${HOOK[@]}" "${@//@I@/$i}" <"$STATE" >/dev/null 2>"$log" || rc=$?
    text="$(<"$log")"
    [[ "$text" == *"$WALKER_LINE"* ]] && WALKER=$((WALKER + 1))
    case "$rc" in
      0) OK=$((OK + 1)) ;;
      1)
        FAILED=$((FAILED + 1))
        [ -n "$FIRST_FAILURE" ] || FIRST_FAILURE="$(grep -v 'level=debug' "$log" | tail -1)"
        ;;
      *)
        CRASHED=$((CRASHED + 1))
        echo "# $name run $i exited $rc: $(tail -3 "$log")" >&2
        ;;
    esac
  done
  echo "# $name: $RUNS runs in $((SECONDS - start)) s: $OK ok, $FAILED failed cleanly, $CRASHED crashed"
  [ -z "$FIRST_FAILURE" ] || echo "# $name: first failure: $FIRST_FAILURE"
}

# flip_start <real dir> <link target>: the real directory and a symlink to <link target> swap
# names until flip_stop; the link's target is created inside the rootfs too.
flip_start() {
  local dir="$1" target="$2"
  rm -rf "$dir.flip"
  ln -s "$target" "$dir.flip"
  mkdir -p "$R$target"
  "$FLIPPER" "$dir" "$dir.flip" "$PAUSE_US" >"$E2E_TMP/flips" 2>"$E2E_TMP/flipper.err" &
  FLIP_PID=$!
}
flip_stop() {
  kill -TERM "$FLIP_PID" 2>/dev/null || true
  local rc=0
  wait "$FLIP_PID" || rc=$?
  check_eq "$1: the flipper ran until stopped ($(cat "$E2E_TMP/flipper.err"))" 0 "$rc"
  FLIPS="$(cat "$E2E_TMP/flips")"
  check "$1: the flipper swapped the names more often than the hook ran ($FLIPS swaps)" \
    test "${FLIPS:-0}" -gt "$RUNS"
}
check_runs() { # check_runs <name> <raced>
  local name="$1" raced="$2"
  echo "# $name: $raced of $RUNS runs raced (resolved through the link, stayed in the rootfs)"
  check_eq "$name: no run crashed" 0 "$CRASHED"
  check_eq "$name: every run either succeeded or failed with an error" "$RUNS" "$((OK + FAILED))"
  check "$name: at least one run succeeded" test "$OK" -ge 1
  if [ "$VARIANT" = normal ]; then
    check_eq "$name: every run resolved with openat2 (no walker line)" 0 "$WALKER"
  else
    check_eq "$name: every run resolved with the userspace walker" "$RUNS" "$WALKER"
  fi
  check_eq "$name: host sentinel tree unchanged" "$BEFORE" "$(tree_hash)"
}

# Row 8 / CVE-2025-23267: /etc/ld.so.conf.d flips while update-ldcache writes its drop-in and
# runs ldconfig (the static sandbox probe stands in for ldconfig, to keep the loop fast).
flip_start "$R/etc/ld.so.conf.d" "$SENT/ld"
run_many update-ldcache update-ldcache --ldconfig-path "$PROBE" --folder /opt/nv
flip_stop update-ldcache
check_runs update-ldcache "$(find "$R$SENT/ld" -name '00-nvcr-*.conf' | wc -l)"
check_eq "update-ldcache: every successful run left exactly one drop-in in the rootfs" "$OK" \
  "$(find "$R/etc/ld.so.conf.d" "$R$SENT/ld" -name '00-nvcr-*.conf' | wc -l)"
rm -f "$R/etc/ld.so.conf.d.flip"

# Row 6 / CVE-2025-23359, CVE-2026-24260: the compat directory flips while enable-cuda-compat
# lists it, opens the ELF and writes the drop-in naming it.
mkdir -p "$R/usr/local/cuda/compat"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/usr/local/cuda/compat/libcuda.so.999.1.1"
flip_start "$R/usr/local/cuda/compat" "$SENT/compat"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R$SENT/compat/libcuda.so.999.1.1"
rm -f "$R"/etc/ld.so.conf.d/00-*.conf
run_many enable-cuda-compat enable-cuda-compat --host-driver-version=550.54.14
flip_stop enable-cuda-compat
check_runs enable-cuda-compat \
  "$(grep -l -x -F "$SENT/compat" "$R"/etc/ld.so.conf.d/00-compat-*.conf 2>/dev/null | wc -l)"
drop_ins="$(find "$R/etc/ld.so.conf.d" -name '00-compat-*.conf' | wc -l)"
# (The real directory is named compat.flip in the instants after a swap; a run that saw no
# directory at all enables nothing.)
echo "# enable-cuda-compat: $((OK - drop_ins)) successful runs enabled nothing"
check "enable-cuda-compat: most runs enabled compat ($drop_ins drop-ins)" test "$drop_ins" -ge $((OK / 2))
check_eq "enable-cuda-compat: every drop-in names an in-root compat dir" "$drop_ins" \
  "$(grep -l -x -e /usr/local/cuda/compat -e /usr/local/cuda/compat.flip -e "$SENT/compat" \
    "$R"/etc/ld.so.conf.d/00-compat-*.conf 2>/dev/null | wc -l)"
rm -f "$R/usr/local/cuda/compat.flip"

# Row 6 / CVE-2024-0134, CVE-2026-24260: the links' parent /usr/lib64 flips while
# create-symlinks creates one new link per run.
rm -rf "$R/usr/lib64" && mkdir -p "$R/usr/lib64"
flip_start "$R/usr/lib64" "$SENT/lib"
run_many create-symlinks create-symlinks --link 'libcuda.so.1::/usr/lib64/libcuda-@I@.so'
flip_stop create-symlinks
check_runs create-symlinks "$(find "$R$SENT/lib" -name 'libcuda-*.so' | wc -l)"
check_eq "create-symlinks: every successful run left its link in the rootfs" "$OK" \
  "$(find "$R/usr/lib64" "$R$SENT/lib" -name 'libcuda-*.so' -type l | wc -l)"

check_eq "no mount of the hooks is left in this namespace" "" \
  "$(grep -F "$E2E_TMP" /proc/self/mountinfo || true)"
e2e_finish
