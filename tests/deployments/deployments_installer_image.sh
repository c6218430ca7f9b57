#!/usr/bin/env bash
# The nvct-installer image (deployments/container), built offline with a private dockerd from
# this build tree, run against stand-in node roots (temp dirs) the way the DaemonSet runs it:
# privileged (see below), the stand-in at /host and its usr/local/nvidia at /usr/local/nvidia.
#   - refusals before anything is touched: RESTART=true without the node's pid namespace,
#     /usr/local/nvidia not mounted at the same path;
#   - install (containerd, Debian's stock /etc/containerd/config.toml): the toolkit in
#     /usr/local/nvidia/toolkit (the installed nvidia-ctk and nvidia-container-cli run in the
#     container through their wrappers), config.toml with the toolkit's paths, the drop-in and an
#     `imports` line naming the node's path; `containerd config dump` of the result, in a mount
#     namespace where the stand-in's etc/containerd is /etc/containerd, has the nvidia runtime and
#     keeps Debian's settings;
#   - SIGTERM with CLEANUP_ON_EXIT=false leaves the install; a second install changes nothing;
#     `cleanup` (through `nvidia-ctk runtime configure --remove`) brings the stand-in back byte for
#     byte (names, types, modes, owners, link targets, contents); so does SIGTERM with
#     CLEANUP_ON_EXIT=true; cleanup with nothing installed is a no-op;
#   - a node without any containerd config and with its own config.toml (kept, and not removed);
#   - an engine config edited after install is kept by cleanup; a symlinked one is refused;
#   - RUNTIME=crio: the drop-in with the toolkit's runtime_path, crio.conf untouched, cleanup.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/dockerd.sh"
source "$(dirname "$0")/../e2e/lib/containerd.sh"

require_root
require_cmd docker dockerd containerd python3 sha256sum unshare dpkg-query dpkg-deb md5sum
nvct_bin nvidia-ctk >/dev/null
image=nvct-installer:e2e
toolkit=/usr/local/nvidia/toolkit
cri='io.containerd.grpc.v1.cri'

start_private_dockerd "$E2E_TMP/docker" "$(shim_bin)"
"$NVCT_SOURCE_DIR/deployments/container/build-image.sh" "$NVCT_BUILD_DIR" "$image" \
  2>"$E2E_TMP/build.log" || {
  cat "$E2E_TMP/build.log" >&2
  e2e_die "build-image.sh failed"
}
pass "the installer image builds offline ($(docker image inspect -f '{{.Size}}' "$image") bytes)"

# The DaemonSet runs the installer privileged. docker 20.10's --privileged asks for every
# capability it knows, so on a host whose bounding set lacks one (this project's VMs have no
# CAP_SYS_RESOURCE) no privileged container starts; there the test grants what the installer
# uses instead: CAP_SYS_ADMIN for its mount namespace and bind mount, without the seccomp and
# AppArmor profiles that forbid those.
if docker run --rm --privileged --entrypoint /bin/true "$image" >/dev/null 2>&1; then
  priv=(--privileged)
else
  priv=(--cap-add SYS_ADMIN --security-opt seccomp=unconfined --security-opt apparmor=unconfined)
  echo "# --privileged cannot start a container on this host: running with ${priv[*]}"
fi

# Debian's stock /etc/containerd/config.toml: the host's copy when it still has the packaged
# checksum, else the conffile from the installed version's .deb (apt cache or apt-get download).
stock_containerd_config() {
  local out="$1" md5 version deb
  md5="$(dpkg-query -W -f='${Conffiles}\n' containerd | awk '$1 == "/etc/containerd/config.toml" { print $2 }')"
  [ -n "$md5" ] || e2e_die "the containerd package lists no /etc/containerd/config.toml conffile"
  if [ "$(md5sum </etc/containerd/config.toml 2>/dev/null | cut -d' ' -f1)" = "$md5" ]; then
    cp /etc/containerd/config.toml "$out"
    return 0
  fi
  version="$(dpkg-query -W -f='${Version}' containerd)"
  deb="$(find /var/cache/apt/archives -maxdepth 1 -name "containerd_${version/:/%3a}_*.deb" | head -n 1)"
  if [ -z "$deb" ]; then
    (cd "$E2E_TMP" && apt-get download -q "containerd=$version" >/dev/null 2>&1) ||
      e2e_die "the host's config.toml is edited and containerd=$version cannot be downloaded"
    deb="$(find "$E2E_TMP" -maxdepth 1 -name 'containerd_*.deb' | head -n 1)"
  fi
  dpkg-deb --fsys-tarfile "$deb" | tar -xO ./etc/containerd/config.toml >"$out"
  [ "$(md5sum <"$out" | cut -d' ' -f1)" = "$md5" ] || e2e_die "$deb's config.toml has the wrong md5"
}

# Every entry's name, type, mode, owner and link target, then every file's sha256.
snapshot() {
  (cd "$1" && find . -printf '%p %y %m %U:%G %l\n' | LC_ALL=C sort &&
    find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
check_snapshot() {
  local what="$1" want="$2" got="$3"
  if cmp -s "$want" "$got"; then
    pass "$what"
  else
    failed "$what: $(diff "$want" "$got" | head -n 20 | tr '\n' '|')"
  fi
}

# A stand-in node root: an empty tree with the directories a Debian node has, and the
# /usr/local/nvidia the DaemonSet's hostPath (DirectoryOrCreate) creates before the pod starts.
new_host() {
  local host="$1"
  mkdir -p "$host"/{etc,sbin,run,usr/local/nvidia,var/lib}
  printf 'stand-in\n' >"$host/etc/hostname"
  printf 'ID=debian\nVERSION_ID="12"\n' >"$host/etc/os-release"
}

# installer <host> <docker run options...> -- <args...>: runs the image against <host> the way the
# DaemonSet does; output in $E2E_TMP/installer.log.
installer() {
  local host="$1" opts=()
  shift
  while [ $# -gt 0 ] && [ "$1" != -- ]; do
    opts+=("$1")
    shift
  done
  shift
  docker run --rm "${priv[@]}" -v "$host:/host" -v "$host/usr/local/nvidia:/usr/local/nvidia" \
    "${opts[@]}" "$image" "$@" >"$E2E_TMP/installer.log" 2>&1
}

# Starts the DaemonSet-mode container <name> and waits until it reports ready.
start_daemon() {
  local name="$1" host="$2"
  shift 2
  docker run -d --name "$name" "${priv[@]}" -v "$host:/host" \
    -v "$host/usr/local/nvidia:/usr/local/nvidia" "$@" "$image" >/dev/null
  e2e_on_exit "docker rm -f $name"
  local _
  for _ in $(seq 150); do
    if docker exec "$name" test -e /run/nvct-installer.ready 2>/dev/null; then return 0; fi
    if [ "$(docker inspect -f '{{.State.Running}}' "$name")" != true ]; then
      docker logs "$name" >&2
      e2e_die "installer container $name exited before it was ready"
    fi
    sleep 0.2
  done
  docker logs "$name" >&2
  e2e_die "installer container $name was not ready within 30 s"
}

# Stops <name> with SIGTERM (docker stop) and checks it exited 0 by itself.
stop_daemon() {
  local name="$1" what="$2"
  docker stop -t 30 "$name" >/dev/null
  check_eq "$what: the installer exits 0 on SIGTERM (no SIGKILL)" 0 \
    "$(docker inspect -f '{{.State.ExitCode}}' "$name")"
  docker logs "$name" >"$E2E_TMP/$name.log" 2>&1
  docker rm "$name" >/dev/null
}

# containerd's merged view of the stand-in's config, with its etc/containerd at /etc/containerd
# so that the imports line (a node path) resolves.
dump_node_containerd() {
  local host="$1" out="$2"
  # shellcheck disable=SC2016 # expanded by the inner shell
  unshare -m --propagation private sh -c \
    'mount --bind "$1/etc/containerd" /etc/containerd && exec containerd --config /etc/containerd/config.toml config dump' \
    sh "$host" >"$out" 2>"$out.err" || {
    cat "$out.err" >&2
    e2e_die "containerd config dump of $host/etc/containerd/config.toml failed"
  }
}

# --- node 1: Debian's containerd config ---------------------------------------------------------
host="$E2E_TMP/node1"
new_host "$host"
mkdir -p "$host/etc/containerd"
stock_containerd_config "$host/etc/containerd/config.toml"
snapshot "$host" >"$E2E_TMP/node1.before"

if installer "$host" -e RESTART=true -- install-only; then rc=0; else rc=$?; fi
check_eq "RESTART=true without the node's pid namespace is refused" 1 "$rc"
check_contains "... saying hostPID is needed" "needs the node's pid namespace (hostPID: true)" \
  "$(cat "$E2E_TMP/installer.log")"
if docker run --rm "${priv[@]}" -v "$host:/host" "$image" install-only >"$E2E_TMP/installer.log" 2>&1; then
  rc=0
else
  rc=$?
fi
check_eq "no /usr/local/nvidia mount at the same path is refused" 1 "$rc"
check_contains "... naming the mount to add" "mount the node's /usr/local/nvidia at /usr/local/nvidia" \
  "$(cat "$E2E_TMP/installer.log")"
snapshot "$host" >"$E2E_TMP/node1.now"
check_snapshot "refused runs leave the node untouched" "$E2E_TMP/node1.before" "$E2E_TMP/node1.now"

start_daemon inst1 "$host" -e CLEANUP_ON_EXIT=false
t="$host$toolkit"
for f in nvidia-container-runtime nvidia-container-runtime-hook nvidia-container-cli nvidia-ctk \
  nvidia-cdi-hook nvidia-container-runtime-nvml; do
  check "install: $toolkit/$f is an executable" test -x "$t/$f"
done
for l in nvidia-container-toolkit:nvidia-container-runtime-hook \
  nvidia-container-runtime.cdi:nvidia-container-runtime \
  nvidia-container-runtime.legacy:nvidia-container-runtime; do
  check_eq "install: $toolkit/${l%%:*} links to ${l#*:}" "${l#*:}" "$(readlink "$t/${l%%:*}")"
done
check "install: the shim is the static binary itself" bash -c "! ldd '$t/nvidia-container-runtime' 2>&1 | grep -q '=>'"
check_contains "install: nvidia-ctk is a wrapper loading $toolkit/lib" \
  "LD_LIBRARY_PATH=\"$toolkit/lib\" exec \"$toolkit/nvidia-ctk.real\"" "$(cat "$t/nvidia-ctk")"
# Every library a .real binary links, glibc's aside, is in lib/ (today none: the C++ runtime,
# libseccomp, spdlog/fmt and yaml-cpp are linked statically).
missing_libs() {
  local b l
  for b in "$t"/*.real; do
    for l in $(ldd "$b" | awk '/=>/ { print $1 }'); do
      case "$l" in
        libc.so* | libm.so* | libmvec.so* | libpthread.so* | libdl.so* | librt.so* | \
          libresolv.so* | libutil.so* | libanl.so* | ld-linux*) ;;
        *) [ -e "$t/lib/$l" ] || echo "$(basename "$b"): $l" ;;
      esac
    done
  done
}
check "install: $toolkit has wrapped binaries (<name>.real)" bash -c "ls '$t'/*.real >/dev/null"
check_eq "install: $toolkit/lib holds every non-glibc library the binaries link" "" "$(missing_libs)"
check "install: no glibc in $toolkit/lib (the node's is used)" \
  bash -c "! ls '$t/lib' | grep -Eq '^(libc|libm|ld-linux)'"
check_contains "install: the node's nvidia-ctk runs (wrapper, libraries)" \
  "NVIDIA Container Toolkit CLI version" "$(docker exec inst1 "$toolkit/nvidia-ctk" --version 2>&1)"
check_contains "install: the node's nvidia-container-cli runs (wrapper, libraries)" "version" \
  "$(docker exec inst1 "$toolkit/nvidia-container-cli" --version 2>&1)"
check_contains "install: the node's hook runs (wrapper, libraries)" \
  "NVIDIA Container Runtime Hook version" \
  "$(docker exec inst1 "$toolkit/nvidia-container-runtime-hook" --version 2>&1)"
for f in nvidia-cdi-hook nvidia-container-runtime-nvml; do
  out="$(docker exec inst1 "$toolkit/$f" --help 2>&1)" && rc=0 || rc=$?
  check_eq "install: the node's $f loads its libraries" "" \
    "$(grep 'error while loading shared libraries' <<<"$out" || true)"
  check "install: the node's $f ran (exit status $rc, not the shell's 126/127)" test "$rc" -lt 126
done

cfg="$host/etc/nvidia-container-runtime/config.toml"
check_eq "install: config.toml is 0644" 644 "$(stat -c %a "$cfg")"
check_eq "install: config.toml's nvidia-container-cli.path" "\"$toolkit/nvidia-container-cli\"" \
  "$(toml_get "$cfg" nvidia-container-cli path)"
check_eq "install: config.toml's hook path" "\"$toolkit/nvidia-container-runtime-hook\"" \
  "$(toml_get "$cfg" nvidia-container-runtime-hook path)"
check_eq "install: config.toml's nvidia-ctk path" "\"$toolkit/nvidia-ctk\"" \
  "$(toml_get "$cfg" nvidia-ctk path)"
check_eq "install: config.toml's ldconfig from the node (no ldconfig.real)" '"@/sbin/ldconfig"' \
  "$(toml_get "$cfg" nvidia-container-cli ldconfig)"
check_eq "install: otherwise config.toml is nvidia-ctk's default (mode)" '"auto"' \
  "$(toml_get "$cfg" nvidia-container-runtime mode)"

main="$host/etc/containerd/config.toml"
dropin="$host/etc/containerd/conf.d/99-nvidia.toml"
check "install: the containerd drop-in exists" test -s "$dropin"
check_eq "install: imports names the node's drop-in directory, not /host" \
  '["/etc/containerd/conf.d/*.toml"]' "$(toml_get "$main" imports | tr -d ' ')"
check_eq "install: no temporary file left on the node" "" \
  "$(find "$host" -name '*.nvct-new' -o -name '*.nvct-restore' | tr '\n' ' ')"
dump_node_containerd "$host" "$E2E_TMP/dump.toml"
d="$E2E_TMP/dump.toml"
check_eq "dump: the nvidia runtime's BinaryName" "\"$toolkit/nvidia-container-runtime\"" \
  "$(toml_get "$d" plugins "$cri" containerd runtimes nvidia options BinaryName)"
check_eq "dump: the nvidia runtime's type" '"io.containerd.runc.v2"' \
  "$(toml_get "$d" plugins "$cri" containerd runtimes nvidia runtime_type)"
check_eq "dump: Debian's cni bin_dir kept" '"/usr/lib/cni"' \
  "$(toml_get "$d" plugins "$cri" cni bin_dir)"
check_eq "dump: Debian's opt plugin path kept" '"/var/lib/containerd/opt"' \
  "$(toml_get "$d" plugins io.containerd.internal.v1.opt path)"
check_contains "dump: both files loaded" "/etc/containerd/conf.d/99-nvidia.toml" \
  "$(toml_get "$d" imports)"
snapshot "$host" >"$E2E_TMP/node1.installed"

stop_daemon inst1 "CLEANUP_ON_EXIT=false"
check_contains "SIGTERM without cleanup is logged" "leaving the install in place" \
  "$(cat "$E2E_TMP/inst1.log")"
snapshot "$host" >"$E2E_TMP/node1.now"
check_snapshot "SIGTERM with CLEANUP_ON_EXIT=false leaves the install" "$E2E_TMP/node1.installed" \
  "$E2E_TMP/node1.now"

check "a second install (pod restart) succeeds" installer "$host" -- install-only
snapshot "$host" >"$E2E_TMP/node1.now"
check_snapshot "a second install changes nothing" "$E2E_TMP/node1.installed" "$E2E_TMP/node1.now"

check "cleanup succeeds" installer "$host" -- cleanup
log="$(cat "$E2E_TMP/installer.log")"
check_contains "cleanup: nvidia-ctk runtime configure --remove succeeded" \
  "removed the 'nvidia' runtime from containerd (nvidia-ctk runtime configure --remove)" "$log"
snapshot "$host" >"$E2E_TMP/node1.now"
check_snapshot "cleanup: the node is back byte for byte" "$E2E_TMP/node1.before" "$E2E_TMP/node1.now"

check "cleanup with nothing installed succeeds" installer "$host" -- cleanup
check_contains "... and says so" "nothing to clean up" "$(cat "$E2E_TMP/installer.log")"

start_daemon inst2 "$host" -e CLEANUP_ON_EXIT=true
check "CLEANUP_ON_EXIT=true: installed" test -s "$dropin"
stop_daemon inst2 "CLEANUP_ON_EXIT=true"
check_contains "CLEANUP_ON_EXIT=true: SIGTERM cleans up" "cleanup complete" "$(cat "$E2E_TMP/inst2.log")"
snapshot "$host" >"$E2E_TMP/node1.now"
check_snapshot "CLEANUP_ON_EXIT=true: the node is back byte for byte after SIGTERM" \
  "$E2E_TMP/node1.before" "$E2E_TMP/node1.now"

# An admin edits the engine config while the installer runs: cleanup keeps the edit.
check "install again" installer "$host" -- install-only
printf '# edited by the admin\n' >>"$main"
check "cleanup after an admin edit succeeds" installer "$host" -- cleanup
check_contains "cleanup keeps the edited engine config" \
  "kept /etc/containerd/config.toml: changed on the node since install" "$(cat "$E2E_TMP/installer.log")"
check "... with the admin's line" grep -q '^# edited by the admin' "$main"
check "... and the drop-in is gone" test ! -e "$dropin"
check "... and the toolkit is gone" test ! -e "$host$toolkit"

# --- node 2: no containerd config; its own config.toml -----------------------------------------
host="$E2E_TMP/node2"
new_host "$host"
mkdir -p "$host/etc/nvidia-container-runtime"
printf '[nvidia-container-cli]\nno-cgroups = true\n' >"$host/etc/nvidia-container-runtime/config.toml"
chmod 0600 "$host/etc/nvidia-container-runtime/config.toml"
snapshot "$host" >"$E2E_TMP/node2.before"
check "node without containerd config: install" installer "$host" -- install-only
check_contains "... leaves the node's config.toml" "config.toml exists on the node: left as it is" \
  "$(cat "$E2E_TMP/installer.log")"
check_eq "... top-level config created with just the import (C11)" \
  'imports = ["/etc/containerd/conf.d/*.toml"]|version = 2' \
  "$(paste -sd'|' "$host/etc/containerd/config.toml")"
check "... and the drop-in" test -s "$host/etc/containerd/conf.d/99-nvidia.toml"
check "node without containerd config: cleanup" installer "$host" -- cleanup
snapshot "$host" >"$E2E_TMP/node2.now"
check_snapshot "node without containerd config: back byte for byte (created dirs removed)" \
  "$E2E_TMP/node2.before" "$E2E_TMP/node2.now"

# --- node 3: a symlinked containerd config is refused before anything is touched ---------------
host="$E2E_TMP/node3"
new_host "$host"
mkdir -p "$host/etc/containerd"
stock_containerd_config "$host/etc/containerd/containerd.toml"
ln -s containerd.toml "$host/etc/containerd/config.toml"
snapshot "$host" >"$E2E_TMP/node3.before"
if installer "$host" -- install-only; then rc=0; else rc=$?; fi
check_eq "symlinked engine config: refused" 1 "$rc"
check_contains "... naming the link" "/etc/containerd/config.toml is a symbolic link on the node" \
  "$(cat "$E2E_TMP/installer.log")"
snapshot "$host" >"$E2E_TMP/node3.now"
check_snapshot "symlinked engine config: the node is untouched" "$E2E_TMP/node3.before" \
  "$E2E_TMP/node3.now"

# --- node 4: CRI-O ----------------------------------------------------------------------------
host="$E2E_TMP/node4"
new_host "$host"
mkdir -p "$host/etc/crio"
cat >"$host/etc/crio/crio.conf" <<'TOML'
[crio.runtime]
default_runtime = "crun"

[crio.runtime.runtimes.crun]
runtime_path = "/usr/bin/crun"
runtime_type = "oci"
runtime_root = "/run/crun"
monitor_path = "/usr/libexec/crio/conmon"
TOML
cp "$host/etc/crio/crio.conf" "$E2E_TMP/crio.conf.orig"
snapshot "$host" >"$E2E_TMP/node4.before"
check "RUNTIME=crio: install" installer "$host" -e RUNTIME=crio -- install-only
crio_dropin="$host/etc/crio/crio.conf.d/99-nvidia.toml"
check_eq "RUNTIME=crio: the drop-in's runtime_path" "\"$toolkit/nvidia-container-runtime\"" \
  "$(toml_get "$crio_dropin" crio runtime runtimes nvidia runtime_path)"
check_eq "RUNTIME=crio: copied from the default handler (monitor_path)" '"/usr/libexec/crio/conmon"' \
  "$(toml_get "$crio_dropin" crio runtime runtimes nvidia monitor_path)"
check "RUNTIME=crio: crio.conf untouched" same_file "$E2E_TMP/crio.conf.orig" "$host/etc/crio/crio.conf"
check "RUNTIME=crio: cleanup" installer "$host" -e RUNTIME=crio -- cleanup
check_contains "RUNTIME=crio: nvidia-ctk runtime configure --remove succeeded" \
  "removed the 'nvidia' runtime from crio (nvidia-ctk runtime configure --remove)" \
  "$(cat "$E2E_TMP/installer.log")"
snapshot "$host" >"$E2E_TMP/node4.now"
check_snapshot "RUNTIME=crio: back byte for byte" "$E2E_TMP/node4.before" "$E2E_TMP/node4.now"

e2e_finish
