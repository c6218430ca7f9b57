#include "hook_logging.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <regex>

#include "nvct/base/log.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::hook {
namespace {

class HookLogging : public ::testing::Test {
 protected:
  void TearDown() override {
    log::set_sink(nullptr);
    log::set_level(log::Level::kInfo);
  }
  nvct::testing::TempDir dir_;
};

TEST_F(HookLogging, ConfiguredDebugFileReceivesTheLog) {
  auto path = dir_ / "hook.log";
  ASSERT_TRUE(install_hook_logging(false, path));
  log::info("mount {} at {}", "/a", "/b");
  EXPECT_TRUE(std::regex_match(
      dir_.read("hook.log"),
      std::regex("[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z "
                 "nvidia-container-runtime-hook\\[" +
                 std::to_string(::getpid()) + "\\]: info: mount /a at /b\n")))
      << dir_.read("hook.log");
}

TEST_F(HookLogging, DebugFileIsAppended) {
  auto path = dir_.write("hook.log", "earlier\n");
  ASSERT_TRUE(install_hook_logging(false, path));
  log::debug("x");
  auto text = dir_.read("hook.log");
  EXPECT_EQ(text.rfind("earlier\n", 0), 0u) << text;
  EXPECT_NE(text.find("]: debug: x\n"), std::string::npos) << text;
}

TEST_F(HookLogging, NoFileAndNoFlagLogsNothing) {
  ASSERT_TRUE(install_hook_logging(false, ""));
  EXPECT_FALSE(log::enabled(log::Level::kError));
}

TEST_F(HookLogging, DebugFlagEnablesDebugLevel) {
  ASSERT_TRUE(install_hook_logging(true, dir_ / "unused.log"));
  EXPECT_TRUE(log::enabled(log::Level::kDebug));
  EXPECT_NE(::access((dir_ / "unused.log").c_str(), F_OK), 0) << "the file is not used with -debug";
}

TEST_F(HookLogging, SymlinkedDebugFileIsRefused) {
  auto target = dir_.write("target", "");
  ASSERT_EQ(::symlink(target.c_str(), (dir_ / "link.log").c_str()), 0);
  auto r = install_hook_logging(false, dir_ / "link.log");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("log file " + (dir_ / "link.log") +
                                     " is a symbolic link"),
            std::string::npos);
  EXPECT_EQ(dir_.read("target"), "");
}

}  // namespace
}  // namespace nvct::hook
