// Edits -> CDI containerEdits (spec/cdi.md §6.3): host layout, mount options, node fields, env
// and hook order.
#include "nvct/cdi/generate_edits.hpp"

#include <gtest/gtest.h>

#include "generate_fixture.hpp"

namespace nvct::cdi {
namespace {

using testing::MapDeviceLookup;

edits::FileMount lib(const std::string& host, const std::string& container) {
  return edits::FileMount{host, container, edits::FileKind::kLibrary,
                          edits::default_flags(edits::FileKind::kLibrary)};
}

TEST(GenerateEdits, JoinRoot) {
  EXPECT_EQ(join_root("/", "/dev/x"), "/dev/x");
  EXPECT_EQ(join_root("/r/", "/dev/x"), "/r/dev/x");
  EXPECT_EQ(join_root("/r", "/dev/x"), "/r/dev/x");
}

TEST(GenerateEdits, HostLayoutMountsLibrariesAndBinariesWhereTheHostHasThem) {
  edits::Edits e;
  e.mounts.push_back(lib("/usr/lib/x86_64-linux-gnu/libcuda.so.1.2", "/usr/lib64/libcuda.so.1.2"));
  e.mounts.push_back(
      edits::FileMount{"/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi", edits::FileKind::kBinary, {}});
  e.mounts.push_back(edits::FileMount{"/lib/firmware/nvidia/1.2/gsp.bin",
                                      "/lib/firmware/nvidia/1.2/gsp.bin",
                                      edits::FileKind::kFirmware,
                                      {}});
  e.symlinks.push_back(edits::Symlink{"/usr/lib64/libcuda.so", "libcuda.so.1"});
  auto out = with_host_layout(e);
  EXPECT_EQ(out.mounts[0].container_path, "/usr/lib/x86_64-linux-gnu/libcuda.so.1.2");
  ASSERT_EQ(out.symlinks.size(), 1u);
  EXPECT_EQ(out.symlinks[0].container_path, "/usr/lib/x86_64-linux-gnu/libcuda.so");
  EXPECT_EQ(out.ldcache_folders, (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu"}));
}

TEST(GenerateEdits, HostLayoutMountsABinaryWherePathFoundIt) {
  edits::Edits e;
  e.mounts.push_back(edits::FileMount{
      "/usr/lib/nvidia/current/nvidia-smi", "/usr/bin/nvidia-smi", edits::FileKind::kBinary, {}});
  e.mounts.push_back(edits::FileMount{
      "/opt/bin/nvidia-debugdump", "/usr/bin/nvidia-debugdump", edits::FileKind::kBinary, {}});
  std::vector<driver::DriverBinary> bins{{"nvidia-smi", driver::Capability::kUtility,
                                          "/usr/lib/nvidia/current/nvidia-smi",
                                          "/usr/bin/nvidia-smi"}};
  auto out = with_host_layout(e, bins);
  EXPECT_EQ(out.mounts[0].host_path, "/usr/lib/nvidia/current/nvidia-smi");
  EXPECT_EQ(out.mounts[0].container_path, "/usr/bin/nvidia-smi");
  EXPECT_EQ(out.mounts[1].container_path, "/opt/bin/nvidia-debugdump");  // not in bins: as found
}

TEST(GenerateEdits, LibraryBinaryAndFirmwareOptionsAreReadOnlyIpcIsNoexec) {
  MapDeviceLookup lookup;
  edits::Edits e;
  e.mounts.push_back(
      edits::FileMount{"/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi", edits::FileKind::kBinary, {}});
  e.mounts.push_back(edits::FileMount{"/run/nvidia-persistenced/socket",
                                      "/run/nvidia-persistenced/socket",
                                      edits::FileKind::kIpc,
                                      {}});
  e.mounts.push_back(lib("/lib/libcuda.so.9", "/lib/libcuda.so.9"));
  ConvertOptions o;
  o.driver_root = "/root";
  auto out = to_cdi_common_edits(e, o, lookup);
  ASSERT_EQ(out.mounts.size(), 3u);
  // Libraries first, then the rest in the builder's order.
  EXPECT_EQ(out.mounts[0].container_path, "/lib/libcuda.so.9");
  EXPECT_EQ(out.mounts[0].options, kDriverFileMountOptions);
  EXPECT_EQ(out.mounts[1].host_path, "/root/usr/bin/nvidia-smi");
  EXPECT_EQ(out.mounts[1].options,
            (std::vector<std::string>{"ro", "nosuid", "nodev", "rbind", "rprivate"}));
  EXPECT_EQ(out.mounts[2].options,
            (std::vector<std::string>{"nosuid", "nodev", "rbind", "rprivate", "noexec"}));
  EXPECT_TRUE(out.mounts[2].type.empty());  // a mount type would need cdiVersion 0.4.0
}

TEST(GenerateEdits, EnvNamesLibcudaDirsAndVoidsVisibleDevices) {
  MapDeviceLookup lookup;
  edits::Edits e;
  e.mounts.push_back(lib("/a/libcuda.so.9", "/a/libcuda.so.9"));
  e.mounts.push_back(lib("/b/libcuda.so.9", "/b/libcuda.so.9"));
  auto out = to_cdi_common_edits(e, ConvertOptions{}, lookup);
  EXPECT_EQ(out.env, (std::vector<std::string>{"NVIDIA_CTK_LIBCUDA_DIR=/a:/b",
                                               "NVIDIA_VISIBLE_DEVICES=void"}));
}

TEST(GenerateEdits, NoLibcudaMeansOnlyTheVoidEnv) {
  MapDeviceLookup lookup;
  auto out = to_cdi_common_edits(edits::Edits{}, ConvertOptions{}, lookup);
  EXPECT_EQ(out.env, (std::vector<std::string>{"NVIDIA_VISIBLE_DEVICES=void"}));
}

TEST(GenerateEdits, CgroupOnlyNodesAreNotDeviceNodes) {
  MapDeviceLookup lookup;
  lookup.nodes["/dev/nvidiactl"] = HostDeviceInfo{"c", 195, 255, 0666, 0};
  std::vector<edits::DeviceNode> nodes(2);
  nodes[0].container_path = "";
  nodes[1].container_path = nodes[1].host_path = "/dev/nvidiactl";
  auto out = to_cdi_device_nodes(nodes, "/", lookup);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].path, "/dev/nvidiactl");
  EXPECT_TRUE(out[0].host_path.empty());
  EXPECT_EQ(out[0].type, "c");
}

// cdi.md §6.3 "those that exist". Seen on an H200 host without nvidia_modeset: a spec naming
// /dev/nvidia-modeset made the runtime fail every CDI and jit-cdi container.
TEST(GenerateEdits, NodesMissingOnTheHostAreLeftOut) {
  MapDeviceLookup lookup;
  lookup.nodes["/dev/nvidiactl"] = HostDeviceInfo{"c", 195, 255, 0666, 0};
  lookup.missing = {"/dev/nvidia-modeset"};
  std::vector<edits::DeviceNode> nodes(2);
  nodes[0].container_path = nodes[0].host_path = "/dev/nvidia-modeset";
  nodes[1].container_path = nodes[1].host_path = "/dev/nvidiactl";
  auto out = to_cdi_device_nodes(nodes, "/", lookup);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].path, "/dev/nvidiactl");
}

TEST(GenerateEdits, ChmodHookForCapsNodesOnlyWhenEnabled) {
  MapDeviceLookup lookup;
  edits::Edits e;
  edits::DeviceNode n;
  n.container_path = n.host_path = "/dev/nvidia-caps/nvidia-cap1";
  e.device_nodes.push_back(n);
  ConvertOptions o;
  auto off = to_cdi_common_edits(e, o, lookup);
  for (const auto& h : off.hooks) EXPECT_NE(h.args.at(1), "chmod");
  o.hooks.enabled = {"chmod"};
  auto on = to_cdi_common_edits(e, o, lookup);
  ASSERT_FALSE(on.hooks.empty());
  EXPECT_EQ(on.hooks.back().args, (std::vector<std::string>{"nvidia-cdi-hook", "chmod", "--mode",
                                                            "755", "--path", "/dev/nvidia-caps"}));
}

TEST(GenerateEdits, NoDriverVersionNoCudaCompatHook) {
  MapDeviceLookup lookup;
  auto out = to_cdi_common_edits(edits::Edits{}, ConvertOptions{}, lookup);
  for (const auto& h : out.hooks) EXPECT_NE(h.args.at(1), "enable-cuda-compat");
}

}  // namespace
}  // namespace nvct::cdi
