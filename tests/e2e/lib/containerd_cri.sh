# shellcheck shell=bash
# Does containerd's CRI plugin load with a given config? Source after common.sh.
#   cri_plugin_status <config.toml> <workdir>
#       Starts a private containerd on <config.toml> (its own root, state and socket under
#       <workdir>, given as flags so they win over whatever the file says) and prints the CRI
#       plugin's status as `ctr plugins ls` reports it ("ok", "error", or "none" when containerd
#       did not come up). On anything but "ok" containerd's log is in <workdir>/containerd.log
#       and the helper's own errors in <workdir>/cri_status.err.
# containerd also writes to paths named in the config that the flags do not cover (the opt
# plugin's /opt/containerd or /var/lib/containerd/opt, the CNI conf dir /etc/cni/net.d that the
# CRI plugin creates), so it runs in a private mount namespace where /etc, /opt and /var/lib are
# overlays whose upper layers live under <workdir>: the host's trees see no write. The namespace
# ends with the script's processes, taking its mounts with it.

cri_plugin_status() {
  local config="$1" work="$2"
  require_cmd containerd ctr unshare
  mkdir -p "$work"
  unshare --mount --propagation private bash -s -- "$config" "$work" <<'SH' 2>>"$work/cri_status.err"
set -u
config="$1" work="$2"
for tree in etc opt var/lib; do
  mkdir -p "$work/ovl/$tree/upper" "$work/ovl/$tree/work"
  mount -t overlay overlay \
    -o "lowerdir=/$tree,upperdir=$work/ovl/$tree/upper,workdir=$work/ovl/$tree/work" "/$tree" ||
    { echo "cannot mount an overlay on /$tree" >&2; echo none; exit 0; }
done
# (timeout: should this script be killed, containerd does not outlive it by long)
timeout 60 containerd --config "$config" --root "$work/root" --state "$work/state" \
  --address "$work/c.sock" >"$work/containerd.log" 2>&1 &
pid=$!
for _ in $(seq 150); do [ -S "$work/c.sock" ] && break; sleep 0.1; done
status="$(ctr --address "$work/c.sock" plugins ls 2>/dev/null |
  awk '$1 == "io.containerd.grpc.v1" && $2 == "cri" { print $4 }')"
kill "$pid" 2>/dev/null
wait "$pid" 2>/dev/null
echo "${status:-none}"
SH
}
