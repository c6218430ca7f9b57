#!/usr/bin/env bash
# Requirements in every mode (issue 17): NVIDIA_REQUIRE_*, the legacy CUDA_VERSION rule and
# NVIDIA_DISABLE_REQUIRE give the same result in legacy (shim -> hook -> nvidia-container-cli),
# cdi, jit-cdi and csv modes of the shim and in `nvidia-container-cli configure --require`, on the
# one-GPU mock driver (H100, brand Nvidia, compute capability 9.0, driver 550.54.14, CUDA 12.4).
# A failing row must show the reference's line and nvct's one-line reason (which condition, the
# driver's value, for cuda>= the driver that satisfies it and whether a forward-compat package
# applies); a passing row must start the container.
#
# csv is the Tegra mode: its facts come from libcuda (CUDA version, compute capability of device
# 0), there is no NVML, so `driver` and `brand` have no value there and are satisfied (the
# reference's csv evaluator), and `arch` fails closed when libcuda cannot say it (the mock's).
# Rows that name driver, brand or arch are therefore run in csv mode with that expectation
# ("csv=" column); every other row must give the same result in all five places.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"
require_cmd runc jq unshare timeout

gpu_setup one-gpu
CTK="$(nvct_bin nvidia-ctk)"
CLI="$(nvct_bin nvidia-container-cli)"
CDI_HOOK="$(nvct_bin nvidia-cdi-hook)"
SPEC_DIR="$E2E_TMP/cdi"
CSV_DIR="$E2E_TMP/csv"
mkdir -p "$CSV_DIR"
printf 'dev, /dev/nvidia0\n' >"$CSV_DIR/devices.csv"
: >"$CSV_DIR/drivers.csv"
: >"$CSV_DIR/l4t.csv"
"$CTK" cdi generate --driver-root "$GPU_ROOT" --nvidia-cdi-hook-path "$CDI_HOOK" \
  --output "$SPEC_DIR/nvidia.yaml" >/dev/null 2>"$E2E_TMP/generate.err" ||
  e2e_die "cdi generate failed: $(cat "$E2E_TMP/generate.err")"

config_with() {
  local file="$E2E_TMP/config-$1.toml"
  {
    sed "s/^mode = .*/mode = \"$1\"/" "$GPU_CONFIG"
    printf '\n[nvidia-container-runtime.modes.cdi]\nspec-dirs = ["%s"]\n' "$SPEC_DIR"
    printf '\n[nvidia-container-runtime.modes.csv]\nmount-spec-path = "%s"\n' "$CSV_DIR"
    printf '\n[nvidia-ctk]\npath = "%s"\n' "$CTK"
  } >"$file"
  echo "$file"
}

TEMPLATE="$E2E_TMP/template"
make_bundle "$TEMPLATE" glibc true
gpu_add_mount "$TEMPLATE" \
  '{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","mode=755"]}'

N=0
# shim_run <mode> <device> [NAME=VALUE...]: OUT_RC, $E2E_TMP/row.err
shim_run() {
  local mode="$1" device="$2" b="$E2E_TMP/b" id
  shift 2
  N=$((N + 1))
  id="rq$$-$N"
  rm -rf "$b" && mkdir -p "$b"
  jq --arg r "$TEMPLATE/rootfs" '.root.path = $r' "$TEMPLATE/config.json" >"$b/config.json"
  bundle_set_env "$b" "NVIDIA_VISIBLE_DEVICES=$device" "$@"
  OUT_RC=0
  NVIDIA_CTK_CONFIG_FILE_PATH="$(config_with "$mode")" timeout 60 "$GPU_SHIM" --root "$GPU_STATE" \
    run --bundle "$b" "$id" </dev/null >/dev/null 2>"$E2E_TMP/row.err" || OUT_RC=$?
  runc --root "$GPU_STATE" delete --force "$id" >/dev/null 2>&1 || true
}

# cli_run <--require args...>: configure needs a process in its own mount namespace (the container
# at prestart), with procfs on the rootfs's /proc and a tmpfs on /proc/driver (the mock host has no
# nvidia module); a fresh one per row, so that no row sees the mounts of the one before.
cli_run() {
  local pid i
  unshare -m --propagation private sh -c "mount -t proc proc '$TEMPLATE/rootfs/proc' &&
    mount -t tmpfs tmpfs '$TEMPLATE/rootfs/proc/driver' && exec sleep 60" &
  pid=$!
  for i in $(seq 100); do
    grep -q " $TEMPLATE/rootfs/proc/driver " "/proc/$pid/mountinfo" 2>/dev/null && break
    sleep 0.02
  done
  OUT_RC=0
  "$CLI" --root "$GPU_ROOT" configure --no-cgroups --pid "$pid" --device=0 --utility \
    "$@" "$TEMPLATE/rootfs" </dev/null >/dev/null 2>"$E2E_TMP/row.err" || OUT_RC=$?
  kill -9 "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null || true
}

TABLE=()
# expect <row> <place> <want: pass|fail> [line...]: checks OUT_RC and that each line is in stderr.
expect() {
  local row="$1" place="$2" want="$3" got line
  shift 3
  got=pass
  [ "$OUT_RC" = 0 ] || got=fail
  check_eq "$row/$place: $want" "$want" "$got"
  [ "$got" = "$want" ] || { sed 's/^/    /' "$E2E_TMP/row.err" | head -5 >&2; }
  for line in "$@"; do check_contains "$row/$place: message" "$line" "$(cat "$E2E_TMP/row.err")"; done
  TABLE+=("$row/$place=$got")
}

REF99="requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a newer version, or use an earlier cuda container"
WHY99="nvct: this image needs CUDA 99.0; this host has driver 550.54.14 (CUDA 12.4) and the image has no forward-compat package; details: nvidia-ctk cuda explain"
REF126="requirement error: unsatisfied condition: cuda>=12.6, please update your driver to a newer version, or use an earlier cuda container"
WHY126="nvct: this image needs CUDA 12.6 (driver >= 560.28.03); this host has driver 550.54.14 (CUDA 12.4) and the image has no forward-compat package"

# row <id> <want> <csv-want> <cli --require args (| separated)> -- <env...> -- <lines...>
row() {
  local id="$1" want="$2" csv_want="$3" cli_args="$4" env=() lines=() mode
  shift 4
  [ "$1" = "--" ] && shift
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do env+=("$1"); shift; done
  [ "${1:-}" = "--" ] && shift
  lines=("$@")
  for mode in legacy cdi jit-cdi; do
    local device=0
    [ "$mode" = cdi ] && device=nvidia.com/gpu=0
    shim_run "$mode" "$device" "${env[@]}"
    expect "$id" "$mode" "$want" "${lines[@]}"
  done
  shim_run csv 0 "${env[@]}"
  if [ "$csv_want" = same ]; then expect "$id" csv "$want" "${lines[@]}"; else expect "$id" csv "$csv_want"; fi
  local args=()
  IFS='|' read -r -a args <<<"$cli_args"
  cli_run "${args[@]}"
  expect "$id" cli "$want" "${lines[@]}"
}

row cuda-ok pass same '--require=cuda>=12.0' -- 'NVIDIA_REQUIRE_CUDA=cuda>=12.0'
row cuda-99 fail same '--require=cuda>=99.0' -- 'NVIDIA_REQUIRE_CUDA=cuda>=99.0' -- "$REF99" "nvct: this image needs CUDA 99.0; this host has "
row cuda-126-alternative-brand fail pass '--require=cuda>=12.6 brand=tesla,driver>=470,driver<471' -- \
  'NVIDIA_REQUIRE_CUDA=cuda>=12.6 brand=tesla,driver>=470,driver<471' -- "$REF126" "$WHY126"
row disabled pass same '' -- 'NVIDIA_REQUIRE_CUDA=cuda>=99.0' NVIDIA_DISABLE_REQUIRE=true
row legacy-cuda-version-ok pass same '--require=cuda>=12.2' -- CUDA_VERSION=12.2.0
row legacy-cuda-version-99 fail same '--require=cuda>=99.0' -- CUDA_VERSION=99.0.1 -- "$REF99"
row cuda-version-not-legacy pass same '--require=cuda>=12.0' -- CUDA_VERSION=99.0 'NVIDIA_REQUIRE_CUDA=cuda>=12.0'
row driver-too-old fail pass '--require=driver>=999' -- 'NVIDIA_REQUIRE_DRIVER=driver>=999' -- \
  "requirement error: unsatisfied condition: driver>=999" "driver>=999 (the driver is 550.54.14)"
row brand fail pass '--require=brand=tesla' -- 'NVIDIA_REQUIRE_BRAND=brand=tesla' -- \
  "requirement error: unsatisfied condition: brand=tesla" "is brand Nvidia"
row arch fail fail '--require=arch<9.0' -- 'NVIDIA_REQUIRE_ARCH=arch<9.0' -- \
  "requirement error: unsatisfied condition: arch<9.0" "has compute capability 9.0"

# The legacy-mode error reaches runc as one line; the shim's own (cdi, jit-cdi) names the rootfs.
shim_run jit-cdi 0 'NVIDIA_REQUIRE_CUDA=cuda>=99.0'
check_contains "jit-cdi: the details command names the container rootfs" \
  "$WHY99 $TEMPLATE/rootfs" "$(cat "$E2E_TMP/row.err")"

echo "${TABLE[*]}" | tr ' ' '\n' | paste - - - - - | column -t
[ "${#TABLE[@]}" -eq 50 ] || failed "the table has ${#TABLE[@]} cells, want 50 (10 rows x 5)"
e2e_finish
