#!/usr/bin/env bash
# Podman 4.3 (Debian 12) consumes the spec `nvidia-ctk cdi generate` writes: `podman run --device
# nvidia.com/gpu=0` and `=all` on the MIG mock driver see the same /dev/nvidia* nodes, x86-64
# libraries (ldconfig -p), real driver files and nvidia-smi GPU list as the same request through
# the nvct shim in legacy mode (NVIDIA_DRIVER_CAPABILITIES=all).
#
# Podman runs with its own storage (--root/--runroot under the temp dir, vfs driver), its own
# containers.conf (CONTAINERS_CONF: default_ulimits = [], cgroupfs, file events, runc), no
# network, and an image imported from a local glibc rootfs tarball. Podman 4.3 has no
# --cdi-spec-dir and its containers/common (0.50) has no cdi_spec_dirs setting, so the spec goes
# to /etc/cdi under a unique file name, removed by the exit trap.
#
# As in e2e_cdi_modes.sh, a createContainer hook (test plumbing, given to Podman with
# --hooks-dir) copies the mock root's proc/driver/nvidia into the container's /proc/driver tmpfs:
# the mock host has no nvidia kernel module to provide it.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"

require_cmd podman tar
gpu_setup mig
CTK="$(nvct_bin nvidia-ctk)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"

# --- the spec in /etc/cdi -----------------------------------------------------------------------
SPEC="/etc/cdi/nvct-e2e-$$.yaml"
if ls /etc/cdi/*.yaml /etc/cdi/*.json /var/run/cdi/*.yaml /var/run/cdi/*.json >/dev/null 2>&1 &&
  grep -ls 'kind: nvidia.com/gpu\|"kind":"nvidia.com/gpu"' /etc/cdi/* /var/run/cdi/* >/dev/null 2>&1; then
  e2e_die "another nvidia.com/gpu CDI spec is installed in /etc/cdi or /var/run/cdi; it would conflict"
fi
mkdir -p /etc/cdi
e2e_on_exit "rm -f '$SPEC'; rmdir /etc/cdi 2>/dev/null"
# The legacy list of driver libraries, so that the containers can be compared with legacy mode.
"$CTK" cdi generate --driver-root "$GPU_ROOT" --nvidia-cdi-hook-path "$CDI_HOOK" --output "$SPEC" \
  --feature-flag enable-explicit-driver-libraries 2>"$E2E_TMP/generate.err" ||
  e2e_die "cdi generate failed: $(cat "$E2E_TMP/generate.err")"
check_eq "spec version is one Podman 4.3 accepts" "cdiVersion: 0.5.0" "$(grep '^cdiVersion' "$SPEC")"

# --- podman with private state ------------------------------------------------------------------
PM="$E2E_TMP/podman"
mkdir -p "$PM/hooks.d"
cat >"$PM/containers.conf" <<'TOML'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
TOML
export CONTAINERS_CONF="$PM/containers.conf"
PODMAN=(podman --root "$PM/root" --runroot "$PM/runroot" --storage-driver vfs --hooks-dir "$PM/hooks.d")
e2e_on_exit "podman --root '$PM/root' --runroot '$PM/runroot' --storage-driver vfs rm -af; podman --root '$PM/root' --runroot '$PM/runroot' --storage-driver vfs rmi -af; umount -R '$PM/root' '$PM/runroot'"

cat >"$PM/procfs-hook.sh" <<SH
#!/bin/sh
# Test plumbing: the kernel driver's /proc/driver/nvidia, which the mock host does not have.
bundle="\$(jq -r .bundle)"
root="\$(jq -r .root.path "\$bundle/config.json")"
case "\$root" in /*) ;; *) root="\$bundle/\$root" ;; esac
cp -a "$GPU_ROOT/proc/driver/nvidia" "\$root/proc/driver/"
SH
jq -n --arg s "$PM/procfs-hook.sh" \
  '{version:"1.0.0", hook:{path:"/bin/sh", args:["sh",$s], env:["PATH=/usr/bin:/bin"]},
    when:{always:true}, stages:["createContainer"]}' >"$PM/hooks.d/procfs.json"

make_rootfs "$PM/rootfs" glibc
printf '%s' "$GPU_REPORT" >"$PM/rootfs/report.sh"
rootfs_tar "$PM/rootfs" "$PM/rootfs.tar"
"${PODMAN[@]}" import "$PM/rootfs.tar" localhost/nvct-e2e-gpu:latest >"$E2E_TMP/import.log" 2>&1 ||
  e2e_die "podman import failed: $(tail -3 "$E2E_TMP/import.log")"

view() {
  local out="$1"
  echo "nodes: $(gpu_nodes "$out")"
  # libnvidia-nvvm70 is CDI-only content (cdi.md §6.3): legacy mode does not mount it.
  gpu_field "$out" lib | sed '/^libnvidia-nvvm70\.so/d' | sort
  gpu_field "$out" real
  echo "smirc: $(gpu_field "$out" smirc)"
  echo "gpus: $(gpu_smi_gpus "$out")"
}

compare_with_legacy() {
  local case="$1" request="$2" out="$E2E_TMP/podman-$1.out"
  local b="$E2E_TMP/b-legacy-$case"
  gpu_bundle "$b" "NVIDIA_VISIBLE_DEVICES=$request" NVIDIA_DRIVER_CAPABILITIES=all
  gpu_run "$b" "legacy-$case" || failed "$case: legacy run failed: $(tr '\n' ' ' <"$E2E_TMP/legacy-$case.err")"
  if timeout 120 "${PODMAN[@]}" run --rm --network none --device "nvidia.com/gpu=$request" \
    --mount type=tmpfs,destination=/proc/driver localhost/nvct-e2e-gpu:latest sh /report.sh \
    >"$out" 2>"$E2E_TMP/podman-$case.err"; then
    check "$case: podman container ran to the end" grep -qx "done" "$out"
  else
    failed "$case: podman run --device nvidia.com/gpu=$request failed: $(tr '\n' ' ' <"$E2E_TMP/podman-$case.err")"
  fi
  view "$E2E_TMP/legacy-$case.out" >"$E2E_TMP/view-legacy-$case"
  view "$out" >"$E2E_TMP/view-podman-$case"
  check "$case: legacy view has libcuda.so.1" grep -q "^libcuda.so.1 " "$E2E_TMP/view-legacy-$case"
  if same_file "$E2E_TMP/view-legacy-$case" "$E2E_TMP/view-podman-$case"; then
    pass "$case: podman --device nvidia.com/gpu=$request gives the legacy container view"
  else
    failed "$case: podman view differs from legacy: $(diff "$E2E_TMP/view-legacy-$case" "$E2E_TMP/view-podman-$case" | tr '\n' ' ')"
  fi
}

compare_with_legacy gpu0 0
compare_with_legacy all all
check_eq "all: nvidia-smi in podman lists both GPUs" 2 \
  "$(gpu_field "$E2E_TMP/podman-all.out" smi | grep -c '^GPU ')"

e2e_finish
