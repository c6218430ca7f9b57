#include "nvct/ctk/toml_text.hpp"

#include <gtest/gtest.h>

namespace nvct::ctk {
namespace {

toml::table parsed_text_table(std::string_view text) {
  auto r = parse_toml(text, "test.toml");
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : toml::table{};
}

TEST(TomlText, EmptyTreeWritesNothing) { EXPECT_EQ(write_toml(toml::table{}), ""); }

TEST(TomlText, KeysSortedAndScalarsBeforeTables) {
  auto t = parsed_text_table("z = 1\n[b]\nx = true\n[a]\ny = \"s\"\n");
  EXPECT_EQ(write_toml(t), "z = 1\n\n[a]\n  y = \"s\"\n\n[b]\n  x = true\n");
}

TEST(TomlText, NestedHeadersIndentTwoSpacesPerLevelAndQuoteDottedKeys) {
  auto t =
      parsed_text_table("[plugins.\"io.containerd.grpc.v1.cri\".containerd]\nsnapshotter = \"overlayfs\"\n");
  EXPECT_EQ(write_toml(t),
            "\n[plugins]\n\n  [plugins.\"io.containerd.grpc.v1.cri\"]\n\n"
            "    [plugins.\"io.containerd.grpc.v1.cri\".containerd]\n"
            "      snapshotter = \"overlayfs\"\n");
}

TEST(TomlText, EmptyTablesAreStillEmitted) {
  auto t = parsed_text_table("[a.b]\n");
  EXPECT_EQ(write_toml(t), "\n[a]\n\n  [a.b]\n");
}

TEST(TomlText, InlineArraysUseCommaSpace) {
  auto t = parsed_text_table("imports = [\"/a/*.toml\",\"/b/*.toml\"]\nempty = []\nn = [1, 2]\n");
  EXPECT_EQ(write_toml(t), "empty = []\nimports = [\"/a/*.toml\", \"/b/*.toml\"]\nn = [1, 2]\n");
}

TEST(TomlText, InlineTablesBecomeSubTables) {
  auto t = parsed_text_table("a = { b = 1 }\n");
  EXPECT_EQ(write_toml(t), "\n[a]\n  b = 1\n");
}

TEST(TomlText, ArraysOfTablesUseDoubleBrackets) {
  auto t = parsed_text_table("[[x]]\nn = 1\n[[x]]\nn = 2\n");
  EXPECT_EQ(write_toml(t), "\n[[x]]\n  n = 1\n\n[[x]]\n  n = 2\n");
}

TEST(TomlText, StringsAreEscaped) {
  auto t = parsed_text_table("s = \"a\\\"b\\\\c\\nd\\te\"\n");
  EXPECT_EQ(write_toml(t), "s = \"a\\\"b\\\\c\\nd\\te\"\n");
}

TEST(TomlText, LargeIntegersAndFloatsSurvive) {
  auto t = parsed_text_table("big = 9223372036854775807\nf = 1.5\ng = 2.0\n");
  EXPECT_EQ(write_toml(t), "big = 9223372036854775807\nf = 1.5\ng = 2.0\n");
}

TEST(TomlText, OutputParsesBackToTheSameTree) {
  auto t =
      parsed_text_table("version = 2\n[plugins.\"a.b\".c]\nx = [\"1\"]\n[plugins.\"a.b\".c.d]\ny = false\n");
  auto again = parsed_text_table(write_toml(t));
  EXPECT_EQ(t, again);
}

TEST(TomlText, SyntaxErrorNamesOriginLineAndColumn) {
  auto r = parse_toml("a = 1\n[b\n", "/etc/containerd/config.toml");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("/etc/containerd/config.toml: line 2"), std::string::npos)
      << r.error().message();
}

}  // namespace
}  // namespace nvct::ctk
