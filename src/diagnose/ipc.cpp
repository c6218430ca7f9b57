// Family `ipc` (spec/doctor.md §3.8): the daemons whose sockets the toolkit mounts only when they
// exist (driver.md §4): nvidia-persistenced, and nvidia-fabricmanager on NVSwitch systems.
#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/diagnose/proc_facts.hpp"

namespace nvct::diagnose {
namespace {

// The socket path that exists, "/run/<daemon>/socket" or the "/var/run" form, or "".
std::string socket_of(Host& host, std::string_view daemon) {
  for (const char* base : {"/run", "/var/run"}) {
    std::string path = fmt::format("{}/{}/socket", base, daemon);
    if (host.lstat(path)) return path;
  }
  return "";
}

// Datacenter GPUs by model name (unverified list: the Tesla brand and the data-centre product
// lines), where a GPU without persistence mode re-initialises on every container start.
bool is_datacenter_model(std::string_view model) {
  for (std::string_view prefix :
       {"Tesla", "NVIDIA A100", "NVIDIA A30", "NVIDIA A40", "NVIDIA A10", "NVIDIA H100",
        "NVIDIA H200", "NVIDIA H800", "NVIDIA GH", "NVIDIA B100", "NVIDIA B200", "NVIDIA GB",
        "NVIDIA L4", "NVIDIA L40"}) {
    if (strings::starts_with(model, prefix)) return true;
  }
  return false;
}

}  // namespace

std::vector<Finding> check_ipc(Host& host) {
  std::vector<Finding> out;
  const ProcFacts& proc = host.proc();
  if (!proc.module_loaded) {
    add_ok_unless_worse(out, "ipc", "no NVIDIA kernel module: daemons not checked");
    return out;
  }
  std::vector<std::string> evidence;

  // ipc.persistenced-missing
  std::string persistenced = socket_of(host, "nvidia-persistenced");
  if (persistenced.empty()) {
    std::string datacenter;
    for (const auto& gpu : proc.gpus) {
      if (is_datacenter_model(gpu.info.model)) datacenter = gpu.info.model;
    }
    std::vector<std::string> ev = {"/run/nvidia-persistenced/socket: absent",
                                   "/var/run/nvidia-persistenced/socket: absent"};
    if (!datacenter.empty())
      ev.push_back(fmt::format("GPU model {}: a datacenter GPU", datacenter));
    out.push_back({"ipc.persistenced-missing",
                   datacenter.empty() ? Severity::kInfo : Severity::kWarn,
                   "nvidia-persistenced is not running: containers get no persistenced socket",
                   std::move(ev), "systemctl enable --now nvidia-persistenced"});
  } else {
    evidence.push_back(persistenced + ": present");
  }

  // ipc.fabricmanager-missing
  // The driver registers the nvidia-nvswitch major on every host (an H200 VM without NVSwitch
  // has it, with an empty /proc/driver/nvidia-nvswitch/devices): a switch shows as a device.
  std::string nvswitch;
  if (proc.major_of("nvidia-nvswitch")) {
    for (const auto& name : host.list_dir("/proc/driver/nvidia-nvswitch/devices")) {
      nvswitch = "/proc/driver/nvidia-nvswitch/devices/" + name + ": present";
      break;
    }
  }
  if (nvswitch.empty()) {
    for (const auto& name : host.list_dir("/dev")) {
      if (strings::starts_with(name, "nvidia-nvswitch") && name != "nvidia-nvswitchctl") {
        nvswitch = "/dev/" + name + ": present";
        break;
      }
    }
  }
  if (!nvswitch.empty()) {
    std::string fabricmanager = socket_of(host, "nvidia-fabricmanager");
    if (fabricmanager.empty()) {
      out.push_back({"ipc.fabricmanager-missing",
                     Severity::kError,
                     "NVSwitch system without nvidia-fabricmanager: CUDA reports \"system not yet "
                     "initialized\"",
                     {nvswitch, "/run/nvidia-fabricmanager/socket: absent"},
                     "systemctl enable --now nvidia-fabricmanager"});
    } else {
      evidence.push_back(fabricmanager + ": present");
    }
  }
  add_ok_unless_worse(out, "ipc",
                      nvswitch.empty() ? "daemon sockets checked (no NVSwitch)"
                                       : "daemon sockets checked (NVSwitch system)",
                      std::move(evidence));
  return out;
}

}  // namespace nvct::diagnose
