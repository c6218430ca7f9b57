#!/usr/bin/env bash
# The driver-facts cache (issue 19, docs/driver-facts-cache.md) on the 8-GPU mock driver: jit-cdi
# creates through the shim, and legacy runs through the hook and nvidia-container-cli, initialise
# NVML once; later creates read /run/nvidia-container-toolkit/driver-facts-*.json instead and
# give a byte-identical config.json (legacy: the same container view). A driver reload (the
# version file's date), a driver version change (the root rebuilt with another version), the
# boot id stand-in (the root's proc/sys/kernel/random/boot_id), the library's identity (a new
# inode, a new mtime) and a GPU leaving the driver each invalidate it: NVML runs again and the file
# is rewritten. Hostile files (world-writable, symlink, wrong owner, garbage, huge) are ignored,
# NVML is queried and the file replaced by a safe one; the symlink's target is not touched.
#
# The mock NVML appends a line to <root>/nvct-mock-nvml-init.log at each nvmlInit_v2 when that
# file exists: that count is what "NVML was (not) initialised" means here. The test runs in a
# private mount namespace with a tmpfs on /run, so the default cache directory is exercised
# without touching the host's /run.
if [ -z "${NVCT_FACTS_E2E_PRIVATE_NS:-}" ]; then
  [ "$(id -u)" -eq 0 ] || { echo "FATAL: must run as root (runc, unshare)" >&2; exit 1; }
  command -v unshare >/dev/null || { echo "FATAL: required command 'unshare' not found" >&2; exit 1; }
  NVCT_FACTS_E2E_PRIVATE_NS=1 exec unshare --mount --propagation private bash "$0" "$@"
fi
mount -t tmpfs -o mode=0755 nvct-facts-run /run || { echo "FATAL: tmpfs on /run failed" >&2; exit 1; }

source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"

# The 8-GPU mock's H100s are MIG-capable (mig=disabled): most of this test uses the same GPUs
# without MIG support (as an L40S or an older GPU has none); the stock topology (MIG off, cached
# while no MIG instance appears) and mig.conf (MIG on, never cached) are checked at the end.
gpu_setup eight-gpus
sed 's/; mig=disabled//' "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/eight-gpus.conf" \
  >"$E2E_TMP/eight-nomig.conf"
grep -q 'mig=' "$E2E_TMP/eight-nomig.conf" && e2e_die "eight-gpus.conf: unexpected mig= values left"
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$E2E_TMP/eight-nomig.conf" --out "$GPU_ROOT" >"$E2E_TMP/make-root-nomig.log" 2>&1 ||
  e2e_die "make-driver-root.sh (no MIG) failed: $(tail -5 "$E2E_TMP/make-root-nomig.log")"
require_cmd stat cmp
unset NVCT_DRIVER_FACTS_CACHE_DIR  # the default, /run/nvidia-container-toolkit
CTK="$(nvct_bin nvidia-ctk)"
CACHE_DIR=/run/nvidia-container-toolkit
INIT_LOG="$GPU_ROOT/nvct-mock-nvml-init.log"
T="$E2E_TMP"

CONFIG_JIT="$T/config-jit.toml"
sed 's/^mode = .*/mode = "jit-cdi"/' "$GPU_CONFIG" >"$CONFIG_JIT"
printf '\n[nvidia-ctk]\npath = "%s"\n' "$CTK" >>"$CONFIG_JIT"

make_bundle "$T/jit" glibc true
bundle_set_env "$T/jit" NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
cp "$T/jit/config.json" "$T/jit.orig.json"

# The init log must exist (0666: NVML runs as the unprivileged NVML user) for the mock to write.
arm_init_log() {
  : >"$INIT_LOG"
  chmod 0666 "$INIT_LOG"
}
inits() { wc -l <"$INIT_LOG" | tr -d ' '; }
cache_file() { ls "$CACHE_DIR"/driver-facts-*.json 2>/dev/null | head -1 || true; }

# jit_create <id>: a jit-cdi create of the pristine bundle; the config.json the shim wrote for runc
# is kept as $T/<id>.json.
jit_create() {
  local id="$1" rc=0
  cp "$T/jit.orig.json" "$T/jit/config.json"
  NVIDIA_CTK_CONFIG_FILE_PATH="$CONFIG_JIT" timeout 60 "$GPU_SHIM" --root "$GPU_STATE" create \
    --bundle "$T/jit" "$id" </dev/null >"$T/$id.out" 2>"$T/$id.err" || rc=$?
  cp "$T/jit/config.json" "$T/$id.json"
  runc --root "$GPU_STATE" delete --force "$id" >/dev/null 2>&1 || true
  [ "$rc" -eq 0 ] || failed "$id: the shim's create failed ($rc): $(tail -3 "$T/$id.err")"
}

# expect_miss_then_hit <what> <reference json>: the next create initialises NVML once and
# rewrites a safe cache file, the one after that does not initialise NVML; both config.json equal
# the reference.
expect_miss_then_hit() {
  local what="$1" ref="$2" before
  before="$(inits)"
  jit_create "miss-$N"
  check_eq "$what: NVML initialised again" "$((before + 1))" "$(inits)"
  check "$what: config.json byte-identical" same_file "$ref" "$T/miss-$N.json"
  local f
  f="$(cache_file)"
  check_eq "$what: the file is rewritten as a root-owned 0600 regular file" "regular file 600 0" \
    "$(stat -c '%F %a %u' "$f" 2>&1)"
  jit_create "hit-$N"
  check_eq "$what: the next create reads the cache (no NVML init)" "$((before + 1))" "$(inits)"
  check "$what: config.json byte-identical from the cache" same_file "$ref" "$T/hit-$N.json"
  N=$((N + 1))
}
N=0

# --- first create: NVML, cache written; second: no NVML, same config.json ------------------------
mkdir -p "$GPU_ROOT/proc/sys/kernel/random"
echo "0d1e5e8a-1111-4222-8333-944455556666" >"$GPU_ROOT/proc/sys/kernel/random/boot_id"
arm_init_log
[ ! -e "$CACHE_DIR" ] || e2e_die "$CACHE_DIR exists in the fresh tmpfs"
jit_create first
check_eq "first create initialises NVML once" 1 "$(inits)"
check_eq "cache directory is root-owned 0700" "directory 700 0" "$(stat -c '%F %a %u' "$CACHE_DIR" 2>&1)"
check_eq "one cache file, root-owned 0600" "regular file 600 0" "$(stat -c '%F %a %u' "$(cache_file)" 2>&1)"
check_contains "the cache holds the driver version" '"driver_version":"550.54.14"' "$(cat "$(cache_file)")"
check_contains "the first create has the GPUs" "/dev/nvidia7" "$(cat "$T/first.json")"
jit_create second
check_eq "second create does not initialise NVML" 1 "$(inits)"
check "second create's config.json is byte-identical" same_file "$T/first.json" "$T/second.json"
jit_create third
check_eq "third create does not initialise NVML either" 1 "$(inits)"

# With the cache off (empty NVCT_DRIVER_FACTS_CACHE_DIR) every create initialises NVML and the
# result is the same: the cache changes no output.
NVCT_DRIVER_FACTS_CACHE_DIR= jit_create nocache
check_eq "cache off: NVML initialised" 2 "$(inits)"
check "cache off: same config.json" same_file "$T/first.json" "$T/nocache.json"

# --- invalidation -------------------------------------------------------------------------------
VERSION_FILE="$GPU_ROOT/proc/driver/nvidia/version"
sed -i 's/UTC 20[0-9][0-9]/UTC 2030/' "$VERSION_FILE"
grep -q 'UTC 2030' "$VERSION_FILE" || e2e_die "could not change the date in $VERSION_FILE: $(cat "$VERSION_FILE")"
expect_miss_then_hit "driver reloaded (version file changed)" "$T/first.json"

echo "0d1e5e8a-1111-4222-8333-944455557777" >"$GPU_ROOT/proc/sys/kernel/random/boot_id"
expect_miss_then_hit "boot id changed" "$T/first.json"

LIB="$(readlink -f "$GPU_ROOT/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1")"
cp -p "$LIB" "$LIB.new" && mv "$LIB.new" "$LIB"
expect_miss_then_hit "libnvidia-ml replaced (new inode)" "$T/first.json"
touch -d '2030-01-01 00:00:00' "$LIB"
expect_miss_then_hit "libnvidia-ml mtime changed" "$T/first.json"

# A GPU leaves the driver (unbound for passthrough): its procfs entry goes, NVML no longer lists it.
GPU_DIR="$(ls -d "$GPU_ROOT"/proc/driver/nvidia/gpus/* | tail -1)"
mv "$GPU_DIR" "$T/unbound-gpu"
before="$(inits)"
jit_create unbound
check_eq "GPU unbound: NVML initialised again" "$((before + 1))" "$(inits)"
check "GPU unbound: the config.json changes (one GPU fewer)" \
  sh -c "! cmp -s '$T/first.json' '$T/unbound.json'"
mv "$T/unbound-gpu" "$GPU_DIR"
expect_miss_then_hit "GPU bound again" "$T/first.json"

# --- hostile files: ignored, NVML queried, replaced by a safe file ------------------------------
F="$(cache_file)"
chmod 0666 "$F"
expect_miss_then_hit "world-writable cache file" "$T/first.json"
F="$(cache_file)"
chown 4321:4321 "$F"
expect_miss_then_hit "cache file owned by another uid" "$T/first.json"
F="$(cache_file)"
printf '{"format":1,"key":' >"$F"
chmod 0600 "$F"
expect_miss_then_hit "garbage cache file" "$T/first.json"
F="$(cache_file)"
head -c 300000 /dev/zero | tr '\0' ' ' >"$F"
expect_miss_then_hit "huge cache file" "$T/first.json"
F="$(cache_file)"
cp "$F" "$T/symlink-target.json"
chmod 0600 "$T/symlink-target.json"
TARGET_SUM="$(md5sum <"$T/symlink-target.json")"
rm "$F" && ln -s "$T/symlink-target.json" "$F"
expect_miss_then_hit "symlinked cache file" "$T/first.json"
check_eq "the symlink's target is left alone" "$TARGET_SUM" "$(md5sum <"$T/symlink-target.json")"

# --- driver version change: the root rebuilt with another driver version ------------------------
sed 's/^driver_version *=.*//' "$T/eight-nomig.conf" >"$T/eight-555.conf"
echo "driver_version = 555.42.06" >>"$T/eight-555.conf"
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$T/eight-555.conf" --out "$GPU_ROOT" >"$T/make-root-555.log" 2>&1 ||
  e2e_die "make-driver-root.sh (555.42.06) failed: $(tail -5 "$T/make-root-555.log")"
arm_init_log
jit_create v555
check_eq "driver 555: NVML initialised" 1 "$(inits)"
check_contains "driver 555: the new version's libraries are used" "libcuda.so.555.42.06" \
  "$(cat "$T/v555.json")"
check_contains "driver 555: the cache now holds 555.42.06" '"driver_version":"555.42.06"' \
  "$(cat "$(cache_file)")"
jit_create v555-hit
check_eq "driver 555: the next create reads the cache" 1 "$(inits)"
check "driver 555: config.json byte-identical from the cache" same_file "$T/v555.json" "$T/v555-hit.json"
NVCT_DRIVER_FACTS_CACHE_DIR= jit_create v555-nocache
check "driver 555: same config.json as without the cache" same_file "$T/v555.json" "$T/v555-nocache.json"

# --- legacy mode: the hook's nvidia-container-cli uses the same file -----------------------------
# One fresh bundle per run: a run leaves files in its rootfs (links made by ldconfig).
gpu_bundle "$T/legacy" NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
gpu_bundle "$T/legacy2" NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=compute,utility
rm -f "$CACHE_DIR"/driver-facts-*.json
before="$(inits)"
gpu_run "$T/legacy" legacy-miss || failed "legacy run (miss) failed: $(tail -3 "$T/legacy-miss.err")"
check_eq "legacy: the hook's cli initialises NVML on a miss" "$((before + 1))" "$(inits)"
check "legacy: the cli wrote the cache" test -f "$(cache_file)"
gpu_run "$T/legacy2" legacy-hit || failed "legacy run (hit) failed: $(tail -3 "$T/legacy-hit.err")"
check_eq "legacy: the next run's cli does not initialise NVML" "$((before + 1))" "$(inits)"
check_contains "legacy: the container sees the GPUs" "node /dev/nvidia7" "$(cat "$T/legacy-hit.out")"
check_eq "legacy: the container's view is identical" "" \
  "$(diff "$T/legacy-miss.out" "$T/legacy-hit.out" 2>&1 | head -5)"

# --- MIG-capable GPUs ------------------------------------------------------------------------
# The stock topology's H100s are MIG-capable with MIG off: the mock makes their (empty)
# proc/driver/nvidia/capabilities/gpu<minor>/mig folders, as the driver does, and those listings
# are in the key. Cached like any GPU; a GPU instance appearing is a miss.
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/eight-gpus.conf" --out "$GPU_ROOT" \
  >"$T/make-root-mig.log" 2>&1 || e2e_die "make-driver-root.sh (eight-gpus) failed: $(tail -5 "$T/make-root-mig.log")"
MIG_DIR="$GPU_ROOT/proc/driver/nvidia/capabilities/gpu3/mig"
check "MIG-capable GPUs: the mock root has the empty MIG folder" test -d "$MIG_DIR"
arm_init_log
rm -f "$CACHE_DIR"/driver-facts-*.json
jit_create mig1
jit_create mig2
check_eq "MIG-capable GPUs, MIG off: NVML initialised once" 1 "$(inits)"
check "MIG-capable GPUs, MIG off: cache file written" test -n "$(cache_file)"
check_contains "MIG-capable GPUs, MIG off: the cache keeps the MIG folders" '"mig":"gpu0/mig,gpu1/mig' \
  "$(cat "$(cache_file)")"
check "MIG-capable GPUs: same config.json from the cache" same_file "$T/mig1.json" "$T/mig2.json"
mkdir -p "$MIG_DIR/gi1/ci0"
jit_create mig3
check_eq "MIG-capable GPUs: a GPU instance appeared: NVML asked again" 2 "$(inits)"
rm -rf "$MIG_DIR/gi1"
jit_create mig4
check_eq "MIG-capable GPUs: the instance removed: NVML asked again" 3 "$(inits)"
check "MIG-capable GPUs: same config.json after the misses" same_file "$T/mig1.json" "$T/mig4.json"

# The next checks are about the NVML memo (one answer per create), not the cache: cache off.
export NVCT_DRIVER_FACTS_CACHE_DIR=

# A create that also checks NVIDIA_REQUIRE_CUDA (a CUDA image sets it) asks NVML once: the
# requirement check and the jit-cdi spec share one answer (runtime/spec_modifier.cpp).
cp "$T/jit.orig.json" "$T/jit.plain.json"
cp "$T/jit.plain.json" "$T/jit/config.json"
bundle_set_env "$T/jit" "NVIDIA_REQUIRE_CUDA=cuda>=12.0"
cp "$T/jit/config.json" "$T/jit.orig.json"
arm_init_log
jit_create mig-require
check_eq "MIG-capable GPUs, NVIDIA_REQUIRE_CUDA: one NVML init for the check and the spec" 1 \
  "$(inits)"
check_contains "MIG-capable GPUs, NVIDIA_REQUIRE_CUDA: the create has the GPUs" "/dev/nvidia7" \
  "$(cat "$T/mig-require.json")"
cp "$T/jit.plain.json" "$T/jit/config.json"
bundle_set_env "$T/jit" "NVIDIA_REQUIRE_CUDA=cuda>=99.0"
cp "$T/jit/config.json" "$T/jit.orig.json"
arm_init_log
rc=0
cp "$T/jit.orig.json" "$T/jit/config.json"
NVIDIA_CTK_CONFIG_FILE_PATH="$CONFIG_JIT" timeout 60 "$GPU_SHIM" --root "$GPU_STATE" create \
  --bundle "$T/jit" mig-unmet </dev/null >"$T/mig-unmet.out" 2>"$T/mig-unmet.err" || rc=$?
runc --root "$GPU_STATE" delete --force mig-unmet >/dev/null 2>&1 || true
check "an unmet requirement still fails the create" test "$rc" -ne 0
check_contains "an unmet requirement names the requirement" "cuda>=99.0" "$(cat "$T/mig-unmet.err")"
check_eq "an unmet requirement: one NVML init, no spec built" 1 "$(inits)"

# --- MIG on (mig.conf: GPU 0 with MIG on and MIG devices): never cached ----------------------------
unset NVCT_DRIVER_FACTS_CACHE_DIR
bash "$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/mig.conf" --out "$GPU_ROOT" \
  >"$T/make-root-migon.log" 2>&1 || e2e_die "make-driver-root.sh (mig) failed: $(tail -5 "$T/make-root-migon.log")"
cp "$T/jit.plain.json" "$T/jit.orig.json"
arm_init_log
rm -f "$CACHE_DIR"/driver-facts-*.json
jit_create migon1
jit_create migon2
check_eq "MIG on: NVML initialised at every create" 2 "$(inits)"
check_eq "MIG on: no cache file" "" "$(cache_file)"
check "MIG on: same config.json each time" same_file "$T/migon1.json" "$T/migon2.json"
check_contains "MIG on: the create has the GPU" "/dev/nvidia0" "$(cat "$T/migon1.json")"

e2e_finish
