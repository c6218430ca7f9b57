# shellcheck shell=bash
# Helpers for the `nvidia-container-cli configure` e2e tests: a mock driver root, a glibc rootfs
# and a stand-in for a container at prestart (a process in its own private mount namespace whose
# view of the rootfs is not pivoted yet, with a procfs on its /proc), optionally in its own v1
# device cgroup.
# Source after common.sh and rootfs.sh.
#   cfg_setup <topology>        -> CFG_ROOT (driver root), CFG_ROOTFS, CFG_CLI
#   cfg_start_container [cg]    -> CFG_PID (killed on exit); with cg: own devices cgroup, deny all
#   cfg_in <shell command>      runs in the container's namespace, chrooted into the rootfs
#   cfg_container_mounts        mount points under the rootfs in the container's namespace, but
#                               the procfs and /proc/driver tmpfs of cfg_start_container
#   cfg_host_mounts             mount lines of this namespace that mention the test's temp dir
#   cfg_stop_container          kills the container (its namespace and mounts go with it)
#   cfg_hook_config <driver root> <cli path or ""> <out>
#                               a hook config.toml: legacy mode, that root, no kmods, no cgroups,
#                               the host's ldconfig, and `path` to a CLI when given (NVIDIA's hook)

cfg_setup() {
  local topology="$1"
  require_root
  require_cmd unshare nsenter chroot busybox
  CFG_CLI="$(nvct_bin nvidia-container-cli)" || e2e_die "nvidia-container-cli is not built"
  local make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
  [ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"
  CFG_ROOT="$E2E_TMP/driver-root"
  bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$CFG_ROOT" \
    >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"
  CFG_ROOTFS="$E2E_TMP/rootfs"
  make_rootfs "$CFG_ROOTFS" glibc
}

CFG_PID=""
CFG_CGROUP=""
CFG_STARTS=0

cfg_start_container() {
  # runc's procfs on the rootfs's /proc, and a tmpfs on /proc/driver standing in for the
  # driver's directory (this host has no nvidia module); both only in the container's namespace.
  mkdir -p "$CFG_ROOTFS/proc"
  # The rootfs is bind-mounted onto itself first, as runc's prepareRootfs does before prestart
  # hooks run (the hook refuses a root.path that is not a mount point in the container's ns).
  local proc="mount --bind '$CFG_ROOTFS' '$CFG_ROOTFS' && mount -t proc proc '$CFG_ROOTFS/proc' && mount -t tmpfs tmpfs '$CFG_ROOTFS/proc/driver'"
  local want_cgroup="${1:-}" script="$proc && exec sleep 600"
  if [ -n "$want_cgroup" ]; then
    [ -d /sys/fs/cgroup/devices ] || e2e_die "no cgroup v1 devices hierarchy on this host"
    CFG_STARTS=$((CFG_STARTS + 1))
    CFG_CGROUP="/sys/fs/cgroup/devices/nvct-$E2E_NAME-$$-$CFG_STARTS"
    mkdir "$CFG_CGROUP"
    e2e_on_exit "rmdir '$CFG_CGROUP'"
    echo a >"$CFG_CGROUP/devices.deny"
    script="echo \$\$ >'$CFG_CGROUP/cgroup.procs' && $proc && exec sleep 600"
  fi
  unshare -m --propagation private sh -c "$script" &
  CFG_PID=$!
  e2e_on_exit "kill -9 $CFG_PID; wait $CFG_PID"
  local i
  for i in $(seq 100); do
    if [ "$(cat "/proc/$CFG_PID/comm" 2>/dev/null)" = sleep ]; then return 0; fi
    sleep 0.05
  done
  e2e_die "the container process did not start"
}

cfg_stop_container() {
  kill -9 "$CFG_PID" 2>/dev/null || true
  wait "$CFG_PID" 2>/dev/null || true
}

cfg_in() {
  nsenter -m -t "$CFG_PID" chroot "$CFG_ROOTFS" /bin/sh -c "$1"
}

# The mounts under the rootfs in the container's namespace, without the rootfs's own bind mount
# (cfg_start_container makes it, as runc does) and the container's procfs.
cfg_container_mounts() {
  awk -v r="$CFG_ROOTFS" 'index($5, r "/") == 1 && $5 != r "/proc" &&
    $5 != r "/proc/driver" {print $5}' "/proc/$CFG_PID/mountinfo"
}

cfg_host_mounts() {
  grep -F "$E2E_TMP" /proc/self/mountinfo | awk '{print $5}' || true
}

# The mount options of one container path (field 6 of mountinfo).
cfg_mount_options() {
  awk -v p="$CFG_ROOTFS$1" '$5 == p {print $6}' "/proc/$CFG_PID/mountinfo"
}

# configure with the test's driver root and rootfs; extra arguments go before ROOTFS.
cfg_configure() {
  "$CFG_CLI" --root "$CFG_ROOT" configure --pid "$CFG_PID" --ldconfig=@/sbin/ldconfig "$@" \
    "$CFG_ROOTFS"
}

cfg_hook_config() { # <driver root> <cli path or ""> <out>
  {
    echo '[nvidia-container-cli]'
    echo "root = \"$1\""
    [ -n "$2" ] && echo "path = \"$2\""
    echo 'load-kmods = false'
    echo 'no-cgroups = true'
    echo 'ldconfig = "@/sbin/ldconfig"'
    echo '[nvidia-container-runtime]'
    echo 'mode = "legacy"'
  } >"$3"
}
