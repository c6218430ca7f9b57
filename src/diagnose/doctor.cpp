// run_doctor: the families of spec/doctor.md §3 in order, sequentially, on one Host whose facts
// are read once and shared.
#include "nvct/diagnose/doctor.hpp"

#include <fmt/format.h>
#include <chrono>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/families.hpp"

namespace nvct::diagnose {
namespace {

using Check = std::vector<Finding> (*)(Host&);

Check check_of(std::string_view family) {
  if (family == "driver") return check_driver;
  if (family == "devices") return check_devices;
  if (family == "config") return check_config;
  if (family == "engines") return check_engines;
  if (family == "binaries") return check_binaries;
  if (family == "cdi") return check_cdi;
  if (family == "cgroups") return check_cgroups;
  if (family == "ipc") return check_ipc;
  if (family == "mig") return check_mig;
  if (family == "imex") return check_imex;
  return nullptr;
}

Status check_families(const std::vector<std::string>& names, std::string_view flag) {
  for (const auto& name : names) {
    if (!is_family(name)) {
      std::vector<std::string> known(family_names().begin(), family_names().end());
      return fail(EINVAL, fmt::format("{} {}: unknown check family; valid families: {}", flag, name,
                                      strings::join(known, ", ")));
    }
  }
  return ok();
}

bool contains(const std::vector<std::string>& list, std::string_view name) {
  for (const auto& item : list) {
    if (item == name) return true;
  }
  return false;
}

}  // namespace

Result<Report> run_doctor(const Options& options) {
  auto start = std::chrono::steady_clock::now();
  NVCT_TRY(check_families(options.only, "--only"));
  NVCT_TRY(check_families(options.skip, "--skip"));
  NVCT_ASSIGN_OR_RETURN(Host host, Host::open(options));

  Report report;
  report.root = options.root;
  report.config = host.config_file().path;
  report.driver_root = host.driver_root_display();
  report.docker_config = host.docker_config().path;
  report.containerd_config = host.containerd_config().path;
  report.crio_config = host.crio_config().path;
  report.cdi_spec_dirs = options.cdi_spec_dirs.empty() ? host.config().config.runtime.cdi.spec_dirs
                                                       : options.cdi_spec_dirs;

  for (std::string_view family : family_names()) {
    if (!options.only.empty() && !contains(options.only, family)) continue;
    if (contains(options.skip, family)) continue;
    Check check = check_of(family);
    if (check == nullptr) continue;
    auto findings = check(host);
    for (auto& f : findings) report.findings.push_back(std::move(f));
  }
  report.duration_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                           std::chrono::steady_clock::now() - start)
                           .count();
  return report;
}

Summary summarize(const std::vector<Finding>& findings) {
  Summary s;
  for (const auto& f : findings) {
    switch (f.severity) {
      case Severity::kError:
        ++s.error;
        break;
      case Severity::kWarn:
        ++s.warn;
        break;
      case Severity::kInfo:
        ++s.info;
        break;
      case Severity::kOk:
        ++s.ok;
        break;
    }
  }
  return s;
}

int exit_code(const Report& report, Severity fail_on) {
  for (const auto& f : report.findings) {
    if (f.severity == Severity::kError) return 1;
    if (fail_on == Severity::kWarn && f.severity == Severity::kWarn) return 1;
  }
  return 0;
}

}  // namespace nvct::diagnose
