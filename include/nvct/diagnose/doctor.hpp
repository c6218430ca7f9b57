// `nvidia-ctk doctor` as a library call: open the host, run the selected families in order,
// collect the findings and the exit code (spec/doctor.md §1-§2).
#pragma once

#include <string>
#include <vector>

#include "nvct/base/error.hpp"
#include "nvct/diagnose/finding.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {

struct Report {
  std::string root, driver_root, config, docker_config, containerd_config, crio_config;
  std::vector<std::string> cdi_spec_dirs;
  std::vector<Finding> findings;
  long duration_ms = 0;
};

// Fails (exit 2) when the root is not a directory or --only/--skip name an unknown family.
Result<Report> run_doctor(const Options& options);

struct Summary {
  int error = 0, warn = 0, info = 0, ok = 0;
};
Summary summarize(const std::vector<Finding>& findings);

// 1 when a finding is at or above `fail_on` (kError or kWarn), else 0.
int exit_code(const Report& report, Severity fail_on);

}  // namespace nvct::diagnose
