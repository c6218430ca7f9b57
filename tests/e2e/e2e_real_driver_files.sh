#!/usr/bin/env bash
# NVIDIA's real driver userspace (Debian 12 non-free 535.261.03, fetched with a private sources
# list and unpacked with dpkg -x, never installed) in two layouts: Debian's (libraries under
# nvidia/current, reached through alternatives symlinks that are absolute and so must be resolved
# inside the driver root) and the flat layout of NVIDIA's .run installer; and Debian's Tesla
# variant (525.147.05, nvidia/tesla) in Debian's layout. NVML needs the kernel
# module, so the mock NVML stands in for the real libnvidia-ml.so.535.261.03 (in Debian's layout
# it is loaded from nvidia/current).
#
# For each layout: `nvidia-container-cli list` and `cdi generate` equal the file sets written
# below, and for each capability the files the prestart hook mounts into a container (and the
# links it makes) equal the expected sets. When NVIDIA's own binaries are at $NVCT_PEER_DIR
# (default: ../shared/peers beside the source tree), `info`, `list` and the hook's mounts are also
# compared with libnvidia-container 1.17 on the same root (identical when this test was written).
# Finally, the real libnvidia-ml without a kernel module: `info` fails in one line saying so, and
# `list` still finds the files through ld.so.cache.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/configure.sh"
source "$(dirname "$0")/lib/real_driver.sh"
require_root
require_cmd unshare nsenter chroot busybox objdump

cli="$(nvct_bin nvidia-container-cli)"
hook="$(nvct_bin nvidia-container-runtime-hook)"
ctk="$(nvct_bin nvidia-ctk)"
cdi_hook="$(nvct_bin nvidia-cdi-hook)"
peer_dir="${NVCT_PEER_DIR:-$NVCT_SOURCE_DIR/../shared/peers}"
peer=""
if [ -x "$peer_dir/bin/nvidia-container-cli" ] && [ -x "$peer_dir/bin/nvidia-container-runtime-hook" ]; then
  peer="$peer_dir/bin"
  echo "# comparing with NVIDIA's binaries in $peer"
else
  echo "# NOTE: no NVIDIA peer binaries at $peer_dir (set NVCT_PEER_DIR): only the expected sets are checked"
fi

# --- the expected file sets (driver.md §2.2, §10) ---------------------------------------------
# Library stems by capability, as `list` prints them (the file named after the driver version),
# for the variant real_driver_variant selected.
expected_stems() {
  V=$REAL_DRIVER_VERSION
  utility64="libnvidia-ml"
  utility64_flat="libnvidia-ml libnvidia-cfg" # Debian keeps libnvidia-cfg off the loader's path
  compute64="libcuda libcudadebugger libnvidia-ptxjitcompiler libnvidia-allocator libnvidia-nvvm"
  ngx64="libnvidia-ngx"
  video64="libnvidia-encode libnvidia-opticalflow libnvcuvid"
  graphics64="libnvidia-eglcore libnvidia-glcore libnvidia-tls libnvidia-glsi libnvidia-fbc libnvidia-rtcore libGLX_nvidia libEGL_nvidia libGLESv2_nvidia libGLESv1_CM_nvidia libnvidia-glvkspirv"
  utility32="libnvidia-ml"
  compute32="libcuda libnvidia-ptxjitcompiler libnvidia-allocator libnvidia-nvvm"
  video32="libnvidia-encode libnvidia-opticalflow libnvcuvid"
  graphics32="libnvidia-eglcore libnvidia-glcore libnvidia-tls libnvidia-glsi libnvidia-fbc libGLX_nvidia libEGL_nvidia libGLESv2_nvidia libGLESv1_CM_nvidia libnvidia-glvkspirv"
  if [ "$REAL_DRIVER_VARIANT" = tesla ]; then
    # 525's Tesla packages: libnvidia-compiler still exists, no NGX or rtcore here, amd64 only.
    compute64="libcuda libcudadebugger libnvidia-ptxjitcompiler libnvidia-allocator libnvidia-compiler libnvidia-nvvm"
    ngx64=""
    graphics64="${graphics64/ libnvidia-rtcore/}"
    utility32="" compute32="" video32="" graphics32=""
  fi
}
# Where each library file lives in a layout: Debian keeps the versioned core files (eglcore,
# glcore, tls, glsi, rtcore, glvkspirv, compiler) in the multiarch directory itself.
lib_path() { # <layout> <libdir> <stem>
  case "$1:$3" in
    debian:libnvidia-eglcore | debian:libnvidia-glcore | debian:libnvidia-tls | debian:libnvidia-glsi | \
      debian:libnvidia-rtcore | debian:libnvidia-glvkspirv | debian:libnvidia-compiler | flat:*)
      echo "/$2/$3.so.$V" ;;
    debian:*) echo "/$2/nvidia/$REAL_DRIVER_SUBDIR/$3.so.$V" ;;
  esac
}
expected_list() { # <layout>: the whole `list` output, in libnvidia-container's order
  local layout="$1" s smi=/usr/bin/nvidia-smi utility="$utility64"
  [ "$layout" = debian ] && smi="/usr/lib/nvidia/$REAL_DRIVER_SUBDIR/nvidia-smi"
  [ "$layout" = flat ] && utility="$utility64_flat"
  printf '%s\n' /dev/nvidiactl /dev/nvidia-uvm /dev/nvidia-uvm-tools /dev/nvidia-modeset /dev/nvidia0 \
    "$smi" /usr/bin/nvidia-debugdump /usr/bin/nvidia-persistenced /usr/bin/nv-fabricmanager \
    /usr/bin/nvidia-cuda-mps-control /usr/bin/nvidia-cuda-mps-server
  for s in $utility $compute64 $ngx64 $video64 $graphics64; do lib_path "$layout" usr/lib/x86_64-linux-gnu "$s"; done
  for s in $utility32 $compute32 $video32 $graphics32; do lib_path "$layout" usr/lib/i386-linux-gnu "$s"; done
  printf '%s\n' /run/nvidia-persistenced/socket /tmp/nvidia-mps \
    "/lib/firmware/nvidia/$V/gsp_ga10x.bin" "/lib/firmware/nvidia/$V/gsp_tu10x.bin"
}

# The hook's mounts, container paths: libraries go to the container's multiarch directory under
# their file name; binaries to /usr/bin; plus the device nodes, the GPU's procfs directory and
# the GSP firmware for every capability (mount.md §4). video implies compute, display implies
# graphics (with /dev/nvidia-modeset); graphics adds the application-profile tmpfs. compat32
# adds the 32-bit files of the other capabilities asked for, so alone it adds nothing.
expected_mounts() { # <layout> <capability>
  local layout="$1" cap="$2" s stems32="" stems64="" bins="" extra=""
  local ubins="nvidia-smi nvidia-debugdump nvidia-persistenced nv-fabricmanager"
  local cbins="nvidia-cuda-mps-control nvidia-cuda-mps-server"
  local profile=/etc/nvidia/nvidia-application-profiles-rc.d
  local uvm="/dev/nvidia-uvm /dev/nvidia-uvm-tools /tmp/nvidia-mps"
  case "$cap" in
    utility) stems64="$utility64"; bins="$ubins"; extra=/run/nvidia-persistenced/socket ;;
    compute) stems64="$compute64"; bins="$cbins"; extra="$uvm" ;;
    video) stems64="$compute64 $video64"; extra="$uvm" ;;
    graphics) stems64="$graphics64"; extra="$profile" ;;
    display) stems64="$graphics64"; extra="$profile /dev/nvidia-modeset" ;;
    ngx) stems64="$ngx64" ;;
    compat32) ;;
    all) stems64="$utility64 $compute64 $ngx64 $video64 $graphics64"
      stems32="$utility32 $compute32 $video32 $graphics32"
      bins="$ubins $cbins"; extra="/run/nvidia-persistenced/socket $uvm $profile /dev/nvidia-modeset" ;;
  esac
  [ "$layout" = flat ] && [[ " $stems64 " == *" libnvidia-ml "* ]] && stems64="$stems64 libnvidia-cfg"
  {
    for s in $stems64; do echo "/usr/lib/x86_64-linux-gnu/$s.so.$V"; done
    for s in $stems32; do echo "/usr/lib/i386-linux-gnu/$s.so.$V"; done
    for s in $bins; do echo "/usr/bin/$s"; done
    for s in $extra; do echo "$s"; done
    printf '%s\n' /dev/nvidiactl /dev/nvidia0 /proc/driver/nvidia/gpus/0000:17:00.0 \
      "/lib/firmware/nvidia/$V/gsp_ga10x.bin" "/lib/firmware/nvidia/$V/gsp_tu10x.bin"
  } | sort
}

# --- running a hook on a stand-in container ------------------------------------------------------
template="$E2E_TMP/rootfs-template"
make_rootfs "$template" glibc

# hook_effects <hook> <config.toml> <capability>: the container mounts (rootfs-relative, sorted,
# minus the stand-in's procfs) and then the links the hook added, as "link -> target".
hook_effects() {
  local hook_bin="$1" config="$2" cap="$3" bundle="$E2E_TMP/bundle"
  rm -rf "$bundle"
  mkdir -p "$bundle"
  cp -a "$template" "$bundle/rootfs"
  CFG_ROOTFS="$bundle/rootfs"
  cfg_start_container
  # As with the real module: /proc/driver/nvidia exists (libnvidia-container mounts over it).
  nsenter -m -t "$CFG_PID" mkdir -p "$CFG_ROOTFS/proc/driver/nvidia"
  printf '{"ociVersion":"1.0.2","process":{"args":["sh"],"cwd":"/","env":["NVIDIA_VISIBLE_DEVICES=all","NVIDIA_DRIVER_CAPABILITIES=%s"]},"root":{"path":"rootfs"}}' \
    "$cap" >"$bundle/config.json"
  printf '{"ociVersion":"1.0.2","id":"real-%s","status":"creating","pid":%s,"bundle":"%s"}' \
    "$cap" "$CFG_PID" "$bundle" >"$E2E_TMP/state.json"
  if ! (cd "$bundle" && "$hook_bin" -config "$config" prestart <"$E2E_TMP/state.json") \
    >"$E2E_TMP/hook.out" 2>&1; then
    echo "HOOK FAILED: $(cat "$E2E_TMP/hook.out")"
  fi
  cfg_container_mounts | sed "s|^$CFG_ROOTFS||" | { grep -v '^/proc/driver/nvidia$' || true; } | sort
  echo "--- links"
  (cd "$CFG_ROOTFS" && find . -type l -newer "$bundle/config.json" -printf '/%P -> %l\n' | sort)
  cfg_stop_container
}

for case_ in current:debian current:flat tesla:debian; do
  variant="${case_%%:*}" layout="${case_#*:}"
  real_driver_variant "$variant"
  expected_stems
  root="$E2E_TMP/driver-$variant-$layout"
  real_driver_root "$layout" "$root"
  [ "$variant" = tesla ] && layout_name="tesla" || layout_name="$layout"

  # list
  "$cli" --root "$root" list >"$E2E_TMP/list" 2>"$E2E_TMP/list.err" || failed "$layout_name: list: $(cat "$E2E_TMP/list.err")"
  expected_list "$layout" >"$E2E_TMP/list.want"
  if diff -u "$E2E_TMP/list.want" "$E2E_TMP/list" >"$E2E_TMP/list.diff"; then
    pass "$layout_name: list prints the expected $(wc -l <"$E2E_TMP/list.want") paths"
  else
    failed "$layout_name: list differs from the expected set: $(cat "$E2E_TMP/list.diff")"
  fi
  check_contains "$layout_name: info reads the mock NVML (CUDA version)" "CUDA version:   $((REAL_DRIVER_CUDA / 1000)).$((REAL_DRIVER_CUDA % 1000 / 10))" \
    "$("$cli" --root "$root" info 2>&1)"

  # cdi generate: the libraries, nvidia-smi, the libcuda.so link hook
  "$ctk" cdi generate --driver-root "$root" --nvidia-cdi-hook-path "$cdi_hook" --format json \
    --output "$E2E_TMP/cdi.json" >"$E2E_TMP/cdi.log" 2>&1 || failed "$layout_name: cdi generate: $(cat "$E2E_TMP/cdi.log")"
  if [ -s "$E2E_TMP/cdi.json" ]; then
    jq -r '[.containerEdits.mounts[]?.hostPath] | .[]' "$E2E_TMP/cdi.json" | grep '\.so' |
      sed "s|^$root||" | sort >"$E2E_TMP/cdi.libs"
    # cdi.md §6.3: every 64-bit *.so.<driver version> of the ldcache (the flat layout's
    # libnvidia-vulkan-producer too; Debian keeps it off the loader's path), and the Xorg driver
    # modules of a graphics = yes root.
    { grep '\.so' "$E2E_TMP/list.want" | grep -v i386
      [ "$layout" = flat ] && echo "/usr/lib/x86_64-linux-gnu/libnvidia-vulkan-producer.so.$V"
      printf '%s\n' /usr/lib/xorg/modules/drivers/nvidia_drv.so "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.$V"
    } | sort >"$E2E_TMP/cdi.want"
    if diff -u "$E2E_TMP/cdi.want" "$E2E_TMP/cdi.libs" >"$E2E_TMP/cdi.diff"; then
      pass "$layout_name: cdi generate mounts the expected 64-bit libraries"
    else
      failed "$layout_name: cdi generate libraries differ: $(cat "$E2E_TMP/cdi.diff")"
    fi
    # nvidia-smi where PATH finds it on the host, from the file it resolves to (Debian's
    # alternatives link points into /usr/lib/nvidia/current, on no container's PATH).
    smi_file=/usr/bin/nvidia-smi
    [ "$layout" = debian ] && smi_file="/usr/lib/nvidia/$REAL_DRIVER_SUBDIR/nvidia-smi"
    check_eq "$layout_name: cdi generate mounts nvidia-smi at /usr/bin/nvidia-smi" "$root$smi_file" \
      "$(jq -r '.containerEdits.mounts[] | select(.containerPath == "/usr/bin/nvidia-smi") | .hostPath' "$E2E_TMP/cdi.json")"
    # The link goes beside the library, in the directory the spec mounts it at (cdi.md §6.4).
    libcuda_dir="$(dirname "$(lib_path "$layout" usr/lib/x86_64-linux-gnu libcuda)")"
    check_contains "$layout_name: cdi generate creates the libcuda.so link" "libcuda.so.1::$libcuda_dir/libcuda.so" \
      "$(jq -c '.containerEdits.hooks' "$E2E_TMP/cdi.json")"
  fi

  cfg_hook_config "$root" "$cli" "$E2E_TMP/nvct.toml"
  [ -n "$peer" ] && cfg_hook_config "$root" "$peer/nvidia-container-cli" "$E2E_TMP/peer.toml"
  for cap in utility compute video graphics display ngx compat32 all; do
    hook_effects "$hook" "$E2E_TMP/nvct.toml" "$cap" >"$E2E_TMP/nvct.$cap"
    sed '/^--- links$/,$d' "$E2E_TMP/nvct.$cap" >"$E2E_TMP/nvct.$cap.mounts"
    expected_mounts "$layout" "$cap" >"$E2E_TMP/want.$cap"
    if diff -u "$E2E_TMP/want.$cap" "$E2E_TMP/nvct.$cap.mounts" >"$E2E_TMP/diff.$cap"; then
      pass "$layout_name/$cap: the hook mounts the expected $(wc -l <"$E2E_TMP/want.$cap") paths"
    else
      failed "$layout_name/$cap: the hook's mounts differ from the expected set: $(cat "$E2E_TMP/diff.$cap")"
    fi
    case "$cap" in compute | all)
      check_contains "$layout_name/$cap: libcuda.so link" "/usr/lib/x86_64-linux-gnu/libcuda.so -> libcuda.so.1" "$(cat "$E2E_TMP/nvct.$cap")" ;;
    esac
    if [ -n "$peer" ]; then
      PATH="$peer:$PATH" hook_effects "$peer/nvidia-container-runtime-hook" "$E2E_TMP/peer.toml" "$cap" >"$E2E_TMP/peer.$cap"
      if diff -u "$E2E_TMP/peer.$cap" "$E2E_TMP/nvct.$cap" >"$E2E_TMP/pdiff.$cap"; then
        pass "$layout_name/$cap: mounts and links equal libnvidia-container 1.17's"
      else
        failed "$layout_name/$cap: differs from libnvidia-container 1.17: $(cat "$E2E_TMP/pdiff.$cap")"
      fi
    fi
  done

  if [ -n "$peer" ]; then
    "$peer/nvidia-container-cli" --root "$root" list >"$E2E_TMP/peer.list" 2>&1 || true
    check "$layout_name: list equals libnvidia-container 1.17's" same_file "$E2E_TMP/peer.list" "$E2E_TMP/list"
    "$peer/nvidia-container-cli" --root "$root" info >"$E2E_TMP/peer.info" 2>&1 || true
    "$cli" --root "$root" info >"$E2E_TMP/nvct.info" 2>&1 || true
    check "$layout_name: info equals libnvidia-container 1.17's" same_file "$E2E_TMP/peer.info" "$E2E_TMP/nvct.info"
  fi
done

# --- ldconfig in a rootfs without a glibc loader ------------------------------------------------
# A busybox image has no ld-linux: the host's static ldconfig still runs (as libnvidia-container
# does) and the image gets an ld.so.cache with the driver's libraries.
template="$E2E_TMP/rootfs-busybox"
make_rootfs "$template" busybox
check "busybox rootfs: no glibc loader" test ! -e "$template/lib64/ld-linux-x86-64.so.2"
hook_effects "$hook" "$E2E_TMP/nvct.toml" compute >"$E2E_TMP/busybox.nvct"
cache="$E2E_TMP/bundle/rootfs/etc/ld.so.cache"
check "busybox rootfs: the hook wrote /etc/ld.so.cache" test -f "$cache"
check_contains "busybox rootfs: the cache has libcuda.so.1" "libcuda.so.1 (libc6,x86-64)" \
  "$(/sbin/ldconfig -p -C "$cache" 2>&1 || true)"
if [ -n "$peer" ]; then
  # The entries; the "Cache generated by" line names the writer (nvct writes the cache natively,
  # libnvidia-container execs the host's ldconfig: deviations.md).
  /sbin/ldconfig -p -C "$cache" 2>&1 | grep -v '^Cache generated by' >"$E2E_TMP/busybox.cache.nvct" || true
  PATH="$peer:$PATH" hook_effects "$peer/nvidia-container-runtime-hook" "$E2E_TMP/peer.toml" compute >"$E2E_TMP/busybox.peer"
  /sbin/ldconfig -p -C "$cache" 2>&1 | grep -v '^Cache generated by' >"$E2E_TMP/busybox.cache.peer" || true
  check "busybox rootfs: same mounts and links as libnvidia-container 1.17" same_file "$E2E_TMP/busybox.peer" "$E2E_TMP/busybox.nvct"
  check "busybox rootfs: same ld.so.cache entries as libnvidia-container 1.17" same_file \
    "$E2E_TMP/busybox.cache.peer" "$E2E_TMP/busybox.cache.nvct"
  same_file "$E2E_TMP/busybox.cache.peer" "$E2E_TMP/busybox.cache.nvct" ||
    diff "$E2E_TMP/busybox.cache.peer" "$E2E_TMP/busybox.cache.nvct" | sed 's/^/# /' | head -20
fi

# --- the real libnvidia-ml without a kernel module ------------------------------------------------
# The real NVML needs glibc in the root it is loaded in (libpthread, libdl, libm, librt), as on a
# host; it then fails with NVML_ERROR_DRIVER_NOT_LOADED since no module answers on /dev/nvidiactl.
real_driver_variant current
expected_stems
root="$E2E_TMP/driver-real-nvml"
real_driver_root debian "$root"
rm -f "$root/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.$V"
ln "$REAL_DRIVER_CACHE/tree-amd64/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.$V" \
  "$root/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.$V"
mkdir -p "$root/lib/x86_64-linux-gnu" "$root/lib64"
for f in libc.so.6 libdl.so.2 libpthread.so.0 libm.so.6 librt.so.1 ld-linux-x86-64.so.2; do
  cp "/lib/x86_64-linux-gnu/$f" "$root/lib/x86_64-linux-gnu/"
done
ln -s /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 "$root/lib64/ld-linux-x86-64.so.2"
# (1) The module's procfs is there (the mock's), NVML still cannot initialise: one warning line,
# and the procfs/ld.so.cache path finds the GPU and every file.
rc=0
"$cli" --root "$root" --debug="$E2E_TMP/debug.log" list >"$E2E_TMP/list.real" 2>"$E2E_TMP/list.real.err" || rc=$?
check_eq "real NVML, procfs present: list exits 0" 0 "$rc"
check_eq "real NVML, procfs present: one warning says why NVML is not used" \
  "nvml error: driver not loaded; using /proc/driver/nvidia instead of NVML (nvidia-smi shows the same failure; nvidia-ctk doctor checks the driver)" \
  "$(grep -o 'nvml error: .*' "$E2E_TMP/debug.log")"
expected_list debian >"$E2E_TMP/list.want"
check "real NVML, procfs present: list finds the GPU and the files" same_file "$E2E_TMP/list.want" "$E2E_TMP/list.real"
# (2) No module at all (no /proc/driver/nvidia): one line, exit 1, as libnvidia-container.
rm -rf "$root/proc/driver/nvidia"
rc=0
"$cli" --root "$root" info >"$E2E_TMP/info.out" 2>"$E2E_TMP/info.err" || rc=$?
check_eq "real NVML, no module: info exits 1" 1 "$rc"
check_eq "real NVML, no module: one line saying the driver is not loaded" \
  "nvidia-container-cli: initialization error: nvml error: driver not loaded" "$(cat "$E2E_TMP/info.err")"
if [ -n "$peer" ]; then
  "$peer/nvidia-container-cli" --root "$root" info >/dev/null 2>"$E2E_TMP/peer.info.err" || true
  check "real NVML, no module: the same line as libnvidia-container 1.17" same_file "$E2E_TMP/peer.info.err" "$E2E_TMP/info.err"
fi

e2e_finish
