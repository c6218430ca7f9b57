// The kernel's view of the NVIDIA driver, from <root>/proc (driver.md §6, §11 fallback).
#include "nvct/diagnose/proc_facts.hpp"

#include <fmt/format.h>
#include <algorithm>
#include <cerrno>

#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {

std::optional<unsigned> ProcFacts::major_of(const std::string& name) const {
  auto it = majors.find(name);
  if (it == majors.end()) return std::nullopt;
  return it->second;
}

std::optional<unsigned> ProcFacts::nvidia_major() const {
  if (auto m = major_of("nvidia-frontend")) return m;
  return major_of("nvidia");
}

ProcFacts read_proc_facts(const Host& host) {
  ProcFacts facts;
  auto version = host.read(driver::kProcDriverVersion);
  if (version) {
    facts.module_loaded = true;
    auto parsed = driver::parse_proc_driver_version(*version);
    if (parsed) {
      facts.driver_version = *parsed;
    } else {
      facts.version_error = parsed.error().message();
    }
  } else if (version.error().code() != ENOENT) {
    // Present but unreadable still means the module is loaded.
    facts.module_loaded = host.stat(driver::kProcDriverVersion).has_value();
    facts.version_error = version.error().message();
  }

  if (auto devices = host.read(driver::kProcDevices)) {
    facts.devices_readable = true;
    facts.majors = driver::parse_proc_devices(*devices);
  }

  for (const auto& bus : host.list_dir(driver::kProcGpus)) {
    std::string dir = fmt::format("{}/{}", driver::kProcGpus, bus);
    auto text = host.read(dir + "/information");
    if (!text) {
      facts.gpu_errors.push_back(fmt::format("{}/information: {}", dir, text.error().message()));
      continue;
    }
    auto info = driver::parse_proc_gpu_information(*text);
    if (!info) {
      facts.gpu_errors.push_back(fmt::format("{}/information: {}", dir, info.error().message()));
      continue;
    }
    facts.gpus.push_back({dir, *info});
  }
  std::sort(facts.gpus.begin(), facts.gpus.end(),
            [](const ProcGpu& a, const ProcGpu& b) { return a.info.bus_id < b.info.bus_id; });
  return facts;
}

}  // namespace nvct::diagnose
