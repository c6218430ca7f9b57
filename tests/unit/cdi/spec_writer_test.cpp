// Golden YAML/JSON round trips in the format's field order (cdi.md §6.4 layout).
#include <gtest/gtest.h>

#include "nvct/base/file.hpp"
#include "nvct/cdi/spec_io.hpp"
#include "nvct/cdi/version.hpp"

namespace nvct::cdi {
namespace {

const std::string kWriterData = std::string(NVCT_SOURCE_DIR) + "/tests/data/cdi/";

std::string read(const std::string& name) {
  auto text = read_file(kWriterData + name);
  EXPECT_TRUE(text) << name;
  return text ? *text : std::string();
}

TEST(SpecWriter, GoldenYamlRoundTripsByteForByte) {
  std::string golden = read("golden.yaml");
  auto spec = parse_spec(golden, "golden.yaml");
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(to_yaml(*spec), golden);
  EXPECT_EQ(minimum_required_version(*spec).str(), spec->cdi_version);
}

TEST(SpecWriter, GoldenJsonRoundTripsByteForByte) {
  std::string golden = read("full.json");
  auto spec = parse_spec(golden, "full.json");
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(to_json_text(*spec), golden);
}

TEST(SpecWriter, YamlAndJsonDecodeToTheSameSpec) {
  auto spec = parse_spec(read("full.json"), "full.json");
  ASSERT_TRUE(spec);
  auto again = parse_spec(to_yaml(*spec), "yaml");
  ASSERT_TRUE(again) << again.error().message() << "\n" << to_yaml(*spec);
  EXPECT_EQ(*again, *spec);
  auto golden = parse_spec(read("golden.yaml"), "golden.yaml");
  ASSERT_TRUE(golden);
  auto via_json = parse_spec(to_json_text(*golden), "json");
  ASSERT_TRUE(via_json);
  EXPECT_EQ(*via_json, *golden);
}

TEST(SpecWriter, FieldOrderFollowsTheFormat) {
  auto spec = parse_spec(read("full.json"), "full.json");
  ASSERT_TRUE(spec);
  auto j = to_json(*spec);
  std::vector<std::string> keys;
  for (const auto& [k, v] : j["devices"][0]["containerEdits"].items()) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"env", "deviceNodes", "netDevices", "hooks", "mounts",
                                            "intelRdt", "additionalGids"}));
  keys.clear();
  for (const auto& [k, v] : j["devices"][0]["containerEdits"]["deviceNodes"][0].items()) {
    keys.push_back(k);
  }
  EXPECT_EQ(keys, (std::vector<std::string>{"path", "hostPath", "type", "major", "minor",
                                            "fileMode", "permissions", "uid", "gid"}));
}

TEST(SpecWriter, EmptyFieldsAreOmittedButDeviceEditsAreNot) {
  Spec s;
  s.cdi_version = "0.3.0";
  s.kind = "a/b";
  Device d;
  d.name = "x";
  s.devices.push_back(d);
  EXPECT_EQ(to_json_text(s),
            R"({"cdiVersion":"0.3.0","kind":"a/b","devices":[{"name":"x","containerEdits":{}}]})"
            "\n");
  EXPECT_EQ(to_yaml(s),
            "---\ncdiVersion: 0.3.0\nkind: a/b\ndevices:\n    - name: x\n      containerEdits: {}\n");
}

TEST(SpecWriter, RenderPicksTheFormat) {
  auto spec = parse_spec(read("minimal.json"), "minimal.json");
  ASSERT_TRUE(spec);
  EXPECT_EQ(render(*spec, Format::kJson), read("minimal.json"));
  EXPECT_EQ(render(*spec, Format::kYaml).rfind("---\n", 0), 0u);
}

}  // namespace
}  // namespace nvct::cdi
