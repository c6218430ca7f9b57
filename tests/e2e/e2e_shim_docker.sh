#!/usr/bin/env bash
# Docker (Debian's dockerd 20.10 + containerd 1.6, private instances) with nvidia-container-runtime
# registered as runtime "nvidia": containers run with and without a GPU request, the prestart hook
# is injected only for GPU containers, and a failing create shows the shim's own error text.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/dockerd.sh"
require_root
require_cmd jq runc timeout

SHIM="$(shim_bin)"
HOOKDIR="$E2E_TMP/hookbin"
HOOK="$(make_record_hook "$HOOKDIR")"
CFG="$E2E_TMP/config.toml"
# containerd -> containerd-shim-runc-v2 -> nvidia-container-runtime inherit this environment.
export NVIDIA_CTK_CONFIG_FILE_PATH="$CFG"
write_shim_config "$CFG" '["runc"]' "$HOOK" legacy "$E2E_TMP/shim-debug.log"

start_private_dockerd "$E2E_TMP/docker" "$SHIM"
make_rootfs "$E2E_TMP/rootfs" busybox
IMG="nvct-e2e-busybox:latest"
docker_import_rootfs "$E2E_TMP/rootfs" "$IMG"
check "busybox image imported from a local rootfs" docker image inspect "$IMG"

out="$(timeout 90 docker run --rm --runtime=nvidia --network none "$IMG" echo ok 2>&1)" || true
check_eq "docker run --runtime=nvidia without NVIDIA_VISIBLE_DEVICES" ok "$out"
check "no GPU requested: the hook did not run" test ! -e "$HOOKDIR/hook-called"
check "shim debug log shows the create went through nvct" grep -q 'no GPU requested' "$E2E_TMP/shim-debug.log"

out="$(timeout 90 docker run --rm --runtime=nvidia --network none -e NVIDIA_VISIBLE_DEVICES=all \
  "$IMG" sh -c 'echo ok; echo "$NVIDIA_VISIBLE_DEVICES"' 2>&1)" || true
check_eq "docker run --runtime=nvidia with NVIDIA_VISIBLE_DEVICES=all" "ok|all" "$(echo "$out" | paste -sd'|')"
check "GPU requested: the injected prestart hook ran" test -s "$HOOKDIR/hook-called"
check_contains "GPU requested: the hook got the OCI state with the bundle" '"bundle":' \
  "$(sed -n 's/^state=//p' "$HOOKDIR/hook-called" 2>/dev/null)"
check "shim debug log shows the hook was added" grep -q 'added prestart hook' "$E2E_TMP/shim-debug.log"

# Detached container: the injected hook is visible in the bundle's config.json.
rm -f "$HOOKDIR/hook-called"
cid="$(timeout 60 docker run -d --runtime=nvidia --network none -e NVIDIA_VISIBLE_DEVICES=0 "$IMG" sleep 60)"
bundle_cfg="$(find "$E2E_TMP/docker" -path "*/moby/$cid/config.json" 2>/dev/null | head -n1)"
check "detached GPU container: bundle config.json found" test -n "$bundle_cfg"
check_eq "detached GPU container: exactly one nvct prestart hook in config.json" 1 \
  "$(jq --arg h "$HOOK" '[.hooks.prestart[] | select(.path == $h)] | length' "$bundle_cfg" 2>/dev/null)"
check_eq "docker exec through the shim" hi "$(timeout 30 docker exec "$cid" echo hi)"
check "docker rm -f through the shim" timeout 60 docker rm -f "$cid"

write_shim_config "$CFG" '["runc"]' "$HOOK" bogus "$E2E_TMP/shim-debug.log"
set +e
out="$(timeout 90 docker run --rm --runtime=nvidia --network none -e NVIDIA_VISIBLE_DEVICES=all \
  "$IMG" echo ok 2>&1)"
rc=$?
set -e
check "failing create (mode = bogus): docker run fails" test "$rc" -ne 0
check_contains "failing create: docker shows the shim's error text, with the file that set the mode" \
  "OCI runtime create failed: nvidia-container-runtime.mode in $CFG: invalid mode \"bogus\"" "$out"
echo "# docker said: $out"

e2e_finish
