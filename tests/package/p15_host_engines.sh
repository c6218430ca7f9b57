#!/usr/bin/env bash
# P15: NVIDIA's install guide, verbatim, with the packaged binaries on this host and the MIG-less
# one-GPU mock driver (spec/packaging.md §2, §5). The files of the base, toolkit and tools .debs
# (dpkg-deb -x) are laid over /usr and /etc, and the guide's commands run as written:
#   nvidia-ctk runtime configure --runtime=docker      -> dockerd: --runtime=nvidia, --gpus all
#   nvidia-ctk runtime configure --runtime=containerd  -> containerd: the nvidia runtime, ctr --gpus 0
#   nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml; nvidia-ctk cdi list
#                                                      -> podman --device nvidia.com/gpu=all
# Everything happens in this test's private mount namespace: overlays over /usr, /etc and
# /var/lib (writes land in the test's temp dir), a tmpfs over /run and /etc/cdi; the daemons have
# their own state dirs and sockets and stop at exit. The host's files are never written.
#
# Test plumbing, as in tests/e2e: config.toml's nvidia-container-cli.root points at the mock
# driver (as on a host whose driver lives under /run/nvidia/driver) and its mode is legacy (the
# mock has no kernel procfs, which legacy mode mounts from the driver root); containers get a tmpfs on
# /proc/driver, where the driver's procfs would be; Podman gets a createContainer hook that copies
# the mock's /proc/driver/nvidia there; `ctr run --gpus` finds nvidia-container-cli through a
# wrapper that adds --root (containerd's hook passes no driver root).
source "$(dirname "$0")/lib/pkg.sh"
source "$NVCT_SOURCE_DIR/tests/e2e/lib/rootfs.sh"
source "$NVCT_SOURCE_DIR/tests/e2e/lib/dockerd.sh"
source "$NVCT_SOURCE_DIR/tests/e2e/lib/containerd.sh"

pkg_require_cmd docker dockerd containerd containerd-shim-runc-v2 ctr podman runc jq busybox
pkg_require_debs
pkg_require_mock_driver
T="$E2E_TMP"
GPU0="GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-11111111-2222-3333-4444-555555555550)"
IMAGE=nvct-pkg-p15:latest

# The host's files this test must not change: taken before the overlays go up and again after
# they are taken down at the end (this namespace then sees the host's own files).
host_state() {
  local f
  for f in /etc/docker/daemon.json /etc/containerd/config.toml /etc/containerd/conf.d \
    /etc/nvidia-container-runtime /usr/bin/nvidia-ctk /usr/bin/nvidia-container-runtime-hook \
    /var/lib/containerd/opt; do
    if [ -e "$f" ]; then
      echo "$f $(find "$f" -maxdepth 0 -printf '%y %s %T@') $(find "$f" -type f -exec sha256sum {} + 2>/dev/null | sort | sha256sum | cut -c1-16)"
    else
      echo "$f absent"
    fi
  done
}
host_before="$(host_state)"

pkg_step "the packaged files over /usr and /etc (private overlays)"
X="$T/packaged"
for n in nvidia-container-toolkit-base nvidia-container-toolkit libnvidia-container-tools; do
  dpkg-deb -x "$(pkg_deb "$n")" "$X"
done
mkdir -p "$T/up/usr" "$T/up/etc" "$T/up/var-lib" "$T/wk/usr" "$T/wk/etc" "$T/wk/var-lib"
cp -a "$X/usr/." "$T/up/usr/"
[ -d "$X/etc" ] && cp -a "$X/etc/." "$T/up/etc/"
# Units and the udev rule: /lib is /usr/lib on a merged-/usr host.
if [ -d "$X/lib" ] && [ -L /lib ]; then cp -a "$X/lib/." "$T/up/usr/lib/"; fi
mount -t overlay nvct-p15-usr -o "lowerdir=/usr,upperdir=$T/up/usr,workdir=$T/wk/usr" /usr
mount -t overlay nvct-p15-etc -o "lowerdir=/etc,upperdir=$T/up/etc,workdir=$T/wk/etc" /etc
mount -t overlay nvct-p15-var-lib -o "lowerdir=/var/lib,upperdir=$T/up/var-lib,workdir=$T/wk/var-lib" /var/lib
mount -t tmpfs -o mode=0755 nvct-p15-run /run
mkdir -p /etc/cdi
mount -t tmpfs -o mode=0755 nvct-p15-cdi /etc/cdi
OVERLAYS="/etc/cdi /run /var/lib /etc /usr"
# Runs after the daemons' cleanups (registered later, run earlier).
e2e_on_exit "umount -l $OVERLAYS"
for b in nvidia-container-runtime nvidia-ctk nvidia-cdi-hook nvidia-container-runtime-hook \
  nvidia-container-toolkit nvidia-container-cli; do
  check "/usr/bin/$b is the packaged one" cmp -s "/usr/bin/$b" "$X/usr/bin/$b"
done
check_eq "nvidia-ctk --version" "NVIDIA Container Toolkit CLI version $PKG_V" "$(nvidia-ctk --version | head -n1)"

pkg_step "config.toml as the postinst writes it, driver root = the mock driver"
MOCK="$T/driver-root"
pkg_mock_root "$MOCK" one-gpu
rm -rf /etc/nvidia-container-runtime
mkdir -p /etc/nvidia-container-runtime
nvidia-ctk config default --output=/etc/nvidia-container-runtime/config.toml ||
  e2e_die "nvidia-ctk config default --output failed"
nvidia-ctk config --set "nvidia-container-cli.root=$MOCK" --in-place ||
  e2e_die "nvidia-ctk config --set nvidia-container-cli.root failed"
# The mock host has no kernel module, so no /proc/driver/nvidia: legacy mode's hook mounts the
# driver root's procfs into the container, jit-cdi (auto's choice with NVML) does not.
nvidia-ctk config --set nvidia-container-runtime.mode=legacy --in-place ||
  e2e_die "nvidia-ctk config --set nvidia-container-runtime.mode=legacy failed"
check_eq "config.toml: nvidia-container-cli.root" "\"$MOCK\"" \
  "$(toml_get /etc/nvidia-container-runtime/config.toml nvidia-container-cli root)"
check_eq "config.toml: nvidia-container-runtime.mode" '"legacy"' \
  "$(toml_get /etc/nvidia-container-runtime/config.toml nvidia-container-runtime mode)"

make_rootfs "$T/image" glibc
rootfs_tar "$T/image" "$T/image.tar"

# ----------------------------------------------------------------------------------------------
pkg_step "Docker: nvidia-ctk runtime configure --runtime=docker; (re)start dockerd"
rm -f /etc/docker/daemon.json
nvidia-ctk runtime configure --runtime=docker >"$T/ctk-docker.log" 2>&1 ||
  e2e_die "nvidia-ctk runtime configure --runtime=docker failed: $(cat "$T/ctk-docker.log")"
check_eq "daemon.json: runtimes.nvidia" '{"args":[],"path":"nvidia-container-runtime"}' \
  "$(jq -c .runtimes.nvidia /etc/docker/daemon.json)"

D="$T/docker"
# No test daemon.json: dockerd reads the /etc/docker/daemon.json nvidia-ctk wrote (the default).
start_private_dockerd "$D" ""
check_eq "docker info lists the nvidia runtime" nvidia-container-runtime \
  "$(docker info --format '{{json .Runtimes}}' | jq -r .nvidia.path)"
docker import "$T/image.tar" "$IMAGE" >/dev/null || e2e_die "docker import failed"

docker_smi() {
  local name="$1" out
  shift
  if out="$(timeout 120 docker run --rm --network none --tmpfs /proc/driver "$@" "$IMAGE" \
    nvidia-smi -L 2>"$T/$name.err")"; then
    check_eq "$name: docker run $* nvidia-smi -L" "$GPU0" "$out"
  else
    failed "$name: docker run $* failed: $(tr '\n' ' ' <"$T/$name.err")"
  fi
}
docker_smi runtime --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=all
docker_smi gpus --gpus all
check_eq "no container left" "" "$(docker ps -aq)"
_stop_pidfile "$D/dockerd.pid"
unset DOCKER_HOST

# ----------------------------------------------------------------------------------------------
pkg_step "containerd: nvidia-ctk runtime configure --runtime=containerd; (re)start containerd"
nvidia-ctk runtime configure --runtime=containerd >"$T/ctk-containerd.log" 2>&1 ||
  e2e_die "nvidia-ctk runtime configure --runtime=containerd failed: $(cat "$T/ctk-containerd.log")"
check "the drop-in /etc/containerd/conf.d/99-nvidia.toml" test -s /etc/containerd/conf.d/99-nvidia.toml
C="$T/containerd"
mkdir -p "$C"
containerd_dump /etc/containerd/config.toml "$C/dump.toml"
bin="$(toml_get "$C/dump.toml" plugins io.containerd.grpc.v1.cri containerd runtimes nvidia options BinaryName)"
check_eq "containerd config dump: runtimes.nvidia BinaryName" '"/usr/bin/nvidia-container-runtime"' "$bin"
containerd --config /etc/containerd/config.toml --root "$C/root" --state "$C/state" \
  --address "$C/containerd.sock" >"$C/containerd.log" 2>&1 &
echo $! >"$C/containerd.pid"
e2e_on_exit "_stop_shims '$C/containerd.sock'; _stop_pidfile '$C/containerd.pid'; umount -R '$C/state' 2>/dev/null"
_wait_for 100 test -S "$C/containerd.sock" || e2e_die "containerd did not start: $(tail -5 "$C/containerd.log")"

ctr_smi() {
  local name="$1" out
  shift
  rm -rf "$C/rootfs-$name"
  cp -a "$T/image" "$C/rootfs-$name"
  if out="$(timeout 120 ctr --address "$C/containerd.sock" run --rm "$@" \
    --env PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    --mount type=tmpfs,src=tmpfs,dst=/proc/driver,options=nosuid:nodev:noexec \
    --rootfs "$C/rootfs-$name" "nvct-p15-$name" nvidia-smi -L 2>"$C/$name.err")"; then
    check_eq "$name: ctr run $* nvidia-smi -L" "$GPU0" "$out"
  else
    failed "$name: ctr run $* failed: $(tr '\n' ' ' <"$C/$name.err")"
  fi
}
# The configured nvidia runtime (its BinaryName) with the runc shim.
ctr_smi runtime --runtime io.containerd.runc.v2 --runc-binary /usr/bin/nvidia-container-runtime \
  --env NVIDIA_VISIBLE_DEVICES=all
# ctr's --gpus: a prestart hook `containerd oci-hook -- nvidia-container-cli ... configure`.
mkdir -p "$C/cli"
printf '#!/bin/sh\nexec /usr/bin/nvidia-container-cli --root %s "$@"\n' "$MOCK" >"$C/cli/nvidia-container-cli"
chmod 0755 "$C/cli/nvidia-container-cli"
PATH="$C/cli:$PATH" ctr_smi gpus --gpus 0

# ----------------------------------------------------------------------------------------------
pkg_step "Podman: nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml; podman --device"
nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml >"$T/generate.log" 2>&1 ||
  e2e_die "nvidia-ctk cdi generate failed: $(tail -5 "$T/generate.log")"
check_eq "nvidia-ctk cdi list" "nvidia.com/gpu=0 nvidia.com/gpu=all" \
  "$(nvidia-ctk cdi list 2>/dev/null | tr '\n' ' ' | sed 's/ $//')"
P="$T/podman"
mkdir -p "$P/hooks.d"
cat >"$P/containers.conf" <<'TOML'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
events_logger = "file"
runtime = "runc"
TOML
cat >"$P/procfs-hook.sh" <<SH
#!/bin/sh
# Test plumbing: the kernel driver's /proc/driver/nvidia, which the mock host does not have.
bundle="\$(jq -r .bundle)"
root="\$(jq -r .root.path "\$bundle/config.json")"
case "\$root" in /*) ;; *) root="\$bundle/\$root" ;; esac
cp -a "$MOCK/proc/driver/nvidia" "\$root/proc/driver/"
SH
jq -n --arg s "$P/procfs-hook.sh" \
  '{version:"1.0.0", hook:{path:"/bin/sh", args:["sh",$s], env:["PATH=/usr/bin:/bin"]},
    when:{always:true}, stages:["createContainer"]}' >"$P/hooks.d/procfs.json"
export CONTAINERS_CONF="$P/containers.conf"
PODMAN=(podman --root "$P/root" --runroot "$P/runroot" --storage-driver vfs --hooks-dir "$P/hooks.d")
e2e_on_exit "podman --root '$P/root' --runroot '$P/runroot' --storage-driver vfs rm -af; umount -R '$P/root' '$P/runroot' 2>/dev/null"
"${PODMAN[@]}" import "$T/image.tar" "localhost/$IMAGE" >"$P/import.log" 2>&1 ||
  e2e_die "podman import failed: $(tail -3 "$P/import.log")"
if out="$(timeout 120 "${PODMAN[@]}" run --rm --network none --device nvidia.com/gpu=all \
  --mount type=tmpfs,destination=/proc/driver "localhost/$IMAGE" nvidia-smi -L 2>"$P/run.err")"; then
  check_eq "podman run --device nvidia.com/gpu=all nvidia-smi -L" "$GPU0" "$out"
else
  failed "podman run --device nvidia.com/gpu=all failed: $(tr '\n' ' ' <"$P/run.err")"
fi

pkg_step "the host's own files, the overlays taken down"
"${PODMAN[@]}" rm -af >/dev/null 2>&1 || true
_stop_shims "$C/containerd.sock"
_stop_pidfile "$C/containerd.pid"
_stop_shims "$D/containerd.sock"
_stop_pidfile "$D/containerd.pid"
# shellcheck disable=SC2086  # a list of mount points
umount -l $OVERLAYS
check_eq "/usr, /etc and /var/lib are the host's again (no overlay)" "" \
  "$(findmnt -n -o TARGET,FSTYPE /usr /etc /var/lib 2>/dev/null | awk '$2 == "overlay"')"
check_eq "the host's files are as before" "$host_before" "$(host_state)"
e2e_finish
