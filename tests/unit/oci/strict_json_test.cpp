#include "nvct/oci/strict_json.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace nvct::oci {
namespace {

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

TEST(StrictJson, KeepsExactSixtyFourBitIntegers) {
  auto doc = parse_strict_json(
      R"({"u":18446744073709551615,"i":-9223372036854775808,"m":9223372036854775807})");
  ASSERT_TRUE(doc) << doc.error().message();
  EXPECT_TRUE((*doc)["u"].is_number_unsigned());
  EXPECT_EQ((*doc)["u"].get<std::uint64_t>(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_EQ((*doc)["i"].get<std::int64_t>(), std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ((*doc)["m"].get<std::int64_t>(), std::numeric_limits<std::int64_t>::max());
  EXPECT_EQ(doc->dump(),
            R"({"u":18446744073709551615,"i":-9223372036854775808,"m":9223372036854775807})");
}

TEST(StrictJson, KeepsKeyOrder) {
  auto doc = parse_strict_json(R"({"z":1,"a":{"y":2,"b":3},"m":[{"q":1,"c":2}]})");
  ASSERT_TRUE(doc);
  EXPECT_EQ(doc->dump(), R"({"z":1,"a":{"y":2,"b":3},"m":[{"q":1,"c":2}]})");
}

TEST(StrictJson, RejectsDuplicateKeysNamingThePointer) {
  auto doc = parse_strict_json(R"({"process":{"env":[]},"process":{"env":["X=1"]}})");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message(), "duplicate key at /process");
}

TEST(StrictJson, RejectsNestedDuplicateKeys) {
  auto doc = parse_strict_json(R"({"a":[{"x":1},{"k":1,"k":2}]})");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message(), "duplicate key at /a/1/k");
}

TEST(StrictJson, SameKeyInSiblingObjectsIsFine) {
  EXPECT_TRUE(parse_strict_json(R"({"a":{"k":1},"b":{"k":1},"c":[{"k":1},{"k":2}]})"));
}

TEST(StrictJson, RejectsFloatsNamingThePointer) {
  auto doc = parse_strict_json(R"({"a":[0,{"b":1.5}]})");
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message().find("number at /a/1/b is not an integer"), std::string::npos)
      << doc.error().message();
}

TEST(StrictJson, RejectsExponentAndOutOfRangeIntegers) {
  EXPECT_FALSE(parse_strict_json(R"({"a":1e2})"));
  EXPECT_FALSE(parse_strict_json(R"({"a":18446744073709551616})"));
  EXPECT_FALSE(parse_strict_json(R"({"a":-9223372036854775809})"));
}

TEST(StrictJson, DepthAtTheLimitIsAccepted) {
  EXPECT_TRUE(parse_strict_json(nested_arrays(64), StrictJsonLimits{64}));
}

TEST(StrictJson, DepthPastTheLimitIsRejected) {
  auto doc = parse_strict_json(nested_arrays(65), StrictJsonLimits{64});
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message().find("nesting deeper than 64 levels"), std::string::npos);
}

TEST(StrictJson, VeryDeepInputFailsWithoutCrashing) {
  auto doc = parse_strict_json(std::string(1000000, '['), StrictJsonLimits{64});
  ASSERT_FALSE(doc);
  EXPECT_NE(doc.error().message().find("nesting deeper"), std::string::npos);
}

TEST(StrictJson, RejectsInvalidUtf8) {
  EXPECT_FALSE(parse_strict_json("{\"a\":\"\xff\"}"));
  EXPECT_FALSE(parse_strict_json("{\"a\":\"\xc3\"}"));          // truncated sequence
  EXPECT_FALSE(parse_strict_json("{\"a\":\"\xc0\xaf\"}"));      // overlong '/'
  EXPECT_FALSE(parse_strict_json("{\"a\":\"\xed\xa0\x80\"}"));  // UTF-16 surrogate as UTF-8
}

TEST(StrictJson, RejectsLoneSurrogateEscapes) {
  EXPECT_FALSE(parse_strict_json(R"({"a":"\ud800"})"));
  EXPECT_FALSE(parse_strict_json(R"({"a":"\udc00"})"));
}

TEST(StrictJson, AcceptsUnicodeAndDecodesEscapes) {
  auto doc = parse_strict_json(R"({"a":"\u00fc\ud83d\ude00","b":"日本"})");
  ASSERT_TRUE(doc);
  EXPECT_EQ((*doc)["a"].get<std::string>(), "\xc3\xbc\xf0\x9f\x98\x80");
  EXPECT_EQ((*doc)["b"].get<std::string>(), "日本");
}

TEST(StrictJson, RejectsByteOrderMark) {
  auto doc = parse_strict_json("\xEF\xBB\xBF{}");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message(), "byte-order mark not allowed");
}

TEST(StrictJson, RejectsTrailingGarbageTruncationAndComments) {
  EXPECT_FALSE(parse_strict_json(R"({"a":1} x)"));
  EXPECT_FALSE(parse_strict_json(R"({"a":1}{})"));
  EXPECT_FALSE(parse_strict_json(R"({"a":[1,2)"));
  EXPECT_FALSE(parse_strict_json("{\"a\":1 /* c */}"));
  EXPECT_FALSE(parse_strict_json(""));
}

TEST(StrictJson, SyntaxErrorMessageHasPositionButNoExceptionId) {
  auto doc = parse_strict_json(R"({"a":tru})");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message().find("[json.exception"), std::string::npos);
  EXPECT_NE(doc.error().message().find("line 1"), std::string::npos) << doc.error().message();
}

TEST(StrictJson, ManyKeysInOneObjectKeepOrderAndAreLookedUp) {
  // Members are appended without ordered_map's linear key scan; check the result is the same.
  std::string text = "{";
  for (int i = 0; i < 50000; ++i) text += (i ? ",\"k" : "\"k") + std::to_string(49999 - i) + "\":1";
  text += "}";
  auto doc = parse_strict_json(text);
  ASSERT_TRUE(doc) << doc.error().message();
  ASSERT_EQ(doc->size(), 50000u);
  EXPECT_EQ(doc->begin().key(), "k49999");
  EXPECT_TRUE(doc->contains("k0"));
  EXPECT_EQ((*doc)["k123"], 1);
  EXPECT_FALSE(parse_strict_json(text.substr(0, text.size() - 1) + ",\"k7\":2}"));
}

TEST(StrictJson, ScalarTopLevelValues) {
  EXPECT_EQ(parse_strict_json("42")->get<int>(), 42);
  EXPECT_EQ(parse_strict_json(R"("s")")->get<std::string>(), "s");
  EXPECT_TRUE(parse_strict_json("null")->is_null());
  EXPECT_TRUE(parse_strict_json(" [ ] ")->is_array());
}

TEST(StrictJson, DepthErrorNamesWhereItHappened) {
  auto doc = parse_strict_json(R"({"a":[1,{"b":[[]]}]})", StrictJsonLimits{4});
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message(), "nesting deeper than 4 levels at /a/1/b/0");
}

TEST(StrictJson, PointerEscapesSlashAndTilde) {
  auto doc = parse_strict_json(R"({"a/b~c":{"k":1,"k":1}})");
  ASSERT_FALSE(doc);
  EXPECT_EQ(doc.error().message(), "duplicate key at /a~1b~0c/k");
}

}  // namespace
}  // namespace nvct::oci
