// ContainerEdits helpers.
#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

bool ContainerEdits::empty() const {
  return env.empty() && device_nodes.empty() && net_devices.empty() && hooks.empty() &&
         mounts.empty() && !intel_rdt.has_value() && additional_gids.empty();
}

void ContainerEdits::append(const ContainerEdits& other) {
  env.insert(env.end(), other.env.begin(), other.env.end());
  device_nodes.insert(device_nodes.end(), other.device_nodes.begin(), other.device_nodes.end());
  net_devices.insert(net_devices.end(), other.net_devices.begin(), other.net_devices.end());
  hooks.insert(hooks.end(), other.hooks.begin(), other.hooks.end());
  mounts.insert(mounts.end(), other.mounts.begin(), other.mounts.end());
  if (other.intel_rdt) intel_rdt = other.intel_rdt;
  additional_gids.insert(additional_gids.end(), other.additional_gids.begin(),
                         other.additional_gids.end());
}

}  // namespace nvct::cdi
