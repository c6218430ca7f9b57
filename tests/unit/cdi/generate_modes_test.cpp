// `cdi generate --mode` gds, mofed, gdrcopy, nvswitch, imex and management (cdi.md §6.1, §6.4
// management variant; content in generate_modes.hpp).
#include "nvct/cdi/generate_modes.hpp"

#include <gtest/gtest.h>

#include "generate_fixture.hpp"
#include "nvct/cdi/generate_edits.hpp"
#include "nvct/cdi/validate.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

using testing::MapDeviceLookup;

// A dev root whose nodes are plain files for the directory listing, "char devices" for lookup.
class Host {
 public:
  void node(const std::string& path, std::int64_t major, std::int64_t minor,
            std::uint32_t mode = 0666, std::uint32_t gid = 0) {
    dir.write(path.substr(1), "");
    lookup.nodes[dir.path() + path] = HostDeviceInfo{"c", major, minor, mode, gid};
  }
  std::vector<std::string> paths(const Device& d) const {
    std::vector<std::string> out;
    for (const auto& n : d.container_edits.device_nodes) out.push_back(n.path);
    return out;
  }
  ModeOptions options() const {
    ModeOptions o;
    o.driver_root = dir.path();
    o.dev_root = dir.path();
    return o;
  }
  nvct::testing::TempDir dir;
  MapDeviceLookup lookup;
};

using Paths = std::vector<std::string>;

TEST(GenerateModes, ParseModes) {
  EXPECT_EQ(*parse_generate_mode("auto"), GenerateMode::kNvml);
  EXPECT_EQ(*parse_generate_mode("nvml"), GenerateMode::kNvml);
  EXPECT_EQ(*parse_generate_mode("management"), GenerateMode::kManagement);
  EXPECT_EQ(*parse_generate_mode("gds"), GenerateMode::kGds);
  EXPECT_EQ(*parse_generate_mode("mofed"), GenerateMode::kMofed);
  EXPECT_EQ(*parse_generate_mode("gdrcopy"), GenerateMode::kGdrcopy);
  EXPECT_EQ(*parse_generate_mode("nvswitch"), GenerateMode::kNvswitch);
  EXPECT_EQ(*parse_generate_mode("imex"), GenerateMode::kImex);
  EXPECT_EQ(*parse_generate_mode("csv"), GenerateMode::kCsv);
  EXPECT_EQ(generate_mode_name(GenerateMode::kCsv), "csv");
  EXPECT_FALSE(mode_needs_driver(GenerateMode::kCsv));
  EXPECT_EQ(*parse_generate_mode("wsl"), GenerateMode::kWsl);
  EXPECT_EQ(generate_mode_name(GenerateMode::kWsl), "wsl");
  EXPECT_FALSE(mode_needs_driver(GenerateMode::kWsl));
  auto bad = parse_generate_mode("bogus");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code(), EINVAL);
  EXPECT_NE(bad.error().message().find("gdrcopy, gds, imex, management"), std::string::npos);
}

TEST(GenerateModes, ManagementHasItsOwnVendorAndOnlyNvmlAndManagementNeedTheDriver) {
  EXPECT_EQ(default_vendor(GenerateMode::kManagement), "management.nvidia.com");
  EXPECT_EQ(default_vendor(GenerateMode::kGds), "nvidia.com");
  EXPECT_TRUE(mode_needs_driver(GenerateMode::kNvml));
  EXPECT_TRUE(mode_needs_driver(GenerateMode::kManagement));
  for (auto m : {GenerateMode::kGds, GenerateMode::kMofed, GenerateMode::kGdrcopy,
                 GenerateMode::kNvswitch, GenerateMode::kImex})
    EXPECT_FALSE(mode_needs_driver(m));
}

TEST(GenerateModes, FindDeviceNodesGlobsCharNodesInNameOrder) {
  Host h;
  h.node("/dev/nvidia-fs1", 240, 1);
  h.node("/dev/nvidia-fs0", 240, 0);
  h.dir.write("dev/nvidia-fsX", "");  // a plain file, not a device
  EXPECT_EQ(find_device_nodes(h.dir.path(), "/dev/nvidia-fs*", h.lookup),
            (Paths{"/dev/nvidia-fs0", "/dev/nvidia-fs1"}));
  EXPECT_TRUE(find_device_nodes(h.dir.path(), "/dev/missing*", h.lookup).empty());
  EXPECT_TRUE(find_device_nodes(h.dir.path(), "/dev/gdrdrv", h.lookup).empty());
}

TEST(GenerateModes, GdsNodesCufileAndUdevInOneAllDevice) {
  Host h;
  h.node("/dev/nvidia-fs0", 240, 0);
  h.node("/dev/nvidia-fs1", 240, 1);
  h.dir.write("etc/cufile.json", "{}");
  h.dir.write("run/udev/data/x", "");
  auto spec = build_device_mode_spec(GenerateMode::kGds, h.options(), h.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->kind, "nvidia.com/gds");
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "all");
  EXPECT_EQ(h.paths(spec->devices[0]), (Paths{"/dev/nvidia-fs0", "/dev/nvidia-fs1"}));
  const auto& mounts = spec->devices[0].container_edits.mounts;
  ASSERT_EQ(mounts.size(), 2u);
  EXPECT_EQ(mounts[0].container_path, "/etc/cufile.json");
  EXPECT_EQ(mounts[0].host_path, h.dir.path() + "/etc/cufile.json");
  EXPECT_EQ(mounts[1].container_path, "/run/udev");
  EXPECT_EQ(mounts[0].options, kDriverFileMountOptions);
  EXPECT_TRUE(validate_spec(*spec));
  EXPECT_EQ(spec->cdi_version, "0.5.0");  // hostPath under a non-/ root
}

TEST(GenerateModes, MofedGdrcopyAndNvswitchNodes) {
  Host h;
  h.node("/dev/infiniband/uverbs0", 231, 192);
  h.node("/dev/infiniband/uverbs1", 231, 193);
  h.node("/dev/infiniband/rdma_cm", 10, 58);
  h.node("/dev/infiniband/umad0", 231, 0);  // not part of mofed
  h.node("/dev/gdrdrv", 508, 0);
  h.node("/dev/nvidia-nvswitch0", 509, 0);
  h.node("/dev/nvidia-nvswitchctl", 509, 255);
  struct Row {
    GenerateMode mode;
    const char* kind;
    Paths nodes;
  };
  const Row rows[] = {
      {GenerateMode::kMofed,
       "nvidia.com/mofed",
       {"/dev/infiniband/uverbs0", "/dev/infiniband/uverbs1", "/dev/infiniband/rdma_cm"}},
      {GenerateMode::kGdrcopy, "nvidia.com/gdrcopy", {"/dev/gdrdrv"}},
      {GenerateMode::kNvswitch,
       "nvidia.com/nvswitch",
       {"/dev/nvidia-nvswitch0", "/dev/nvidia-nvswitchctl"}},
  };
  for (const auto& row : rows) {
    auto spec = build_device_mode_spec(row.mode, h.options(), h.lookup);
    ASSERT_TRUE(spec) << row.kind;
    EXPECT_EQ(spec->kind, row.kind);
    ASSERT_EQ(spec->devices.size(), 1u) << row.kind;
    EXPECT_EQ(h.paths(spec->devices[0]), row.nodes) << row.kind;
    EXPECT_TRUE(spec->devices[0].container_edits.mounts.empty()) << row.kind;
  }
}

TEST(GenerateModes, NoNodesMeansNoDevicesAndAnInvalidSpec) {
  Host h;
  auto spec = build_device_mode_spec(GenerateMode::kGdrcopy, h.options(), h.lookup);
  ASSERT_TRUE(spec);
  EXPECT_TRUE(spec->devices.empty());
  EXPECT_FALSE(validate_spec(*spec));
}

TEST(GenerateModes, ClassAndVendorCanBeSet) {
  Host h;
  h.node("/dev/gdrdrv", 508, 0);
  ModeOptions o = h.options();
  o.vendor = "runtime.nvidia.com";
  o.class_name = "gdrcopy";
  auto spec = build_device_mode_spec(GenerateMode::kGdrcopy, o, h.lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->kind, "runtime.nvidia.com/gdrcopy");
}

TEST(GenerateModes, ImexDevicePerChannelNamedByNumberPlusAll) {
  Host h;
  h.node("/dev/nvidia-caps-imex-channels/channel0", 234, 0);
  h.node("/dev/nvidia-caps-imex-channels/channel2", 234, 2);
  auto spec = build_device_mode_spec(GenerateMode::kImex, h.options(), h.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->kind, "nvidia.com/imex");
  ASSERT_EQ(spec->devices.size(), 3u);
  EXPECT_EQ(spec->devices[0].name, "0");
  EXPECT_EQ(spec->devices[1].name, "2");
  EXPECT_EQ(spec->devices[2].name, "all");
  EXPECT_EQ(h.paths(spec->devices[2]), (Paths{"/dev/nvidia-caps-imex-channels/channel0",
                                              "/dev/nvidia-caps-imex-channels/channel2"}));
}

TEST(GenerateModes, ImexDeviceIdsSelectChannelsAndUnknownOnesFail) {
  Host h;
  h.node("/dev/nvidia-caps-imex-channels/channel0", 234, 0);
  h.node("/dev/nvidia-caps-imex-channels/channel2", 234, 2);
  ModeOptions o = h.options();
  o.device_ids = {"2"};
  o.no_all_device = true;
  auto spec = build_device_mode_spec(GenerateMode::kImex, o, h.lookup);
  ASSERT_TRUE(spec);
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "2");
  o.device_ids = {"7"};
  auto missing = build_device_mode_spec(GenerateMode::kImex, o, h.lookup);
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("IMEX channel 7 not found"), std::string::npos);
}

TEST(GenerateModes, GroupOnlyNodesAddAdditionalGidsUnlessTheFlagIsSet) {
  Host h;
  h.node("/dev/gdrdrv", 508, 0, 0660, 44);
  auto spec = build_device_mode_spec(GenerateMode::kGdrcopy, h.options(), h.lookup);
  ASSERT_TRUE(spec);
  EXPECT_EQ(spec->devices[0].container_edits.additional_gids, std::vector<std::uint32_t>{44});
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].gid, 44u);
  EXPECT_EQ(spec->cdi_version, "0.7.0");
  ModeOptions o = h.options();
  o.features.no_additional_gids_for_device_nodes = true;
  auto without = build_device_mode_spec(GenerateMode::kGdrcopy, o, h.lookup);
  ASSERT_TRUE(without);
  EXPECT_TRUE(without->devices[0].container_edits.additional_gids.empty());
  EXPECT_EQ(without->cdi_version, "0.5.0");
}

TEST(GenerateModes, ManagementOnlyAllDeviceWithEveryNodeAndChmodHookWhenEnabled) {
  Host h;
  h.node("/dev/nvidia0", 195, 0);
  h.node("/dev/nvidiactl", 195, 255);
  h.node("/dev/nvidia-uvm", 510, 0);
  h.node("/dev/nvidia-caps/nvidia-cap1", 235, 1, 0400);
  h.node("/dev/nvidia-caps-imex-channels/channel0", 234, 0);
  driver::DriverInfo info = testing::golden_info(h.dir.path());
  GenerateOptions o;
  o.vendor = "management.nvidia.com";
  o.hooks.enabled.insert("chmod");
  auto spec = build_management_spec(info, o, h.lookup);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->kind, "management.nvidia.com/gpu");
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "all");
  EXPECT_EQ(h.paths(spec->devices[0]),
            (Paths{"/dev/nvidia-uvm", "/dev/nvidia0", "/dev/nvidiactl",
                   "/dev/nvidia-caps/nvidia-cap1", "/dev/nvidia-caps-imex-channels/channel0"}));
  EXPECT_TRUE(spec->container_edits.device_nodes.empty());
  ASSERT_FALSE(spec->container_edits.hooks.empty());
  const Hook& chmod = spec->container_edits.hooks.back();
  EXPECT_EQ(chmod.args, (std::vector<std::string>{"nvidia-cdi-hook", "chmod", "--mode", "755",
                                                  "--path", "/dev/nvidia-caps"}));
  EXPECT_FALSE(spec->container_edits.mounts.empty());  // the driver libraries
  EXPECT_TRUE(validate_spec(*spec));
}

TEST(GenerateModes, ManagementWithoutChmodEnabledHasNoChmodHook) {
  Host h;
  h.node("/dev/nvidia0", 195, 0);
  h.node("/dev/nvidia-caps/nvidia-cap1", 235, 1, 0400);
  GenerateOptions o;
  auto spec = build_management_spec(testing::golden_info(h.dir.path()), o, h.lookup);
  ASSERT_TRUE(spec);
  for (const auto& hook : spec->container_edits.hooks) EXPECT_NE(hook.args.at(1), "chmod");
}

}  // namespace
}  // namespace nvct::cdi
