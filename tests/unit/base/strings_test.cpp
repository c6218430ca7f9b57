#include "nvct/base/strings.hpp"

#include <gtest/gtest.h>

namespace nvct::strings {
namespace {

TEST(Strings, SplitKeepsEmptyItems) {
  EXPECT_EQ(split("a,,b", ','), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(split("", ','), (std::vector<std::string>{""}));
}

TEST(Strings, SplitTrimmedDropsEmptyAndTrims) {
  EXPECT_EQ(split_trimmed(" 0, ,1 ,", ','), (std::vector<std::string>{"0", "1"}));
}

TEST(Strings, BasenameOfPaths) {
  EXPECT_EQ(basename("/usr/bin/nvidia-container-runtime-hook"), "nvidia-container-runtime-hook");
  EXPECT_EQ(basename("hook"), "hook");
  EXPECT_EQ(basename("/a/"), "");
}

TEST(Strings, JoinAndLower) {
  EXPECT_EQ(join({"a", "b"}, ", "), "a, b");
  EXPECT_EQ(to_lower("AbC"), "abc");
}

}  // namespace
}  // namespace nvct::strings
