#!/usr/bin/env bash
# nvidia-ctk doctor (spec/doctor.md) on the eight-GPU mock host: the driver root made by
# make-driver-root.sh plus /dev/char links, ldconfig, a toolkit config and engine configs.
# A healthy tree reports no error or warning; three injected faults are each found; exit codes
# 0/1/2; and doctor is read-only: run in a private mount namespace with the tree and / mounted
# read-only and a PATH of fake modprobe/nvidia-smi/dockerd/... that leave markers, it reports the
# same findings as the read-write run, the tree's snapshot is unchanged and no marker exists.
source "$(dirname "$0")/lib/common.sh"
require_root
require_cmd unshare mount python3 find md5sum

CTK="$(nvct_bin nvidia-ctk)"
make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
ROOT="$E2E_TMP/host"
bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/eight-gpus.conf" --out "$ROOT" \
  >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"
[ -c "$ROOT/dev/nvidiactl" ] || e2e_die "mock root has no character device nodes (not root?)"

# --- the rest of a healthy host ----------------------------------------------------------------
mkdir -p "$ROOT/dev/char" "$ROOT/sbin" "$ROOT/etc/nvidia-container-runtime" "$ROOT/etc/docker" \
  "$ROOT/etc/containerd"
for node in "$ROOT"/dev/nvidia*; do
  [ -c "$node" ] || continue
  ln -sf "../$(basename "$node")" "$ROOT/dev/char/$(stat -c '%Hr:%Lr' "$node")"
done
mkdir -p "$ROOT/proc/self"
echo "25 1 0:23 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw" >"$ROOT/proc/self/mountinfo"
# The toolkit's programs: the ones this build made (each carries nvct's version note).
mkdir -p "$ROOT/usr/bin"
for bin in nvidia-container-runtime nvidia-container-runtime-hook nvidia-ctk nvidia-cdi-hook \
  nvidia-container-cli; do
  cp "$(nvct_bin "$bin")" "$ROOT/usr/bin/$bin"
done
ln -s nvidia-container-runtime-hook "$ROOT/usr/bin/nvidia-container-toolkit"
VERSION="$("$CTK" --version | sed -n 's/^NVIDIA Container Toolkit CLI version //p')"
printf '#!/bin/sh\n' >"$ROOT/sbin/ldconfig"
chmod 0755 "$ROOT/sbin/ldconfig"
cat >"$ROOT/etc/nvidia-container-runtime/config.toml" <<'TOML'
[nvidia-container-cli]
load-kmods = true

[nvidia-container-runtime]
mode = "auto"
TOML
cat >"$ROOT/etc/docker/daemon.json" <<'JSON'
{
    "exec-opts": ["native.cgroupdriver=systemd"],
    "runtimes": {
        "nvidia": {
            "args": [],
            "path": "nvidia-container-runtime"
        }
    }
}
JSON
cat >"$ROOT/etc/containerd/config.toml" <<'TOML'
version = 2

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia]
  runtime_type = "io.containerd.runc.v2"
  [plugins."io.containerd.grpc.v1.cri".containerd.runtimes.nvidia.options]
    BinaryName = "/usr/bin/nvidia-container-runtime"
    SystemdCgroup = true

[plugins."io.containerd.grpc.v1.cri".containerd.runtimes.runc.options]
  SystemdCgroup = true
TOML

# Fake programs doctor must never run: each leaves a marker.
FAKES="$E2E_TMP/fake-bin"
MARKERS="$E2E_TMP/markers"
mkdir -p "$FAKES" "$MARKERS"
for prog in modprobe nvidia-modprobe nvidia-smi dockerd containerd crio ldconfig; do
  printf '#!/bin/sh\ntouch %s/%s\n' "$MARKERS" "$prog" >"$FAKES/$prog"
  chmod 0755 "$FAKES/$prog"
done

# run_doctor <args...>: sets RC, OUT, ERR.
run_doctor() {
  RC=0
  PATH="$FAKES:$PATH" "$CTK" doctor "$@" >"$E2E_TMP/out" 2>"$E2E_TMP/err" || RC=$?
  OUT="$(cat "$E2E_TMP/out")"
  ERR="$(cat "$E2E_TMP/err")"
}
# Path, type, mode, size, mtime and content hash of every entry of the tree.
snapshot() {
  (cd "$1" && find . -printf '%p %y %m %s %T@ %l\n' | sort &&
    find . -type f -print0 | sort -z | xargs -0 md5sum)
}
problems() { grep -E '^  (error|warn) ' <<<"$1" | awk '{print $2}' | sort | tr '\n' ' '; }
no_timing() { sed -E 's/ \([0-9]+ ms\)$//'; }

# --- healthy -------------------------------------------------------------------------------
run_doctor --root "$ROOT"
check_eq "healthy: exit 0" 0 "$RC"
check_eq "healthy: no error or warning" "" "$(problems "$OUT")"
check_contains "healthy: 8 GPUs and NVML (mock) seen" "NVIDIA driver 550.54.14 loaded, 8 GPUs, NVML loads" "$OUT"
check_contains "healthy: summary line" "0 errors, 0 warnings" "$OUT"
check_contains "healthy: cgroup v2 from mountinfo" "cgroups.version              cgroup v2" "$OUT"
check_contains "healthy: the five programs, one nvct version, read from their notes" \
  "binaries.ok                  5 toolkit programs installed, nvct $VERSION" "$OUT"
check_eq "healthy: nothing on stderr" "" "$ERR"
HEALTHY_TEXT="$(no_timing <<<"$OUT")"
echo "$OUT" >"$E2E_TMP/healthy.txt"

run_doctor --root "$ROOT" --format json
check_eq "json: exit 0" 0 "$RC"
check_eq "json: parses, schema 1, no errors" "1 0 0" \
  "$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["schemaVersion"], d["summary"]["error"], d["exitCode"])' <<<"$OUT")"

# --- read-only: private mount namespace, / and the tree mounted read-only ------------------------
before="$(snapshot "$ROOT")"
RC=0
PATH="$FAKES:$PATH" unshare --mount --propagation private bash -c '
  set -e
  mount --bind "$1" "$1"
  mount -o remount,bind,ro "$1"
  mount -o remount,bind,ro /
  touch "$1/probe" 2>/dev/null && { echo "tree is writable" >&2; exit 99; }
  "$2" doctor --root "$1"' _ "$ROOT" "$CTK" >"$E2E_TMP/ro.out" 2>"$E2E_TMP/ro.err" || RC=$?
check_eq "read-only: exit 0" 0 "$RC"
check_eq "read-only: same findings as read-write" "$HEALTHY_TEXT" "$(no_timing <"$E2E_TMP/ro.out")"
check_eq "read-only: nothing on stderr" "" "$(cat "$E2E_TMP/ro.err")"
check_eq "read-only: tree unchanged" "$before" "$(snapshot "$ROOT")"
check_eq "no program was executed (markers)" "" "$(ls "$MARKERS")"

# --- three injected faults -------------------------------------------------------------------
rm "$ROOT/dev/nvidia3"                                   # devices.node-missing (error)
rm "$ROOT/dev/char/195:255"                              # devices.dev-char-missing (systemd: error)
sed -i 's/^mode = "auto"/mdoe = "cdi"/' "$ROOT/etc/nvidia-container-runtime/config.toml"  # unknown key
before="$(snapshot "$ROOT")"
run_doctor --root "$ROOT"
echo "$OUT" >"$E2E_TMP/broken.txt"
check_eq "faults: exit 1" 1 "$RC"
check_eq "faults: the three findings" \
  "config.unknown-key devices.dev-char-missing devices.node-missing " "$(problems "$OUT")"
check_contains "faults: the typo's suggestion" 'did you mean "mode"?' "$OUT"
check_contains "faults: systemd named" "docker, containerd use the systemd cgroup driver" "$OUT"
check_contains "faults: NVML not started with a GPU node missing" "NVML not queried: /dev/nvidia3 absent" \
  "$("$CTK" doctor --root "$ROOT" --verbose --only driver)"
check_eq "faults: tree unchanged" "$before" "$(snapshot "$ROOT")"
run_doctor --root "$ROOT" --only config
check_eq "faults: --only config exits 0 (a warning)" 0 "$RC"
run_doctor --root "$ROOT" --only config --fail-on warn
check_eq "faults: --fail-on warn exits 1" 1 "$RC"
check_eq "no program was executed (markers)" "" "$(ls "$MARKERS")"
cp "$ROOT/etc/nvidia-container-runtime/config.toml" "$E2E_TMP/config.toml"
printf 'log-level = "loud"\n' >>"$ROOT/etc/nvidia-container-runtime/config.toml"
run_doctor --root "$ROOT" --only config
check_contains "a loader warning becomes a finding" 'log-level = "loud"' "$OUT"
check_eq "a loader warning does not reach stderr" "" "$ERR"
cp "$E2E_TMP/config.toml" "$ROOT/etc/nvidia-container-runtime/config.toml"

# --- could not run -----------------------------------------------------------------------------
run_doctor --root "$ROOT/etc/docker/daemon.json"
check_eq "bad --root: exit 2" 2 "$RC"
check_eq "bad --root: nothing on stdout" "" "$OUT"
check_contains "bad --root: says why" "not a directory" "$ERR"
run_doctor --bogus-flag
check_eq "unknown flag: exit 2" 2 "$RC"
run_doctor --root "$ROOT" --only gpus
check_eq "unknown family: exit 2" 2 "$RC"
check_contains "unknown family: lists the valid ones" "valid families: driver, devices, config, engines, binaries, cdi, cgroups, ipc, mig, imex" "$ERR"

# --- MIG: the mig topology (GPU 0 with MIG on and two instances) --------------------------------
MIGROOT="$E2E_TMP/mig"
bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/mig.conf" --out "$MIGROOT" \
  >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh (mig) failed: $(tail -5 "$E2E_TMP/make.log")"
run_doctor --root "$MIGROOT" --only mig
check_eq "mig: exit 0" 0 "$RC"
check_contains "mig: state per GPU" "MIG on 1 of 2 GPUs" "$OUT"
rm "$MIGROOT/dev/nvidia-caps/nvidia-cap12"
run_doctor --root "$MIGROOT" --only mig
check_eq "mig: a missing capability node exits 1" 1 "$RC"
check_contains "mig: names the node and its access file" \
  "/dev/nvidia-caps/nvidia-cap12: absent (/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access)" "$OUT"

echo "--- healthy ---"; cat "$E2E_TMP/healthy.txt"
echo "--- three faults ---"; cat "$E2E_TMP/broken.txt"
e2e_finish
