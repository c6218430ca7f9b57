// `nvidia-ctk info` (spec/ctk.md §3): the reference's command has no action and no
// subcommands, so it prints its help and exits 0.
#pragma once

#include <CLI/CLI.hpp>

#include "global_options.hpp"

namespace nvct::cmd::nvidia_ctk {

void add_info_command(CLI::App& parent, GlobalOptions& globals);

}  // namespace nvct::cmd::nvidia_ctk
