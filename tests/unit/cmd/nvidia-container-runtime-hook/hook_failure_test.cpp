#include "hook_failure.hpp"

#include <gtest/gtest.h>

#include <memory>

#include "nvct/base/log.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::hook {
namespace {

TEST(HookFailure, SingleLineReplacesLineBreaksAndControlCharacters) {
  EXPECT_EQ(single_line("a\nb\r\tc\x1b"), "a b  c ");
  EXPECT_EQ(single_line("plain"), "plain");
}

TEST(HookFailure, LogTextNamesTheContainerWhenKnown) {
  EXPECT_EQ(failure_log_text("c1", "/b", "x: y"),
            "prestart of container c1 (bundle /b) failed: x: y");
  EXPECT_EQ(failure_log_text("", "", "bad state"), "prestart failed: bad state");
}

TEST(HookFailure, ReporterPrintsOneLineAndLogsItWithTheContainer) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  log::set_level(log::Level::kDebug);
  std::string printed;
  FailureReporter reporter([&](std::string_view line) { printed += std::string(line) + "\n"; });
  EXPECT_EQ(reporter.fail("before\nstate"), 1);
  reporter.set_container("abc", "/run/b");
  EXPECT_EQ(reporter.fail("after"), 1);
  log::set_sink(nullptr);
  log::set_level(log::Level::kInfo);
  EXPECT_EQ(printed, "before state\nafter\n");
  ASSERT_EQ(sink->lines.size(), 2u);
  EXPECT_EQ(sink->lines[0].first, log::Level::kError);
  EXPECT_EQ(sink->lines[0].second, "prestart failed: before state");
  EXPECT_EQ(sink->lines[1].second, "prestart of container abc (bundle /run/b) failed: after");
}

}  // namespace
}  // namespace nvct::hook
