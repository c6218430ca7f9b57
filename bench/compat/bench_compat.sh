#!/usr/bin/env bash
# Times the fatbinary reader on a ~100 MB CUDA library (libcublas.so.11.11.3.6) against
# `cuobjdump --list-elf` on the same file (the CUDA 11.8 toolkit, fetched into the test cache) and
# against the floor: the same reader process on a file without device code. Medians of
# NVCT_BENCH_COMPAT_RUNS (11) runs in ms, page cache warm; fails when the reader is not faster
# than cuobjdump.
source "$(dirname "$0")/../../tests/e2e/lib/common.sh"

cuda_die() { e2e_die "$*"; }
# shellcheck source=../../tests/fixtures/cuda/fetch.sh
source "$NVCT_SOURCE_DIR/tests/fixtures/cuda/fetch.sh"
tool="$NVCT_BUILD_DIR/tests/oracle/nvct-fatbin-list"
[ -x "$tool" ] || tool="$NVCT_BUILD_DIR/bin/nvct-fatbin-list"
[ -x "$tool" ] || e2e_die "nvct-fatbin-list is not built (cmake --build $NVCT_BUILD_DIR --target nvct-fatbin-list)"
wall="$NVCT_BUILD_DIR/bench/hook/nvct-wall-time"
[ -x "$wall" ] || wall="$NVCT_BUILD_DIR/bin/nvct-wall-time"
[ -x "$wall" ] || e2e_die "nvct-wall-time is not built (cmake --build $NVCT_BUILD_DIR --target nvct-wall-time)"
runs="${NVCT_BENCH_COMPAT_RUNS:-11}"

# nvidia-cuda-toolkit holds cuobjdump (84 MB, fetched once into the cache): a fresh machine has
# neither until this test or tests/fixtures/cuda/build.sh fetched them.
cuda_fetch "libcublas11=$CUDA_CUBLAS_DEBVERSION" "nvidia-cuda-toolkit=$CUDA_TOOLKIT_DEBVERSION"
lib="$CUDA_TREE/usr/lib/x86_64-linux-gnu/libcublas.so.11.11.3.6"
floor_file="$NVCT_SOURCE_DIR/tests/fixtures/cuda/host-only"
cuobjdump="$CUDA_TREE/usr/bin/cuobjdump"
cat "$lib" >/dev/null  # warm the page cache for every row alike

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# row <label> <command...>: wall-time medians of a process; sets RESULT (ms).
row() {
  local label="$1" i
  shift
  : >"$E2E_TMP/samples"
  for i in $(seq "$runs"); do
    "$wall" "$E2E_TMP/wall" "$@" >/dev/null 2>&1 || true
    awk '{ printf "%.3f\n", $1 / 1000 }' "$E2E_TMP/wall" >>"$E2E_TMP/samples"
  done
  RESULT="$(median <"$E2E_TMP/samples")"
  printf '| %-46s | %4d | %9.3f |\n' "$label" "$runs" "$RESULT"
}

"$tool" --summary "$lib"
echo "libcublas.so.11.11.3.6 ($(stat -c %s "$lib") bytes): medians in ms, load average $(cut -d' ' -f1 /proc/loadavg)"
echo "| command                                        | runs |    median |"
echo "|------------------------------------------------|------|-----------|"
row "floor: nvct-fatbin-list --list-elf host-only" "$tool" --list-elf "$floor_file"
FLOOR="$RESULT"
row "nvct-fatbin-list --list-elf libcublas" "$tool" --list-elf "$lib"
READER="$RESULT"
INPROC="$("$tool" --time "$runs" "$lib")"
printf '| %-46s | %4d | %9.3f |\n' "scan_file() in-process" "$runs" "$INPROC"
ctk="$NVCT_BUILD_DIR/bin/nvidia-ctk"
explain=("$ctk" cuda explain --driver-version 535.104.05 --gpu-arch sm_80 "$lib")
if [ -x "$ctk" ] && "${explain[@]}" >"$E2E_TMP/explain" 2>&1; then
  row "nvidia-ctk cuda explain libcublas (sm_80)" "${explain[@]}"
else
  echo "# nvidia-ctk cuda explain not timed: ${ctk} missing or failed: $(head -2 "$E2E_TMP/explain" 2>/dev/null)"
fi
if [ -x "$cuobjdump" ]; then
  row "cuobjdump --list-elf libcublas (CUDA 11.8)" "$cuobjdump" --list-elf "$lib"
  CUOBJ="$RESULT"
  ratio="$(awk -v a="$CUOBJ" -v b="$READER" 'BEGIN { printf "%.1f", a / b }')"
  echo "reader vs cuobjdump: ${ratio}x faster; reader above the floor: $(awk -v a="$READER" -v b="$FLOOR" 'BEGIN { printf "%.3f", a - b }') ms"
  if awk -v a="$READER" -v b="$CUOBJ" 'BEGIN { exit !(a < b) }'; then
    pass "reader $READER ms < cuobjdump $CUOBJ ms"
  else
    failed "reader $READER ms is not faster than cuobjdump $CUOBJ ms"
  fi
else
  e2e_die "cuobjdump is not in the test cache ($cuobjdump) although nvidia-cuda-toolkit was fetched: see $CUDA_CACHE/apt/download.log"
fi
e2e_finish
