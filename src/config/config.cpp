// The host-dependent defaults of Config (spec/config.md §2-§3).
#include "nvct/config/config.hpp"

#include "nvct/config/host_facts.hpp"
#include "nvct/config/ldconfig.hpp"

namespace nvct::config {

Config default_config(const HostFacts& host) {
  Config config;
  config.cli.ldconfig = normalize_ldconfig(kDefaultLdconfig, host);
  if (is_suse(host)) config.cli.user = "root:video";
  return config;
}

Config default_config() { return default_config(real_host_facts()); }

}  // namespace nvct::config
