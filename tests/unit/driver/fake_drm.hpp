// A fake driver root with the DRM sysfs entries, /dev/dri nodes and graphics config files of
// a graphics-capable host, for the driver, runtime and cdi unit tests. Nodes are real character
// devices (mknod needs root: the fixture's users assert it with a clear message).
#pragma once

#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <string>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver::testing {

// mknod <root>/<rel> c major:minor with mode; false on failure (not root).
inline bool make_char_node(const nvct::testing::TempDir& dir, const std::string& rel,
                           unsigned major, unsigned minor, mode_t mode = 0666) {
  std::filesystem::create_directories(std::filesystem::path(dir / rel).parent_path());
  std::string path = dir / rel;
  if (::mknod(path.c_str(), S_IFCHR | mode, makedev(major, minor)) != 0) return false;
  return ::chmod(path.c_str(), mode) == 0;
}

// The procfs of a loaded driver with two GPUs whose minors are not in bus order (index !=
// minor): 0000:17:00.0 (H100, GPU-aaaa, minor 3) and 0000:2a:00.0 (A100, GPU-bbbb, minor 0).
inline void add_two_gpu_procfs(const nvct::testing::TempDir& dir) {
  dir.write("proc/driver/nvidia/version",
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 2024\n");
  dir.write("proc/driver/nvidia/gpus/0000:2a:00.0/information",
            "Model: \t A100\nGPU UUID: \t GPU-bbbb\nBus Location: \t 0000:2a:00.0\n"
            "Device Minor: \t 0\n");
  dir.write("proc/driver/nvidia/gpus/0000:17:00.0/information",
            "Model: \t H100\nGPU UUID: \t GPU-aaaa\nBus Location: \t 0000:17:00.0\n"
            "Device Minor: \t 3\n");
}

// sys/bus/pci/devices/<bus>/drm/{card<card>,renderD<render>}/dev and the nodes under dev/dri.
inline bool add_drm_gpu(const nvct::testing::TempDir& dir, const std::string& sysfs_bus,
                        unsigned card, unsigned render) {
  std::string drm = fmt::format("sys/bus/pci/devices/{}/drm", sysfs_bus);
  dir.write(fmt::format("{}/card{}/dev", drm, card), fmt::format("226:{}\n", card));
  dir.write(fmt::format("{}/renderD{}/dev", drm, render), fmt::format("226:{}\n", render));
  // Connector entries and the control node sit next to them in real sysfs.
  dir.write(fmt::format("{}/card{}-DP-1/status", drm, card), "disconnected\n");
  return make_char_node(dir, fmt::format("dev/dri/card{}", card), 226, card, 0660) &&
         make_char_node(dir, fmt::format("dev/dri/renderD{}", render), 226, render, 0666);
}

// The JSON configs in both search dirs' usual places, and the Xorg modules.
inline void add_graphics_files(const nvct::testing::TempDir& dir, const std::string& version) {
  dir.write("etc/vulkan/icd.d/nvidia_icd.json", "{\"icd\": 1}\n");
  dir.write("usr/share/vulkan/implicit_layer.d/nvidia_layers.json", "{\"layer\": 1}\n");
  dir.write("usr/share/glvnd/egl_vendor.d/10_nvidia.json", "{\"egl\": 1}\n");
  dir.write("usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json", "{\"gbm\": 1}\n");
  dir.write("usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json", "{\"wl\": 1}\n");
  dir.write("usr/lib/xorg/modules/drivers/nvidia_drv.so", "ELF");
  dir.write("usr/lib/xorg/modules/extensions/libglxserver_nvidia.so." + version, "ELF");
}

}  // namespace nvct::driver::testing
