#!/usr/bin/env bash
# Writes the docker build context of the nvct-installer image from an nvct build tree, using only
# this machine's files (no registry, no network):
#   <out>/Dockerfile, <out>/nvct-installer.sh
#   <out>/rootfs.tar: busybox-static with its applets in /bin; the nvct binaries in
#     /opt/nvct/toolkit (the payload nvct-installer.sh copies to the node), dynamically linked
#     ones as <name>.real next to their non-glibc libraries in /opt/nvct/toolkit/lib; the glibc
#     files those binaries load, at their usual paths, so they also run inside the image.
# Usage: build-context.sh <build-dir> <out-dir>
# The binaries come from `cmake --install <build-dir> --strip` into a staging directory; a binary
# the install rules do not provide is taken from <build-dir>/bin (or, in older trees,
# <build-dir>/src/cmd/<name>/<name>), stripped.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
[ $# -eq 2 ] || {
  echo "usage: $0 <nvct-build-dir> <out-dir>" >&2
  exit 2
}
build="$(cd "$1" && pwd)" || exit 1
out="$2"

die() {
  echo "build-context: $*" >&2
  exit 1
}

binaries=(nvidia-container-runtime nvidia-container-runtime-hook nvidia-container-cli nvidia-ctk
  nvidia-cdi-hook nvidia-container-runtime-nvml)
# name -> target: the aliases NVIDIA's toolkit directory has (mode from argv[0] for the shim's).
links=("nvidia-container-toolkit nvidia-container-runtime-hook"
  "nvidia-container-runtime.cdi nvidia-container-runtime"
  "nvidia-container-runtime.legacy nvidia-container-runtime")

command -v busybox >/dev/null || die "busybox not found (apt-get install busybox-static)"
busybox="$(command -v busybox)"
if ldd "$busybox" 2>&1 | grep -q '=>'; then die "$busybox is not static (apt-get install busybox-static)"; fi

work="$(mktemp -d "${TMPDIR:-/tmp}/nvct-installer-context.XXXXXX")"
trap 'rm -rf "$work"' EXIT
root="$work/rootfs"
payload="$root/opt/nvct/toolkit"

# --- the binaries -------------------------------------------------------------------------------
stage="$work/stage"
if ! DESTDIR="$stage" cmake --install "$build" --prefix /usr --strip >"$work/install.log" 2>&1; then
  echo "build-context: cmake --install failed, binaries come from the build tree:" >&2
  tail -n 3 "$work/install.log" >&2
fi
mkdir -p "$payload/lib"
for name in "${binaries[@]}"; do
  src="$(find "$stage" -name "$name" -type f -perm -u+x 2>/dev/null | head -n 1)"
  if [ -z "$src" ]; then
    src="$build/bin/$name"
    [ -x "$src" ] || src="$build/src/cmd/$name/$name"
    [ -x "$src" ] || die "$name is neither installed by cmake --install nor built in $build/bin"
    echo "build-context: $name from the build tree" >&2
    cp "$src" "$payload/$name"
    strip --strip-debug "$payload/$name"
  else
    cp "$src" "$payload/$name"
  fi
done
for link in "${links[@]}"; do
  ln -sfn "${link#* }" "$payload/${link%% *}"
done

# --- libraries: glibc into the image's own paths, the rest next to the binaries ----------------
is_glibc() {
  case "${1##*/}" in
    ld-linux*.so* | libc.so* | libm.so* | libmvec.so* | libpthread.so* | libdl.so* | librt.so* | \
      libresolv.so* | libutil.so* | libanl.so*) return 0 ;;
    *) return 1 ;;
  esac
}
copy_into_root() {
  local path="$1"
  mkdir -p "$root$(dirname "$path")"
  cp -L "$path" "$root$path"
}
for name in "${binaries[@]}"; do
  deps="$(ldd "$payload/$name" 2>&1 || true)"
  if ! grep -q '=>' <<<"$deps"; then continue; fi # static
  mv "$payload/$name" "$payload/$name.real"
  while read -r lib; do
    [ -n "$lib" ] || continue
    if is_glibc "$lib"; then
      copy_into_root "$lib"
    else
      cp -L "$lib" "$payload/lib/${lib##*/}"
    fi
  done < <(awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }' <<<"$deps")
done
# The loader as the binaries name it (PT_INTERP) and as ld.so.cache-less lookups find it.
for interp in /lib64/ld-linux-x86-64.so.2 /lib/ld-linux-aarch64.so.1; do
  [ -e "$interp" ] && copy_into_root "$interp"
done

# --- busybox and the rest of the root -----------------------------------------------------------
mkdir -p "$root"/{bin,dev,etc,host,proc,run,sys,tmp,usr/local/bin,usr/local/nvidia} \
  "$root"/etc/{containerd,crio}
chmod 1777 "$root/tmp"
cp "$busybox" "$root/bin/busybox"
for applet in $("$busybox" --list); do
  [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
done
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\n' >"$root/etc/group"

mkdir -p "$out"
tar -C "$root" --numeric-owner --owner=0 --group=0 -cf "$out/rootfs.tar" .
cp "$here/Dockerfile" "$here/nvct-installer.sh" "$out/"
chmod 0755 "$out/nvct-installer.sh"
echo "build-context: wrote $out ($(du -sh "$out/rootfs.tar" | cut -f1) rootfs)" >&2
