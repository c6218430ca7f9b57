#include "nvct/cdi/generate_discovery.hpp"

#include "nvct/cdi/generate_wsl.hpp"
#include "nvct/cdi/inject.hpp"
#include "nvct/driver/facts_cache.hpp"
#include "nvct/driver/libraries.hpp"
#include "nvct/driver/nvml_process.hpp"

namespace nvct::cdi {

Result<driver::DriverInfo> discover_driver_for_cdi(const CdiDiscovery& options) {
  driver::DiscoverOptions o;
  o.root = options.driver_root.empty() ? "/" : options.driver_root;
  HostDeviceLookup lookup;
  if (options.detect_wsl && is_wsl_root(o.root, o.root, lookup)) {
    driver::DriverInfo info;
    info.root = o.root;
    return info;
  }
  if (auto user = driver::default_nvml_user()) o.nvml_user = *user;
  o.binary_names = &driver::cdi_binary_names();
  driver::NvmlQuery nvml = options.nvml;
  if (!nvml) {
    nvml = driver::isolated_nvml_query(o.nvml_user);
    if (options.facts_cache) nvml = driver::cached_nvml_query(std::move(nvml));
  }
  NVCT_ASSIGN_OR_RETURN(auto ctx, with_context(driver::initialize_driver(o, nvml),
                                               "failed to initialize the driver at " + o.root));
  NVCT_ASSIGN_OR_RETURN(auto info, with_context(driver::discover_driver(ctx, o),
                                                "failed to discover the driver at " + o.root));
  add_cdi_libraries(info, ctx.root, ctx.ldcache ? &*ctx.ldcache : nullptr, options.libraries);
  return info;
}

Result<driver::DriverInfo> discover_driver_for_cdi(const std::string& driver_root) {
  CdiDiscovery options;
  options.driver_root = driver_root;
  return discover_driver_for_cdi(options);
}

}  // namespace nvct::cdi
