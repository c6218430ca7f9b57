// `nvidia-ctk runtime configure`: flag validation and the edit of the engine's configuration
// (spec/ctk.md §4–§7). The command in src/cmd/nvidia-ctk only fills ConfigureOptions.
#pragma once

#include <optional>
#include <string>

#include "nvct/base/error.hpp"
#include "nvct/base/install_dirs.hpp"
#include "nvct/ctk/command_runner.hpp"

namespace nvct::ctk {

inline constexpr const char* kDefaultRuntimeName = "nvidia";
inline constexpr const char* kDefaultRuntimeExecutable = "nvidia-container-runtime";
// containerd and CRI-O need absolute paths: the install bindir (spec/packaging.md §4.3).
inline std::string default_runtime_executable_path() {
  return std::string(install_bindir()) + "/nvidia-container-runtime";
}
inline std::string default_hook_path() {
  return std::string(install_bindir()) + "/nvidia-container-runtime-hook";
}

struct ConfigureOptions {
  std::string runtime = "docker";
  std::string config_path;                  // empty: the runtime's default
  std::optional<std::string> drop_in_path;  // nullopt: the runtime's default; "": edit in place
  std::string executable_path;              // the engine binary for --config-source=command
  std::string config_mode = "config-file";  // config-file|config|oci-hook|hook
  std::string config_source = "file";       // file|command
  std::string oci_hook_path;                // empty: print the hook file to stdout
  std::string runtime_name = kDefaultRuntimeName;
  std::string runtime_path = kDefaultRuntimeExecutable;
  std::string hook_path = default_hook_path();
  bool set_as_default = false;
  bool enable_cdi = false;
  bool dry_run = false;
  bool backup = false;  // nvct: keep "<file>.bak" of a replaced file
  // nvct: --remove undoes configure (runtime_remove.hpp). The runtime path need not exist then:
  // package removal runs it after the binaries may already be gone.
  bool remove = false;
};

// Default main file and drop-in of an engine ("" when it has none).
std::string default_config_path(const std::string& runtime);
std::string default_drop_in_path(const std::string& runtime);

// Checks and normalises the options as the reference does: unknown runtime -> error; unknown
// config mode -> warning and config-file; containerd/crio: the default runtime path becomes
// /usr/bin/nvidia-container-runtime and must be absolute; docker: no drop-in, source forced to
// file; crio: --cdi.enabled ignored with a warning.
Result<ConfigureOptions> normalize_options(ConfigureOptions options);

// Runs the whole command on normalised options. Returns what goes to stdout (--dry-run output,
// or the hook file without --oci-hook-path); files are written under their locks. With `remove`
// it is remove_runtime_configuration() (runtime_remove.hpp).
Result<std::string> configure_runtime(const ConfigureOptions& options, CommandRunner& runner);

// Major version from `containerd --version` output ("containerd <repo> 1.6.20~ds1 ..." or
// "... v2.0.0 ..."), or nullopt when none is found.
std::optional<int> parse_containerd_major(const std::string& version_output);

}  // namespace nvct::ctk
