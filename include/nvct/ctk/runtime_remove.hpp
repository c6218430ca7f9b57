// `nvidia-ctk runtime configure --remove` (nvct extension, spec/packaging.md §4.7): undoes what
// configure wrote, with the semantics of the reference installer's cleanup (spec/ctk.md §5.1,
// C11-C13), for the engine cleanup when the package is removed (packaging.md §4.5).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/ctk/runtime_configure.hpp"

namespace nvct::ctk {

// The runtime names configure manages for --nvidia-runtime-name: <name>, <name>-cdi,
// <name>-legacy.
std::vector<std::string> managed_runtime_names(const std::string& name);

// Whether a runtime entry's executable (docker path or options.BinaryName, containerd BinaryName
// or v1 Runtime, CRI-O runtime_path) is the NVIDIA Container Runtime: its basename is
// nvidia-container-runtime, nvidia-container-runtime.cdi or nvidia-container-runtime.legacy, or it
// is `configured_path` (--nvidia-runtime-path) or that path with ".cdi"/".legacy". Whether the
// file exists does not matter: the binaries may be gone when the package's cleanup runs.
bool is_own_runtime_path(std::string_view path, std::string_view configured_path);

// Whether a hooks.d file's hook.path is the NVIDIA Container Runtime hook: `configured_hook`
// (--nvidia-runtime-hook-path) or a path whose basename is nvidia-container-runtime-hook.
bool is_own_hook_path(std::string_view path, std::string_view configured_hook);

// Removes the NVIDIA runtime from the engine named by normalised options:
// - docker: runtimes.<managed name> whose path is ours; an emptied `runtimes` goes; a
//   default-runtime naming a removed entry becomes "runc". Other keys keep their order and types.
// - containerd, drop-in (v2/v3): the drop-in is deleted; the main file and its `imports` stay.
//   In place (--drop-in-config="" or a version-1 main file): the runtime tables go, a
//   default_runtime_name naming one becomes "runc", enable_cdi and everything else stay.
// - crio: the drop-in is deleted; in place the handler tables go (default_runtime: see
//   CrioConfig::remove_runtime).
// - oci-hook: the hook file (--oci-hook-path, required) is deleted if it runs our hook.
// A managed name whose executable is another program's is kept, with a warning naming it; a
// drop-in holding such an entry is rewritten without ours instead of deleted. Missing files are
// no-ops, the main file is never deleted, and a file with nothing of ours is not rewritten, so a
// second run changes nothing. Writes follow configure's rules (lock, atomic replace, mode and
// owner kept). Returns the --dry-run output: each resulting file, or "Would remove <path>" for a
// file that would be deleted; "" without --dry-run. Nothing is restarted; a change logs advice
// to restart the engine.
Result<std::string> remove_runtime_configuration(const ConfigureOptions& options);

}  // namespace nvct::ctk
