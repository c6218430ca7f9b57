#!/usr/bin/env bash
# `nvidia-ctk cdi generate` flags on the MIG mock driver (cdi.md §6.1-§6.3, config.md §3):
# --feature-flag (and its env variables) with each nvcdi flag's effect, device node GIDs in
# additionalGids (cdiVersion 0.7.0), the CDI-only libraries (every *.so.<version>, vdpau,
# libnvidia-nvvm70), --library-search-path, and the --mode values gds, mofed, gdrcopy,
# nvswitch, imex, management and csv (a test-made Tegra root), --config-search-path. Then the runtime's gated modes (runtime.md §7.4):
# NVIDIA_GDRCOPY=enabled adds /dev/gdrdrv in jit-cdi and legacy mode (checked in config.json
# after `create`).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"

gpu_setup mig
CTK="$(nvct_bin nvidia-ctk)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"
VERSION=550.54.14

gen() { "$CTK" cdi generate --driver-root "$GPU_ROOT" --nvidia-cdi-hook-path "$CDI_HOOK" "$@"; }
# mount container paths of a JSON spec, one per line
mounts() { jq -r '[.containerEdits.mounts[]?.containerPath] | .[]' "$1"; }

# --- libraries ----------------------------------------------------------------------------------
gen --format json >"$E2E_TMP/default.json" 2>"$E2E_TMP/default.err" ||
  e2e_die "cdi generate failed: $(cat "$E2E_TMP/default.err")"
LIBDIR="$(dirname "$(mounts "$E2E_TMP/default.json" | grep "/libcuda.so.$VERSION\$")")"
[ -n "$LIBDIR" ] && [ "$LIBDIR" != . ] || e2e_die "no libcuda mount in the default spec"
check_eq "default spec needs only cdiVersion 0.5.0" 0.5.0 "$(jq -r .cdiVersion "$E2E_TMP/default.json")"
check "libnvidia-nvvm70.so.4 is mounted" grep -qx "$LIBDIR/libnvidia-nvvm70.so.4" <(mounts "$E2E_TMP/default.json")
check "every *.so.$VERSION of the ldcache (libnvidia-gtk3) without explicit libraries" \
  grep -qx "$LIBDIR/libnvidia-gtk3.so.$VERSION" <(mounts "$E2E_TMP/default.json")
gen --format json --feature-flag enable-explicit-driver-libraries >"$E2E_TMP/explicit.json" 2>/dev/null ||
  failed "--feature-flag enable-explicit-driver-libraries failed"
check "enable-explicit-driver-libraries drops libnvidia-gtk3" \
  bash -c "! grep -q libnvidia-gtk3 <(jq -r '.containerEdits.mounts[].containerPath' '$E2E_TMP/explicit.json')"
check "enable-explicit-driver-libraries keeps nvvm70 and libcuda" \
  grep -qx "$LIBDIR/libnvidia-nvvm70.so.4" <(mounts "$E2E_TMP/explicit.json")
NVIDIA_CTK_CDI_FEATURE_FLAGS=enable-explicit-driver-libraries gen --format json >"$E2E_TMP/env.json" 2>/dev/null
check_eq "NVIDIA_CTK_CDI_FEATURE_FLAGS is the flag's env variable" \
  "$(mounts "$E2E_TMP/explicit.json")" "$(mounts "$E2E_TMP/env.json")"
NVIDIA_CTK_CDI_GENERATE_FEATURE_FLAGS=enable-explicit-driver-libraries gen --format json \
  >"$E2E_TMP/env2.json" 2>/dev/null
check_eq "NVIDIA_CTK_CDI_GENERATE_FEATURE_FLAGS (refresh env file) also works" \
  "$(mounts "$E2E_TMP/explicit.json")" "$(mounts "$E2E_TMP/env2.json")"
gen --format json --feature-flag not-a-flag >/dev/null 2>"$E2E_TMP/unknown.err" ||
  failed "an unknown feature flag must not fail the command"
check_contains "an unknown feature flag is a warning" "Ignoring unknown feature flag not-a-flag" \
  "$(cat "$E2E_TMP/unknown.err")"

mkdir -p "$GPU_ROOT/opt/extra"
cp "$GPU_ROOT$LIBDIR/libcuda.so.$VERSION" "$GPU_ROOT/opt/extra/libnvidia-extra.so.$VERSION"
gen --format json --library-search-path /opt/extra >"$E2E_TMP/search.json" 2>/dev/null ||
  failed "--library-search-path failed"
check "--library-search-path adds its *.so.$VERSION" \
  grep -qx "/opt/extra/libnvidia-extra.so.$VERSION" <(mounts "$E2E_TMP/search.json")
check "without --library-search-path the directory is not used" \
  bash -c "! grep -q /opt/extra <(jq -r '.containerEdits.mounts[].containerPath' '$E2E_TMP/default.json')"

# --- IPC ----------------------------------------------------------------------------------------
check "persistenced socket mounted by default" \
  grep -q "nvidia-persistenced/socket" <(mounts "$E2E_TMP/default.json")
gen --format json --feature-flag disable-ipc-discoverer >"$E2E_TMP/noipc.json" 2>/dev/null
check "disable-ipc-discoverer drops the socket mounts" \
  bash -c "! grep -q -e persistenced/socket -e nvidia-mps <(jq -r '.containerEdits.mounts[].containerPath' '$E2E_TMP/noipc.json')"

# --- additionalGids -----------------------------------------------------------------------------
chgrp 44 "$GPU_ROOT/dev/nvidia1"
chmod 0660 "$GPU_ROOT/dev/nvidia1"
gen --format json >"$E2E_TMP/gids.json" 2>/dev/null || failed "generate with a group-only node failed"
check_eq "a group-only node raises cdiVersion to 0.7.0" 0.7.0 "$(jq -r .cdiVersion "$E2E_TMP/gids.json")"
check_eq "device 1 carries gid 44 and additionalGids [44]" '44 [44]' \
  "$(jq -c '.devices[] | select(.name == "1") | .containerEdits | "\(.deviceNodes[0].gid) \(.additionalGids)"' -r "$E2E_TMP/gids.json")"
check_eq "the all device carries additionalGids [44]" '[44]' \
  "$(jq -c '.devices[] | select(.name == "all") | .containerEdits.additionalGids' "$E2E_TMP/gids.json")"
gen --format json --feature-flag no-additional-gids-for-device-nodes >"$E2E_TMP/nogids.json" 2>/dev/null
check_eq "no-additional-gids-for-device-nodes: cdiVersion back to 0.5.0" 0.5.0 \
  "$(jq -r .cdiVersion "$E2E_TMP/nogids.json")"
check_eq "no-additional-gids-for-device-nodes: no additionalGids" 0 \
  "$(jq '[.. | objects | select(has("additionalGids"))] | length' "$E2E_TMP/nogids.json")"
chmod 0666 "$GPU_ROOT/dev/nvidia1"
chgrp 0 "$GPU_ROOT/dev/nvidia1"

# --- coherent annotations -----------------------------------------------------------------------
SPECS="$E2E_TMP/specs"
gen --output "$SPECS/nvidia.yaml" --feature-flag enable-coherent-annotations 2>/dev/null ||
  failed "enable-coherent-annotations failed"
check_eq "noncoherent spec written next to the output, 0644" 644 "$(stat -c %a "$SPECS/nvidia.noncoherent.yaml" 2>/dev/null)"
check_contains "noncoherent kind" "kind: nvidia.com/gpu.noncoherent" "$(cat "$SPECS/nvidia.noncoherent.yaml" 2>/dev/null)"
check_contains "cdi list reads both specs" "nvidia.com/gpu.noncoherent=1" \
  "$("$CTK" cdi list --spec-dir "$SPECS" 2>/dev/null)"

# --- modes --------------------------------------------------------------------------------------
mknod "$GPU_ROOT/dev/gdrdrv" c 508 0 && chmod 0666 "$GPU_ROOT/dev/gdrdrv"
mknod "$GPU_ROOT/dev/nvidia-fs0" c 240 0 && chmod 0666 "$GPU_ROOT/dev/nvidia-fs0"
mkdir -p "$GPU_ROOT/etc" && echo '{}' >"$GPU_ROOT/etc/cufile.json"
gen --mode gdrcopy --format json >"$E2E_TMP/gdrcopy.json" 2>"$E2E_TMP/gdrcopy.err" ||
  failed "--mode gdrcopy failed: $(cat "$E2E_TMP/gdrcopy.err")"
check_eq "gdrcopy: kind and one all device with /dev/gdrdrv" "nvidia.com/gdrcopy all /dev/gdrdrv" \
  "$(jq -r '"\(.kind) \(.devices[0].name) \(.devices[0].containerEdits.deviceNodes[0].path)"' "$E2E_TMP/gdrcopy.json")"
gen --mode gds --format json >"$E2E_TMP/gds.json" 2>/dev/null || failed "--mode gds failed"
check_eq "gds: nvidia-fs nodes and cufile.json" "nvidia.com/gds /dev/nvidia-fs0 /etc/cufile.json" \
  "$(jq -r '"\(.kind) \(.devices[0].containerEdits.deviceNodes[0].path) \(.devices[0].containerEdits.mounts[0].containerPath)"' "$E2E_TMP/gds.json")"
if gen --mode mofed >/dev/null 2>"$E2E_TMP/mofed.err"; then
  failed "--mode mofed without /dev/infiniband nodes should fail"
else
  check_contains "mofed without nodes: invalid spec" "generated spec is invalid" "$(cat "$E2E_TMP/mofed.err")"
fi
gen --mode imex --format json >"$E2E_TMP/imex.json" 2>/dev/null || failed "--mode imex failed"
check_eq "imex: a device per channel, then all" "0 1 all" \
  "$(jq -r '[.devices[].name] | join(" ")' "$E2E_TMP/imex.json")"
gen --mode management --enable-hook chmod --format json >"$E2E_TMP/mgmt.json" 2>/dev/null ||
  failed "--mode management failed"
check_eq "management: vendor management.nvidia.com, only the all device" "management.nvidia.com/gpu all" \
  "$(jq -r '"\(.kind) \([.devices[].name] | join(" "))"' "$E2E_TMP/mgmt.json")"
check_contains "management: all holds IMEX channels and MIG caps" \
  "/dev/nvidia-caps-imex-channels/channel0" "$(jq -r '.devices[0].containerEdits.deviceNodes[].path' "$E2E_TMP/mgmt.json")"
check_contains "management: chmod hook for /dev/nvidia-caps" '"chmod","--mode","755","--path","/dev/nvidia-caps"' \
  "$(jq -c '.containerEdits.hooks[].args' "$E2E_TMP/mgmt.json")"
# e2e_cdi_wsl.sh covers wsl mode on a WSL root; a Linux driver root has no driver store.
if gen --mode wsl >/dev/null 2>"$E2E_TMP/wsl.err"; then failed "--mode wsl should fail here"; else
  check_contains "--mode wsl on a Linux driver root names the missing driver store" \
    "no NVIDIA WSL driver store found" "$(cat "$E2E_TMP/wsl.err")"
fi

# --- csv mode (Tegra) on a test-made driver root ---------------------------------------------
TEGRA="$E2E_TMP/tegra"
mkdir -p "$TEGRA/dev" "$TEGRA/usr/lib/aarch64-linux-gnu/tegra" "$TEGRA/usr/share/nvidia" "$TEGRA/csv"
mknod "$TEGRA/dev/nvmap" c 10 3 && mknod "$TEGRA/dev/nvhost-ctrl" c 10 4 && mknod "$TEGRA/dev/nvhost-gpu" c 10 5
echo elf >"$TEGRA/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1"
ln -s libcuda.so.1.1 "$TEGRA/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1"
ln -s tegra/libcuda.so.1 "$TEGRA/usr/lib/aarch64-linux-gnu/libcuda.so"
printf '# devices\ndev, /dev/nvmap\n\n  dev ,  /dev/nvhost-*  \n' >"$TEGRA/csv/devices.csv"
printf 'lib, /usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1\nsym, /usr/lib/aarch64-linux-gnu/libcuda.so\ndir, /usr/share/nvidia\n' >"$TEGRA/csv/drivers.csv"
"$CTK" cdi generate --mode csv --driver-root "$TEGRA" --nvidia-cdi-hook-path "$CDI_HOOK" --format json \
  --csv.file "$TEGRA/csv/devices.csv" --csv.file "$TEGRA/csv/missing.csv" --csv.file "$TEGRA/csv/drivers.csv" \
  --csv.ignore-pattern 'nvhost-gpu' --csv.compat-container-root /usr/local/cuda/compat \
  >"$E2E_TMP/csv.json" 2>"$E2E_TMP/csv.err" || failed "--mode csv failed: $(cat "$E2E_TMP/csv.err")"
check_eq "csv: kind nvidia.com/gpu with only the all device" "nvidia.com/gpu all" \
  "$(jq -r '"\(.kind) \([.devices[].name] | join(" "))"' "$E2E_TMP/csv.json")"
check_eq "csv: dev rows (glob, ignore pattern) as char nodes" "/dev/nvmap:10:3 /dev/nvhost-ctrl:10:4" \
  "$(jq -r '[.devices[0].containerEdits.deviceNodes[] | "\(.path):\(.major):\(.minor)"] | join(" ")' "$E2E_TMP/csv.json")"
check_eq "csv: lib resolved to its file, dir mounted" \
  "/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1.1 /usr/share/nvidia" \
  "$(jq -r '[.devices[0].containerEdits.mounts[].containerPath] | join(" ")' "$E2E_TMP/csv.json")"
check_eq "csv: hooks in order" "create-symlinks enable-cuda-compat update-ldcache" \
  "$(jq -r '[.devices[0].containerEdits.hooks[].args[1]] | join(" ")' "$E2E_TMP/csv.json")"
check_contains "csv: lib chain and sym row become links" \
  '"--link","libcuda.so.1.1::/usr/lib/aarch64-linux-gnu/tegra/libcuda.so.1","--link","tegra/libcuda.so.1::/usr/lib/aarch64-linux-gnu/libcuda.so"' \
  "$(jq -c '.devices[0].containerEdits.hooks[0].args' "$E2E_TMP/csv.json")"
check_contains "csv: --csv.compat-container-root reaches enable-cuda-compat" \
  '--cuda-compat-container-root=/usr/local/cuda/compat' "$(jq -c '.devices[0].containerEdits.hooks[1].args' "$E2E_TMP/csv.json")"
check_contains "csv: update-ldcache folder" '"--folder","/usr/lib/aarch64-linux-gnu/tegra"' \
  "$(jq -c '.devices[0].containerEdits.hooks[2].args' "$E2E_TMP/csv.json")"
printf 'bogus, /x\n' >"$TEGRA/csv/bad.csv"
if "$CTK" cdi generate --mode csv --driver-root "$TEGRA" --csv.file "$TEGRA/csv/bad.csv" >/dev/null 2>"$E2E_TMP/csvbad.err"; then
  failed "--mode csv with an unknown row type should fail"
else
  check_contains "csv: unknown type names file and line" "$TEGRA/csv/bad.csv:1" "$(cat "$E2E_TMP/csvbad.err")"
fi

# --- --config-search-path -----------------------------------------------------------------------
mkdir -p "$GPU_ROOT/opt/nvconf/vulkan/icd.d" && echo '{}' >"$GPU_ROOT/opt/nvconf/vulkan/icd.d/nvidia_icd.json"
gen --format json --config-search-path /opt/nvconf >"$E2E_TMP/confsearch.json" 2>/dev/null ||
  failed "--config-search-path failed"
check "--config-search-path: the Vulkan ICD comes from the extra directory" \
  grep -qx /opt/nvconf/vulkan/icd.d/nvidia_icd.json <(mounts "$E2E_TMP/confsearch.json")

# --- gated modes in the runtime -----------------------------------------------------------------
write_config() {
  local mode="$1" file="$E2E_TMP/config-$1.toml"
  sed "s/^mode = .*/mode = \"$mode\"/" "$GPU_CONFIG" >"$file"
  printf '\n[nvidia-ctk]\npath = "%s"\n' "$CTK" >>"$file"
  echo "$file"
}
gated_create() {
  local name="$1" config="$2" b="$E2E_TMP/b-$1"
  shift 2
  gpu_bundle "$b" "$@"
  if NVIDIA_CTK_CONFIG_FILE_PATH="$config" "$GPU_SHIM" --root "$GPU_STATE" create --bundle "$b" "$name" \
    </dev/null >/dev/null 2>"$E2E_TMP/$name.err"; then
    runc --root "$GPU_STATE" delete --force "$name" >/dev/null 2>&1 || true
  else
    echo "create failed: $(tr '\n' ' ' <"$E2E_TMP/$name.err")"
    return 0
  fi
  jq -c '[.linux.devices[]? | select(.path == "/dev/gdrdrv") | .major]' "$b/config.json"
}
CONFIG_JIT="$(write_config jit-cdi)"
check_eq "jit-cdi: NVIDIA_GDRCOPY=enabled adds /dev/gdrdrv" '[508]' \
  "$(gated_create jit-gdr "$CONFIG_JIT" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_GDRCOPY=enabled)"
check_eq "jit-cdi: without NVIDIA_GDRCOPY no /dev/gdrdrv" '[]' \
  "$(gated_create jit-plain "$CONFIG_JIT" NVIDIA_VISIBLE_DEVICES=0)"
check_eq "legacy: NVIDIA_GDRCOPY=enabled adds /dev/gdrdrv" '[508]' \
  "$(gated_create legacy-gdr "$GPU_CONFIG" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_GDRCOPY=enabled)"
check_eq "legacy: NVIDIA_GDRCOPY=yes is not enabled" '[]' \
  "$(gated_create legacy-yes "$GPU_CONFIG" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_GDRCOPY=yes)"

# --- a control node missing on the host (seen on an H200 host without nvidia_modeset) ---------
# cdi.md §6.3 lists only the nodes that exist; naming a missing one made runc fail every CDI
# and jit-cdi container ("failed to inject device node /dev/nvidia-modeset").
rm -f "$GPU_ROOT/dev/nvidia-modeset"
gen --format json >"$E2E_TMP/nomodeset.json" 2>"$E2E_TMP/nomodeset.err" ||
  failed "generate without /dev/nvidia-modeset failed: $(cat "$E2E_TMP/nomodeset.err")"
check_eq "no /dev/nvidia-modeset on the host: not in the spec" "" \
  "$(jq -r '.. | .deviceNodes? // empty | .[].path' "$E2E_TMP/nomodeset.json" | grep modeset)"
check_contains "... and a warning names it" "missing device $GPU_ROOT/dev/nvidia-modeset" \
  "$(cat "$E2E_TMP/nomodeset.err")"
b="$E2E_TMP/b-nomodeset"
gpu_bundle "$b" NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=all
if NVIDIA_CTK_CONFIG_FILE_PATH="$CONFIG_JIT" "$GPU_SHIM" --root "$GPU_STATE" create --bundle "$b" \
  nomodeset </dev/null >/dev/null 2>"$E2E_TMP/nomodeset-create.err"; then
  runc --root "$GPU_STATE" delete --force nomodeset >/dev/null 2>&1 || true
  check_eq "jit-cdi without /dev/nvidia-modeset: created, GPU nodes but no modeset" \
    "/dev/nvidia0 /dev/nvidiactl" \
    "$(jq -r '[.linux.devices[].path | select(test("^/dev/nvidia(ctl|0|-modeset)$"))] | sort | join(" ")' "$b/config.json")"
else
  failed "jit-cdi without /dev/nvidia-modeset: $(tr '\n' ' ' <"$E2E_TMP/nomodeset-create.err")"
fi

e2e_finish
