# containerd helpers for e2e scripts: what the installed containerd makes of a config file.
#   containerd_dump <config.toml> <out>    `containerd --config <config> config dump` into <out>;
#                                          fails the script with containerd's message on error
#   toml_get <file> <key> [<key>...]       prints the value at that key path as JSON ("null" when
#                                          absent); one argument per key, so dotted plugin names
#                                          need no quoting
#   containerd_major                       the installed containerd's major version
#   containerd_debian_stock_config <file>  writes Debian 12's /etc/containerd/config.toml
#                                          (containerd 1.6.20~ds1), verbatim
# Source after common.sh.

containerd_dump() {
  local config="$1" out="$2"
  require_cmd containerd
  if ! containerd --config "$config" config dump >"$out" 2>"$out.err"; then
    cat "$out.err" >&2
    e2e_die "containerd --config $config config dump failed"
  fi
}

toml_get() {
  require_cmd python3
  python3 - "$@" <<'PY'
import json, sys, tomllib
path, keys = sys.argv[1], sys.argv[2:]
with open(path, "rb") as f:
    node = tomllib.load(f)
for k in keys:
    node = node.get(k) if isinstance(node, dict) else None
print(json.dumps(node))
PY
}

containerd_major() {
  containerd --version | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^v?[0-9]+\./) { sub(/^v/, "", $i); split($i, v, "."); print v[1]; exit } }'
}

containerd_debian_stock_config() {
  cat >"$1" <<'TOML'
version = 2

[plugins]
  [plugins."io.containerd.grpc.v1.cri"]
    [plugins."io.containerd.grpc.v1.cri".cni]
      bin_dir = "/usr/lib/cni"
      conf_dir = "/etc/cni/net.d"
  [plugins."io.containerd.internal.v1.opt"]
    path = "/var/lib/containerd/opt"
TOML
}
