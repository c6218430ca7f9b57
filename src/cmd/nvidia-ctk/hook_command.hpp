// `nvidia-ctk hook <name>` (spec/ctk.md §3): the CDI hooks of nvidia-cdi-hook, same code.
#pragma once

#include <CLI/CLI.hpp>

#include "global_options.hpp"

namespace nvct::cmd::nvidia_ctk {

void add_hook_command(CLI::App& parent, GlobalOptions& globals);

}  // namespace nvct::cmd::nvidia_ctk
