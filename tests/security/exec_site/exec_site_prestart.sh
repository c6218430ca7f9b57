#!/usr/bin/env bash
# ldconfig at the exec site of the prestart hook (spec/security.md checklist rows 22, 23, 24), on
# the mock driver. The hook runs straight from a state on stdin against a stand-in container (a
# process in its own mount namespace with the rootfs bind-mounted on itself, procfs and a
# /proc/driver tmpfs, as runc leaves it before prestart hooks), so each case costs milliseconds:
#   native writer (the default): FIFOs as an ld.so.conf.d file and as an included file, and a 4 GiB sparse ELF and a
#       FIFO named like libraries in a library folder: the hook finishes in bounded time; the
#       writer's child dies with the hook (strace holds it in getppid while the hook gets kill -9);
#   nvidia-container-cli.exec-ldconfig = true: the running child's /proc/<pid>/exe is the sealed
#       memfd, it holds only fds 0-2 and the FIFO it opened (the hook had an extra inherited fd),
#       the host binary is untouched, and kill -9 of the hook ends it;
#   a full GPU container through the shim and runc: its process holds only fds 0-2 (+ the one ls
#       opens), nothing of the hook, its mount child or the NVML helper.
# NVCT_HOOK_VARIANT=normal|no_openat2: the hook plainly or under tests/security/no_openat2; the
# hook's debug log proves which resolver it used.
source "$(dirname "$0")/../../e2e/lib/common.sh"
source "$(dirname "$0")/../../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../../e2e/lib/gpu.sh"
require_cmd sha256sum pgrep truncate strace unshare gcc

VARIANT="${NVCT_HOOK_VARIANT:-normal}"
WRAP="$NVCT_BUILD_DIR/tests/security/no_openat2"
PROBE="$NVCT_BUILD_DIR/tests/security/exec_site/exec_site_probe"
[ -x "$PROBE" ] || e2e_die "$PROBE not built (cmake --build $NVCT_BUILD_DIR --target exec_site_probe)"
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
LOG="$E2E_TMP/hook-debug.log"
HOST="$E2E_TMP/host-sbin"
mkdir -p "$HOST" && cp "$PROBE" "$HOST/ldconfig-probe"
host_id() { stat -c '%i %Y %s' "$1" && sha256sum <"$1"; }
PROBE_ID="$(host_id "$HOST/ldconfig-probe")"
# Two configs: the native writer, and exec-ldconfig with the probe as the host's ldconfig.
NATIVE="$E2E_TMP/native.toml"
EXEC="$E2E_TMP/exec.toml"
sed "s|^root = .*|&\nno-cgroups = true\ndebug = \"$LOG\"|" "$GPU_CONFIG" >"$NATIVE"
sed "s|^root = .*|&\nexec-ldconfig = true\nldconfig = \"@$HOST/ldconfig-probe\"|" "$NATIVE" >"$EXEC"

b="$E2E_TMP/b"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0
R="$b/rootfs"

# start_fake: a stand-in container (its pid in FAKE); stop_fake ends it.
start_fake() {
  rm -f "$E2E_TMP/ready"
  unshare -m --propagation private sh -c "mount --bind '$R' '$R' && mount -t proc proc '$R/proc' &&
    mount -t tmpfs tmpfs '$R/proc/driver' && echo up >'$E2E_TMP/ready' && exec sleep 120" &
  FAKE=$!
  local i
  for ((i = 0; i < 500; i++)); do [ -s "$E2E_TMP/ready" ] && return 0; sleep 0.01; done
  e2e_die "the stand-in container did not start"
}
stop_fake() {
  kill "$FAKE" 2>/dev/null || true
  wait "$FAKE" 2>/dev/null || true
}
e2e_on_exit 'kill $FAKE 2>/dev/null || true'
state() { printf '{"ociVersion":"1.0.2","id":"exec","status":"creating","pid":%s,"bundle":"%s"}' "$FAKE" "$b"; }
# hook_bg <config> <out>: starts the hook for the stand-in container in the background (HOOK_PID).
hook_bg() {
  state >"$E2E_TMP/state.json"
  (cd "$b" && exec "${HOOK[@]}" -config "$1" prestart) <"$E2E_TMP/state.json" >"$2.out" 2>"$2.err" &
  HOOK_PID=$!
}
# child_of <pid> <exe prefix>: the first child of <pid> whose exe starts with the prefix.
child_of() {
  local i c exe
  for ((i = 0; i < 1000; i++)); do
    for c in $(pgrep -P "$1"); do
      exe="$(readlink "/proc/$c/exe" 2>/dev/null || true)"
      case "$exe" in "$2"*) echo "$c" && return 0 ;; esac
    done
    sleep 0.01
  done
}
# gone <pid> <what>: asserts the process ended within 2 s of its hook's kill -9.
gone() {
  local i st
  echo "# $2: pid $1, exe $(readlink "/proc/$1/exe" 2>/dev/null), state $(sed -n 's/^State:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)"
  for ((i = 0; i < 200; i++)); do [ -e "/proc/$1" ] || break; sleep 0.01; done
  st="$(sed -n 's/^State:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null || true)"
  check_eq "$2: kill -9 of the hook ends it (pid $1)" "" "$st"
  [ -z "$st" ] || kill -9 "$1" 2>/dev/null || true
}

# --- native writer: FIFOs and a huge sparse ELF --------------------------------------------------
mkfifo "$R/etc/ld.so.conf.d/fifo.conf" "$R/etc/ld.so.fifo"
echo "include /etc/ld.so.fifo" >"$R/etc/ld.so.conf.d/fifo-include.conf"
mkdir -p "$R/opt/huge"
echo /opt/huge >"$R/etc/ld.so.conf.d/huge.conf"
for lib in libhuge.so.1 libok.so.1; do
  gcc -shared -o "$R/opt/huge/$lib" -Wl,-soname,$lib -x c /dev/null || e2e_die "cannot build $lib"
done
truncate -s 4G "$R/opt/huge/libhuge.so.1"
mkfifo "$R/opt/huge/libfifo.so.1"
start_fake
start_ns=$(date +%s%N)
hook_bg "$NATIVE" "$E2E_TMP/native"
rc=0
wait "$HOOK_PID" || rc=$?
ms=$((($(date +%s%N) - start_ns) / 1000000))
stop_fake
echo "# native writer over FIFO confs, a 4 GiB sparse ELF and a FIFO library: exit $rc in $ms ms"
check_eq "#22 native: the hook succeeded ($(tail -1 "$E2E_TMP/native.err"))" 0 "$rc"
check "#22 native: in bounded time (${ms} ms < 5000)" test "$ms" -lt 5000
check "#22 native: the library beside them is in the cache" grep -q -a libok.so.1 "$R/etc/ld.so.cache"
check "#22 native: the hook wrote its ld.so.cache natively" grep -q "wrote ld.so.cache in" "$LOG"
walker="$(grep -c -F "with the userspace walker (openat2 unavailable)" "$LOG" || true)"
check_eq "variant $VARIANT: the hook's resolver (walker lines)" \
  "$([ "$VARIANT" = normal ] && echo 0 || echo 1)" "$walker"
rm -f "$R/etc/ld.so.conf.d/fifo.conf" "$R/etc/ld.so.conf.d/huge.conf" "$R/etc/ld.so.fifo" \
  "$R/etc/ld.so.conf.d/fifo-include.conf"
rm -rf "$R/opt/huge"

# --- native writer: its child dies with the hook ---------------------------------------------------
# strace holds the writer's child for 3 s at the getppid() of its parent-death check (armed by
# then): the hook's child that sits in syscall 110 (getppid, x86_64) is the writer.
start_fake
state >"$E2E_TMP/state.json"
(cd "$b" && exec strace -f -qq -o /dev/null -e trace=getppid -e inject=getppid:delay_enter=3000000 \
  "${HOOK[@]}" -config "$NATIVE" prestart) <"$E2E_TMP/state.json" >/dev/null 2>"$E2E_TMP/kill.err" &
tracer=$!
hook="$(child_of "$tracer" "$GPU_REAL_HOOK")"
[ -n "$hook" ] || hook="$(child_of "$tracer" "$WRAP")"
child=""
for ((i = 0; i < 1000; i++)); do
  [ -n "$hook" ] && [ -z "$child" ] || break
  for c in $(pgrep -P "$hook"); do
    if [[ "$(cat "/proc/$c/syscall" 2>/dev/null)" == "110 "* ]]; then child="$c"; fi
  done
  [ -n "$child" ] || sleep 0.01
done
if [ -z "$child" ]; then
  failed "native writer: its child never showed up under the hook ($(tail -2 "$E2E_TMP/kill.err"))"
else
  kill -9 "$hook"
  # strace keeps a dying tracee stopped until it lets it go: SIGKILL pending (from the
  # parent-death signal) counts as ended.
  st=""
  for ((i = 0; i < 200; i++)); do
    st="$(sed -n 's/^\(State\|ShdPnd\):[[:space:]]*//p' "/proc/$child/status" 2>/dev/null | tr '\n' ' ')"
    [ -z "$st" ] && break
    [[ "$st" == Z* ]] && break
    pending="$(echo "$st" | cut -d' ' -f3)"
    (((0x${pending:-0} & 0x100) != 0)) && break
    sleep 0.01
  done
  echo "# native writer's child $child after the hook's kill -9: ${st:-gone}"
  check "#24 native writer's child: kill -9 of the hook sends it SIGKILL (state, pending: ${st:-gone})" \
    test -z "$st" -o "${st:0:1}" = Z -o "$(((0x${pending:-0} & 0x100) != 0))" = 1
fi
kill "$tracer" 2>/dev/null || true
wait "$tracer" 2>/dev/null || true
stop_fake

# --- exec-ldconfig = true: the running child ---------------------------------------------------------
mkfifo "$R/probe-fifo"
echo secret >"$E2E_TMP/hook-only"
start_fake
exec 7<"$E2E_TMP/hook-only"
hook_bg "$EXEC" "$E2E_TMP/exec"
exec 7<&-
child="$(child_of "$HOOK_PID" /memfd:)"
for ((i = 0; i < 500; i++)); do
  [ -z "$child" ] || [ -e "/proc/$child/fd/3" ] && break
  sleep 0.01
done
if [ -z "$child" ]; then
  failed "#23: the hook's ldconfig child never ran from a memfd ($(tail -2 "$E2E_TMP/exec.err"))"
  kill -9 "$HOOK_PID" 2>/dev/null || true
else
  check_contains "#23 exec-ldconfig: /proc/<child>/exe is the memfd copy" "/memfd:" \
    "$(readlink "/proc/$child/exe")"
  check_eq "#23 exec-ldconfig: sealed against write, grow, shrink and new seals" \
    "write grow shrink seal" "$("$PROBE" --seals "/proc/$child/exe" 2>&1)"
  fds="$(cd "/proc/$child/fd" && for f in *; do echo "$f -> $(readlink "$f")"; done)"
  echo "# ldconfig child fds:" && echo "$fds" | sed 's/^/#   /'
  check_eq "#24 exec-ldconfig: the child holds fds 0-2 and its FIFO only" "0 1 2 3" \
    "$(echo "$fds" | cut -d' ' -f1 | sort -n | tr '\n' ' ' | sed 's/ $//')"
  check "#24 exec-ldconfig: the hook's inherited fd is not in the child" \
    bash -c "! grep -q hook-only <<<'$fds'"
  echo go >"$R/probe-fifo"
fi
rc=0
wait "$HOOK_PID" || rc=$?
stop_fake
check_eq "#23 exec-ldconfig: the hook succeeded ($(tail -1 "$E2E_TMP/exec.err"))" 0 "$rc"
check_eq "#23 exec-ldconfig: the host binary's inode, mtime, size and contents are untouched" \
  "$PROBE_ID" "$(host_id "$HOST/ldconfig-probe")"

# --- exec-ldconfig = true: the child dies with the hook ---------------------------------------------
start_fake
hook_bg "$EXEC" "$E2E_TMP/exec-kill"
child="$(child_of "$HOOK_PID" /memfd:)"
if [ -z "$child" ]; then
  failed "#24: the hook's ldconfig child never ran ($(tail -2 "$E2E_TMP/exec-kill.err"))"
else
  kill -9 "$HOOK_PID"
  sleep 0.2  # the child is past its exec and blocked in read()
  gone "$child" "#24 exec-ldconfig child"
fi
wait "$HOOK_PID" 2>/dev/null || true
stop_fake
[ -p "$R/probe-fifo" ] && { timeout 1 sh -c "echo go >'$R/probe-fifo'" 2>/dev/null || true; }
rm -f "$R/probe-fifo"

# --- a GPU container through the shim and runc: its fds ------------------------------------------
c="$E2E_TMP/fdc"
make_bundle "$c" glibc sh -c 'cd /proc/self/fd && for f in *; do echo "fd $f $(readlink $f)"; done'
bundle_set_env "$c" NVIDIA_VISIBLE_DEVICES=0
gpu_add_mount "$c" \
  '{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","mode=755"]}'
rc=0
gpu_run "$c" "fds-$$" || rc=$?
check_eq "#24 container: the GPU container ran ($(tail -1 "$E2E_TMP/fds-$$.err"))" 0 "$rc"
echo "# container fds:" && sed 's/^/#   /' "$E2E_TMP/fds-$$.out"
check_eq "#24 container: its process holds fds 0-2 and the directory it lists, nothing more" \
  "0 1 2 3" "$(gpu_field "$E2E_TMP/fds-$$.out" fd | cut -d' ' -f1 | sort -n | tr '\n' ' ' | sed 's/ $//')"
e2e_finish
