#!/usr/bin/env bash
# nvidia-container-cli info, info --csv and list on the four mock driver roots (1 GPU, 8 GPUs,
# MIG on one GPU, no NVML library forcing the procfs fallback), compared byte for byte with
# tests/data/driver/golden/<topology>.{info,info.csv,list}. NVCT_UPDATE_GOLDEN=1 rewrites them.
source "$(dirname "$0")/lib/common.sh"
require_root

cli="$(nvct_bin nvidia-container-cli)"
golden="$NVCT_SOURCE_DIR/tests/data/driver/golden"
make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
[ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"

# golden_check <name> <command...>: stdout must equal $golden/<name>, stderr must be empty.
golden_check() {
  local name="$1"
  shift
  local out="$E2E_TMP/$name.out" err="$E2E_TMP/$name.err"
  if ! "$@" >"$out" 2>"$err"; then
    failed "$name: exit status $? ($(cat "$err"))"
    return
  fi
  if [ "${NVCT_UPDATE_GOLDEN:-}" = 1 ]; then cp "$out" "$golden/$name"; fi
  [ -f "$golden/$name" ] || { failed "$name: golden file $golden/$name is missing"; return; }
  if same_file "$out" "$golden/$name" && [ ! -s "$err" ]; then
    pass "$name"
  else
    failed "$name: differs from $golden/$name (stderr: $(cat "$err")):
$(diff -u "$golden/$name" "$out" | head -40)"
  fi
}

for topology in one-gpu eight-gpus mig no-nvml; do
  root="$E2E_TMP/$topology"
  bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$root" \
    >"$E2E_TMP/$topology.make.log" 2>&1 ||
    e2e_die "make-driver-root.sh $topology failed (build the mock_driver target?): $(tail -5 "$E2E_TMP/$topology.make.log")"
  golden_check "$topology.info" "$cli" --root "$root" info
  golden_check "$topology.info.csv" "$cli" --root "$root" info --csv
  golden_check "$topology.list" "$cli" --root="$root" list
done

# The procfs fallback is announced in the debug log.
"$cli" --root "$E2E_TMP/no-nvml" --debug "$E2E_TMP/fallback.log" info >/dev/null
check_contains "no-nvml: fallback is logged" "using /proc/driver/nvidia instead of NVML" \
  "$(cat "$E2E_TMP/fallback.log")"

e2e_finish
