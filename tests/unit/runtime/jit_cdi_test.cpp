// jit-cdi grouping and options (runtime.md §7.5 "CDI mode-identifier tests").
#include "nvct/runtime/jit_cdi.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using Ids = std::vector<std::string>;

TEST(JitIds, PlainIdIsAnAutoModeDevice) {
  auto r = group_jit_ids({"0"}, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->device_ids, Ids{"0"});
  EXPECT_TRUE(r->imex_channels.empty());
}

TEST(JitIds, NoneGivesNoDevices) {
  auto r = group_jit_ids({"none"}, {});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->device_ids.empty());
}

TEST(JitIds, ImexModeAndRequestChannelsBecomeChannels) {
  auto r = group_jit_ids({"0", "mode=imex,id=3"}, {"3", "5"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->device_ids, Ids{"0"});
  EXPECT_EQ(r->imex_channels, (std::vector<unsigned>{3, 5}));
}

TEST(JitIds, InvalidImexChannelFails) { EXPECT_FALSE(group_jit_ids({}, {"x"})); }

TEST(JitIds, GatedModesAreGroupedOncePerModeInOrder) {
  // runtime.md §7.5: ["0","mode=gds,id=foo","mode=gdrcopy,id=bar"] -> [auto,gds,gdrcopy];
  // ["mode=gds,id=x","mode=gds,id=y","mode=gds"] -> [gds].
  auto r = group_jit_ids({"0", "mode=gds,id=foo", "mode=gdrcopy,id=bar", "mode=gds"}, {});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->device_ids, Ids{"0"});
  EXPECT_TRUE(r->gpu_spec);
  EXPECT_EQ(r->gated_modes,
            (std::vector<cdi::GenerateMode>{cdi::GenerateMode::kGds, cdi::GenerateMode::kGdrcopy}));
}

TEST(JitIds, OnlyGatedModesNeedNoGpuSpec) {
  auto r = group_jit_ids({"mode=nvswitch", "mode=mofed"}, {});
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->gpu_spec);
  EXPECT_TRUE(r->device_ids.empty());
  EXPECT_EQ(r->gated_modes, (std::vector<cdi::GenerateMode>{cdi::GenerateMode::kNvswitch,
                                                            cdi::GenerateMode::kMofed}));
  auto none = group_jit_ids({"none"}, {});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->gpu_spec);  // "none": driver files without GPUs
}

TEST(JitIds, WslModeIsTheGpuSpecNotAGatedMode) {
  auto r = group_jit_ids({"mode=wsl"}, {});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->gpu_spec);
  EXPECT_TRUE(r->gated_modes.empty());
  EXPECT_TRUE(r->device_ids.empty());
}

TEST(JitIds, UnknownModesAreRefusedNamingTheMode) {
  for (const char* id : {"mode=bogus", "mode=csv,id=0", "mode=management"}) {
    auto r = group_jit_ids({"0", id}, {});
    ASSERT_FALSE(r) << id;
    EXPECT_EQ(r.error().code(), ENOTSUP);
    EXPECT_NE(r.error().message().find("not supported"), std::string::npos);
  }
}

TEST(JitOptions, NvcdiFeatureFlagsFromTheConfig) {
  config::Config cfg;
  cfg.runtime.jit_cdi.nvcdi_feature_flags =
      std::vector<std::string>{"no-additional-gids-for-device-nodes", "disable-ipc-discoverer"};
  cfg.ctk.path = "/bin/sh";  // any executable: the hook binary must exist
  auto o = jit_generate_options(JitRequest{{"0"}, {}}, cfg, "");
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_TRUE(o->features.no_additional_gids_for_device_nodes);
  EXPECT_TRUE(o->features.disable_ipc_discoverer);
  EXPECT_FALSE(o->features.explicit_driver_libraries);
}

TEST(JitIds, DuplicatesAreDropped) {
  auto r = group_jit_ids({"0", "mode=auto,id=0", "1"}, {});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->device_ids, (Ids{"0", "1"}));
}

TEST(JitOptions, RuntimeVendorNoAllDeviceAndConfiguredHooks) {
  nvct::testing::TempDir d;
  std::string ctk = d.write("bin/nvidia-ctk", "#!/bin/sh\n");
  ::chmod(ctk.c_str(), 0755);
  config::Config cfg;
  cfg.ctk.path = ctk;
  cfg.runtime.jit_cdi.nvcdi_disable_hooks = std::vector<std::string>{"update-ldcache"};
  JitRequest req{{"0"}, {2}};
  auto o = jit_generate_options(req, cfg, "");
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_EQ(o->vendor, "runtime.nvidia.com");
  EXPECT_EQ(o->class_name, "gpu");
  EXPECT_TRUE(o->no_all_device);
  EXPECT_EQ(o->device_ids, Ids{"0"});
  EXPECT_EQ(o->imex_channels, (std::vector<unsigned>{2}));
  EXPECT_EQ(o->hooks.binary, ctk);
  EXPECT_FALSE(cdi::hook_enabled(o->hooks, "update-ldcache"));
  EXPECT_TRUE(cdi::hook_enabled(o->hooks, "create-symlinks"));
}

TEST(JitOptions, AConfiguredHookBinaryThatIsNotThereIsAnErrorNamingTheKey) {
  config::Config cfg;
  cfg.ctk.path = "/opt/nvct/bin/nvidia-ctk";
  auto o = jit_generate_options(JitRequest{{"0"}, {}}, cfg, "");
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().message().find("nvidia-ctk.path (config.toml) is set to "
                                     "/opt/nvct/bin/nvidia-ctk, which is not an executable file"),
            std::string::npos)
      << o.error().message();
}

cdi::DeviceNode node(const std::string& path) {
  cdi::DeviceNode n;
  n.path = path;
  return n;
}

TEST(JitEdits, DeviceNodesFirstThenSpecLevelEdits) {
  cdi::Spec spec;
  cdi::Device d0, d1;
  d0.container_edits.device_nodes.push_back(node("/dev/nvidia0"));
  d1.container_edits.device_nodes.push_back(node("/dev/nvidia0"));
  d1.container_edits.device_nodes.push_back(node("/dev/nvidia1"));
  spec.devices = {d0, d1};
  spec.container_edits.device_nodes.push_back(node("/dev/nvidiactl"));
  spec.container_edits.env = {"NVIDIA_VISIBLE_DEVICES=void"};
  auto e = jit_edits(spec);
  ASSERT_EQ(e.device_nodes.size(), 3u);
  EXPECT_EQ(e.device_nodes[0].path, "/dev/nvidia0");
  EXPECT_EQ(e.device_nodes[1].path, "/dev/nvidia1");
  EXPECT_EQ(e.device_nodes[2].path, "/dev/nvidiactl");
  EXPECT_EQ(e.env, Ids{"NVIDIA_VISIBLE_DEVICES=void"});
}

}  // namespace
}  // namespace nvct::runtime
