#include "nvct/driver/drm.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "fake_drm.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

using testing::add_drm_gpu;
using testing::make_char_node;

TEST(SysfsPciBusId, NvmlAndProcfsFormsBecomeTheKernelName) {
  EXPECT_EQ(sysfs_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
  EXPECT_EQ(sysfs_pci_bus_id("0000:3b:00.0"), "0000:3b:00.0");
  EXPECT_EQ(sysfs_pci_bus_id("00010000:01:00.0"), "10000:01:00.0");
  EXPECT_EQ(sysfs_pci_bus_id("3b:00.0"), std::nullopt);
  EXPECT_EQ(sysfs_pci_bus_id("../../etc"), std::nullopt);
}

TEST(ParseDrmEntry, CardsAndRenderNodesOnly) {
  EXPECT_EQ(parse_drm_entry("card1"), std::make_pair(DrmNodeKind::kCard, 1u));
  EXPECT_EQ(parse_drm_entry("renderD129"), std::make_pair(DrmNodeKind::kRender, 129u));
  EXPECT_EQ(parse_drm_entry("card1-DP-1"), std::nullopt);
  EXPECT_EQ(parse_drm_entry("controlD65"), std::nullopt);
  EXPECT_EQ(parse_drm_entry("card"), std::nullopt);
  EXPECT_EQ(parse_drm_entry("version"), std::nullopt);
}

class DrmNodesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::geteuid(), 0u) << "DRM node tests need root (mknod)"; }
  DriverRoot root() const { return *DriverRoot::open(dir_.path()); }
  nvct::testing::TempDir dir_;
};

TEST_F(DrmNodesTest, FindsCardAndRenderNodeOfTheGpuOnly) {
  ASSERT_TRUE(add_drm_gpu(dir_, "0000:17:00.0", 1, 129));
  ASSERT_TRUE(add_drm_gpu(dir_, "0000:2a:00.0", 2, 130));
  auto nodes = find_drm_nodes(root(), "00000000:17:00.0");
  ASSERT_TRUE(nodes) << nodes.error().message();
  ASSERT_EQ(nodes->size(), 2u);
  EXPECT_EQ((*nodes)[0], (DrmNode{DrmNodeKind::kCard, "card1", "/dev/dri/card1", 226, 1}));
  EXPECT_EQ((*nodes)[1],
            (DrmNode{DrmNodeKind::kRender, "renderD129", "/dev/dri/renderD129", 226, 129}));
}

TEST_F(DrmNodesTest, NoDrmDirectoryMeansNoNodes) {
  dir_.write("sys/bus/pci/devices/0000:17:00.0/vendor", "0x10de\n");
  auto nodes = find_drm_nodes(root(), "00000000:17:00.0");
  ASSERT_TRUE(nodes) << nodes.error().message();
  EXPECT_TRUE(nodes->empty());
}

TEST_F(DrmNodesTest, NumberComesFromTheDevFile) {
  // A card entry whose dev file says 226:7 is matched against node 226:7.
  dir_.write("sys/bus/pci/devices/0000:17:00.0/drm/card1/dev", "226:7\n");
  ASSERT_TRUE(make_char_node(dir_, "dev/dri/card1", 226, 7));
  auto nodes = find_drm_nodes(root(), "0000:17:00.0");
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].minor, 7u);
}

TEST_F(DrmNodesTest, NodeWithoutDevFileUsesItsName) {
  std::filesystem::create_directories(dir_ / "sys/bus/pci/devices/0000:17:00.0/drm/renderD128");
  ASSERT_TRUE(make_char_node(dir_, "dev/dri/renderD128", 226, 128));
  auto nodes = find_drm_nodes(root(), "0000:17:00.0");
  ASSERT_TRUE(nodes);
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].minor, 128u);
}

TEST_F(DrmNodesTest, MissingRegularFileOrWrongDeviceIsSkipped) {
  std::string drm = "sys/bus/pci/devices/0000:17:00.0/drm";
  dir_.write(drm + "/card1/dev", "226:1\n");
  dir_.write(drm + "/card2/dev", "226:2\n");
  dir_.write(drm + "/renderD129/dev", "226:129\n");
  dir_.write(drm + "/renderD130/dev", "garbage\n");
  dir_.write("dev/dri/card1", "not a device");               // regular file
  ASSERT_TRUE(make_char_node(dir_, "dev/dri/card2", 1, 3));  // /dev/null's number
  ASSERT_TRUE(make_char_node(dir_, "dev/dri/renderD130", 226, 130));
  // renderD129 has no node at all.
  auto nodes = find_drm_nodes(root(), "0000:17:00.0");
  ASSERT_TRUE(nodes);
  EXPECT_TRUE(nodes->empty());
}

TEST_F(DrmNodesTest, NodeSymlinkOutOfTheRootIsResolvedInside) {
  dir_.write("sys/bus/pci/devices/0000:17:00.0/drm/card1/dev", "226:1\n");
  std::filesystem::create_directories(dir_ / "dev/dri");
  // An absolute link is taken relative to the driver root: /dev/null of the host is not used.
  std::filesystem::create_symlink("/dev/null", dir_ / "dev/dri/card1");
  auto nodes = find_drm_nodes(root(), "0000:17:00.0");
  ASSERT_TRUE(nodes);
  EXPECT_TRUE(nodes->empty());
}

TEST_F(DrmNodesTest, SysfsOfOneRootNodesOfAnother) {
  // A driver container's sysfs beside a dev root that has only the nodes.
  nvct::testing::TempDir sysfs;
  sysfs.write("sys/bus/pci/devices/0000:17:00.0/drm/card1/dev", "226:1\n");
  sysfs.write("sys/bus/pci/devices/0000:17:00.0/drm/renderD129/dev", "226:129\n");
  ASSERT_TRUE(make_char_node(dir_, "dev/dri/card1", 226, 1));
  ASSERT_TRUE(make_char_node(sysfs, "dev/dri/renderD129", 226, 129));  // not under the dev root
  auto nodes = find_drm_nodes(*DriverRoot::open(sysfs.path()), root(), "0000:17:00.0");
  ASSERT_TRUE(nodes) << nodes.error().message();
  ASSERT_EQ(nodes->size(), 1u);
  EXPECT_EQ((*nodes)[0].path, "/dev/dri/card1");
}

TEST(SysfsRootFor, ARootWithItsOwnSysfsIsUsed) {
  nvct::testing::TempDir dir;
  dir.write("sys/bus/pci/devices/0000:17:00.0/vendor", "0x10de\n");
  auto sysfs = sysfs_root_for(*DriverRoot::open(dir.path()));
  ASSERT_TRUE(sysfs) << sysfs.error().message();
  EXPECT_EQ(sysfs->path(), dir.path());
}

TEST(SysfsRootFor, ARootWithoutSysfsUsesTheHosts) {
  // Only the driver's files, as an unpacked driver package: the kernel's view is the host's.
  nvct::testing::TempDir dir;
  dir.write("usr/lib/x86_64-linux-gnu/libcuda.so.1", "ELF");
  auto sysfs = sysfs_root_for(*DriverRoot::open(dir.path()));
  ASSERT_TRUE(sysfs) << sysfs.error().message();
  EXPECT_EQ(sysfs->path(), "/");
  auto host = sysfs_root_for(*DriverRoot::open("/"));
  ASSERT_TRUE(host);
  EXPECT_EQ(host->path(), "/");
}

TEST(DrmByPathLinks, OneCardAndOneRenderLinkPerGpu) {
  std::vector<DrmNode> nodes = {
      {DrmNodeKind::kCard, "card1", "/dev/dri/card1", 226, 1},
      {DrmNodeKind::kCard, "card3", "/dev/dri/card3", 226, 3},
      {DrmNodeKind::kRender, "renderD129", "/dev/dri/renderD129", 226, 129}};
  auto links = drm_by_path_links("00000000:3B:00.0", nodes);
  ASSERT_EQ(links.size(), 2u);
  EXPECT_EQ(links[0], (ContainerLink{"/dev/dri/by-path/pci-0000:3b:00.0-card", "../card1"}));
  EXPECT_EQ(links[1], (ContainerLink{"/dev/dri/by-path/pci-0000:3b:00.0-render", "../renderD129"}));
  EXPECT_EQ(create_symlinks_args(links),
            (std::vector<std::string>{"--link", "../card1::/dev/dri/by-path/pci-0000:3b:00.0-card",
                                      "--link",
                                      "../renderD129::/dev/dri/by-path/pci-0000:3b:00.0-render"}));
}

TEST(DrmByPathLinks, InvalidBusIdGivesNoLinks) {
  EXPECT_TRUE(
      drm_by_path_links("x", {{DrmNodeKind::kCard, "card1", "/dev/dri/card1", 226, 1}}).empty());
}

}  // namespace
}  // namespace nvct::driver
