#!/usr/bin/env bash
# The legacy-mode graphics modifier (runtime.md §7.3) end to end: real containers through the
# nvct shim, runc, the prestart hook and nvidia-ctk's create-symlinks hook on the graphics mock
# driver (index 0 = bus 17, minor 1: card2/renderD130; index 1 = bus 2a, minor 0:
# card1/renderD129). With NVIDIA_DRIVER_CAPABILITIES graphics, display or all a container sees
# its GPUs' DRM nodes only, their /dev/dri/by-path links, the Vulkan/EGL/Xorg config files
# (the host's bytes) and the GLX module link; with utility only it sees none of them.
source "$(dirname "$0")/lib/common.sh"
source "$(dirname "$0")/lib/rootfs.sh"
source "$(dirname "$0")/lib/gpu.sh"

gpu_setup graphics
CTK="$(nvct_bin nvidia-ctk)"
printf '\n[nvidia-ctk]\npath = "%s"\n' "$CTK" >>"$GPU_CONFIG"
[ -c "$GPU_ROOT/dev/dri/card1" ] || e2e_die "graphics mock root has no /dev/dri nodes"
mounts_before="$(gpu_host_mounts)"

FILES="/etc/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/implicit_layer.d/nvidia_layers.json
/usr/share/glvnd/egl_vendor.d/10_nvidia.json /usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json
/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json /usr/lib/xorg/modules/drivers/nvidia_drv.so
/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.550.54.14"
GLX_LINK=/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so
ENXIO="No such device or address"

# What the container reports: DRM nodes with their hex numbers, by-path links, graphics files
# with their digests, the GLX module link, and what opening a DRM node gives.
REPORT='
for n in /dev/dri/card* /dev/dri/renderD*; do
  [ -e "$n" ] && echo "dri $n $(stat -c "%F %t:%T" "$n")"
done
for l in /dev/dri/by-path/*; do [ -L "$l" ] && echo "link $l $(readlink "$l")"; done
for f in '"$(echo $FILES)"'; do [ -f "$f" ] && echo "file $f $(md5sum < "$f" | cut -d" " -f1)"; done
[ -L '"$GLX_LINK"' ] && echo "glx $(readlink '"$GLX_LINK"')"
for n in /dev/dri/renderD*; do
  [ -e "$n" ] && echo "open $n $(head -c1 "$n" 2>&1 >/dev/null | sed "s/.*: //")"
done
echo done
'

# run_graphics <name> <env...>: one container; its report is $E2E_TMP/<name>.out.
run_graphics() {
  local name="$1"
  shift
  local b="$E2E_TMP/b-$name"
  gpu_bundle "$b" "$@"
  printf '%s' "$REPORT" >"$b/rootfs/report.sh"
  if gpu_run "$b" "$name"; then
    check "$name: container ran to the end" grep -qx "done" "$E2E_TMP/$name.out"
  else
    failed "$name: run failed: $(tr '\n' ' ' <"$E2E_TMP/$name.err")"
    grep -q 'by-path.* is under /dev' "$E2E_TMP/$name.err" &&
      failed "$name: create-symlinks refuses /dev/dri/by-path links: src/mount/symlink.cpp needs the by-path exception (link_policy)"
  fi
}
lines() { gpu_field "$E2E_TMP/$1.out" "$2" | tr '\n' '|' | sed 's/|$//'; }
host_files() {
  local f out=""
  for f in $FILES; do out+="$f $(md5sum <"$GPU_ROOT$f" | cut -d' ' -f1)|"; done
  echo "${out%|}"
}
dri() { printf '/dev/dri/%s character special file e2:%x' "$1" "$2"; }

# --- graphics, index 0: bus 17's card2/renderD130 only ------------------------------------------
run_graphics g0 NVIDIA_VISIBLE_DEVICES=0 NVIDIA_DRIVER_CAPABILITIES=graphics
check_eq "g0: only GPU 0's DRM nodes, as character devices 226:N" \
  "$(dri card2 2)|$(dri renderD130 130)" "$(lines g0 dri)"
check_eq "g0: by-path links of bus 17" \
  "/dev/dri/by-path/pci-0000:17:00.0-card ../card2|/dev/dri/by-path/pci-0000:17:00.0-render ../renderD130" \
  "$(lines g0 link)"
check_eq "g0: every graphics file with the host's bytes" "$(host_files)" "$(lines g0 file)"
check_eq "g0: GLX module link" "libglxserver_nvidia.so.550.54.14" "$(lines g0 glx)"
check_eq "g0: opening the render node reaches the (absent) kernel driver: ENXIO" \
  "/dev/dri/renderD130 $ENXIO" "$(lines g0 open)"
check_eq "g0: one createContainer hook, run by nvidia-ctk" "$CTK" \
  "$(jq -r '[.hooks.createContainer[] | .path] | join(",")' "$E2E_TMP/b-g0/config.json")"
check "g0: the DRM allow rules are in the spec" jq -e \
  '[.linux.resources.devices[] | select(.allow and .major == 226) | .minor] == [2, 130]' \
  "$E2E_TMP/b-g0/config.json"

# --- display, index 1: bus 2a's card1/renderD129 only -------------------------------------------
run_graphics d1 NVIDIA_VISIBLE_DEVICES=1 NVIDIA_DRIVER_CAPABILITIES=display
check_eq "d1: only GPU 1's DRM nodes" "$(dri card1 1)|$(dri renderD129 129)" "$(lines d1 dri)"
check_eq "d1: by-path links of bus 2a" \
  "/dev/dri/by-path/pci-0000:2a:00.0-card ../card1|/dev/dri/by-path/pci-0000:2a:00.0-render ../renderD129" \
  "$(lines d1 link)"
check_eq "d1: graphics files" "$(host_files)" "$(lines d1 file)"

# --- all GPUs, all capabilities -----------------------------------------------------------------
run_graphics all NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=all
check_eq "all: every GPU's DRM nodes" \
  "$(dri card1 1)|$(dri card2 2)|$(dri renderD129 129)|$(dri renderD130 130)" "$(lines all dri)"
check_eq "all: four by-path links" 4 "$(gpu_field "$E2E_TMP/all.out" link | wc -l)"

# --- utility only, and no capability variable: none of it ---------------------------------------
run_graphics util NVIDIA_VISIBLE_DEVICES=all NVIDIA_DRIVER_CAPABILITIES=utility
run_graphics unset NVIDIA_VISIBLE_DEVICES=0
for name in util unset; do
  check_eq "$name: no DRM nodes" "" "$(lines $name dri)"
  check_eq "$name: no by-path links" "" "$(lines $name link)"
  check_eq "$name: no graphics files" "" "$(lines $name file)"
  check_eq "$name: no GLX link" "" "$(lines $name glx)"
  check "$name: no createContainer hook in the spec" jq -e '.hooks.createContainer == null' \
    "$E2E_TMP/b-$name/config.json"
done

# --- graphics without a GPU request: the spec is byte-identical -------------------------------
B="$E2E_TMP/b-void"
gpu_bundle "$B" NVIDIA_VISIBLE_DEVICES=void NVIDIA_DRIVER_CAPABILITIES=graphics
printf '%s' "$REPORT" >"$B/rootfs/report.sh"
cp "$B/config.json" "$E2E_TMP/void.json"
gpu_run "$B" void || failed "void: run failed: $(tr '\n' ' ' <"$E2E_TMP/void.err")"
check "void: config.json byte-identical" same_file "$E2E_TMP/void.json" "$B/config.json"
check_eq "void: no DRM nodes" "" "$(lines void dri)"

# --- nvidia-ctk cdi generate on the same root (cdi.md §6.3) --------------------------------------
SPEC="$E2E_TMP/nvidia.json"
if "$CTK" cdi generate --driver-root "$GPU_ROOT" --format json --output "$SPEC" \
  --nvidia-cdi-hook-path "$(nvct_bin nvidia-cdi-hook)" >"$E2E_TMP/generate.log" 2>&1; then
  dev_nodes() { jq -c --arg d "$1" '[.devices[] | select(.name == $d) | .containerEdits.deviceNodes[].path]' "$SPEC"; }
  dev_links() { jq -c --arg d "$1" '[.devices[] | select(.name == $d) | .containerEdits.hooks[]?.args[]]' "$SPEC"; }
  check_eq "cdi: device 0 has nvidia1 and bus 17's DRM nodes" \
    '["/dev/nvidia1","/dev/dri/card2","/dev/dri/renderD130"]' "$(dev_nodes 0)"
  check_eq "cdi: device 1 has nvidia0 and bus 2a's DRM nodes" \
    '["/dev/nvidia0","/dev/dri/card1","/dev/dri/renderD129"]' "$(dev_nodes 1)"
  check_eq "cdi: device 0's by-path create-symlinks hook" \
    '["nvidia-cdi-hook","create-symlinks","--link","../card2::/dev/dri/by-path/pci-0000:17:00.0-card","--link","../renderD130::/dev/dri/by-path/pci-0000:17:00.0-render"]' \
    "$(dev_links 0)"
  check_eq "cdi: the all device has both GPUs' by-path hooks" 2 \
    "$(jq '[.devices[] | select(.name == "all") | .containerEdits.hooks[]] | length' "$SPEC")"
  for f in $FILES; do
    check_eq "cdi: common mount $f" "$GPU_ROOT$f" \
      "$(jq -r --arg f "$f" '.containerEdits.mounts[] | select(.containerPath == $f) | .hostPath' "$SPEC")"
  done
  check "cdi: the common create-symlinks hook links the GLX module" jq -e \
    '[.containerEdits.hooks[] | select(.args[1] == "create-symlinks") | .args[]] | index("libglxserver_nvidia.so.550.54.14::/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so") != null' \
    "$SPEC"
else
  failed "cdi generate failed: $(tail -5 "$E2E_TMP/generate.log")"
fi

check_eq "host mount table unchanged" "$mounts_before" "$(gpu_host_mounts)"
e2e_finish
