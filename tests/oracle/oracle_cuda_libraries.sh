#!/usr/bin/env bash
# The fatbinary reader against NVIDIA's cuobjdump on real CUDA 11.8 libraries (spec/compat.md
# §8): Debian 12 non-free libcudart11.0, libnvjpeg11 and libcublas11 are fetched into the test
# cache (${NVCT_CACHE_DIR:-/var/cache/nvct-test}/cuda-11.8, private apt configuration, dpkg -x;
# nothing installed) and each library's --list-elf / --list-ptx forms must equal cuobjdump's:
# the live cuobjdump of the cached toolkit when tests/fixtures/cuda/build.sh has fetched it, and
# always the listings committed in tests/fixtures/cuda/libs/ for these exact package versions.
source "$(dirname "$0")/../e2e/lib/common.sh"

cuda_die() { e2e_die "$*"; }
# shellcheck source=../fixtures/cuda/fetch.sh
source "$NVCT_SOURCE_DIR/tests/fixtures/cuda/fetch.sh"
listings="$NVCT_SOURCE_DIR/tests/fixtures/cuda/libs"
tool="$NVCT_BUILD_DIR/tests/oracle/nvct-fatbin-list"
[ -x "$tool" ] || tool="$NVCT_BUILD_DIR/bin/nvct-fatbin-list"
[ -x "$tool" ] || e2e_die "nvct-fatbin-list is not built (cmake --build $NVCT_BUILD_DIR --target nvct-fatbin-list)"

cuda_fetch "libcudart11.0=$CUDA_CUDART_DEBVERSION" "libnvjpeg11=$CUDA_NVJPEG_DEBVERSION" \
  "libcublas11=$CUDA_CUBLAS_DEBVERSION"
libdir="$CUDA_TREE/usr/lib/x86_64-linux-gnu"

# The committed listings were made from these package versions.
while read -r pkg ver file; do
  case "$pkg" in
    libcudart11.0) want="$CUDA_CUDART_DEBVERSION" ;;
    libnvjpeg11) want="$CUDA_NVJPEG_DEBVERSION" ;;
    libcublas11) want="$CUDA_CUBLAS_DEBVERSION" ;;
    *) e2e_die "unknown package $pkg in $listings/VERSIONS" ;;
  esac
  check_eq "listing version of $pkg ($file)" "$want" "$ver"
  [ -f "$libdir/$file" ] || e2e_die "$pkg $ver does not contain $file"
done <"$listings/VERSIONS"

# cuobjdump's "no device code" info messages mean an empty list.
strip_info() { grep -v '^cuobjdump info' "$1" || true; }

cuobjdump="$CUDA_TREE/usr/bin/cuobjdump"
for lib in libcudart.so.11.8.89 libnvjpeg.so.11.9.0.86 libcublas.so.11.11.3.6; do
  for form in list-elf list-ptx; do
    "$tool" "--$form" "$libdir/$lib" >"$E2E_TMP/$lib.$form" 2>"$E2E_TMP/err" ||
      failed "$lib: the reader failed: $(cat "$E2E_TMP/err")"
    strip_info "$listings/$lib.$form" >"$E2E_TMP/want"
    if same_file "$E2E_TMP/want" "$E2E_TMP/$lib.$form"; then
      pass "$lib --$form equals the committed cuobjdump listing ($(wc -l <"$E2E_TMP/want") entries)"
    else
      failed "$lib --$form differs from $listings/$lib.$form: $(diff "$E2E_TMP/want" "$E2E_TMP/$lib.$form" | head -5)"
    fi
    if [ -x "$cuobjdump" ]; then
      "$cuobjdump" "--$form" "$libdir/$lib" >"$E2E_TMP/live" 2>&1 || true
      strip_info "$E2E_TMP/live" >"$E2E_TMP/want"
      if same_file "$E2E_TMP/want" "$E2E_TMP/$lib.$form"; then
        pass "$lib --$form equals the cached toolkit's cuobjdump"
      else
        failed "$lib --$form differs from live cuobjdump: $(diff "$E2E_TMP/want" "$E2E_TMP/$lib.$form" | head -5)"
      fi
    fi
  done
done
"$tool" --summary "$libdir/libcudart.so.11.8.89" "$libdir/libnvjpeg.so.11.9.0.86" "$libdir/libcublas.so.11.11.3.6"

# The real CUDA 11.8 runtime in an image maps to CUDA 11.8 and its published minimum driver,
# 520.61.05 (spec/compat.md §5.1): ok on that driver, minor version compatibility on 515.43.04.
ctk="$NVCT_BUILD_DIR/bin/nvidia-ctk"
[ -x "$ctk" ] || e2e_die "nvidia-ctk is not built in $NVCT_BUILD_DIR/bin"
image="$E2E_TMP/image"
mkdir -p "$image/usr/lib/x86_64-linux-gnu"
cp "$libdir/libcudart.so.11.8.89" "$image/usr/lib/x86_64-linux-gnu/"
out="$("$ctk" cuda explain --rootfs --driver-version 520.61.05 --gpu-arch sm_80 "$image" 2>&1)"
check_contains "libcudart 11.8.89: the image's runtime is CUDA 11.8" \
  "CUDA runtime 11.8 (usr/lib/x86_64-linux-gnu/libcudart.so.11.8.89)" "$out"
check_contains "libcudart 11.8.89: needs the published minimum driver, met by 520.61.05" \
  "runtime: ok: needs CUDA 11.8 (driver >= 520.61.05); driver 520.61.05 has CUDA 11.8" "$out"
out="$("$ctk" cuda explain --rootfs --driver-version 515.43.04 --gpu-arch sm_80 "$image" 2>&1)"
check_contains "libcudart 11.8.89 on driver 515.43.04: minor version compatibility" \
  "runtime: minor-compat: needs CUDA 11.8 (driver >= 520.61.05); driver 515.43.04 (CUDA 11.7)" "$out"
e2e_finish
