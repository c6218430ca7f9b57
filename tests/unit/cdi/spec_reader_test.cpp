// Strict YAML/JSON decoding (cdi.md §1) and the minimal schema file of §4.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>

#include "nvct/cdi/spec_io.hpp"
#include "nvct/cdi/validate.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cdi {
namespace {

const std::string kData = std::string(NVCT_SOURCE_DIR) + "/tests/data/cdi/";

TEST(SpecReader, MinimalSchemaFileIsValid) {
  auto spec = load_spec_file(kData + "minimal.json");
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->cdi_version, "0.3.0");
  EXPECT_EQ(spec->kind, "vendor.com/device");
  ASSERT_EQ(spec->devices.size(), 1u);
  EXPECT_EQ(spec->devices[0].name, "myDevice");
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].path, "/dev/card1");
}

TEST(SpecReader, EveryFieldIsDecoded) {
  auto spec = load_spec_file(kData + "full.json");
  ASSERT_TRUE(spec) << spec.error().message();
  const auto& e = spec->devices[0].container_edits;
  EXPECT_EQ(spec->annotations.at("b"), "two");
  EXPECT_EQ(spec->devices[0].annotations.at("k"), "v");
  const auto& n = e.device_nodes.at(0);
  EXPECT_EQ(n.host_path, "/host/dev/x");
  EXPECT_EQ(n.type, "c");
  EXPECT_EQ(n.major, 10);
  EXPECT_EQ(n.minor, 200);
  EXPECT_EQ(n.file_mode, 438u);
  EXPECT_EQ(n.permissions, "rw");
  EXPECT_EQ(n.uid, 1000u);
  EXPECT_EQ(n.gid, 44u);
  EXPECT_EQ(e.net_devices.at(0).host_interface_name, "eth1");
  EXPECT_EQ(e.hooks.at(0).timeout, 5);
  EXPECT_EQ(e.hooks.at(0).env, std::vector<std::string>{"B=2"});
  EXPECT_EQ(e.mounts.at(0).type, "bind");
  ASSERT_TRUE(e.intel_rdt);
  EXPECT_EQ(e.intel_rdt->mem_bw_schema, "MB:0=50");
  EXPECT_TRUE(e.intel_rdt->enable_monitoring);
  EXPECT_EQ(e.additional_gids, (std::vector<std::uint32_t>{5, 6}));
  EXPECT_EQ(spec->container_edits.env, std::vector<std::string>{"C=3"});
}

TEST(SpecReader, UnknownFieldIsRejected) {
  auto spec = parse_spec(
      "cdiVersion: 0.3.0\nkind: a/b\ndevices:\n- name: x\n  containerEdits:\n    env: [A=1]\n"
      "    bogus: 1\n",
      "t.yaml");
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message().find("unknown field \"bogus\""), std::string::npos)
      << spec.error().message();
  EXPECT_NE(spec.error().message().find("t.yaml"), std::string::npos);
}

TEST(SpecReader, OldStyleAdditionalGIDsKeyIsUnknown) {
  auto spec = parse_spec(
      R"({"cdiVersion":"0.7.0","kind":"a/b","devices":[{"name":"x","containerEdits":{"additionalGIDs":[5]}}]})",
      "t.json");
  EXPECT_FALSE(spec);
}

TEST(SpecReader, DuplicateKeyIsRejected) {
  auto spec = parse_spec("cdiVersion: 0.3.0\nkind: a/b\nkind: c/d\ndevices: []\n", "t.yaml");
  EXPECT_FALSE(spec);
}

TEST(SpecReader, MissingVersionOrKindIsInvalid) {
  EXPECT_FALSE(parse_spec("kind: a/b\ndevices: []\n", "t.yaml"));
  EXPECT_FALSE(parse_spec("cdiVersion: 0.3.0\ndevices: []\n", "t.yaml"));
}

TEST(SpecReader, MalformedYamlIsAnErrorNotAnException) {
  auto spec = parse_spec("cdiVersion: [unclosed\n", "bad.yaml");
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message().find("bad.yaml"), std::string::npos);
  EXPECT_FALSE(parse_spec("", "empty.yaml"));
  EXPECT_FALSE(parse_spec("- a\n- b\n", "list.yaml"));
}

TEST(SpecReader, PlainNumericNameIsReadAsText) {
  auto spec = parse_spec(
      "cdiVersion: 0.5.0\nkind: a/b\ndevices:\n- name: 0\n  containerEdits:\n    env: [A=1]\n",
      "t.yaml");
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->devices[0].name, "0");
}

TEST(SpecReader, QuotedNumberIsNotAnInteger) {
  auto spec = parse_spec(
      "cdiVersion: 0.3.0\nkind: a/b\ndevices:\n- name: x\n  containerEdits:\n"
      "    deviceNodes:\n    - path: /dev/x\n      major: \"1\"\n",
      "t.yaml");
  EXPECT_FALSE(spec);
}

TEST(SpecReader, YamlOctalFileModeIsRead) {
  auto spec = parse_spec(
      "cdiVersion: 0.3.0\nkind: a/b\ndevices:\n- name: x\n  containerEdits:\n"
      "    deviceNodes:\n    - path: /dev/x\n      fileMode: 0666\n",
      "t.yaml");
  ASSERT_TRUE(spec) << spec.error().message();
  EXPECT_EQ(spec->devices[0].container_edits.device_nodes[0].file_mode, 0666u);
}

TEST(SpecReader, NegativeGidIsRejected) {
  auto spec = parse_spec(
      "cdiVersion: 0.7.0\nkind: a/b\ndevices:\n- name: x\n  containerEdits:\n"
      "    additionalGids: [-1]\n",
      "t.yaml");
  EXPECT_FALSE(spec);
}

TEST(SpecReader, LoadValidatesTheSpec) {
  nvct::testing::TempDir dir;
  auto path = dir.write("bad.yaml",
                        "cdiVersion: 0.3.0\nkind: a/b\ndevices:\n- name: x\n  containerEdits: {}\n");
  auto spec = load_spec_file(path);
  ASSERT_FALSE(spec);
  EXPECT_NE(spec.error().message().find("empty device edits"), std::string::npos)
      << spec.error().message();
}

TEST(SpecReader, OversizedFileIsRejected) {
  nvct::testing::TempDir dir;
  auto path = dir.write("big.yaml", std::string(kMaxSpecFileSize + 1, '#'));
  EXPECT_FALSE(load_spec_file(path));
}

// Issue 18: a "billion laughs" (nine levels of nine aliases: 9^9 = 387 million leaves) is refused
// before any node is built or expanded, in bounded time.
TEST(SpecReader, AliasBombIsRefusedBeforeExpansion) {
  std::string text = "a: &a [x, x, x, x, x, x, x, x, x]\n";
  const char* names = "abcdefghi";
  for (int level = 1; level < 9; ++level) {
    char self = names[level];
    char prev = names[level - 1];
    text += fmt::format("{0}: &{0} [", self);
    for (int i = 0; i < 9; ++i) text += fmt::format("{}*{}", i ? ", " : "", prev);
    text += "]\n";
  }
  text += "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n";
  auto start = std::chrono::steady_clock::now();
  auto r = parse_spec(text, "bomb.yaml");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("failed to parse CDI spec bomb.yaml: the YAML anchor &a at "
                                     "line 1, column 4: aliases are not allowed in CDI specs"),
            std::string::npos)
      << r.error().message();
}

TEST(SpecReader, AnAliasInsideTheSpecIsRefusedToo) {
  auto r = parse_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ncontainerEdits:\n  env: &e [A=1]\n"
      "devices:\n- name: x\n  containerEdits:\n    env: *e\n",
      "alias.yaml");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("the YAML anchor &e at line 4"), std::string::npos)
      << r.error().message();
}

TEST(SpecReader, AmpersandsAndStarsInStringsAreNotAliases) {
  auto r = parse_spec(
      "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: x\n  containerEdits:\n"
      "    env: [\"A=&a\", \"B=*b\", C=x&y*z]\n",
      "plain.yaml");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->devices[0].container_edits.env,
            (std::vector<std::string>{"A=&a", "B=*b", "C=x&y*z"}));
}

}  // namespace
}  // namespace nvct::cdi
