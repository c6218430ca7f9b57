// Which set of spec modifiers the shim applies (spec/runtime.md §6). Only legacy is implemented;
// the other reference modes are recognised and refused with a clear error.
#pragma once

#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::runtime {

enum class Mode { kLegacy };

std::string_view mode_name(Mode mode);

// The configured mode (config nvidia-container-runtime.mode), overridden by the binary name:
// nvidia-container-runtime.legacy forces "legacy", nvidia-container-runtime.cdi forces "cdi".
std::string_view effective_mode_name(std::string_view configured, std::string_view argv0);

// "legacy" -> legacy; "auto" -> legacy (nvct has no jit-cdi/cdi/csv yet, and legacy is what
// the reference's auto gave before v1.18); "cdi", "jit-cdi", "csv" -> "not supported yet"
// error naming the mode; "" -> "a mode must be specified"; anything else -> "invalid mode".
Result<Mode> resolve_mode(std::string_view name);

}  // namespace nvct::runtime
