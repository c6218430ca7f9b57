// nvidia-container-cli: query the driver (`info`, `list`) and, with `configure`, set up a
// container. Steps: parse the global options, install the debug log, dispatch the command.
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "configure_command.hpp"
#include "global_options.hpp"

namespace {

constexpr int kUsageExit = 64;  // argp's EX_USAGE
constexpr const char* kProgram = "nvidia-container-cli";

int usage_error(const std::string& msg) {
  fmt::print(stderr, "{}: {}\nTry `{} --help' or `{} --usage' for more information.\n", kProgram,
             msg, kProgram, kProgram);
  return kUsageExit;
}

struct Command {
  const char* name;
  nvct::Status (*run)(const nvct::cli::GlobalOptions&, const std::vector<std::string>&);
};

// The command table. `configure` is added here (with its run function declared in commands.hpp)
// by the mount module's front end.
constexpr Command kCommands[] = {
    {"info", nvct::cli::run_info},
    {"list", nvct::cli::run_list},
    {"configure", nvct::cli::run_configure},
};

int run(int argc, char** argv) {
  using namespace nvct::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  auto g = parse_global_options(args);
  if (!g) return usage_error(g.error().message());
  if (g->help || g->usage) {
    std::fputs(
        format_help("nvidia-container-cli [OPTION...] COMMAND [ARG...]",
                    "Commands:\n  info       Report information about the driver and devices\n"
                    "  list       List driver components\n"
                    "  configure  Configure a container with GPU support\n",
                    global_option_specs())
            .c_str(),
        stdout);
    return 0;
  }
  if (g->version) {
    print_version();
    return 0;
  }
  if (g->command.empty()) return usage_error("missing command");
  if (auto st = install_debug_log(*g); !st) {
    fmt::print(stderr, "{}: initialization error: {}\n", kProgram, st.error().message());
    return 1;
  }
  const std::string& name = g->command.front();
  for (const auto& c : kCommands) {
    if (name != c.name) continue;
    std::vector<std::string> rest(g->command.begin() + 1, g->command.end());
    auto st = c.run(*g, rest);
    if (!st) {
      fmt::print(stderr, "{}: {}\n", kProgram, st.error().message());
      return 1;
    }
    return 0;
  }
  return usage_error(fmt::format("unknown command -- '{}'", name));
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: unexpected error: {}\n", kProgram, e.what());
    return 1;
  }
}
