// The runtime's feature-gated device sets (spec/runtime.md §7.4, request.md): NVIDIA_GDS,
// NVIDIA_MOFED, NVIDIA_GDRCOPY and NVIDIA_NVSWITCH set to exactly "enabled" add the devices of
// the matching `cdi generate` mode (cdi/generate_modes.hpp), built as an in-memory CDI spec with
// vendor runtime.nvidia.com and the mode as class. jit-cdi appends them to its request ids;
// legacy mode applies them to config.json next to its prestart hook.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "nvct/base/error.hpp"
#include "nvct/cdi/generate_modes.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"

namespace nvct::runtime {

inline constexpr std::string_view kGatedModeVendor = "runtime.nvidia.com";

// The env variable of each gated mode, in the order they are applied.
struct GatedMode {
  std::string_view env;
  cdi::GenerateMode mode;
};
inline constexpr GatedMode kGatedModes[] = {{"NVIDIA_GDS", cdi::GenerateMode::kGds},
                                            {"NVIDIA_MOFED", cdi::GenerateMode::kMofed},
                                            {"NVIDIA_GDRCOPY", cdi::GenerateMode::kGdrcopy},
                                            {"NVIDIA_NVSWITCH", cdi::GenerateMode::kNvswitch}};

// "mode=gds", ... for each variable set to exactly "enabled"; nothing when the container requests
// no GPU (the modifier is a no-op then).
std::vector<std::string> gated_mode_ids(const request::Request& request);

// The spec of one gated mode from the host under nvidia-container-cli.root, with the jit-cdi
// feature flags of the config. Fails when the host has none of the mode's devices: the
// container asked for them explicitly.
Result<cdi::Spec> gated_mode_spec(cdi::GenerateMode mode, const config::Config& cfg,
                                  cdi::DeviceLookup& lookup);

// Applies the edits of each mode in `modes` (device edits, then spec-level edits). Returns
// whether anything was applied.
Result<bool> apply_gated_modes(nlohmann::ordered_json& spec,
                               const std::vector<cdi::GenerateMode>& modes,
                               const config::Config& cfg, cdi::DeviceLookup& lookup);

// Legacy mode's feature-gated modifier: the gated modes the request's env enables.
Result<bool> apply_legacy_gated_modes(nlohmann::ordered_json& spec, const request::Request& request,
                                      const config::Config& cfg, cdi::DeviceLookup& lookup);

}  // namespace nvct::runtime
