#!/usr/bin/env bash
# Load (issue 18): many GPU containers at once on the eight-GPU mock driver, through the real
# engines, then proof that nothing leaked.
#   1. $NVCT_LOAD_RUNC (50) containers started concurrently through the nvct shim and runc in
#      legacy mode (the prestart hook), then as many in jit-cdi mode (CDI edits at create);
#   2. $NVCT_LOAD_DOCKER (20) concurrent `docker run`, half `--runtime=nvidia -e
#      NVIDIA_VISIBLE_DEVICES=...` and half `--gpus device=...` (stock runc + dockerd's hook),
#      against a private dockerd/containerd (lib/dockerd.sh), image imported offline.
# Each container asks for its own GPU set (one index, two indices, a UUID or "all") and its report
# must list exactly those /dev/nvidia* nodes and exactly those GPUs in nvidia-smi -L. Afterwards:
# 0 failures, 0 new mounts (host mountinfo, this test's paths and nvidia paths), 0 leaked cgroups
# (every container runs under a cgroup parent of its own, in every hierarchy), 0 leaked fds in
# dockerd and containerd and no containerd-shim left, 0 leftover temp files (runc state, bundles
# and rootfs, dockerd's exec root and containerd's state, /run, $TMPDIR; nvct's temp-name
# patterns). Prints one "LOAD <batch>: ... wall_s=.. median_s=.." line per batch for the
# closing note, and the test's own wall time.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/dockerd.sh"
source "$(dirname "$0")/lib/gpu.sh"
source "$(dirname "$0")/lib/load.sh"

N_RUNC="${NVCT_LOAD_RUNC:-50}"
N_DOCKER="${NVCT_LOAD_DOCKER:-20}"
T_START="$(load_now_ms)"

require_cmd docker dockerd containerd containerd-shim-runc-v2 runc jq md5sum timeout ss pgrep
gpu_setup eight-gpus
load_topology_8
CTK="$(nvct_bin nvidia-ctk)"

# jit-cdi: the same config in jit-cdi mode. The mock host has no /proc/driver/nvidia for the mock
# NVML in a CDI container, so those bundles get the createContainer hook of e2e_cdi_modes.sh that
# copies the mock root's one into the container's /proc/driver tmpfs (test plumbing).
CONFIG_JIT="$E2E_TMP/config-jit-cdi.toml"
sed 's/^mode = .*/mode = "jit-cdi"/' "$GPU_CONFIG" >"$CONFIG_JIT"
printf '\n[nvidia-ctk]\npath = "%s"\n' "$CTK" >>"$CONFIG_JIT"
cat >"$E2E_TMP/procfs-hook.sh" <<SH
#!/bin/sh
bundle="\$(jq -r .bundle)"
root="\$(jq -r .root.path "\$bundle/config.json")"
case "\$root" in /*) ;; *) root="\$bundle/\$root" ;; esac
cp -a "$GPU_ROOT/proc/driver/nvidia" "\$root/proc/driver/"
SH

CG_RUNC="nvct-load-$$"
CG_DOCKER="nvct-load-$$-docker"
e2e_on_exit "find /sys/fs/cgroup -depth -type d \\( -name '$CG_RUNC' -o -name '$CG_DOCKER' \\) -exec rmdir {} \\;"

# --- batch setup (not timed): an overlay rootfs and a config.json per container ------------------
TEMPLATE="$E2E_TMP/template"
load_template "$TEMPLATE" glibc
load_base_spec
SPEC_JIT="$E2E_TMP/base-config-jit.json"
jq --arg s "$E2E_TMP/procfs-hook.sh" \
  '.hooks.createContainer += [{"path":"/bin/sh","args":["sh",$s],"env":["PATH=/usr/bin:/bin"]}]' \
  "$LOAD_SPEC" >"$SPEC_JIT"
for ((k = 0; k < N_RUNC; k++)); do
  load_bundle "$TEMPLATE" "$E2E_TMP/bundles/legacy-$k" "/$CG_RUNC/legacy-$k" "$(load_request_of "$k")"
  load_bundle "$TEMPLATE" "$E2E_TMP/bundles/jit-$k" "/$CG_RUNC/jit-$k" "$(load_request_of "$k")" "$SPEC_JIT"
done

# The private Docker daemon; dockerd finds the hook wrapper on its PATH for --gpus.
export PATH="$GPU_HOOKDIR:$PATH"
start_private_dockerd "$E2E_TMP/docker" "$GPU_SHIM"
docker_import_rootfs "$TEMPLATE" nvct-load:latest
DOCKER_DIR="$E2E_TMP/docker"
# Warm both paths once, so lazily opened fds (plugins, image store) are already counted.
for how in "--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=0" "--gpus device=0"; do
  # shellcheck disable=SC2086
  timeout 120 docker run --rm --network none --cgroup-parent "/$CG_DOCKER" --tmpfs /proc/driver \
    $how nvct-load:latest sh /report.sh >"$E2E_TMP/warm.out" 2>&1 ||
    e2e_die "warm-up docker run $how failed: $(cat "$E2E_TMP/warm.out")"
done

# --- before --------------------------------------------------------------------------------------
settle_fds() {  # <pid> <api-socket> <want>: waits up to 10 s for a daemon's fd profile
  local pid="$1" api="$2" want="$3" got _
  for _ in $(seq 50); do
    got="$(load_fd_profile "$pid" "$api")"
    [ "$got" = "$want" ] && break
    sleep 0.2
  done
  echo "$got"
}
shims_of() { { pgrep -f "containerd-shim-runc-v2 .*-address $DOCKER_DIR/containerd.sock" || true; } | wc -l; }
PID_DOCKERD="$(cat "$DOCKER_DIR/docker.pid")"
PID_CONTAINERD="$(cat "$DOCKER_DIR/containerd.pid")"
sleep 1
mounts_before="$(load_mounts)"
cgroups_before="$(load_cgroups "nvct-load-$$")"
fds_dockerd="$(load_fd_profile "$PID_DOCKERD" "$DOCKER_DIR/docker.sock")"
fds_containerd="$(load_fd_profile "$PID_CONTAINERD" "$DOCKER_DIR/containerd.sock")"
shims_before="$(shims_of)"
TMPD="${TMPDIR:-/tmp}"
temp_scan() {  # nvct temp files in the shared dirs (depth-limited) and in this test's dirs
  {
    load_shared_temps 3 "$TMPD" /run
    load_temp_files "$E2E_TMP/bundles" "$GPU_STATE" "$DOCKER_DIR/exec" "$DOCKER_DIR/containerd-state" \
      "$GPU_ROOT"
  } | sort -u
}
temps_before="$(temp_scan)"
echo "# before: dockerd fds: $(load_fds "$PID_DOCKERD") ($(tr '\n' ';' <<<"$fds_dockerd"))"
echo "# before: containerd fds: $(load_fds "$PID_CONTAINERD") ($(tr '\n' ';' <<<"$fds_containerd")); shims: $shims_before"

# --- batch 1 and 2: shim + runc, legacy then jit-cdi ---------------------------------------------
run_runc() {  # run_runc <mode> <k>
  local mode="$1" k="$2" id="nvct-load-$$-$1-$2" rc=0 config="$GPU_CONFIG"
  [ "$mode" = jit ] && config="$CONFIG_JIT"
  NVIDIA_CTK_CONFIG_FILE_PATH="$config" timeout 120 "$GPU_SHIM" --root "$GPU_STATE" run \
    --bundle "$E2E_TMP/bundles/$mode-$k" "$id" </dev/null \
    >"$E2E_TMP/$mode-$k.out" 2>"$E2E_TMP/$mode-$k.err" || rc=$?
  runc --root "$GPU_STATE" delete --force "$id" >/dev/null 2>&1 || true
  [ "$rc" = 0 ] || { echo "$mode-$k: exit $rc: $(tr '\n' ' ' <"$E2E_TMP/$mode-$k.err")" >&2; return "$rc"; }
  local how=legacy
  [ "$mode" = jit ] && how=cdi
  load_check_report "$E2E_TMP/$mode-$k.out" "$(load_request_of "$k")" "$how"
}
run_legacy() { run_runc legacy "$1"; }
run_jit() { run_runc jit "$1"; }
load_batch runc-legacy "$N_RUNC" run_legacy
load_batch runc-jit-cdi "$N_RUNC" run_jit

# --- batch 3: docker run, --runtime=nvidia and --gpus ------------------------------------------
run_docker() {
  local k="$1" request how rc=0
  request="$(load_request_of "$k")"
  if [ $((k % 2)) -eq 0 ]; then
    how=(--runtime=nvidia -e "NVIDIA_VISIBLE_DEVICES=$request")
  elif [ "$request" = all ]; then
    how=(--gpus all)
  else
    how=(--gpus "\"device=$request\"")
  fi
  timeout 120 docker run --rm --network none --cgroup-parent "/$CG_DOCKER" --tmpfs /proc/driver \
    "${how[@]}" nvct-load:latest sh /report.sh >"$E2E_TMP/docker-$k.out" 2>"$E2E_TMP/docker-$k.err" ||
    rc=$?
  [ "$rc" = 0 ] || { echo "docker-$k (${how[*]}): exit $rc: $(tr '\n' ' ' <"$E2E_TMP/docker-$k.err")" >&2; return "$rc"; }
  load_check_report "$E2E_TMP/docker-$k.out" "$request"
}
load_batch docker "$N_DOCKER" run_docker

# --- after: nothing left behind ------------------------------------------------------------------
check_eq "no docker container left" "" "$(docker ps -aq)"
check_eq "no runc container left" "" "$(runc --root "$GPU_STATE" list -q)"
check_eq "runc state dir empty" "" "$(ls -A "$GPU_STATE")"
task_dir="$DOCKER_DIR/containerd-state/io.containerd.runtime.v2.task/moby"
check_eq "containerd has no task bundle left" "" "$(ls -A "$task_dir" 2>/dev/null || true)"
check_eq "no containerd-shim left ($shims_before before)" "$shims_before" "$(shims_of)"
check_eq "0 leaked mounts (host mountinfo diff)" "" \
  "$(diff <(echo "$mounts_before") <(load_mounts) || true)"
check_eq "0 leaked cgroups (only the parents themselves remain)" "" \
  "$(diff <(echo "$cgroups_before") <(load_cgroups "nvct-load-$$") | grep '^>' |
     grep -Ev "/($CG_RUNC|$CG_DOCKER)\$" || true)"
check_eq "0 leaked fds in dockerd (by kind, API client connections aside)" "$fds_dockerd" \
  "$(settle_fds "$PID_DOCKERD" "$DOCKER_DIR/docker.sock" "$fds_dockerd")"
check_eq "0 leaked fds in containerd (by kind, API client connections aside)" "$fds_containerd" \
  "$(settle_fds "$PID_CONTAINERD" "$DOCKER_DIR/containerd.sock" "$fds_containerd")"
echo "# after: dockerd fds: $(load_fds "$PID_DOCKERD"), containerd fds: $(load_fds "$PID_CONTAINERD")"
check_eq "0 leftover temp files" "" "$(diff <(echo "$temps_before") <(temp_scan) | grep '^>' || true)"
check_eq "mock driver root unchanged (no new file)" "" \
  "$(load_find "$GPU_ROOT" -newer "$LOAD_SPEC" -not -type d | head -5)"

echo "LOAD total: wall_s=$(awk -v ms=$(($(load_now_ms) - T_START)) 'BEGIN { printf "%.1f", ms / 1000 }')" \
  "(runc=$N_RUNC per mode, docker=$N_DOCKER, $(nproc) CPUs)"
e2e_finish
