#!/usr/bin/env bash
# The graphics application profile of legacy mode (mount.md §4.1 step 3, §4.2 step 3, §7.2) on
# the eight-gpus mock driver (index != minor): `nvidia-container-cli configure -g` and `-D`, and
# the prestart hook with NVIDIA_DRIVER_CAPABILITIES=graphics, each on a subset of the GPUs. The
# container sees a tmpfs (mode 0555, nosuid,nodev,noexec) holding 10-container.conf (mode 0555)
# with EGLVisibleDGPUDevices = OR of (1 << minor); the host sees neither the file nor the mount.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/configure.sh"

PROFILE_DIR=/etc/nvidia/nvidia-application-profiles-rc.d
PROFILE="$PROFILE_DIR/10-container.conf"
profile_line() {
  printf '{ "profiles": [{"name": "_container_", "settings": ["EGLVisibleDGPUDevices", %s]}], "rules": [{"pattern": [], "profile": "_container_"}]}' "$1"
}
host_profile_state() {
  if [ -e "$PROFILE" ]; then sha256sum "$PROFILE"; else echo absent; fi
}

# expect_profile <what> <mask>: the container's view after a successful configure.
expect_profile() {
  local what="$1" mask="$2"
  check_eq "$what: profile line with mask $mask" "$(profile_line "$mask")" "$(cfg_in "cat $PROFILE")"
  check_eq "$what: the file is mode 555" 555 "$(cfg_in "stat -c %a $PROFILE")"
  check_eq "$what: the tmpfs root is mode 555" 555 "$(cfg_in "stat -c %a $PROFILE_DIR")"
  check_eq "$what: the directory holds only the profile" 10-container.conf "$(cfg_in "ls -A $PROFILE_DIR")"
  local opts
  opts="$(cfg_mount_options "$PROFILE_DIR")"
  check_contains "$what: tmpfs mounted nosuid" nosuid "$opts"
  check_contains "$what: tmpfs mounted nodev" nodev "$opts"
  check_contains "$what: tmpfs mounted noexec" noexec "$opts"
  check_eq "$what: it is a tmpfs with mode=555" "tmpfs mode=555" \
    "$(awk -v p="$CFG_ROOTFS$PROFILE_DIR" '$5 == p { for (i = 7; $i != "-"; i++); print $(i+1), ($(i+3) ~ /mode=555/ ? "mode=555" : $(i+3)) }' \
      "/proc/$CFG_PID/mountinfo")"
  # The rootfs directory is shared with the host; the file lives only on the container's tmpfs.
  check "$what: no profile file in the rootfs seen from the host" test ! -e "$CFG_ROOTFS$PROFILE"
  check_eq "$what: host mounts unchanged" "$host_before" "$(cfg_host_mounts)"
  check_eq "$what: the host's own profile untouched" "$host_profile" "$(host_profile_state)"
}

cfg_setup eight-gpus
host_before="$(cfg_host_mounts)"
host_profile="$(host_profile_state)"

# -g on indexes 1 and 3: the GPUs with minors 3 and 1, so mask 0xa.
cfg_start_container
if cfg_configure --device=1,3 -g --utility --no-cgroups 2>"$E2E_TMP/err"; then
  pass "configure -g --device=1,3 exits 0"
else
  failed "configure -g --device=1,3: $(cat "$E2E_TMP/err")"
fi
expect_profile "cli -g" 0xa
cfg_stop_container

# -D alone on indexes 0 and 4 (minors 2 and 6): display implies the graphics profile.
cfg_setup eight-gpus
cfg_start_container
if cfg_configure --device=0,4 -D --no-cgroups 2>"$E2E_TMP/err"; then
  pass "configure -D --device=0,4 exits 0"
else
  failed "configure -D --device=0,4: $(cat "$E2E_TMP/err")"
fi
expect_profile "cli -D" 0x44
cfg_stop_container

# Without graphics or display there is no tmpfs and nothing is created under /etc/nvidia.
cfg_setup eight-gpus
cfg_start_container
if cfg_configure --device=1,3 --compute --utility --video --no-cgroups 2>"$E2E_TMP/err"; then
  pass "configure without graphics exits 0"
else
  failed "configure without graphics: $(cat "$E2E_TMP/err")"
fi
check_eq "no graphics: no profile mount" "" "$(cfg_mount_options "$PROFILE_DIR")"
check "no graphics: no /etc/nvidia in the rootfs" test ! -e "$CFG_ROOTFS/etc/nvidia"
cfg_stop_container

# The prestart hook (in-process configure, hook.md §5) with NVIDIA_DRIVER_CAPABILITIES=graphics
# and NVIDIA_VISIBLE_DEVICES=2,7: minors 0 and 5, mask 0x21.
cfg_setup eight-gpus
cfg_start_container
HOOK="$(nvct_bin nvidia-container-runtime-hook)" || e2e_die "nvidia-container-runtime-hook is not built"
bundle="$E2E_TMP/bundle"
mkdir -p "$bundle"
cat >"$bundle/config.json" <<EOF
{"ociVersion":"1.0.2","process":{"args":["sh"],"cwd":"/","env":["NVIDIA_VISIBLE_DEVICES=2,7","NVIDIA_DRIVER_CAPABILITIES=graphics"]},"root":{"path":"$CFG_ROOTFS"}}
EOF
cat >"$E2E_TMP/hook.toml" <<EOF
[nvidia-container-runtime]
mode = "legacy"
[nvidia-container-cli]
root = "$CFG_ROOT"
ldconfig = "@/sbin/ldconfig"
no-cgroups = true
EOF
state="{\"ociVersion\":\"1.0.2\",\"id\":\"g\",\"status\":\"creating\",\"pid\":$CFG_PID,\"bundle\":\"$bundle\"}"
if printf '%s' "$state" | "$HOOK" -config "$E2E_TMP/hook.toml" prestart >"$E2E_TMP/out" 2>"$E2E_TMP/err"; then
  pass "hook prestart with NVIDIA_DRIVER_CAPABILITIES=graphics exits 0"
else
  failed "hook prestart: $(cat "$E2E_TMP/out" "$E2E_TMP/err")"
fi
expect_profile "hook graphics" 0x21
check_eq "hook: /dev/nvidia* nodes of the selected GPUs" "$(printf '%s\n' /dev/nvidia0 /dev/nvidia5)" \
  "$(cfg_in 'ls /dev/nvidia[0-9]*' | sort)"
cfg_stop_container

check_eq "host mounts unchanged at the end" "$host_before" "$(cfg_host_mounts)"
e2e_finish
