// additionalGids of a generated spec (spec/cdi.md §6.3): a device node that is not world
// read-writable is only usable by its group, so that group is added to the container process
// (raising the spec's cdiVersion to 0.7.0). The feature flag
// no-additional-gids-for-device-nodes turns this off for runtimes that cannot read 0.7.0.
#pragma once

#include <cstdint>
#include <vector>

#include "nvct/cdi/spec.hpp"

namespace nvct::cdi {

// The GIDs of the nodes whose fileMode lacks o+rw, sorted, without duplicates and without 0
// (which CDI ignores). Nodes whose mode or gid is unknown add nothing.
std::vector<std::uint32_t> device_node_gids(const std::vector<DeviceNode>& nodes);

// Sets additionalGids of every device's edits and of the spec-level edits from their nodes.
void add_device_node_gids(Spec& spec);

}  // namespace nvct::cdi
