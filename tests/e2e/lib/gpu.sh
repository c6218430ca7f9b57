# shellcheck shell=bash
# Full GPU containers on the mock driver (no GPU needed). Source after common.sh and rootfs.sh.
#
#   gpu_setup <topology>     builds a mock driver root (tests/mock-driver/topologies/<t>.conf) at
#                            $GPU_ROOT and writes $GPU_CONFIG: nvidia-container-cli.root = the
#                            mock root, legacy mode, runc, and the hook path $GPU_HOOK. Exports
#                            NVIDIA_CTK_CONFIG_FILE_PATH for the shim.
#   gpu_bundle <bundle> [NAME=VALUE...]   a glibc bundle whose process runs /report.sh
#                            ($GPU_REPORT: nodes, ldconfig -p, nvidia-smi -L, params, open()
#                            errors), with the given container env
#   gpu_add_mount <bundle> <json>         appends one entry to config.json's mounts
#   gpu_run <bundle> <id>    runs it through the shim (runc) into $E2E_TMP/<id>.out/.err; the
#                            exit status of the shim is returned
#   gpu_field <file> <key>   the values of the report's "<key> ..." lines, one per line
#
# $GPU_HOOK is a two-line wrapper that execs the built hook with `-config $GPU_CONFIG`: the hook
# never reads its config location from the environment, the shim does not pass -config yet, and
# dockerd's --gpus hook has no argument for it either; the wrapper is test plumbing only.
#
# The mock host has no nvidia kernel module, so the container's procfs has no
# /proc/driver/nvidia for the mount library's tmpfs (on a real host it always exists). Every GPU
# container therefore gets a tmpfs on /proc/driver (config.json mount, or docker --tmpfs), which
# stands in for the directory the driver would create.

GPU_REPORT='
find /dev -name "nvidia*" | sort | sed "s/^/node /"
/sbin/ldconfig -p | grep "x86-64" | sed -n "s/^[[:space:]]*\([^ ]*\) (.*) => \(.*\)$/lib \1 \2/p"
for l in libcuda.so.1 libnvidia-ml.so.1; do
  p=/usr/lib/x86_64-linux-gnu/$l
  [ -e $p ] && echo "real $l $(readlink -f $p) $(md5sum < $p | cut -d" " -f1)"
done
if [ -x /usr/bin/nvidia-smi ]; then
  smi="$(nvidia-smi -L 2>&1)"; echo "smirc $?"; echo "$smi" | sed "s/^/smi /"
else
  echo "smirc none"
fi
grep ModifyDeviceFiles /proc/driver/nvidia/params 2>/dev/null | sed "s/^/params /"
for n in /dev/nvidia[0-9]*; do
  [ -e "$n" ] && echo "open $n $(head -c1 "$n" 2>&1 >/dev/null | sed "s/.*: //")"
done
echo done
'

gpu_setup() {
  local topology="$1"
  require_root
  require_cmd runc jq md5sum
  GPU_ROOT="$E2E_TMP/driver-root"
  local make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
  [ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"
  [ -e "$NVCT_BUILD_DIR/tests/mock-driver/bin/nvidia-smi" ] ||
    e2e_die "mock driver not built (cmake --build $NVCT_BUILD_DIR --target mock_driver)"
  bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$GPU_ROOT" \
    >"$E2E_TMP/make-root.log" 2>&1 ||
    e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make-root.log")"
  [ -c "$GPU_ROOT/dev/nvidia0" ] || e2e_die "mock root has no character device nodes (not root?)"

  GPU_SHIM="$(shim_bin)"
  GPU_REAL_HOOK="$(nvct_bin nvidia-container-runtime-hook)"
  GPU_CONFIG="$E2E_TMP/config.toml"
  GPU_HOOKDIR="$E2E_TMP/hookbin"
  GPU_HOOK="$GPU_HOOKDIR/nvidia-container-runtime-hook"
  GPU_STATE="$E2E_TMP/runc-state"
  mkdir -p "$GPU_HOOKDIR" "$GPU_STATE"
  printf '#!/bin/sh\nexec %s -config %s "$@"\n' "$GPU_REAL_HOOK" "$GPU_CONFIG" >"$GPU_HOOK"
  chmod 0755 "$GPU_HOOK"
  cat >"$GPU_CONFIG" <<TOML
[nvidia-container-cli]
root = "$GPU_ROOT"

[nvidia-container-runtime]
debug = "$E2E_TMP/shim-debug.log"
mode = "legacy"
runtimes = ["runc"]

[nvidia-container-runtime-hook]
path = "$GPU_HOOK"
TOML
  export NVIDIA_CTK_CONFIG_FILE_PATH="$GPU_CONFIG"
  e2e_on_exit "for c in \$(runc --root '$GPU_STATE' list -q 2>/dev/null); do runc --root '$GPU_STATE' delete --force \$c; done"
}

gpu_add_mount() {
  local bundle="$1" json="$2"
  jq --argjson m "$json" '.mounts += [$m]' "$bundle/config.json" >"$bundle/config.json.new"
  mv "$bundle/config.json.new" "$bundle/config.json"
}

gpu_bundle() {
  local bundle="$1"
  shift
  make_bundle "$bundle" glibc sh /report.sh
  printf '%s' "$GPU_REPORT" >"$bundle/rootfs/report.sh"
  [ $# -gt 0 ] && bundle_set_env "$bundle" "$@"
  gpu_add_mount "$bundle" \
    '{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","mode=755"]}'
}

gpu_run() {
  local bundle="$1" id="$2" rc=0
  timeout 120 "$GPU_SHIM" --root "$GPU_STATE" run --bundle "$bundle" "$id" \
    </dev/null >"$E2E_TMP/$id.out" 2>"$E2E_TMP/$id.err" || rc=$?
  runc --root "$GPU_STATE" delete --force "$id" >/dev/null 2>&1 || true
  return "$rc"
}

gpu_field() {
  sed -n "s/^$2 //p" "$1"
}

# The /dev/nvidia* nodes of a report as one space-separated line.
gpu_nodes() { gpu_field "$1" node | tr '\n' ' ' | sed 's/ $//'; }
# The GPU lines of nvidia-smi -L (MIG lines start with two spaces and are kept apart).
gpu_smi_gpus() { gpu_field "$1" smi | grep '^GPU ' | sed 's/^GPU [0-9]*: //' | tr '\n' '|' | sed 's/|$//'; }

# The host's mount table, for before/after comparisons: lines of this test's temp dir or of any
# nvidia path. Other tests may mount and unmount unrelated things concurrently.
gpu_host_mounts() {
  grep -E "$E2E_TMP|nvidia" /proc/self/mountinfo | awk '{ $1 = ""; $2 = ""; print }' | sort || true
}
