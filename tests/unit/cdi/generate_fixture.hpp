// In-memory driver facts for the generator tests: no driver root is read, and device nodes are
// "looked up" in a map, so every field of the output is decided by the test.
#pragma once

#include <map>
#include <set>
#include <string>

#include "nvct/cdi/inject.hpp"
#include "nvct/driver/driver_info.hpp"

namespace nvct::cdi::testing {

class MapDeviceLookup : public DeviceLookup {
 public:
  std::map<std::string, HostDeviceInfo> nodes;
  // Paths that do not exist; any other path not in `nodes` exists but is no device node.
  std::set<std::string> missing;
  Result<HostDeviceInfo> lstat(const std::string& path) override {
    if (missing.count(path)) return fail(ENOENT, "lstat " + path + ": no such file");
    auto it = nodes.find(path);
    if (it == nodes.end()) return fail(ENODEV, path + " is not a device node");
    return it->second;
  }
};

inline driver::Gpu make_gpu(unsigned index, unsigned minor, std::string uuid) {
  driver::Gpu g;
  g.index = index;
  g.minor = minor;
  g.uuid = std::move(uuid);
  g.bus_id = "00000000:17:00.0";
  g.node = driver::DeviceNode{"/dev/nvidia" + std::to_string(minor), 195, minor};
  return g;
}

// The reference's TestGenerateSpec fixture (cdi.md §6.4): driver 999.88.77, one GPU, libcuda
// and the vdpau library, only /dev/nvidiactl as a control node.
inline driver::DriverInfo golden_info(const std::string& root) {
  driver::DriverInfo info;
  info.root = root;
  info.nvrm_version = "999.88.77";
  info.devices.push_back(driver::DeviceNode{"/dev/nvidiactl", 195, 255});
  info.gpus.push_back(make_gpu(0, 0, "GPU-4cf8db2d-06c0-7d70-1a51-e59b25b2c16c"));
  info.libs.push_back(driver::DriverLibrary{"libcuda.so", driver::Capability::kCompute,
                                            "/lib/x86_64-linux-gnu/libcuda.so.999.88.77"});
  info.libs.push_back(
      driver::DriverLibrary{"libvdpau_nvidia.so", driver::Capability::kVideo,
                            "/lib/x86_64-linux-gnu/vdpau/libvdpau_nvidia.so.999.88.77"});
  return info;
}

// Two GPUs, the first with two MIG devices exposed through /dev/nvidia-caps.
inline driver::DriverInfo mig_info(const std::string& root) {
  driver::DriverInfo info = golden_info(root);
  info.caps_style = driver::CapsStyle::kDev;
  info.char_majors["nvidia-caps"] = 235;
  driver::Gpu& g0 = info.gpus[0];
  g0.mig_capable = g0.mig_enabled = true;
  for (unsigned i = 0; i < 2; ++i) {
    driver::MigDevice m;
    m.index = i;
    m.uuid = "MIG-0000000" + std::to_string(i) + "-aaaa-bbbb-cccc-dddddddddddd";
    m.gi = i + 1;
    m.gi_cap_minor = 3 + 9 * (i + 1);
    m.ci_cap_minor = 4 + 9 * (i + 1);
    g0.migs.push_back(m);
  }
  info.gpus.push_back(make_gpu(1, 1, "GPU-11111111-2222-3333-4444-555555555555"));
  return info;
}

}  // namespace nvct::cdi::testing
