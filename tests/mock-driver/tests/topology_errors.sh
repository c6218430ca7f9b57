#!/usr/bin/env bash
# The builder rejects bad input with a message naming the problem and writes nothing.
source "$(dirname "$0")/lib/common.sh"

# rejects <what> <message regex> <topology text>
rejects() {
  printf '%s\n' "$3" > "$WORK/t.conf"
  rm -rf "$WORK/out"
  local rc=0 err
  err="$("$BUILDER" --topology "$WORK/t.conf" --out "$WORK/out" --build-dir "$NVCT_BUILD_DIR" 2>&1)" || rc=$?
  expect "$1: fails" test "$rc" -ne 0
  expect "$1: message matches '$2' (got: $err)" grep -qE "$2" <<< "$err"
  expect "$1: nothing written" test ! -e "$WORK/out"
}
gpu0='gpu = minor=0; bus=00000000:17:00.0; uuid=GPU-0; model=M; brand=Tesla; arch=8.0'

rejects "unknown key" "t.conf:1: unknown key 'drivers'" "drivers = 1"
rejects "line without =" "t.conf:2: expected 'key = value'" "# comment
just words"
rejects "bad driver version" "bad driver_version" "driver_version = 550;rm"
rejects "bad bus id" "bad bus id '17:00.0'" \
  "gpu = minor=0; bus=17:00.0; uuid=GPU-0; model=M; brand=Tesla; arch=8.0"
rejects "gpu without uuid" "gpu line without uuid" \
  "gpu = minor=0; bus=00000000:17:00.0; model=M; brand=Tesla; arch=8.0"
rejects "duplicate minor" "two GPUs with minor 0" "$gpu0
$gpu0"
rejects "bad mig mode" "gpu mig must be enabled, disabled or unsupported" "$gpu0; mig=maybe"
rejects "bad graphics value" "graphics must be yes or no, not 'maybe'" "graphics = maybe"
rejects "mig on a GPU without MIG" "mig line for a GPU without MIG" "$gpu0
mig = gpu=0; gi=1; ci=0; uuid=MIG-0; profile=1g.10gb"
rejects "mig on an unknown GPU" "mig line for unknown gpu" "$gpu0; mig=enabled
mig = gpu=3; gi=1; ci=0; uuid=MIG-0; profile=1g.10gb"
rejects "gi out of range" "gi must be 0-14" "$gpu0; mig=enabled
mig = gpu=0; gi=15; ci=0; uuid=MIG-0; profile=1g.10gb"

# A bad topology leaves an existing root alone.
build_root one-gpu "$WORK/keep"
printf 'drivers = 1\n' > "$WORK/bad.conf"
"$BUILDER" --topology "$WORK/bad.conf" --out "$WORK/keep" --build-dir "$NVCT_BUILD_DIR" 2>/dev/null || true
expect "a bad topology keeps the previous root" test -f "$WORK/keep/etc/ld.so.cache"

rc=0; err="$("$BUILDER" --topology "$TOPOLOGIES/one-gpu.conf" --out "$WORK/x" --build-dir "$WORK" 2>&1)" || rc=$?
expect "an unbuilt build dir is reported" grep -q "target mock_driver" <<< "$err"
rc=0; err="$(NVCT_BUILD_DIR='' "$BUILDER" --topology "$TOPOLOGIES/one-gpu.conf" --out "$WORK/x" 2>&1)" || rc=$?
expect "a missing build dir is reported" grep -q "NVCT_BUILD_DIR is not set" <<< "$err"
rc=0; err="$("$BUILDER" --topology "$TOPOLOGIES/one-gpu.conf" --out / --build-dir "$NVCT_BUILD_DIR" 2>&1)" || rc=$?
expect "refuses / as output" grep -q "refusing to use /" <<< "$err"
# NVCT_BUILD_DIR is the default build dir.
NVCT_BUILD_DIR="$NVCT_BUILD_DIR" "$BUILDER" --topology "$TOPOLOGIES/one-gpu.conf" --out "$WORK/env"
expect "NVCT_BUILD_DIR is the default build dir" test -f "$WORK/env/etc/ld.so.cache"

finish
