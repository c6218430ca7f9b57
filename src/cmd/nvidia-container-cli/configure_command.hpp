// `nvidia-container-cli configure [OPTION...] ROOTFS` (cli.md §4): parses the options into
// mount::ConfigureOptions and runs the shared configure job.
#pragma once

#include <string>
#include <vector>

#include "global_options.hpp"
#include "nvct/base/error.hpp"
#include "nvct/mount/configure.hpp"

namespace nvct::cli {

// Parses the command's arguments on top of the global options. Usage errors are argp's.
// Returns nullopt for --help (already printed).
Result<std::optional<mount::ConfigureOptions>> parse_configure_options(
    const GlobalOptions& g, const std::vector<std::string>& args);

Status run_configure(const GlobalOptions& g, const std::vector<std::string>& args);

}  // namespace nvct::cli
