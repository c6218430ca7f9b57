#!/usr/bin/env bash
# `nvidia-container-cli configure` option parsing (cli.md §4): argp-style spellings, usage
# errors, --help, and the checks that fail before any container is touched.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/configure.sh"

cfg_setup one-gpu

# expect <description> <exit status> <stderr first line> <cli args...>. Command usage errors
# exit 1 like the existing info/list commands (the reference's argp would exit 64).
expect() {
  local what="$1" want_rc="$2" want="$3" rc=0
  shift 3
  "$CFG_CLI" --root "$CFG_ROOT" "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
  check_eq "$what: exit status" "$want_rc" "$rc"
  check_eq "$what: message" "$want" "$(head -1 "$E2E_TMP/err")"
}

expect "no rootfs" 1 "nvidia-container-cli: too few arguments" configure --pid 1
expect "two rootfs" 1 "nvidia-container-cli: too many arguments: /b" configure --pid 1 /a /b
expect "unknown option" 1 "nvidia-container-cli: unrecognized option '--bogus'" \
  configure --bogus /rootfs
expect "invalid pid" 1 "nvidia-container-cli: invalid pid: abc" configure --pid abc /rootfs
expect "relative rootfs" 1 \
  "nvidia-container-cli: container error: rootfs rootfs must be an absolute path other than /" \
  configure --pid 1 rootfs
expect "ldconfig of the image" 1 \
  "nvidia-container-cli: ldcache error: refusing to run ldconfig /sbin/ldconfig from the container: use an absolute host path with the '@' prefix" \
  configure --pid 1 --ldconfig=/sbin/ldconfig "$CFG_ROOTFS"
expect "a pid in our own mount namespace" 1 \
  "nvidia-container-cli: container error: process $$ is in our mount namespace: refusing to mount onto the host" \
  configure --pid $$ --utility --no-cgroups "$CFG_ROOTFS"

"$CFG_CLI" configure --help >"$E2E_TMP/help" 2>&1 || true
check_contains "--help shows the usage" "nvidia-container-cli configure [OPTION...] ROOTFS" \
  "$(cat "$E2E_TMP/help")"
check_contains "--help lists --cuda-compat-mode" "--cuda-compat-mode" "$(cat "$E2E_TMP/help")"
check_contains "top-level --help lists configure" "configure" "$("$CFG_CLI" --help)"

# Short options grouped and attached, as argp parses them.
cfg_start_container
if "$CFG_CLI" --root "$CFG_ROOT" configure -p"$CFG_PID" -d0 -cu -l@/sbin/ldconfig --no-cgroups \
  "$CFG_ROOTFS" 2>"$E2E_TMP/err"; then
  pass "grouped short options -cu -d0 -p<pid> -l@..."
else
  failed "grouped short options: $(cat "$E2E_TMP/err")"
fi
check "-cu gave compute (uvm) and utility (nvidia-smi)" \
  cfg_in 'test -c /dev/nvidia-uvm && test -x /usr/bin/nvidia-smi'
cfg_stop_container

# Standalone mode (no --pid): the parent is the container. Here the parent is a shell in its own
# private mount namespace; the mounts must land there and nowhere else.
mkdir -p "$CFG_ROOTFS/proc"
rc=0
unshare -m --propagation private sh -c "
  mount -t proc proc '$CFG_ROOTFS/proc' && mount -t tmpfs tmpfs '$CFG_ROOTFS/proc/driver' &&
  '$CFG_CLI' --root '$CFG_ROOT' configure --no-cgroups --utility --compute --device=0 \
    --ldconfig=@/sbin/ldconfig '$CFG_ROOTFS' 2>'$E2E_TMP/standalone.err' || exit 10
  chroot '$CFG_ROOTFS' /bin/sh -c 'test -x /usr/bin/nvidia-smi && test -c /dev/nvidia0' || exit 11
  grep -q 'ModifyDeviceFiles: 0' '$CFG_ROOTFS/proc/driver/nvidia/params' || exit 12
  chroot '$CFG_ROOTFS' /sbin/ldconfig -p | grep -q 'libcuda.so.1 ' || exit 13
" || rc=$?
if [ "$rc" = 0 ]; then
  pass "standalone mode configures the parent's namespace (nodes, nvidia-smi, params, ldcache)"
else
  failed "standalone mode: exit $rc (10 cli, 11 files, 12 params, 13 ldcache): $(head -c 400 "$E2E_TMP/standalone.err")"
fi
check_eq "standalone mode left no mount in this namespace" "" "$(cfg_host_mounts)"
check "standalone mode: the injected nvidia-smi is gone with the namespace (empty target)" \
  test ! -s "$CFG_ROOTFS/usr/bin/nvidia-smi"

# As libnvidia-container: the binaries and libraries directories exist after configure even when
# nothing is mounted in them (--video here; also --graphics, --ngx, no capability). A busybox
# rootfs without /usr/bin and /usr/lib: the layout picks /usr/lib64.
rm -rf "$CFG_ROOTFS"
make_rootfs "$CFG_ROOTFS" busybox
rm -rf "$CFG_ROOTFS/usr/bin" "$CFG_ROOTFS/usr/lib"
cfg_start_container
if cfg_configure --no-cgroups --video --device=0 2>"$E2E_TMP/video.err"; then
  check_eq "--video: an empty /usr/bin, mode 755" "0|755" \
    "$(find "$CFG_ROOTFS/usr/bin" -mindepth 1 | wc -l)|$(stat -c %a "$CFG_ROOTFS/usr/bin" 2>&1)"
  check "--video: the libraries directory exists" test -d "$CFG_ROOTFS/usr/lib64"
else
  failed "configure --video on a busybox rootfs: $(cat "$E2E_TMP/video.err")"
fi
cfg_stop_container

e2e_finish
