# shellcheck shell=bash
# A private Docker daemon for tests: its own containerd (root, state, socket under the test's temp
# dir, CRI plugin off) and its own dockerd (--data-root, --exec-root, --pidfile, unix socket,
# no iptables, no bridge, vfs storage), with the nvct shim registered as runtime "nvidia" in a
# test-only daemon.json. Both are stopped by the test's EXIT trap; the system's containerd and
# dockerd, if any, are never touched. Images come from local rootfs tarballs (`docker import`).
#   start_private_dockerd <dir> <shim-path>   exports DOCKER_HOST; with "" as the shim, dockerd
#                                             reads the default /etc/docker/daemon.json instead
#                                             (a test that overlays /etc, as the package tests)
#   docker_import_rootfs <rootfs-dir> <image-name>
# Source after common.sh.

_stop_pidfile() {
  local pidfile="$1" pid _
  [ -s "$pidfile" ] || return 0
  pid="$(cat "$pidfile")"
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

# Kills the containerd-shim-runc-v2 processes that serve this containerd (they outlive it).
_stop_shims() {
  local sock="$1" pid
  for pid in $(pgrep -f "containerd-shim-runc-v2 .*-address $sock" 2>/dev/null); do
    kill -KILL "$pid" 2>/dev/null || true
  done
}

# _wait_for <tries> <command...>: retries every 0.2 s; false when it never succeeded.
_wait_for() {
  local tries="$1" _
  shift
  for _ in $(seq "$tries"); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.2
  done
  return 1
}

start_private_dockerd() {
  local dir="$1" shim="$2"
  require_root
  require_cmd dockerd containerd docker containerd-shim-runc-v2
  mkdir -p "$dir"/{containerd-root,containerd-state,data,exec}
  local csock="$dir/containerd.sock" dsock="$dir/docker.sock"
  cat >"$dir/containerd.toml" <<TOML
version = 2
root = "$dir/containerd-root"
state = "$dir/containerd-state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$csock"
[ttrpc]
  address = "$dir/containerd.ttrpc.sock"
[debug]
  address = ""
[metrics]
  address = ""
TOML
  containerd --config "$dir/containerd.toml" >"$dir/containerd.log" 2>&1 &
  echo $! >"$dir/containerd.pid"
  e2e_on_exit "_stop_shims '$csock'; _stop_pidfile '$dir/containerd.pid'; umount -R '$dir/containerd-state' 2>/dev/null; umount -R '$dir/exec' 2>/dev/null; umount -R '$dir/data' 2>/dev/null"
  if ! _wait_for 100 test -S "$csock"; then
    tail -n 30 "$dir/containerd.log" >&2
    e2e_die "private containerd did not start"
  fi

  local config_args=()
  if [ -n "$shim" ]; then
    jq -n --arg shim "$shim" '{runtimes: {nvidia: {path: $shim}}}' >"$dir/daemon.json"
    config_args=(--config-file "$dir/daemon.json")
  fi
  dockerd "${config_args[@]}" --containerd "$csock" \
    --data-root "$dir/data" --exec-root "$dir/exec" --pidfile "$dir/docker.pid" \
    -H "unix://$dsock" --iptables=false --ip6tables=false --bridge=none \
    --storage-driver=vfs >"$dir/dockerd.log" 2>&1 &
  echo $! >"$dir/dockerd.launcher.pid"
  # Registered after containerd's cleanup, so it runs first (cleanups run in reverse).
  e2e_on_exit "_stop_pidfile '$dir/dockerd.launcher.pid'"
  export DOCKER_HOST="unix://$dsock"
  if ! _wait_for 150 docker version; then
    tail -n 30 "$dir/dockerd.log" >&2
    e2e_die "private dockerd did not start"
  fi
}

docker_import_rootfs() {
  local rootfs="$1" image="$2"
  tar -C "$rootfs" -c . | docker import - "$image" >/dev/null
}
