// `nvidia-ctk info`'s facts, from doctor's per-run readers (config, procfs).
#include "nvct/diagnose/host_summary.hpp"

#include <fmt/format.h>

#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/proc_facts.hpp"

namespace nvct::diagnose {

HostSummary summarize_host(Host& host) {
  HostSummary s;
  const ConfigFacts& config = host.config();
  s.config_path = config.path;
  if (!config.present) {
    s.config_state = "absent: built-in defaults";
  } else if (!config.read_error.empty()) {
    s.config_state = config.read_error;
  } else if (!config.parse_error.empty()) {
    s.config_state = config.parse_error;
  } else if (!config.value_error.empty()) {
    s.config_state = config.value_error;
  } else {
    s.config_state = "loaded";
  }
  s.mode = config.config.runtime.mode;
  s.driver_root = host.driver_root_display();
  const ProcFacts& proc = host.proc();
  s.driver_version = proc.driver_version;
  for (const auto& gpu : proc.gpus) {
    s.gpus.push_back({gpu.info.minor, gpu.info.model, gpu.info.uuid, gpu.info.bus_id});
  }
  return s;
}

std::string render_host_summary(const HostSummary& s) {
  std::string out;
  out += fmt::format("Config file: {} ({})\n", s.config_path, s.config_state);
  out += fmt::format("Mode: {}\n", s.mode);
  out += fmt::format("Driver root: {}\n", s.driver_root);
  out += fmt::format("Driver version: {}\n", s.driver_version.empty()
                                                 ? "none (NVIDIA kernel module not loaded)"
                                                 : s.driver_version);
  out += fmt::format("GPUs: {}\n", s.gpus.size());
  for (const auto& gpu : s.gpus) {
    out += fmt::format("  /dev/nvidia{}: {} {} {}\n", gpu.minor, gpu.model, gpu.uuid, gpu.bus_id);
  }
  return out;
}

}  // namespace nvct::diagnose
