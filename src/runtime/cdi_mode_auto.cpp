#include "nvct/runtime/cdi_mode_auto.hpp"

#include "nvct/base/log.hpp"
#include "nvct/base/strings.hpp"
#include "nvct/driver/driver_root.hpp"
#include "nvct/driver/ldcache.hpp"
#include "nvct/driver/libraries.hpp"
#include "nvct/request/cdi_name.hpp"
#include "nvct/request/request.hpp"

namespace nvct::runtime {

bool only_qualified_cdi_devices(const std::optional<std::vector<std::string>>& devices) {
  if (!devices) return false;
  bool any = false;
  for (const auto& d : *devices) {
    if (d.empty()) continue;  // the slot of a duplicate
    if (!request::is_qualified_name(d)) return false;
    any = true;
  }
  return any;
}

AutoMode resolve_auto_mode(const std::optional<std::vector<std::string>>& devices,
                           const PlatformFacts& p) {
  if (only_qualified_cdi_devices(devices)) return AutoMode::kCdi;
  if (p.integrated_gpu) return AutoMode::kCsv;
  if (p.nvml || p.dxcore) return AutoMode::kJitCdi;
  if (p.tegra_files) return AutoMode::kCsv;
  return AutoMode::kJitCdi;
}

PlatformFacts probe_platform(const std::string& driver_root) {
  PlatformFacts p;
  auto root = driver::DriverRoot::open(driver_root.empty() ? "/" : driver_root);
  if (!root) {
    log::warn("platform detection: {}", root.error().message());
    return p;
  }
  std::optional<driver::LdCache> cache;
  if (auto data = root->read("/etc/ld.so.cache", 64u << 20)) {
    if (auto parsed = driver::parse_ldcache(*data)) cache = std::move(*parsed);
  }
  const driver::LdCache* c = cache ? &*cache : nullptr;
  auto arch = driver::native_ldcache_arch();
  p.nvml = driver::find_library(c, *root, arch, "libnvidia-ml.so.1").has_value();
  p.dxcore = driver::find_library(c, *root, arch, "libdxcore.so").has_value();
  p.tegra_files = root->exists("/etc/nv_tegra_release");
  if (auto family = root->read("/sys/devices/soc0/family", 4096))
    p.tegra_files = p.tegra_files || strings::to_lower(strings::trim(*family)) == "tegra";
  log::debug("platform: nvml={} dxcore={} tegra={}", p.nvml, p.dxcore, p.tegra_files);
  return p;
}

Result<Mode> resolve_auto_mode_for_spec(const nlohmann::ordered_json& spec,
                                        const config::Config& cfg) {
  NVCT_ASSIGN_OR_RETURN(auto req, with_context(request::from_spec(spec, cfg, {.cdi_mode = true}),
                                               "read the GPU request for mode auto"));
  // Platform detection is only needed when the request alone does not decide.
  if (only_qualified_cdi_devices(req.devices)) {
    log::info("mode auto resolved to cdi: only fully-qualified CDI devices are requested");
    return Mode::kCdi;
  }
  switch (resolve_auto_mode(req.devices, probe_platform(cfg.cli.root))) {
    case AutoMode::kCdi:
      return Mode::kCdi;
    case AutoMode::kJitCdi:
      log::info("mode auto resolved to jit-cdi");
      return Mode::kJitCdi;
    case AutoMode::kCsv:
      log::info("mode auto resolved to csv (Tegra platform)");
      return Mode::kCsv;
  }
  return Mode::kJitCdi;
}

}  // namespace nvct::runtime
