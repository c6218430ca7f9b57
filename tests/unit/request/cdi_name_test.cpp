// CDI qualified names, as used by the request (spec/request.md §3, §4).
#include "nvct/request/cdi_name.hpp"

#include <gtest/gtest.h>

namespace nvct::request {
namespace {

TEST(CdiName, ParsesVendorClassAndName) {
  auto q = parse_qualified_name("nvidia.com/gpu=GPU-1234:0");
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->vendor, "nvidia.com");
  EXPECT_EQ(q->klass, "gpu");
  EXPECT_EQ(q->name, "GPU-1234:0");
  EXPECT_EQ(q->kind(), "nvidia.com/gpu");
  EXPECT_EQ(q->str(), "nvidia.com/gpu=GPU-1234:0");
}

TEST(CdiName, DeviceNameMayStartWithDigit) { EXPECT_TRUE(is_qualified_name("nvidia.com/gpu=0")); }

TEST(CdiName, RejectsMalformedNames) {
  for (const char* bad :
       {"0", "nvidia.com/gpu", "nvidia.com=gpu/0", "/gpu=0", "nvidia.com/=0",
        "nvidia.com/gpu=", "1nvidia.com/gpu=0", "nvidia.com./gpu=0", "nvidia.com/gp.u=0",
        "nvidia.com/gpu=0-", "nvidia.com/gpu=a/b", "example.com/device", "nvidia.com/gpu=a b"}) {
    EXPECT_FALSE(is_qualified_name(bad)) << bad;
  }
}

TEST(CdiName, ValidateKind) {
  EXPECT_TRUE(validate_kind("nvidia.com/gpu"));
  EXPECT_TRUE(validate_kind("runtime.nvidia.com/gpu"));
  EXPECT_FALSE(validate_kind("nvidia.com"));
  EXPECT_FALSE(validate_kind("nvidia.com/gpu/x"));
}

}  // namespace
}  // namespace nvct::request
