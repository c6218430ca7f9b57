#include "hook_mode.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::hook {
namespace {

request::Request gpu_request(std::vector<std::string> devices) {
  request::Request req;
  req.devices = std::move(devices);
  return req;
}

TEST(HookMode, ExplicitLegacyIsUsedAsRequested) {
  auto d = resolve_hook_mode("legacy", gpu_request({"0"}), {});
  EXPECT_EQ(d.mode, "legacy");
  EXPECT_EQ(d.line, "Using requested mode 'legacy'");
}

TEST(HookMode, AutoOnADgpuHostIsLegacy) {
  auto d = resolve_hook_mode("auto", gpu_request({"all"}), PlatformFacts{false, true});
  EXPECT_EQ(d.mode, "legacy");
  EXPECT_EQ(d.line, "Auto-detected mode as 'legacy'");
}

TEST(HookMode, AutoWithoutPlatformInfoIsLegacy) {
  // The runtime's auto falls back to jit-cdi here; the hook's default is legacy.
  EXPECT_EQ(resolve_hook_mode("auto", gpu_request({"0"}), {}).mode, "legacy");
}

TEST(HookMode, AutoOnTegraWithoutNvmlIsCsv) {
  EXPECT_EQ(resolve_hook_mode("auto", gpu_request({"0"}), PlatformFacts{true, false}).mode, "csv");
}

TEST(HookMode, AutoOnTegraFilesWithNvmlIsLegacy) {
  EXPECT_EQ(resolve_hook_mode("auto", gpu_request({"0"}), PlatformFacts{true, true}).mode,
            "legacy");
}

TEST(HookMode, AutoWithOnlyQualifiedCdiNamesIsCdi) {
  EXPECT_EQ(
      resolve_hook_mode("auto", gpu_request({"nvidia.com/gpu=0", "nvidia.com/gpu=1"}), {}).mode,
      "cdi");
  EXPECT_EQ(resolve_hook_mode("auto", gpu_request({"nvidia.com/gpu=0", "0"}), {}).mode, "legacy");
}

TEST(HookMode, NonLegacyModeFailsWithTheReferenceMessage) {
  config::Config cfg;
  cfg.runtime.mode = "cdi";
  auto r = assert_legacy_mode(cfg, gpu_request({"0"}), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            std::string("Using requested mode 'cdi'\n") + kDirectInvocationError);
  EXPECT_EQ(std::string(kDirectInvocationError),
            "invoking the NVIDIA Container Runtime Hook directly (e.g. specifying the docker "
            "--gpus flag) is not supported. Please use the NVIDIA Container Runtime (e.g. specify "
            "the --runtime=nvidia flag) instead.");
}

TEST(HookMode, AutoDetectedCsvFailsWithTheDetectedLine) {
  config::Config cfg;  // mode = auto
  auto r = assert_legacy_mode(cfg, gpu_request({"0"}), PlatformFacts{true, false});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message().rfind("Auto-detected mode as 'csv'\n", 0), 0u);
}

TEST(HookMode, LegacyPassesAndReportsTheLine) {
  config::Config cfg;
  cfg.runtime.mode = "legacy";
  auto r = assert_legacy_mode(cfg, gpu_request({"0"}), {});
  ASSERT_TRUE(r);
  ASSERT_TRUE(*r);
  EXPECT_EQ((*r)->line, "Using requested mode 'legacy'");
}

TEST(HookMode, SkipModeDetectionChecksAndPrintsNothing) {
  config::Config cfg;
  cfg.runtime.mode = "cdi";
  cfg.hook.skip_mode_detection = true;
  auto r = assert_legacy_mode(cfg, gpu_request({"0"}), {});
  ASSERT_TRUE(r);
  EXPECT_FALSE(*r);
}

TEST(HookMode, ProbeFindsNvmlUnderTheDriverRoot) {
  nvct::testing::TempDir root;
  EXPECT_FALSE(probe_platform(root.path()).nvml);
  root.write("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", "");
  EXPECT_TRUE(probe_platform(root.path()).nvml);
}

TEST(HookMode, ProbeLooksInEveryLibraryDirectory) {
  nvct::testing::TempDir root;
  root.write("usr/lib64/libnvidia-ml.so.1", "");
  EXPECT_TRUE(probe_platform(root.path()).nvml);
  nvct::testing::TempDir other;
  other.write("usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1", "");
  EXPECT_TRUE(probe_platform(other.path() + "/").nvml);
}

}  // namespace
}  // namespace nvct::hook
