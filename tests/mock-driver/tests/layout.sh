#!/usr/bin/env bash
# The one-gpu driver root has every file of driver.md §2-§6 and §12: libraries with the right
# sonames in a root-relative ld.so.cache, binaries, firmware, IPC sockets, procfs, device nodes.
source "$(dirname "$0")/lib/common.sh"

root="$WORK/root"
# The brief: < 2 s per root. Measured as CPU time (user + sys, children included) so that a CI
# machine busy with parallel builds does not make the check flaky; wall time is printed too.
TIMEFORMAT='%R %U %S'
timing="$( { time build_root one-gpu "$root" > /dev/null 2>&1; } 2>&1 )"
read -r wall user sys <<< "$timing"
cpu_ms="$(awk -v u="$user" -v s="$sys" 'BEGIN {printf "%d", (u + s) * 1000}')"
echo "one-gpu root built in ${wall}s wall, ${cpu_ms} ms CPU"
expect "one-gpu root exists" test -f "$root/etc/ld.so.cache"
expect "builder took ${cpu_ms} ms CPU (limit 2000)" test "$cpu_ms" -lt 2000

V=550.54.14
cache="$(ldconfig -p -C "$root/etc/ld.so.cache")"
m32_built=0; [[ -d "$ARTIFACTS/lib32" ]] && m32_built=1
echo "32-bit libraries built: $m32_built"

while read -r stem soname_suffix file_suffix _group m32 needed; do
  soname="$stem.so.${soname_suffix/@V/$V}"
  file="$stem.so.${file_suffix/@V/$V}"; [[ "$file_suffix" == - ]] && file="$soname"
  dirs=("$LIB64"); [[ $m32_built == 1 && "$m32" == yes ]] && dirs+=("$LIB32")
  for dir in "${dirs[@]}"; do
    path="$root/$dir/$file"
    expect "$dir/$file exists" test -f "$path"
    actual="$(readelf -d "$path" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')"
    expect_eq "soname of $dir/$file" "$soname" "$actual"
    if [[ "$soname" != "$file" ]]; then
      expect_eq "$dir/$soname links to $file" "$file" "$(readlink "$root/$dir/$soname")"
    fi
    expect "ld.so.cache lists /$dir/$soname" grep -qF "$soname " <<< "$(grep -F "=> /$dir/$soname" <<< "$cache")"
    if [[ "$needed" != - ]]; then
      expect "$dir/$file has DT_NEEDED $needed.so.$V" \
        grep -qF "Shared library: [$needed.so.$V]" <<< "$(readelf -d "$path")"
    fi
  done
done < <(list_rows)

# Arch flags: 64-bit entries are x86-64, 32-bit ones are not.
expect "libcuda.so.1 is cached as x86-64" grep -qF \
  "libcuda.so.1 (libc6,x86-64) => /$LIB64/libcuda.so.1" <<< "$cache"
if ((m32_built)); then
  expect "32-bit libcuda is an i386 ELF" grep -q "Intel 80386" <<< "$(readelf -h "$root/$LIB32/libcuda.so.$V")"
  expect "32-bit libcuda.so.1 is cached without x86-64" grep -qE \
    "libcuda.so.1 \((libc6|ELF)\) => /$LIB32/libcuda.so.1" <<< "$cache"
fi
expect_eq "no cache path carries the host prefix" "" "$(grep -F "=> $root" <<< "$cache" || true)"
expect "decoy libnvidia-fbc of 535.00.01 is in the cache" grep -qF \
  "libnvidia-fbc.so.1 (libc6,x86-64) => /opt/nvidia-535.00.01/lib/libnvidia-fbc.so.1" <<< "$cache"
expect_eq "decoy link target" libnvidia-fbc.so.535.00.01 \
  "$(readlink "$root/opt/nvidia-535.00.01/lib/libnvidia-fbc.so.1")"
expect "libnvidia-tls carries the GNU ABI tag 2.3.99" grep -q "OS: Linux, ABI: 2.3.99" \
  <<< "$(readelf -n "$root/$LIB64/libnvidia-tls.so.$V")"
expect "no WSL libdxcore (would make mode=auto pick WSL)" test ! -e "$root/$LIB64/libdxcore.so"

# The mock NVML and nvidia-smi need nothing but libc (they run in a busybox rootfs).
for f in "$LIB64/libnvidia-ml.so.$V" usr/bin/nvidia-smi; do
  expect_eq "NEEDED of $f" "libc.so.6" \
    "$(readelf -d "$root/$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ' | sed 's/ $//')"
done
expect_eq "ldd of nvidia-smi: libc and the loader only" "ld-linux-x86-64.so.2 libc.so.6 linux-vdso.so.1" \
  "$(ldd "$root/usr/bin/nvidia-smi" | awk '{print $1}' | xargs -n1 basename | sort | tr '\n' ' ' |
     sed 's/ $//')"
exported="$(readelf --dyn-syms -W "$root/$LIB64/libnvidia-ml.so.$V" |
            awk '$5 == "GLOBAL" && $7 != "UND" {print $8}' | sort | tr '\n' ' ')"
expect_eq "the mock NVML exports the 18 symbols of driver.md §11.3 and the toolkit's nvmlDeviceIsMigDeviceHandle" \
  "nvmlDeviceGetBrand nvmlDeviceGetComputeInstanceId nvmlDeviceGetCount_v2 nvmlDeviceGetCudaComputeCapability nvmlDeviceGetGpuInstanceId nvmlDeviceGetHandleByIndex_v2 nvmlDeviceGetMaxMigDeviceCount nvmlDeviceGetMigDeviceHandleByIndex nvmlDeviceGetMigMode nvmlDeviceGetMinorNumber nvmlDeviceGetName nvmlDeviceGetPciInfo nvmlDeviceGetUUID nvmlDeviceIsMigDeviceHandle nvmlErrorString nvmlInit_v2 nvmlShutdown nvmlSystemGetCudaDriverVersion nvmlSystemGetDriverVersion " \
  "$exported"

# Binaries (driver.md §3) and firmware (§5).
for bin in nvidia-smi nvidia-debugdump nvidia-persistenced nv-fabricmanager \
           nvidia-cuda-mps-control nvidia-cuda-mps-server nvidia-imex nvidia-imex-ctl; do
  expect "usr/bin/$bin is executable" test -x "$root/usr/bin/$bin"
done
expect_eq "GSP firmware" "gsp_ga10x.bin gsp_tu10x.bin" \
  "$(cd "$root/lib/firmware/nvidia/$V" && echo gsp*.bin)"

# IPC (§4): real sockets; /var/run is an absolute symlink that must be resolved in the root.
expect_eq "var/run is a symlink to /run" /run "$(readlink "$root/var/run")"
expect "persistenced socket is a socket" test -S "$root/run/nvidia-persistenced/socket"
expect "no fabric manager on one-gpu" test ! -e "$root/run/nvidia-fabricmanager"
expect "MPS pipe directory" test -d "$root/tmp/nvidia-mps" -a -S "$root/tmp/nvidia-mps/control"

# procfs (mount.md §7.1, driver.md §12).
P="$root/proc/driver/nvidia"
expect "version names the RM version" grep -q "Kernel Module  $V " "$P/version"
expect "params has ModifyDeviceFiles: 1" grep -qx "ModifyDeviceFiles: 1" "$P/params"
expect "registry exists" test -f "$P/registry"
info="$P/gpus/0000:17:00.0/information"
expect "GPU information under the 16-bit domain bus dir" test -f "$info"
expect "information has the UUID" grep -qP "^GPU UUID: \t GPU-11111111-2222-3333-4444-555555555550$" "$info"
expect "information has the minor" grep -qP "^Device Minor: \t 0$" "$info"
expect "information has the bus location" grep -qP "^Bus Location: \t 0000:17:00.0$" "$info"
expect_eq "mig config cap" "DeviceFileMinor: 1" "$(head -1 "$P/capabilities/mig/config")"
expect_eq "mig monitor cap" "DeviceFileMinor: 2" "$(head -1 "$P/capabilities/mig/monitor")"
expect_eq "IMEX management cap" "DeviceFileMinor: 4323" \
  "$(head -1 "$P/capabilities/fabric-imex-mgmt")"
expect "mig-minors lists gpu0/gi1/ci0 as 13" grep -qx "gpu0/gi1/ci0/access 13" \
  "$root/proc/driver/nvidia-caps/mig-minors"

# proc/devices (§6) and device nodes.
devices="$root/proc/devices"
major_of() { awk -v n="$1" '/^Character devices:/{on=1; next} /^$/{on=0} on && $2 == n {print $1; exit}' "$devices"; }
expect_eq "nvidia major" 195 "$(major_of nvidia)"
uvm="$(major_of nvidia-uvm)" caps="$(major_of nvidia-caps)" imex="$(major_of nvidia-caps-imex-channels)"
expect "uvm, caps and imex majors are distinct and set" test -n "$uvm" -a -n "$caps" -a -n "$imex" \
  -a "$uvm" != "$caps" -a "$caps" != "$imex"
if [[ "$(id -u)" != 0 ]]; then
  fail "device nodes need root (mknod); run this test as root"
else
  node_is() { # <path> <major:minor>
    expect_eq "dev/$1 is a char device $2" "character special file $2" \
      "$(stat -c '%F %Hr:%Lr' "$root/dev/$1" 2>&1)"
  }
  node_is nvidiactl 195:255
  node_is nvidia-modeset 195:254
  node_is nvidia0 195:0
  node_is nvidia-uvm "$uvm:0"
  node_is nvidia-uvm-tools "$uvm:1"
  node_is nvidia-caps/nvidia-cap1 "$caps:1"
  node_is nvidia-caps/nvidia-cap2 "$caps:2"
  node_is nvidia-caps-imex-channels/channel0 "$imex:0"
  node_is nvidia-caps-imex-channels/channel1 "$imex:1"
  node_is nvidia-caps/nvidia-cap4323 "$caps:4323"
  expect "only one GPU node" test ! -e "$root/dev/nvidia1"
fi

# Idempotent: a second build replaces the first, stray files included.
touch "$root/stray"
build_root one-gpu "$root"
expect "rebuild removed the stray file" test ! -e "$root/stray"
expect "rebuild is complete" test -f "$root/etc/ld.so.cache"
# ... but it never deletes a directory it did not make.
mkdir -p "$WORK/precious"; touch "$WORK/precious/data"
expect "refuses to replace a foreign directory" bash -c "! '$BUILDER' --topology '$TOPOLOGIES/one-gpu.conf' --out '$WORK/precious' --build-dir '$NVCT_BUILD_DIR' 2>/dev/null"
expect "foreign directory untouched" test -f "$WORK/precious/data"

finish
