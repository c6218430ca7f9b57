#include "nvct/runtime/mode.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"

namespace nvct::runtime {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::kLegacy:
      return "legacy";
    case Mode::kCdi:
      return "cdi";
    case Mode::kJitCdi:
      return "jit-cdi";
    case Mode::kCsv:
      return "csv";
    case Mode::kAuto:
      return "auto";
  }
  return "legacy";
}

std::string_view effective_mode_name(std::string_view configured, std::string_view argv0) {
  auto name = strings::basename(argv0);
  if (name == "nvidia-container-runtime.legacy") return "legacy";
  if (name == "nvidia-container-runtime.cdi") return "cdi";
  return configured;
}

Result<Mode> resolve_mode(std::string_view name) {
  if (name == "legacy") return Mode::kLegacy;
  if (name == "cdi") return Mode::kCdi;
  if (name == "jit-cdi") return Mode::kJitCdi;
  if (name == "csv") return Mode::kCsv;
  if (name == "auto") return Mode::kAuto;
  if (name.empty()) return fail(EINVAL, "a mode must be specified");
  return fail(EINVAL, fmt::format("invalid mode \"{}\" (expected auto, legacy, cdi, jit-cdi or "
                                  "csv)",
                                  name));
}

}  // namespace nvct::runtime
