#include "nvct/ctk/go_json.hpp"

#include <gtest/gtest.h>

namespace nvct::ctk {
namespace {

nlohmann::ordered_json parsed(std::string_view text) {
  auto r = parse_json(text, "test.json");
  EXPECT_TRUE(r) << (r ? "" : r.error().message());
  return r ? *r : nlohmann::ordered_json();
}

TEST(GoJson, SortsKeysAtEveryLevelWithFourSpaceIndent) {
  auto doc = parsed(R"({"b":{"z":1,"a":[true,null]},"a":"x"})");
  EXPECT_EQ(write_go_json(doc),
            "{\n    \"a\": \"x\",\n    \"b\": {\n        \"a\": [\n            true,\n"
            "            null\n        ],\n        \"z\": 1\n    }\n}");
}

TEST(GoJson, EmptyContainersStayOnOneLine) {
  EXPECT_EQ(write_go_json(parsed(R"({"args":[],"o":{}})")),
            "{\n    \"args\": [],\n    \"o\": {}\n}");
}

TEST(GoJson, EscapesHtmlCharactersLikeGo) {
  EXPECT_EQ(write_go_json(parsed(R"({"k":"<a&b>"})")),
            "{\n    \"k\": \"\\u003ca\\u0026b\\u003e\"\n}");
}

TEST(GoJson, EscapesControlCharactersAndLineSeparators) {
  EXPECT_EQ(write_go_json(parsed("[\"a\\u0001\\n\\u2028\"]")), "[\n    \"a\\u0001\\n\\u2028\"\n]");
}

TEST(GoJson, KeepsNonAsciiAsUtf8) {
  EXPECT_EQ(write_go_json(parsed("[\"caf\xC3\xA9\"]")), "[\n    \"caf\xC3\xA9\"\n]");
}

TEST(GoJson, KeepsLargeIntegersExact) {
  EXPECT_EQ(write_go_json(parsed(R"({"n":18446744073709551615,"m":-9223372036854775808})")),
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

}  // namespace
}  // namespace nvct::ctk
