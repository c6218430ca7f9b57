// `auto` resolution: the rows of the reference's internal/info/auto_test.go (runtime.md §6).
#include "nvct/runtime/cdi_mode_auto.hpp"

#include <gtest/gtest.h>

#include "nvct/config/config.hpp"
#include "nvct/request/request.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using AutoDevices = std::optional<std::vector<std::string>>;

PlatformFacts facts(bool nvml, bool dxcore, bool tegra_files, bool integrated_gpu) {
  PlatformFacts p;
  p.nvml = nvml;
  p.dxcore = dxcore;
  p.tegra_files = tegra_files;
  p.integrated_gpu = integrated_gpu;
  return p;
}

PlatformFacts nvml() { return facts(true, false, false, false); }

// The request the runtime builds for auto resolution (CDI annotations honoured, volume mounts
// accepted), from env entries and device-list mounts.
AutoDevices request_devices(const std::vector<std::string>& env,
                        const std::vector<std::string>& mounts) {
  nlohmann::ordered_json spec = {{"ociVersion", "1.0.2"}};
  spec["process"]["env"] = env;
  spec["mounts"] = nlohmann::ordered_json::array();
  for (const auto& m : mounts)
    spec["mounts"].push_back({{"destination", "/var/run/nvidia-container-devices/" + m},
                              {"type", "bind"},
                              {"source", "/dev/null"}});
  config::Config cfg;
  cfg.accept_volume_mounts = true;
  auto r = request::from_spec(spec, cfg, request::FromSpecOptions{.cdi_mode = true});
  EXPECT_TRUE(r) << r.error().message();
  return r ? r->devices : AutoDevices{};
}

TEST(AutoMode, NoPlatformInfoIsJitCdi) {
  EXPECT_EQ(resolve_auto_mode(AutoDevices{{"0"}}, PlatformFacts{}), AutoMode::kJitCdi);
}

TEST(AutoMode, TegraFilesWithoutNvmlIsCsv) {
  EXPECT_EQ(resolve_auto_mode(AutoDevices{{"0"}}, facts(false, false, true, false)), AutoMode::kCsv);
}

TEST(AutoMode, IntegratedGpuIsCsvEvenWithNvml) {
  EXPECT_EQ(resolve_auto_mode(AutoDevices{{"0"}}, facts(true, false, false, true)), AutoMode::kCsv);
}

TEST(AutoMode, NvmlAndTegraFilesWithoutIgpuIsJitCdi) {
  EXPECT_EQ(resolve_auto_mode(AutoDevices{{"0"}}, facts(true, false, true, false)), AutoMode::kJitCdi);
}

TEST(AutoMode, WslDxcoreIsJitCdi) {
  EXPECT_EQ(resolve_auto_mode(AutoDevices{{"0"}}, facts(false, true, false, false)), AutoMode::kJitCdi);
}

TEST(AutoMode, EnvQualifiedAllIsCdi) {
  EXPECT_EQ(
      resolve_auto_mode(request_devices({"NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=all"}, {}), nvml()),
      AutoMode::kCdi);
}

TEST(AutoMode, EnvTwoQualifiedNamesIsCdi) {
  EXPECT_EQ(resolve_auto_mode(
                request_devices({"NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=0,nvidia.com/gpu=1"}, {}),
                nvml()),
            AutoMode::kCdi);
}

TEST(AutoMode, QualifiedPlusUnqualifiedIsJitCdiOrCsvOnTegra) {
  auto d = request_devices({"NVIDIA_VISIBLE_DEVICES=nvidia.com/gpu=0,0"}, {});
  EXPECT_EQ(resolve_auto_mode(d, nvml()), AutoMode::kJitCdi);
  EXPECT_EQ(resolve_auto_mode(d, facts(false, false, true, false)), AutoMode::kCsv);
}

TEST(AutoMode, CdiVolumeMountsOnlyIsCdi) {
  EXPECT_EQ(resolve_auto_mode(request_devices({}, {"cdi/nvidia.com/gpu/0"}), nvml()),
            AutoMode::kCdi);
}

TEST(AutoMode, CdiMountPlusPlainMountIsJitCdi) {
  EXPECT_EQ(resolve_auto_mode(request_devices({}, {"cdi/nvidia.com/gpu/0", "1"}), nvml()),
            AutoMode::kJitCdi);
}

TEST(AutoMode, CdiMountWinsOverEnvZero) {
  EXPECT_EQ(resolve_auto_mode(
                request_devices({"NVIDIA_VISIBLE_DEVICES=0"}, {"cdi/nvidia.com/gpu/0"}), nvml()),
            AutoMode::kCdi);
}

TEST(AutoMode, NotAGpuContainerFollowsThePlatform) {
  EXPECT_EQ(resolve_auto_mode(std::nullopt, nvml()), AutoMode::kJitCdi);
  EXPECT_FALSE(only_qualified_cdi_devices(AutoDevices{{""}}));
}

TEST(AutoMode, DuplicateSlotsAreIgnored) {
  EXPECT_TRUE(only_qualified_cdi_devices(AutoDevices{{"", "nvidia.com/gpu=0"}}));
}

TEST(ProbePlatform, EmptyRootHasNoPlatform) {
  nvct::testing::TempDir d;
  auto p = probe_platform(d.path());
  EXPECT_FALSE(p.nvml);
  EXPECT_FALSE(p.dxcore);
  EXPECT_FALSE(p.tegra_files);
}

// An ELF header is all the locator's fallback checks (no ld.so.cache in this root).
const std::string kElf = std::string(
                             "\x7f"
                             "ELF\x02\x01\x01",
                             7) +
                         std::string(57, '\0');

TEST(ProbePlatform, NvmlInADefaultLibraryDirIsFound) {
  nvct::testing::TempDir d;
  d.write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", kElf);
  d.write("usr/lib64/libnvidia-ml.so.1", kElf);
  EXPECT_TRUE(probe_platform(d.path()).nvml);
}

TEST(ProbePlatform, NonElfNvmlIsNotAPlatform) {
  nvct::testing::TempDir d;
  d.write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "not a library");
  EXPECT_FALSE(probe_platform(d.path()).nvml);
}

TEST(ProbePlatform, TegraReleaseFileAndSocFamily) {
  nvct::testing::TempDir a;
  a.write("etc/nv_tegra_release", "# R35");
  EXPECT_TRUE(probe_platform(a.path()).tegra_files);
  nvct::testing::TempDir b;
  b.write("sys/devices/soc0/family", "Tegra\n");
  EXPECT_TRUE(probe_platform(b.path()).tegra_files);
}

}  // namespace
}  // namespace nvct::runtime
