#!/usr/bin/env bash
# wsl = yes (topologies/wsl.conf): libdxcore.so in usr/lib/wsl/lib and in the root's ld.so.cache,
# one driver store with the NVIDIA user-mode files and their sonames, /dev/dxg 10:63, and none
# of a Linux driver's files (procfs, /dev/nvidia*, lib64 libraries); gpu lines are refused.
source "$(dirname "$0")/lib/common.sh"

root="$WORK/root"
build_root wsl "$root" > /dev/null 2>&1 || { fail "wsl root build failed"; finish; }
store="$root/usr/lib/wsl/drivers/nv_dispi.inf_amd64_5b2a7c0e9d1f4a36"

soname() { readelf -d "$1" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p'; }
expect_eq "libdxcore.so soname" "libdxcore.so" "$(soname "$root/usr/lib/wsl/lib/libdxcore.so")"
for pair in libcuda.so.1.1:libcuda.so.1 libcuda_loader.so:libcuda_loader.so \
            libnvidia-ptxjitcompiler.so.1:libnvidia-ptxjitcompiler.so.1 \
            libnvidia-ml.so.1:libnvidia-ml.so.1 libnvidia-ml_loader.so:libnvidia-ml_loader.so \
            libnvdxgdmal.so.1:libnvdxgdmal.so.1; do
  expect_eq "store ${pair%%:*} soname" "${pair#*:}" "$(soname "$store/${pair%%:*}")"
done
expect "store nvidia-smi is executable" test -x "$store/nvidia-smi"
expect "store nvcubins.bin" test -s "$store/nvcubins.bin"
expect_eq "store holds exactly the eight files" \
  "libcuda.so.1.1 libcuda_loader.so libnvdxgdmal.so.1 libnvidia-ml.so.1 libnvidia-ml_loader.so libnvidia-ptxjitcompiler.so.1 nvcubins.bin nvidia-smi" \
  "$(ls "$store" | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')"
expect_eq "one driver store" "nv_dispi.inf_amd64_5b2a7c0e9d1f4a36" "$(ls "$root/usr/lib/wsl/drivers")"
cache="$(ldconfig -p -C "$root/etc/ld.so.cache" 2>/dev/null || true)"
expect "ld.so.cache lists libdxcore.so in /usr/lib/wsl/lib" \
  grep -q 'libdxcore.so .*=> /usr/lib/wsl/lib/libdxcore.so' <<< "$cache"
if ((EUID == 0)); then
  expect_eq "dev/dxg node" "character special file 10:63 666" \
    "$(stat -c '%F %Hr:%Lr %a' "$root/dev/dxg")"
else
  expect "dev/dxg placeholder (not root)" test -f "$root/dev/dxg"
fi
expect "no procfs" test ! -e "$root/proc"
expect_eq "dev has only dxg" "dxg" "$(ls "$root/dev")"
expect "no Linux driver libraries" test ! -e "$root/$LIB64"
expect "builder marker" test -f "$root/.nvct-mock-driver-root"

bad="$WORK/bad.conf"
printf 'wsl = yes\ngpu = minor=0; bus=00000000:17:00.0; uuid=GPU-1; model=M; brand=Nvidia; arch=9.0\n' > "$bad"
if err="$(build_root "$bad" "$WORK/bad" 2>&1)"; then fail "a wsl topology with gpu lines was accepted"
else expect_eq "gpu lines refused" 1 "$(grep -c 'a wsl root has no gpu or mig lines' <<< "$err")"; fi
printf 'wsl = maybe\n' > "$bad"
if err="$(build_root "$bad" "$WORK/bad" 2>&1)"; then fail "wsl = maybe was accepted"
else expect_eq "wsl value checked" 1 "$(grep -c "wsl must be yes or no" <<< "$err")"; fi

finish
