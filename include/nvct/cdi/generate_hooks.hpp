// The CDI hooks a generated spec carries (spec/cdi.md §6.4, §8 "Hook-creator rules"): which
// binary runs them, how their args start, which are enabled, and the env that keeps runc from
// handing the container's environment to them (CVE-2025-23266).
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/base/install_dirs.hpp"
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

// nvidia-cdi-hook in the install bindir (install_dirs.hpp); resolve_hook_binary finds the one
// that is really there.
inline std::string default_cdi_hook_path() {
  return std::string(install_bindir()) + "/nvidia-cdi-hook";
}

// Hooks that are off unless enabled explicitly.
inline const std::set<std::string, std::less<>> kDefaultDisabledHooks = {"chmod"};

struct HookOptions {
  // Absolute path of nvidia-cdi-hook (or of nvidia-ctk, whose hooks are `nvidia-ctk hook ...`).
  std::string binary = default_cdi_hook_path();
  // --disable-hook names ("all" disables every hook); --enable-hook names win over them.
  std::set<std::string, std::less<>> disabled;
  std::set<std::string, std::less<>> enabled;
  // --ldconfig-path: passed to update-ldcache when set.
  std::string ldconfig_path;
  bool debug = false;
};

// How errors about the hook binary of the runtime's CDI modes name the setting it came from.
inline constexpr std::string_view kCtkPathSetting = "nvidia-ctk.path (config.toml)";

// The binary written into hooks: "" looks up nvidia-cdi-hook next to the running binary, then in
// path_env, then in the install bindir (program_search_dirs); an absolute path must be an
// executable file; any other value is looked up by its basename the same way (so "nvidia-ctk"
// finds nvidia-ctk). A binary that is not there is an error naming `setting` (the flag or
// config key the value came from): a spec whose hooks cannot run fails every container later.
Result<std::string> resolve_hook_binary(std::string_view flag, std::string_view path_env,
                                        std::string_view setting = "--nvidia-cdi-hook-path");

// Appends make_hook(options, name, args) to edits.hooks when the hook is enabled.
void add_hook(ContainerEdits& edits, const HookOptions& options, std::string_view name,
              const std::vector<std::string>& args);

// Rejects `--enable-hook all` (the reference does: enabling every hook is never meant).
Status validate_hook_options(const HookOptions& options);

bool hook_enabled(const HookOptions& options, std::string_view name);

// The createContainer hook `name` with `args`, or nullopt when the hook is disabled or is
// create-symlinks/chmod without arguments.
std::optional<Hook> make_hook(const HookOptions& options, std::string_view name,
                              const std::vector<std::string>& args);

}  // namespace nvct::cdi
