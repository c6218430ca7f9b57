// `nvidia-ctk runtime configure`: the program an engine config will name must exist before the
// config is written (spec/packaging.md §4.3).
#pragma once

#include <string_view>

#include "nvct/base/error.hpp"
#include "nvct/ctk/runtime_configure.hpp"

namespace nvct::ctk {

// The program the new configuration names, checked before anything is written
// (spec/packaging.md §4.3: never a silent write of a path that is not there): the runtime path,
// or in oci-hook mode the hook path, must be an executable file. Docker's default is the bare
// name `nvidia-container-runtime`, which dockerd looks up in its own PATH: a bare name must be
// found in the directories of `path_env`. The error names the path, the flag that sets it and
// what to do. Not called for --remove (package removal runs it when the binaries may be gone);
// the command makes it a warning with --dry-run, which writes nothing.
Status check_configured_program(const ConfigureOptions& normalized, std::string_view path_env);

}  // namespace nvct::ctk
