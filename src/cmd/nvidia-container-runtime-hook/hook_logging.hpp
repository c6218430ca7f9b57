// Where the hook's log goes (spec/hook.md §5 row 5): with -debug to stderr, else to the
// configured nvidia-container-cli.debug file, else nowhere. runc puts a failing hook's whole
// stderr into its error message, so without -debug stderr carries only the final error line.
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::hook {

// Installs the sink. A debug file that cannot be opened is reported, never fatal.
Status install_hook_logging(bool debug_flag, const std::string& debug_file);

// Writes one line to stderr.
void print_stderr_line(std::string_view line);

}  // namespace nvct::hook
