// Family `cgroups` (spec/doctor.md §3.7): the cgroup version, and nvidia-container-cli.no-cgroups
// against the engines that run: a rootless engine cannot have the hook edit device cgroups, a
// rootful one needs it for hook-only devices.
#include <sys/stat.h>

#include <fmt/format.h>

#include "nvct/base/strings.hpp"
#include "nvct/diagnose/config_facts.hpp"
#include "nvct/diagnose/engine_facts.hpp"
#include "nvct/diagnose/families.hpp"
#include "nvct/mount/cgroup.hpp"

namespace nvct::diagnose {
namespace {

struct CgroupLayout {
  std::string version;  // "v1", "v2", "hybrid", "unknown"
  std::string evidence;
};

CgroupLayout detect(Host& host) {
  // mountinfo: a v1 "devices" hierarchy decides v1 (hybrid when a cgroup2 mount sits beside it).
  if (auto mountinfo = host.read("/proc/self/mountinfo", 4u << 20)) {
    bool v1_devices = false, v2 = false;
    for (const auto& line : strings::split(*mountinfo, '\n')) {
      auto sep = line.find(" - ");
      if (sep == std::string::npos) continue;
      auto fields = strings::split(line.substr(sep + 3), ' ');
      if (fields.empty()) continue;
      if (fields[0] == "cgroup2") v2 = true;
      if (fields[0] == "cgroup" && fields.size() >= 3) {
        for (const auto& opt : strings::split(fields[2], ',')) {
          if (opt == "devices") v1_devices = true;
        }
      }
    }
    if (v1_devices || v2) {
      std::string version = v1_devices ? (v2 ? "hybrid" : "v1") : "v2";
      return {version, fmt::format("/proc/self/mountinfo: {}",
                                   v1_devices ? (v2 ? "cgroup v1 devices hierarchy and a cgroup2 "
                                                      "mount"
                                                    : "cgroup v1 devices hierarchy")
                                              : "cgroup2 mount only")};
    }
  }
  if (host.exists("/sys/fs/cgroup/cgroup.controllers")) {
    return {"v2", "/sys/fs/cgroup/cgroup.controllers: present"};
  }
  if (auto cgroup = host.read("/proc/self/cgroup", 1u << 20)) {
    if (auto v = mount::detect_cgroup_version(*cgroup)) {
      return {*v == mount::CgroupVersion::kV1 ? "v1" : "v2", "/proc/self/cgroup"};
    }
  }
  return {"unknown", "/proc/self/mountinfo, /sys/fs/cgroup: no cgroup mount found"};
}

// Rootless engines: a per-user Docker socket or config, or a user's containers config.
std::vector<std::string> rootless_engines(Host& host) {
  std::vector<std::string> out;
  for (const auto& uid : host.list_dir("/run/user")) {
    std::string sock = fmt::format("/run/user/{}/docker.sock", uid);
    if (host.lstat(sock)) out.push_back(sock + ": rootless Docker");
  }
  for (const auto& user : host.list_dir("/home")) {
    std::string daemon = fmt::format("/home/{}/.config/docker/daemon.json", user);
    if (host.exists(daemon)) out.push_back(daemon + ": rootless Docker");
    std::string containers = fmt::format("/home/{}/.config/containers", user);
    if (is_dir(host, containers)) out.push_back(containers + ": rootless Podman");
  }
  return out;
}

std::vector<std::string> rootful_engines(Host& host) {
  std::vector<std::string> out;
  const EngineFacts& engines = host.engines();
  for (const auto* engine : {&engines.docker, &engines.containerd, &engines.crio}) {
    if (engine->config_exists)
      out.push_back(fmt::format("{}: {} config", engine->config_path, engine->name));
  }
  for (const char* sock :
       {"/run/docker.sock", "/run/containerd/containerd.sock", "/run/crio/crio.sock"}) {
    if (host.lstat(sock)) out.push_back(fmt::format("{}: present", sock));
  }
  return out;
}

}  // namespace

std::vector<Finding> check_cgroups(Host& host) {
  std::vector<Finding> out;
  CgroupLayout layout = detect(host);
  out.push_back({"cgroups.version",
                 Severity::kInfo,
                 fmt::format("cgroup {}", layout.version),
                 {layout.evidence},
                 ""});

  const ConfigFacts& config = host.config();
  const bool no_cgroups = config.config.cli.no_cgroups;
  auto rootless = rootless_engines(host);
  if (!rootless.empty() && !no_cgroups) {
    auto evidence = rootless;
    evidence.push_back(fmt::format("{}: nvidia-container-cli.no-cgroups = false", config.path));
    out.push_back({"cgroups.rootless-needs-no-cgroups", Severity::kWarn,
                   "a rootless engine is installed and the hook edits device cgroups: it fails "
                   "there (bpf_prog_query … operation not permitted)",
                   std::move(evidence),
                   "nvidia-ctk config --set nvidia-container-cli.no-cgroups=true --in-place — "
                   "only if the host runs rootless engines alone; prefer CDI for Podman"});
  }
  auto rootful = rootful_engines(host);
  if (no_cgroups && !rootful.empty()) {
    auto evidence = rootful;
    evidence.push_back(fmt::format("{}: nvidia-container-cli.no-cgroups = true", config.path));
    out.push_back({"cgroups.no-cgroups-rootful", Severity::kWarn,
                   "no-cgroups = true with a rootful engine: devices the hook adds (docker "
                   "--gpus) are denied by the device cgroup",
                   std::move(evidence),
                   "nvidia-ctk config --set nvidia-container-cli.no-cgroups=false --in-place"});
  }
  add_ok_unless_worse(
      out, "cgroups",
      fmt::format("cgroup {}, no-cgroups = {}", layout.version, no_cgroups ? "true" : "false"));
  return out;
}

}  // namespace nvct::diagnose
