// `nvidia-container-runtime-hook prestart` (spec/hook.md §3): OCI state from stdin, the bundle's
// config.json, the GPU request, the mode assertion, then the shared configure job in-process.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "hook_mode.hpp"
#include "nvct/base/error.hpp"
#include "nvct/config/config.hpp"
#include "nvct/mount/configure.hpp"
#include "nvct/oci/state.hpp"

namespace nvct::hook {

// Used when no -config is given. Deliberately not $XDG_CONFIG_HOME or
// $NVIDIA_CTK_CONFIG_FILE_PATH: an image can put those into the hook's environment.
inline constexpr const char* kDefaultConfigPath = "/etc/nvidia-container-runtime/config.toml";

// -config <file> is required to exist; the default path is optional. The supported driver
// capabilities are validated here, so a bad config fails every container, GPU or not.
Result<config::Config> load_hook_config(const std::optional<std::string>& config_path);

// The OCI state of a prestart hook: pid > 0 and an absolute bundle.
Result<oci::State> read_prestart_state(std::string_view json);

// config.json's top-level fields the hook needs: ociVersion, process and root must be present
// and root.path non-empty.
Status check_spec_fields(const nlohmann::ordered_json& spec);

// root.path resolved against the bundle of the state (not the cwd, which the hook leaves for
// "/"), lexically cleaned; "/" is refused.
Result<std::string> container_rootfs(const nlohmann::ordered_json& spec, const std::string& bundle);

// container_rootfs() on the real path of the bundle, refused when root.path itself goes through a
// symbolic link: runc refuses such a root at create (its config validator compares the path
// with its resolution), so a link found here was put in after that check, and following it would
// point the mount library at a host directory.
Result<std::string> real_container_rootfs(const nlohmann::ordered_json& spec,
                                          const std::string& bundle);

// Everything that touches the host or the container, injectable for tests.
struct PrestartEnv {
  std::function<Status(const mount::ConfigureOptions&)> configure;
  std::function<PlatformFacts(const std::string& driver_root)> probe_platform;
  std::function<void(std::string_view line)> print;  // one line to stderr
};

// Runs prestart on the state text read from stdin and returns the exit status (0 or 1). Each
// failure prints one line: configure's own errors as "nvidia-container-cli: <stage> error: ..."
// (the text users know from the reference), everything else as
// "nvidia-container-runtime-hook: <what>: <why>"; the same line is logged at error level with the
// container id and bundle (hook_failure.hpp).
int run_prestart(const config::Config& cfg, std::string_view state_json, bool debug,
                 const PrestartEnv& env);

}  // namespace nvct::hook
