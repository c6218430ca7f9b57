// Where nvct's own programs are found at run time (spec/packaging.md §4.3): next to the running
// binary first (an install under any prefix, or the build tree's bin/), then the directories of
// PATH, then the install bindir compiled in (install_dirs.hpp). A path that is written into a
// spec or an engine config must exist: a missing one is an error naming the setting it came
// from, never a silent write of a path that is not there.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "nvct/base/error.hpp"

namespace nvct {

// The directory of /proc/self/exe ("" when it cannot be read).
std::string self_exe_dir();

// Absolute, de-duplicated search directories for one of nvct's programs:
// `self_dir`, the absolute entries of `path_env`, then `install_bindir`.
std::vector<std::string> program_search_dirs(std::string_view self_dir, std::string_view path_env,
                                             std::string_view install_bindir);
// The same with this process's directory and the compiled-in bindir.
std::vector<std::string> program_search_dirs(std::string_view path_env);

// True for a regular file (after symlinks) that this process may execute.
bool is_executable_file(const std::string& path);

// Resolves a program setting: an absolute `value` must be an executable file; a bare name (or
// "" for `default_name`) is looked up by basename in `dirs`. `setting` says where the value came
// from ("nvidia-ctk.path in /etc/nvidia-container-runtime/config.toml", "--nvidia-cdi-hook-path")
// and is part of every error, with the places that were searched and what to do.
Result<std::string> resolve_program(std::string_view value, std::string_view default_name,
                                    const std::vector<std::string>& dirs, std::string_view setting);

}  // namespace nvct
