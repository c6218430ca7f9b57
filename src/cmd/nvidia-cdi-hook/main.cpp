// nvidia-cdi-hook: the hooks that CDI specs inject (spec/cdi.md §8). main() only wires the
// logging options and the hook subcommands shared with `nvidia-ctk hook`.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <cstdio>
#include <exception>

#include "nvct/base/log.hpp"
#include "nvct/base/version_info.hpp"
#include "nvct/cdi_hooks/cli.hpp"
#include "stderr_sink.hpp"

int main(int argc, char** argv) {
  try {
    nvct::log::set_sink(nvct::cmd::cdi_hook::make_stderr_sink());
    nvct::log::set_level(nvct::log::Level::kInfo);
    CLI::App app("NVIDIA CDI hooks", "nvidia-cdi-hook");
    // Its own name and the nvct version, as every binary's --version (spec/packaging.md §4.1).
    app.set_version_flag("-v,--version",
                         fmt::format("NVIDIA CDI Hook version {}\ncommit: {}", nvct::kVersion,
                                     nvct::kGitCommit),
                         "print the version");
    bool debug = false, quiet = false;
    app.add_flag("-d,--debug", debug, "Enable debug-level logging")->envname("NVIDIA_CTK_DEBUG");
    app.add_flag("--quiet", quiet, "Suppress all output except for errors")
        ->envname("NVIDIA_CTK_QUIET");
    app.parse_complete_callback([&] {
      nvct::log::set_level(quiet   ? nvct::log::Level::kError
                           : debug ? nvct::log::Level::kDebug
                                   : nvct::log::Level::kInfo);
    });
    int exit_code = 0;
    nvct::cdi_hooks::add_hook_subcommands(app, exit_code);
    try {
      app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
      return app.exit(e) == 0 ? 0 : 1;
    }
    return exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvidia-cdi-hook: %s\n", e.what());
    return 1;
  }
}
