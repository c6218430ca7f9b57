#!/usr/bin/env bash
# The runtime's csv mode (Tegra; runtime.md §6, §7 "csv", §7.6) end to end: real runc containers
# created through the nvct shim on a mock Tegra root built here. The root has the tegra marker
# file, a char node dev/nvhost-ctrl, a libcuda.so.1.1 (the mock driver's fake libcuda, patched by
# make-driver-root.sh to report CUDA 12.4 from cuDriverGetVersion) with an ld.so.cache, a
# libcuda.so symlink and a data directory; the CSV dir has devices.csv, drivers.csv, l4t.csv and
# an extra.csv that only NVIDIA_REQUIRE_JETPACK=csv-mounts=all reads.
# Checked: the container sees the node, the library (in its ld.so.cache), the symlink and the
# directory; extra.csv only with csv-mounts=all; an NVIDIA prestart hook is removed; a container
# without NVIDIA_VISIBLE_DEVICES is left alone; NVIDIA_REQUIRE_CUDA=cuda>=99.0 fails creation with
# the evaluator's message (the version comes from the fake libcuda through the
# nvidia-container-runtime-nvml helper), cuda>=12.0 passes, NVIDIA_DISABLE_REQUIRE=true skips the
# check; mode = "auto" on this root behaves the same.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"

require_root
require_cmd runc jq ldconfig mknod
SHIM="$(shim_bin)"
CTK="$(nvct_bin nvidia-ctk)"
[ -x "$(dirname "$SHIM")/nvidia-container-runtime-nvml" ] ||
  e2e_die "nvidia-container-runtime-nvml is not built next to $SHIM (cmake --build $NVCT_BUILD_DIR --target nvidia-container-runtime-nvml)"
[ -e "$NVCT_BUILD_DIR/tests/mock-driver/lib64/libcuda.so" ] ||
  e2e_die "mock driver not built (cmake --build $NVCT_BUILD_DIR --target mock_driver)"

# --- the mock Tegra root ----------------------------------------------------------------------
MOCK="$E2E_TMP/mock-root"
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/one-gpu.conf" --out "$MOCK" \
  >"$E2E_TMP/make-root.log" 2>&1 ||
  e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make-root.log")"
mock_cuda="$(find "$MOCK/usr/lib/x86_64-linux-gnu" -name 'libcuda.so.*.*' -type f | head -1)"
[ -n "$mock_cuda" ] || e2e_die "no libcuda in the mock driver root"

TEGRA="$E2E_TMP/tegra-root"
LIBDIR=/usr/lib/x86_64-linux-gnu/tegra
mkdir -p "$TEGRA/etc" "$TEGRA/dev" "$TEGRA$LIBDIR" "$TEGRA/usr/share/nvidia/tegra-data"
chmod 0755 "$TEGRA"
echo "# R36 (release), REVISION: 4.0, GCID: 0, BOARD: generic, EABI: aarch64" \
  >"$TEGRA/etc/nv_tegra_release"
mknod -m 0666 "$TEGRA/dev/nvhost-ctrl" c 1 3
cp "$mock_cuda" "$TEGRA$LIBDIR/libcuda.so.1.1"
chmod 0755 "$TEGRA$LIBDIR/libcuda.so.1.1"
ln -s libcuda.so.1.1 "$TEGRA$LIBDIR/libcuda.so"
echo "not a real library" >"$TEGRA$LIBDIR/libnvextra.so"
echo "tegra data" >"$TEGRA/usr/share/nvidia/tegra-data/readme"
echo "$LIBDIR" >"$TEGRA/etc/ld.so.conf"
ldconfig -r "$TEGRA" 2>"$E2E_TMP/ldconfig.err" || e2e_die "ldconfig -r failed: $(cat "$E2E_TMP/ldconfig.err")"

CSV="$E2E_TMP/csv"
mkdir -p "$CSV"
printf 'dev, /dev/nvhost-ctrl\n' >"$CSV/devices.csv"
printf 'lib, %s/libcuda.so.1.1\nsym, %s/libcuda.so\n' "$LIBDIR" "$LIBDIR" >"$CSV/drivers.csv"
printf '\ndir, /usr/share/nvidia/tegra-data\n' >"$CSV/l4t.csv"
printf 'lib, %s/libnvextra.so\n' "$LIBDIR" >"$CSV/extra.csv"

STATE="$E2E_TMP/runc-state"
mkdir -p "$STATE"
e2e_on_exit "for c in \$(runc --root '$STATE' list -q 2>/dev/null); do runc --root '$STATE' delete --force \$c; done"

write_config() {
  local mode="$1" file="$E2E_TMP/config-$1.toml"
  cat >"$file" <<TOML
[nvidia-container-cli]
root = "$TEGRA"

[nvidia-container-runtime]
debug = "$E2E_TMP/shim-debug.log"
log-level = "debug"
mode = "$mode"
runtimes = ["runc"]

[nvidia-container-runtime.modes.csv]
mount-spec-path = "$CSV"

[nvidia-ctk]
path = "$CTK"
TOML
  echo "$file"
}
CONFIG_CSV="$(write_config csv)"
CONFIG_AUTO="$(write_config auto)"

REPORT='
[ -c /dev/nvhost-ctrl ] && echo "node nvhost-ctrl"
[ -f '"$LIBDIR"'/libcuda.so.1.1 ] && echo "lib libcuda.so.1.1"
echo "sym $(readlink '"$LIBDIR"'/libcuda.so)"
/sbin/ldconfig -p | grep -q "libcuda.so.1 .*=> '"$LIBDIR"'/libcuda.so.1" && echo "ldcache libcuda.so.1"
[ -f /usr/share/nvidia/tegra-data/readme ] && echo "dir $(cat /usr/share/nvidia/tegra-data/readme)"
[ -e '"$LIBDIR"'/libnvextra.so ] && echo "extra libnvextra.so"
echo done
'

# run_case <config> <id> [NAME=VALUE...]: runs a glibc bundle through the shim; its report is in
# $E2E_TMP/<id>.out, the shim's stderr in <id>.err; returns the shim's exit status.
run_case() {
  local config="$1" id="$2" b="$E2E_TMP/b-$2" rc=0
  shift 2
  make_bundle "$b" glibc sh /report.sh
  printf '%s' "$REPORT" >"$b/rootfs/report.sh"
  [ $# -gt 0 ] && bundle_set_env "$b" "$@"
  # An NVIDIA prestart hook that would fail the container if it were left in place.
  jq '.hooks.prestart = [{"path": "/nonexistent/nvidia-container-runtime-hook", "args": ["nvidia-container-runtime-hook", "prestart"]}]' \
    "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
  NVIDIA_CTK_CONFIG_FILE_PATH="$config" timeout 120 "$SHIM" --root "$STATE" run --bundle "$b" "$id" \
    </dev/null >"$E2E_TMP/$id.out" 2>"$E2E_TMP/$id.err" || rc=$?
  runc --root "$STATE" delete --force "$id" >/dev/null 2>&1 || true
  return "$rc"
}

# check_sees <id>: the base CSV files' content is in the container.
check_sees() {
  local id="$1" out
  out="$(cat "$E2E_TMP/$id.out")"
  check_contains "$id: the dev node" "node nvhost-ctrl" "$out"
  check_contains "$id: the library" "lib libcuda.so.1.1" "$out"
  check_contains "$id: the sym link (create-symlinks hook)" "sym libcuda.so.1.1" "$out"
  check_contains "$id: the library dir is in ld.so.cache (update-ldcache hook)" \
    "ldcache libcuda.so.1" "$out"
  check_contains "$id: the dir" "dir tegra data" "$out"
  check_contains "$id: the container ran to the end" "done" "$out"
}

for mode in csv auto; do
  config="$CONFIG_CSV"
  [ "$mode" = auto ] && config="$CONFIG_AUTO"

  if run_case "$config" "$mode-all" NVIDIA_VISIBLE_DEVICES=all; then
    pass "$mode: NVIDIA_VISIBLE_DEVICES=all runs (the NVIDIA prestart hook was removed)"
    check_sees "$mode-all"
    check_eq "$mode: extra.csv is not read by default" "" \
      "$(grep '^extra' "$E2E_TMP/$mode-all.out" || true)"
  else
    failed "$mode: NVIDIA_VISIBLE_DEVICES=all failed: $(cat "$E2E_TMP/$mode-all.err")"
  fi

  if run_case "$config" "$mode-jetpack" NVIDIA_VISIBLE_DEVICES=0 \
    NVIDIA_REQUIRE_JETPACK=csv-mounts=all; then
    check_sees "$mode-jetpack"
    check_contains "$mode: csv-mounts=all reads extra.csv" "extra libnvextra.so" \
      "$(cat "$E2E_TMP/$mode-jetpack.out")"
  else
    failed "$mode: csv-mounts=all failed: $(cat "$E2E_TMP/$mode-jetpack.err")"
  fi

  if run_case "$config" "$mode-nogpu"; then
    check_eq "$mode: no NVIDIA_VISIBLE_DEVICES, no node" "" \
      "$(grep '^node' "$E2E_TMP/$mode-nogpu.out" || true)"
    check_eq "$mode: no NVIDIA_VISIBLE_DEVICES, no library" "" \
      "$(grep '^lib' "$E2E_TMP/$mode-nogpu.out" || true)"
  else
    failed "$mode: a container without a GPU request failed: $(cat "$E2E_TMP/$mode-nogpu.err")"
  fi

  if run_case "$config" "$mode-req99" NVIDIA_VISIBLE_DEVICES=all NVIDIA_REQUIRE_CUDA="cuda>=99.0"; then
    failed "$mode: NVIDIA_REQUIRE_CUDA=cuda>=99.0 should fail creation"
  else
    check_contains "$mode: cuda>=99.0 fails creation with the requirement" \
      "requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a newer version, or use an earlier cuda container" \
      "$(cat "$E2E_TMP/$mode-req99.err")"
    check_eq "$mode: the failed container never ran" "" "$(cat "$E2E_TMP/$mode-req99.out")"
  fi

  if run_case "$config" "$mode-req12" NVIDIA_VISIBLE_DEVICES=all NVIDIA_REQUIRE_CUDA="cuda>=12.0"; then
    pass "$mode: cuda>=12.0 is satisfied by the fake libcuda's 12.4"
    check_sees "$mode-req12"
  else
    failed "$mode: cuda>=12.0 failed: $(cat "$E2E_TMP/$mode-req12.err")"
  fi

  if run_case "$config" "$mode-disabled" NVIDIA_VISIBLE_DEVICES=all \
    NVIDIA_REQUIRE_CUDA="cuda>=99.0" NVIDIA_DISABLE_REQUIRE=true; then
    pass "$mode: NVIDIA_DISABLE_REQUIRE=true skips the requirement check"
  else
    failed "$mode: NVIDIA_DISABLE_REQUIRE=true still failed: $(cat "$E2E_TMP/$mode-disabled.err")"
  fi
done

check_contains "auto resolved to csv" "mode auto resolved to csv" "$(cat "$E2E_TMP/shim-debug.log")"
check_contains "the CUDA version came from libcuda" "CUDA driver version 12.4 (libcuda)" \
  "$(cat "$E2E_TMP/shim-debug.log")"

e2e_finish
