#include "configure_options.hpp"

#include <fmt/format.h>

namespace nvct::hook {
namespace {

std::string cuda_compat_mode(const config::Config& cfg) {
  const auto& mode = cfg.runtime.legacy.cuda_compat_mode;
  if (!mode) {
    // The opt-in left after compat libraries stopped being mounted from the image
    // (CVE-2024-0132, CVE-2025-23359): without it nothing from the image is trusted.
    return cfg.features.allow_cuda_compat_libs_from_container ? "" : "disabled";
  }
  if (*mode == "ldconfig" || *mode == "mount") return *mode;
  // "hook" means the runtime's createContainer hook does the work, so the mount library must not.
  return "disabled";
}

void set_capability(mount::ConfigureOptions& o, const std::string& name) {
  if (name == "compat32") o.compat32 = true;
  if (name == "compute") o.compute = true;
  if (name == "display") o.display = true;
  if (name == "graphics") o.graphics = true;
  if (name == "ngx") o.ngx = true;
  if (name == "utility") o.utility = true;
  if (name == "video") o.video = true;
}

}  // namespace

mount::ConfigureOptions configure_options(const config::Config& cfg,
                                          const request::MountRequest& req,
                                          const HookContext& ctx) {
  mount::ConfigureOptions o;
  if (!cfg.cli.root.empty()) o.root = cfg.cli.root;
  o.load_kmods = cfg.cli.load_kmods;
  o.no_create_imex_channels = cfg.features.disable_imex_channel_creation;
  o.no_pivot = cfg.cli.no_pivot;
  o.debug_file = ctx.debug ? "/dev/stderr" : cfg.cli.debug;
  o.ldcache = cfg.cli.ldcache;
  if (!cfg.cli.user.empty()) o.user = cfg.cli.user;

  o.cuda_compat_mode = cuda_compat_mode(cfg);
  o.ldconfig = cfg.cli.ldconfig;
  o.exec_ldconfig = cfg.cli.exec_ldconfig;
  o.no_cgroups = cfg.cli.no_cgroups;
  // "none" gives an empty list: a GPU container without GPUs gets no --device at all.
  if (!req.device_list.empty()) o.devices.push_back(req.device_list);
  if (!req.device_source.empty()) o.devices_source = req.device_source;
  if (!req.mig_config_devices.empty()) o.mig_config = req.mig_config_devices;
  if (!req.mig_monitor_devices.empty()) o.mig_monitor = req.mig_monitor_devices;
  for (auto channel : req.imex_channels) o.imex_channels.push_back(fmt::format("{}", channel));
  for (const auto& cap : req.capabilities) set_capability(o, cap);
  o.requirements = req.requirements;
  o.pid = ctx.pid;
  o.rootfs = ctx.rootfs;
  return o;
}

}  // namespace nvct::hook
