// Where a command's result goes: stdout, or a file given with --output.
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::cmd::nvidia_ctk {

// "" writes to stdout. Otherwise the parent directories are created (0755) and the file is
// replaced atomically (an existing file keeps its mode and owner).
Status write_output(const std::string& path, std::string_view content);

}  // namespace nvct::cmd::nvidia_ctk
