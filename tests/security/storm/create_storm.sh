#!/usr/bin/env bash
# Checklist row 39 (spec/security.md §9, create-storm; §8 "Concurrency"): $NVCT_STORM_N (200)
# GPU containers created at once through the nvct shim, runc and the nvct prestart hook (legacy
# mode) on the eight-GPU mock driver, each asking for its own GPU set. Half of them have a rootfs
# of their own (an overlay on one template); the other half share one rootfs per group of
# $NVCT_STORM_SHARE (25), so their hooks race to create the same mount targets, symlinks and
# ld.so.cache in the same directories. All hooks log at debug level into one file, all shims into
# another, and all share the driver root and the facts cache.
# Passes when: every container exits 0 and saw exactly its GPUs; no "File exists"/EEXIST or other
# error in any shim/runc/hook output or log; every log line is intact (one writer's line never
# cut by another's) and each container has its lines; the shared rootfs's ld.so.cache is valid;
# no runc state, mount or nvct temp file is left. NVCT_HOOK_VARIANT (normal, no_openat2) picks the
# resolver, and the hook log proves which one ran (tests/e2e/lib/gpu.sh).
E2E_LIB="$(dirname "$0")/../../e2e/lib"
source "$E2E_LIB/common.sh"
source "$E2E_LIB/rootfs.sh"
source "$E2E_LIB/gpu.sh"
source "$E2E_LIB/load.sh"

N="${NVCT_STORM_N:-200}"
SHARE="${NVCT_STORM_SHARE:-25}"
T_START="$(load_now_ms)"
require_cmd runc jq timeout ldconfig
gpu_setup eight-gpus
gpu_hook_variant
load_topology_8

CG="nvct-storm-$$"
e2e_on_exit "find /sys/fs/cgroup -depth -type d -name '$CG' -exec rmdir {} \\;"
TEMPLATE="$E2E_TMP/template"
load_template "$TEMPLATE" glibc
load_base_spec
# Odd k: one of the shared rootfs groups; even k: a rootfs of its own.
rootfs_of() {
  local k="$1"
  if [ $((k % 2)) -eq 1 ]; then echo "$E2E_TMP/shared-$(((k / 2) / SHARE))"; else echo ""; fi
}
for ((k = 0; k < N; k++)); do
  b="$E2E_TMP/bundles/$k"
  shared="$(rootfs_of "$k")"
  if [ -z "$shared" ] || [ ! -e "$shared" ]; then
    load_bundle "$TEMPLATE" "$b" "/$CG/$k" "$(load_request_of "$k")"
    # A shared group's rootfs is the overlay of its first bundle.
    if [ -n "$shared" ]; then ln -s "$b/rootfs" "$shared"; fi
  else
    mkdir -p "$b"
    spec="$(<"$LOAD_SPEC")"
    spec="${spec//@CGROUP@//$CG/$k}"
    spec="${spec//@REQUEST@/$(load_request_of "$k")}"
    printf '%s\n' "${spec/\"path\": \"rootfs\"/\"path\": \"$(readlink "$shared")\"}" >"$b/config.json"
    [[ "$(<"$b/config.json")" == *"\"path\": \"$(readlink "$shared")\""* ]] ||
      e2e_die "bundle $k: root.path is not the shared rootfs"
  fi
done
groups="$(load_find "$E2E_TMP" -maxdepth 1 -name 'shared-*' | wc -l)"
echo "# $N containers: $((N - N / 2)) with their own rootfs, $((N / 2)) in $groups shared rootfs groups"
mounts_before="$(load_mounts)"
temps_before="$(load_shared_temps 2 /run /tmp)"

storm_one() {
  local k="$1" id="nvct-storm-$$-$1" rc=0
  timeout 120 "$GPU_SHIM" --root "$GPU_STATE" run --bundle "$E2E_TMP/bundles/$k" "$id" </dev/null \
    >"$E2E_TMP/$k.out" 2>"$E2E_TMP/$k.err" || rc=$?
  runc --root "$GPU_STATE" delete --force "$id" >/dev/null 2>&1 || true
  [ "$rc" = 0 ] || { echo "storm-$k: exit $rc: $(tr '\n' ' ' <"$E2E_TMP/$k.err")" >&2; return "$rc"; }
  load_check_report "$E2E_TMP/$k.out" "$(load_request_of "$k")"
}
load_batch "storm-$GPU_VARIANT" "$N" storm_one

# --- no race error anywhere ------------------------------------------------------------------------
RACE='File exists|EEXIST|[Rr]ace|Resource busy|Text file busy|Stale file|No such file|Interrupted'
cat "$E2E_TMP"/[0-9]*.err >"$E2E_TMP/all.err"
check_eq "no race error in any shim/runc output" "" "$(grep -E "$RACE" "$E2E_TMP/all.err" | head -5)"
check_eq "no error line in any shim/runc output" "" \
  "$(grep -iE 'error|fatal|panic' "$E2E_TMP/all.err" | head -5)"
check_eq "no File exists/EEXIST anywhere in the hook log" "" \
  "$(grep -E 'File exists|EEXIST' "$GPU_HOOK_LOG" | head -5)"
# (debug lines may name a missing file on purpose: the facts cache's miss on a MIG-capable board)
check_eq "no race error in the hook log's warnings and errors" "" \
  "$(grep -E '\]: (warning|error): ' "$GPU_HOOK_LOG" | grep -E "$RACE" | head -5)"
check_eq "no error line in the hook log" "" "$(grep -E '\]: error: ' "$GPU_HOOK_LOG" | head -5)"
SHIM_LOG="$E2E_TMP/shim-debug.log"
check_eq "no race error in the shim log" "" "$(grep -E "$RACE" "$SHIM_LOG" | head -5)"
check_eq "no error line in the shim log" "" "$(grep -E 'level=(error|fatal|panic)' "$SHIM_LOG" | head -5)"

# --- intact log lines: every line is one whole record, and each container has its own -------------
HOOK_LINE='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z [a-z-]+\[[0-9]+\]: (debug|info|warning|error): .+$|^wrapper: Seccomp: 2$'
SHIM_LINE='^time="[0-9T:.Z-]+" level=[a-z]+ msg=".*"$'
check_eq "every hook log line is a whole record" "" "$(grep -vE "$HOOK_LINE" "$GPU_HOOK_LOG" | head -3)"
check_eq "every shim log line is a whole record" "" "$(grep -vE "$SHIM_LINE" "$SHIM_LOG" | head -3)"
check_eq "one 'configuring container' hook line per container" "$N" \
  "$(grep -cE ": info: configuring container nvct-storm-$$-[0-9]+ " "$GPU_HOOK_LOG")"
check_eq "one legacy-mode shim line per container" "$N" \
  "$(grep -c 'applying legacy mode modifiers' "$SHIM_LOG")"
cp "$GPU_HOOK_LOG" "$E2E_TMP/storm.hook.log"
gpu_check_variant storm

# --- the shared rootfs stayed sound, nothing was left behind --------------------------------------
for shared in "$E2E_TMP"/shared-*; do
  check "$(basename "$shared"): its ld.so.cache is valid and lists libcuda.so.1" \
    sh -c "ldconfig -p -C '$shared/etc/ld.so.cache' | grep -q 'libcuda.so.1 '"
done
check_eq "no runc container left" "" "$(runc --root "$GPU_STATE" list -q)"
check_eq "0 leaked mounts (host mountinfo diff)" "" "$(diff <(echo "$mounts_before") <(load_mounts) || true)"
check_eq "0 leaked cgroups" "" "$(load_cgroups "/$CG/")"
check_eq "0 nvct temp files in the bundles and rootfs" "" "$(load_temp_files "$E2E_TMP/bundles")"
check_eq "0 new nvct temp files in /run and /tmp" "" \
  "$(diff <(echo "$temps_before") <(load_shared_temps 2 /run /tmp) | grep '^>' || true)"
echo "STORM $GPU_VARIANT: n=$N wall_s=$LOAD_WALL_S median_s=$LOAD_MEDIAN_S total_s=$(awk -v ms=$(($(load_now_ms) - T_START)) 'BEGIN { printf "%.1f", ms / 1000 }')"
e2e_finish
