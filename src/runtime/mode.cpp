#include "nvct/runtime/mode.hpp"

#include <fmt/format.h>

#include "nvct/base/strings.hpp"

namespace nvct::runtime {

std::string_view mode_name(Mode mode) {
  switch (mode) {
    case Mode::kLegacy:
      return "legacy";
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
  if (name == "legacy" || name == "auto") return Mode::kLegacy;
  if (name == "cdi" || name == "jit-cdi" || name == "csv") {
    return fail(ENOTSUP, fmt::format("runtime mode \"{}\" is not supported yet by nvct; set "
                                     "nvidia-container-runtime.mode = \"legacy\"",
                                     name));
  }
  if (name.empty()) return fail(EINVAL, "a mode must be specified");
  return fail(EINVAL, fmt::format("invalid mode \"{}\" (expected auto, legacy, cdi, jit-cdi or "
                                  "csv)",
                                  name));
}

}  // namespace nvct::runtime
