// NVIDIA_DRIVER_CAPABILITIES: spec/request.md §5 and §9 row 68.
#include "nvct/request/capabilities.hpp"

#include <gtest/gtest.h>

#include "request_with_env.hpp"

#include <string>
#include <vector>

namespace nvct::request {
namespace {

using Strings = std::vector<std::string>;

struct ListRow {
  const char* input;
  Strings expected;
};

class CapabilityList : public ::testing::TestWithParam<ListRow> {};

TEST_P(CapabilityList, R68_ParsesSortedWithoutEmptyItems) {
  EXPECT_EQ(parse_capability_list(GetParam().input), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(SpecRows, CapabilityList,
                         ::testing::Values(ListRow{"", {}}, ListRow{"  ", {}}, ListRow{",", {}},
                                           ListRow{",cap", {"cap"}}, ListRow{"cap,", {"cap"}},
                                           ListRow{"cap0,,cap1", {"cap0", "cap1"}},
                                           ListRow{"cap1,cap0,cap3", {"cap0", "cap1", "cap3"}}));

TEST(DriverCapabilities, ModernUnsetGetsComputeUtility) {
  auto caps = driver_capabilities(testing::with_env({}), config::Config{});
  ASSERT_TRUE(caps) << caps.error().message();
  EXPECT_EQ(*caps, (Strings{"compute", "utility"}));
}

TEST(DriverCapabilities, LegacyUnsetGetsAllSupported) {
  auto caps = driver_capabilities(testing::with_env({{"CUDA_VERSION", "9.0"}}), config::Config{});
  ASSERT_TRUE(caps) << caps.error().message();
  EXPECT_EQ(*caps, parse_capability_list(kAllCapabilities));
}

TEST(DriverCapabilities, AllAmongOtherItemsMeansAll) {
  auto caps = driver_capabilities(testing::with_env({{kDriverCapabilitiesEnv, "compute,all"}}),
                                  config::Config{});
  ASSERT_TRUE(caps) << caps.error().message();
  EXPECT_EQ(caps->size(), 7u);
}

TEST(DriverCapabilities, UnknownCapabilityFails) {
  auto caps = driver_capabilities(testing::with_env({{kDriverCapabilitiesEnv, "compute,bogus"}}),
                                  config::Config{});
  ASSERT_FALSE(caps);
  EXPECT_EQ(caps.error().message(),
            "unsupported capabilities found in 'compute,bogus' (allowed "
            "'compat32,compute,display,graphics,ngx,utility,video'): NVIDIA_DRIVER_CAPABILITIES "
            "names 'bogus'; use the allowed ones or all");
}

TEST(SupportedCapabilities, AllIsTheFullSet) {
  config::Config cfg;
  cfg.supported_driver_capabilities = "all";
  auto caps = supported_capabilities(cfg);
  ASSERT_TRUE(caps);
  EXPECT_EQ(*caps, parse_capability_list(kAllCapabilities));
}

TEST(SupportedCapabilities, UnknownNameFails) {
  config::Config cfg;
  cfg.supported_driver_capabilities = "compute,not-utility";
  auto caps = supported_capabilities(cfg);
  ASSERT_FALSE(caps);
  EXPECT_NE(caps.error().message().find("not-utility"), std::string::npos);
}

TEST(RawCapabilities, RuntimeReadsRawWithoutDefaults) {
  EXPECT_FALSE(requests_capability(testing::with_env({}), "compute"));
  EXPECT_FALSE(requests_capability(testing::with_env({{kDriverCapabilitiesEnv, ""}}), "utility"));
  EXPECT_TRUE(
      requests_capability(testing::with_env({{kDriverCapabilitiesEnv, "all"}}), "graphics"));
  EXPECT_TRUE(requests_capability(
      testing::with_env({{kDriverCapabilitiesEnv, "compute, graphics"}}), "graphics"));
  EXPECT_FALSE(
      requests_capability(testing::with_env({{kDriverCapabilitiesEnv, "compute"}}), "display"));
  // A legacy image gets all capabilities from the hook, but the raw view has no defaults.
  EXPECT_FALSE(requests_capability(testing::with_env({{"CUDA_VERSION", "9.0"}}), "graphics"));
}

}  // namespace
}  // namespace nvct::request
