// The commands of nvidia-container-cli. Each takes the global options and the command's own
// arguments, writes its output to stdout and returns an error whose message starts with the
// stage ("initialization error: ..."); main() prefixes "nvidia-container-cli: ".
#pragma once

#include <string>
#include <vector>

#include "global_options.hpp"
#include "nvct/base/error.hpp"

namespace nvct::cli {

Status run_info(const GlobalOptions& g, const std::vector<std::string>& args);
Status run_list(const GlobalOptions& g, const std::vector<std::string>& args);
// `configure` (the mount library's front end) joins here when the mount module provides it.

void print_version();

}  // namespace nvct::cli
