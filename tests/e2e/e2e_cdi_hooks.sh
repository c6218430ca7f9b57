#!/usr/bin/env bash
# The CDI hooks end to end (spec/cdi.md §8): nvidia-cdi-hook fed an OCI state on stdin against a
# real bundle, `nvidia-ctk hook` giving the same results, unknown hooks exiting 0, and the hooks
# run by runc itself as createContainer hooks of a container (busybox + glibc rootfs).
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
require_root
require_cmd runc jq unshare strings

HOOK="$(nvct_bin nvidia-cdi-hook)"
CTK="$(nvct_bin nvidia-ctk)"

B="$E2E_TMP/bundle"
make_bundle "$B" glibc sh -c 'echo ok'
R="$B/rootfs"
# The state is fed from a file: a hook that does not read stdin (noop, unknown hooks) must not
# turn into SIGPIPE for a writer under pipefail.
STATE="$E2E_TMP/state.json"
printf '{"ociVersion":"1.0.2","id":"e2e-hooks","status":"creating","pid":1,"bundle":"%s"}' "$B" \
  >"$STATE"
mkdir -p "$R/opt/nv"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$R/opt/nv/libm.so.6"

# create-symlinks with the state on stdin.
<"$STATE" "$HOOK" create-symlinks --link libm.so.6::/opt/nv/libalias.so.1 \
  --link libm.so.6::/opt/nv/libalias.so.1 2>"$E2E_TMP/err" ||
  failed "create-symlinks exited $?: $(cat "$E2E_TMP/err")"
check_eq "create-symlinks made the link" "libm.so.6" "$(readlink "$R/opt/nv/libalias.so.1")"
<"$STATE" "$HOOK" create-symlinks --link libm.so.6::/opt/nv/libalias.so.1 2>/dev/null
check_eq "re-running create-symlinks keeps the link" "libm.so.6" \
  "$(readlink "$R/opt/nv/libalias.so.1")"
rc=0
<"$STATE" "$HOOK" create-symlinks --link bad-spec 2>"$E2E_TMP/err" || rc=$?
check_eq "a malformed --link exits 1" 1 "$rc"
check_contains "the error names the spec" "invalid symlink specification bad-spec" \
  "$(cat "$E2E_TMP/err")"

# update-ldcache mounts in its own namespaces; run it from a private mount ns like runc would.
rm -f "$R/etc/ld.so.cache"
unshare -m --propagation private sh -c \
  "$(printf '%q ' "$HOOK" update-ldcache --folder /opt/nv --folder /lib/x86_64-linux-gnu)" \
  <"$STATE" 2>"$E2E_TMP/err" || failed "update-ldcache failed: $(cat "$E2E_TMP/err")"
check "ld.so.cache lists the --folder library" \
  grep -q /opt/nv/libm.so.6 <(strings "$R/etc/ld.so.cache")
check_eq "one 00-nvcr drop-in for the user folder" 1 \
  "$(find "$R/etc/ld.so.conf.d" -name '00-nvcr-*.conf' | wc -l)"
check_eq "the 00 drop-in lists /opt/nv" "/opt/nv" \
  "$(cat "$R"/etc/ld.so.conf.d/00-nvcr-*.conf)"
check_eq "system folders go to a zz drop-in" "/lib/x86_64-linux-gnu" \
  "$(cat "$R"/etc/ld.so.conf.d/zz-nvcr-*.conf)"
check_eq "no mount of the hook is left behind" "" \
  "$(grep -F "$E2E_TMP" /proc/self/mountinfo || true)"

# nvidia-ctk hook is the same code.
mkdir -p "$R/dev/nvidia-caps" && chmod 0700 "$R/dev/nvidia-caps"
<"$STATE" "$CTK" hook chmod --mode 755 --path /dev/nvidia-caps 2>"$E2E_TMP/err" ||
  failed "nvidia-ctk hook chmod failed: $(cat "$E2E_TMP/err")"
check_eq "nvidia-ctk hook chmod changed the mode" 755 "$(stat -c %a "$R/dev/nvidia-caps")"
<"$STATE" "$CTK" hook create-symlinks --link libm.so.6::/opt/nv/libctk.so 2>/dev/null
check_eq "nvidia-ctk hook create-symlinks" "libm.so.6" "$(readlink "$R/opt/nv/libctk.so")"

# Unknown hooks: warning, exit 0 (forward compatibility), on both binaries.
for bin in "$HOOK" "$CTK hook"; do
  rc=0
  out="$($bin not-a-hook --flag 2>&1 <"$STATE")" || rc=$?
  check_eq "$bin: unknown hook exits 0" 0 "$rc"
  check_contains "$bin: unknown hook warns" "Unsupported CDI hook: not-a-hook" "$out"
  rc=0
  out="$($bin 2>&1 </dev/null)" || rc=$?
  check_eq "$bin: no hook exits 0" 0 "$rc"
  check_contains "$bin: no hook warns" "No CDI hook specified" "$out"
done
rc=0
"$HOOK" noop --anything 2>/dev/null <"$STATE" || rc=$?
check_eq "noop exits 0" 0 "$rc"

# runc runs the hooks as createContainer hooks (in the container mount ns, before pivot_root).
B2="$E2E_TMP/run"
make_bundle "$B2" glibc sh -c \
  'readlink /opt/nv/liblink.so; ldconfig -p | grep -c /opt/nv/libm.so.6; stat -c %a /opt/nv/tool'
mkdir -p "$B2/rootfs/opt/nv"
cp -L /lib/x86_64-linux-gnu/libm.so.6 "$B2/rootfs/opt/nv/libm.so.6"
install -m 0700 /dev/null "$B2/rootfs/opt/nv/tool"
json_list() { printf '%s\n' "$@" | jq -R . | jq -s -c .; }
hook_json() {
  jq -n -c --arg p "$HOOK" --argjson a "$(json_list "$@")" \
    '{path: $p, args: ([$p | split("/") | last] + $a), env: ["NVIDIA_CTK_DEBUG=false"],
      timeout: 30}'
}
jq --argjson h1 "$(hook_json create-symlinks --link libm.so.6::/opt/nv/liblink.so)" \
  --argjson h2 "$(hook_json update-ldcache --folder /opt/nv)" \
  --argjson h3 "$(hook_json chmod --mode 750 --path /opt/nv/tool)" \
  '.root.readonly = false | .hooks.createContainer = [$h1, $h2, $h3]' \
  "$B2/config.json" >"$B2/config.json.new" && mv "$B2/config.json.new" "$B2/config.json"
mkdir -p "$E2E_TMP/runc-root"
e2e_on_exit "runc --root '$E2E_TMP/runc-root' delete -f e2e-cdi-hooks"
rc=0
out="$(runc --root "$E2E_TMP/runc-root" run -b "$B2" e2e-cdi-hooks 2>&1)" || rc=$?
check_eq "runc run with the hooks exits 0 ($out)" 0 "$rc"
check_eq "the container sees the link, the cache entry and the mode" \
  "$(printf 'libm.so.6\n1\n750')" "$out"

# --version: its own name and the nvct version (the one CMake generated), exit 0.
want_version="$(sed -n 's/.*kVersion = "\(.*\)";/\1/p' "$NVCT_BUILD_DIR/include/nvct/base/version_info.hpp")"
rc=0
out="$("$HOOK" --version 2>&1)" || rc=$?
check_eq "nvidia-cdi-hook --version exits 0" 0 "$rc"
check_eq "nvidia-cdi-hook --version names itself and the version" \
  "NVIDIA CDI Hook version $want_version" "$(printf '%s\n' "$out" | head -n1)"

e2e_finish
