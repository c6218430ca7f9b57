#include "info_command.hpp"

#include <iostream>

#include "nvct/diagnose/host_summary.hpp"

namespace nvct::cmd::nvidia_ctk {

Result<std::string> info_text(const diagnose::Options& options) {
  NVCT_ASSIGN_OR_RETURN(diagnose::Host host, diagnose::Host::open(options));
  return version_text() + "\n" + diagnose::render_host_summary(diagnose::summarize_host(host));
}

void add_info_command(CLI::App& parent, GlobalOptions& globals) {
  CLI::App* info = parent.add_subcommand("info", "Provide information about the system");
  info->callback([&globals] {
    diagnose::Options options;
    // The config every nvidia-ctk command reads (--config, $NVIDIA_CTK_CONFIG, the default).
    options.config = globals.effective_config_path();
    auto text = info_text(options);
    if (!text) {
      globals.report(Status(tl::unexpected(text.error())));
      return;
    }
    std::cout << *text;
  });
}

}  // namespace nvct::cmd::nvidia_ctk
