// additionalGids (cdi.md §6.3): the GID of a device node that is not world read-writable.
#include "nvct/cdi/additional_gids.hpp"

#include <gtest/gtest.h>

namespace nvct::cdi {
namespace {

DeviceNode node(const char* path, std::optional<std::uint32_t> mode,
                std::optional<std::uint32_t> gid) {
  DeviceNode n;
  n.path = path;
  n.file_mode = mode;
  n.gid = gid;
  return n;
}

TEST(AdditionalGids, WorldReadWritableNodesAddNothing) {
  EXPECT_TRUE(device_node_gids({node("/dev/nvidia0", 0666, 44)}).empty());
}

TEST(AdditionalGids, GroupOnlyNodesAddTheirGid) {
  EXPECT_EQ(device_node_gids({node("/dev/nvidia0", 0660, 44)}), std::vector<std::uint32_t>{44});
  // world-readable only is still not world-rw
  EXPECT_EQ(device_node_gids({node("/dev/nvidia0", 0664, 45)}), std::vector<std::uint32_t>{45});
}

TEST(AdditionalGids, UnknownModeOrGidAndGidZeroAddNothing) {
  EXPECT_TRUE(device_node_gids({node("/dev/a", std::nullopt, 44),
                                node("/dev/b", 0660, std::nullopt), node("/dev/c", 0600, 0)})
                  .empty());
}

TEST(AdditionalGids, SortedWithoutDuplicates) {
  EXPECT_EQ(device_node_gids(
                {node("/dev/a", 0660, 46), node("/dev/b", 0660, 44), node("/dev/c", 0600, 46)}),
            (std::vector<std::uint32_t>{44, 46}));
}

TEST(AdditionalGids, SetOnEachEditsFromItsOwnNodes) {
  Spec spec;
  Device d;
  d.name = "0";
  d.container_edits.device_nodes = {node("/dev/nvidia0", 0660, 44)};
  spec.devices.push_back(d);
  spec.container_edits.device_nodes = {node("/dev/nvidiactl", 0666, 0)};
  add_device_node_gids(spec);
  EXPECT_EQ(spec.devices[0].container_edits.additional_gids, std::vector<std::uint32_t>{44});
  EXPECT_TRUE(spec.container_edits.additional_gids.empty());
}

}  // namespace
}  // namespace nvct::cdi
