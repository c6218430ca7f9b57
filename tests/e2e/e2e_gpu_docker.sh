#!/usr/bin/env bash
# Full GPU containers through Docker on the MIG mock driver: `docker run --runtime=nvidia -e
# NVIDIA_VISIBLE_DEVICES=...` (the nvct shim injects the hook) and `docker run --gpus ...` with
# the stock runc runtime (dockerd's built-in NVIDIA driver injects nvidia-container-runtime-hook,
# which it looks up on its PATH once at start). A private containerd + dockerd (lib/dockerd.sh)
# with the test's hook wrapper first on their PATH; an image imported from a local glibc rootfs.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/dockerd.sh"
source "$(dirname "$0")/lib/gpu.sh"

require_cmd docker dockerd containerd jq
gpu_setup mig
# dockerd registers its --gpus driver only if the hook is on its PATH when it starts.
export PATH="$GPU_HOOKDIR:$PATH"
start_private_dockerd "$E2E_TMP/docker" "$GPU_SHIM"

rootfs="$E2E_TMP/image-rootfs"
make_rootfs "$rootfs" glibc
printf '%s' "$GPU_REPORT" >"$rootfs/report.sh"
docker_import_rootfs "$rootfs" nvct-gpu-e2e:latest
mounts_before="$(gpu_host_mounts)"

UVM="/dev/nvidia-uvm /dev/nvidia-uvm-tools"
GPU0_NAME="NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)"
GPU1_NAME="NVIDIA A100-SXM4-40GB (UUID: GPU-11111111-2222-3333-4444-555555555551)"
ENXIO="No such device or address"
LIBDIR=/usr/lib/x86_64-linux-gnu

# docker_case <name> <docker run options...>: the report in $E2E_TMP/<name>.out. The tmpfs on
# /proc/driver stands in for the driver's procfs directory (see lib/gpu.sh).
docker_case() {
  local name="$1" rc=0
  shift
  timeout 120 docker run --rm --tmpfs /proc/driver "$@" nvct-gpu-e2e:latest sh /report.sh \
    >"$E2E_TMP/$name.out" 2>"$E2E_TMP/$name.err" || rc=$?
  return "$rc"
}

# expect_docker_gpu <name> <nodes> <nvidia-smi GPU lines joined by |> <docker run options...>
expect_docker_gpu() {
  local name="$1" nodes="$2" smi="$3" out="$E2E_TMP/$1.out" n
  shift 3
  if ! docker_case "$name" "$@"; then
    failed "$name: docker run $* failed: $(tr '\n' ' ' <"$E2E_TMP/$name.err")"
    return
  fi
  check "$name: container ran to the end" grep -qx "done" "$out"
  check_eq "$name: /dev/nvidia* nodes" "$nodes" "$(gpu_nodes "$out")"
  check_eq "$name: nvidia-smi -L lists exactly the selected GPUs" "$smi" "$(gpu_smi_gpus "$out")"
  check_eq "$name: ldconfig -p resolves libnvidia-ml.so.1" "$LIBDIR/libnvidia-ml.so.1" \
    "$(gpu_field "$out" lib | awk '$1 == "libnvidia-ml.so.1" { print $2 }')"
  check_eq "$name: libnvidia-ml.so.1 is the injected driver file" \
    "$LIBDIR/libnvidia-ml.so.550.54.14 $(md5sum <"$GPU_ROOT$LIBDIR/libnvidia-ml.so.550.54.14" | cut -d' ' -f1)" \
    "$(gpu_field "$out" real | awk '$1 == "libnvidia-ml.so.1" { print $2, $3 }')"
  check_eq "$name: params shows ModifyDeviceFiles: 0" "ModifyDeviceFiles: 0" "$(gpu_field "$out" params)"
  for n in $(gpu_field "$out" node | grep -E '^/dev/nvidia[0-9]+$'); do
    check_eq "$name: opening selected $n fails with ENXIO" "$n $ENXIO" "$(gpu_field "$out" open | grep "^$n ")"
  done
}
libcuda_of() { gpu_field "$E2E_TMP/$1.out" lib | awk '$1 == "libcuda.so.1" { print $2 }'; }

# --- --runtime=nvidia: the nvct shim adds the hook ------------------------------------------------
expect_docker_gpu rt-idx1 "$UVM /dev/nvidia1 /dev/nvidiactl" "$GPU1_NAME" \
  --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=1
check_eq "rt-idx1: libcuda.so.1 resolved" "$LIBDIR/libcuda.so.1" "$(libcuda_of rt-idx1)"
expect_docker_gpu rt-uuid "$UVM /dev/nvidia0 /dev/nvidiactl" "$GPU0_NAME" \
  --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=GPU-11111111-2222-3333-4444-555555555550
expect_docker_gpu rt-utility "/dev/nvidia0 /dev/nvidiactl" "$GPU0_NAME" \
  --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=0 -e NVIDIA_DRIVER_CAPABILITIES=utility
check_eq "rt-utility: no libcuda with utility only" "" "$(libcuda_of rt-utility)"
if docker_case rt-void --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=void; then
  check_eq "rt-void: no /dev/nvidia* node" "" "$(gpu_nodes "$E2E_TMP/rt-void.out")"
  check_eq "rt-void: no driver library" "" "$(gpu_field "$E2E_TMP/rt-void.out" lib | grep -E 'libcuda|libnvidia' || true)"
else
  failed "rt-void: $(cat "$E2E_TMP/rt-void.err")"
fi

# --- --gpus with the stock runc runtime: dockerd adds the hook ------------------------------------
expect_docker_gpu gpus-all "/dev/nvidia-caps /dev/nvidia-caps/nvidia-cap12 /dev/nvidia-caps/nvidia-cap13 /dev/nvidia-caps/nvidia-cap21 /dev/nvidia-caps/nvidia-cap22 $UVM /dev/nvidia0 /dev/nvidia1 /dev/nvidiactl" \
  "$GPU0_NAME|$GPU1_NAME" --gpus all
check_eq "gpus-all: libcuda.so.1 resolved (default caps compute,utility)" "$LIBDIR/libcuda.so.1" "$(libcuda_of gpus-all)"
expect_docker_gpu gpus-device1 "$UVM /dev/nvidia1 /dev/nvidiactl" "$GPU1_NAME" --gpus '"device=1"'
expect_docker_gpu gpus-uuid "$UVM /dev/nvidia0 /dev/nvidiactl" "$GPU0_NAME" \
  --gpus device=GPU-11111111-2222-3333-4444-555555555550
expect_docker_gpu gpus-count1 "$UVM /dev/nvidia0 /dev/nvidiactl" "$GPU0_NAME" --gpus 1
expect_docker_gpu gpus-utility "/dev/nvidia-caps /dev/nvidia-caps/nvidia-cap12 /dev/nvidia-caps/nvidia-cap13 /dev/nvidia-caps/nvidia-cap21 /dev/nvidia-caps/nvidia-cap22 /dev/nvidia0 /dev/nvidia1 /dev/nvidiactl" \
  "$GPU0_NAME|$GPU1_NAME" --gpus 'all,capabilities=utility'
check_eq "gpus-utility: no libcuda with capabilities=utility" "" "$(libcuda_of gpus-utility)"
# Count 0: Docker 20.10 sets no variable but still adds the hook; the image asks for nothing.
if docker_case gpus-0 --gpus 0; then
  check_eq "gpus-0: no /dev/nvidia* node" "" "$(gpu_nodes "$E2E_TMP/gpus-0.out")"
  check_eq "gpus-0: no driver library" "" "$(libcuda_of gpus-0)"
else
  failed "gpus-0: $(cat "$E2E_TMP/gpus-0.err")"
fi
# Both at once: the shim sees dockerd's hook and adds no second one.
expect_docker_gpu both "$UVM /dev/nvidia1 /dev/nvidiactl" "$GPU1_NAME" --runtime=nvidia --gpus '"device=1"'

# --- an unsatisfied requirement fails docker run with the reference message -----------------------
for how in "--gpus 1" "--runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=0"; do
  rc=0
  # shellcheck disable=SC2086
  docker_case require $how -e "NVIDIA_REQUIRE_CUDA=cuda>=99.0" || rc=$?
  check "require ($how): docker run fails" test "$rc" -ne 0
  check_contains "require ($how): the reference message" \
    "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a newer version, or use an earlier cuda container" \
    "$(cat "$E2E_TMP/require.err")"
done

check_eq "no container left" "" "$(docker ps -aq)"
check_eq "host mount table unchanged after the containers exited" "$mounts_before" "$(gpu_host_mounts)"
e2e_finish
