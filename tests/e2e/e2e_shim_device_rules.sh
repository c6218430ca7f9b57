#!/usr/bin/env bash
# The shim puts GPU device access into config.json (runtime.md §8 nvct bullet, mount.md §10.6,
# security checklist #30), so that `systemctl daemon-reload` cannot revoke it: the real
# nvidia-container-runtime in front of nvct-fake-runtime, on the eight-GPU mock driver root
# (minors 2 3 0 1 6 7 4 5 in bus order, uvm major 238). The fake runtime records the
# config.json it was started with.
source "$(dirname "$0")/lib/common.sh"
require_root
require_cmd jq cmp

SHIM="$(shim_bin)"
FAKE="$(fake_runtime_bin)"
REC="$E2E_TMP/rec"
HOOK="$(make_record_hook "$E2E_TMP/hookbin")"
CFG="$E2E_TMP/config.toml"
export NVIDIA_CTK_CONFIG_FILE_PATH="$CFG"
mkdir -p "$REC"

make_root="$NVCT_SOURCE_DIR/tests/mock-driver/make-driver-root.sh"
[ -f "$make_root" ] || e2e_die "$make_root is missing (the mock driver)"
ROOT="$E2E_TMP/driver-root"
bash "$make_root" --build-dir "$NVCT_BUILD_DIR" \
  --topology "$NVCT_SOURCE_DIR/tests/mock-driver/topologies/eight-gpus.conf" --out "$ROOT" \
  >"$E2E_TMP/make.log" 2>&1 || e2e_die "make-driver-root.sh failed: $(tail -5 "$E2E_TMP/make.log")"
[ -c "$ROOT/dev/nvidiactl" ] || e2e_die "mock root has no character device nodes (not root?)"

write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK"
printf '\n[nvidia-container-cli]\nroot = "%s"\n' "$ROOT" >>"$CFG"

# A bundle as Docker writes it: the default deny rule first, then the default allows.
new_bundle() {
  local b="$E2E_TMP/$1" env="$2"
  mkdir -p "$b/rootfs"
  cat >"$b/config.json" <<JSON
{"ociVersion":"1.0.2","process":{"args":["sh"],"env":["PATH=/bin",$env],"cwd":"/"},
 "root":{"path":"rootfs"},
 "linux":{"resources":{"devices":[{"allow":false,"access":"rwm"},
   {"allow":true,"type":"c","major":1,"minor":3,"access":"rwm"}]},
   "namespaces":[{"type":"mount"}]},
 "x-unknown":{"n":18446744073709551615}}
JSON
  echo "$b"
}
create() { (cd "$1" && FAKE_RUNTIME_DIR="$REC" "$SHIM" create "ctr-$(basename "$1")" >/dev/null); }
rules() { jq -c '[.linux.resources.devices[] | "\(.allow) \(.type // "a") \(.major // "*"):\(.minor // "*") \(.access)"]' "$1"; }
nodes() { jq -c '[.linux.devices // [] | .[] | "\(.path) \(.type) \(.major):\(.minor) \(.fileMode) \(.uid):\(.gid)"]' "$1"; }

DEFAULTS='"false a *:* rwm","true c 1:3 rwm"'
CTL='"true c 195:255 rwm","true c 238:0 rwm","true c 238:1 rwm"'
CTL_NODES='"/dev/nvidiactl c 195:255 438 0:0","/dev/nvidia-uvm c 238:0 438 0:0","/dev/nvidia-uvm-tools c 238:1 438 0:0"'

# --- NVIDIA_VISIBLE_DEVICES=all: every GPU in bus order (minors 2 3 0 1 6 7 4 5) --------------
B="$(new_bundle all '"NVIDIA_VISIBLE_DEVICES=all"')"
create "$B"
want_gpus=""
for m in 2 3 0 1 6 7 4 5; do want_gpus+=",\"true c 195:$m rwm\""; done
check_eq "all: control + uvm + 8 GPU rules after Docker's deny rule" \
  "[$DEFAULTS,$CTL$want_gpus]" "$(rules "$REC/config.json")"
check_eq "all: 11 linux.devices entries" 11 "$(jq '.linux.devices | length' "$REC/config.json")"
check_eq "all: nvidia2 node mirrors the host node" '"/dev/nvidia2 c 195:2 438 0:0"' \
  "$(jq -c '[.linux.devices[] | "\(.path) \(.type) \(.major):\(.minor) \(.fileMode) \(.uid):\(.gid)"][3]' "$REC/config.json")"
check_eq "all: the prestart hook is still added" 1 "$(jq '.hooks.prestart | length' "$REC/config.json")"
check "all: the exact uint64 text survives" grep -q '18446744073709551615' "$REC/config.json"
check "all: linux.namespaces kept" jq -e '.linux.namespaces[0].type == "mount"' "$REC/config.json"

# --- idempotence: a second create on the same bundle adds nothing ---------------------------
cp "$B/config.json" "$E2E_TMP/after-first.json"
create "$B"
check "twice: config.json byte-identical after a second create" same_file "$E2E_TMP/after-first.json" "$B/config.json"

# --- index 0: the first GPU in bus order is minor 2 -----------------------------------------
B="$(new_bundle idx '"NVIDIA_VISIBLE_DEVICES=0"')"
create "$B"
check_eq "index 0: control + uvm + 195:2" "[$DEFAULTS,$CTL,\"true c 195:2 rwm\"]" "$(rules "$REC/config.json")"
check_eq "index 0: nodes" "[$CTL_NODES,\"/dev/nvidia2 c 195:2 438 0:0\"]" "$(nodes "$REC/config.json")"

# --- a UUID (the 4th GPU, minor 1) ----------------------------------------------------------
B="$(new_bundle uuid '"NVIDIA_VISIBLE_DEVICES=GPU-8a8a8a8a-0000-4000-8000-000000000003"')"
create "$B"
check_eq "uuid: control + uvm + 195:1" "[$DEFAULTS,$CTL,\"true c 195:1 rwm\"]" "$(rules "$REC/config.json")"

# --- display capability adds modeset; no compute means no uvm -------------------------------
B="$(new_bundle disp '"NVIDIA_VISIBLE_DEVICES=1","NVIDIA_DRIVER_CAPABILITIES=display"')"
create "$B"
check_eq "display: nvidiactl + modeset + 195:3" \
  "[$DEFAULTS,\"true c 195:255 rwm\",\"true c 195:254 rwm\",\"true c 195:3 rwm\"]" "$(rules "$REC/config.json")"

# --- none: only the control nodes -----------------------------------------------------------
B="$(new_bundle none '"NVIDIA_VISIBLE_DEVICES=none"')"
create "$B"
check_eq "none: control nodes only" "[$DEFAULTS,$CTL]" "$(rules "$REC/config.json")"
check_eq "none: control nodes in linux.devices" "[$CTL_NODES]" "$(nodes "$REC/config.json")"

# --- void: not a GPU container, byte-identical ----------------------------------------------
B="$(new_bundle void '"NVIDIA_VISIBLE_DEVICES=void"')"
cp "$B/config.json" "$E2E_TMP/void.json"
create "$B"
check "void: config.json byte-identical" same_file "$E2E_TMP/void.json" "$B/config.json"
check "void: the runtime saw the original" same_file "$E2E_TMP/void.json" "$REC/config.json"

# --- an unknown id: left to the hook (which fails with the reference error), no rules -------
B="$(new_bundle unknown '"NVIDIA_VISIBLE_DEVICES=GPU-does-not-exist"')"
create "$B"
check_eq "unknown id: shim does not fail and adds no rules" "[$DEFAULTS]" "$(rules "$REC/config.json")"
check_eq "unknown id: the hook is still added" 1 "$(jq '.hooks.prestart | length' "$REC/config.json")"

# --- driver root without a loaded driver: only the hook -------------------------------------
write_shim_config "$CFG" "[\"$FAKE\"]" "$HOOK"
printf '\n[nvidia-container-cli]\nroot = "%s"\n' "$E2E_TMP/empty-root" >>"$CFG"
mkdir -p "$E2E_TMP/empty-root"
B="$(new_bundle nodriver '"NVIDIA_VISIBLE_DEVICES=all"')"
create "$B"
check_eq "no driver: no rules, the hook decides" "[$DEFAULTS]" "$(rules "$REC/config.json")"

e2e_finish
