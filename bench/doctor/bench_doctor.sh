#!/usr/bin/env bash
# Times `nvidia-ctk doctor --root <eight-GPU mock host>` (all families; with the NVML child and
# with --no-nvml) against `nvidia-ctk --version`, the floor of any nvidia-ctk run. Medians of
# NVCT_BENCH_DOCTOR_RUNS (30) runs in ms, reported against the targets of spec/doctor.md §6;
# fails when the doctor's time above that floor passes them.
source "$(dirname "$0")/../../tests/e2e/lib/common.sh"

require_root
ctk="$(nvct_bin nvidia-ctk)"
wall="$NVCT_BUILD_DIR/bench/hook/nvct-wall-time"
[ -x "$wall" ] || e2e_die "$wall is not built (cmake --build $NVCT_BUILD_DIR --target nvct-wall-time)"
runs="${NVCT_BENCH_DOCTOR_RUNS:-30}"
root="$E2E_TMP/host"
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/eight-gpus.conf" --out "$root" \
  >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"
mkdir -p "$root/etc/docker" "$root/etc/nvidia-container-runtime"
echo '{"runtimes": {"nvidia": {"path": "nvidia-container-runtime", "args": []}}}' >"$root/etc/docker/daemon.json"
printf '[nvidia-container-runtime]\nmode = "auto"\n' >"$root/etc/nvidia-container-runtime/config.toml"

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# row <label> <args...>: prints a table row, sets RESULT (median ms).
row() {
  local label="$1" i
  shift
  : >"$E2E_TMP/samples"
  for i in $(seq "$runs"); do
    "$wall" "$E2E_TMP/wall" "$ctk" "$@" >/dev/null 2>&1 || true
    awk '{ printf "%.3f\n", $1 / 1000 }' "$E2E_TMP/wall" >>"$E2E_TMP/samples"
  done
  RESULT="$(median <"$E2E_TMP/samples")"
  printf '| %-34s | %4d | %9.3f |\n' "$label" "$runs" "$RESULT"
}

echo "nvidia-ctk doctor on the eight-GPU mock host: medians in ms, load average $(cut -d' ' -f1 /proc/loadavg)"
echo "| command                            | runs |    median |"
echo "|------------------------------------|------|-----------|"
row "nvidia-ctk --version (floor)" --version
FLOOR="$RESULT"
row "doctor --no-nvml" doctor --root "$root" --no-nvml
NO_NVML="$RESULT"
row "doctor (NVML child)" doctor --root "$root"
WITH_NVML="$RESULT"
# The gate is on the doctor's own time, above the floor measured in the same run: on a loaded CI
# host the floor alone has taken 12 ms (load average 195, beside the create storm), so the
# absolute medians are reported against the spec's targets but not gated on.
OWN_NVML="$(awk -v a="$WITH_NVML" -v f="$FLOOR" 'BEGIN { printf "%.3f", a - f }')"
OWN_NO_NVML="$(awk -v a="$NO_NVML" -v f="$FLOOR" 'BEGIN { printf "%.3f", a - f }')"
met() { awk -v t="$1" -v l="$2" 'BEGIN { if (t <= l) print "met"; else print "NOT met" }'; }
echo "targets (spec/doctor.md §6): <= 50 ms with NVML: $WITH_NVML ms, $(met "$WITH_NVML" 50);" \
  "<= 15 ms with --no-nvml: $NO_NVML ms, $(met "$NO_NVML" 15)"
echo "above the floor ($FLOOR ms): $OWN_NVML ms with NVML, $OWN_NO_NVML ms with --no-nvml"
if awk -v t="$OWN_NVML" 'BEGIN { exit !(t <= 50) }'; then pass "doctor: $OWN_NVML ms above the floor <= 50 ms"; else failed "doctor: $OWN_NVML ms above the floor > 50 ms"; fi
if awk -v t="$OWN_NO_NVML" 'BEGIN { exit !(t <= 15) }'; then pass "doctor --no-nvml: $OWN_NO_NVML ms above the floor <= 15 ms"; else failed "doctor --no-nvml: $OWN_NO_NVML ms above the floor > 15 ms"; fi
e2e_finish
