#include "nvct/base/log_buffer.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::log {
namespace {

using nvct::testing::MemorySink;

// Restores the process-wide sink and level after each test.
class BufferSinkTest : public ::testing::Test {
 protected:
  void TearDown() override {
    set_sink(nullptr);
    set_level(Level::kInfo);
  }
};

TEST_F(BufferSinkTest, KeepsMessagesUntilReplayedIntoTheRealSink) {
  auto early = std::make_shared<BufferSink>();
  set_sink(early);
  set_level(Level::kTrace);
  warn("unknown key");
  debug("Using config file /etc/x.toml");
  ASSERT_EQ(early->messages().size(), 2u);

  auto real = std::make_shared<MemorySink>();
  set_sink(real);
  set_level(Level::kDebug);
  early->replay();
  ASSERT_EQ(real->lines.size(), 2u);
  EXPECT_EQ(real->lines[0], std::make_pair(Level::kWarn, std::string("unknown key")));
  EXPECT_EQ(real->lines[1],
            std::make_pair(Level::kDebug, std::string("Using config file /etc/x.toml")));
  EXPECT_TRUE(early->messages().empty()) << "replayed messages are forgotten";
}

TEST_F(BufferSinkTest, ReplayDropsWhatTheFinalLevelDoesNotShow) {
  auto early = std::make_shared<BufferSink>();
  set_sink(early);
  set_level(Level::kTrace);
  debug("which file");
  warn("unknown key");
  auto real = std::make_shared<MemorySink>();
  set_sink(real);
  set_level(Level::kInfo);
  early->replay();
  ASSERT_EQ(real->lines.size(), 1u);
  EXPECT_EQ(real->lines[0].second, "unknown key");
}

TEST_F(BufferSinkTest, ReplayWithoutASinkOrWithLoggingOffWritesNothing) {
  auto early = std::make_shared<BufferSink>();
  set_sink(early);
  set_level(Level::kTrace);
  warn("unknown key");
  set_sink(nullptr);
  early->replay();  // no sink: nothing to write to, nothing crashes
  EXPECT_TRUE(early->messages().empty());
}

}  // namespace
}  // namespace nvct::log
