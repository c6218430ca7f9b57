// Quoting and layout of the YAML emitter.
#include <gtest/gtest.h>

#include "nvct/cdi/spec_io.hpp"

namespace nvct::cdi {
namespace {

std::string value_line(const std::string& s) {
  std::string y = json_to_yaml(nlohmann::ordered_json{{"k", s}});
  return y.substr(std::string("---\nk: ").size(), y.size() - 8);
}

TEST(YamlEmitter, StringsThatReadAsOtherTypesAreQuoted) {
  for (const char* s : {"0", "12", "1.5", "1e3", "0x1f", "0:1", "true", "no", "y", "null", "~", "",
                        ".inf", "2024-01-02", "-1"}) {
    std::string out = value_line(s);
    EXPECT_EQ(out.front(), '"') << s << " -> " << out;
  }
}

TEST(YamlEmitter, PlainStringsStayPlain) {
  for (const char* s : {"0.5.0", "/dev/nvidia0", "all", "--folder", "libcuda.so.1::/lib/x.so",
                        "NVIDIA_VISIBLE_DEVICES=void", "--host-driver-version=999.88.77",
                        "GPU-1234-abcd", "nvidia.com/gpu"}) {
    EXPECT_EQ(value_line(s), s) << s;
  }
}

TEST(YamlEmitter, SpecialCharactersAreQuotedAndEscaped) {
  EXPECT_EQ(value_line("a: b"), "\"a: b\"");
  EXPECT_EQ(value_line("#x"), "\"#x\"");
  EXPECT_EQ(value_line("a\nb"), "\"a\\nb\"");
  EXPECT_EQ(value_line("say \"hi\": x"), "\"say \\\"hi\\\": x\"");
  EXPECT_EQ(value_line("*star"), "\"*star\"");
}

TEST(YamlEmitter, NestedListsAndMapsUseFourSpaceLayout) {
  nlohmann::ordered_json j = {
      {"a", nlohmann::ordered_json::array({{{"x", 1}, {"z", {"p", "q"}}}})}};
  EXPECT_EQ(json_to_yaml(j), "---\na:\n    - x: 1\n      z:\n        - p\n        - q\n");
}

}  // namespace
}  // namespace nvct::cdi
