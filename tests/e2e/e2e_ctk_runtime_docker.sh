#!/usr/bin/env bash
# nvidia-ctk runtime configure --runtime=docker against a real dockerd (20.10 on Debian 12): a
# private dockerd started with the edited daemon.json lists the nvidia runtime in `docker info`
# and keeps the file's other settings; after --set-as-default (and --cdi.enabled, which writes
# "features") a restarted dockerd reports nvidia as its default runtime. In both phases a GPU
# container runs on the one-GPU mock driver: through `--runtime=nvidia`, then through a plain
# `docker run` once nvidia is the default.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/dockerd.sh"
source "$(dirname "$0")/lib/gpu.sh"

require_root
require_cmd dockerd docker containerd jq
ctk="$(nvct_bin nvidia-ctk)"
shim="$(shim_bin)"
dir="$E2E_TMP"
mkdir -p "$dir"/{data,exec}
# The mock driver, the shim's config (exported, so dockerd and the shim it starts inherit it)
# and the hook.
gpu_setup one-gpu

# gpu_container <name> <docker run options...>: runs the GPU report in a container and checks that
# it saw the mock GPU; the tmpfs on /proc/driver stands in for the driver's procfs (lib/gpu.sh).
gpu_container() {
  local name="$1" out="$dir/$1.out"
  shift
  if ! timeout 120 docker run --rm --network none --tmpfs /proc/driver \
      -e NVIDIA_VISIBLE_DEVICES=all "$@" nvct-ctk-e2e:latest sh /report.sh \
      >"$out" 2>"$dir/$name.err"; then
    failed "$name: docker run $* failed: $(tr '\n' ' ' <"$dir/$name.err")"
    return
  fi
  check_contains "$name: the container has /dev/nvidia0" "/dev/nvidia0" "$(gpu_nodes "$out")"
  check_eq "$name: nvidia-smi -L lists the mock GPU" 1 "$(gpu_field "$out" smi | grep -c '^GPU ')"
}

# lib/dockerd.sh writes its own daemon.json; this test needs dockerd to read the one nvidia-ctk
# edited, so it starts dockerd itself (with dockerd's own managed containerd, sockets, state and
# pidfile under the test's temp dir).
wait_for_docker() {
  local i
  for i in $(seq 150); do
    docker version >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  return 1
}
stop_pid() {
  local pid i
  pid="$(cat "$1" 2>/dev/null)" || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 150); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}
start_dockerd() {
  dockerd --config-file "$dir/daemon.json" --data-root "$dir/data" --exec-root "$dir/exec" \
    --pidfile "$dir/docker.pid" -H "unix://$dir/docker.sock" --iptables=false \
    --ip6tables=false --bridge=none --storage-driver=vfs >>"$dir/dockerd.log" 2>&1 &
  echo $! >"$dir/dockerd.launcher.pid"
  export DOCKER_HOST="unix://$dir/docker.sock"
  if ! wait_for_docker; then
    tail -n 30 "$dir/dockerd.log" >&2
    e2e_die "dockerd did not start with the generated daemon.json"
  fi
}
stop_dockerd() {
  stop_pid "$dir/dockerd.launcher.pid"
  rm -f "$dir/dockerd.launcher.pid"
}
e2e_on_exit "stop_dockerd; umount -R '$dir/exec' 2>/dev/null; umount -R '$dir/data' 2>/dev/null"

cat >"$dir/daemon.json" <<'JSON'
{"log-driver": "local", "runtimes": {"other": {"path": "/usr/sbin/runc"}}}
JSON
chmod 0600 "$dir/daemon.json"

"$ctk" runtime configure --runtime=docker --config "$dir/daemon.json" \
  --nvidia-runtime-path "$shim" 2>"$dir/ctk.log" ||
  { cat "$dir/ctk.log" >&2; e2e_die "runtime configure failed"; }
check_eq "daemon.json: nvidia path" "$shim" "$(jq -r '.runtimes.nvidia.path' "$dir/daemon.json")"
check_eq "daemon.json: mode kept" 600 "$(stat -c %a "$dir/daemon.json")"
check_contains "restart advice logged" "It is recommended that docker daemon be restarted." \
  "$(cat "$dir/ctk.log")"

start_dockerd
runtimes="$(docker info --format '{{json .Runtimes}}')"
check_eq "docker info lists nvidia with the shim path" "$shim" \
  "$(jq -r '.nvidia.path' <<<"$runtimes")"
check_eq "docker info keeps the other runtime" /usr/sbin/runc "$(jq -r '.other.path' <<<"$runtimes")"
check_eq "unrelated key applied (log driver)" local "$(docker info --format '{{.LoggingDriver}}')"
check_eq "default runtime still runc" runc "$(docker info --format '{{.DefaultRuntime}}')"
image_rootfs="$dir/image-rootfs"
make_rootfs "$image_rootfs" glibc
printf '%s' "$GPU_REPORT" >"$image_rootfs/report.sh"
docker_import_rootfs "$image_rootfs" nvct-ctk-e2e:latest
gpu_container runtime-nvidia --runtime=nvidia
stop_dockerd

"$ctk" runtime configure --runtime=docker --config "$dir/daemon.json" \
  --nvidia-runtime-path "$shim" --set-as-default --cdi.enabled 2>/dev/null ||
  e2e_die "runtime configure --set-as-default failed"
check_eq "daemon.json: default-runtime" nvidia "$(jq -r '."default-runtime"' "$dir/daemon.json")"
check_eq "daemon.json: features.cdi" true "$(jq -r '.features.cdi' "$dir/daemon.json")"

start_dockerd
check_eq "docker info: default runtime is nvidia" nvidia "$(docker info --format '{{.DefaultRuntime}}')"
check_eq "docker info: nvidia still listed" "$shim" \
  "$(docker info --format '{{json .Runtimes}}' | jq -r '.nvidia.path')"
check_eq "docker info: log driver still applied" local "$(docker info --format '{{.LoggingDriver}}')"
gpu_container default-runtime
stop_dockerd

e2e_finish
