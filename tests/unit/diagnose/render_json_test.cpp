#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "golden.hpp"
#include "nvct/base/version_info.hpp"
#include "nvct/diagnose/render.hpp"

namespace nvct::diagnose {
namespace {

using testing::expect_golden;
using testing::mask_root;

class RenderJson : public testing::ReadOnlyTest {
 protected:
  std::string json_of(Report r) {
    r.duration_ms = 0;
    return mask_root(render_json(r, exit_code(r, Severity::kError)), host.path());
  }
};

TEST_F(RenderJson, HealthyGolden) {
  auto text = json_of(run());
  auto doc = nlohmann::ordered_json::parse(text);
  EXPECT_EQ(doc["version"], nvct::kVersion);
  doc["version"] = "<version>";
  expect_golden("healthy.json", doc.dump(2) + "\n");
}

TEST_F(RenderJson, BrokenGolden) {
  testing::break_host(host);
  auto doc = nlohmann::ordered_json::parse(json_of(run()));
  EXPECT_EQ(doc["exitCode"], 1);
  doc["version"] = "<version>";
  expect_golden("broken.json", doc.dump(2) + "\n");
}

TEST(RenderJsonShape, CamelCaseKeysAndEvidenceOfOkFindings) {
  Report r;
  r.findings = {{"driver.ok", Severity::kOk, "fine", {"seen"}, ""}};
  auto doc = nlohmann::json::parse(render_json(r, 0));
  EXPECT_EQ(doc["schemaVersion"], 1);
  EXPECT_TRUE(doc["host"].contains("driverRoot"));
  EXPECT_TRUE(doc["host"].contains("cdiSpecDirs"));
  EXPECT_EQ(doc["findings"][0]["family"], "driver");
  EXPECT_EQ(doc["findings"][0]["evidence"][0], "seen");
  EXPECT_EQ(doc["summary"]["ok"], 1);
  EXPECT_EQ(doc["exitCode"], 0);
}

TEST(RenderJsonShape, NonUtf8EvidenceIsReplacedNotThrown) {
  Report r;
  r.findings = {{"config.unknown-key", Severity::kWarn, "bad \xff key", {"\xfe"}, ""}};
  EXPECT_NO_THROW(nlohmann::json::parse(render_json(r, 1)));
}

}  // namespace
}  // namespace nvct::diagnose
