// `nvidia-ctk doctor` (spec/doctor.md §2): flags -> diagnose::Options, run, print, exit code
// 0 (nothing at or above --fail-on), 1 (findings), 2 (doctor could not run).
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "global_options.hpp"
#include "nvct/diagnose/doctor.hpp"

namespace nvct::cmd::nvidia_ctk {

struct DoctorFlags {
  diagnose::Options options;
  std::string root = "/", driver_root, config, docker_config, containerd_config, crio_config,
              crio_drop_in_dir;
  std::string format = "text";
  std::string fail_on = "error";
  std::string color = "auto";
  bool verbose = false;
};

// Runs doctor with parsed flags, writing to `out`/`err`; returns the exit code. `stdout_is_tty`
// decides --color auto.
int run_doctor_command(DoctorFlags flags, std::ostream& out, std::ostream& err, bool stdout_is_tty);

void add_doctor_command(CLI::App& parent, GlobalOptions& globals);

// True when argv names the doctor command, so that main() exits 2 on its flag errors (§2).
bool is_doctor_invocation(int argc, char** argv);

}  // namespace nvct::cmd::nvidia_ctk
