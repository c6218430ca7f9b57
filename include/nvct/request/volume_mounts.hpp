// Device requests as volume mounts under /var/run/nvidia-container-devices (spec/request.md §3),
// the Kubernetes device plugin's `volume-mounts` strategy, and CDI annotations (§1.1).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "nvct/request/spec_fields.hpp"

namespace nvct::request {

inline constexpr std::string_view kDeviceListMountRoot = "/var/run/nvidia-container-devices";

struct MountRequests {
  std::vector<std::string> devices;        // ids and CDI names ("vendor/class=name"), in order
  std::vector<std::string> imex_channels;  // from imex/<ch>
};

// Mounts whose cleaned source is /dev/null and whose cleaned destination starts with the root;
// the remainder (trimmed of '/') is the request. Empty remainders and repeated destinations are
// ignored; cdi/<vendor>/<class>/<name> and cdi/<vendor>/<class>=<name> become CDI names (an
// invalid one is skipped with a warning); imex/<ch> is an IMEX channel.
MountRequests requests_from_mounts(const std::vector<SpecMount>& mounts);

// The comma-separated values of the annotations whose key starts with one of `prefixes`, in key
// order; not deduplicated or validated (the CDI requestor does that); empty items dropped.
std::vector<std::string> requests_from_annotations(
    const std::vector<std::pair<std::string, std::string>>& sorted_annotations,
    const std::vector<std::string>& prefixes);

}  // namespace nvct::request
