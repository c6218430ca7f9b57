#include "nvct/base/toml_text.hpp"

#include <gtest/gtest.h>

namespace nvct::toml_text {
namespace {

TEST(TomlText, QuoteEscapesSpecialAndControlCharacters) {
  EXPECT_EQ(quote("plain"), "\"plain\"");
  EXPECT_EQ(quote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(quote("\b\t\n\f\r"), "\"\\b\\t\\n\\f\\r\"");
  EXPECT_EQ(quote(std::string("\x01\x7f", 2)), "\"\\u0001\\u007F\"");
}

TEST(TomlText, KeysAreBareOnlyWhenTomlAllowsIt) {
  EXPECT_EQ(key("nvidia-container-cli"), "nvidia-container-cli");
  EXPECT_EQ(key("io.containerd.grpc.v1.cri"), "\"io.containerd.grpc.v1.cri\"");
  EXPECT_EQ(key(""), "\"\"");
}

}  // namespace
}  // namespace nvct::toml_text
