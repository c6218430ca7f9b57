// Options shared by every nvidia-ctk command (spec/ctk.md §1), and the outcome of the run.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "nvct/base/error.hpp"

namespace nvct::cmd::nvidia_ctk {

struct GlobalOptions {
  bool debug = false;  // --debug/-d, $NVIDIA_CTK_DEBUG
  bool quiet = false;  // --quiet, $NVIDIA_CTK_QUIET; wins over debug
  // --config, $NVIDIA_CTK_CONFIG: the config.toml that commands such as `cdi generate` read.
  // "" means config::default_path().
  std::string config_path;
  int exit_code = 0;

  // The config file commands should read.
  std::string effective_config_path() const;
  // Logs the error (level=error, as the reference) and makes the program exit 1.
  void report(const Status& status);
};

// "NVIDIA Container Toolkit CLI version <v>\ncommit: <sha>", the reference's layout.
std::string version_text();

// Adds --debug, --quiet, --config and --version to the top-level app, and installs the stderr
// log sink (level set from debug/quiet once parsing is complete, before any command runs).
void add_global_options(CLI::App& app, GlobalOptions& options);

// Installs the stderr sink (logrus text format) at the level the options ask for.
void configure_logging(const GlobalOptions& options);

}  // namespace nvct::cmd::nvidia_ctk
