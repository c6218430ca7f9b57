// What `nvidia-ctk info` prints (issue 16): the config in use, the mode, the driver root, the
// driver version and the GPUs the kernel reports, from the same readers as doctor. Read-only and
// without NVML: procfs only.
#pragma once

#include <string>
#include <vector>

#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {

struct GpuSummary {
  unsigned minor = 0;
  std::string model, uuid, bus_id;
};

struct HostSummary {
  std::string config_path;
  std::string config_state;  // "loaded", "absent: built-in defaults", or the error
  std::string mode;
  std::string driver_root;
  std::string driver_version;  // "" when the module is not loaded
  std::vector<GpuSummary> gpus;
};

HostSummary summarize_host(Host& host);

// The lines `nvidia-ctk info` prints after the version.
std::string render_host_summary(const HostSummary& summary);

}  // namespace nvct::diagnose
