#!/usr/bin/env bash
# Full GPU containers through the nvct shim, runc and the nvct prestart hook on the MIG mock
# driver (GPU 0: H100, MIG gi1/ci0 + gi2/ci0; GPU 1: A100): for each NVIDIA_VISIBLE_DEVICES
# value and capability set, exactly the expected /dev/nvidia* nodes, the injected libraries in
# the container's ld.so.cache, nvidia-smi listing exactly the selected GPUs, ENXIO for a selected
# node and EPERM (device cgroup) for a present-but-not-selected one, ModifyDeviceFiles: 0, an
# unsatisfied NVIDIA_REQUIRE_CUDA failing creation with the reference message, and the host's
# mount table unchanged.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"

gpu_setup mig
mounts_before="$(gpu_host_mounts)"

LIBDIR=/usr/lib/x86_64-linux-gnu
UVM="/dev/nvidia-uvm /dev/nvidia-uvm-tools"
GPU0_NAME="NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)"
GPU1_NAME="NVIDIA A100-SXM4-40GB (UUID: GPU-11111111-2222-3333-4444-555555555551)"
ENXIO="No such device or address"

# run_case <name> <env...>: one container; its report is $E2E_TMP/<name>.out.
run_case() {
  local name="$1"
  shift
  local b="$E2E_TMP/b-$name"
  gpu_bundle "$b" "$@"
  if gpu_run "$b" "$name"; then
    check "$name: container ran to the end" grep -qx "done" "$E2E_TMP/$name.out"
  else
    failed "$name: run failed: $(tr '\n' ' ' <"$E2E_TMP/$name.err")"
  fi
}

# expect_gpu_case <name> <expected nodes> <expected nvidia-smi GPU lines joined by |>
expect_gpu_case() {
  local name="$1" nodes="$2" smi="$3" out="$E2E_TMP/$1.out" n
  check_eq "$name: /dev/nvidia* nodes" "$nodes" "$(gpu_nodes "$out")"
  check_eq "$name: nvidia-smi -L lists exactly the selected GPUs" "$smi" "$(gpu_smi_gpus "$out")"
  check_eq "$name: nvidia-smi exit status" 0 "$(gpu_field "$out" smirc)"
  check_eq "$name: ldconfig -p resolves libcuda.so.1" "$LIBDIR/libcuda.so.1" \
    "$(gpu_field "$out" lib | awk '$1 == "libcuda.so.1" { print $2 }')"
  check_eq "$name: ldconfig -p resolves libnvidia-ml.so.1" "$LIBDIR/libnvidia-ml.so.1" \
    "$(gpu_field "$out" lib | awk '$1 == "libnvidia-ml.so.1" { print $2 }')"
  check_eq "$name: libcuda.so.1 is the injected driver file" \
    "$LIBDIR/libcuda.so.550.54.14 $(md5sum <"$GPU_ROOT$LIBDIR/libcuda.so.550.54.14" | cut -d' ' -f1)" \
    "$(gpu_field "$out" real | awk '$1 == "libcuda.so.1" { print $2, $3 }')"
  check_eq "$name: libnvidia-ml.so.1 is the injected driver file" \
    "$LIBDIR/libnvidia-ml.so.550.54.14 $(md5sum <"$GPU_ROOT$LIBDIR/libnvidia-ml.so.550.54.14" | cut -d' ' -f1)" \
    "$(gpu_field "$out" real | awk '$1 == "libnvidia-ml.so.1" { print $2, $3 }')"
  check_eq "$name: params shows ModifyDeviceFiles: 0" "ModifyDeviceFiles: 0" "$(gpu_field "$out" params)"
  for n in $(gpu_field "$out" node | grep -E '^/dev/nvidia[0-9]+$'); do
    check_eq "$name: opening selected $n fails with ENXIO (no kernel driver)" "$n $ENXIO" \
      "$(gpu_field "$out" open | grep "^$n ")"
  done
}

# --- device selection (default capabilities compute,utility) ------------------------------------
run_case all NVIDIA_VISIBLE_DEVICES=all
# "all" selects every GPU and every MIG device, so the MIG access caps of GPU 0 come too.
expect_gpu_case all "/dev/nvidia-caps /dev/nvidia-caps/nvidia-cap12 /dev/nvidia-caps/nvidia-cap13 /dev/nvidia-caps/nvidia-cap21 /dev/nvidia-caps/nvidia-cap22 $UVM /dev/nvidia0 /dev/nvidia1 /dev/nvidiactl" "$GPU0_NAME|$GPU1_NAME"
run_case idx0 NVIDIA_VISIBLE_DEVICES=0
expect_gpu_case idx0 "$UVM /dev/nvidia0 /dev/nvidiactl" "$GPU0_NAME"
run_case idx1 NVIDIA_VISIBLE_DEVICES=1
expect_gpu_case idx1 "$UVM /dev/nvidia1 /dev/nvidiactl" "$GPU1_NAME"
run_case uuid NVIDIA_VISIBLE_DEVICES=GPU-11111111-2222-3333-4444-555555555551
expect_gpu_case uuid "$UVM /dev/nvidia1 /dev/nvidiactl" "$GPU1_NAME"
run_case mig NVIDIA_VISIBLE_DEVICES=MIG-11111111-2222-3333-4444-000000000001
expect_gpu_case mig "/dev/nvidia-caps /dev/nvidia-caps/nvidia-cap21 /dev/nvidia-caps/nvidia-cap22 $UVM /dev/nvidia0 /dev/nvidiactl" \
  "$GPU0_NAME"
check_eq "mig: nvidia-smi lists exactly the selected MIG device" \
  "MIG 3g.40gb Device 0: (UUID: MIG-11111111-2222-3333-4444-000000000001)" \
  "$(gpu_field "$E2E_TMP/mig.out" smi | grep MIG | tr -s " " | sed "s/^ //")"

# --- none: driver files and control nodes, no GPU ------------------------------------------------
run_case none NVIDIA_VISIBLE_DEVICES=none
check_eq "none: no GPU device nodes, control nodes only" "$UVM /dev/nvidiactl" "$(gpu_nodes "$E2E_TMP/none.out")"
check_eq "none: libcuda.so.1 still injected" "$LIBDIR/libcuda.so.1" \
  "$(gpu_field "$E2E_TMP/none.out" lib | awk '$1 == "libcuda.so.1" { print $2 }')"
check_eq "none: nvidia-smi finds no devices (exit 6)" 6 "$(gpu_field "$E2E_TMP/none.out" smirc)"

# --- not GPU containers: nothing injected, config.json untouched ---------------------------------
for v in void unset; do
  b="$E2E_TMP/b-$v"
  if [ "$v" = unset ]; then gpu_bundle "$b"; else gpu_bundle "$b" "NVIDIA_VISIBLE_DEVICES=$v"; fi
  cp "$b/config.json" "$E2E_TMP/$v.config.orig"
  gpu_run "$b" "$v" || failed "$v: run failed: $(cat "$E2E_TMP/$v.err")"
  check "$v: config.json byte-identical (no hook)" same_file "$b/config.json" "$E2E_TMP/$v.config.orig"
  check_eq "$v: no /dev/nvidia* node" "" "$(gpu_nodes "$E2E_TMP/$v.out")"
  check_eq "$v: no driver library" "" "$(gpu_field "$E2E_TMP/$v.out" lib | grep -E 'libcuda|libnvidia' || true)"
  check_eq "$v: no nvidia-smi" none "$(gpu_field "$E2E_TMP/$v.out" smirc)"
done

# --- a legacy CUDA image (CUDA_VERSION, no NVIDIA_REQUIRE_CUDA) with the variable unset asks for
#     every GPU, all capabilities and cuda>=<major.minor> (checklist #26: any such image gets all)
run_case legacyimg CUDA_VERSION=12.0.1
check_eq "legacy image, NVIDIA_VISIBLE_DEVICES unset: every GPU" "$GPU0_NAME|$GPU1_NAME" \
  "$(gpu_smi_gpus "$E2E_TMP/legacyimg.out")"
check_contains "legacy image: all capabilities (graphics library present)" "libGLX_nvidia.so.0" \
  "$(gpu_field "$E2E_TMP/legacyimg.out" lib | awk '{ print $1 }' | tr '\n' ' ')"
b="$E2E_TMP/b-legacyreq"
gpu_bundle "$b" CUDA_VERSION=13.1
rc=0
gpu_run "$b" legacyreq || rc=$?
check "legacy image with CUDA_VERSION 13.1 > the driver's 12.4: creation fails" test "$rc" -ne 0
check_contains "legacy image: the implied cuda>=13.1 requirement is named" \
  "requirement error: unsatisfied condition: cuda>=13.1" "$(cat "$E2E_TMP/legacyreq.err")"

# --- capability sets ----------------------------------------------------------------------------
libs_of() { gpu_field "$E2E_TMP/$1.out" lib | awk '{ print $1 }' | grep -E "$2" | sort | tr '\n' ' ' | sed 's/ $//'; }
WATCH='^(libcuda|libnvidia-ml|libnvcuvid|libnvidia-encode|libGLX_nvidia|libEGL_nvidia|libnvidia-ngx)\.so\.[01]$'

run_case capall NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=all
check_eq "caps all: nodes include nvidia-modeset" "/dev/nvidia-modeset /dev/nvidia-uvm /dev/nvidia-uvm-tools /dev/nvidia0 /dev/nvidiactl" \
  "$(gpu_nodes "$E2E_TMP/capall.out")"
check_eq "caps all: compute, utility, video, graphics and ngx libraries" \
  "libEGL_nvidia.so.0 libGLX_nvidia.so.0 libcuda.so.1 libnvcuvid.so.1 libnvidia-encode.so.1 libnvidia-ml.so.1 libnvidia-ngx.so.1" \
  "$(libs_of capall "$WATCH")"

run_case caputil NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=utility
check_eq "caps utility: no uvm nodes" "/dev/nvidia0 /dev/nvidiactl" "$(gpu_nodes "$E2E_TMP/caputil.out")"
check_eq "caps utility: only NVML, no libcuda" "libnvidia-ml.so.1" "$(libs_of caputil "$WATCH")"
check_eq "caps utility: nvidia-smi works" "$GPU0_NAME" "$(gpu_smi_gpus "$E2E_TMP/caputil.out")"

run_case capvideo NVIDIA_VISIBLE_DEVICES=1 NVIDIA_DRIVER_CAPABILITIES=video
# video implies the compute libraries (driver.md §2.1), hence libcuda and the uvm nodes.
check_eq "caps video: compute nodes" "$UVM /dev/nvidia1 /dev/nvidiactl" "$(gpu_nodes "$E2E_TMP/capvideo.out")"
check_eq "caps video: video and compute libraries, no NVML" "libcuda.so.1 libnvcuvid.so.1 libnvidia-encode.so.1" "$(libs_of capvideo "$WATCH")"
check_eq "caps video: no nvidia-smi (a utility binary)" none "$(gpu_field "$E2E_TMP/capvideo.out" smirc)"

# --- a present but not selected GPU node is denied by the device cgroup ---------------------------
b="$E2E_TMP/b-eperm"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0
gpu_add_mount "$b" "{\"destination\":\"/dev/nvidia1\",\"type\":\"bind\",\"source\":\"$GPU_ROOT/dev/nvidia1\",\"options\":[\"bind\"]}"
if gpu_run "$b" eperm; then
  check_eq "eperm: both nodes present" "/dev/nvidia0 /dev/nvidia1" \
    "$(gpu_field "$E2E_TMP/eperm.out" node | grep -E '^/dev/nvidia[0-9]+$' | tr '\n' ' ' | sed 's/ $//')"
  check_eq "eperm: selected /dev/nvidia0 opens as far as the driver (ENXIO)" "/dev/nvidia0 $ENXIO" \
    "$(gpu_field "$E2E_TMP/eperm.out" open | grep '^/dev/nvidia0 ')"
  check_eq "eperm: unselected /dev/nvidia1 is refused by the device cgroup (EPERM)" \
    "/dev/nvidia1 Operation not permitted" "$(gpu_field "$E2E_TMP/eperm.out" open | grep '^/dev/nvidia1 ')"
else
  failed "eperm: run failed: $(cat "$E2E_TMP/eperm.err")"
fi

# --- an unsatisfied requirement fails creation with the reference message -------------------------
b="$E2E_TMP/b-require"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=0 "NVIDIA_REQUIRE_CUDA=cuda>=99.0"
rc=0
gpu_run "$b" require || rc=$?
check "require: creation fails" test "$rc" -ne 0
check_contains "require: the reference message" \
  "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a newer version, or use an earlier cuda container" \
  "$(cat "$E2E_TMP/require.err")"
check_contains "require: the mode line precedes it" "Using requested mode 'legacy'" "$(cat "$E2E_TMP/require.err")"
check_eq "require: the container process never ran" "" "$(cat "$E2E_TMP/require.out")"
check "require: no container left behind" bash -c "! runc --root '$GPU_STATE' state require >/dev/null 2>&1"
b="$E2E_TMP/b-require-ok"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=1 "NVIDIA_REQUIRE_CUDA=cuda>=12.0 brand=tesla"
gpu_run "$b" requireok || failed "requireok: $(cat "$E2E_TMP/requireok.err")"
check_eq "a satisfied requirement (cuda 12.4 >= 12.0) runs" "$GPU1_NAME" "$(gpu_smi_gpus "$E2E_TMP/requireok.out")"

# --- the host is untouched -----------------------------------------------------------------------
check_eq "host mount table unchanged after the containers exited" "$mounts_before" "$(gpu_host_mounts)"
check_eq "mock driver params on the host still say ModifyDeviceFiles: 1" "ModifyDeviceFiles: 1" \
  "$(grep ModifyDeviceFiles "$GPU_ROOT/proc/driver/nvidia/params")"

e2e_finish
