#!/usr/bin/env bash
# nvidia-container-cli device selection and error messages on the MIG mock root (GPU0: MIG
# gi1/ci0 and gi2/ci0; GPU1: no MIG): the acceptance cases of cli.md §8 and request.md §11.
source "$(dirname "$0")/lib/common.sh"
require_root

cli="$(nvct_bin nvidia-container-cli)"
make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
[ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"
root="$E2E_TMP/mig"
bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/mig.conf" --out "$root" \
  >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"

ctl=$'/dev/nvidiactl\n/dev/nvidia-uvm\n/dev/nvidia-uvm-tools\n/dev/nvidia-modeset'
gi2=$'/proc/driver/nvidia/capabilities/gpu0/mig/gi2/access\n/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access\n/dev/nvidia-caps/nvidia-cap21\n/dev/nvidia-caps/nvidia-cap22'

# expect_list <description> <expected stdout> <list args...>
expect_list() {
  local what="$1" want="$2"
  shift 2
  local got
  if got="$("$cli" --root "$root" list "$@" 2>"$E2E_TMP/err")"; then
    check_eq "$what" "$want" "$got"
  else
    failed "$what: exit status $? ($(cat "$E2E_TMP/err"))"
  fi
}
# expect_error <description> <expected stderr line> <cli args...>: exit 1, nothing on stdout.
expect_error() {
  local what="$1" want="$2" rc=0
  shift 2
  "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
  check_eq "$what: exit status" 1 "$rc"
  check_eq "$what: message" "$want" "$(cat "$E2E_TMP/err")"
  check_eq "$what: no output" "" "$(cat "$E2E_TMP/out")"
}

expect_list "index 1" "$ctl"$'\n/dev/nvidia1' --device=1
expect_list "empty items are skipped" "$ctl"$'\n/dev/nvidia1' --device=,1,,
expect_list "G:M selects the MIG device and its parent" "$ctl"$'\n/dev/nvidia0\n'"$gi2" --device=0:1
expect_list "MIG UUID" "$ctl"$'\n/dev/nvidia0\n'"$gi2" --device=MIG-11111111-2222-3333-4444-000000000001
expect_list "GPU UUID, case-insensitive" "$ctl"$'\n/dev/nvidia1' --device=gpu-11111111-2222-3333-4444-555555555551
for pci in 0000:2a:00.0 0:2a:0.0 00000000:2a:00.0 00000000:2A:00.0; do
  expect_list "PCI bus id $pci" "$ctl"$'\n/dev/nvidia1' --device="$pci"
done
expect_list "duplicates are ignored" "$ctl"$'\n/dev/nvidia1' -d 1 -d GPU-11111111-2222-3333-4444-555555555551
# libnvidia-container's order (the mock root's /proc/devices lists nvidia-caps, DEV style): the
# config file and its node, then GPU0's directory, /dev/nvidia-caps and the nodes of GPU0's 15 GIs
# and their 8 CIs each from mig-minors (cap3..cap137).
want="$ctl"$'\n/dev/nvidia0\n/proc/driver/nvidia/capabilities/mig/config\n/dev/nvidia-caps/nvidia-cap1\n/proc/driver/nvidia/capabilities/gpu0\n/dev/nvidia-caps'
want+="$(for m in $(seq 3 137); do printf '\n/dev/nvidia-caps/nvidia-cap%s' "$m"; done)"
expect_list "mig-config=all on GPU0" "$want" --device=0 --mig-config=all
expect_list "mig-config=all on a GPU without MIG does nothing" "$ctl"$'\n/dev/nvidia1' --device=1 --mig-config=all
got="$("$cli" --root "$root" list --imex-channel=1 | grep imex || true)"
check_eq "only --imex-channel lists everything plus the channel" "/dev/nvidia-caps-imex-channels/channel1" "$got"
expect_list "binaries only" $'/usr/bin/nvidia-smi\n/usr/bin/nvidia-debugdump\n/usr/bin/nvidia-persistenced\n/usr/bin/nv-fabricmanager\n/usr/bin/nvidia-cuda-mps-control\n/usr/bin/nvidia-cuda-mps-server' -b
expect_list "ipcs without persistenced" $'/tmp/nvidia-mps' -i --no-persistenced
expect_list "no firmware with --no-gsp-firmware" "" -f --no-gsp-firmware

# The reference's line, then where the list came from and the devices to choose from.
valid="(from --device); valid devices: 0 (GPU-11111111-2222-3333-4444-555555555550), 1 (GPU-11111111-2222-3333-4444-555555555551), 0:0 (MIG-11111111-2222-3333-4444-000000000000), 0:1 (MIG-11111111-2222-3333-4444-000000000001), or all"
for bad in 2a:00.0 5 GPU-1111 -1 99 GPU-nope ../../sda MIG- MIG-garbage 0:2 1:0 0x1 1.0; do
  expect_error "--device=$bad" "nvidia-container-cli: device error: $bad: unknown device $valid" \
    "$cli" --root "$root" list --device="$bad"
done
many="$(printf '0,%.0s' $(seq 1 10000))nope"
expect_error "10k items then garbage fail closed" "nvidia-container-cli: device error: nope: unknown device $valid" \
  "$cli" --root "$root" list --device="$many"
expect_error "mig-config with a MIG device" \
  "nvidia-container-cli: mig-config error: all: cannot enable mig-config with specific MIG devices selected" \
  "$cli" --root "$root" list --device=0:1 --mig-config=all
expect_error "mig-monitor other than all" \
  "nvidia-container-cli: mig-monitor error: 0: only 'all' devices are currently supported" \
  "$cli" --root "$root" list --device=0 --mig-monitor=0
expect_error "IMEX channel out of range" \
  "nvidia-container-cli: error parsing IMEX info: unsupported IMEX channel value: 1048576" \
  "$cli" --root "$root" list --imex-channel=1048576
# A channel whose node is missing is listed all the same, as libnvidia-container does (configure
# --load-kmods creates it; configure without it fails on the node).
check_eq "IMEX channel missing under the root: listed, exit 0" \
  "/dev/nvidia-caps-imex-channels/channel7|0" \
  "$("$cli" --root "$root" list --imex-channel=7 | grep imex-channels)|$?"
mkdir -p "$E2E_TMP/empty"
expect_error "no driver" \
  "nvidia-container-cli: initialization error: load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory" \
  "$cli" --root "$E2E_TMP/empty" info
printf 'ld.so-1.7.0\0\0\0\0\0' >"$E2E_TMP/old.cache"
cp "$E2E_TMP/old.cache" "$root/etc/old.cache"
expect_error "old-format-only ldcache" \
  "nvidia-container-cli: detection error: unsupported file format: /etc/old.cache" \
  "$cli" --root "$root" --ldcache /etc/old.cache list -l

version="$("$cli" --version)"
for field in cli-version lib-version "build date" "build revision" "build compiler" "build platform" "build flags"; do
  check_contains "--version prints $field" "$field: " "$version"
done
e2e_finish
