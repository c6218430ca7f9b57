// The feature-gated device sets (runtime.md §7.4): NVIDIA_GDS / NVIDIA_MOFED / NVIDIA_GDRCOPY /
// NVIDIA_NVSWITCH = "enabled" add in-memory specs of vendor runtime.nvidia.com, class = mode.
#include "nvct/runtime/gated_modes.hpp"

#include <gtest/gtest.h>

#include "../cdi/generate_fixture.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using Ids = std::vector<std::string>;

request::Request gated_request(request::Environment env, Ids devices = {"0"}) {
  request::Request r;
  r.devices = std::move(devices);
  r.env = std::move(env);
  return r;
}

TEST(GatedModes, EachVariableEnabledAddsItsMode) {
  struct Row {
    const char* env;
    const char* id;
  };
  for (const Row& row :
       {Row{"NVIDIA_GDS", "mode=gds"}, Row{"NVIDIA_MOFED", "mode=mofed"},
        Row{"NVIDIA_GDRCOPY", "mode=gdrcopy"}, Row{"NVIDIA_NVSWITCH", "mode=nvswitch"}})
    EXPECT_EQ(gated_mode_ids(gated_request({{row.env, "enabled"}})), Ids{row.id}) << row.env;
}

TEST(GatedModes, OnlyTheExactValueEnabledCounts) {
  for (const char* v : {"Enabled", "true", "1", "enabled ", ""})
    EXPECT_TRUE(gated_mode_ids(gated_request({{"NVIDIA_GDS", v}})).empty()) << v;
}

TEST(GatedModes, AllFourInFixedOrder) {
  auto ids = gated_mode_ids(gated_request({{"NVIDIA_NVSWITCH", "enabled"},
                                         {"NVIDIA_GDRCOPY", "enabled"},
                                         {"NVIDIA_MOFED", "enabled"},
                                         {"NVIDIA_GDS", "enabled"}}));
  EXPECT_EQ(ids, (Ids{"mode=gds", "mode=mofed", "mode=gdrcopy", "mode=nvswitch"}));
}

TEST(GatedModes, NoDeviceRequestedMeansNoOp) {
  request::Request none_requested;
  none_requested.env = {{"NVIDIA_GDS", "enabled"}};
  EXPECT_TRUE(gated_mode_ids(none_requested).empty());
  EXPECT_TRUE(gated_mode_ids(gated_request({{"NVIDIA_GDS", "enabled"}}, {""})).empty());
}

class GatedHost : public ::testing::Test {
 protected:
  void node(const std::string& path, std::int64_t major, std::int64_t minor) {
    dir_.write(path.substr(1), "");
    lookup_.nodes[dir_.path() + path] = cdi::HostDeviceInfo{"c", major, minor, 0666, 0};
  }
  void SetUp() override { cfg_.cli.root = dir_.path(); }
  nvct::testing::TempDir dir_;
  cdi::testing::MapDeviceLookup lookup_;
  config::Config cfg_;
};

TEST_F(GatedHost, SpecIsRuntimeVendorWithTheModeAsClass) {
  node("/dev/nvidia-fs0", 240, 0);
  auto spec = gated_mode_spec(cdi::GenerateMode::kGds, cfg_, lookup_);
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->kind, "runtime.nvidia.com/gds");
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].path, "/dev/nvidia-fs0");
}

TEST_F(GatedHost, MissingDevicesFailNamingTheMode) {
  auto spec = gated_mode_spec(cdi::GenerateMode::kGdrcopy, cfg_, lookup_);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message().find("no gdrcopy devices found"), std::string::npos);
}

TEST_F(GatedHost, LegacyModifierAddsTheNodesToTheOciSpec) {
  node("/dev/gdrdrv", 508, 0);
  nlohmann::ordered_json oci = {{"ociVersion", "1.0.2"}, {"process", {{"env", {"A=b"}}}}};
  auto r =
      apply_legacy_gated_modes(oci, gated_request({{"NVIDIA_GDRCOPY", "enabled"}}), cfg_, lookup_);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(*r);
  ASSERT_TRUE(oci.contains("linux"));
  EXPECT_EQ(oci["linux"]["devices"][0]["path"], "/dev/gdrdrv");
  EXPECT_EQ(oci["linux"]["devices"][0]["major"], 508);
}

TEST_F(GatedHost, LegacyModifierWithoutVariablesChangesNothing) {
  nlohmann::ordered_json oci = {{"ociVersion", "1.0.2"}};
  auto before = oci;
  auto r = apply_legacy_gated_modes(oci, gated_request({}), cfg_, lookup_);
  ASSERT_TRUE(r);
  EXPECT_FALSE(*r);
  EXPECT_EQ(oci, before);
}

TEST_F(GatedHost, LegacyModifierFailsWhenTheHostLacksTheDevices) {
  nlohmann::ordered_json oci = {{"ociVersion", "1.0.2"}};
  auto r = apply_legacy_gated_modes(oci, gated_request({{"NVIDIA_MOFED", "enabled"}}), cfg_, lookup_);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("feature-gated"), std::string::npos);
}

}  // namespace
}  // namespace nvct::runtime
