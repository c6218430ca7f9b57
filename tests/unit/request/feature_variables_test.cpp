// spec/request.md §8: the other request variables.
#include "nvct/request/feature_variables.hpp"

#include <gtest/gtest.h>

#include "request_with_env.hpp"

#include "nvct/request/requirements.hpp"

namespace nvct::request {
namespace {

TEST(FeatureVariables, GatedDeviceSetsNeedExactlyEnabled) {
  auto req = testing::with_env({{"NVIDIA_GDS", "enabled"},
                                {"NVIDIA_MOFED", "Enabled"},
                                {"NVIDIA_GDRCOPY", "true"},
                                {"NVIDIA_NVSWITCH", "enabled"}});
  EXPECT_EQ(gated_device_modes(req), (std::vector<std::string>{"gds", "nvswitch"}));
  req = testing::with_env({{"NVIDIA_MOFED", "enabled"}, {"NVIDIA_GDRCOPY", "enabled"}});
  EXPECT_EQ(gated_device_modes(req), (std::vector<std::string>{"mofed", "gdrcopy"}));
  EXPECT_TRUE(gated_device_modes(testing::with_env({{"NVIDIA_GDS", "enabled "}})).empty());
}

TEST(FeatureVariables, JetpackCsvMountsAllIsNotARequirement) {
  auto req = testing::with_env({{"NVIDIA_REQUIRE_JETPACK", "csv-mounts=all"},
                                {"NVIDIA_REQUIRE_JETPACK_HOST_MOUNTS", "base-only"}});
  EXPECT_TRUE(csv_mounts_all(req));
  auto reqs = requirements(req, config::Config{});
  ASSERT_TRUE(reqs);
  EXPECT_TRUE(reqs->empty());
  EXPECT_FALSE(csv_mounts_all(testing::with_env({{"NVIDIA_REQUIRE_JETPACK", "csv-mounts=base"}})));
}

}  // namespace
}  // namespace nvct::request
