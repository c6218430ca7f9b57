#include "nvct/ctk/configured_program.hpp"

#include <fmt/format.h>

#include "nvct/base/program_path.hpp"
#include "nvct/base/strings.hpp"

namespace nvct::ctk {

Status check_configured_program(const ConfigureOptions& o, std::string_view path_env) {
  const bool hook = o.config_mode == "oci-hook";
  const std::string& value = hook ? o.hook_path : o.runtime_path;
  const std::string flag = hook ? "--nvidia-runtime-hook-path" : "--nvidia-runtime-path";
  const char* what = hook ? "NVIDIA Container Runtime hook" : "NVIDIA Container Runtime";
  if (!value.empty() && value.front() == '/') {
    if (is_executable_file(value)) return ok();
    return fail(ENOENT,
                fmt::format("the {} {} ({}) is not an executable file, so {} could not start "
                            "it; install nvct there or pass {}=<its absolute path>",
                            what, value, flag, o.runtime, flag));
  }
  // A bare name: dockerd resolves it in its PATH when it starts a container.
  auto dirs = program_search_dirs("", path_env, "");
  for (const auto& dir : dirs) {
    if (is_executable_file((dir == "/" ? "" : dir) + "/" + value)) return ok();
  }
  std::string searched = dirs.empty() ? "empty" : strings::join(dirs, ":");
  return fail(ENOENT, fmt::format("the {} {} ({}) is not in any directory of PATH ({}), where "
                                  "{} would look for it; install nvct or pass {}=<its absolute "
                                  "path>",
                                  what, value, flag, searched, o.runtime, flag));
}

}  // namespace nvct::ctk
