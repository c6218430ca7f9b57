// What the kernel says about the NVIDIA driver, read once from <root>/proc: the module version,
// the GPUs of /proc/driver/nvidia/gpus and the character majors of /proc/devices.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "nvct/driver/procfs.hpp"

namespace nvct::diagnose {

class Host;

struct ProcGpu {
  std::string dir;  // /proc/driver/nvidia/gpus/<bus>
  driver::ProcGpuInformation info;
};

struct ProcFacts {
  bool module_loaded = false;     // /proc/driver/nvidia/version exists
  std::string driver_version;     // "" when absent or unparsable
  std::string version_error;      // why the version could not be read, when loaded
  bool devices_readable = false;  // /proc/devices
  std::map<std::string, unsigned> majors;
  std::vector<ProcGpu> gpus;            // ordered by bus id
  std::vector<std::string> gpu_errors;  // "path: why" for unreadable information files

  // The major of the nvidia module ("nvidia-frontend" or "nvidia").
  std::optional<unsigned> nvidia_major() const;
  std::optional<unsigned> major_of(const std::string& name) const;
};

ProcFacts read_proc_facts(const Host& host);

}  // namespace nvct::diagnose
