// Toolkit-side requirements: spec/request.md §6, §10.5 and §9 rows 39-40, 54-57.
#include "nvct/request/requirements.hpp"

#include <gtest/gtest.h>

#include "request_with_env.hpp"

#include <string>
#include <vector>

namespace nvct::request {
namespace {

TEST(Requirements, R54_JetpackVariablesAreNotRequirements) {
  auto reqs = requirements(testing::with_env({{"NVIDIA_REQUIRE_JETPACK", "csv-mounts=all"},
                                              {"NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS", "base-only"}}),
                           config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_TRUE(reqs->empty());
}

TEST(Requirements, R55_LegacyCudaVersionBecomesCudaRequirement) {
  auto reqs = requirements(testing::with_env({{"CUDA_VERSION", "11.6"}}), config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_EQ(*reqs, (std::vector<std::string>{"cuda>=11.6"}));
}

TEST(Requirements, R39_RequireVariablesFollowTheLegacyCudaRequirement) {
  auto reqs = requirements(testing::with_env({{"CUDA_VERSION", "9.0"},
                                              {"NVIDIA_REQUIRE_REQ1", "req1=false"},
                                              {"NVIDIA_REQUIRE_REQ0", "req0=true"}}),
                           config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_EQ(*reqs, (std::vector<std::string>{"cuda>=9.0", "req0=true", "req1=false"}));
}

TEST(Requirements, R40_DisableRequireEnvDropsEverything) {
  auto reqs = requirements(testing::with_env({{"CUDA_VERSION", "9.0"},
                                              {"NVIDIA_REQUIRE_REQ0", "req0=true"},
                                              {"NVIDIA_DISABLE_REQUIRE", "true"}}),
                           config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_TRUE(reqs->empty());
}

TEST(Requirements, ConfigDisableRequireDropsEverything) {
  config::Config cfg;
  cfg.disable_require = true;
  auto reqs = requirements(testing::with_env({{"NVIDIA_REQUIRE_CUDA", "cuda>=12.0"}}), cfg);
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_TRUE(reqs->empty());
}

TEST(Requirements, DisableRequireWithSuffixSIsNotTheVariable) {
  auto reqs = requirements(testing::with_env({{"NVIDIA_REQUIRE_CUDA", "cuda>=12.0"},
                                              {"NVIDIA_DISABLE_REQUIRES", "true"}}),
                           config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_EQ(*reqs, (std::vector<std::string>{"cuda>=12.0"}));
}

TEST(Requirements, NonBoolDisableRequireIsFalse) {
  for (const char* v : {"yes", "on", "TRUE ", "tRuE", "", "2"}) {
    auto reqs = requirements(
        testing::with_env({{"NVIDIA_REQUIRE_CUDA", "cuda>=12.0"}, {"NVIDIA_DISABLE_REQUIRE", v}}),
        config::Config{});
    ASSERT_TRUE(reqs);
    EXPECT_EQ(reqs->size(), 1u) << "NVIDIA_DISABLE_REQUIRE=" << v;
  }
}

TEST(Requirements, ModernImageDoesNotAddCudaVersion) {
  auto reqs = requirements(testing::with_env({{"CUDA_VERSION", "12.4.1"},
                                              {"NVIDIA_REQUIRE_CUDA", "cuda>=12.4 brand=tesla"}}),
                           config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_EQ(*reqs, (std::vector<std::string>{"cuda>=12.4 brand=tesla"}));
}

TEST(Requirements, InvalidCudaVersionIsIgnoredWhenRequireIsDisabled) {
  auto reqs =
      requirements(testing::with_env({{"CUDA_VERSION", "foo"}, {"NVIDIA_DISABLE_REQUIRE", "1"}}),
                   config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_TRUE(reqs->empty());
}

TEST(Requirements, EmptyRequireValueRequiresNothing) {
  auto reqs = requirements(testing::with_env({{"NVIDIA_REQUIRE_ARCH", ""}}), config::Config{});
  ASSERT_TRUE(reqs) << reqs.error().message();
  EXPECT_TRUE(reqs->empty());
}

TEST(GoBool, AcceptsExactlyGoSpellings) {
  for (const char* t : {"1", "t", "T", "TRUE", "true", "True"})
    EXPECT_EQ(parse_go_bool(t), true) << t;
  for (const char* f : {"0", "f", "F", "FALSE", "false", "False"}) {
    EXPECT_EQ(parse_go_bool(f), false) << f;
  }
  for (const char* x : {"", "yes", "tRUE", " true", "enabled"}) {
    EXPECT_EQ(parse_go_bool(x), std::nullopt) << x;
  }
}

struct VersionRow {
  const char* input;
  const char* major_minor;
};

class CudaVersionValid : public ::testing::TestWithParam<VersionRow> {};

// §9 row 56.
TEST_P(CudaVersionValid, R56_ParsesToMajorMinor) {
  auto r = cuda_major_minor(GetParam().input);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, GetParam().major_minor);
}

INSTANTIATE_TEST_SUITE_P(
    SpecRows, CudaVersionValid,
    ::testing::Values(VersionRow{"0", "0.0"}, VersionRow{"8", "8.0"}, VersionRow{"7.5", "7.5"},
                      VersionRow{"9.0.116", "9.0"}, VersionRow{"v11.6", "11.6"},
                      VersionRow{"4294967295.4294967295.4294967295", "4294967295.4294967295"},
                      VersionRow{"12.4.1-rc.1+build.5", "12.4"}));

TEST(CudaVersion, InvalidSaysWhatTheValueMustLookLike) {
  auto r = cuda_major_minor("9.foo");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "invalid CUDA_VERSION '9.foo': not a version; an image that sets CUDA_VERSION without "
            "NVIDIA_REQUIRE_CUDA needs it as MAJOR[.MINOR[.PATCH]], e.g. 12.4.1");
}

class CudaVersionInvalid : public ::testing::TestWithParam<const char*> {};

// §9 row 57.
TEST_P(CudaVersionInvalid, R57_IsAnError) {
  auto r = cuda_major_minor(GetParam());
  ASSERT_FALSE(r) << "parsed as " << *r;
  EXPECT_NE(r.error().message().find("invalid CUDA_VERSION"), std::string::npos);
  auto reqs = requirements(testing::with_env({{"CUDA_VERSION", GetParam()}}), config::Config{});
  EXPECT_FALSE(reqs) << "a legacy image with this CUDA_VERSION must fail the hook";
}

INSTANTIATE_TEST_SUITE_P(SpecRows, CudaVersionInvalid,
                         ::testing::Values("foo", "foo.5.10", "9.0.116.50", "9.0.116foo", "7.foo",
                                           "9.0.bar", "9.4294967296", "9.0.116.", "9..0", "9.",
                                           ".5.10", "-9", "+9", "-9.1.116", "-9.-1.-116", "09.1",
                                           "vv9"));

}  // namespace
}  // namespace nvct::request
