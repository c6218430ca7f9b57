// Which set of spec modifiers the shim applies (spec/runtime.md §6): legacy, cdi, jit-cdi and
// csv (Tegra, csv_mode.hpp); `auto` is resolved per container once its request is known
// (cdi_mode_auto.hpp).
#pragma once

#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::runtime {

enum class Mode { kLegacy, kCdi, kJitCdi, kCsv, kAuto };

std::string_view mode_name(Mode mode);

// The configured mode (config nvidia-container-runtime.mode), overridden by the binary name:
// nvidia-container-runtime.legacy forces "legacy", nvidia-container-runtime.cdi forces "cdi".
std::string_view effective_mode_name(std::string_view configured, std::string_view argv0);

// "legacy", "cdi", "jit-cdi", "csv" -> that mode; "auto" -> kAuto (resolved per container);
// "" -> "a mode must be specified"; anything else -> "invalid mode".
Result<Mode> resolve_mode(std::string_view name);

}  // namespace nvct::runtime
