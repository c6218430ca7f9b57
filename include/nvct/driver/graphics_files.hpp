// The graphics configuration files the toolkit mounts into graphics containers (runtime.md
// §7.3, cdi.md §6.3 "graphics files"). The spec names the groups (Vulkan ICD, EGL vendor and
// external-platform JSONs, X11 driver and GLX module) but not the files; this is the
// toolkit's well-known set:
//   under /etc, then /usr/share (the first hit of each name wins):
//     vulkan/icd.d/nvidia_icd.json, vulkan/icd.d/nvidia_layers.json,
//     vulkan/implicit_layer.d/nvidia_layers.json, glvnd/egl_vendor.d/10_nvidia.json,
//     egl/egl_external_platform.d/15_nvidia_gbm.json,
//     egl/egl_external_platform.d/10_nvidia_wayland.json, nvidia/nvoptix.bin,
//     X11/xorg.conf.d/10-nvidia.conf, X11/xorg.conf.d/nvidia-drm-outputclass.conf;
//   the Xorg modules nvidia_drv.so (modules/drivers) and libglxserver_nvidia.so.<version>
//   (modules/extensions) under /usr/lib/xorg, then /usr/lib64/xorg, plus the link
//   libglxserver_nvidia.so -> libglxserver_nvidia.so.<version> next to the GLX module.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/driver/driver_root.hpp"
#include "nvct/driver/drm.hpp"

namespace nvct::driver {

// The config search directories and the names looked up in each, in mount order.
inline constexpr std::string_view kGraphicsConfigDirs[] = {"/etc", "/usr/share"};
inline constexpr std::string_view kGraphicsConfigNames[] = {
    "vulkan/icd.d/nvidia_icd.json",
    "vulkan/icd.d/nvidia_layers.json",
    "vulkan/implicit_layer.d/nvidia_layers.json",
    "glvnd/egl_vendor.d/10_nvidia.json",
    "egl/egl_external_platform.d/15_nvidia_gbm.json",
    "egl/egl_external_platform.d/10_nvidia_wayland.json",
    "nvidia/nvoptix.bin",
    "X11/xorg.conf.d/10-nvidia.conf",
    "X11/xorg.conf.d/nvidia-drm-outputclass.conf",
};
inline constexpr std::string_view kXorgModuleDirs[] = {"/usr/lib/xorg/modules",
                                                       "/usr/lib64/xorg/modules"};

struct GraphicsFile {
  std::string container_path;  // where it was found, e.g. /etc/vulkan/icd.d/nvidia_icd.json
  std::string source;          // root-relative real path (symlinks resolved inside the root)
  friend bool operator==(const GraphicsFile&, const GraphicsFile&) = default;
};

struct GraphicsFiles {
  std::vector<GraphicsFile> files;
  // libglxserver_nvidia.so -> libglxserver_nvidia.so.<version>, when the GLX module was found.
  std::vector<ContainerLink> links;
  friend bool operator==(const GraphicsFiles&, const GraphicsFiles&) = default;
};

// Looks the set up under the driver root. Only regular files count (a directory or a dangling
// link named like a config file is skipped). driver_version "" skips the GLX module, whose
// name carries it. extra_config_dirs (`cdi generate --config-search-path`, root-relative) are
// searched for the config names before /etc and /usr/share.
GraphicsFiles find_graphics_files(const DriverRoot& root, std::string_view driver_version,
                                  const std::vector<std::string>& extra_config_dirs = {});

}  // namespace nvct::driver
