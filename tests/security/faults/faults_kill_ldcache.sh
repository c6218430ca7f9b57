#!/usr/bin/env bash
# Issue 18, Faults: SIGKILL at random moments (FAULT_KILLS, default 200, per writer) while the
# container's /etc/ld.so.cache is rebuilt: `nvidia-container-cli configure` (the native writer in
# its sandboxed child) and the prestart hook with exec-ldconfig = true (the host's ldconfig run
# from a sealed copy), each into a fresh stand-in container per kill (fault_inject --container: a
# private mount namespace with the rootfs bind-mounted onto itself, as runc leaves it at
# prestart). After every kill the cache is byte-identical to the image's old one or to the new
# complete one, never a partial file; the temp file of a killed writer (".ld.so.cache.<pid>-XXXXXX"
# or "ld.so.cache~" of the native writer; "ld.so.cache~" of ldconfig, which reuses it) is gone
# after the next run. A killed parent's sandboxed child is
# waited for (fault_inject is a subreaper) before the check.
source "$(dirname "$0")/lib.sh"
source "$NVCT_SOURCE_DIR/tests/e2e/lib/rootfs.sh"
require_cmd busybox

fault_mock_root one-gpu "$FT/driver-root"
ROOTFS="$FT/rootfs"
make_rootfs "$ROOTFS" glibc
mkdir -p "$ROOTFS/proc"
[ -f "$ROOTFS/etc/ld.so.cache" ] || /sbin/ldconfig -r "$ROOTFS" ||
  e2e_die "cannot build the image's own ld.so.cache"
cp "$ROOTFS/etc/ld.so.cache" "$FT/ldcache.old"

# --- the native writer: nvidia-container-cli configure ---
# Its sandboxed child writes the cache in one write(2) of a few KiB: slow_write.c (recognising
# the cache by its magic, busy-waiting without syscalls under the child's seccomp filter)
# stretches it so that kills land mid-write. The first run creates lasting links in the rootfs
# (libcuda.so), so one warm-up run comes before the old/new versions are taken.
FAULT_SLOW_WRITE_MAGIC="glibc-ld.so.cache" FAULT_SLOW_WRITE_CHUNK=64 FAULT_SLOW_WRITE_US=200 \
fault_kill --kind ldcache-native --runs "$FAULT_KILLS" --container "$ROOTFS" --warmup 1 \
  --preload "$FAULT_SLOW_WRITE" \
  --target "$ROOTFS/etc/ld.so.cache" --old "$FT/ldcache.old" --new "$FT/ldcache-native.new" \
  --temp "ld.so.cache~" --temp ".ld.so.cache." --log "$FT/native.log" -- \
  "$CLI" --root "$FT/driver-root" configure --pid "{PID}" --device=0 --compute --utility \
  --no-cgroups --ldconfig=@/sbin/ldconfig "$ROOTFS"
check "ldcache-native: the new cache lists libcuda.so.1" grep -q "libcuda.so.1" "$FT/ldcache-native.new"

# --- exec-ldconfig = true: the hook runs the host's ldconfig ---
mkdir -p "$FT/bundle"
cat >"$FT/bundle/config.json" <<JSON
{"ociVersion":"1.0.2","process":{"args":["sh"],"cwd":"/","env":["NVIDIA_VISIBLE_DEVICES=0","NVIDIA_DRIVER_CAPABILITIES=compute,utility"]},"root":{"path":"$ROOTFS"}}
JSON
cat >"$FT/hook.toml" <<TOML
[nvidia-container-cli]
root = "$FT/driver-root"
load-kmods = false
no-cgroups = true
ldconfig = "@/sbin/ldconfig"
exec-ldconfig = true
debug = "$FT/hook-debug.log"

[nvidia-container-runtime]
mode = "legacy"
TOML
printf '{"ociVersion":"1.0.2","id":"faults","status":"creating","pid":{PID},"bundle":"%s"}' \
  "$FT/bundle" >"$FT/state.json"
# The host's ldconfig is static and runs from a sealed copy with an empty environment: no
# preload can slow it, and its cache lives for about 100 us of a 50 ms run, so few kills land
# mid-write however they are aimed (the count is reported, not required: --min-mid 0).
fault_kill --kind ldcache-exec-ldconfig --runs "$FAULT_KILLS" --container "$ROOTFS" --warmup 1 \
  --min-mid 0 \
  --stdin "$FT/state.json" --target "$ROOTFS/etc/ld.so.cache" --old "$FT/ldcache.old" \
  --new "$FT/ldcache-exec.new" --temp "ld.so.cache~" --temp ".ld.so.cache." --log "$FT/exec.log" -- \
  "$HOOK" -config "$FT/hook.toml" prestart
check "ldcache-exec-ldconfig: the new cache lists libcuda.so.1" \
  grep -q "libcuda.so.1" "$FT/ldcache-exec.new"
check "exec-ldconfig: the hook really ran ldconfig (not the native writer)" \
  grep -q "ran ldconfig in $ROOTFS" "$FT/hook-debug.log"
e2e_finish
