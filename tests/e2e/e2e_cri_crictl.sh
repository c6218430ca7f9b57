#!/usr/bin/env bash
# Driven the way Kubernetes drives it: crictl (cri-tools 1.26.1) against a private containerd
# (Debian's 1.6.20) whose config `nvidia-ctk runtime configure --runtime=containerd` wrote in
# drop-in mode, from Debian's stock /etc/containerd/config.toml, `containerd config default`, no
# file at all, and an admin's file that imports its own drop-in directory.
# For each start: `crictl info` shows the CRI runtime ready with the runc, nvidia and nvidia-cdi
# handlers (nvidia -> nvct's nvidia-container-runtime, legacy mode, mock driver root). On the
# stock config: `crictl runp --runtime nvidia` a pod, a container with NVIDIA_VISIBLE_DEVICES=0
# whose `crictl exec` shows exactly GPU 0's /dev/nvidia* nodes and mock `nvidia-smi -L`; then a
# pod on nvidia-cdi (the runtime in cdi mode, spec from `nvidia-ctk cdi generate` in a private
# spec dir) with a container that asks for nvidia.com/gpu=0 by a cdi.k8s.io/ annotation only,
# with the same view. After stop/remove: the namespace's mount table is what it was, no
# containerd-shim is left and the pods' cgroups are gone. The crictl transcript is printed.
# Everything runs in private namespaces (lib/cri.sh): no host path is written.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"
source "$(dirname "$0")/lib/cri.sh"

cri_enter "$@"
require_cmd containerd ctr jq python3
cri_tools
gpu_setup one-gpu
W="$E2E_TMP/cri"
mkdir -p "$W/logs"
CRI_TRANSCRIPT="$E2E_TMP/crictl-transcript.txt"
: >"$CRI_TRANSCRIPT"
cri_gpu_runtime "$W"
CTK="$(nvct_bin nvidia-ctk)"

GPU0="GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)"
# GPU 0 with the default capabilities (utility, compute): its node, the control node and UVM.
LEGACY_NODES="/dev/nvidia-uvm /dev/nvidia-uvm-tools /dev/nvidia0 /dev/nvidiactl"

# --- images: a busybox pause image and a glibc image (mock nvidia-smi needs libc) -------------
make_rootfs "$E2E_TMP/rootfs-busybox" busybox
make_rootfs "$E2E_TMP/rootfs-glibc" glibc
PATH_ENV="PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
cat >"$E2E_TMP/images.json" <<JSON
{"images": [
  {"ref": "pause", "name": "nvct.local/pause:busybox", "rootfs": "$E2E_TMP/rootfs-busybox",
   "config": {"Entrypoint": ["/bin/sleep", "2147483647"], "Env": ["$PATH_ENV"]}},
  {"ref": "gpu", "name": "nvct.local/gpu:glibc", "rootfs": "$E2E_TMP/rootfs-glibc",
   "config": {"Cmd": ["/bin/sleep", "2147483647"], "Env": ["$PATH_ENV"]}}
]}
JSON
python3 "$CRI_PY_DIR/cri_images.py" build "$E2E_TMP/images.json" "$E2E_TMP/layout" \
  "$E2E_TMP/images.tar" || e2e_die "building the test images failed"

# --- the CDI spec for the mock driver, in the nvidia-cdi runtime's private spec dir -----------
"$CTK" cdi generate --driver-root "$GPU_ROOT" --nvidia-cdi-hook-path "$(nvct_bin nvidia-cdi-hook)" \
  --output "$W/cdi/nvidia.yaml" 2>"$E2E_TMP/generate.err" ||
  e2e_die "cdi generate failed: $(cat "$E2E_TMP/generate.err")"
# The CDI view of nvidia.com/gpu=0: the device's nodes plus the spec's common nodes.
CDI_NODES="$(python3 - "$W/cdi/nvidia.yaml" <<'PY'
import sys, yaml
spec = yaml.safe_load(open(sys.argv[1]))
nodes = [n["path"] for n in spec.get("containerEdits", {}).get("deviceNodes", [])]
for d in spec["devices"]:
    if d["name"] == "0":
        nodes += [n["path"] for n in d["containerEdits"].get("deviceNodes", [])]
print(" ".join(sorted(set(n for n in nodes if n.startswith("/dev/nvidia")))))
PY
)"

# pod_json <name> <file>: a host-network pod (no CNI needed) in its own cgroup parent.
CG_PARENT="nvct-cri-${E2E_TMP##*.}"
cri_cgroups_track "$CG_PARENT"
pod_json() {
  jq -n --arg name "$1" --arg logs "$W/logs/$1" --arg cg "/$CG_PARENT" '{
    metadata: {name: $name, namespace: "nvct", uid: ($name + "-uid"), attempt: 1},
    log_directory: $logs,
    linux: {cgroup_parent: $cg, security_context: {namespace_options: {network: 2}}}}' >"$2"
}
# ctr_json <name> <file> <env-json> <annotations-json>
ctr_json() {
  jq -n --arg name "$1" --argjson env "$3" --argjson ann "$4" '{
    metadata: {name: $name}, image: {image: "nvct.local/gpu:glibc"},
    envs: $env, annotations: $ann, log_path: ($name + ".log")}' >"$2"
}

# exec_view <container>: /dev/nvidia* nodes (one line) and nvidia-smi -L, through crictl exec.
exec_view() {
  local c="$1"
  NODES="$(crictl_t exec "$c" sh -c 'find /dev -name "nvidia*" | sort' | sed '1d' | tr '\n' ' ' | sed 's/ $//')" || true
  SMI="$(crictl_t exec "$c" nvidia-smi -L | sed '1d')" || true
}

# start_and_check <start>: configure, start, crictl info; echo the status.
configure_and_start() {
  local start="$1" d="$W/$1"
  cri_start_config "$d" "$start"
  cri_configure "$d" "$CRI_NVIDIA" "$CRI_NVIDIA_CDI"
  check_contains "$start: nvidia-ctk's drop-in has the nvidia handler with nvct's runtime" \
    "BinaryName = \"$CRI_NVIDIA\"" "$(cat "$d/99-nvidia.toml.ctk")"
  check_contains "$start: the main file imports the drop-in" "$d/conf.d/*.toml" "$(cat "$d/config.toml")"
  cri_start "$d"
  echo "# --- start: $start ---" >>"$CRI_TRANSCRIPT"
  crictl info >"$d/info.json" 2>&1 || e2e_die "crictl info failed: $(cat "$d/info.json")"
  echo "\$ crictl info   # condensed with jq: status conditions; runtime handler -> BinaryName" >>"$CRI_TRANSCRIPT"
  jq -c '[.status.conditions[] | {(.type): .status}] | add' "$d/info.json" | tee -a "$CRI_TRANSCRIPT"
  jq -c '.config.containerd.runtimes | map_values(.options.BinaryName // "")' "$d/info.json" |
    tee -a "$CRI_TRANSCRIPT"
  check_eq "$start: crictl info: RuntimeReady" true \
    "$(jq -r '.status.conditions[] | select(.type == "RuntimeReady") | .status' "$d/info.json")"
  check_eq "$start: crictl info: handlers" "nvidia nvidia-cdi runc" \
    "$(jq -r '.config.containerd.runtimes | keys | join(" ")' "$d/info.json")"
  check_eq "$start: crictl info: nvidia runs nvct's runtime" "$CRI_NVIDIA" \
    "$(jq -r '.config.containerd.runtimes.nvidia.options.BinaryName' "$d/info.json")"
  check_eq "$start: crictl info: nvidia-cdi forwards cdi.k8s.io annotations" '["cdi.k8s.io/*"]' \
    "$(jq -c '.config.containerd.runtimes["nvidia-cdi"].ContainerAnnotations' "$d/info.json")"
  check_eq "$start: crictl info: runc is containerd's own" "io.containerd.runc.v2" \
    "$(jq -r '.config.containerd.runtimes.runc.runtimeType' "$d/info.json")"
  # The sandbox image containerd wants, from our busybox image.
  local sandbox
  sandbox="$(jq -r .config.sandboxImage "$d/info.json")"
  ctr -n k8s.io --address "$CRI_SOCK" images import "$E2E_TMP/images.tar" >/dev/null 2>"$d/import.err" ||
    e2e_die "ctr images import failed: $(cat "$d/import.err")"
  ctr -n k8s.io --address "$CRI_SOCK" images tag --force nvct.local/pause:busybox "$sandbox" >/dev/null ||
    e2e_die "ctr images tag $sandbox failed"
  crictl_t images >/dev/null || failed "$start: crictl images"
}

# run_gpu <start> <handler> <name> <env-json> <annotations-json>: a pod on <handler> and one GPU
# container; leaves POD and CTR set. On failure whatever was made is removed again (so the leak
# checks below still judge the runtime's cleanup, not this script's).
run_gpu() {
  local start="$1" handler="$2" name="$3"
  POD="" CTR=""
  pod_json "$name" "$E2E_TMP/$name-pod.json"
  ctr_json "$name" "$E2E_TMP/$name-ctr.json" "$4" "$5"
  if ! POD="$(crictl_t runp --runtime "$handler" "$E2E_TMP/$name-pod.json" | tail -1)"; then
    failed "$start/$name: crictl runp --runtime $handler"
  elif ! CTR="$(crictl_t create --no-pull "$POD" "$E2E_TMP/$name-ctr.json" "$E2E_TMP/$name-pod.json" | tail -1)"; then
    failed "$start/$name: crictl create"
  elif ! crictl_t start "$CTR" >/dev/null; then
    failed "$start/$name: crictl start"
  else
    pass "$start/$name: pod on handler $handler and its container started"
    return 0
  fi
  if [ -n "$POD" ]; then
    crictl_t stopp "$POD" >/dev/null || true
    crictl_t rmp "$POD" >/dev/null || true
  fi
  return 1
}

remove_pod() {
  crictl_t stop "$2" >/dev/null || failed "$1: crictl stop"
  crictl_t rm "$2" >/dev/null || failed "$1: crictl rm"
  crictl_t stopp "$3" >/dev/null || failed "$1: crictl stopp"
  crictl_t rmp "$3" >/dev/null || failed "$1: crictl rmp"
}

for start in stock default none imports; do
  configure_and_start "$start"
  mounts_before="$(cri_mounts | grep -E "$E2E_TMP|nvidia|^/run|^/var/lib" || true)"
  check_eq "$start: no containerd-shim before the pods" "" "$(cri_shims)"

  # Legacy: NVIDIA_VISIBLE_DEVICES=0, the runtime adds the prestart hook.
  if run_gpu "$start" nvidia legacy-gpu '[{"key":"NVIDIA_VISIBLE_DEVICES","value":"0"}]' '{}'; then
    exec_view "$CTR"
    check_eq "$start/legacy-gpu: crictl exec: /dev/nvidia* nodes" "$LEGACY_NODES" "$NODES"
    check_eq "$start/legacy-gpu: crictl exec: nvidia-smi -L" "$GPU0" "$SMI"
    # While it runs the leak checks below have something to find: a shim, rootfs/shm mounts and
    # the pod's cgroups (so their absence afterwards means something).
    check "$start/legacy-gpu: a containerd-shim runs" test -n "$(cri_shims)"
    check "$start/legacy-gpu: the container's rootfs is mounted" \
      sh -c "grep -q '/$CTR/rootfs ' /proc/self/mountinfo"
    check "$start/legacy-gpu: cgroups below $CG_PARENT exist" \
      test -n "$(cri_cgroups_below "$CG_PARENT")"
    legacy_pod="$POD" legacy_ctr="$CTR"
  fi
  if [ "$start" = stock ]; then
    # The pod's own container on the nvidia handler without a request sees no GPU.
    if run_gpu "$start" nvidia no-gpu '[]' '{}'; then
      exec_view "$CTR"
      check_eq "$start/no-gpu: no /dev/nvidia* node without a request" "" "$NODES"
      check_contains "$start/no-gpu: ... and no nvidia-smi" "executable file not found" "$SMI"
      remove_pod "$start/no-gpu" "$CTR" "$POD"
    fi
    # CDI: the device comes from a cdi.k8s.io/ annotation only (no NVIDIA_VISIBLE_DEVICES).
    if run_gpu "$start" nvidia-cdi cdi-gpu '[]' '{"cdi.k8s.io/nvct-e2e_gpu0":"nvidia.com/gpu=0"}'; then
      exec_view "$CTR"
      check_eq "$start/cdi-gpu: crictl exec: the spec's /dev/nvidia* nodes for gpu=0" "$CDI_NODES" "$NODES"
      check_contains "$start/cdi-gpu: ... which include GPU 0's node" "/dev/nvidia0" "$NODES"
      check_eq "$start/cdi-gpu: crictl exec: nvidia-smi -L" "$GPU0" "$SMI"
      remove_pod "$start/cdi-gpu" "$CTR" "$POD"
    fi
  fi
  [ -n "${legacy_pod:-}" ] && remove_pod "$start/legacy-gpu" "$legacy_ctr" "$legacy_pod"
  legacy_pod=""
  crictl_t pods >/dev/null
  check_eq "$start: no pods left" "" "$(crictl pods -q)"
  check_eq "$start: no containers left" "" "$(crictl ps -aq)"
  sleep 0.5
  check_eq "$start: no containerd-shim left" "" "$(cri_shims)"
  mounts_after="$(cri_mounts | grep -E "$E2E_TMP|nvidia|^/run|^/var/lib" || true)"
  if [ "$mounts_before" = "$mounts_after" ]; then
    pass "$start: mount table as before the pods"
  else
    failed "$start: mounts leaked: $(diff <(echo "$mounts_before") <(echo "$mounts_after") | tr '\n' ' ')"
  fi
  check_eq "$start: no cgroups left below $CG_PARENT" "" "$(cri_cgroups_below "$CG_PARENT")"
  cri_stop
done

echo "# crictl transcript"
cat "$CRI_TRANSCRIPT"
e2e_finish
