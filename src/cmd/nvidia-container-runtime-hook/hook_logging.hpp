// Where the hook's log goes (spec/hook.md §5 row 5): with -debug to stderr, else to the
// configured nvidia-container-cli.debug file (each line with the UTC time and pid), else
// nowhere. runc puts a failing hook's whole stderr into its error message, so without -debug
// stderr carries only the final error line.
#pragma once

#include <string>
#include <string_view>

#include "nvct/base/error.hpp"

namespace nvct::hook {

// Installs the sink. A debug file that cannot be opened is reported, never fatal.
Status install_hook_logging(bool debug_flag, const std::string& debug_file);

// "2026-11-26T09:05:06.123456Z nvidia-container-runtime-hook[<pid>]": how each line of the log
// file starts (lines on stderr start with the program name only).
std::string log_line_prefix();

// Writes one line to stderr.
void print_stderr_line(std::string_view line);

}  // namespace nvct::hook
