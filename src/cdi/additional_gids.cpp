#include "nvct/cdi/additional_gids.hpp"

#include <algorithm>

namespace nvct::cdi {
namespace {

constexpr std::uint32_t kWorldReadWrite = 0006;

void set_gids(ContainerEdits& edits) {
  for (auto gid : device_node_gids(edits.device_nodes))
    if (std::find(edits.additional_gids.begin(), edits.additional_gids.end(), gid) ==
        edits.additional_gids.end())
      edits.additional_gids.push_back(gid);
  std::sort(edits.additional_gids.begin(), edits.additional_gids.end());
}

}  // namespace

std::vector<std::uint32_t> device_node_gids(const std::vector<DeviceNode>& nodes) {
  std::vector<std::uint32_t> out;
  for (const auto& n : nodes) {
    if (!n.file_mode || !n.gid || *n.gid == 0) continue;
    if ((*n.file_mode & kWorldReadWrite) == kWorldReadWrite) continue;
    if (std::find(out.begin(), out.end(), *n.gid) == out.end()) out.push_back(*n.gid);
  }
  std::sort(out.begin(), out.end());
  return out;
}

void add_device_node_gids(Spec& spec) {
  for (auto& d : spec.devices) set_gids(d.container_edits);
  set_gids(spec.container_edits);
}

}  // namespace nvct::cdi
