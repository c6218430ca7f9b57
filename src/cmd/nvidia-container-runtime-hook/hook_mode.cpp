#include "hook_mode.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "nvct/base/file.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/request/cdi_name.hpp"

namespace nvct::hook {
namespace {

bool only_qualified_cdi_names(const request::Request& req) {
  if (!req.devices || req.devices->empty()) return false;
  for (const auto& device : *req.devices) {
    if (!request::is_qualified_name(device)) return false;
  }
  return true;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

ModeDecision resolve_hook_mode(const std::string& configured, const request::Request& req,
                               const PlatformFacts& platform) {
  if (configured != "auto") {
    return {configured, fmt::format("Using requested mode '{}'", configured)};
  }
  std::string mode = "legacy";
  if (only_qualified_cdi_names(req)) {
    mode = "cdi";
  } else if (platform.tegra_files && !platform.nvml) {
    mode = "csv";
  }
  return {mode, fmt::format("Auto-detected mode as '{}'", mode)};
}

Result<std::optional<ModeDecision>> assert_legacy_mode(const config::Config& cfg,
                                                       const request::Request& req,
                                                       const PlatformFacts& platform) {
  if (cfg.hook.skip_mode_detection) return std::optional<ModeDecision>{};
  auto decision = resolve_hook_mode(cfg.runtime.mode, req, platform);
  if (decision.mode != "legacy") {
    return fail(EINVAL, fmt::format("{}\n{}", decision.line, kDirectInvocationError));
  }
  return std::optional<ModeDecision>{std::move(decision)};
}

PlatformFacts probe_platform(const std::string& driver_root) {
  PlatformFacts facts;
  facts.tegra_files = exists("/etc/nv_tegra_release");
  if (!facts.tegra_files) {
    auto family = read_file("/sys/devices/soc0/family", 4096);
    facts.tegra_files = family && strings::to_lower(strings::trim(*family)) == "tegra";
  }
  std::string root = driver_root.empty() ? "/" : driver_root;
  if (root.back() != '/') root += '/';
  for (const char* dir : {"usr/lib/x86_64-linux-gnu", "usr/lib/aarch64-linux-gnu", "usr/lib64",
                          "usr/lib", "lib/x86_64-linux-gnu", "lib/aarch64-linux-gnu", "lib64"}) {
    if (exists(fmt::format("{}{}/libnvidia-ml.so.1", root, dir))) {
      facts.nvml = true;
      break;
    }
  }
  return facts;
}

}  // namespace nvct::hook
