# shellcheck shell=bash
# Builds container root filesystems and bundles from local files only (no registry, no network).
#   make_rootfs <dir> [busybox|glibc]
#     busybox: busybox-static with its applets linked into /bin, minimal /etc.
#     glibc:   busybox + the host's libc.so.6, ld-linux-x86-64.so.2 and the glibc libraries a
#              real driver's libraries need (libm, libdl, libpthread, librt) in
#              /lib/x86_64-linux-gnu (+ /lib64 link), the host's static /sbin/ldconfig,
#              /etc/ld.so.conf(.d) and /etc/debian_version, so driver libraries load and
#              `ldconfig -p` works inside.
#   make_bundle <bundle> [variant] [args...]: <bundle>/rootfs + a config.json from `runc spec`
#     with terminal=false and the given process args (default: sh -c 'echo ok').
#   bundle_set_env <bundle> NAME=VALUE...: appends to process.env.
#   rootfs_tar <rootfs> <tar>: a tarball for `docker import`.
# Source after common.sh.

# True when the binary needs no shared libraries (ldd lists none with "=>").
_is_static() {
  ! ldd "$1" 2>&1 | grep -q '=>'
}

_rootfs_busybox() {
  local root="$1" applet
  local bb
  bb="$(command -v busybox)" || e2e_die "busybox not found (apt-get install busybox-static)"
  _is_static "$bb" || e2e_die "$bb is not static (apt-get install busybox-static)"
  mkdir -p "$root"/{bin,sbin,etc,dev,proc,sys,tmp,root,run,usr/bin,usr/lib,var}
  chmod 1777 "$root/tmp"
  cp "$bb" "$root/bin/busybox"
  for applet in $("$bb" --list); do
    [ -e "$root/bin/$applet" ] || ln -s busybox "$root/bin/$applet"
  done
  printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' \
    >"$root/etc/passwd"
  printf 'root:x:0:\nvideo:x:44:\nnogroup:x:65534:\n' >"$root/etc/group"
  echo nvct-e2e >"$root/etc/hostname"
}

_rootfs_glibc() {
  local root="$1" lib=/lib/x86_64-linux-gnu f
  for f in "$lib/libc.so.6" "$lib/ld-linux-x86-64.so.2" /sbin/ldconfig /etc/debian_version; do
    [ -e "$f" ] || e2e_die "glibc rootfs needs host file $f"
  done
  _is_static /sbin/ldconfig || e2e_die "/sbin/ldconfig is not static"
  mkdir -p "$root$lib" "$root/lib64" "$root/usr$lib" "$root/etc/ld.so.conf.d"
  cp -L "$lib/libc.so.6" "$lib/ld-linux-x86-64.so.2" "$root$lib/"
  # libcuda, libnvidia-ml and nvidia-smi of a real driver are linked against these.
  for f in libm.so.6 libdl.so.2 libpthread.so.0 librt.so.1; do
    if [ -e "$lib/$f" ]; then cp -L "$lib/$f" "$root$lib/"; fi
  done
  ln -sf "..$lib/ld-linux-x86-64.so.2" "$root/lib64/ld-linux-x86-64.so.2"
  rm -f "$root/sbin/ldconfig"
  cp -L /sbin/ldconfig "$root/sbin/ldconfig"
  printf 'include /etc/ld.so.conf.d/*.conf\n' >"$root/etc/ld.so.conf"
  printf '%s\n' "$lib" "/usr$lib" >"$root/etc/ld.so.conf.d/x86_64-linux-gnu.conf"
  cp /etc/debian_version "$root/etc/debian_version"
  "$root/sbin/ldconfig" -r "$root" 2>/dev/null || true
}

make_rootfs() {
  local root="$1" variant="${2:-busybox}"
  rm -rf "$root"
  mkdir -p "$root"
  _rootfs_busybox "$root"
  case "$variant" in
    busybox) ;;
    glibc) _rootfs_glibc "$root" ;;
    *) e2e_die "make_rootfs: unknown variant '$variant'" ;;
  esac
}

make_bundle() {
  local bundle="$1" variant="${2:-busybox}"
  shift 2 || shift $#
  local args_json='["sh","-c","echo ok"]'
  if [ $# -gt 0 ]; then args_json="$(printf '%s\n' "$@" | jq -R . | jq -s -c .)"; fi
  require_cmd runc jq
  mkdir -p "$bundle"
  make_rootfs "$bundle/rootfs" "$variant"
  rm -f "$bundle/config.json"
  (cd "$bundle" && runc spec)
  jq --argjson a "$args_json" '.process.terminal = false | .process.args = $a' \
    "$bundle/config.json" >"$bundle/config.json.new"
  mv "$bundle/config.json.new" "$bundle/config.json"
}

bundle_set_env() {
  local bundle="$1"
  shift
  local kv
  for kv in "$@"; do
    jq --arg kv "$kv" '.process.env += [$kv]' "$bundle/config.json" >"$bundle/config.json.new"
    mv "$bundle/config.json.new" "$bundle/config.json"
  done
}

rootfs_tar() {
  tar -C "$1" -cf "$2" .
}
