#include "nvct/runtime/log_file_sink.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "nvct/base/strings.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::runtime {
namespace {

using nvct::testing::TempDir;

std::chrono::system_clock::time_point fixed_time() {
  return std::chrono::system_clock::from_time_t(1700000000) + std::chrono::milliseconds(5);
}

TEST(FormatLogLine, JsonLineHasLevelMsgAndRfc3339Time) {
  auto line =
      format_log_line(log::Level::kError, "boom \"quoted\"\n", LogFormat::kJson, fixed_time());
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << "exactly one line";
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["level"], "error");
  EXPECT_EQ(j["msg"], "boom \"quoted\"\n");
  EXPECT_EQ(j["time"], "2023-11-14T22:13:20.005000000Z");
  EXPECT_EQ(line.rfind("{\"level\":", 0), 0u) << "containerd reads level, msg, time";
}

TEST(FormatLogLine, InvalidUtf8StaysValidJson) {
  auto line = format_log_line(log::Level::kWarn, std::string("bad \xff\xfe bytes"),
                              LogFormat::kJson, fixed_time());
  auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["level"], "warning");
}

TEST(FormatLogLine, TextLineIsLogrusLike) {
  auto line = format_log_line(log::Level::kInfo, "hello", LogFormat::kText, fixed_time());
  EXPECT_EQ(line, "time=\"2023-11-14T22:13:20.005000000Z\" level=info msg=\"hello\"\n");
}

TEST(ParseLogFormat, OnlyJsonSelectsJson) {
  EXPECT_EQ(parse_log_format("json"), LogFormat::kJson);
  EXPECT_EQ(parse_log_format("text"), LogFormat::kText);
  EXPECT_EQ(parse_log_format(""), LogFormat::kText);
}

TEST(OpenLogFile, DevNullAndEmptyMeanNoFile) {
  auto a = open_log_file("/dev/null");
  auto b = open_log_file("");
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->valid());
  EXPECT_FALSE(b->valid());
}

TEST(OpenLogFile, CreatesWith0644AndCloexec) {
  TempDir dir;
  ::umask(022);
  auto fd = open_log_file(dir / "shim.log");
  ASSERT_TRUE(fd) << fd.error().message();
  ASSERT_TRUE(fd->valid());
  struct stat st {};
  ASSERT_EQ(::stat((dir / "shim.log").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
  EXPECT_TRUE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC);
}

TEST(OpenLogFile, RefusesAPlantedSymlink) {
  TempDir dir;
  auto target = dir.write("victim", "keep");
  ASSERT_EQ(::symlink(target.c_str(), (dir / "shim.log").c_str()), 0);
  auto fd = open_log_file(dir / "shim.log");
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), ELOOP);
  EXPECT_EQ(dir.read("victim"), "keep");
}

TEST(OpenLogFile, MissingDirectoryIsAnErrorNotACrash) {
  auto fd = open_log_file("/nonexistent-nvct-dir/x.log");
  ASSERT_FALSE(fd);
  EXPECT_NE(fd.error().message().find("/nonexistent-nvct-dir/x.log"), std::string::npos);
}

TEST(LogFileSink, AppendsOneLinePerMessageToEveryTarget) {
  TempDir dir;
  dir.write("debug.log", "existing\n");
  LogFileSink sink;
  sink.add(std::move(*open_log_file(dir / "debug.log")), LogFormat::kText);
  sink.add(std::move(*open_log_file(dir / "log.json")), LogFormat::kJson);
  sink.write(log::Level::kInfo, "first");
  sink.write(log::Level::kError, "second");
  auto text_lines = strings::split(dir.read("debug.log"), '\n');
  ASSERT_EQ(text_lines.size(), 4u);  // 3 lines + the empty item after the last newline
  EXPECT_EQ(text_lines[0], "existing");
  EXPECT_NE(text_lines[2].find("msg=\"second\""), std::string::npos);
  auto json_lines = strings::split(dir.read("log.json"), '\n');
  ASSERT_EQ(json_lines.size(), 3u);
  EXPECT_EQ(nlohmann::json::parse(json_lines[1])["msg"], "second");
  EXPECT_EQ(nlohmann::json::parse(json_lines[1])["level"], "error");
}

TEST(LogFileSink, InvalidFdIsIgnored) {
  LogFileSink sink;
  sink.add(unique_fd(), LogFormat::kJson);
  EXPECT_TRUE(sink.empty());
  sink.write(log::Level::kError, "nowhere");
}

TEST(LogFileSink, DeferredMessagesReachTargetsAddedBeforeTheFlush) {
  TempDir dir;
  LogFileSink sink;
  sink.defer();
  sink.write(log::Level::kWarn, "from config loading");
  sink.add(std::move(*open_log_file(dir / "debug.log")), LogFormat::kText);
  EXPECT_EQ(dir.read("debug.log"), "") << "nothing written while deferring";
  sink.flush_deferred();
  sink.write(log::Level::kInfo, "after");
  auto lines = strings::split(dir.read("debug.log"), '\n');
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[0].find("level=warning msg=\"from config loading\""), std::string::npos);
  EXPECT_NE(lines[1].find("msg=\"after\""), std::string::npos);
}

TEST(LogFileSink, FlushKeepsOnlyDeferredMessagesAtTheFinalLevel) {
  TempDir dir;
  LogFileSink sink;
  sink.defer();
  sink.write(log::Level::kDebug, "Using config file /etc/x.toml");
  sink.write(log::Level::kWarn, "unknown key");
  sink.add(std::move(*open_log_file(dir / "debug.log")), LogFormat::kText);
  sink.flush_deferred(log::Level::kInfo);
  auto lines = strings::split(dir.read("debug.log"), '\n');
  ASSERT_EQ(lines.size(), 2u) << dir.read("debug.log");
  EXPECT_NE(lines[0].find("level=warning msg=\"unknown key\""), std::string::npos);
}

TEST(LogFileSink, FlushAtDebugKeepsTheDebugLines) {
  TempDir dir;
  LogFileSink sink;
  sink.defer();
  sink.write(log::Level::kDebug, "Using config file /etc/x.toml");
  sink.add(std::move(*open_log_file(dir / "debug.log")), LogFormat::kText);
  sink.flush_deferred(log::Level::kDebug);
  EXPECT_NE(dir.read("debug.log").find("level=debug msg=\"Using config file /etc/x.toml\""),
            std::string::npos);
}

}  // namespace
}  // namespace nvct::runtime
