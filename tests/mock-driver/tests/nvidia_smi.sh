#!/usr/bin/env bash
# The mock nvidia-smi, through the mock NVML, lists exactly the GPUs (and MIG devices) of each
# topology, loses a GPU whose /dev/nvidiaN is removed, and fails like the real one when the
# library or the driver is missing or the versions disagree.
source "$(dirname "$0")/lib/common.sh"

# one-gpu
build_root one-gpu "$WORK/one"
expect_eq "one-gpu -L" \
  "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)" \
  "$(smi "$WORK/one" -L)"
table="$(smi "$WORK/one")"
expect "table shows the driver and CUDA versions" grep -q \
  "Driver Version: 550.54.14  CUDA Version: 12.4" <<< "$table"
expect "table row of GPU 0" grep -qE '^\|   0  NVIDIA H100 80GB HBM3 +\| 00000000:17:00.0 \| Disabled' <<< "$table"
expect_eq "--version" "DRIVER version      : 550.54.14" "$(smi "$WORK/one" --version | sed -n 2p)"

# eight-gpus: NVML order is PCI bus order, whatever the minors are.
build_root eight-gpus "$WORK/eight"
expected=""
for i in 0 1 2 3 4 5 6 7; do
  expected+="GPU $i: NVIDIA H100 80GB HBM3 (UUID: GPU-8a8a8a8a-0000-4000-8000-00000000000$i)"$'\n'
done
expect_eq "eight-gpus -L" "${expected%$'\n'}" "$(smi "$WORK/eight" -L)"
expect "eight-gpus has a fabric manager socket" test -S "$WORK/eight/run/nvidia-fabricmanager/socket"
# GPU index 3 (bus 5d) has minor 1: without /dev/nvidia1 it disappears and later ones move up.
rm "$WORK/eight/dev/nvidia1"
listing="$(smi "$WORK/eight" -L)"
expect_eq "seven GPUs without dev/nvidia1" 7 "$(grep -c '^GPU ' <<< "$listing")"
expect "the GPU of minor 1 is gone" bash -c "! grep -q 000000000003 <<< \"\$1\"" _ "$listing"
expect_eq "index 3 is now the next GPU" \
  "GPU 3: NVIDIA H100 80GB HBM3 (UUID: GPU-8a8a8a8a-0000-4000-8000-000000000004)" \
  "$(sed -n 4p <<< "$listing")"
rm "$WORK"/eight/dev/nvidia[0-9]*
expect_eq "no GPU nodes: no devices" "No devices found." "$(smi "$WORK/eight" -L || true)"

# mig: GPU 0 has gi1/ci0 and gi2/ci0, GPU 1 has no MIG.
build_root mig "$WORK/mig"
expect_eq "mig -L" "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)
  MIG 3g.40gb      Device  0: (UUID: MIG-11111111-2222-3333-4444-000000000000)
  MIG 3g.40gb      Device  1: (UUID: MIG-11111111-2222-3333-4444-000000000001)
GPU 1: NVIDIA A100-SXM4-40GB (UUID: GPU-11111111-2222-3333-4444-555555555551)" \
  "$(smi "$WORK/mig" -L)"
table="$(smi "$WORK/mig")"
expect "table: MIG enabled on GPU 0" grep -qE '^\|   0  .*\| Enabled ' <<< "$table"
expect "table: MIG N/A on GPU 1" grep -qE '^\|   1  .*\| N/A ' <<< "$table"
expect "table: MIG device gi2/ci0" grep -qE '^\| +0 +2 +0 +1  3g.40gb' <<< "$table"
# A MIG device is visible only while its compute-instance access file exists (as in a
# container that was given only some MIG devices).
rm "$WORK/mig/proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access"
expect_eq "only gi2/ci0 left" "  MIG 3g.40gb      Device  0: (UUID: MIG-11111111-2222-3333-4444-000000000001)" \
  "$(smi "$WORK/mig" -L | grep MIG)"

# no-nvml: no libnvidia-ml anywhere, so nvidia-smi cannot start.
build_root no-nvml "$WORK/nonvml"
expect_eq "no libnvidia-ml files" "" "$(find "$WORK/nonvml" -name 'libnvidia-ml*')"
expect_eq "no libnvidia-ml in the cache" "" \
  "$(ldconfig -p -C "$WORK/nonvml/etc/ld.so.cache" | grep libnvidia-ml || true)"
expect "other libraries are still there" test -f "$WORK/nonvml/$LIB64/libcuda.so.550.54.14"
expect "procfs is still there" test -f "$WORK/nonvml/proc/driver/nvidia/gpus/0000:17:00.0/information"
rc=0; out="$(smi "$WORK/nonvml" -L)" || rc=$?
expect_eq "no-nvml: nvidia-smi exit code" 12 "$rc"
expect "no-nvml: nvidia-smi message" grep -q "couldn't find libnvidia-ml.so library" <<< "$out"

# A user-space library of another release than the kernel module.
cat > "$WORK/mismatch.conf" <<'CONF'
driver_version = 550.54.14
nvml_version = 535.00.01
gpu = minor=0; bus=00000000:17:00.0; uuid=GPU-0; model=M; brand=Tesla; arch=8.0
CONF
build_root "$WORK/mismatch.conf" "$WORK/mismatch"
expect "the library file carries the library's version" \
  test -f "$WORK/mismatch/$LIB64/libnvidia-ml.so.535.00.01"
rc=0; out="$(smi "$WORK/mismatch" -L)" || rc=$?
expect_eq "mismatch message" "Failed to initialize NVML: driver/library version mismatch" "$out"
expect_eq "mismatch exit code" 18 "$rc"

# Without /dev/nvidiactl the driver is unreachable.
rm "$WORK/one/dev/nvidiactl"
rc=0; out="$(smi "$WORK/one" -L)" || rc=$?
expect_eq "no nvidiactl: exit code" 9 "$rc"
expect "no nvidiactl: message" grep -q "couldn't communicate with the NVIDIA driver" <<< "$out"

finish
