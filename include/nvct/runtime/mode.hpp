// Which set of spec modifiers the shim applies (spec/runtime.md §6): legacy, cdi and jit-cdi;
// `auto` is resolved per container once its request is known (cdi_mode_auto.hpp). csv (Tegra)
// is recognised and refused with a clear error.
#pragma once

#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::runtime {

enum class Mode { kLegacy, kCdi, kJitCdi, kAuto };

std::string_view mode_name(Mode mode);

// The configured mode (config nvidia-container-runtime.mode), overridden by the binary name:
// nvidia-container-runtime.legacy forces "legacy", nvidia-container-runtime.cdi forces "cdi".
std::string_view effective_mode_name(std::string_view configured, std::string_view argv0);

// "legacy", "cdi", "jit-cdi" -> that mode; "auto" -> kAuto (resolved per container); "csv" ->
// "not supported yet" error naming the mode; "" -> "a mode must be specified"; anything else ->
// "invalid mode".
Result<Mode> resolve_mode(std::string_view name);

}  // namespace nvct::runtime
