#include "nvct/base/log.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::log {
namespace {

TEST(Log, SinkReceivesMessagesAtOrAboveLevel) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  set_sink(sink);
  set_level(Level::kInfo);
  debug("hidden {}", 1);
  info("shown {}", 2);
  error("bad {}", 3);
  set_sink(nullptr);
  ASSERT_EQ(sink->lines.size(), 2u);
  EXPECT_EQ(sink->lines[0].second, "shown 2");
  EXPECT_EQ(sink->lines[1].first, Level::kError);
}

TEST(Log, ParsesLogrusLevelNames) {
  Level l{};
  EXPECT_TRUE(parse_level("DEBUG", l));
  EXPECT_EQ(l, Level::kDebug);
  EXPECT_TRUE(parse_level("warning", l));
  EXPECT_EQ(l, Level::kWarn);
  EXPECT_FALSE(parse_level("loud", l));
}

}  // namespace
}  // namespace nvct::log
