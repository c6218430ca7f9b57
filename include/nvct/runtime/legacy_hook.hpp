// The legacy-mode spec modifier: the nvidia-container-runtime-hook prestart hook
// (spec/runtime.md §7.1, §8). nvct deviates from the reference on purpose: the hook carries an
// absolute path, an explicit minimal env and a timeout (security.md §5, CVE-2025-23266), and it
// is only added when the container requests a GPU.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/runtime/executable_probe.hpp"

namespace nvct::runtime {

inline constexpr std::string_view kHookName = "nvidia-container-runtime-hook";
inline constexpr std::string_view kHookPathSetting = "nvidia-container-runtime-hook.path";
inline constexpr std::string_view kHookMinimalPath =
    "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
inline constexpr int kHookTimeoutSeconds = 60;

// config nvidia-container-runtime-hook.path: an absolute path must be an executable file; a bare
// name ("" = nvidia-container-runtime-hook) is looked up in `dirs` (program_search_dirs: next to
// the shim, PATH, the install bindir). Anything else is an error naming `setting` (the key and
// the file it came from): a hook path that is not there would fail every GPU container later,
// inside runc, with a message that does not say why.
Result<std::string> resolve_hook_path(std::string_view configured,
                                      const std::vector<std::string>& dirs,
                                      const ExecutableProbe& probe,
                                      std::string_view setting = kHookPathSetting);

// True when hooks.prestart already has a hook whose path's basename is
// nvidia-container-runtime-hook or nvidia-container-toolkit.
bool has_nvidia_prestart_hook(const nlohmann::ordered_json& spec);

// The hook object {path, args: [basename(path), "prestart"], env: [PATH=..., extra_env...],
// timeout}. extra_env: "NAME=value" entries the shim hands on from its own environment
// (hook_env_from), never from the container's.
nlohmann::ordered_json make_prestart_hook(const std::string& hook_path,
                                          const std::string& config_path = "",
                                          const std::vector<std::string>& extra_env = {});

// The variables of the shim's environment that the hook must see as well, as "NAME=value":
// NVCT_DRIVER_FACTS_CACHE_DIR (docs/driver-facts-cache.md: where the engine or an admin moved
// or turned off the driver-facts cache). `getenv` is the process's, or a test's stand-in.
std::vector<std::string> hook_env_from(const std::function<const char*(const char*)>& getenv);

// Appends the prestart hook unless one is already there. Returns whether the spec changed.
// `hooks: null` is treated as absent; a `hooks` that is not an object or a `prestart` that is
// not an array is an error (the spec would be rejected by runc anyway).
Result<bool> add_legacy_prestart_hook(nlohmann::ordered_json& spec, const std::string& hook_path,
                                      const std::string& config_path = "",
                                      const std::vector<std::string>& extra_env = {});

}  // namespace nvct::runtime
