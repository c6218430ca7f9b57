#!/usr/bin/env bash
# graphics = yes (topologies/graphics.conf): per-GPU DRM entries in sysfs with their `dev`
# numbers, /dev/dri character devices card<minor+1> (0660) and renderD<minor+129> (0666), the
# graphics config files; and a topology without the key (one-gpu) has none of it.
source "$(dirname "$0")/lib/common.sh"

root="$WORK/root"
build_root graphics "$root" > /dev/null 2>&1 || { fail "graphics root build failed"; finish; }
V=550.54.14

# bus 17 has minor 1, bus 2a minor 0.
for spec in "0000:17:00.0 2 130" "0000:2a:00.0 1 129"; do
  read -r bus card render <<< "$spec"
  drm="$root/sys/bus/pci/devices/$bus/drm"
  expect_eq "$bus: drm entries" "card$card card$card-DP-1 renderD$render" \
    "$(ls "$drm" | tr '\n' ' ' | sed 's/ $//')"
  expect_eq "$bus: card$card/dev" "226:$card" "$(cat "$drm/card$card/dev")"
  expect_eq "$bus: renderD$render/dev" "226:$render" "$(cat "$drm/renderD$render/dev")"
  if ((EUID == 0)); then
    expect_eq "$bus: dev/dri/card$card node" "character special file 226:$card 660" \
      "$(stat -c '%F %Hr:%Lr %a' "$root/dev/dri/card$card")"
    expect_eq "$bus: dev/dri/renderD$render node" "character special file 226:$render 666" \
      "$(stat -c '%F %Hr:%Lr %a' "$root/dev/dri/renderD$render")"
  else
    expect "$bus: dev/dri/card$card placeholder (not root)" test -f "$root/dev/dri/card$card"
  fi
done
expect_eq "dev/dri has the four nodes and udev's by-path directory only" \
  "by-path card1 card2 renderD129 renderD130" "$(ls "$root/dev/dri" | tr '\n' ' ' | sed 's/ $//')"
expect_eq "by-path links: each GPU's bus id to its card and render node" \
  "pci-0000:17:00.0-card->../card2 pci-0000:17:00.0-render->../renderD130 pci-0000:2a:00.0-card->../card1 pci-0000:2a:00.0-render->../renderD129" \
  "$(cd "$root/dev/dri/by-path" && for l in *; do printf '%s->%s ' "$l" "$(readlink "$l")"; done | sed 's/ $//')"

for f in etc/vulkan/icd.d/nvidia_icd.json usr/share/vulkan/implicit_layer.d/nvidia_layers.json \
         usr/share/glvnd/egl_vendor.d/10_nvidia.json \
         usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json \
         usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json; do
  expect "$f is valid JSON" python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$root/$f"
done
expect "Xorg driver module" test -s "$root/usr/lib/xorg/modules/drivers/nvidia_drv.so"
expect "GLX module named with the driver version" \
  test -s "$root/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so.$V"

plain="$WORK/plain"
build_root one-gpu "$plain" > /dev/null 2>&1 || fail "one-gpu root build failed"
expect "one-gpu: no sysfs" test ! -e "$plain/sys"
expect "one-gpu: no /dev/dri" test ! -e "$plain/dev/dri"
expect "one-gpu: no Vulkan ICD" test ! -e "$plain/etc/vulkan"
expect "one-gpu: no Xorg modules" test ! -e "$plain/usr/lib/xorg"
finish
