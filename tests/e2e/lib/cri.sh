# shellcheck shell=bash
# A private containerd driven through its CRI plugin by crictl/critest (cri-tools 1.26.1), with
# its config made by `nvidia-ctk runtime configure`. Source after common.sh (and rootfs.sh,
# gpu.sh for the GPU parts).
#
#   cri_enter "$@"          first thing in a script: re-runs the script in its own mount, network,
#                           PID, IPC and UTS namespaces (unshare --fork --mount-proc; the script is
#                           PID 1 there, so every daemon and shim it leaves dies with it), brings
#                           up lo and mounts overlays on /etc, /opt, /var/lib (upper layers in the
#                           temp dir) and a tmpfs on /run: paths containerd, runc and CNI use
#                           whatever the config says (/run/containerd/runc, /var/lib/cni,
#                           /etc/cni/net.d) are private, the host's trees see no write.
#   cri_tools               sets CRICTL and CRITEST (NVCT_CRI_TOOLS_DIR, else
#                           $NVCT_SOURCE_DIR/../shared/tools/cri-tools, else PATH)
#   cri_start_config <dir> stock|none
#                           the starting config: Debian's stock /etc/containerd/config.toml
#                           (containerd 1.6.20 package) or no file at all
#   cri_configure <dir> <runtime-path> [<cdi-runtime-path>]
#                           nvidia-ctk runtime configure --runtime=containerd in drop-in mode
#                           ($dir/config.toml + $dir/conf.d/99-nvidia.toml, handler "nvidia");
#                           with a second path, a second nvidia-ctk run writes handler
#                           "nvidia-cdi" to a scratch drop-in and that table is merged in with
#                           container_annotations = ["cdi.k8s.io/*"] (what the NVIDIA toolkit
#                           installer writes for it; containerd 1.6 has no CDI of its own and only
#                           forwards listed annotations). Then cri_config.py points the CRI table
#                           at private dirs ($dir/net.d, $dir/certs.d, netns under state).
#   cri_start <dir>         containerd --config $dir/config.toml with --root/--state/--address
#                           under $dir; waits for the CRI socket; CRI_SOCK is its socket
#   cri_cni_bridge <dir>    a bridge + host-local CNI config in $dir/net.d (pods get 10.88.0.0/16)
#   crictl_t <args>         runs crictl against CRI_SOCK and appends "$ crictl <args>" and its
#                           output to $CRI_TRANSCRIPT (and stdout); returns crictl's status
#   cri_mounts              the namespace's mount table (mount points and sources), sorted
#   cri_shims               pids of containerd-shim processes (the namespace's only)
#   cri_cgroups_track <name>...   records which top-level cgroups <name> exist now (on every
#                           hierarchy) and registers a cleanup that removes the ones this test
#                           created (rmdir: only when empty)
#   cri_cgroups_below <name> cgroup directories below top-level <name> on every hierarchy
#   cri_gpu_runtime <dir>   after gpu_setup: the NVIDIA runtime's config for containers started by
#                           containerd (legacy mode, mock driver root, cdi spec dir $dir/cdi)
#                           and the low-level runtime it calls, $dir/nvct/runc (see below);
#                           CRI_NVIDIA / CRI_NVIDIA_CDI are the runtime paths for cri_configure
#   cri_fetch_busybox       (outside the namespaces: it needs the network) Debian's dynamically
#                           linked busybox package into $CRI_CACHE (NVCT_CACHE_DIR/cri), fetched
#                           with a private apt config, reused while dpkg-deb reads it; its path is
#                           $CRI_CACHE/busybox.deb. Unlike busybox-static its shell runs commands
#                           from PATH, not its own applets first (critest masks /bin/ls and expects
#                           `sh -c ls` to fail), as the upstream busybox test image does.
#   cri_stop                removes all pods, stops containerd, kills what is left in the
#                           namespace and unmounts everything under the temp dir (registered as
#                           a cleanup by cri_start)
source "$(dirname "${BASH_SOURCE[0]}")/containerd.sh"

# shellcheck disable=SC2034  # CRITEST, CRI_NVIDIA, CRI_NVIDIA_CDI, CRI_CACHE are for the scripts
CRI_PY_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

cri_enter() {
  if [ -z "${NVCT_CRI_INNER:-}" ]; then
    require_root
    require_cmd unshare ip
    local rc=0
    NVCT_CRI_INNER=1 unshare --mount --propagation private --net --pid --ipc --uts --fork \
      --mount-proc bash "$0" "$@" || rc=$?
    exit "$rc"
  fi
  ip link set lo up
  local tree
  for tree in etc opt var/lib; do
    mkdir -p "$E2E_TMP/ovl/$tree/upper" "$E2E_TMP/ovl/$tree/work"
    mount -t overlay overlay \
      -o "lowerdir=/$tree,upperdir=$E2E_TMP/ovl/$tree/upper,workdir=$E2E_TMP/ovl/$tree/work" \
      "/$tree" || e2e_die "cannot mount an overlay on /$tree"
  done
  mount -t tmpfs -o mode=0755 tmpfs /run || e2e_die "cannot mount a tmpfs on /run"
  hostname nvct-cri
}

cri_tools() {
  local d="${NVCT_CRI_TOOLS_DIR:-$NVCT_SOURCE_DIR/../shared/tools/cri-tools}"
  if [ -x "$d/crictl" ] && [ -x "$d/critest" ]; then
    CRICTL="$d/crictl"
    CRITEST="$d/critest"
  elif command -v crictl >/dev/null && command -v critest >/dev/null; then
    CRICTL="$(command -v crictl)"
    CRITEST="$(command -v critest)"
  else
    e2e_die "crictl/critest (cri-tools 1.26.1) not found in $d or PATH (set NVCT_CRI_TOOLS_DIR)"
  fi
  "$CRICTL" --version | grep -q '1\.26\.' || e2e_die "$CRICTL is not cri-tools 1.26: $("$CRICTL" --version)"
}

cri_start_config() {
  local dir="$1" start="$2"
  mkdir -p "$dir"
  rm -f "$dir/config.toml"
  case "$start" in
    # Debian 12's containerd 1.6.20~ds1 ships this /etc/containerd/config.toml.
    stock)
      containerd_debian_stock_config "$dir/config.toml" ;;
    none) ;;
    # What `containerd config default` prints (every plugin's defaults, CRI included).
    default) containerd config default >"$dir/config.toml" ||
      e2e_die "containerd config default failed" ;;
    # An admin's file with comments and its own drop-in directory (an unrelated setting there).
    imports)
      mkdir -p "$dir/admin.d"
      printf '[plugins."io.containerd.gc.v1.scheduler"]\n  pause_threshold = 0.03\n' \
        >"$dir/admin.d/10-gc.toml"
      cat >"$dir/config.toml" <<TOML
# managed by the admin
version = 2
imports = ["$dir/admin.d/*.toml"]
oom_score = -999

[plugins."io.containerd.grpc.v1.cri".cni]
  bin_dir = "/usr/lib/cni"
  conf_dir = "/etc/cni/net.d"
TOML
      ;;
    *) e2e_die "cri_start_config: unknown start '$start'" ;;
  esac
}

cri_configure() {
  local dir="$1" path="$2" cdi_path="${3:-}" ctk
  ctk="$(nvct_bin nvidia-ctk)"
  local start_copy="$dir/scratch/config.toml"
  mkdir -p "$dir/scratch"
  [ -e "$dir/config.toml" ] && cp "$dir/config.toml" "$start_copy"
  "$ctk" runtime configure --runtime=containerd --config "$dir/config.toml" \
    --drop-in-config "$dir/conf.d/99-nvidia.toml" --nvidia-runtime-path "$path" \
    2>"$dir/ctk.log" || e2e_die "nvidia-ctk runtime configure failed: $(cat "$dir/ctk.log")"
  [ -s "$dir/conf.d/99-nvidia.toml" ] || e2e_die "nvidia-ctk wrote no drop-in"
  local extra=()
  if [ -n "$cdi_path" ]; then
    "$ctk" runtime configure --runtime=containerd --config "$start_copy" \
      --drop-in-config "$dir/scratch/conf.d/99-nvidia.toml" --nvidia-runtime-name nvidia-cdi \
      --nvidia-runtime-path "$cdi_path" 2>"$dir/ctk-cdi.log" ||
      e2e_die "nvidia-ctk runtime configure (nvidia-cdi) failed: $(cat "$dir/ctk-cdi.log")"
    extra=("$dir/scratch/conf.d/99-nvidia.toml" nvidia-cdi 'cdi.k8s.io/*')
  fi
  cp "$dir/conf.d/99-nvidia.toml" "$dir/99-nvidia.toml.ctk"
  python3 "$CRI_PY_DIR/cri_config.py" private "$dir/conf.d/99-nvidia.toml" "$dir" "${extra[@]}" ||
    e2e_die "cri_config.py failed on $dir/conf.d/99-nvidia.toml"
  mkdir -p "$dir/net.d" "$dir/certs.d"
}

cri_start() {
  local dir="$1"
  require_cmd containerd containerd-shim-runc-v2 runc
  CRI_DIR="$dir"
  CRI_SOCK="$dir/c.sock"
  containerd --config "$dir/config.toml" --root "$dir/root" --state "$dir/state" \
    --address "$CRI_SOCK" --log-level "${NVCT_CRI_LOG_LEVEL:-info}" >"$dir/containerd.log" 2>&1 &
  CRI_PID=$!
  e2e_on_exit cri_stop
  local _
  for _ in $(seq 200); do
    [ -S "$CRI_SOCK" ] && "$CRICTL" --runtime-endpoint "unix://$CRI_SOCK" --timeout 2s version \
      >/dev/null 2>&1 && return 0
    kill -0 "$CRI_PID" 2>/dev/null || break
    sleep 0.1
  done
  tail -20 "$dir/containerd.log" >&2
  e2e_die "containerd's CRI service did not come up (log: $dir/containerd.log)"
}

cri_cni_bridge() {
  local dir="$1"
  mkdir -p "$dir/net.d"
  cat >"$dir/net.d/10-nvct.conflist" <<'JSON'
{
  "cniVersion": "0.4.0",
  "name": "nvct-cri",
  "plugins": [
    {"type": "bridge", "bridge": "cni0", "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "ranges": [[{"subnet": "10.88.0.0/16"}]],
              "routes": [{"dst": "0.0.0.0/0"}]}},
    {"type": "portmap", "capabilities": {"portMappings": true}},
    {"type": "loopback"}
  ]
}
JSON
}

crictl() {
  "$CRICTL" --runtime-endpoint "unix://$CRI_SOCK" --image-endpoint "unix://$CRI_SOCK" \
    --timeout 60s "$@"
}

CRI_TRANSCRIPT="${CRI_TRANSCRIPT:-}"
# The arguments as a shell would need them: plain words bare, anything else in single quotes.
_cri_quote() {
  local a out=()
  for a in "$@"; do
    if [[ "$a" =~ ^[A-Za-z0-9_./:=,+@%-]+$ ]]; then out+=("$a"); else out+=("'${a//\'/\'\\\'\'}'"); fi
  done
  echo "${out[*]}"
}
crictl_t() {
  local rc=0 out
  out="$(crictl "$@" 2>&1)" || rc=$?
  {
    echo "\$ crictl $(_cri_quote "$@")"
    [ -n "$out" ] && printf '%s\n' "$out"
    [ "$rc" = 0 ] || echo "(exit $rc)"
  } | tee -a "${CRI_TRANSCRIPT:-/dev/null}"
  return "$rc"
}

cri_mounts() {
  awk '{ print $5, $(NF-1) }' /proc/self/mountinfo | sort
}

cri_shims() {
  local p
  for p in /proc/[0-9]*; do
    case "$(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" in
      *containerd-shim*) echo "${p#/proc/}" ;;
    esac
  done
}

# Pods and containers get cgroups on the host's hierarchies (cgroupfs driver): under the pod's
# cgroup parent, or /k8s.io/<id> when a pod names none (critest's).
cri_cgroups_track() {
  local name
  for name in "$@"; do
    compgen -G "/sys/fs/cgroup/*/$name" >/dev/null ||
      e2e_on_exit "find /sys/fs/cgroup -mindepth 1 -maxdepth 2 -type d -name '$name' -exec rmdir {} + 2>/dev/null"
  done
}
cri_cgroups_below() {
  find /sys/fs/cgroup -mindepth 2 -maxdepth 4 -type d -path "*/$1/*" 2>/dev/null | sort
}

cri_stop() {
  [ -n "${CRI_PID:-}" ] || return 0
  if kill -0 "$CRI_PID" 2>/dev/null; then
    timeout 60 "$CRICTL" --runtime-endpoint "unix://$CRI_SOCK" rmp -fa >/dev/null 2>&1 || true
    kill "$CRI_PID" 2>/dev/null
    local _
    for _ in $(seq 50); do kill -0 "$CRI_PID" 2>/dev/null || break; sleep 0.1; done
  fi
  CRI_PID=""
  # NVCT_CRI_DEBUG_DIR=<dir> keeps containerd's log and the shim's debug log for a failing run.
  if [ -n "${NVCT_CRI_DEBUG_DIR:-}" ]; then
    mkdir -p "$NVCT_CRI_DEBUG_DIR"
    cp "$CRI_DIR/containerd.log" "$NVCT_CRI_DEBUG_DIR/containerd-$(basename "$CRI_DIR").log" 2>/dev/null || true
    cp "$E2E_TMP/shim-debug.log" "$NVCT_CRI_DEBUG_DIR/" 2>/dev/null || true
  fi
  # Everything else in this PID namespace was started by this script (shims, registry).
  local p
  for p in /proc/[0-9]*; do
    p="${p#/proc/}"
    [ "$p" = 1 ] || [ "$p" = "$$" ] || [ "$p" = "$BASHPID" ] || kill -9 "$p" 2>/dev/null || true
  done
  sleep 0.2
  # Mounts under the temp dir (rootfs, shm, netns), deepest first, so removing it never walks
  # into a bind-mounted host path.
  awk -v t="$E2E_TMP" 'index($5, t) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
    while read -r m; do umount -l "$m" 2>/dev/null || true; done
}

# The mock host has no nvidia kernel module, so a container's procfs has no /proc/driver/nvidia:
# GPU containers elsewhere in the e2e suite get a tmpfs on /proc/driver in their config.json (the
# directory the driver would provide) and, in the CDI modes, a createContainer hook copying the
# mock root's proc/driver/nvidia there (legacy mode writes its own). A CRI client cannot ask for
# either, so the NVIDIA runtime's low-level runtime is a wrapper that adds them to the bundle's
# config.json (after the NVIDIA runtime's own edits) and execs runc. Test plumbing standing in
# for the kernel driver; nothing else in the spec changes.
cri_gpu_runtime() {
  local dir="$1"
  mkdir -p "$dir/nvct" "$dir/cdi"
  cat >"$dir/nvct/procfs-hook.sh" <<SH
#!/bin/sh
bundle="\$(/usr/bin/jq -r .bundle)"
root="\$(/usr/bin/jq -r .root.path "\$bundle/config.json")"
case "\$root" in /*) ;; *) root="\$bundle/\$root" ;; esac
/bin/cp -a "$GPU_ROOT/proc/driver/nvidia" "\$root/proc/driver/"
SH
  cat >"$dir/nvct/runc" <<SH
#!/bin/sh
bundle=""
prev=""
for a in "\$@"; do
  [ "\$prev" = "--bundle" ] && bundle="\$a"
  prev="\$a"
done
if [ -n "\$bundle" ] && [ -f "\$bundle/config.json" ]; then
  /usr/bin/jq --arg hook "$dir/nvct/procfs-hook.sh" '
    .mounts += [{"destination": "/proc/driver", "type": "tmpfs", "source": "tmpfs",
                 "options": ["nosuid", "nodev", "noexec", "mode=755"]}]
    | if ((.annotations // {}) | keys | any(startswith("cdi.k8s.io/")))
      then .hooks.createContainer += [{"path": "/bin/sh", "args": ["sh", \$hook],
                                       "env": ["PATH=/usr/bin:/bin"]}]
      else . end' "\$bundle/config.json" >"\$bundle/config.json.nvct-test" &&
    /bin/mv "\$bundle/config.json.nvct-test" "\$bundle/config.json"
fi
exec $(command -v runc) "\$@"
SH
  chmod 0755 "$dir/nvct/runc" "$dir/nvct/procfs-hook.sh"
  sed -i "s|^runtimes = .*|runtimes = [\"$dir/nvct/runc\"]|" "$GPU_CONFIG"
  cat >>"$GPU_CONFIG" <<TOML

[nvidia-container-runtime.modes.cdi]
spec-dirs = ["$dir/cdi"]
TOML
  CRI_NVIDIA="$GPU_SHIM"
  # The runtime's mode follows its executable's name: nvidia-container-runtime.cdi is cdi mode.
  CRI_NVIDIA_CDI="$dir/nvct/bin/nvidia-container-runtime.cdi"
  mkdir -p "$dir/nvct/bin"
  ln -sf "$GPU_SHIM" "$CRI_NVIDIA_CDI"
}

CRI_CACHE="${NVCT_CACHE_DIR:-/var/cache/nvct-test}/cri"

cri_fetch_busybox() {
  require_cmd apt-get dpkg-deb
  local deb="$CRI_CACHE/busybox.deb" c="$CRI_CACHE/apt"
  if [ -s "$deb" ] && dpkg-deb --info "$deb" >/dev/null 2>&1; then return 0; fi
  rm -f "$deb"
  mkdir -p "$c/lists/partial" "$c/cache/archives/partial" "$CRI_CACHE/dl"
  echo "deb ${NVCT_DEBIAN_MIRROR:-http://deb.debian.org/debian} bookworm main" >"$c/sources.list"
  local apt=(apt-get -q -o Dir::Etc::SourceList="$c/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o Dir::State::Lists="$c/lists" -o Dir::Cache="$c/cache" -o Dir::State::status=/dev/null
    -o Debug::NoLocking=1)
  "${apt[@]}" update >"$c/update.log" 2>&1 ||
    e2e_die "apt-get update (private sources list) failed: $(tail -3 "$c/update.log")"
  rm -f "$CRI_CACHE"/dl/*.deb
  (cd "$CRI_CACHE/dl" && "${apt[@]}" download busybox) >"$c/download.log" 2>&1 ||
    e2e_die "apt-get download busybox failed: $(tail -3 "$c/download.log")"
  mv "$CRI_CACHE"/dl/busybox_*.deb "$deb" || e2e_die "no busybox package downloaded"
  dpkg-deb --info "$deb" >/dev/null || e2e_die "$deb is not a readable package"
}
