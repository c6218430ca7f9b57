// from_spec: spec/request.md §1-§3 and §9 rows 1-33 (visible devices, swarm variables, the
// privilege gate, volume mounts), IMEX channel requests, CDI annotations.
#include "nvct/request/request.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "nvct/base/file.hpp"
#include "nvct/testing/temp_dir.hpp"
#include "spec_builder.hpp"

namespace nvct::request {
namespace {

using Devices = std::optional<std::vector<std::string>>;
using testing::device_mount;
using testing::SpecBuilder;

struct Row {
  const char* name;
  SpecBuilder spec;
  std::string swarm_resource;
  bool accept_unprivileged = true;
  bool accept_mounts = false;
  Devices expected;
};

class VisibleDevicesTable : public ::testing::TestWithParam<Row> {};

TEST_P(VisibleDevicesTable, MatchesSpecRow) {
  const Row& row = GetParam();
  config::Config cfg;
  cfg.swarm_resource = row.swarm_resource;
  cfg.accept_envvar_unprivileged = row.accept_unprivileged;
  cfg.accept_volume_mounts = row.accept_mounts;
  auto req = from_spec(row.spec.build(), cfg);
  ASSERT_TRUE(req) << req.error().message();
  EXPECT_EQ(req->devices, row.expected);
  EXPECT_EQ(req->is_gpu_container(), row.expected.has_value());
}

const std::vector<std::string> kListNone = {""};
const std::vector<std::string> kListAll = {"all"};
const std::string kSwarm = "DOCKER_RESOURCE_GPUS";

SpecBuilder env(std::vector<std::string> e) { return SpecBuilder{std::move(e), {}, {}, false}; }
SpecBuilder with_mounts(std::vector<std::string> e, std::vector<std::string> ids, bool priv) {
  SpecBuilder s{std::move(e), {}, {}, priv};
  for (auto& id : ids) s.mounts.push_back(device_mount(id));
  return s;
}

INSTANTIATE_TEST_SUITE_P(
    SpecRows, VisibleDevicesTable,
    ::testing::Values(
        Row{"R01_EmptyEnvIsNotAGpuContainer", env({}), "", true, false, std::nullopt},
        Row{"R02_EmptyValueIsNotAGpuContainer", env({"NVIDIA_VISIBLE_DEVICES="}), "", true, false,
            std::nullopt},
        Row{"R03_VoidIsNotAGpuContainer", env({"NVIDIA_VISIBLE_DEVICES=void"}), "", true, false,
            std::nullopt},
        Row{"R04_NoneIsGpuContainerWithoutGpus", env({"NVIDIA_VISIBLE_DEVICES=none"}), "", true,
            false, kListNone},
        Row{"R05_UuidIsKept", env({"NVIDIA_VISIBLE_DEVICES=GPU-12345"}), "", true, false,
            std::vector<std::string>{"GPU-12345"}},
        Row{"R06_LegacyImageWithUuidKeepsUuid",
            env({"NVIDIA_VISIBLE_DEVICES=GPU-12345", "CUDA_VERSION=legacy"}), "", true, false,
            std::vector<std::string>{"GPU-12345"}},
        Row{"R07_LegacyImageWithoutVariableGetsAll", env({"CUDA_VERSION=legacy"}), "", true, false,
            kListAll},
        Row{"R08_SwarmVariableIgnoredWhenNotConfigured", env({"DOCKER_RESOURCE_GPUS=GPU-67890"}),
            "", true, false, std::nullopt},
        Row{"R09_EmptyNvdWithSwarmVariableNotConfigured",
            env({"NVIDIA_VISIBLE_DEVICES=", "DOCKER_RESOURCE_GPUS=GPU-67890"}), "", true, false,
            std::nullopt},
        Row{"R10_NoneWithSwarmVariableNotConfigured",
            env({"NVIDIA_VISIBLE_DEVICES=none", "DOCKER_RESOURCE_GPUS=GPU-67890"}), "", true, false,
            kListNone},
        Row{"R11_NvdWinsWhenSwarmNotConfigured",
            env({"NVIDIA_VISIBLE_DEVICES=GPU-12345", "DOCKER_RESOURCE_GPUS=GPU-67890"}), "", true,
            false, std::vector<std::string>{"GPU-12345"}},
        Row{"R12_LegacyWithUnconfiguredSwarmVariableGetsAll",
            env({"CUDA_VERSION=legacy", "DOCKER_RESOURCE_GPUS=GPU-67890"}), "", true, false, kListAll},
        Row{"R13_SwarmConfiguredEmptyEnv", env({}), kSwarm, true, false, std::nullopt},
        Row{"R14_SwarmConfiguredEmptyValue", env({"DOCKER_RESOURCE_GPUS="}), kSwarm, true, false,
            std::nullopt},
        Row{"R15_SwarmConfiguredVoid", env({"DOCKER_RESOURCE_GPUS=void"}), kSwarm, true, false,
            std::nullopt},
        Row{"R16_SwarmConfiguredNone", env({"DOCKER_RESOURCE_GPUS=none"}), kSwarm, true, false,
            kListNone},
        Row{"R17_SwarmConfiguredUuid", env({"DOCKER_RESOURCE_GPUS=GPU-12345"}), kSwarm, true, false,
            std::vector<std::string>{"GPU-12345"}},
        Row{"R17_SwarmConfiguredUuidLegacy",
            env({"DOCKER_RESOURCE_GPUS=GPU-12345", "CUDA_VERSION=legacy"}), kSwarm, true, false,
            std::vector<std::string>{"GPU-12345"}},
        Row{"R18_SwarmVariableOverridesNvd",
            env({"NVIDIA_VISIBLE_DEVICES=GPU-12345", "DOCKER_RESOURCE_GPUS=GPU-67890"}), kSwarm,
            true, false, std::vector<std::string>{"GPU-67890"}},
        Row{"R19_OtherSwarmVariableName",
            env({"NVIDIA_VISIBLE_DEVICES=GPU-12345", "DOCKER_RESOURCE_GPUS_ADDITIONAL=GPU-67890"}),
            "DOCKER_RESOURCE_GPUS_ADDITIONAL", true, false, std::vector<std::string>{"GPU-67890"}},
        Row{"R20_SeveralSwarmVariablesConcatenate",
            env({"DOCKER_RESOURCE_GPUS=MIG-12345", "DOCKER_RESOURCE_GPUS_ADDITIONAL=GPU-67890"}),
            "DOCKER_RESOURCE_GPUS,DOCKER_RESOURCE_GPUS_ADDITIONAL", true, false,
            std::vector<std::string>{"MIG-12345", "GPU-67890"}},
        Row{"R21_OnlyPresentSwarmVariablesCount",
            env({"DOCKER_RESOURCE_GPUS_ADDITIONAL=GPU-67890"}),
            "DOCKER_RESOURCE_GPUS,DOCKER_RESOURCE_GPUS_ADDITIONAL", true, false,
            std::vector<std::string>{"GPU-67890"}},
        Row{"R22_MountsBeatEnvWhenAccepted",
            with_mounts({"NVIDIA_VISIBLE_DEVICES=GPU2,GPU3"}, {"GPU0", "GPU1"}, false), "", false,
            true, std::vector<std::string>{"GPU0", "GPU1"}},
        Row{"R23_UnprivilegedEnvIgnoredWhenNotAccepted",
            with_mounts({"NVIDIA_VISIBLE_DEVICES=GPU0,GPU1"}, {}, false), "", false, true,
            std::nullopt},
        Row{"R24_PrivilegedEnvHonoured",
            with_mounts({"NVIDIA_VISIBLE_DEVICES=GPU0,GPU1"}, {}, true), "", false, true,
            std::vector<std::string>{"GPU0", "GPU1"}},
        Row{"R25_UnprivilegedEnvHonouredWhenAccepted",
            with_mounts({"NVIDIA_VISIBLE_DEVICES=GPU0,GPU1"}, {}, false), "", true, true,
            std::vector<std::string>{"GPU0", "GPU1"}},
        Row{"R26_MountsIgnoredWhenNotAccepted",
            with_mounts({"NVIDIA_VISIBLE_DEVICES=GPU2,GPU3"}, {"GPU0", "GPU1"}, false), "", true,
            false, std::vector<std::string>{"GPU2", "GPU3"}},
        Row{"R27_NeitherAcceptedUnprivileged",
            with_mounts({"NVIDIA_VISIBLE_DEVICES=GPU2,GPU3"}, {"GPU0", "GPU1"}, false), "", false,
            false, std::nullopt},
        Row{"R28_SwarmVariableUnderPrivilegeGate", env({"DOCKER_RESOURCE_GPUS=GPU-12345"}), kSwarm,
            false, false, std::nullopt},
        Row{"R29_MountSourceNotDevNull",
            SpecBuilder{
                {}, {{"/not/dev/null", "/var/run/nvidia-container-devices/GPU0"}}, {}, false},
            "", false, true, std::nullopt},
        Row{"R30_MountDestinationOtherPrefix",
            SpecBuilder{{}, {{"/dev/null", "/other/prefix/GPU0"}}, {}, false}, "", false, true,
            std::nullopt},
        Row{"R31_MountDestinationExactlyRoot",
            SpecBuilder{{}, {{"/dev/null", "/var/run/nvidia-container-devices"}}, {}, false}, "",
            false, true, std::nullopt},
        Row{"R32_MountsKeepCdiLikeIdsInOrder",
            with_mounts({}, {"GPU0", "nvidia.com/gpu=all", "GPU1"}, false), "", false, true,
            std::vector<std::string>{"GPU0", "nvidia.com/gpu=all", "GPU1"}},
        Row{"R33_ImexMountsAreNotGpus", with_mounts({}, {"GPU0", "imex/0", "GPU1"}, false), "",
            false, true, std::vector<std::string>{"GPU0", "GPU1"}}),
    [](const ::testing::TestParamInfo<Row>& p) { return std::string(p.param.name); });

config::Config default_config() { return config::Config{}; }

TEST(VisibleDevices, DuplicateIdKeepsOnlyItsLastSlot) {
  auto req = from_spec(env({"NVIDIA_VISIBLE_DEVICES=0,1,0"}).build(), default_config());
  ASSERT_TRUE(req);
  EXPECT_EQ(req->devices, (std::vector<std::string>{"", "1", "0"}));
}

TEST(VisibleDevices, LastOccurrenceOfEnvNameWins) {
  auto req = from_spec(env({"NVIDIA_VISIBLE_DEVICES=0", "NVIDIA_VISIBLE_DEVICES=void"}).build(),
                       default_config());
  ASSERT_TRUE(req);
  EXPECT_FALSE(req->is_gpu_container());
  req = from_spec(env({"NVIDIA_VISIBLE_DEVICES=void", "NVIDIA_VISIBLE_DEVICES=1"}).build(),
                  default_config());
  ASSERT_TRUE(req);
  EXPECT_EQ(req->devices, (std::vector<std::string>{"1"}));
}

TEST(VisibleDevices, NoneBeforeAllMeansNoGpus) {
  auto req = from_spec(env({"NVIDIA_VISIBLE_DEVICES=none,all"}).build(), default_config());
  ASSERT_TRUE(req);
  EXPECT_EQ(req->devices, kListNone);
}

TEST(VisibleDevices, LegacyRuleNeedsEmptyRequireCuda) {
  auto req = from_spec(env({"CUDA_VERSION=9.0", "NVIDIA_REQUIRE_CUDA=cuda>=9.0"}).build(),
                       default_config());
  ASSERT_TRUE(req);
  EXPECT_FALSE(req->is_gpu_container());
  EXPECT_FALSE(req->is_legacy_image());
  req = from_spec(env({"CUDA_VERSION=9.0", "NVIDIA_REQUIRE_CUDA="}).build(), default_config());
  ASSERT_TRUE(req);
  EXPECT_TRUE(req->is_legacy_image());
  EXPECT_EQ(req->devices, kListAll);
}

TEST(VisibleDevices, PrivilegeGateLogsAWarning) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  config::Config cfg;
  cfg.accept_envvar_unprivileged = false;
  auto req = from_spec(env({"NVIDIA_VISIBLE_DEVICES=all"}).build(), cfg);
  log::set_sink(nullptr);
  ASSERT_TRUE(req);
  EXPECT_FALSE(req->is_gpu_container());
  EXPECT_TRUE(sink->contains("Ignoring devices")) << "no warning logged";
}

TEST(VisibleDevices, MountRequestsHonouredWhenEnvIsGated) {
  config::Config cfg;
  cfg.accept_envvar_unprivileged = false;
  cfg.accept_volume_mounts = true;
  auto req = from_spec(with_mounts({"NVIDIA_VISIBLE_DEVICES=/var/run/nvidia-container-devices"},
                                   {"GPU0-MIG0/0/1"}, false)
                           .build(),
                       cfg);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->devices, (std::vector<std::string>{"GPU0-MIG0/0/1"}));
}

TEST(CdiAnnotations, HonouredOnlyInCdiMode) {
  SpecBuilder s = env({"NVIDIA_VISIBLE_DEVICES=0"});
  s.annotations = {{"cdi.k8s.io/b", "nvidia.com/gpu=1"}, {"cdi.k8s.io/a", "nvidia.com/gpu=0,x"}};
  auto legacy = from_spec(s.build(), default_config());
  ASSERT_TRUE(legacy);
  EXPECT_EQ(legacy->devices, (std::vector<std::string>{"0"}));
  auto cdi = from_spec(s.build(), default_config(), FromSpecOptions{true});
  ASSERT_TRUE(cdi);
  EXPECT_EQ(cdi->devices, (std::vector<std::string>{"nvidia.com/gpu=0", "x", "nvidia.com/gpu=1"}));
}

TEST(CdiAnnotations, BeatVolumeMountsAndBypassPrivilegeGate) {
  config::Config cfg;
  cfg.accept_envvar_unprivileged = false;
  cfg.accept_volume_mounts = true;
  SpecBuilder s = with_mounts({"NVIDIA_VISIBLE_DEVICES=2"}, {"GPU0"}, false);
  s.annotations = {{"cdi.k8s.io/dev", "nvidia.com/gpu=0"}};
  auto req = from_spec(s.build(), cfg, FromSpecOptions{true});
  ASSERT_TRUE(req);
  EXPECT_EQ(req->devices, (std::vector<std::string>{"nvidia.com/gpu=0"}));
}

TEST(CdiAnnotations, PrefixesComeFromConfig) {
  config::Config cfg;
  cfg.runtime.cdi.annotation_prefixes = {"prefix/", "another-prefix/"};
  SpecBuilder s = env({});
  s.annotations = {{"prefix/foo", "example.com/device=bar"},
                   {"another-prefix/bar", "example.com/device=bar"},
                   {"cdi.k8s.io/x", "nvidia.com/gpu=0"}};
  auto req = from_spec(s.build(), cfg, FromSpecOptions{true});
  ASSERT_TRUE(req);
  EXPECT_EQ(req->devices,
            (std::vector<std::string>{"example.com/device=bar", "example.com/device=bar"}));
}

// §9 row 58 and §7.
TEST(ImexChannels, R58_EnvListIsRequested) {
  for (bool legacy : {false, true}) {
    std::vector<std::string> e = {"NVIDIA_IMEX_CHANNELS=3,4"};
    if (legacy) e.push_back("CUDA_VERSION=legacy");
    auto req = from_spec(env(e).build(), default_config());
    ASSERT_TRUE(req);
    EXPECT_EQ(req->imex_channels, (std::vector<std::string>{"3", "4"})) << "legacy=" << legacy;
  }
}

TEST(ImexChannels, AllIsNoRequest) {
  auto req = from_spec(env({"NVIDIA_IMEX_CHANNELS=all"}).build(), default_config());
  ASSERT_TRUE(req);
  EXPECT_TRUE(req->imex_channels.empty());
  req = from_spec(env({"CUDA_VERSION=12.0"}).build(), default_config());
  ASSERT_TRUE(req);
  EXPECT_TRUE(req->imex_channels.empty()) << "legacy images must not request every channel";
}

TEST(ImexChannels, VolumeMountsPreferredWhenAccepted) {
  config::Config cfg;
  cfg.accept_volume_mounts = true;
  auto req =
      from_spec(with_mounts({"NVIDIA_IMEX_CHANNELS=3"}, {"imex/7", "GPU0"}, false).build(), cfg);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->imex_channels, (std::vector<std::string>{"7"}));
  EXPECT_EQ(req->devices, (std::vector<std::string>{"GPU0"}));
}

TEST(ImexChannels, UnderThePrivilegeGate) {
  config::Config cfg;
  cfg.accept_envvar_unprivileged = false;
  auto req = from_spec(env({"NVIDIA_IMEX_CHANNELS=3"}).build(), cfg);
  ASSERT_TRUE(req);
  EXPECT_TRUE(req->imex_channels.empty());
  SpecBuilder priv = env({"NVIDIA_IMEX_CHANNELS=3"});
  priv.privileged = true;
  req = from_spec(priv.build(), cfg);
  ASSERT_TRUE(req);
  EXPECT_EQ(req->imex_channels, (std::vector<std::string>{"3"}));
}

TEST(ImexChannels, IgnoredWithFeatureFlag) {
  config::Config cfg;
  cfg.accept_volume_mounts = true;
  cfg.features.ignore_imex_channel_requests = true;
  auto req = from_spec(with_mounts({"NVIDIA_IMEX_CHANNELS=3"}, {"imex/7"}, false).build(), cfg);
  ASSERT_TRUE(req);
  EXPECT_TRUE(req->imex_channels.empty());
}

TEST(FromSpec, MalformedEnvIsAnErrorNamingTheField) {
  nlohmann::ordered_json spec = {{"process", {{"env", {"A=1", 5}}}}};
  auto req = from_spec(spec, default_config());
  ASSERT_FALSE(req);
  EXPECT_NE(req.error().message().find("process.env[1]"), std::string::npos)
      << req.error().message();
}

TEST(FromSpec, PrivilegedFlagIsReported) {
  SpecBuilder s = env({});
  s.privileged = true;
  auto req = from_spec(s.build(), default_config());
  ASSERT_TRUE(req);
  EXPECT_TRUE(req->privileged);
}

}  // namespace
}  // namespace nvct::request

namespace nvct::request {
namespace {

// Realistic specs from tests/data/request.
Result<Request> from_fixture(const std::string& name, const config::Config& cfg,
                             FromSpecOptions options = {}) {
  auto text = read_file(std::string(NVCT_SOURCE_DIR) + "/tests/data/request/" + name);
  if (!text) return tl::unexpected(text.error());
  auto spec = nlohmann::ordered_json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (spec.is_discarded()) return fail("fixture " + name + " is not JSON");
  return from_spec(spec, cfg, options);
}

TEST(Fixtures, DockerSpecUsesLastNvdAndIgnoresMountsAndAnnotations) {
  auto req = from_fixture("docker_gpus_device0.json", config::Config{});
  ASSERT_TRUE(req) << req.error().message();
  EXPECT_EQ(req->devices, (std::vector<std::string>{"0"}));
  EXPECT_FALSE(req->privileged);
  EXPECT_FALSE(req->is_legacy_image());
}

TEST(Fixtures, DockerSpecInCdiModeUsesAnnotations) {
  auto req = from_fixture("docker_gpus_device0.json", config::Config{}, FromSpecOptions{true});
  ASSERT_TRUE(req) << req.error().message();
  EXPECT_EQ(req->devices, (std::vector<std::string>{"nvidia.com/gpu=3"}));
}

TEST(Fixtures, KubernetesVolumeMountStrategy) {
  config::Config cfg;
  cfg.accept_envvar_unprivileged = false;
  cfg.accept_volume_mounts = true;
  auto req = from_fixture("k8s_volume_mounts.json", cfg);
  ASSERT_TRUE(req) << req.error().message();
  EXPECT_EQ(req->devices, (std::vector<std::string>{"GPU-8f3c2b1a-0000-1111-2222-333344445555",
                                                    "MIG-5f6a7b8c-0000-1111-2222-333344445555"}));
  EXPECT_EQ(req->imex_channels, (std::vector<std::string>{"2"}));
}

TEST(Fixtures, KubernetesVolumeMountStrategyWithoutAcceptingMountsIsGated) {
  config::Config cfg;
  cfg.accept_envvar_unprivileged = false;
  auto req = from_fixture("k8s_volume_mounts.json", cfg);
  ASSERT_TRUE(req) << req.error().message();
  EXPECT_FALSE(req->is_gpu_container());
  EXPECT_TRUE(req->imex_channels.empty());
}

}  // namespace
}  // namespace nvct::request
