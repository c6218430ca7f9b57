#include "nvct/diagnose/finding.hpp"

#include <gtest/gtest.h>

namespace nvct::diagnose {
namespace {

TEST(Finding, SeverityNamesRoundTrip) {
  for (Severity s : {Severity::kError, Severity::kWarn, Severity::kInfo, Severity::kOk}) {
    EXPECT_EQ(parse_severity(severity_name(s)), s);
  }
  EXPECT_FALSE(parse_severity("fatal").has_value());
}

TEST(Finding, FamilyIsTheIdUpToTheFirstDot) {
  Finding f{"devices.dev-char-missing", Severity::kError, "", {}, ""};
  EXPECT_EQ(f.family(), "devices");
}

TEST(Finding, FamiliesInSpecOrder) {
  std::vector<std::string_view> names(family_names().begin(), family_names().end());
  EXPECT_EQ(names, (std::vector<std::string_view>{"driver", "devices", "config", "engines",
                                                  "binaries", "cdi", "cgroups", "ipc", "mig",
                                                  "imex"}));
  EXPECT_TRUE(is_family("devices"));
  EXPECT_FALSE(is_family("gpu"));
}

TEST(Finding, OkAddedWhenNothingWorseThanInfo) {
  std::vector<Finding> findings{{"config.mode", Severity::kInfo, "mode auto", {}, ""}};
  add_ok_unless_worse(findings, "config", "valid");
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[1].id, "config.ok");
  EXPECT_EQ(findings[1].severity, Severity::kOk);
}

TEST(Finding, NoOkAfterAWarning) {
  std::vector<Finding> findings{{"config.unknown-key", Severity::kWarn, "x", {}, ""}};
  add_ok_unless_worse(findings, "config", "valid");
  EXPECT_EQ(findings.size(), 1u);
}

}  // namespace
}  // namespace nvct::diagnose
