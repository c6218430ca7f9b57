// nvidia-ctk: the NVIDIA Container Toolkit CLI. main() only wires the commands; each lives in its
// own <name>_command.cpp and is added with one add_<name>_command() line below.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cdi_command.hpp"
#include "config_command.hpp"
#include "cuda_command.hpp"
#include "doctor_command.hpp"
#include "empty_values.hpp"
#include "global_options.hpp"
#include "hook_command.hpp"
#include "info_command.hpp"
#include "runtime_command.hpp"
#include "system_command.hpp"

int main(int argc, char** argv) {
  using namespace nvct::cmd::nvidia_ctk;
  try {
    CLI::App app("NVIDIA Container Toolkit CLI", "nvidia-ctk");
    GlobalOptions options;
    add_global_options(app, options);

    add_cdi_command(app, options);
    add_config_command(app, options);
    add_cuda_command(app, options);
    add_doctor_command(app, options);
    add_hook_command(app, options);
    add_info_command(app, options);
    add_runtime_command(app, options);
    add_system_command(app, options);

    // `--drop-in-config=` must mean "empty", as with NVIDIA's CLI (empty_values.hpp).
    std::vector<std::string> args = split_empty_values(argc, argv);
    std::vector<char*> arg_ptrs;
    for (auto& a : args) arg_ptrs.push_back(a.data());
    try {
      app.parse(static_cast<int>(arg_ptrs.size()), arg_ptrs.data());
    } catch (const CLI::ParseError& e) {
      int code = app.exit(e);  // prints help/version, or the parse error
      // Help and version exit 0; every error exits 1, as the reference does. doctor has no
      // reference: its flag errors exit 2, "could not run" (spec/doctor.md §2).
      if (code != 0 && (is_doctor_invocation(argc, argv) || is_cuda_invocation(argc, argv)))
        return 2;
      return code == 0 ? 0 : 1;
    }
    if (app.get_subcommands().empty()) std::cout << app.help();
    return options.exit_code;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "nvidia-ctk: %s\n", e.what());
    return 1;
  }
}
