#!/usr/bin/env bash
# `nvidia-ctk cuda explain` on a mock image rootfs and the mock driver (issue 17): driver facts
# from the driver root (NVML of the one-GPU mock: H100, driver 550.54.14, CUDA 12.4) and from
# flags; the image's CUDA runtime from libcudart, its forward-compat package; the fixtures'
# SASS/PTX verdicts; text, JSON and --list forms; exit codes 0/1/2; nothing is written to the
# input (checksums before and after).
source "$(dirname "$0")/lib/common.sh"
require_cmd jq md5sum find
CTK="$(nvct_bin nvidia-ctk)"
FIX="$NVCT_SOURCE_DIR/tests/fixtures/cuda"
[ -f "$FIX/multi" ] || e2e_die "fixtures missing: $FIX/multi"
[ -e "$NVCT_BUILD_DIR/tests/mock-driver/lib64/libnvidia-ml.so" ] ||
  [ -e "$NVCT_BUILD_DIR/tests/mock-driver/bin/nvidia-smi" ] ||
  e2e_die "mock driver not built (cmake --build $NVCT_BUILD_DIR --target mock_driver)"

ROOT="$E2E_TMP/driver-root"
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/one-gpu.conf" --out "$ROOT" \
  >"$E2E_TMP/make-root.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make-root.log")"

IMG="$E2E_TMP/rootfs"
mkdir -p "$IMG/etc" "$IMG/usr/local/cuda-12.6/lib64" "$IMG/usr/local/cuda-12.6/compat" \
  "$IMG/usr/lib/x86_64-linux-gnu" "$IMG/usr/bin"
: >"$IMG/usr/local/cuda-12.6/lib64/libcudart.so.12.6.77"
ln -s libcudart.so.12.6.77 "$IMG/usr/local/cuda-12.6/lib64/libcudart.so.12"
ln -s /usr/local/cuda-12.6 "$IMG/usr/local/cuda"
: >"$IMG/usr/local/cuda-12.6/compat/libcuda.so.560.35.03"
cp "$FIX/multi" "$IMG/usr/lib/x86_64-linux-gnu/libkernels.so"
cp "$FIX/host-only" "$IMG/usr/bin/app"
ln -s /etc/shadow "$IMG/usr/lib/x86_64-linux-gnu/libescape.so"
before="$(find "$IMG" -printf '%p %s %T@\n' | sort | md5sum)"

run() { OUT_RC=0; "$CTK" cuda explain "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || OUT_RC=$?; }

run --driver-root "$ROOT" "$IMG"
check_eq "rootfs on the mock driver: exit 0 (minor version compatibility)" 0 "$OUT_RC"
out="$(cat "$E2E_TMP/out")"
check_contains "driver line" "Driver   550.54.14, CUDA 12.4 (driver root $ROOT)" "$out"
check_contains "GPU line" "GPU 0    NVIDIA H100 80GB HBM3   sm_90   brand Nvidia   forward compat: yes" "$out"
check_contains "image runtime from libcudart" "CUDA runtime 12.6 (usr/local/cuda-12.6/lib64/libcudart.so.12.6.77)" "$out"
check_contains "runtime verdict" "runtime: minor-compat: needs CUDA 12.6 (driver >= 560.28.03); driver 550.54.14 (CUDA 12.4) runs it by minor version compatibility with a limited feature set" "$out"
check_contains "compat package" "forward-compat package usr/local/cuda/compat/libcuda.so.560.35.03 (libcuda 560.35.03, CUDA 12.6)" "$out"
check_contains "file verdict" "GPU 0: native: SASS sm_90 runs on sm_90" "$out"
check_contains "summary" "Verdict: runs on GPU 0; 3 files without GPU code" "$out"

run --driver-version 470.82.01 --gpu-arch sm_86 --brand GeForce --model "NVIDIA GeForce RTX 3090" "$IMG"
check_eq "driver 470 + GeForce: exit 1" 1 "$OUT_RC"
check_contains "forward compat refused on GeForce" "runtime: driver-too-old: needs CUDA 12.6 (driver >= 560.28.03); driver 470.82.01 (CUDA 11.4) + forward-compat libcuda 560.35.03 (CUDA 12.6) from the image: forward compat is not supported on sm_86 NVIDIA GeForce RTX 3090 (data-center GPUs only; CUDA error 804)" "$(cat "$E2E_TMP/out")"
check_contains "derived CUDA version" "Driver   470.82.01, CUDA 11.4 (derived) (flags)" "$(cat "$E2E_TMP/out")"
run --driver-version 470.82.01 --gpu-arch sm_90 --model "NVIDIA H100 80GB HBM3" "$IMG"
check_eq "driver 470 + H100: forward compat, exit 0" 0 "$OUT_RC"
check_contains "forward compat on the H100" "runtime: forward-compat: driver 470.82.01 (CUDA 11.4) + forward-compat libcuda 560.35.03 (CUDA 12.6) from the image; supported on NVIDIA H100 80GB HBM3" "$(cat "$E2E_TMP/out")"

run --driver-root "$ROOT" --format json "$IMG"
check_eq "json: exit" 0 "$OUT_RC"
check_eq "json: fields" "1 rootfs driver-root 12.6 true minor-compat native 0" \
  "$(jq -r '[.schemaVersion, .input.kind, .driver.source, .image.cudaRuntime.version, .image.compat.present, .runtime.verdict, .files[0].verdicts[0].verdict, .exitCode] | join(" ")' "$E2E_TMP/out")"

run --cuda-driver-version 12.4 --gpu-arch 8.0 "$FIX/sm70-only"
check_eq "sm70-only on sm_80: exit 1" 1 "$OUT_RC"
check_contains "no-code sentence" "sm_80: no-code: no SASS or PTX for sm_80 (SASS sm_70 runs only on 7.x)" "$(cat "$E2E_TMP/out")"

run --cuda-driver-version 12.8 --gpu-arch sm_100 "$FIX/multi"
check_eq "multi on sm_100: jit exits 0" 0 "$OUT_RC"
run --cuda-driver-version 12.8 --gpu-arch sm_100 --strict "$FIX/multi"
check_eq "--strict: jit exits 1" 1 "$OUT_RC"

run --list "$FIX/multi"
check_eq "--list equals cuobjdump" "$(cat "$FIX/multi.list-elf" "$FIX/multi.list-ptx")" "$(cat "$E2E_TMP/out")"

run --gpu-arch volta "$FIX/multi"
check_eq "bad flag value: exit 2" 2 "$OUT_RC"
check_contains "bad flag message" "--gpu-arch volta: not a GPU architecture" "$(cat "$E2E_TMP/err")"
run --gpu-arch sm_80 "$E2E_TMP/nonexistent"
check_eq "missing input: exit 2" 2 "$OUT_RC"

# The README's example is this program's output on the fixture, byte for byte.
readme="$NVCT_SOURCE_DIR/README.md"
cmdline="$(grep -m1 '^\$ nvidia-ctk cuda explain ' "$readme" | sed 's/^\$ nvidia-ctk //')"
[ -n "$cmdline" ] || failed "README has no nvidia-ctk cuda explain example"
want="$(awk -v c="\$ nvidia-ctk $cmdline" '$0 == c {on = 1; next} on && /^```/ {exit} on' "$readme")"
# shellcheck disable=SC2086
got="$(cd "$NVCT_SOURCE_DIR" && "$CTK" $cmdline)"
check_eq "README example matches the program" "$want" "$got"

after="$(find "$IMG" -printf '%p %s %T@\n' | sort | md5sum)"
check_eq "the rootfs is unchanged" "$before" "$after"
e2e_finish
