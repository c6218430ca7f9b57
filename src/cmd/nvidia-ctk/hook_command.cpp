#include "hook_command.hpp"

#include "nvct/cdi_hooks/cli.hpp"

namespace nvct::cmd::nvidia_ctk {

void add_hook_command(CLI::App& parent, GlobalOptions& globals) {
  CLI::App* hook =
      parent.add_subcommand("hook", "A collection of hooks that may be injected into an OCI spec");
  cdi_hooks::add_hook_subcommands(*hook, globals.exit_code);
}

}  // namespace nvct::cmd::nvidia_ctk
