// mount_request: what the hook passes to the mount library; spec/request.md §9 rows 34-53 and
// the hook.md §5 examples.
#include "nvct/request/mount_request.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "spec_builder.hpp"

namespace nvct::request {
namespace {

using Strings = std::vector<std::string>;
using testing::SpecBuilder;

const Strings kAllCaps = {"compat32", "compute", "display", "graphics", "ngx", "utility", "video"};
const Strings kDefaultCaps = {"compute", "utility"};

struct HookRow {
  const char* name;
  Strings env;
  bool privileged = false;
  std::string supported;  // "" = the default supported-driver-capabilities
  std::string swarm;
  std::optional<Strings> devices;  // nullopt: not a GPU container, the hook does nothing
  Strings caps;
  Strings reqs;       // compared as a set: the reference's order is a Go map's
  std::string error;  // non-empty: mount_request must fail with this text
};

class HookTable : public ::testing::TestWithParam<HookRow> {};

TEST_P(HookTable, MatchesSpecRow) {
  const HookRow& row = GetParam();
  config::Config cfg;
  if (!row.supported.empty()) cfg.supported_driver_capabilities = row.supported;
  cfg.swarm_resource = row.swarm;
  SpecBuilder spec{row.env, {}, {}, row.privileged};
  auto req = from_spec(spec.build(), cfg);
  ASSERT_TRUE(req) << req.error().message();
  ASSERT_EQ(req->devices, row.devices);
  if (!row.devices) return;
  auto mr = mount_request(*req, cfg);
  if (!row.error.empty()) {
    ASSERT_FALSE(mr) << "expected failure: " << row.error;
    EXPECT_NE(mr.error().message().find(row.error), std::string::npos) << mr.error().message();
    return;
  }
  ASSERT_TRUE(mr) << mr.error().message();
  EXPECT_EQ(mr->capabilities, row.caps);
  Strings reqs = mr->requirements;
  Strings expected = row.reqs;
  std::sort(reqs.begin(), reqs.end());
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(reqs, expected);
}

const Strings kAll = {"all"};
const Strings kNone = {""};

INSTANTIATE_TEST_SUITE_P(
    SpecRows, HookTable,
    ::testing::Values(
        HookRow{"R34_LegacyImageGetsAllDevicesAllCapsAndCudaRequirement",
                {"CUDA_VERSION=9.0"},
                false,
                "",
                "",
                kAll,
                kAllCaps,
                {"cuda>=9.0"},
                ""},
        HookRow{"R35_LegacyImageWithEmptyNvdIsNoop",
                {"CUDA_VERSION=9.0", "NVIDIA_VISIBLE_DEVICES="},
                false,
                "",
                "",
                std::nullopt,
                {},
                {},
                ""},
        HookRow{"R35_LegacyImageWithVoidIsNoop",
                {"CUDA_VERSION=9.0", "NVIDIA_VISIBLE_DEVICES=void"},
                false,
                "",
                "",
                std::nullopt,
                {},
                {},
                ""},
        HookRow{"R36_LegacyImageWithNone",
                {"CUDA_VERSION=9.0", "NVIDIA_VISIBLE_DEVICES=none"},
                false,
                "",
                "",
                kNone,
                kAllCaps,
                {"cuda>=9.0"},
                ""},
        HookRow{
            "R37_LegacyImageEmptyCapsGetDefault",
            {"CUDA_VERSION=9.0", "NVIDIA_VISIBLE_DEVICES=gpu0,gpu1", "NVIDIA_DRIVER_CAPABILITIES="},
            false,
            "",
            "",
            Strings{"gpu0", "gpu1"},
            kDefaultCaps,
            {"cuda>=9.0"},
            ""},
        HookRow{"R38_LegacyImageExplicitCapsSorted",
                {"CUDA_VERSION=9.0", "NVIDIA_DRIVER_CAPABILITIES=video,display"},
                false,
                "",
                "",
                kAll,
                Strings{"display", "video"},
                {"cuda>=9.0"},
                ""},
        HookRow{
            "R39_RequireVariablesAddToLegacyCuda",
            {"CUDA_VERSION=9.0", "NVIDIA_REQUIRE_REQ0=req0=true", "NVIDIA_REQUIRE_REQ1=req1=false"},
            false,
            "",
            "",
            kAll,
            kAllCaps,
            {"cuda>=9.0", "req0=true", "req1=false"},
            ""},
        HookRow{"R40_DisableRequireDropsAll",
                {"CUDA_VERSION=9.0", "NVIDIA_REQUIRE_REQ0=req0=true",
                 "NVIDIA_REQUIRE_REQ1=req1=false", "NVIDIA_DISABLE_REQUIRE=true"},
                false,
                "",
                "",
                kAll,
                kAllCaps,
                {},
                ""},
        HookRow{"R41_RequireCudaWithoutNvdIsNoop",
                {"NVIDIA_REQUIRE_CUDA=cuda>=9.0"},
                false,
                "",
                "",
                std::nullopt,
                {},
                {},
                ""},
        HookRow{"R41_RequireCudaAndCudaVersionWithoutNvdIsNoop",
                {"NVIDIA_REQUIRE_CUDA=cuda>=9.0", "CUDA_VERSION=9.0"},
                false,
                "",
                "",
                std::nullopt,
                {},
                {},
                ""},
        HookRow{"R42_ModernImageWithAll",
                {"NVIDIA_REQUIRE_CUDA=cuda>=9.0", "CUDA_VERSION=9.0", "NVIDIA_VISIBLE_DEVICES=all"},
                false,
                "",
                "",
                kAll,
                kDefaultCaps,
                {"cuda>=9.0"},
                ""},
        HookRow{"R43_AllCapsAreAllSupported",
                {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=all"},
                false,
                "",
                "",
                kAll,
                kAllCaps,
                {},
                ""},
        HookRow{"R44_AllDevicesOnlyGetsDefaultCapsNoReqs",
                {"NVIDIA_VISIBLE_DEVICES=all"},
                false,
                "",
                "",
                kAll,
                kDefaultCaps,
                {},
                ""},
        HookRow{"R45_PrivilegedMayConfigureMig",
                {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_MIG_CONFIG_DEVICES=mig0,mig1"},
                true,
                "",
                "",
                kAll,
                kDefaultCaps,
                {},
                ""},
        HookRow{"R46_UnprivilegedMigConfigFails",
                {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_MIG_CONFIG_DEVICES=mig0,mig1"},
                false,
                "",
                "",
                kAll,
                {},
                {},
                "cannot set MIG_CONFIG_DEVICES in non privileged container"},
        HookRow{"R46_UnprivilegedMigMonitorFails",
                {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_MIG_MONITOR_DEVICES=all"},
                false,
                "",
                "",
                kAll,
                {},
                {},
                "cannot set MIG_MONITOR_DEVICES in non privileged container"},
        HookRow{"R47_AllLimitedToSupported",
                {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=all"},
                false,
                "video,display",
                "",
                kAll,
                Strings{"display", "video"},
                {},
                ""},
        HookRow{"R48_DefaultCapsWithinSupported",
                {"NVIDIA_VISIBLE_DEVICES=all"},
                false,
                "video,display,compute,utility",
                "",
                kAll,
                kDefaultCaps,
                {},
                ""},
        HookRow{"R49_SwarmResourceOverridesNvd",
                {"NVIDIA_VISIBLE_DEVICES=all", "DOCKER_SWARM_RESOURCE=GPU1,GPU2"},
                false,
                "",
                "DOCKER_SWARM_RESOURCE",
                Strings{"GPU1", "GPU2"},
                kDefaultCaps,
                {},
                ""},
        HookRow{"R50_AbsentSwarmNamesAreSkipped",
                {"NVIDIA_VISIBLE_DEVICES=all", "DOCKER_SWARM_RESOURCE=GPU1,GPU2"},
                false,
                "",
                "NOT_DOCKER_SWARM_RESOURCE,DOCKER_SWARM_RESOURCE",
                Strings{"GPU1", "GPU2"},
                kDefaultCaps,
                {},
                ""},
        HookRow{"R51_LegacyUnsetCapsAreAllSupported",
                {"CUDA_VERSION=9.0"},
                false,
                "compute,display,utility,video",
                "",
                kAll,
                Strings{"compute", "display", "utility", "video"},
                {"cuda>=9.0"},
                ""},
        HookRow{"R52_UnknownSupportedCapabilitiesFail",
                {"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,utility"},
                false,
                "not-compute,not-utility",
                "",
                kAll,
                {},
                {},
                "supported-driver-capabilities"},
        HookRow{"R53_DefaultCapsIntersectSupported",
                {"NVIDIA_VISIBLE_DEVICES=all"},
                false,
                "compute",
                "",
                kAll,
                Strings{"compute"},
                {},
                ""}),
    [](const ::testing::TestParamInfo<HookRow>& p) { return std::string(p.param.name); });

Result<MountRequest> hook_view(Strings env, bool privileged = false,
                               const config::Config& cfg = config::Config{}) {
  auto req = from_spec(SpecBuilder{std::move(env), {}, {}, privileged}.build(), cfg);
  if (!req) return tl::unexpected(req.error());
  return mount_request(*req, cfg);
}

TEST(MountRequest, MigVariablesPassedVerbatimWhenPrivileged) {
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_MIG_CONFIG_DEVICES=mig0,mig1",
                       "NVIDIA_MIG_MONITOR_DEVICES=all"},
                      true);
  ASSERT_TRUE(mr) << mr.error().message();
  EXPECT_EQ(mr->mig_config_devices, "mig0,mig1");
  EXPECT_EQ(mr->mig_monitor_devices, "all");
}

TEST(MountRequest, EmptyMigVariableIsAllowedUnprivileged) {
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_MIG_CONFIG_DEVICES="});
  ASSERT_TRUE(mr) << mr.error().message();
  EXPECT_EQ(mr->mig_config_devices, "");
}

TEST(MountRequest, UnsupportedEnvCapabilityFails) {
  config::Config cfg;
  cfg.supported_driver_capabilities = "compute,utility";
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_DRIVER_CAPABILITIES=compute,video"},
                      false, cfg);
  ASSERT_FALSE(mr);
  EXPECT_NE(mr.error().message().find("unsupported capabilities found"), std::string::npos)
      << mr.error().message();
}

// hook.md §5, observed argv examples.
TEST(MountRequest, ObservedExampleDeviceCapsAndOneRequireElement) {
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=0,GPU-abc",
                       "NVIDIA_DRIVER_CAPABILITIES=compute,utility,video",
                       "NVIDIA_REQUIRE_CUDA=cuda>=11.0 brand=tesla", "CUDA_VERSION=11.0.3"});
  ASSERT_TRUE(mr) << mr.error().message();
  EXPECT_EQ(mr->device_list, "0,GPU-abc");
  EXPECT_EQ(mr->capabilities, (Strings{"compute", "utility", "video"}));
  EXPECT_EQ(mr->requirements, (Strings{"cuda>=11.0 brand=tesla"}));
}

TEST(MountRequest, DuplicateDeviceQuirkGivesLeadingEmptySlot) {
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=0,1,0", "NVIDIA_DRIVER_CAPABILITIES=all"});
  ASSERT_TRUE(mr) << mr.error().message();
  EXPECT_EQ(mr->device_list, ",1,0");
  EXPECT_EQ(mr->capabilities, kAllCaps);
  EXPECT_TRUE(mr->requirements.empty());
}

TEST(MountRequest, NoneOmitsDeviceFlag) {
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=none"});
  ASSERT_TRUE(mr) << mr.error().message();
  EXPECT_EQ(mr->device_list, "");
}

TEST(MountRequest, ImexChannelsBecomeNumbers) {
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_IMEX_CHANNELS=3,4"});
  ASSERT_TRUE(mr) << mr.error().message();
  EXPECT_EQ(mr->imex_channels, (std::vector<std::uint32_t>{3, 4}));
}

TEST(MountRequest, ImexChannelAboveLimitFails) {
  auto mr = hook_view({"NVIDIA_VISIBLE_DEVICES=all", "NVIDIA_IMEX_CHANNELS=1048576"});
  ASSERT_FALSE(mr);
  EXPECT_EQ(mr.error().message(),
            "unsupported IMEX channel value: 1048576 (NVIDIA_IMEX_CHANNELS and the imex volume "
            "mounts take channel numbers below 1048576, or all)");
}

TEST(ImexChannelNumbers, AcceptsUpToLimitAndRejectsGarbage) {
  auto ok = imex_channel_numbers({"0", "1048575", "007"});
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(*ok, (std::vector<std::uint32_t>{0, 1048575, 7}));
  for (const char* bad : {"-1", "foo", "1e3", "99999999999", "3 ", "all"}) {
    auto r = imex_channel_numbers({bad});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().message(), std::string("unsupported IMEX channel value: ") + bad);
  }
}

TEST(MountRequest, InvalidLegacyCudaVersionFails) {
  auto mr = hook_view({"CUDA_VERSION=foo"});
  ASSERT_FALSE(mr);
  EXPECT_NE(mr.error().message().find("CUDA_VERSION"), std::string::npos) << mr.error().message();
}

}  // namespace
}  // namespace nvct::request
