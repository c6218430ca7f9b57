#!/usr/bin/env bash
# The prestart hook: nvct's nvidia-container-runtime-hook and NVIDIA's (toolkit 1.13.1, calling
# libnvidia-container 1.17's CLI) on the same mock driver roots and the same bundle, each case in
# a fresh rootfs and stand-in container: exit status and message, the mounts, links and files in
# the container, its /proc/driver/nvidia and ld.so.cache and the rules of its device cgroup
# (both hooks with no-cgroups = false) must be equal (peers_report), except
# where docs/deviations.md names the difference. Device selections by NVIDIA_VISIBLE_DEVICES
# (all, indices, UUID, MIG, none, void, unset, unknown), capabilities, requirements (met, not met,
# NVIDIA_DISABLE_REQUIRE, a legacy CUDA image). Both hooks run with the bundle as the current
# directory, as runc runs them.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/configure.sh"
source "$(dirname "$0")/lib/peers.sh"
require_root
require_cmd unshare nsenter mount find jq
peers_require

peers_enter "$0" "$@"

hook="$(nvct_bin nvidia-container-runtime-hook)"
template="$E2E_TMP/rootfs-template"
make_rootfs "$template" glibc

allowed() { # <topology> <env>: the docs/deviations.md phrase that explains a difference
  case "$1|$2" in
    *) ;;
  esac
}


# effects <hook> <config> <env...>: what one prestart did (peers_report).
effects() {
  local bin="$1" config="$2" bundle="$E2E_TMP/bundle" rc=0 env_json
  shift 2
  mkdir -p "$bundle"
  peers_container "$template" "$bundle/rootfs"
  env_json="$(printf '%s\n' PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@" | jq -R . | jq -sc .)"
  printf '{"ociVersion":"1.0.2","process":{"args":["sh"],"cwd":"/","env":%s},"root":{"path":"rootfs"}}' \
    "$env_json" >"$bundle/config.json"
  printf '{"ociVersion":"1.0.2","id":"conformance","status":"creating","pid":%s,"bundle":"%s"}' \
    "$PEERS_PID" "$bundle" >"$E2E_TMP/state.json"
  (cd "$bundle" && "$bin" -config "$config" prestart <"$E2E_TMP/state.json") \
    >"$E2E_TMP/out" 2>"$E2E_TMP/err" || rc=$?
  # The Go hook's log prefix (date and time) is not part of the message; the mode line is the
  # later toolkit's (docs/deviations.md: "Using requested mode").
  sed -i -E -e 's/^[0-9]{4}\/[0-9]{2}\/[0-9]{2} [0-9:]{8} //' -e "/^Using requested mode 'legacy'\$/d" \
    "$E2E_TMP/err"
  peers_report "$bundle/rootfs" "$rc" "$E2E_TMP/err"
}

compare() { # <topology> <env...>
  local topo="$1"
  shift
  effects "$hook" "$E2E_TMP/nvct.toml" "$@" >"$E2E_TMP/nvct.txt"
  PATH="$PEER_BIN:$PATH" effects "$PEER_BIN/nvidia-container-runtime-hook" "$E2E_TMP/peer.toml" "$@" \
    >"$E2E_TMP/peer.txt"
  [ -n "${CONFORMANCE_KEEP:-}" ] && cp "$E2E_TMP/nvct.txt" "$CONFORMANCE_KEEP/hook-$topo-$PEERS_CASES.txt"
  peers_compare "$topo [$*]" "$E2E_TMP/nvct.txt" "$E2E_TMP/peer.txt" "$(allowed "$topo" "$*")"
}

for topo in one-gpu mig eight-gpus graphics; do
  root="$E2E_TMP/root-$topo"
  peers_mock_root "$topo" "$root"
  mount --bind "$root/proc/devices" /proc/devices
  mount --bind "$root/proc/driver" /proc/driver
  cfg_hook_config "$root" "" "$E2E_TMP/nvct.toml"
  cfg_hook_config "$root" "$PEER_BIN/nvidia-container-cli" "$E2E_TMP/peer.toml"
  sed -i 's/^no-cgroups = true$/no-cgroups = false/' "$E2E_TMP/nvct.toml" "$E2E_TMP/peer.toml"
  conf="$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topo.conf"
  uuid0="$(sed -n 's/^gpu = .*uuid=\([^;]*\);.*/\1/p' "$conf" | head -1)"
  while IFS= read -r line; do
    # shellcheck disable=SC2086 # one case per line, variables split on purpose
    compare "$topo" $line
  done <<CASES
NVIDIA_VISIBLE_DEVICES=all
NVIDIA_VISIBLE_DEVICES=0
NVIDIA_VISIBLE_DEVICES=0,1
NVIDIA_VISIBLE_DEVICES=$uuid0
NVIDIA_VISIBLE_DEVICES=0:0
NVIDIA_VISIBLE_DEVICES=none
NVIDIA_VISIBLE_DEVICES=void
NVIDIA_VISIBLE_DEVICES=
NVIDIA_VISIBLE_DEVICES=nope
NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=utility
NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=all
NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=graphics,display
NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=video,compat32
NVIDIA_VISIBLE_DEVICES=all NVIDIA_REQUIRE_CUDA=cuda>=12.0
NVIDIA_VISIBLE_DEVICES=all NVIDIA_REQUIRE_CUDA=cuda>=99.0
NVIDIA_VISIBLE_DEVICES=all NVIDIA_REQUIRE_CUDA=cuda>=99.0 NVIDIA_DISABLE_REQUIRE=true
NVIDIA_VISIBLE_DEVICES=all NVIDIA_REQUIRE_BRAND=brand=tesla
CUDA_VERSION=12.4.0
CUDA_VERSION=99.0
CASES
  umount /proc/driver
  umount /proc/devices
done
peers_summary conformance_hook "prestart cases with NVIDIA's hook 1.13.1 + CLI 1.17"
e2e_finish
