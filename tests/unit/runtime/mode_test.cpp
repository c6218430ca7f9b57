#include "nvct/runtime/mode.hpp"

#include <gtest/gtest.h>

namespace nvct::runtime {
namespace {

TEST(ResolveMode, LegacyIsLegacy) {
  auto m = resolve_mode("legacy");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, Mode::kLegacy);
  EXPECT_EQ(mode_name(*m), "legacy");
}

TEST(ResolveMode, AutoIsResolvedPerContainer) {
  auto m = resolve_mode("auto");
  ASSERT_TRUE(m);
  EXPECT_EQ(*m, Mode::kAuto);
}

TEST(ResolveMode, CdiAndJitCdiAreModes) {
  EXPECT_EQ(*resolve_mode("cdi"), Mode::kCdi);
  EXPECT_EQ(*resolve_mode("jit-cdi"), Mode::kJitCdi);
  EXPECT_EQ(mode_name(Mode::kJitCdi), "jit-cdi");
}

TEST(ResolveMode, CsvIsTheTegraMode) {
  auto m = resolve_mode("csv");
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_EQ(*m, Mode::kCsv);
  EXPECT_EQ(mode_name(*m), "csv");
}

TEST(EffectiveModeName, CsvIsUsedAsConfigured) {
  EXPECT_EQ(effective_mode_name("csv", "/usr/bin/nvidia-container-runtime"), "csv");
  EXPECT_EQ(effective_mode_name("csv", "nvidia-container-runtime.cdi"), "cdi");
  EXPECT_EQ(effective_mode_name("csv", "nvidia-container-runtime.legacy"), "legacy");
}

TEST(ResolveMode, UnknownModeIsInvalid) {
  auto m = resolve_mode("bogus");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().code(), EINVAL);
  EXPECT_NE(m.error().message().find("invalid mode \"bogus\""), std::string::npos);
}

TEST(ResolveMode, ModeNamesAreCaseSensitiveLikeTheReference) {
  EXPECT_FALSE(resolve_mode("Legacy"));
}

TEST(ResolveMode, EmptyModeMustBeSpecified) {
  auto m = resolve_mode("");
  ASSERT_FALSE(m);
  EXPECT_EQ(m.error().message(), "a mode must be specified");
}

TEST(EffectiveModeName, PlainBinaryUsesConfiguredMode) {
  EXPECT_EQ(effective_mode_name("auto", "/usr/bin/nvidia-container-runtime"), "auto");
  EXPECT_EQ(effective_mode_name("cdi", "nvidia-container-runtime"), "cdi");
}

TEST(EffectiveModeName, LegacySuffixForcesLegacy) {
  EXPECT_EQ(effective_mode_name("cdi", "/usr/bin/nvidia-container-runtime.legacy"), "legacy");
}

TEST(EffectiveModeName, CdiSuffixForcesCdi) {
  EXPECT_EQ(effective_mode_name("legacy", "/usr/bin/nvidia-container-runtime.cdi"), "cdi");
}

}  // namespace
}  // namespace nvct::runtime
