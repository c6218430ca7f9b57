// Driver discovery for CDI content (`cdi generate` and the runtime's jit-cdi mode): the driver
// root's ld.so.cache, NVML run in an isolated child (procfs fallback), and every driver file,
// node and GPU, as legacy mode discovers them, plus the CDI-only libraries
// (generate_libraries.hpp).
#pragma once

#include <string>

#include "nvct/base/error.hpp"
#include "nvct/cdi/generate_libraries.hpp"
#include "nvct/driver/driver_info.hpp"

namespace nvct::cdi {

struct CdiDiscovery {
  std::string driver_root = "/";  // "" means "/"
  LibraryDiscovery libraries;
  // On a WSL2 root (generate_wsl.hpp's is_wsl_root, dev root = driver root) there is no NVML
  // to query nor procfs to read: the result is a DriverInfo with only `root` set, from which
  // build_spec makes the wsl spec (jit-cdi on WSL). false: discover as usual.
  bool detect_wsl = true;
  // NVML's facts through the driver-facts cache (driver/facts_cache.hpp): the runtime's jit-cdi
  // mode, run at every create. `cdi generate` (an admin command) always asks NVML.
  bool facts_cache = false;
  // When set, NVML is asked through this instead (facts_cache is then ignored): the runtime
  // shares one memoised query between its requirement check and the jit-cdi spec of a create.
  driver::NvmlQuery nvml;
};

// NVML runs as the reference's unprivileged default user when that can be read, else with the
// caller's ids.
Result<driver::DriverInfo> discover_driver_for_cdi(const CdiDiscovery& options);

// The defaults for `driver_root` ("" means "/").
Result<driver::DriverInfo> discover_driver_for_cdi(const std::string& driver_root);

}  // namespace nvct::cdi
