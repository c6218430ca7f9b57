#include "info_command.hpp"

#include <iostream>

namespace nvct::cmd::nvidia_ctk {

void add_info_command(CLI::App& parent, GlobalOptions& /*globals*/) {
  CLI::App* info = parent.add_subcommand("info", "Provide information about the system");
  info->callback([info] { std::cout << info->help(); });
}

}  // namespace nvct::cmd::nvidia_ctk
