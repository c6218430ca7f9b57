#include "nvct/cdi/feature_flags.hpp"

#include <algorithm>

#include "nvct/base/strings.hpp"

namespace nvct::cdi {

ParsedFeatureFlags parse_feature_flags(const std::vector<std::string>& items) {
  ParsedFeatureFlags out;
  FeatureFlags& f = out.flags;
  for (const auto& item : items) {
    for (const auto& name : strings::split_trimmed(item, ',')) {
      if (name.empty()) continue;
      if (name == "enable-explicit-driver-libraries") {
        f.explicit_driver_libraries = true;
      } else if (name == "disable-nvsandboxutils") {
        f.disable_nvsandboxutils = true;
      } else if (name == "enable-coherent-annotations") {
        f.coherent_annotations = true;
      } else if (name == "disable-multiple-csv-devices") {
        f.disable_multiple_csv_devices = true;
      } else if (name == "no-additional-gids-for-device-nodes") {
        f.no_additional_gids_for_device_nodes = true;
      } else if (name == "disable-ipc-discoverer") {
        f.disable_ipc_discoverer = true;
      } else if (std::find(out.unknown.begin(), out.unknown.end(), name) == out.unknown.end()) {
        out.unknown.push_back(name);
      }
    }
  }
  return out;
}

}  // namespace nvct::cdi
