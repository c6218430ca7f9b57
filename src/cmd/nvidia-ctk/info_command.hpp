// `nvidia-ctk info`: the reference's command prints only its help; nvct's prints the version and
// what the toolkit sees on this host (issue 16): config file in use, mode, driver root, driver
// version and GPUs, with doctor's read-only readers (no NVML).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "global_options.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::cmd::nvidia_ctk {

// The text of `nvidia-ctk info` for a host; an error when the root cannot be opened.
Result<std::string> info_text(const diagnose::Options& options);

void add_info_command(CLI::App& parent, GlobalOptions& globals);

}  // namespace nvct::cmd::nvidia_ctk
