// csv mode's NVIDIA_REQUIRE_* check (runtime.md §7.6, request.md §6): the requirement language
// with unknown properties ignored, facts from libcuda, unknown facts failing closed.
#include "nvct/runtime/csv_requirements.hpp"

#include <gtest/gtest.h>

namespace nvct::runtime {
namespace {

using Strings = std::vector<std::string>;

request::Request gpu(request::Environment env) {
  request::Request r;
  r.devices = Strings{"all"};
  r.env = std::move(env);
  return r;
}

// libcuda 12.4 with device 0 at compute capability 8.7 (Orin); counts its calls.
struct FakeCuda {
  int calls = 0;
  Result<driver::CudaDriverFacts> reply = driver::CudaDriverFacts{12040, "8.7", ""};
  CudaFactsQuery query() {
    return [this](const std::string&) {
      ++calls;
      return reply;
    };
  }
};

Status check(request::Environment env, FakeCuda& cuda, config::Config cfg = {}) {
  return check_csv_requirements(gpu(std::move(env)), cfg, cuda.query());
}

TEST(RequirementProperties, EveryFactorKeyLowerCased) {
  EXPECT_EQ(requirement_properties("cuda<13.6 CUDA>=11.6,arch=5.3  brand=Tegra"),
            (Strings{"cuda", "cuda", "arch", "brand"}));
  EXPECT_EQ(requirement_properties("noop"), Strings{"noop"});
}

TEST(CsvRequirements, SpaceIsOrCommaIsAnd) {
  FakeCuda cuda;
  // cuda<13.6 || (cuda>=11.6 && arch=5.3): the first term holds.
  EXPECT_TRUE(check({{"NVIDIA_REQUIRE_CUDA", "cuda<13.6 cuda>=11.6,arch=5.3"}}, cuda));
  auto r = check({{"NVIDIA_REQUIRE_CUDA", "cuda>=13.0 cuda>=11.6,arch=5.3"}}, cuda);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message().substr(0, r.error().message().find('\n')),
            "requirement error: unsatisfied condition: cuda>=13.0, please update your driver to "
            "a newer version, or use an earlier cuda container");
}

TEST(CsvRequirements, UnknownPropertyIsIgnored) {
  FakeCuda cuda;
  EXPECT_TRUE(check({{"NVIDIA_REQUIRE_X", "jetpack>=99"}}, cuda));
  EXPECT_TRUE(check({{"NVIDIA_REQUIRE_X", "jetpack>=99,cuda>=12.4"}}, cuda));
}

TEST(CsvRequirements, NoOperatorIsAnError) {
  FakeCuda cuda;
  auto r = check({{"NVIDIA_REQUIRE_X", "cuda"}}, cuda);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message().rfind("requirement error: invalid expression: 'cuda' (", 0), 0u)
      << r.error().message();
}

TEST(CsvRequirements, DriverAndBrandHaveNoSourceOnTegraAndAreNotChecked) {
  FakeCuda cuda;
  EXPECT_TRUE(
      check({{"NVIDIA_REQUIRE_DRIVER", "driver>=999"}, {"NVIDIA_REQUIRE_B", "brand=x"}}, cuda));
}

TEST(CsvRequirements, LegacyImageCudaVersionIsARequirement) {
  FakeCuda cuda;
  auto r = check({{"CUDA_VERSION", "12.6.1"}}, cuda);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("unsatisfied condition: cuda>=12.6"), std::string::npos);
  EXPECT_TRUE(check({{"CUDA_VERSION", "12.2"}}, cuda));
}

TEST(CsvRequirements, DisabledOrNoneMeansLibcudaIsNotAsked) {
  FakeCuda cuda;
  EXPECT_TRUE(
      check({{"NVIDIA_REQUIRE_CUDA", "cuda>=99"}, {"NVIDIA_DISABLE_REQUIRE", "true"}}, cuda));
  config::Config cfg;
  cfg.disable_require = true;
  EXPECT_TRUE(check({{"NVIDIA_REQUIRE_CUDA", "cuda>=99"}}, cuda, cfg));
  EXPECT_TRUE(check({{"NVIDIA_REQUIRE_JETPACK", "csv-mounts=all"}}, cuda));
  EXPECT_EQ(cuda.calls, 0);
  // Not a Go true: the check runs.
  EXPECT_FALSE(
      check({{"NVIDIA_REQUIRE_CUDA", "cuda>=99"}, {"NVIDIA_DISABLE_REQUIRE", "yes"}}, cuda));
  EXPECT_EQ(cuda.calls, 1);
}

TEST(CsvRequirements, UnknownCudaVersionFailsClosedNamingTheRequirement) {
  FakeCuda cuda;
  cuda.reply = fail(ENOENT, "libcuda.so.1 not found under /");
  auto r = check({{"NVIDIA_REQUIRE_CUDA", "cuda>=10.0"}}, cuda);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "requirement \"cuda>=10.0\" cannot be checked: the CUDA driver version is unknown: "
            "libcuda.so.1 not found under /");
  // A requirement that does not need the version still passes.
  EXPECT_TRUE(check({{"NVIDIA_REQUIRE_X", "jetpack>=1"}}, cuda));
}

TEST(CsvRequirements, UnknownArchFailsClosedOnlyForArchRequirements) {
  FakeCuda cuda;
  cuda.reply = driver::CudaDriverFacts{12040, std::nullopt, "cuInit failed"};
  EXPECT_TRUE(check({{"NVIDIA_REQUIRE_CUDA", "cuda>=12.0"}}, cuda));
  auto r = check({{"NVIDIA_REQUIRE_ARCH", "arch>=8.0"}}, cuda);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "requirement \"arch>=8.0\" cannot be checked: the compute capability of device 0 is "
            "unknown: cuInit failed");
}

TEST(CsvRequirements, NoQueryInstalledFailsClosed) {
  auto r = check_csv_requirements(gpu({{"NVIDIA_REQUIRE_CUDA", "cuda>=1.0"}}), {}, nullptr);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("no CUDA driver query is available"), std::string::npos);
}

TEST(CsvRequirements, QueryGetsTheDriverRoot) {
  config::Config cfg;
  cfg.cli.root = "/run/tegra";
  std::string seen;
  CudaFactsQuery q = [&](const std::string& root) -> Result<driver::CudaDriverFacts> {
    seen = root;
    return driver::CudaDriverFacts{11040, "7.2", ""};
  };
  EXPECT_TRUE(check_csv_requirements(gpu({{"NVIDIA_REQUIRE_CUDA", "cuda=11.4"}}), cfg, q));
  EXPECT_EQ(seen, "/run/tegra");
  cfg.cli.root.clear();
  EXPECT_TRUE(check_csv_requirements(gpu({{"NVIDIA_REQUIRE_CUDA", "cuda=11.4"}}), cfg, q));
  EXPECT_EQ(seen, "/");
}

}  // namespace
}  // namespace nvct::runtime
