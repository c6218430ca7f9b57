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
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

inline constexpr const char* kDefaultCdiHookPath = "/usr/bin/nvidia-cdi-hook";

// Hooks that are off unless enabled explicitly.
inline const std::set<std::string, std::less<>> kDefaultDisabledHooks = {"chmod"};

struct HookOptions {
  // Absolute path of nvidia-cdi-hook (or of nvidia-ctk, whose hooks are `nvidia-ctk hook ...`).
  std::string binary = kDefaultCdiHookPath;
  // --disable-hook names ("all" disables every hook); --enable-hook names win over them.
  std::set<std::string, std::less<>> disabled;
  std::set<std::string, std::less<>> enabled;
  // --ldconfig-path: passed to update-ldcache when set.
  std::string ldconfig_path;
  bool debug = false;
};

// The binary for --nvidia-cdi-hook-path: "" looks up nvidia-cdi-hook in path_env, falling back to
// /usr/bin/nvidia-cdi-hook; an absolute path is kept; any other value is looked up by its
// basename the same way (so "nvidia-ctk" finds nvidia-ctk).
std::string resolve_hook_binary(std::string_view flag, std::string_view path_env);

// Rejects `--enable-hook all` (the reference does: enabling every hook is never meant).
Status validate_hook_options(const HookOptions& options);

bool hook_enabled(const HookOptions& options, std::string_view name);

// The createContainer hook `name` with `args`, or nullopt when the hook is disabled or is
// create-symlinks/chmod without arguments.
std::optional<Hook> make_hook(const HookOptions& options, std::string_view name,
                              const std::vector<std::string>& args);

}  // namespace nvct::cdi
