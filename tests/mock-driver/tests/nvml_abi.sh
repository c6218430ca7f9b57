#!/usr/bin/env bash
# The mock libnvidia-ml.so.1 through its C ABI (nvct-mock-nvml-probe prints every value and
# return code): values from procfs + nvct-mock files, real return codes for small buffers, bad
# indices, MIG handles and calls outside nvmlInit/nvmlShutdown, real PCI info layout.
source "$(dirname "$0")/lib/common.sh"
probe() { LD_LIBRARY_PATH="$1/$LIB64" "$ARTIFACTS/bin/nvct-mock-nvml-probe"; }

build_root mig "$WORK/mig"
expect_eq "probe of the mig topology" "before_init.count.rc=1
before_init.shutdown.rc=1
init.rc=0 (Success)
driver_version=550.54.14 rc=0
driver_version.small.rc=7
cuda_version=12040 rc=0
count=2 rc=0
handle.out_of_range.rc=2
gpu0.name=NVIDIA H100 80GB HBM3
gpu0.uuid=GPU-11111111-2222-3333-4444-555555555550
gpu0.minor=0
gpu0.pci.rc=0
gpu0.pci=00000000:17:00.0 0000:17:00.0 0:17:0 0x233010de 0x16c110de
gpu0.brand=14 rc=0
gpu0.cc=9.0 rc=0
gpu0.mig_mode=1/1
gpu0.mig_max=7
gpu0.gi.rc=3
gpu0.ci.rc=3
gpu0.uuid.small.rc=7
gpu0.name.small.rc=7
gpu0.mig0.name=NVIDIA H100 80GB HBM3 MIG 3g.40gb
gpu0.mig0.uuid=MIG-11111111-2222-3333-4444-000000000000
gpu0.mig0.minor.rc=3
gpu0.mig0.pci.rc=0
gpu0.mig0.pci=00000000:17:00.0 0000:17:00.0 0:17:0 0x233010de 0x16c110de
gpu0.mig0.brand=14 rc=0
gpu0.mig0.cc=9.0 rc=0
gpu0.mig0.mig_mode.rc=3
gpu0.mig0.mig_max.rc=3
gpu0.mig0.gi=1
gpu0.mig0.ci=0
gpu0.mig1.name=NVIDIA H100 80GB HBM3 MIG 3g.40gb
gpu0.mig1.uuid=MIG-11111111-2222-3333-4444-000000000001
gpu0.mig1.minor.rc=3
gpu0.mig1.pci.rc=0
gpu0.mig1.pci=00000000:17:00.0 0000:17:00.0 0:17:0 0x233010de 0x16c110de
gpu0.mig1.brand=14 rc=0
gpu0.mig1.cc=9.0 rc=0
gpu0.mig1.mig_mode.rc=3
gpu0.mig1.mig_max.rc=3
gpu0.mig1.gi=2
gpu0.mig1.ci=0
gpu0.mig_end=2 rc=6
gpu1.name=NVIDIA A100-SXM4-40GB
gpu1.uuid=GPU-11111111-2222-3333-4444-555555555551
gpu1.minor=1
gpu1.pci.rc=0
gpu1.pci=00000000:2a:00.0 0000:2a:00.0 0:2a:0 0x20b010de 0x16c110de
gpu1.brand=2 rc=0
gpu1.cc=8.0 rc=0
gpu1.mig_mode.rc=3
gpu1.mig_max=0
gpu1.gi.rc=3
gpu1.ci.rc=3
gpu1.uuid.small.rc=7
gpu1.name.small.rc=7
gpu1.mig_end=0 rc=3
error_string.18=driver/library version mismatch
error_string.9=Driver Not Loaded
shutdown.rc=0
after_shutdown.count.rc=1" "$(probe "$WORK/mig")"

# Every brand name of request.md §10.4 maps to its nvmlBrandType_t value.
brands=(Unknown Quadro Tesla NVS GRID GeForce TITAN VApps VPC VCS VWS CloudGaming QuadroRTX
        NvidiaRTX Nvidia GeForceRTX TitanRTX)
{
  echo "driver_version = 550.54.14"
  for i in "${!brands[@]}"; do
    printf 'gpu = minor=%d; bus=00000000:%02x:00.0; uuid=GPU-%d; model=M; brand=%s; arch=7.5; mig=disabled\n' \
      "$i" $((16 + i)) "$i" "${brands[$i]}"
  done
} > "$WORK/brands.conf"
build_root "$WORK/brands.conf" "$WORK/brands"
out="$(probe "$WORK/brands")"
expect_eq "count of the brands topology" "count=17 rc=0" "$(grep '^count=' <<< "$out")"
for i in "${!brands[@]}"; do
  expect_eq "brand ${brands[$i]}" "gpu$i.brand=$i rc=0" "$(grep "^gpu$i.brand=" <<< "$out")"
done
expect_eq "disabled MIG: mode 0/0" "gpu0.mig_mode=0/0" "$(grep '^gpu0.mig_mode' <<< "$out")"
expect_eq "disabled MIG: no MIG devices" "gpu0.mig_end=0 rc=6" "$(grep "^gpu0.mig_end" <<< "$out")"

# The root comes from the library's own location, also through a relative LD_LIBRARY_PATH.
out="$(cd "$WORK/mig" && LD_LIBRARY_PATH="$LIB64" "$ARTIFACTS/bin/nvct-mock-nvml-probe")"
expect_eq "relative library path finds the root" "count=2 rc=0" "$(grep '^count=' <<< "$out")"

# A root without a driver (no proc/driver/nvidia/version): "Driver Not Loaded".
rm "$WORK/mig/proc/driver/nvidia/version"
expect_eq "no version file" "init.rc=9 (Driver Not Loaded)" "$(probe "$WORK/mig" | grep '^init' || true)"

# A device cgroup that denies /dev/nvidiaN (e.g. after systemctl daemon-reload, EPERM on open)
# is "Unknown Error", as with the real driver. Needs root to create a node we cannot open.
if ((EUID == 0)); then
  build_root one-gpu "$WORK/denied"
  if command -v unshare > /dev/null && [[ -d /sys/fs/cgroup/devices ]]; then
    cg="/sys/fs/cgroup/devices/nvct-mock-test-$$"
    mkdir "$cg"
    trap 'rmdir "$cg" 2>/dev/null; rm -rf "$WORK"' EXIT
    echo 'c 195:0 rwm' > "$cg/devices.deny"
    out="$(sh -c 'echo $$ > "$1/cgroup.procs"; LD_LIBRARY_PATH="$2" exec "$3"' _ "$cg" \
           "$WORK/denied/$LIB64" "$ARTIFACTS/bin/nvct-mock-nvml-probe" | grep '^init' || true)"
    expect_eq "denied GPU node" "init.rc=999 (Unknown Error)" "$out"
  else
    fail "no cgroup v1 devices controller: cannot test a denied device node"
  fi
else
  fail "the denied-node case needs root"
fi

finish
