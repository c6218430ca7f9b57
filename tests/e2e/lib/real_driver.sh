# shellcheck shell=bash
# NVIDIA's real driver userspace (Debian 12 non-free: 535.261.03, and the Tesla variant
# 525.147.05) as a driver root for tests:
# the real libraries, nvidia-smi and their symlinks, paired with the mock NVML (the real one
# needs the kernel module) and the mock's procfs and device nodes. Nothing is installed on the
# host: the packages are fetched with a private apt configuration and unpacked with `dpkg -x`.
#
#   real_driver_variant <current|tesla>   selects the driver: Debian's nvidia-driver 535.261.03
#                                         (amd64 + i386, libraries in nvidia/current) or
#                                         nvidia-tesla-driver 525.147.05 (amd64, nvidia/tesla);
#                                         sets REAL_DRIVER_VERSION, REAL_DRIVER_SUBDIR
#   real_driver_fetch                     downloads the variant's packages into the cache
#                                         ($NVCT_CACHE_DIR/driver-<version>, default
#                                         /var/cache/nvct-test) unless already there, and unpacks
#                                         them once per arch into <cache>/tree-<arch>
#   real_driver_root <layout> <out>       makes a driver root: layout "debian" (libraries under
#                                         nvidia/<subdir>, reached through the alternatives
#                                         symlinks that nvidia-alternative's postinst makes) or
#                                         "flat" (the layout of NVIDIA's .run installer: every
#                                         file in the library directory, soname links beside)
#
# Source after common.sh. Needs root (device nodes), apt-get, dpkg, ldconfig.

REAL_DRIVER_ARCHIVE="${NVCT_DEBIAN_ARCHIVE:-http://deb.debian.org/debian}"

# What libnvidia-container and nvct look for, by capability (driver.md §2.2), as Debian packages
# them. i386 has the same minus the utility/ngx/debugger/cfg/api packages.
REAL_DRIVER_PACKAGES_AMD64=(
  libnvidia-ml1 nvidia-smi libnvidia-cfg1 libnvidia-api1
  libcuda1 libcudadebugger1 libnvidia-ptxjitcompiler1 libnvidia-nvvm4 libnvidia-allocator1
  libnvidia-ngx1
  libnvcuvid1 libnvidia-encode1 libnvidia-opticalflow1
  libnvidia-eglcore libnvidia-glcore libnvidia-glvkspirv libnvidia-rtcore libnvidia-fbc1
  libglx-nvidia0 libegl-nvidia0 libgles-nvidia1 libgles-nvidia2
)
REAL_DRIVER_PACKAGES_I386=(
  libnvidia-ml1 libcuda1 libnvidia-ptxjitcompiler1 libnvidia-nvvm4 libnvidia-allocator1
  libnvcuvid1 libnvidia-encode1 libnvidia-opticalflow1
  libnvidia-eglcore libnvidia-glcore libnvidia-glvkspirv libnvidia-fbc1
  libglx-nvidia0 libegl-nvidia0 libgles-nvidia1 libgles-nvidia2
)
# The Tesla variant (Debian packages it for datacenter GPUs; amd64 only here).
REAL_DRIVER_PACKAGES_TESLA=(
  libnvidia-tesla-ml1 nvidia-tesla-smi libnvidia-tesla-cfg1
  libnvidia-tesla-cuda1 libnvidia-tesla-cudadebugger1 libnvidia-tesla-ptxjitcompiler1
  libnvidia-tesla-nvvm4 libnvidia-tesla-allocator1 libnvidia-tesla-compiler
  libnvidia-tesla-nvcuvid1 libnvidia-tesla-encode1 libnvidia-tesla-opticalflow1
  libnvidia-tesla-eglcore libnvidia-tesla-glcore libnvidia-tesla-glvkspirv libnvidia-tesla-fbc1
  libglx-nvidia-tesla0 libegl-nvidia-tesla0 libgles-nvidia-tesla1 libgles-nvidia-tesla2
)

real_driver_variant() {
  case "$1" in
    current)
      REAL_DRIVER_VERSION=535.261.03 REAL_DRIVER_DEBVERSION=535.261.03-1 REAL_DRIVER_SUBDIR=current
      REAL_DRIVER_CUDA=12020 REAL_DRIVER_ARCHES=(amd64 i386) ;;
    tesla)
      REAL_DRIVER_VERSION=525.147.05 REAL_DRIVER_DEBVERSION=525.147.05-15~deb12u1
      REAL_DRIVER_SUBDIR=tesla REAL_DRIVER_CUDA=12000 REAL_DRIVER_ARCHES=(amd64) ;;
    *) e2e_die "real_driver_variant: unknown variant $1 (current or tesla)" ;;
  esac
  REAL_DRIVER_VARIANT="$1"
  REAL_DRIVER_CACHE="${NVCT_CACHE_DIR:-/var/cache/nvct-test}/driver-$REAL_DRIVER_VERSION"
}
real_driver_variant current

_real_apt() {
  local c="${NVCT_CACHE_DIR:-/var/cache/nvct-test}/driver-apt"
  apt-get -q -o Dir::Etc::SourceList="$c/sources.list" -o Dir::Etc::SourceParts=/dev/null \
    -o Dir::State::Lists="$c/lists" -o Dir::Cache="$c/cache" -o Dir::State::status=/dev/null \
    -o APT::Architectures::=amd64 -o APT::Architectures::=i386 -o Debug::NoLocking=1 "$@"
}

# real_driver_fetch: every package present and intact (dpkg-deb reads it), else downloaded.
real_driver_fetch() {
  require_cmd apt-get dpkg-deb dpkg ldconfig
  local arch pkgs want missing=() p f apt="${NVCT_CACHE_DIR:-/var/cache/nvct-test}/driver-apt"
  mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial"
  for arch in "${REAL_DRIVER_ARCHES[@]}"; do
    mkdir -p "$REAL_DRIVER_CACHE/debs-$arch"
    if [ "$REAL_DRIVER_VARIANT" = tesla ]; then pkgs=("${REAL_DRIVER_PACKAGES_TESLA[@]}")
    elif [ "$arch" = amd64 ]; then pkgs=("${REAL_DRIVER_PACKAGES_AMD64[@]}")
    else pkgs=("${REAL_DRIVER_PACKAGES_I386[@]}"); fi
    for p in "${pkgs[@]}"; do
      f="$REAL_DRIVER_CACHE/debs-$arch/${p}_${REAL_DRIVER_DEBVERSION}_$arch.deb"
      if [ ! -s "$f" ] || ! dpkg-deb --info "$f" >/dev/null 2>&1; then
        rm -f "$f"
        missing+=("$p:$arch")
      fi
    done
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "# fetching ${#missing[@]} packages of NVIDIA's driver $REAL_DRIVER_VERSION from $REAL_DRIVER_ARCHIVE (non-free)"
    printf 'deb %s bookworm main contrib non-free non-free-firmware\n' "$REAL_DRIVER_ARCHIVE" \
      >"$apt/sources.list"
    _real_apt update >"$apt/update.log" 2>&1 ||
      e2e_die "apt-get update with a private sources list ($REAL_DRIVER_ARCHIVE) failed: $(tail -3 "$apt/update.log")"
    for arch in "${REAL_DRIVER_ARCHES[@]}"; do
      want=()
      for p in "${missing[@]}"; do [[ "$p" == *":$arch" ]] && want+=("${p%:*}:$arch=$REAL_DRIVER_DEBVERSION"); done
      [ "${#want[@]}" -gt 0 ] || continue
      (cd "$REAL_DRIVER_CACHE/debs-$arch" && _real_apt download "${want[@]}") \
        >"$apt/download-$arch.log" 2>&1 ||
        e2e_die "apt-get download of NVIDIA's driver packages failed: $(tail -3 "$apt/download-$arch.log")"
      rm -rf "$REAL_DRIVER_CACHE/tree-$arch"
    done
  fi
  # One unpacked tree per arch, reused (hard-linked) by every root.
  for arch in "${REAL_DRIVER_ARCHES[@]}"; do
    [ -f "$REAL_DRIVER_CACHE/tree-$arch/.complete" ] && continue
    rm -rf "$REAL_DRIVER_CACHE/tree-$arch"
    mkdir -p "$REAL_DRIVER_CACHE/tree-$arch"
    for f in "$REAL_DRIVER_CACHE/debs-$arch"/*_"$arch".deb; do
      dpkg -x "$f" "$REAL_DRIVER_CACHE/tree-$arch" || e2e_die "dpkg -x $f failed"
    done
    rm -rf "$REAL_DRIVER_CACHE/tree-$arch/usr/share/doc" "$REAL_DRIVER_CACHE/tree-$arch/usr/share/lintian" \
      "$REAL_DRIVER_CACHE/tree-$arch/usr/share/bug"
    touch "$REAL_DRIVER_CACHE/tree-$arch/.complete"
  done
}

# _real_alternative <root> <link> <target>: what `update-alternatives` leaves in a root: the
# link, a link in /etc/alternatives, then the target (absolute, as on a Debian host: they must be
# resolved inside the root).
_real_alternative() {
  local root="$1" link="$2" target="$3" name
  [ -e "$root$target" ] || [ -L "$root$target" ] || return 0
  name="$(basename "$link")"
  case "$link" in
    /usr/lib/x86_64-linux-gnu/*) name="$name-x86_64-linux-gnu" ;;
    /usr/lib/i386-linux-gnu/*) name="$name-i386-linux-gnu" ;;
  esac
  mkdir -p "$root/etc/alternatives" "$root$(dirname "$link")"
  ln -sfn "$target" "$root/etc/alternatives/$name"
  ln -sfn "/etc/alternatives/$name" "$root$link"
}

# real_driver_root <debian|flat> <out>
real_driver_root() {
  local layout="$1" out="$2" topo="$E2E_TMP/real-driver.conf" arch libdir mock f name soname
  real_driver_fetch
  cat >"$topo" <<EOF
driver_version = $REAL_DRIVER_VERSION
cuda_version = $REAL_DRIVER_CUDA
graphics = yes
gpu = minor=0; bus=00000000:17:00.0; uuid=GPU-53553553-2610-4000-8000-000000000000; model=NVIDIA L40S; brand=Nvidia; arch=8.9; pci_device_id=0x26b910de; mig=disabled
EOF
  "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$topo" --out "$out" >/dev/null || e2e_die "make-driver-root.sh failed for $out"
  # Keep the mock NVML (both arches), drop every other mock library and the mock nvidia-smi.
  mkdir -p "$E2E_TMP/mock-nvml"
  cp "$out/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.$REAL_DRIVER_VERSION" "$E2E_TMP/mock-nvml/amd64"
  cp "$out/usr/lib/i386-linux-gnu/libnvidia-ml.so.$REAL_DRIVER_VERSION" "$E2E_TMP/mock-nvml/i386"
  rm -rf "$out/usr/lib/x86_64-linux-gnu" "$out/usr/lib/i386-linux-gnu" "$out/usr/bin/nvidia-smi" \
    "$out/etc/ld.so.cache"
  local sub="$REAL_DRIVER_SUBDIR"
  for arch in "${REAL_DRIVER_ARCHES[@]}"; do
    if [ "$arch" = amd64 ]; then libdir=usr/lib/x86_64-linux-gnu; else libdir=usr/lib/i386-linux-gnu; fi
    mock="$E2E_TMP/mock-nvml/$arch"
    case "$layout" in
      debian)
        cp -al "$REAL_DRIVER_CACHE/tree-$arch/." "$out/"
        rm -f "$out/.complete"
        # The mock NVML replaces the real one (a copy: the tree's file is hard-linked).
        rm -f "$out/$libdir/nvidia/$sub/libnvidia-ml.so.$REAL_DRIVER_VERSION"
        cp "$mock" "$out/$libdir/nvidia/$sub/libnvidia-ml.so.$REAL_DRIVER_VERSION"
        # nvidia-alternative's multiarch slaves, for the files that exist.
        for name in libGLX_nvidia.so.0 libEGL_nvidia.so.0 libGLESv1_CM_nvidia.so.1 \
          libGLESv2_nvidia.so.2 libcuda.so.1 libcuda.so libcudadebugger.so.1 libnvcuvid.so.1 \
          libnvcuvid.so libnvidia-allocator.so.1 libnvidia-api.so.1 libnvidia-encode.so.1 \
          libnvidia-fbc.so.1 libnvidia-ml.so.1 libnvidia-ngx.so.1 libnvidia-nvvm.so.4 \
          "libnvidia-nvvm.so.$REAL_DRIVER_VERSION" libnvidia-opencl.so.1 libnvidia-opticalflow.so.1 \
          libnvidia-ptxjitcompiler.so.1 libnvoptix.so.1; do
          _real_alternative "$out" "/$libdir/$name" "/$libdir/nvidia/$sub/$name"
        done
        _real_alternative "$out" "/$libdir/nvidia/libnvidia-cfg.so.1" "/$libdir/nvidia/$sub/libnvidia-cfg.so.1"
        _real_alternative "$out" "/$libdir/gbm/nvidia-drm_gbm.so" "/$libdir/nvidia/$sub/nvidia-drm_gbm.so"
        ;;
      flat)
        # Every regular file in the one library directory, then the links NVIDIA's installer
        # makes: the soname link and, for the libraries that have one, the .so link.
        mkdir -p "$out/$libdir"
        while IFS= read -r -d '' f; do
          ln "$f" "$out/$libdir/$(basename "$f")"
        done < <(find "$REAL_DRIVER_CACHE/tree-$arch/$libdir" -type f -name 'lib*.so*' -print0)
        rm -f "$out/$libdir/libnvidia-ml.so.$REAL_DRIVER_VERSION"
        cp "$mock" "$out/$libdir/libnvidia-ml.so.$REAL_DRIVER_VERSION"
        for f in "$out/$libdir"/lib*.so."$REAL_DRIVER_VERSION"; do
          soname="$(objdump -p "$f" 2>/dev/null | awk '$1 == "SONAME" { print $2 }')"
          if [ -n "$soname" ] && [ "$soname" != "$(basename "$f")" ]; then
            ln -sfn "$(basename "$f")" "$out/$libdir/$soname"
          fi
        done
        for name in libcuda libnvidia-ml libnvcuvid libnvidia-encode libnvidia-fbc \
          libnvidia-opticalflow libnvidia-ngx; do
          [ -e "$out/$libdir/$name.so.1" ] && ln -sfn "$name.so.1" "$out/$libdir/$name.so"
        done
        ;;
      *) e2e_die "real_driver_root: unknown layout $layout (debian or flat)" ;;
    esac
  done
  if [ "$layout" = debian ]; then
    _real_alternative "$out" /usr/bin/nvidia-smi "/usr/lib/nvidia/$sub/nvidia-smi"
  else
    mkdir -p "$out/usr/bin"
    ln "$REAL_DRIVER_CACHE/tree-amd64/usr/lib/nvidia/$sub/nvidia-smi" "$out/usr/bin/nvidia-smi"
  fi
  # What Debian's libc6 and the driver packages leave in /etc/ld.so.conf.d.
  printf '/usr/lib/x86_64-linux-gnu\n/usr/lib/i386-linux-gnu\n/opt/nvidia-535.00.01/lib\n' >"$out/etc/ld.so.conf"
  "$(PATH="$PATH:/usr/sbin:/sbin" command -v ldconfig)" -r "$out" 2>"$E2E_TMP/ldconfig.err" ||
    e2e_die "ldconfig -r $out failed: $(cat "$E2E_TMP/ldconfig.err")"
}
