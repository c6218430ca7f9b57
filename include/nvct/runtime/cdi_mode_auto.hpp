// `auto` mode resolution (spec/runtime.md §6): requests made only of fully-qualified CDI names
// -> cdi; else by platform: NVML or WSL's libdxcore present -> jit-cdi; Tegra (tegra files
// without NVML, or an integrated GPU) -> csv; unknown platform -> jit-cdi.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/runtime/mode.hpp"

namespace nvct::runtime {

struct PlatformFacts {
  bool nvml = false;            // libnvidia-ml.so.1 under the driver root
  bool dxcore = false;          // libdxcore.so (WSL)
  bool tegra_files = false;     // /etc/nv_tegra_release or a tegra SoC family
  bool integrated_gpu = false;  // an nvgpu (iGPU) device
};

enum class AutoMode { kCdi, kJitCdi, kCsv };

// Every requested device (empty slots from duplicates ignored) is a fully-qualified CDI name,
// and there is at least one.
bool only_qualified_cdi_devices(const std::optional<std::vector<std::string>>& devices);

AutoMode resolve_auto_mode(const std::optional<std::vector<std::string>>& devices,
                           const PlatformFacts& platform);

// Looks for libnvidia-ml.so.1 and libdxcore.so through the driver root's ld.so.cache (with the
// default library directories as fallback) and for the Tegra marker files. Integrated GPUs are
// only visible through NVML, which this probe does not load: integrated_gpu stays false.
PlatformFacts probe_platform(const std::string& driver_root);

// The mode `auto` stands for with this container: its request read as in cdi mode (CDI
// annotations honoured) and the platform probed under nvidia-container-cli.root.
Result<Mode> resolve_auto_mode_for_spec(const nlohmann::ordered_json& spec,
                                        const config::Config& cfg);

}  // namespace nvct::runtime
