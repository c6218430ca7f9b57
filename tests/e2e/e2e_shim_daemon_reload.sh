#!/usr/bin/env bash
# Legacy mode survives `systemctl daemon-reload` (issue 4, security checklist #30). On reload
# systemd re-applies each scope's device policy from what runc gave it, i.e. from config.json's
# linux.resources.devices, and drops rules written straight into the cgroup, such as the
# prestart hook's. PID 1 here is not systemd, so the test does what the reload does: it resets
# the container's device cgroup to config.json's rules (deny all, then each rule in order, then
# runc's default device allows; `runc update` cannot stand in: runc leaves device rules alone on
# update). So:
#   - through the shim (which adds the selected nodes' rules to config.json), the selected GPU
#     still opens as far as the driver (ENXIO) after the reset, and an unselected one stays EPERM;
#   - control: the same container with the prestart hook put into config.json by hand (no shim
#     rules, as `docker --gpus` with stock runc) loses its GPU after the reset (EPERM), which
#     shows the reset really dropped what the hook wrote.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"
[ -f /sys/fs/cgroup/devices/devices.allow ] ||
  e2e_die "needs the cgroup v1 devices controller (/sys/fs/cgroup/devices) to replay a reload"

gpu_setup mig
ENXIO="No such device or address"
EPERM="Operation not permitted"

# A long-running GPU container on /dev/nvidia0, with /dev/nvidia1 bound in but not selected.
reload_bundle() {
  local b="$1"
  make_bundle "$b" glibc sleep 120
  bundle_set_env "$b" NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=utility
  gpu_add_mount "$b" \
    '{"destination":"/proc/driver","type":"tmpfs","source":"tmpfs","options":["nosuid","nodev","noexec","mode=755"]}'
  gpu_add_mount "$b" "{\"destination\":\"/dev/nvidia1\",\"type\":\"bind\",\"source\":\"$GPU_ROOT/dev/nvidia1\",\"options\":[\"bind\"]}"
}

open_error() {
  runc --root "$GPU_STATE" exec "$1" sh -c "head -c1 $2 2>&1 >/dev/null | sed 's/.*: //'"
}

# What systemd's reload does to the container's device cgroup, from config.json alone.
simulate_daemon_reload() {
  local id="$1" b="$2" pid cg rule
  pid="$(runc --root "$GPU_STATE" state "$id" | jq -r .pid)"
  cg="/sys/fs/cgroup/devices$(sed -n 's/^[0-9]*:devices:\(.*\)$/\1/p' "/proc/$pid/cgroup")"
  [ -f "$cg/devices.allow" ] || { failed "$id: no device cgroup at $cg"; return 1; }
  echo a >"$cg/devices.deny"
  jq -r '.linux.resources.devices[]? |
    "\(if .allow then "allow" else "deny" end) \(.type // "a") \(if .major == null then "*" else .major end):\(if .minor == null then "*" else .minor end) \(.access // "rwm")"' \
    "$b/config.json" | while read -r verb type dev access; do
      if [ "$type" = a ]; then rule="a"; else rule="$type $dev $access"; fi
      echo "$rule" >"$cg/devices.$verb"
    done
  for rule in "c 1:3 rwm" "c 1:5 rwm" "c 1:7 rwm" "c 1:8 rwm" "c 1:9 rwm" "c 5:0 rwm" \
      "c 5:1 rwm" "c 5:2 rwm" "c 136:* rwm" "c 10:200 rwm"; do
    echo "$rule" >"$cg/devices.allow"
  done
}

# create + start through the given runtime binary; the caller deletes the container.
start_container() {
  local runtime="$1" b="$2" id="$3"
  timeout 60 "$runtime" --root "$GPU_STATE" create --bundle "$b" "$id" \
    </dev/null >/dev/null 2>"$E2E_TMP/$id.err" || return 1
  e2e_on_exit "runc --root '$GPU_STATE' delete --force '$id'"
  runc --root "$GPU_STATE" start "$id" 2>>"$E2E_TMP/$id.err"
}

# --- through the shim ---------------------------------------------------------------------------
b="$E2E_TMP/b-shim"
reload_bundle "$b"
if start_container "$GPU_SHIM" "$b" reload-shim; then
  check_eq "shim: config.json allows the selected node" 1 \
    "$(jq '[.linux.resources.devices[] | select(.allow == true and .major == 195 and .minor == 0)] | length' "$b/config.json")"
  check_eq "shim, before reload: selected node opens as far as the driver" "$ENXIO" \
    "$(open_error reload-shim /dev/nvidia0)"
  check_eq "shim, before reload: unselected node is refused" "$EPERM" "$(open_error reload-shim /dev/nvidia1)"
  check "daemon-reload replayed from config.json" simulate_daemon_reload reload-shim "$b"
  check_eq "shim, after reload: selected node still opens as far as the driver" "$ENXIO" \
    "$(open_error reload-shim /dev/nvidia0)"
  check_eq "shim, after reload: unselected node still refused" "$EPERM" \
    "$(open_error reload-shim /dev/nvidia1)"
else
  failed "shim: container did not start: $(cat "$E2E_TMP/reload-shim.err")"
fi

# --- control: the hook alone, as `docker --gpus` with stock runc does it -------------------------
b="$E2E_TMP/b-hook"
reload_bundle "$b"
jq --arg h "$GPU_HOOK" '.hooks.prestart = [{"path": $h, "args": ["nvidia-container-runtime-hook", "prestart"]}]' \
  "$b/config.json" >"$b/config.json.new" && mv "$b/config.json.new" "$b/config.json"
if start_container runc "$b" reload-hook; then
  check_eq "hook only, before reload: the hook's cgroup write lets the GPU open" "$ENXIO" \
    "$(open_error reload-hook /dev/nvidia0)"
  check "daemon-reload replayed on the hook-only container" simulate_daemon_reload reload-hook "$b"
  check_eq "hook only, after reload: the GPU is lost (what daemon-reload did to the reference)" \
    "$EPERM" "$(open_error reload-hook /dev/nvidia0)"
else
  failed "hook only: container did not start: $(cat "$E2E_TMP/reload-hook.err")"
fi

e2e_finish
