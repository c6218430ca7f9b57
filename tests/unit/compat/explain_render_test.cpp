#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "nvct/compat/explain.hpp"

namespace nvct::compat {
namespace {

const std::string kFixtures = std::string(NVCT_SOURCE_DIR) + "/tests/fixtures/cuda";

// The committed cuobjdump output without its "cuobjdump info : No PTX file found" notes.
std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::string out, line;
  while (std::getline(in, line))
    if (line.rfind("cuobjdump info", 0) != 0) out += line + "\n";
  return out;
}

TEST(ExplainRender, ListEqualsCuobjdump) {
  for (const char* name : {"multi", "multi-compressed", "ptx-only", "sm70-only", "lib.so"}) {
    ExplainOptions o;
    o.path = kFixtures + "/" + name;
    auto r = explain(o, DriverFacts{});
    ASSERT_TRUE(r) << name;
    EXPECT_EQ(render_list(*r), slurp(o.path + ".list-elf") + slurp(o.path + ".list-ptx")) << name;
  }
}

TEST(ExplainRender, JsonNeverOmitsAField) {
  ExplainOptions o;
  o.path = kFixtures + "/multi-compressed";
  DriverFacts d;
  d.version = "550.54.14";
  d.cuda_version = "12.4";
  GpuFacts g;
  g.arch = "8.0";
  d.gpus.push_back(g);
  auto r = explain(o, d);
  ASSERT_TRUE(r);
  auto j = nlohmann::json::parse(render_json(*r));
  for (const char* key : {"schemaVersion", "input", "driver", "gpus", "image", "runtime", "files",
                          "summary", "exitCode"})
    EXPECT_TRUE(j.contains(key)) << key;
  EXPECT_TRUE(j["image"].is_null());
  EXPECT_EQ(j["driver"]["source"], "flags");
  EXPECT_TRUE(j["gpus"][0]["index"].is_null());
  EXPECT_EQ(j["gpus"][0]["forwardCompat"], "unknown");
  const auto& e = j["files"][0]["entries"][0];
  EXPECT_EQ(e["compressed"], true);
  EXPECT_TRUE(e.contains("archSpecific"));
  EXPECT_EQ(j["files"][0]["verdicts"][0]["verdict"], "native");
  EXPECT_EQ(j["summary"]["native"], 1);
}

TEST(ExplainRender, TextWithoutGpusListsTheShippedArchs) {
  ExplainOptions o;
  o.path = kFixtures + "/multi";
  auto r = explain(o, DriverFacts{});
  ASSERT_TRUE(r);
  auto text = render_text(*r);
  EXPECT_NE(text.find("multi\n    SASS sm_52 sm_70 sm_80 sm_90"), std::string::npos) << text;
  EXPECT_NE(text.find("PTX compute_90 (ISA 7.8, compressed)"), std::string::npos) << text;
  EXPECT_NE(text.find("Verdict: no GPU to judge against (use --gpu-arch)"), std::string::npos);
}

}  // namespace
}  // namespace nvct::compat
