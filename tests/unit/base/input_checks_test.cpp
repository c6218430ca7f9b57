#include "nvct/base/input_checks.hpp"

#include <string>

#include <gtest/gtest.h>

namespace nvct {
namespace {

std::string nested(std::size_t n, char open, char close) {
  return std::string(n, open) + std::string(n, close);
}

TEST(NestingDepth, CountsJsonBracketsOutsideStrings) {
  EXPECT_EQ(nesting_depth(R"({"a":[1,{"b":[]}]})", TextSyntax::kJson), 4u);
  EXPECT_EQ(nesting_depth(R"({"a":"[[[[\"[[[["})", TextSyntax::kJson), 1u);
  EXPECT_EQ(nesting_depth(nested(100000, '[', ']'), TextSyntax::kJson, 128), 129u);
}

TEST(NestingDepth, RefusesDeepJsonWithAMessage) {
  auto st = check_nesting_depth(nested(100000, '[', ']'), TextSyntax::kJson, "/etc/daemon.json");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(),
            "/etc/daemon.json: JSON nested deeper than 128 levels; refusing to parse it (a hostile "
            "or corrupt file: flatten it)");
  EXPECT_TRUE(check_nesting_depth(nested(128, '{', '}'), TextSyntax::kJson, "x"));
}

TEST(NestingDepth, TomlIgnoresStringsCommentsAndTableHeaders) {
  std::string toml =
      "[a.b]\nx = \"[[[[\"\ny = '[[[['\n# [[[[[[\nz = \"\"\"\n[[[[\n\"\"\"\n[[arr]]\nw = [[1], "
      "[2]]\n";
  EXPECT_EQ(nesting_depth(toml, TextSyntax::kToml), 2u);
  EXPECT_FALSE(check_nesting_depth("a = " + nested(5000, '[', ']'), TextSyntax::kToml, "c.toml"));
  EXPECT_FALSE(check_nesting_depth("a = " + std::string(5000, '{'), TextSyntax::kToml, "c.toml"));
}

TEST(NestingDepth, YamlCountsFlowAndBlockLevels) {
  EXPECT_EQ(nesting_depth("a:\n  b:\n    c: [1, {d: 2}]\n", TextSyntax::kYaml), 5u);
  EXPECT_EQ(nesting_depth("a: '[[[['\nb: \"{{{{\" # [[[[\n", TextSyntax::kYaml), 1u);
  EXPECT_FALSE(check_nesting_depth(nested(100000, '[', ']'), TextSyntax::kYaml, "s.yaml"));
  std::string block;
  for (int i = 0; i < 300; ++i) block += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  EXPECT_FALSE(check_nesting_depth(block, TextSyntax::kYaml, "s.yaml"));
  std::string dashes;
  for (int i = 0; i < 300; ++i) dashes += "- ";
  EXPECT_FALSE(check_nesting_depth(dashes + "x\n", TextSyntax::kYaml, "s.yaml"));
}

TEST(TextEncoding, RefusesNulWithLineAndOffset) {
  auto st = check_text_encoding(std::string("{\n\"a\":1}\0{\"b\":2}", 15), "daemon.json");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(),
            "daemon.json: NUL byte at line 2 (byte offset 8); the file is not text: restore it "
            "from a backup");
}

TEST(TextEncoding, RefusesInvalidUtf8AndAcceptsValid) {
  EXPECT_TRUE(check_text_encoding("a = \"h\xC3\xA9llo \xE2\x82\xAC \xF0\x9F\x98\x80\"", "x"));
  for (std::string bad :
       {"\xFF", "\xC3", "\xC0\x80", "\xED\xA0\x80", "\xF4\x90\x80\x80", "\xE2\x82", "\x80"}) {
    auto st = check_text_encoding("k = \"" + bad + "\"", "config.toml");
    ASSERT_FALSE(st) << "accepted " << bad.size() << " bytes";
    EXPECT_NE(st.error().message().find("config.toml: invalid UTF-8"), std::string::npos);
  }
}

// toml++ 3.3 reaches TOML_UNREACHABLE or an assertion on these (tests/fuzz campaign): refused
// before parsing, while valid TOML with non-ASCII in strings and comments passes.
TEST(UntrustedToml, RefusesWhatTomlPlusPlusCannotParseSafely) {
  const char* refused[] = {
      "[.a]\n",                              // a header without a key
      "[nvid\xEF\xBB\xB8ia]\n",            // non-ASCII in a bare key
      "k\xC3\xA9 = 1\n",                   // é after a bare key
      "ve= 30[10[plugis..\"i\xEF\xBB\xBDv\n",  // a quote inside a bare value is not a string
      "a = 1\"\xC3\xA9\"\n",
      "r = [\"runc\",}}}} \"crun\"]\n",     // an array element starting with }
      "r = [\n  1,\n  }\n]\n",
      "a = \"\"\"x\\\xD1\x9D\"\"\"\n",          // a backslash before non-ASCII in a string
      "[cri.\"\"\".runtImes.crun]ru\"n\nn = \"\\\xD1\x9D\r\n",
      "a = \"\"\"x\\  \n\n  \xEF\xB3\xBFy\"\"\"\n",  // non-ASCII after a line-ending backslash
      "\"\"\"\"\\ \xEF\xB7\xBF",                 // non-ASCII after a backslash and a space
      "a = \"\"\"x\"\n\\\\\\   \xEF\xBB\xB7  \"\n",     // ... after an escaped backslash
      "a = \"x\\\t \r\xC3\xA9\"\n",                   // ... in a one-line string
      "\noud=2390-21-r6 0,\n",  // a date-shaped value, a space and a lone digit (fuzz finding)
      "a = 1979-05-27 0\n",
      "a = [1979-05-27 1]\n",
      "a = {b = 1x79-05-27 1}\n",
      "a = 1979-05-27 1#\n",
      "e\t=\t\t81&_------- 1,\n",  // toml++'s loose date shape: & and _ (fuzz finding 8)
      "a = 1_979-05-27 0\n",
      "a = [12 3]\n",               // any bare value, a space and a lone digit
      "IoI= \"\"\"= \"\"\"\"\xEF\xB9\xBF\n",  // non-ASCII after a four-quote end (fuzz finding 9)
      "r='''x'''''\xCD\x9F\n",
  };
  for (const char* text : refused) {
    auto st = check_untrusted_text(text, TextSyntax::kToml, "config.toml");
    ASSERT_FALSE(st) << text;
    EXPECT_NE(st.error().message().find("config.toml: line "), std::string::npos);
  }
  const char* accepted[] = {
      "# caf\xC3\xA9\n[a]\nb = \"h\xC3\xA9llo\" # \xE2\x82\xAC\n",
      "a.\"\xC3\xA9\".b = 'x'\n\"k\xC3\xA9\" = 1\n",
      "e = []\nf = [ ]\ng = [1, 2, ]\nh = [\n  # c\xC3\xA9\n  \"\xC3\xA9\", [\"\xC3\xA9\"],\n]\n",
      "t = { a = 1, b = \"\xC3\xA9\", c = [ { d = '\xC3\xA9' } ] }\nu = {}\n",
      "m = \"\"\"a \\\n   b\xC3\xA9\\  \n\"\"\"\n",
      "a = \"x\\\\ \xC3\xA9\"\nb = \"\"\"\\\\\t\xC3\xA9\"\"\"\n",  // escaped backslashes, then é
      "d = 1979-05-27 07:32:00Z\nm = \"\"\"\n\xC3\xA9 = \"\n\"\"\"\nn = 1.5e3\n",
      "d = 1979-05-27 07:32:00\ng = 1979-05-27\nh = \"1979-05-27 0\"\n# 1979-05-27 0\n",
      "a = [1 , 2 ]\nb = 3 # 4\nc = 1_000 \nd = 1979-05-27 07:32:00.5\n",
      "a = \"\"\"x\"\"\"\"\nb = '''y'''''\nc = \"\"\"\"\"\"\n",
  };
  for (const char* text : accepted)
    EXPECT_TRUE(check_untrusted_text(text, TextSyntax::kToml, "config.toml")) << text;
}

// Dotted keys, [table] headers and inline tables build the table tree too: toml++ recurses over
// it (parser::update_region_ends) and a 400 KB `x.a.a.a… = 1` overflowed the stack (tests/fuzz,
// config_toml). Their depth adds up; the limit is the same as for brackets.
TEST(UntrustedToml, RefusesKeysNestedDeeperThanTheLimit) {
  auto dotted = [](std::size_t n) {
    std::string key = "x";
    for (std::size_t i = 1; i < n; ++i) key += ".a";
    return key;
  };
  const std::string refused[] = {
      dotted(200000) + " = 1\n",                         // the crash: 200 000 segments
      dotted(129) + " = 1\n",                            // one past the limit
      "[" + dotted(129) + "]\n",                         // a header
      "[[" + dotted(129) + "]]\n",                       // an array-of-tables header
      "[" + dotted(64) + "]\n" + dotted(65) + " = 1\n",  // header + key
      "[" + dotted(100) + "]\nk = " + std::string(29, '{') + std::string(29, '}') + "\n",
      "k = { " + dotted(100) + " = { " + dotted(29) + " = 1 } }\n",
      "\"q\".\"r\"." + dotted(128) + " = 1\n",             // quoted segments count too
  };
  for (const auto& text : refused) {
    auto st = check_untrusted_text(text, TextSyntax::kToml, "config.toml");
    ASSERT_FALSE(st) << text.substr(0, 80);
    EXPECT_NE(st.error().message().find("config.toml: line "), std::string::npos);
    EXPECT_NE(st.error().message().find("nested deeper than 128"), std::string::npos)
        << st.error().message();
  }
  const std::string accepted[] = {
      dotted(128) + " = 1\n",
      "[" + dotted(64) + "]\n" + dotted(64) + " = 1\n",
      // Dots in values, strings and comments are not key separators.
      "a = 1.5\nb = \"" + std::string(500, '.') + "\"\nc = [1.0, 2.0, 3.0]\n# " +
          std::string(500, '.') + "\nd = 1979-05-27T07:32:00.999Z\n",
      // A new header starts again from its own depth; so does each line's key.
      "[" + dotted(100) + "]\n[" + dotted(100) + "]\n" + dotted(20) + " = 1\n" + dotted(20) +
          " = 2\n",
      "k = [" + dotted(1) + "1.5, {a.b = 1}, {c.d = 2}]\n",
      "[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.nvidia.options]\n"
      "BinaryName = \"/usr/bin/nvidia-container-runtime\"\n",
  };
  for (const auto& text : accepted)
    EXPECT_TRUE(check_untrusted_text(text, TextSyntax::kToml, "config.toml")) << text.substr(0, 80);
}

}  // namespace
}  // namespace nvct
