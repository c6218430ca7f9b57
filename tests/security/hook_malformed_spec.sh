#!/usr/bin/env bash
# Checklist #32 at the hook: runc has already parsed config.json when it runs the prestart hook,
# and the hook reads the bundle's config.json and the state on stdin again. A wrapper in front of
# the hook swaps in, just before it starts (what a hostile or racing bundle writer could do):
#   truncated     config.json cut in half
#   duplicate     a second "root" key (runc, in Go, takes the last; a parser differential)
#   deep          arrays nested 100 000 deep (a recursive parser would overflow its stack)
#   root-symlink  root.path = a symlink in the bundle that points out of it, at a host
#                 directory laid out like a rootfs
#   big-state     the real state behind 1.1 MB of leading blanks on stdin (valid JSON past
#                 the 1 MiB cap)
# Expected: creation fails with the hook's one clear error, nothing is mounted (no target is
# created in the rootfs or in the host directory), the host sentinels hash the same and the host
# mount table is unchanged. A control run with nothing swapped gets its GPU, which shows the
# wrapper itself is harmless and (for the seccomp variants) that the fallback resolver ran.
# NVCT_HOOK_VARIANT (set by CTest) runs the hook normally or under tests/security/no_openat2.
source "$(dirname "$0")/../e2e/lib/common.sh"
source "$(dirname "$0")/../e2e/lib/rootfs.sh"
source "$(dirname "$0")/../e2e/lib/gpu.sh"
require_cmd python3

gpu_setup one-gpu
gpu_hook_variant
S="$E2E_TMP/host"
gpu_sentinel "$S/rootlike"
# The host directory looks enough like a rootfs that a hook following the link would work in it.
mkdir -p "$S/rootlike/usr/lib/x86_64-linux-gnu" "$S/rootlike/etc" "$S/rootlike/proc/driver/nvidia"
echo 12.0 >"$S/rootlike/etc/debian_version"
gpu_sentinel_rehash "$S/rootlike"
mounts_before="$(gpu_host_mounts)"

B="$E2E_TMP/b"
gpu_bundle "$B" NVIDIA_VISIBLE_DEVICES=0
cp "$B/config.json" "$E2E_TMP/config.good"
SWAP="$E2E_TMP/swap"
mkdir -p "$SWAP"
# A wrapper in front of the variant's hook command swaps the files in.
mv "$GPU_HOOK" "$GPU_HOOK.inner"
cat >"$GPU_HOOK" <<SH
#!/bin/sh
[ -f $SWAP/config.json ] && /bin/cp $SWAP/config.json $B/config.json
if [ -f $SWAP/pad ]; then
  { /usr/bin/head -c 1100000 /dev/zero | /usr/bin/tr '\\0' ' '; /bin/cat; } >$SWAP/state
  exec $GPU_HOOK.inner "\$@" <$SWAP/state
fi
exec $GPU_HOOK.inner "\$@"
SH
chmod 0755 "$GPU_HOOK"
bash -n "$GPU_HOOK" || e2e_die "the swapping wrapper is not valid sh: $(cat "$GPU_HOOK")"

libdir="$B/rootfs/usr/lib/x86_64-linux-gnu"
# Runs case <id> (the swap files are in place); expects a refusal naming <what>.
run_case() {
  local id="$1" what="$2" rc=0
  cp "$E2E_TMP/config.good" "$B/config.json"
  gpu_variant_run "$B" "$id" || rc=$?
  rm -f "$SWAP/config.json" "$SWAP/pad" "$SWAP/state"
  echo "# $id: $(cat "$E2E_TMP/$id.err")"
  check "$id: creation fails" test "$rc" -ne 0
  check_contains "$id: the hook refused" "nvidia-container-runtime-hook: " "$(cat "$E2E_TMP/$id.err")"
  check_contains "$id: ... naming the problem" "$what" "$(cat "$E2E_TMP/$id.err")"
  check_eq "$id: nothing was mounted (no target in the rootfs libs dir)" "" \
    "$(find "$libdir" -mindepth 1 \( -name '*nvidia*' -o -name '*cuda*' \))"
}

rc=0
gpu_variant_run "$B" control || rc=$?
gpu_safe_outcome control "$rc" "-"
check_eq "control: the control run was not refused" ran "$GPU_OUTCOME"
gpu_check_variant control
# The control's mount targets stay in the rootfs; start the refusals from a clean one.
rm -rf "$B/rootfs"
make_rootfs "$B/rootfs" glibc
printf '%s' "$GPU_REPORT" >"$B/rootfs/report.sh"
check_eq "setup: the fresh rootfs has no driver files" "" "$(find "$libdir" -mindepth 1 -name '*cuda*')"

head -c "$(($(stat -c %s "$E2E_TMP/config.good") / 2))" "$E2E_TMP/config.good" >"$SWAP/config.json"
run_case truncated "OCI spec"

python3 - "$E2E_TMP/config.good" "$SWAP/config.json" "$S/rootlike" <<'PY'
import sys
text = open(sys.argv[1]).read().lstrip()
assert text.startswith("{")
open(sys.argv[2], "w").write('{"root": {"path": "%s"},' % sys.argv[3] + text[1:])
PY
run_case duplicate "root"

python3 - "$E2E_TMP/config.good" "$SWAP/config.json" <<'PY'
import sys
text = open(sys.argv[1]).read().rstrip()
assert text.endswith("}")
open(sys.argv[2], "w").write(text[:-1] + ', "deep": ' + "[" * 100000 + "]" * 100000 + "}")
PY
run_case deep "nesting deeper"

ln -s "$S/rootlike" "$B/evil-root"
jq '.root.path = "evil-root"' "$E2E_TMP/config.good" >"$SWAP/config.json"
run_case root-symlink "root"
check_eq "root-symlink: nothing was created in the host directory" "" \
  "$(ls -A "$S/rootlike/usr/lib/x86_64-linux-gnu")"

touch "$SWAP/pad"
run_case big-state "read OCI state from stdin"

gpu_sentinel_check
check_eq "host mount table unchanged" "$mounts_before" "$(gpu_host_mounts)"
e2e_finish
