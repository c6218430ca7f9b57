// The hook's mode assertion (spec/hook.md §4, runtime.md §6): the hook only serves legacy mode.
// `auto` resolves like the runtime's, except that a plain dGPU host gives `legacy`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"

namespace nvct::hook {

inline constexpr const char* kDirectInvocationError =
    "invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker --gpus "
    "flag) is not supported. Please use the NVIDIA Container Runtime (e.g. specify the "
    "--runtime=nvidia flag) instead.";

// Host facts `auto` looks at.
struct PlatformFacts {
  bool tegra_files = false;  // /etc/nv_tegra_release, or /sys/devices/soc0/family is "tegra"
  bool nvml = false;         // libnvidia-ml.so.1 present in the driver root
};

struct ModeDecision {
  std::string mode;
  // "Using requested mode '<m>'" or "Auto-detected mode as '<m>'"; printed on stderr.
  std::string line;
};

// config mode "auto": every requested device a fully-qualified CDI name -> cdi; Tegra files
// without NVML -> csv; otherwise legacy. Any other configured value is used as is.
ModeDecision resolve_hook_mode(const std::string& configured, const request::Request& req,
                               const PlatformFacts& platform);

// nullopt when skip-mode-detection is set (nothing printed, nothing checked); otherwise the
// decision, or the reference's error when the mode is not legacy.
Result<std::optional<ModeDecision>> assert_legacy_mode(const config::Config& cfg,
                                                       const request::Request& req,
                                                       const PlatformFacts& platform);

// Reads the facts from the host: Tegra marker files and the NVML library under `driver_root`.
PlatformFacts probe_platform(const std::string& driver_root);

}  // namespace nvct::hook
