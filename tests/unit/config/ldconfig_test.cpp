#include "nvct/config/ldconfig.hpp"

#include <gtest/gtest.h>

#include "fake_host.hpp"

namespace nvct::config {
namespace {

using testing::FakeHost;

struct NormalizeRow {
  const char* input;
  std::set<std::string> existing;
  const char* expected;
};

class LdconfigNormalize : public ::testing::TestWithParam<NormalizeRow> {};

TEST_P(LdconfigNormalize, FollowsSpecTable) {
  const NormalizeRow& row = GetParam();
  FakeHost host(row.existing);
  EXPECT_EQ(normalize_ldconfig(row.input, host), row.expected) << "input " << row.input;
}

// spec/config.md §5, one row each.
INSTANTIATE_TEST_SUITE_P(
    SpecTable, LdconfigNormalize,
    ::testing::Values(NormalizeRow{"", {"/sbin/ldconfig.real"}, ""},
                      NormalizeRow{"/sbin/ldconfig", {"/sbin/ldconfig.real"}, "/sbin/ldconfig"},
                      NormalizeRow{"/sbin/ldconfig.real", {}, "/sbin/ldconfig.real"},
                      NormalizeRow{"@/x/ldconfig.real", {"/x/ldconfig.real"}, "@/x/ldconfig.real"},
                      NormalizeRow{
                          "@/x/ldconfig", {"/x/ldconfig.real", "/x/ldconfig"}, "@/x/ldconfig.real"},
                      NormalizeRow{"@/x/ldconfig.real", {"/x/ldconfig"}, "@/x/ldconfig"},
                      NormalizeRow{"@/x/ldconfig", {"/x/ldconfig"}, "@/x/ldconfig"}));

TEST(LdconfigValidate, HostRelativeIsValid) {
  EXPECT_TRUE(validate_ldconfig("@/sbin/ldconfig", false));
}

TEST(LdconfigValidate, ContainerPathIsRejectedAsNotHostRelative) {
  Status s = validate_ldconfig("/sbin/ldconfig", false);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("not host-relative"), std::string::npos)
      << s.error().message();
  EXPECT_NE(s.error().message().find("nvidia-container-cli.ldconfig"), std::string::npos);
}

TEST(LdconfigValidate, ContainerPathIsAllowedByFeatureFlag) {
  EXPECT_TRUE(validate_ldconfig("/sbin/ldconfig", true));
}

}  // namespace
}  // namespace nvct::config
