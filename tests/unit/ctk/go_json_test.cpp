#include "nvct/ctk/go_json.hpp"

#include <gtest/gtest.h>

namespace nvct::ctk {
namespace {

nlohmann::ordered_json parsed_go_json(std::string_view text) {
  auto r = parse_json(text, "test.json");
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : nlohmann::ordered_json();
}

TEST(GoJson, SortsKeysAtEveryLevelWithFourSpaceIndent) {
  auto doc = parsed_go_json(R"({"b":{"z":1,"a":[true,null]},"a":"x"})");
  EXPECT_EQ(write_go_json(doc),
            "{\n    \"a\": \"x\",\n    \"b\": {\n        \"a\": [\n            true,\n"
            "            null\n        ],\n        \"z\": 1\n    }\n}");
}

TEST(GoJson, EmptyContainersStayOnOneLine) {
  EXPECT_EQ(write_go_json(parsed_go_json(R"({"args":[],"o":{}})")),
            "{\n    \"args\": [],\n    \"o\": {}\n}");
}

TEST(GoJson, EscapesHtmlCharactersLikeGo) {
  EXPECT_EQ(write_go_json(parsed_go_json(R"({"k":"<a&b>"})")),
            "{\n    \"k\": \"\\u003ca\\u0026b\\u003e\"\n}");
}

TEST(GoJson, EscapesControlCharactersAndLineSeparators) {
  EXPECT_EQ(write_go_json(parsed_go_json("[\"a\\u0001\\n\\u2028\"]")), "[\n    \"a\\u0001\\n\\u2028\"\n]");
}

TEST(GoJson, KeepsNonAsciiAsUtf8) {
  EXPECT_EQ(write_go_json(parsed_go_json("[\"caf\xC3\xA9\"]")), "[\n    \"caf\xC3\xA9\"\n]");
}

TEST(GoJson, KeepsLargeIntegersExact) {
  EXPECT_EQ(write_go_json(parsed_go_json(R"({"n":18446744073709551615,"m":-9223372036854775808})")),
            "{\n    \"m\": -9223372036854775808,\n    \"n\": 18446744073709551615\n}");
}

TEST(GoJson, RejectsByteOrderMark) { EXPECT_FALSE(parse_json("\xEF\xBB\xBF{}", "daemon.json")); }

TEST(GoJson, RejectsCommentsAndTrailingCommas) {
  EXPECT_FALSE(parse_json("{\"a\":1,}", "daemon.json"));
  EXPECT_FALSE(parse_json("{// c\n\"a\":1}", "daemon.json"));
  EXPECT_FALSE(parse_json("{\"a\":1} x", "daemon.json"));
}

TEST(GoJson, ErrorNamesTheOrigin) {
  auto r = parse_json("{", "/etc/docker/daemon.json");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message().rfind("/etc/docker/daemon.json: invalid JSON", 0), 0u);
}

// Issue 18: hostile daemon.json files are refused before anything is rewritten.
TEST(GoJson, RejectsDeepNestingWithoutCrashing) {
  std::string deep;
  for (int i = 0; i < 100000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(100000, '}');
  auto r = parse_json(deep, "daemon.json");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("nested deeper than 128 levels"), std::string::npos);
}

TEST(GoJson, RejectsNulAndInvalidUtf8) {
  auto nul = parse_json(std::string("{\"a\":1}\0{\"b\":2}", 15), "daemon.json");
  ASSERT_FALSE(nul);
  EXPECT_NE(nul.error().message().find("daemon.json: NUL byte at line 1"), std::string::npos);
  auto bad = parse_json("{\"a\":\"\xC3\x28\"}", "daemon.json");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("invalid UTF-8"), std::string::npos);
}

TEST(GoJson, RejectsDuplicateKeysAtAnyDepth) {
  auto top = parse_json(R"({"runtimes":{"a":{}},"runtimes":{}})", "daemon.json");
  ASSERT_FALSE(top);
  EXPECT_NE(top.error().message().find("duplicate key \"runtimes\""), std::string::npos);
  EXPECT_FALSE(parse_json(R"({"r":{"x":1,"x":2}})", "daemon.json"));
  EXPECT_TRUE(parse_json(R"({"a":{"x":1},"b":{"x":2},"c":[{"x":1},{"x":2}]})", "daemon.json"));
}

}  // namespace
}  // namespace nvct::ctk
