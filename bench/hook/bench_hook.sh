#!/usr/bin/env bash
# Times `nvidia-container-runtime-hook prestart` (the real hook, in-process configure) on mock
# driver roots. Each run gets a fresh glibc rootfs and a fresh container: a process in its own
# mount namespace and device cgroup, as runc leaves it when prestart hooks run. The hook's wall
# time is taken by nvct-wall-time (fork, exec, wait; no `date` process inside the interval, which
# alone cost about 2 ms here). The hook's own phase split comes from its "configure timing" debug line; the mount count from the container's
# mountinfo. Prints a table. The 8-GPU case runs twice: with the container rootfs on the disk
# the test runs from, and on a tmpfs, because creating a mount target (an inode) costs about
# 0.5 ms on some virtual disks (this project's CI VM) against a few microseconds on tmpfs, and a
# hook makes some sixty of them. The gate is a regression guard only (100x the 5 ms target):
# nvct does not meet the target (see the issue notes), and a shared 2-core CI host is noisy.
# Knobs: NVCT_BENCH_HOOK_RUNS (30), NVCT_BENCH_HOOK_WRAP (a command put before the hook, e.g.
# perf or strace), NVCT_BENCH_HOOK_KEEP_LOG (copy the last run's debug log there),
# NVCT_BENCH_ONLY_TMPFS (only the 8-GPU tmpfs row), NVCT_BENCH_HOOK_EXEC_LDCONFIG=true (the
# ldcache step by exec'ing ldconfig instead of the native writer: the before/after comparison).
source "$(dirname "$0")/../../tests/e2e/lib/common.sh"
source "$(dirname "$0")/../../tests/e2e/lib/rootfs.sh"

require_root
require_cmd unshare busybox jq awk
[ -d /sys/fs/cgroup/devices ] || e2e_die "no cgroup v1 devices hierarchy on this host"
hook="$(nvct_bin nvidia-container-runtime-hook)" || e2e_die "nvidia-container-runtime-hook is not built"
wall="$NVCT_BUILD_DIR/bench/hook/nvct-wall-time"
[ -x "$wall" ] || e2e_die "$wall is not built (cmake --build $NVCT_BUILD_DIR --target nvct-wall-time)"
runs="${NVCT_BENCH_HOOK_RUNS:-30}"
target_ms=5

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

bench_topology() {
  local topology="$1" where="$2" root="$E2E_TMP/$1-root" dir="$E2E_TMP/$1-$2" i
  [ -d "$root" ] || bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
    --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/$topology.conf" --out "$root" \
    >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"
  mkdir -p "$dir"
  if [ "$where" = tmpfs ]; then
    mount -t tmpfs -o size=512m nvct-bench-hook "$dir" || e2e_die "cannot mount a tmpfs at $dir"
    e2e_on_exit "umount -l '$dir'"
  fi
  cat >"$dir/config.toml" <<TOML
[nvidia-container-cli]
root = "$root"
ldconfig = "@/sbin/ldconfig"
exec-ldconfig = ${NVCT_BENCH_HOOK_EXEC_LDCONFIG:-false}

[nvidia-container-runtime]
mode = "legacy"
TOML
  : >"$dir/samples"
  for i in $(seq "$runs"); do
    local bundle="$dir/bundle" cg="/sys/fs/cgroup/devices/nvct-bench-hook-$$-$i" pid rc=0
    rm -rf "$bundle"
    make_bundle "$bundle" glibc true
    bundle_set_env "$bundle" NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=utility,compute
    mkdir "$cg"
    echo a >"$cg/devices.deny"
    # runc's bind of the rootfs onto itself, its procfs on /proc; a tmpfs on /proc/driver stands in for the driver's directory.
    unshare -m --propagation private sh -c "echo \$\$ >'$cg/cgroup.procs' &&
      mount --bind '$bundle/rootfs' '$bundle/rootfs' &&
      mount -t proc proc '$bundle/rootfs/proc' && mount -t tmpfs tmpfs '$bundle/rootfs/proc/driver' &&
      exec sleep 600" &
    pid=$!
    # Ready once it runs sleep: in its cgroup and with every mount made (a hook started before
    # the tmpfs on /proc/driver failed under load: "create target /proc/driver/nvidia").
    for _ in $(seq 250); do grep -q "nvct-bench-hook-$$-$i" "/proc/$pid/cgroup" 2>/dev/null &&
      [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ] && break; sleep 0.02; done
    local before
    before="$(wc -l <"/proc/$pid/mountinfo")"
    printf '{"ociVersion":"1.0.2","id":"bench","status":"creating","pid":%d,"bundle":"%s"}' \
      "$pid" "$bundle" >"$dir/state.json"
    "$wall" "$dir/wall" ${NVCT_BENCH_HOOK_WRAP:-} "$hook" -debug -config "$dir/config.toml" prestart \
      <"$dir/state.json" >/dev/null 2>"$dir/hook.err" || rc=$?
    local mounts=$(( $(wc -l <"/proc/$pid/mountinfo") - before ))
    kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
    rmdir "$cg"
    [ -z "${NVCT_BENCH_HOOK_KEEP_LOG:-}" ] || cp "$dir/hook.err" "$NVCT_BENCH_HOOK_KEEP_LOG"
    [ "$rc" = 0 ] || e2e_die "hook failed on $topology run $i: $(tail -3 "$dir/hook.err")"
    local line
    line="$(grep -o 'configure timing: .*' "$dir/hook.err")" ||
      e2e_die "no 'configure timing' line in the hook's debug output"
    awk -v total="$(cat "$dir/wall")" -v mounts="$mounts" -v l="$line" 'BEGIN {
      n = split(l, f, /[ =]/); for (i = 1; i <= n; i++) if (f[i+1] ~ /ms$/) { sub(/ms$/, "", f[i+1]); v[f[i]] = f[i+1] }
      printf "%.3f %s %s %s %s %d\n", total / 1000, v["discovery"], v["mounts"], v["cgroups"], v["ldconfig"], mounts }' >>"$dir/samples"
  done
  local col
  printf '| %-10s | %-7s | %4d |' "$topology" "$where" "$runs"
  for col in 1 2 3 4 5; do printf ' %9.3f |' "$(awk -v c=$col '{print $c}' "$dir/samples" | median)"; done
  printf ' %6.0f |\n' "$(awk '{print $6}' "$dir/samples" | median)"
  RESULT_TOTAL="$(awk '{print $1}' "$dir/samples" | median)"
}

echo "nvidia-container-runtime-hook prestart, utility,compute, NVIDIA_VISIBLE_DEVICES=all: medians in ms, load average $(cut -d' ' -f1 /proc/loadavg)"
echo "| topology   | rootfs  | runs | hook wall | discovery |    mounts |   cgroups |  ldconfig | mounts |"
echo "|------------|---------|------|-----------|-----------|-----------|-----------|-----------|--------|"
[ -n "${NVCT_BENCH_ONLY_TMPFS:-}" ] || bench_topology one-gpu disk
bench_topology eight-gpus tmpfs
TMPFS_TOTAL="$RESULT_TOTAL"
[ -n "${NVCT_BENCH_ONLY_TMPFS:-}" ] || bench_topology eight-gpus disk
echo "target: <= $target_ms ms hook wall time for 8 GPUs including the ldcache update (8 GPUs: $TMPFS_TOTAL ms with the rootfs on tmpfs, $RESULT_TOTAL ms on disk); failure past $((100 * target_ms)) ms"
if awk -v t="$RESULT_TOTAL" -v max="$((100 * target_ms))" 'BEGIN { exit !(t > max) }'; then
  failed "8-GPU prestart median $RESULT_TOTAL ms is past $((100 * target_ms)) ms"
else
  pass "8-GPU prestart median $RESULT_TOTAL ms (failure threshold $((100 * target_ms)) ms)"
fi
e2e_finish
