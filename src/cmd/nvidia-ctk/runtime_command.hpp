// `nvidia-ctk runtime configure` (spec/ctk.md §4): flags -> ctk::ConfigureOptions; the engines
// live in src/ctk.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>

#include "global_options.hpp"
#include "nvct/base/error.hpp"
#include "nvct/ctk/command_runner.hpp"
#include "nvct/ctk/runtime_configure.hpp"

namespace nvct::cmd::nvidia_ctk {

// Validates the options, edits the configuration (or with `remove`, undoes it) and prints what
// goes to stdout.
Status run_runtime_configure(const ctk::ConfigureOptions& options, ctk::CommandRunner& runner,
                             std::ostream& out);

// Adds `runtime` with its `configure` subcommand.
void add_runtime_command(CLI::App& parent, GlobalOptions& globals);

}  // namespace nvct::cmd::nvidia_ctk
