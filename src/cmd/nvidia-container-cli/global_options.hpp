// Global options of nvidia-container-cli (cli.md §3); they come before the command.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "argp.hpp"
#include "nvct/base/error.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace nvct::cli {

struct GlobalOptions {
  std::string debug_file;  // --debug, else $NVC_DEBUG_FILE
  bool load_kmods = false;
  bool no_pivot = false;  // used by configure's ldconfig child
  bool user_given = false;
  std::string user;  // --user value ("" = euid:egid)
  std::string root = "/";
  std::string ldcache = "/etc/ld.so.cache";
  bool no_create_imex_channels = false;
  bool help = false, usage = false, version = false;
  std::vector<std::string> command;  // the command and its arguments
};

const std::vector<OptionSpec>& global_option_specs();
Result<GlobalOptions> parse_global_options(const std::vector<std::string>& args);

// The NVML user: --user (UID[:GID], names allowed; empty = euid:egid) or the reference's
// default overflowuid:overflowgid.
Result<driver::NvmlUser> resolve_nvml_user(const GlobalOptions& g);

// Installs a glog-style file log sink when a debug file is set ("I1122 01:38:45.286374 29233
// nvidia-container-cli] message").
Status install_debug_log(const GlobalOptions& g);

}  // namespace nvct::cli
