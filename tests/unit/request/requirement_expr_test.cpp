// The requirement language: spec/request.md §10, every example row of §10.6.
#include "nvct/request/requirement_expr.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

namespace nvct::request {
namespace {

constexpr const char* kHint =
    ", please update your driver to a newer version, or use an earlier cuda container";
constexpr const char* kInvalid = "requirement error: invalid expression";

// §10.6 set-up: driver 550.54.14, CUDA 12.4; GPU0 = Nvidia arch 9.0; GPU1 = Tesla arch 8.0.
const DeviceFacts kGpu0{"9.0", "Nvidia", std::nullopt};
const DeviceFacts kGpu1{"8.0", "Tesla", std::nullopt};

RequirementFacts facts(std::vector<DeviceFacts> devices) {
  return RequirementFacts{"12.4", "550.54.14", std::move(devices)};
}

struct ExprRow {
  const char* name;
  std::vector<std::string> expressions;  // one --require each
  std::vector<DeviceFacts> devices;      // the selected GPUs
  std::string error;                     // "" = pass
};

class RequirementExamples : public ::testing::TestWithParam<ExprRow> {};

TEST_P(RequirementExamples, MatchesSpecRow) {
  const ExprRow& row = GetParam();
  Status st = check_requirements(row.expressions, facts(row.devices));
  if (row.error.empty()) {
    EXPECT_TRUE(st) << st.error().message();
  } else {
    ASSERT_FALSE(st) << "expected: " << row.error;
    if (row.error == std::string(kInvalid)) {
      // The reference's text, then the expression.
      EXPECT_EQ(st.error().message().rfind(
                    std::string(kInvalid) + ": '" + row.expressions.back() + "' (", 0),
                0u)
          << st.error().message();
    } else {
      EXPECT_EQ(st.error().message(), row.error);
    }
  }
}

std::string unsatisfied(const std::string& term, bool hint = false) {
  return "requirement error: unsatisfied condition: " + term + (hint ? kHint : "");
}

const std::vector<DeviceFacts> kDev1 = {kGpu1};  // --device=1

#define PASS_ROW(n, e) \
  ExprRow { n, {e}, kDev1, "" }

INSTANTIATE_TEST_SUITE_P(
    SpecExamples, RequirementExamples,
    ::testing::Values(
        PASS_ROW("CudaGe120Passes", "cuda>=12.0"), PASS_ROW("CudaGe124Passes", "cuda>=12.4"),
        PASS_ROW("CudaLt13Passes", "cuda<13"), PASS_ROW("CudaEq1240Passes", "cuda=12.4.0"),
        PASS_ROW("UppercaseKeyPasses", "CUDA>=12.0"),
        ExprRow{
            "CudaGe125FailsWithDriverHint", {"cuda>=12.5"}, kDev1, unsatisfied("cuda>=12.5", true)},
        ExprRow{"CudaGt124FailsWithoutHint", {"cuda>12.4"}, kDev1, unsatisfied("cuda>12.4")},
        ExprRow{"CudaNe124Fails", {"cuda!=12.4"}, kDev1, unsatisfied("cuda!=12.4")},
        PASS_ROW("DriverGe550Passes", "driver>=550"), PASS_ROW("DriverLt551Passes", "driver<551"),
        PASS_ROW("DriverGe55054Passes", "driver>=550.54"),
        PASS_ROW("DriverEqExactPasses", "driver=550.54.14"),
        ExprRow{
            "DriverGe5505415Fails", {"driver>=550.54.15"}, kDev1, unsatisfied("driver>=550.54.15")},
        PASS_ROW("BrandEqLowercasePasses", "brand=tesla"),
        PASS_ROW("BrandEqUppercasePasses", "brand=TESLA"),
        PASS_ROW("BrandNeOtherPasses", "brand!=geforce"),
        ExprRow{"BrandEqOtherFails", {"brand=geforce"}, kDev1, unsatisfied("brand=geforce")},
        ExprRow{"BrandOrderingIsInvalid", {"brand>tesla"}, kDev1, kInvalid},
        PASS_ROW("ArchGe80Passes", "arch>=8.0"), PASS_ROW("ArchLt9Passes", "arch<9"),
        PASS_ROW("ArchBangAloneIsNotEqual", "arch!9.0"),
        ExprRow{"ArchEq90Fails", {"arch=9.0"}, kDev1, unsatisfied("arch=9.0")},
        PASS_ROW("SpaceIsOr", "cuda>=12.5 brand=tesla"),
        ExprRow{"CommaIsAndMessageShowsWholeTermAndHint",
                {"cuda>=12.5,brand=tesla"},
                kDev1,
                unsatisfied("cuda>=12.5,brand=tesla", true)},
        ExprRow{"MessageShowsOnlyFirstTerm",
                {"brand=tesla,driver>=535,driver<536 brand=nvidia,driver>=550"},
                kDev1,
                unsatisfied("brand=tesla,driver>=535,driver<536")},
        PASS_ROW(
            "TypicalImageRequirementPasses",
            "cuda>=12.4 brand=tesla,driver>=470,driver<471 brand=unknown,driver>=470,driver<471"),
        ExprRow{"UnknownKeyIsInvalid", {"foo>=1"}, kDev1, kInvalid},
        ExprRow{"NonNumericVersionIsInvalid", {"cuda>=12.x"}, kDev1, kInvalid},
        ExprRow{"DoubleEqualsIsInvalid", {"cuda==12.4"}, kDev1, kInvalid},
        ExprRow{"ReversedOperatorIsInvalid", {"cuda=>12.0"}, kDev1, kInvalid},
        ExprRow{"EmptyValueIsInvalid", {"cuda>="}, kDev1, kInvalid},
        ExprRow{"BadFirstTermIsEvaluatedFirst", {"cuda>=abc brand=tesla"}, kDev1, kInvalid},
        PASS_ROW("BadTermAfterPassingTermIsNeverParsed", "brand=tesla cuda>=abc"),
        PASS_ROW("ExtraSpacesAndCommasAreIgnored", " , cuda>=12.0 ,"),
        PASS_ROW("EmptyFactorIsIgnored", "driver>=550,,arch>=8.0"),
        ExprRow{"Device0ArchGe90Passes", {"arch>=9.0"}, {kGpu0}, ""},
        ExprRow{
            "AllDevicesMustSatisfyArch", {"arch>=9.0"}, {kGpu0, kGpu1}, unsatisfied("arch>=9.0")},
        ExprRow{"NoDeviceIgnoresBrand", {"brand=geforce"}, {}, ""},
        ExprRow{"NoDeviceStillChecksCuda", {"cuda>=12.5"}, {}, unsatisfied("cuda>=12.5", true)},
        ExprRow{"EveryRequireFlagMustPass",
                {"cuda>=12.0", "brand=geforce"},
                kDev1,
                unsatisfied("brand=geforce")},
        // --device=0:1 selects a MIG device of GPU0; requirements see its parent GPU.
        ExprRow{"MigDeviceCheckedOnParentGpu", {"brand=nvidia"}, {kGpu0}, ""}),
    [](const ::testing::TestParamInfo<ExprRow>& p) { return std::string(p.param.name); });

TEST(RequirementLanguage, NullVersionsAreSatisfied) {
  RequirementFacts none{std::nullopt, std::nullopt, {DeviceFacts{std::nullopt, std::nullopt, std::nullopt}}};
  EXPECT_TRUE(check_requirement("cuda>=99 driver>=999", none));
  EXPECT_TRUE(check_requirement("cuda>=99,driver>=999,arch>=10,brand=geforce", none));
}

TEST(RequirementLanguage, EmptyExpressionRequiresNothing) {
  EXPECT_TRUE(check_requirement("", facts({kGpu0})));
  EXPECT_TRUE(check_requirement("  ,, ", facts({kGpu0})));
}

TEST(RequirementLanguage, CommaOnlyTermDoesNotSatisfyTheExpression) {
  Status st = check_requirement("cuda>=99 ,", facts({}));
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(), unsatisfied("cuda>=99", true));
}

TEST(RequirementLanguage, CsvModeIgnoresUnknownKeys) {
  EXPECT_TRUE(check_requirement("foo>=1", facts({}), UnknownKey::kIgnore));
  EXPECT_TRUE(
      check_requirement("cuda<13.6 cuda>=11.6,arch=5.3", facts({kGpu0}), UnknownKey::kIgnore));
  Status st = check_requirement("cuda>=13.0,foo=1", facts({}), UnknownKey::kIgnore);
  EXPECT_FALSE(st);
  st = check_requirement("cuda", facts({}), UnknownKey::kIgnore);
  ASSERT_FALSE(st);
  EXPECT_EQ(
      st.error().message().rfind(std::string(kInvalid) + ": 'cuda' (each factor is cuda, ", 0), 0u)
      << "a factor without an operator is invalid: " << st.error().message();
}

TEST(RequirementLanguage, AndBindsTighterThanOr) {
  // cuda<13.6 || (cuda>=11.6 && arch=5.3)
  RequirementFacts f{"14.0", "600", {DeviceFacts{"5.3", "Tesla", std::nullopt}}};
  EXPECT_TRUE(check_requirement("cuda<13.6 cuda>=11.6,arch=5.3", f));
  f.devices[0].arch = "8.0";
  EXPECT_FALSE(check_requirement("cuda<13.6 cuda>=11.6,arch=5.3", f));
}

TEST(VersionCompare, ComponentsAreNumericAndTrailingZerosIgnored) {
  EXPECT_EQ(*compare_versions("12.4", "12.4.0"), 0);
  EXPECT_EQ(*compare_versions("12.01", "12.1"), 0);
  EXPECT_EQ(*compare_versions("12.4.0.0", "12.4"), 0);
  EXPECT_EQ(*compare_versions("12.10", "12.9"), 1);
  EXPECT_EQ(*compare_versions("12.4", "12.4.1"), -1);
  EXPECT_EQ(*compare_versions("550", "550.54.14"), -1);
  EXPECT_EQ(*compare_versions("99999999999999999999999", "1"), 1);
  EXPECT_FALSE(compare_versions("12.x", "12"));
  EXPECT_FALSE(compare_versions("12", "-1"));
}

}  // namespace
}  // namespace nvct::request

namespace nvct::request {
namespace {

// §10.4: every brand value compares case-insensitively with = and !=.
class BrandValues : public ::testing::TestWithParam<const char*> {};

TEST_P(BrandValues, CompareCaseInsensitivelyWithEqualAndNotEqual) {
  std::string brand = GetParam();
  RequirementFacts f{"12.4", "550.54.14", {DeviceFacts{"8.0", brand, std::nullopt}}};
  std::string lower;
  for (char c : brand) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  EXPECT_TRUE(check_requirement("brand=" + lower, f));
  EXPECT_TRUE(check_requirement("brand=" + brand, f));
  EXPECT_FALSE(check_requirement("brand!=" + brand, f));
  EXPECT_TRUE(check_requirement("brand!=" + brand + "X", f));
  Status ordered = check_requirement("brand<=" + brand, f);
  ASSERT_FALSE(ordered);
  EXPECT_EQ(ordered.error().message().rfind(
                "requirement error: invalid expression: 'brand<=" + brand + "' (", 0),
            0u)
      << ordered.error().message();
}

INSTANTIATE_TEST_SUITE_P(SpecTable, BrandValues,
                         ::testing::Values("Quadro", "Tesla", "NVS", "GRID", "GeForce", "TITAN",
                                           "VApps", "VPC", "VCS", "VWS", "CloudGaming", "QuadroRTX",
                                           "NvidiaRTX", "Nvidia", "GeForceRTX", "TitanRTX",
                                           "Unknown"));

}  // namespace
}  // namespace nvct::request

namespace nvct::request {
namespace {

TEST(UnsatisfiedDetail, NamesTheFailingFactorAndTheFact) {
  RequirementFacts f{"12.4", "550.54.14", {DeviceFacts{"9.0", "Nvidia", "NVIDIA H100"}}};
  auto d = unsatisfied_detail("cuda>=99.0", f);
  EXPECT_EQ(d.text, "cuda>=99.0 (the driver supports CUDA 12.4)");
  EXPECT_EQ(d.failed_cuda, "99.0");
  d = unsatisfied_detail("arch<9.0 brand=tesla,driver>=470", f);
  EXPECT_EQ(d.text,
            "arch<9.0 (the NVIDIA H100 has compute capability 9.0); brand=tesla (the NVIDIA H100 "
            "is brand Nvidia)");
  EXPECT_FALSE(d.failed_cuda);
  EXPECT_TRUE(unsatisfied_detail("cuda>=12.0", f).text.empty());
  EXPECT_TRUE(unsatisfied_detail("cuda==12", f).text.empty());
}

TEST(UnsatisfiedDetail, FirstFailingExpression) {
  RequirementFacts f{"12.4", "550.54.14", {}};
  EXPECT_EQ(first_failing({"cuda>=12.0", "driver>=600", "cuda>=99"}, f), "driver>=600");
  EXPECT_FALSE(first_failing({"cuda>=12.0"}, f));
}

}  // namespace
}  // namespace nvct::request
