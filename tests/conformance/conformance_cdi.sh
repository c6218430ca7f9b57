#!/usr/bin/env bash
# `nvidia-ctk cdi generate` of nvct and of the toolkit 1.13.1 on the same mock driver roots (the
# peer's NVML is the root's mock, found through LD_LIBRARY_PATH): for every device name and the
# common edits, the device nodes and the mounts (container path <- host path) must be equal,
# except the additions of the later toolkit that docs/deviations.md lists (the MPS directory,
# nvidia-imex/nvidia-imex-ctl, libnvidia-nvvm70, the Xorg modules), which are dropped from nvct's
# side before comparing; and the spec must name the same devices. Hooks differ by design (the
# peer calls `nvidia-ctk hook`, nvct `nvidia-cdi-hook`, later hook set) and are not compared.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/lib/peers.sh"
require_root
require_cmd jq
peers_require
# The toolkit reads MIG minors from the host's /proc and DRM nodes from the host's /sys: run in
# a private mount namespace where the mock root's proc/devices, proc/driver and
# sys/bus/pci/devices are bound over the host's (nvct reads the driver root's own sysfs when it
# has one, docs/deviations.md).
peers_enter "$0" "$@"
ctk="$(nvct_bin nvidia-ctk)"

# The later toolkit's additions (docs/deviations.md, "Behaviour of a later toolkit").
later='/tmp/nvidia-mps$|/nvidia-imex$|/nvidia-imex-ctl$|libnvidia-nvvm70\.so|/xorg/modules/'
grep -qF "nvidia-imex-ctl" "$NVCT_SOURCE_DIR/docs/deviations.md" ||
  e2e_die "docs/deviations.md does not list the differences this test drops (nvidia-imex-ctl)"

# edits <spec.json> <root>: "<device> node|mount <paths>" lines, sorted.
edits() {
  jq -r --arg root "$2" '
    def paths: (.containerEdits.deviceNodes // [] | map("node " + .path)) +
               (.containerEdits.mounts // [] | map("mount " + .containerPath + " <- " +
                 (.hostPath | ltrimstr($root))));
    ((.devices // [])[] | .name as $n | paths[] | "\($n) \(.)"),
    (paths[] | "common \(.)")' "$1" | { grep -Ev "$later" || true; } | sort
}

cases=0
for topo in one-gpu mig eight-gpus graphics; do
  root="$E2E_TMP/root-$topo"
  peers_mock_root "$topo" "$root"
  mount --bind "$root/proc/devices" /proc/devices
  mount --bind "$root/proc/driver" /proc/driver
  sysfs=""
  if [ -d "$root/sys/bus/pci/devices" ]; then
    mount --bind "$root/sys/bus/pci/devices" /sys/bus/pci/devices
    sysfs=1
  fi
  cases=$((cases + 1))
  rc=0
  LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu" "$PEER_BIN/nvidia-ctk" cdi generate \
    --driver-root "$root" --format json --output "$E2E_TMP/peer.json" >"$E2E_TMP/peer.log" 2>&1 || rc=$?
  if [ "$rc" != 0 ]; then
    failed "$topo: NVIDIA's cdi generate failed: $(tail -2 "$E2E_TMP/peer.log")"
    umount /proc/driver /proc/devices
    [ -z "$sysfs" ] || umount /sys/bus/pci/devices
    continue
  fi
  "$ctk" cdi generate --driver-root "$root" --format json --output "$E2E_TMP/nvct.json" \
    >"$E2E_TMP/nvct.log" 2>&1 || failed "$topo: nvct's cdi generate failed: $(tail -2 "$E2E_TMP/nvct.log")"
  check_eq "$topo: same device names" "$(jq -r '[.devices[].name] | sort | join(" ")' "$E2E_TMP/peer.json")" \
    "$(jq -r '[.devices[].name] | sort | join(" ")' "$E2E_TMP/nvct.json")"
  edits "$E2E_TMP/peer.json" "$root" >"$E2E_TMP/peer.edits"
  edits "$E2E_TMP/nvct.json" "$root" >"$E2E_TMP/nvct.edits"
  [ "$topo" != graphics ] || check "graphics: the GPUs' DRM nodes are compared" grep -q ' node /dev/dri/renderD' "$E2E_TMP/peer.edits"
  if same_file "$E2E_TMP/peer.edits" "$E2E_TMP/nvct.edits"; then
    pass "$topo: device nodes and mounts equal the toolkit's ($(wc -l <"$E2E_TMP/nvct.edits") edits)"
  else
    failed "$topo: device nodes and mounts differ:
$(diff -u "$E2E_TMP/peer.edits" "$E2E_TMP/nvct.edits" | tail -n +3 | head -40)"
  fi
  umount /proc/driver
  umount /proc/devices
  [ -z "$sysfs" ] || umount /sys/bus/pci/devices
done
# A root whose NVML cannot be loaded: the toolkit fails, nvct generates from procfs
# (docs/deviations.md, "an NVML library that cannot be used").
root="$E2E_TMP/root-no-nvml"
peers_mock_root no-nvml "$root"
cases=$((cases + 1))
peer_out="$(LD_LIBRARY_PATH="$root/usr/lib/x86_64-linux-gnu" "$PEER_BIN/nvidia-ctk" cdi generate \
  --driver-root "$root" --format json --output "$E2E_TMP/peer.json" 2>&1 || true)"
check_contains "no-nvml: the toolkit fails to initialise NVML" "failed to initalize NVML" "$peer_out"
check "no-nvml: the difference is listed" grep -qF "an NVML library that cannot be used" \
  "$NVCT_SOURCE_DIR/docs/deviations.md"
"$ctk" cdi generate --driver-root "$root" --format json --output "$E2E_TMP/nvct.json" \
  >"$E2E_TMP/nvct.log" 2>&1 || failed "no-nvml: nvct's cdi generate failed: $(tail -2 "$E2E_TMP/nvct.log")"
check_eq "no-nvml: nvct's spec has the procfs GPU (index names, as on the NVML roots)" "0 all" \
  "$(jq -r '[.devices[].name] | sort | join(" ")' "$E2E_TMP/nvct.json")"
echo "# conformance_cdi: $cases roots compared"
e2e_finish
