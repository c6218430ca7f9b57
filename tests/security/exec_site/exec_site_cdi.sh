#!/usr/bin/env bash
# ldconfig at the exec site (spec/security.md checklist rows 20, 22, 23, 24), through the real
# `nvidia-cdi-hook update-ldcache` (which always execs the host's ldconfig in its sandbox):
#   #23 the running child's /proc/<pid>/exe is the sealed memfd (write, grow, shrink and seal
#       seals), and the host ldconfig's inode, mtime and contents are untouched;
#   #24 the child holds only fds 0-2 and the one file it opened itself, although the hook was
#       started with an extra inherited fd; and it dies with the hook: kill -9 of the hook while
#       the child blocks leaves no child behind (parent-death signal);
#   #20 a shell-script host ldconfig: with ldconfig.real beside it the .real binary runs, without
#       it the hook fails with a clear error; the image's hostile /bin/sh never runs;
#   #22 a 4 GiB sparse ELF and a FIFO named like libraries in a library folder: the host's real
#       ldconfig finishes in bounded time.
# NVCT_HOOK_VARIANT=normal|no_openat2 runs the hook plainly or under tests/security/no_openat2,
# and a debug run proves which resolver it used.
source "$(dirname "$0")/../../e2e/lib/common.sh"
source "$(dirname "$0")/../../e2e/lib/rootfs.sh"
require_root
require_cmd sha256sum pgrep truncate timeout gcc

VARIANT="${NVCT_HOOK_VARIANT:-normal}"
WRAP="$NVCT_BUILD_DIR/tests/security/no_openat2"
PROBE="$NVCT_BUILD_DIR/tests/security/exec_site/exec_site_probe"
[ -x "$PROBE" ] || e2e_die "$PROBE not built (cmake --build $NVCT_BUILD_DIR --target exec_site_probe)"
HOOK_BIN="$(nvct_bin nvidia-cdi-hook)"
case "$VARIANT" in
  normal) HOOK=("$HOOK_BIN") ;;
  no_openat2)
    [ -x "$WRAP" ] || e2e_die "$WRAP not built (cmake --build $NVCT_BUILD_DIR --target no_openat2)"
    HOOK=("$WRAP" "$HOOK_BIN")
    ;;
  *) e2e_die "NVCT_HOOK_VARIANT='$VARIANT' (want normal or no_openat2)" ;;
esac

B="$E2E_TMP/bundle"
make_bundle "$B" glibc
R="$B/rootfs"
STATE="$E2E_TMP/state.json"
printf '{"ociVersion":"1.0.2","id":"exec","status":"creating","pid":1,"bundle":"%s"}' "$B" >"$STATE"
# make_lib <path>: a small shared library whose soname is its file name.
make_lib() {
  gcc -shared -o "$1" -Wl,-soname,"$(basename "$1")" -x c /dev/null ||
    e2e_die "cannot build the test library $1"
}
mkdir -p "$R/opt/nv" && make_lib "$R/opt/nv/libnv.so.1"
# The image's /bin/sh is hostile: it leaves /sh-ran in the rootfs.
rm -f "$R/bin/sh" && cp "$PROBE" "$R/bin/sh"

HOST="$E2E_TMP/host-sbin"
mkdir -p "$HOST"
cp "$PROBE" "$HOST/ldconfig-probe"
host_id() { stat -c '%i %Y %s' "$1" && sha256sum <"$1"; }
PROBE_ID="$(host_id "$HOST/ldconfig-probe")"

# child_of <pid>: the hook's child once it runs the memfd (empty after 10 s).
child_of() {
  local hook="$1" i c exe
  for ((i = 0; i < 1000; i++)); do
    for c in $(pgrep -P "$hook"); do
      exe="$(readlink "/proc/$c/exe" 2>/dev/null || true)"
      case "$exe" in /memfd:*) echo "$c" && return 0 ;; esac
    done
    sleep 0.01
  done
}

# --- #23/#24: the running child -----------------------------------------------------------------
mkfifo "$R/probe-fifo"
echo secret >"$E2E_TMP/hook-only"
# fd 7 is inherited by the hook (not close-on-exec): it must not reach the child.
"${HOOK[@]}" update-ldcache --ldconfig-path "$HOST/ldconfig-probe" --folder /opt/nv \
  <"$STATE" >"$E2E_TMP/run.out" 2>"$E2E_TMP/run.err" 7<"$E2E_TMP/hook-only" &
hook=$!
child="$(child_of "$hook")"
# The probe opens the FIFO right after its exec: wait for that fd before listing them.
for ((i = 0; i < 500; i++)); do
  [ -z "$child" ] || [ -e "/proc/$child/fd/3" ] && break
  sleep 0.01
done
if [ -z "$child" ]; then
  failed "#23: the hook's ldconfig child never ran from a memfd ($(cat "$E2E_TMP/run.err"))"
  kill -9 "$hook" 2>/dev/null || true
else
  check_contains "#23: /proc/<child>/exe is the memfd copy" "/memfd:" "$(readlink "/proc/$child/exe")"
  check_eq "#23: the memfd is sealed against write, grow, shrink and new seals" \
    "write grow shrink seal" "$("$PROBE" --seals "/proc/$child/exe" 2>&1)"
  fds="$(cd "/proc/$child/fd" && for f in *; do echo "$f -> $(readlink "$f")"; done)"
  echo "# ldconfig child fds:" && echo "$fds" | sed 's/^/#   /'
  check_eq "#24: the child holds fds 0-2 and the FIFO it opened, nothing of the hook" "0 1 2 3" \
    "$(echo "$fds" | cut -d' ' -f1 | sort -n | tr '\n' ' ' | sed 's/ $//')"
  check_eq "#24: fd 0 is /dev/null" "0 -> /dev/null" "$(echo "$fds" | sed -n 1p)"
  check_contains "#24: fd 3 is the FIFO" "probe-fifo" "$(echo "$fds" | grep '^3 ')"
  check "#24: the hook's inherited fd 7 is not in the child" bash -c "! grep -q hook-only <<<'$fds'"
  echo go >"$R/probe-fifo"
fi
rc=0
wait "$hook" || rc=$?
check_eq "#23: the hook succeeded ($(tail -1 "$E2E_TMP/run.err"))" 0 "$rc"
check_eq "#23: the host ldconfig's inode, mtime, size and contents are untouched" "$PROBE_ID" \
  "$(host_id "$HOST/ldconfig-probe")"

# --- #24: the child dies with the hook -----------------------------------------------------------
"${HOOK[@]}" update-ldcache --ldconfig-path "$HOST/ldconfig-probe" --folder /opt/nv \
  <"$STATE" >/dev/null 2>"$E2E_TMP/kill.err" &
hook=$!
child="$(child_of "$hook")"
if [ -z "$child" ]; then
  failed "#24: the hook's ldconfig child never ran ($(cat "$E2E_TMP/kill.err"))"
else
  kill -9 "$hook"
  wait "$hook" 2>/dev/null || true
  for ((i = 0; i < 200; i++)); do [ -e "/proc/$child" ] || break; sleep 0.01; done
  state="$(sed -n 's/^State:[[:space:]]*//p' "/proc/$child/status" 2>/dev/null || true)"
  check_eq "#24: kill -9 of the hook ends its ldconfig child (pid $child)" "" "$state"
  if [ -e "/proc/$child" ]; then
    kill -9 "$child" 2>/dev/null || true
    echo go >"$R/probe-fifo" &
  fi
fi
rm -f "$R/probe-fifo"

# --- #20: a shell-script host ldconfig --------------------------------------------------------
printf '#!/bin/sh\nexec %s/ldconfig.real "$@"\n' "$HOST" >"$HOST/ldconfig"
chmod 0755 "$HOST/ldconfig"
cp /sbin/ldconfig "$HOST/ldconfig.real"
rm -f "$R/etc/ld.so.cache"
rc=0
"${HOOK[@]}" update-ldcache --ldconfig-path "$HOST/ldconfig" --folder /opt/nv <"$STATE" \
  >/dev/null 2>"$E2E_TMP/wrapper.err" || rc=$?
check_eq "#20: a script ldconfig with .real beside it: the hook runs .real ($(tail -1 "$E2E_TMP/wrapper.err"))" \
  0 "$rc"
check "#20: ... and .real wrote the cache" grep -q -a libnv.so.1 "$R/etc/ld.so.cache"
rm -f "$HOST/ldconfig.real"
rc=0
"${HOOK[@]}" update-ldcache --ldconfig-path "$HOST/ldconfig" --folder /opt/nv <"$STATE" \
  >/dev/null 2>"$E2E_TMP/script.err" || rc=$?
check_eq "#20: a script ldconfig without .real: the hook fails" 1 "$rc"
check_contains "#20: ... with an error that names the script" "$HOST/ldconfig" \
  "$(cat "$E2E_TMP/script.err")"
check_contains "#20: ... and says it is a script" "script" "$(cat "$E2E_TMP/script.err")"
check "#20: the image's /bin/sh never ran" test ! -e "$R/sh-ran"

# --- #22: a huge sparse ELF and a FIFO in a library folder -------------------------------------
mkdir -p "$R/opt/huge"
make_lib "$R/opt/huge/libhuge.so.1"
truncate -s 4G "$R/opt/huge/libhuge.so.1"
mkfifo "$R/opt/huge/libfifo.so.1"
make_lib "$R/opt/huge/libok.so.1"
rc=0
start=$(date +%s%N)
timeout 60 "${HOOK[@]}" update-ldcache --folder /opt/huge <"$STATE" >/dev/null \
  2>"$E2E_TMP/huge.err" || rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
echo "# #22: update-ldcache over a 4 GiB sparse ELF and a FIFO: exit $rc in $ms ms"
check "#22: bounded: the hook returned within its deadline (${ms} ms)" test "$ms" -lt 20000
check "#22: ... and either succeeded or failed with an error" test "$rc" -le 1
[ "$rc" = 0 ] && check "#22: the other library is in the cache" grep -q -a libok.so.1 "$R/etc/ld.so.cache"

# Which resolver the hook used, from a debug run.
env -i NVIDIA_CTK_DEBUG=true "${HOOK[@]}" create-symlinks --link libnv.so.1::/opt/nv/resolver.so \
  <"$STATE" >/dev/null 2>"$E2E_TMP/resolver.log" || true
walker="$(grep -c -F "with the userspace walker (openat2 unavailable)" "$E2E_TMP/resolver.log" || true)"
check_eq "variant $VARIANT: the hook's resolver (walker lines)" \
  "$([ "$VARIANT" = normal ] && echo 0 || echo 1)" "$walker"
e2e_finish
