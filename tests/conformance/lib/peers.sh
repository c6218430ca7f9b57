# shellcheck shell=bash
# NVIDIA's own binaries for the conformance tests (label conformance): toolkit 1.13.1
# (nvidia-container-runtime, nvidia-container-runtime-hook, nvidia-ctk) and libnvidia-container
# 1.17.0 (nvidia-container-cli), from ../shared/peers beside the source tree or NVCT_PEER_DIR.
#   peers_require                   fails (never skips) when they are missing; sets PEER_BIN
#   peers_enter "$0" "$@"           first thing after peers_require: re-runs the script in a
#                                   private mount namespace (where the tests bind the mock root's
#                                   proc files over the host's)
#   peers_compare <case> <nvct> <peer> [<phrase>]
#                                   counts a case (PEERS_CASES, PEERS_SAME, PEERS_EXPLAINED):
#                                   equal report files, or a difference docs/deviations.md explains
#                                   (it contains <phrase>; nvct's valid-device list after an
#                                   unknown-device error is always explained), or a failure
#                                   printing the diff
#   peers_summary <test> <what>     prints the counts and passes when cases ran
#   peers_mock_root <topology> <d>  a mock driver root from tests/mock-driver/topologies
#   peers_container <template> <rootfs>
#                                   a fresh copy of the template rootfs and a stand-in container
#                                   for it (PEERS_PID: a process in its own mount namespace with a
#                                   procfs on the rootfs's /proc and a tmpfs /proc/driver holding
#                                   an empty nvidia directory, as with the module loaded), in its
#                                   own v1 device cgroup that denies everything (PEERS_CGROUP), as
#                                   runc leaves a container before the prestart hooks
#   peers_report <rootfs> <rc> <stderr file>
#                                   what the tool did, normalised (temp paths replaced): exit
#                                   status and message, the container's mount table under the
#                                   rootfs (target, type, options), the links, files and
#                                   directories made in the rootfs (with their modes), the
#                                   container's /proc/driver/nvidia, its ld.so.cache entries and
#                                   its device cgroup's rules; then kills the stand-in
# Source after tests/e2e/lib/common.sh.

peers_require() {
  local dir="${NVCT_PEER_DIR:-$NVCT_SOURCE_DIR/../shared/peers}" b
  for b in nvidia-container-cli nvidia-container-runtime-hook nvidia-container-runtime nvidia-ctk; do
    [ -x "$dir/bin/$b" ] ||
      e2e_die "NVIDIA's $b not found in $dir/bin: the conformance tests need NVIDIA's binaries (../shared/peers beside the checkout, or NVCT_PEER_DIR)"
  done
  PEER_BIN="$(cd "$dir/bin" && pwd)"
  # Whatever a peer left running in this test's directory goes with the test.
  e2e_on_exit "pkill -9 -f -- '$E2E_TMP/' 2>/dev/null || true"
}

peers_mock_root() {
  local topology="$1" out="$2"
  # libnvidia-container crashes on some inputs (docs/deviations.md): its core files land in the
  # test's temporary directory, not in the tree. (A core size limit of 0 is no way out: with it
  # 1.17 aborts at start, see docs/deviations.md.)
  cd "$E2E_TMP"
  bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$out" \
    >"$E2E_TMP/make-$topology.log" 2>&1 ||
    e2e_die "make-driver-root.sh $topology failed: $(tail -5 "$E2E_TMP/make-$topology.log")"
}

PEERS_PID="" PEERS_CGROUP="" PEERS_STARTS=0
peers_container() {
  local template="$1" rootfs="$2"
  rm -rf "$rootfs"
  cp -a "$template" "$rootfs"
  touch "$E2E_TMP/peers-stamp"
  sleep 0.01
  [ -f /sys/fs/cgroup/devices/devices.deny ] ||
    e2e_die "no cgroup v1 devices hierarchy at /sys/fs/cgroup/devices: the conformance tests compare the device cgroup rules there"
  PEERS_STARTS=$((PEERS_STARTS + 1))
  PEERS_CGROUP="/sys/fs/cgroup/devices/nvct-conformance-$$-$PEERS_STARTS"
  mkdir "$PEERS_CGROUP"
  e2e_on_exit "rmdir '$PEERS_CGROUP' 2>/dev/null || true"
  echo a >"$PEERS_CGROUP/devices.deny"
  # The rootfs is bind-mounted onto itself first, as runc does before prestart hooks run (nvct's
  # hook refuses a root.path that is not a mount point in the container's namespace).
  unshare -m --propagation private sh -c "echo \$\$ >'$PEERS_CGROUP/cgroup.procs' &&
    mount --bind '$rootfs' '$rootfs' &&
    mount -t proc proc '$rootfs/proc' &&
    mount -t tmpfs tmpfs '$rootfs/proc/driver' && mkdir '$rootfs/proc/driver/nvidia' &&
    exec sleep 600" &
  PEERS_PID=$!
  local _
  for _ in $(seq 100); do
    [ "$(cat "/proc/$PEERS_PID/comm" 2>/dev/null)" = sleep ] && return 0
    sleep 0.02
  done
  e2e_die "the stand-in container did not start"
}

peers_report() {
  local rootfs="$1" rc="$2" err="$3" pid="$PEERS_PID"
  echo "exit $rc"
  sed "s|$E2E_TMP|TMP|g" "$err"
  echo "--- mounts (target type options)"
  awk -v r="$rootfs" 'index($5, r) == 1 { t = substr($5, length(r) + 1); if (t == "") t = "/";
      for (i = 7; $i != "-"; i++); print t, $(i+1), $6 }' "/proc/$pid/mountinfo" |
    { grep -v '^/proc proc \|^/proc/driver tmpfs ' || true; } | sort
  echo "--- links and files made"
  (cd "$rootfs" && find . -newer "$E2E_TMP/peers-stamp" \( -type l -printf '%p -> %l\n' -o \
    -type f -printf '%p %m\n' -o -type d -printf '%p/ %m\n' \) 2>/dev/null |
    { grep -v '^\./proc/\|^\./etc/ld.so.cache\|^\./ /' || true; } | sort)
  echo "--- /proc/driver/nvidia inside"
  nsenter -m -t "$pid" sh -c "cd '$rootfs/proc/driver/nvidia' && find . | sort" 2>&1 || true
  echo "--- ld.so.cache"
  if [ -f "$rootfs/etc/ld.so.cache" ]; then
    # The entries: the "Cache generated by" line names the writer (nvct writes the cache natively,
    # libnvidia-container execs ldconfig; docs/deviations.md).
    /sbin/ldconfig -p -C "$rootfs/etc/ld.so.cache" | tail -n +2 | { grep -v '^Cache generated by' || true; } | sort || true
  fi
  echo "--- device cgroup rules"
  sort "$PEERS_CGROUP/devices.list"
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
  # When libnvidia-container crashes (docs/deviations.md) its helper process stays behind,
  # polling forever: it has the container's pid on its command line.
  pkill -9 -f -- "--pid[= ]$pid( |\$)" 2>/dev/null || true
  rmdir "$PEERS_CGROUP" 2>/dev/null || true
}

peers_enter() {
  local script="$1"
  shift
  if [ -n "${CONFORMANCE_INNER:-}" ]; then
    # The test's directory is a tmpfs of its own namespace: each case copies a rootfs and removes
    # it, and on the CI VM's ext4 /tmp creating and deleting those inodes was most of the system
    # time (conformance_hook on an idle machine: 67.6 CPU-s and 65 s on ext4, 42.4 CPU-s and 38 s
    # on tmpfs). Both tools see the same filesystem. Unmounted last, before the directory goes.
    mount -t tmpfs -o mode=0700 nvct-conformance "$E2E_TMP" ||
      e2e_die "cannot mount a tmpfs on $E2E_TMP in the test's mount namespace"
    E2E_CLEANUPS=("umount -l '$E2E_TMP'" "${E2E_CLEANUPS[@]}")
    return 0
  fi
  rm -rf "$E2E_TMP" # exec drops the EXIT trap; the inner run makes its own
  exec unshare -m --propagation private env CONFORMANCE_INNER=1 bash "$script" "$@"
}

PEERS_CASES=0 PEERS_SAME=0 PEERS_EXPLAINED=0
peers_compare() {
  local what="$1" nvct="$2" peer="$3" why="${4:-}"
  PEERS_CASES=$((PEERS_CASES + 1))
  # nvct's unknown-device errors are the reference's line followed by where the list came from
  # and the valid devices (docs/deviations.md: "followed by where the list came from"): with
  # that tail cut off, the rest must be equal.
  sed -E 's/^(.*device error: .*: unknown device) \(from [^)]*\); valid devices: .*$/\1/' "$nvct" \
    >"$nvct.devices"
  # An unsatisfied requirement: the reference's line, then nvct's one `nvct:` line (issue 17,
  # docs/deviations.md: "then one `nvct:` line"; the hook puts it on the same line, as runc shows
  # one line); without it the rest must be equal.
  sed -E '/^nvct: /d; s/^(.*requirement error: .*) nvct: .*$/\1/' "$nvct" >"$nvct.require"
  if same_file "$nvct" "$peer"; then
    PEERS_SAME=$((PEERS_SAME + 1))
  elif ! same_file "$nvct.require" "$nvct" && same_file "$nvct.require" "$peer" &&
    grep -qF 'then one `nvct:` line' "$NVCT_SOURCE_DIR/docs/deviations.md"; then
    PEERS_EXPLAINED=$((PEERS_EXPLAINED + 1))
    echo "# $what: differs, explained in docs/deviations.md (a requirement failure adds one nvct: line)"
  elif ! same_file "$nvct.devices" "$nvct" && same_file "$nvct.devices" "$peer" &&
    grep -qF "followed by where the list came from" "$NVCT_SOURCE_DIR/docs/deviations.md"; then
    PEERS_EXPLAINED=$((PEERS_EXPLAINED + 1))
    echo "# $what: differs, explained in docs/deviations.md (an unknown device lists the valid ones)"
  elif [ -n "$why" ] && grep -qF "$why" "$NVCT_SOURCE_DIR/docs/deviations.md"; then
    PEERS_EXPLAINED=$((PEERS_EXPLAINED + 1))
    echo "# $what: differs, explained in docs/deviations.md ($why)"
  else
    failed "$what: --- NVIDIA / +++ nvct
$(diff -u "$peer" "$nvct" | tail -n +3 | head -50)"
  fi
}

peers_summary() {
  echo "# $1: $PEERS_CASES cases: $PEERS_SAME identical, $PEERS_EXPLAINED explained by docs/deviations.md"
  [ "$PEERS_CASES" -gt 0 ] && pass "compared $PEERS_CASES $2"
}
