// cdi.md §2 and §4 rows 1-9.
#include "nvct/request/cdi_name.hpp"

#include <gtest/gtest.h>

namespace nvct::request {
namespace {

TEST(QualifiedName, ValidNamesFromTheReferenceTable) {
  for (const char* name : {"vendor.com/class=dev", "a/b=c", "vendor.com/class=0",
                           "vendor1.com/class.subclass=dev1",
                           "yet_another-vendor2.com/c-lass_2=dev_1:2.3"}) {
    EXPECT_TRUE(is_qualified_name(name)) << name;
  }
}

TEST(QualifiedName, SingleCharVendorAndClassParse) {
  auto q = parse_qualified_name("a/b=c");
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->vendor, "a");
  EXPECT_EQ(q->klass, "b");
  EXPECT_EQ(q->name, "c");
  EXPECT_EQ(q->str(), "a/b=c");
}

TEST(QualifiedName, InvalidVendorFirstOrLastChar) {
  for (const char* name : {"_invalid.com/class=dev", "invalid2.com-/class=dev"}) {
    auto q = parse_qualified_name(name);
    ASSERT_FALSE(q) << name;
    EXPECT_NE(q.error().message().find("vendor"), std::string::npos) << q.error().message();
  }
}

TEST(QualifiedName, InvalidClass) {
  for (const char* name : {"invalid3.com/_class=dev", "invalid4.com/class_=dev"}) {
    auto q = parse_qualified_name(name);
    ASSERT_FALSE(q) << name;
    EXPECT_NE(q.error().message().find("class"), std::string::npos) << q.error().message();
  }
}

TEST(QualifiedName, InvalidDeviceName) {
  for (const char* name : {"invalid5.com/class=-dev", "invalid6.com/class=dev:"}) {
    auto q = parse_qualified_name(name);
    ASSERT_FALSE(q) << name;
    EXPECT_NE(q.error().message().find("name"), std::string::npos) << q.error().message();
  }
}

TEST(QualifiedName, WildcardsSplitButAreNotQualified) {
  QualifiedName q = split_qualified_name("*.com/*dev=*gpu*");
  EXPECT_EQ(q.vendor, "*.com");
  EXPECT_EQ(q.klass, "*dev");
  EXPECT_EQ(q.name, "*gpu*");
  EXPECT_FALSE(is_qualified_name("*.com/*dev=*gpu*"));
}

TEST(QualifiedName, SplitsAtFirstEqualsThenFirstSlash) {
  QualifiedName q = split_qualified_name("v/c/x=a=b");
  EXPECT_EQ(q.vendor, "v");
  EXPECT_EQ(q.klass, "c/x");
  EXPECT_EQ(q.name, "a=b");
}

TEST(QualifiedName, PathIsNeverQualified) {
  QualifiedName q = split_qualified_name("/dev/a/b=c");
  EXPECT_TRUE(q.vendor.empty());
  EXPECT_EQ(q.name, "/dev/a/b=c");
  EXPECT_FALSE(is_qualified_name("/dev/a/b=c"));
}

TEST(QualifiedName, BareNameIsUnqualified) {
  EXPECT_FALSE(is_qualified_name("0"));
  EXPECT_FALSE(is_qualified_name("gpu=0"));
  EXPECT_FALSE(is_qualified_name("nvidia.com/gpu="));
}

TEST(QualifiedName, MigStyleNameWithColonIsValid) {
  EXPECT_TRUE(is_qualified_name("nvidia.com/gpu=0:1"));
  EXPECT_TRUE(validate_device_name("0:1").has_value());
}

TEST(QualifiedName, DeviceNameWithSpaceIsInvalid) {
  EXPECT_FALSE(validate_device_name("a dev ice").has_value());
}

TEST(QualifiedName, KindRules) {
  EXPECT_TRUE(validate_kind("nvidia.com/gpu").has_value());
  EXPECT_TRUE(validate_kind("vendor.com/class.sub").has_value());
  EXPECT_FALSE(validate_kind("vendor.com-/device").has_value());
  EXPECT_FALSE(validate_kind("vendor.com/device=").has_value());
  EXPECT_FALSE(validate_kind("nodash").has_value());
}

TEST(QualifiedName, SpecFileStemIsVendorDashClass) {
  EXPECT_EQ(spec_file_stem("nvidia.com", "gpu"), "nvidia.com-gpu");
}

TEST(QualifiedName, ParsesVendorClassAndNameOfARequest) {
  auto q = parse_qualified_name("nvidia.com/gpu=GPU-1234:0");
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->vendor, "nvidia.com");
  EXPECT_EQ(q->klass, "gpu");
  EXPECT_EQ(q->name, "GPU-1234:0");
  EXPECT_EQ(q->str(), "nvidia.com/gpu=GPU-1234:0");
}

TEST(QualifiedName, RejectsMalformedRequests) {
  for (const char* bad : {"0", "nvidia.com/gpu", "nvidia.com=gpu/0", "/gpu=0", "nvidia.com/=0",
                          "nvidia.com/gpu=", "1nvidia.com/gpu=0", "nvidia.com./gpu=0",
                          "nvidia.com/gpu=0-", "nvidia.com/gpu=a/b", "example.com/device",
                          "nvidia.com/gpu=a b"}) {
    EXPECT_FALSE(is_qualified_name(bad)) << bad;
  }
}

TEST(QualifiedName, ValidatesRuntimeKinds) {
  EXPECT_TRUE(validate_kind("nvidia.com/gpu"));
  EXPECT_TRUE(validate_kind("runtime.nvidia.com/gpu"));
  EXPECT_FALSE(validate_kind("nvidia.com"));
}

}  // namespace
}  // namespace nvct::request
