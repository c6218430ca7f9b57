#include "nvct/compat/requirement_explain.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::compat {
namespace {

constexpr const char* kReference =
    "requirement error: unsatisfied condition: cuda>=12.4, please update your driver to a newer "
    "version, or use an earlier cuda container";

request::RequirementFacts host(const char* driver, const char* cuda, const char* brand = "Tesla",
                               const char* model = "NVIDIA A100-SXM4-80GB") {
  request::RequirementFacts f;
  f.driver_version = driver;
  f.cuda_version = cuda;
  f.devices.push_back({std::string("8.0"), std::string(brand), std::string(model)});
  return f;
}

TEST(RequirementExplain, NoCompatPackageLineOfTheSpec) {
  nvct::testing::TempDir dir;
  dir.write("etc/os-release", "");
  auto r = check_requirements_explained({"cuda>=12.4"}, host("535.104.05", "12.2"),
                                        {.rootfs = dir.path()});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            std::string(kReference) +
                "\nnvct: this image needs CUDA 12.4 (driver >= 550.54.14); this host has driver "
                "535.104.05 (CUDA 12.2) and the image has no forward-compat package; details: "
                "nvidia-ctk cuda explain " +
                dir.path());
}

TEST(RequirementExplain, CompatPackageThatWouldRunIt) {
  nvct::testing::TempDir dir;
  dir.write("usr/local/cuda/compat/libcuda.so.550.54.15", "");
  auto line = explain_requirement("12.4", host("470.82.01", "11.4"), {.rootfs = dir.path()});
  EXPECT_NE(line.find("forward-compat package (libcuda 550.54.15, CUDA 12.4) would run it"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("NVIDIA_DISABLE_REQUIRE=true"), std::string::npos);
}

TEST(RequirementExplain, CompatPackageOnAGeForce) {
  nvct::testing::TempDir dir;
  dir.write("usr/local/cuda/compat/libcuda.so.550.54.15", "");
  auto line = explain_requirement(
      "12.4", host("470.82.01", "11.4", "GeForce", "NVIDIA GeForce RTX 3090"), {.rootfs = dir.path()});
  EXPECT_NE(line.find("forward compat is not supported on NVIDIA GeForce RTX 3090"),
            std::string::npos)
      << line;
}

TEST(RequirementExplain, CompatPackageTooOldOrDisabled) {
  nvct::testing::TempDir dir;
  dir.write("usr/local/cuda/compat/libcuda.so.535.54.03", "");
  auto line = explain_requirement("12.4", host("470.82.01", "11.4"), {.rootfs = dir.path()});
  EXPECT_NE(line.find("CUDA 12.2) is too old for it"), std::string::npos) << line;
  line = explain_requirement("12.2", host("470.82.01", "11.4"),
                             {.rootfs = dir.path(), .compat_disabled = true});
  EXPECT_NE(line.find("is not used (CUDA compat is disabled in the config)"), std::string::npos)
      << line;
}

TEST(RequirementExplain, OtherConditionsNameTheFact) {
  auto r = check_requirements_explained({"arch<8.0"}, host("550.54.14", "12.4"), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "requirement error: unsatisfied condition: arch<8.0\nnvct: \"arch<8.0\" is not met: "
            "arch<8.0 (the NVIDIA A100-SXM4-80GB has compute capability 8.0)");
  r = check_requirements_explained({"driver>=999"}, host("550.54.14", "12.4"), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("driver>=999 (the driver is 550.54.14)"), std::string::npos);
}

TEST(RequirementExplain, PassingAndInvalidAreUnchanged) {
  EXPECT_TRUE(check_requirements_explained({"cuda>=12.0"}, host("550.54.14", "12.4"), {}));
  auto r = check_requirements_explained({"cuda==12"}, host("550.54.14", "12.4"), {});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message().find('\n'), std::string::npos);
}

TEST(RequirementExplain, NoRootfsNoDetailsPointer) {
  auto line = explain_requirement("99.0", host("550.54.14", "12.4"), {});
  EXPECT_EQ(line,
            "nvct: this image needs CUDA 99.0; this host has driver 550.54.14 (CUDA 12.4) and the "
            "image has no forward-compat package");
}

}  // namespace
}  // namespace nvct::compat
