#include "nvct/base/log_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

// security.md §9 row 41: whatever is found at a log path is distrusted.
namespace nvct {
namespace {

using nvct::testing::TempDir;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(OpenLogFileForAppend, CreatesARegularFileAndAppends) {
  TempDir dir;
  dir.write("hook.log", "old\n");
  auto fd = open_log_file_for_append(dir / "hook.log");
  ASSERT_TRUE(fd) << fd.error().message();
  ASSERT_EQ(::write(fd->get(), "new\n", 4), 4);
  EXPECT_EQ(dir.read("hook.log"), "old\nnew\n");
  EXPECT_TRUE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC);
  EXPECT_FALSE(::fcntl(fd->get(), F_GETFL) & O_NONBLOCK);
  auto fresh = open_log_file_for_append(dir / "new.log");
  ASSERT_TRUE(fresh) << fresh.error().message();
}

TEST(OpenLogFileForAppend, AFifoIsRefusedWithoutBlocking) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "shim.log").c_str(), 0644), 0);
  // With a reader too: lstat sees the FIFO before any open.
  int reader = ::open((dir / "shim.log").c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  auto start = std::chrono::steady_clock::now();
  auto fd = open_log_file_for_append(dir / "shim.log");
  ::close(reader);
  auto without_reader = open_log_file_for_append(dir / "shim.log");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), EINVAL);
  EXPECT_TRUE(contains(fd.error().message(), "shim.log is a FIFO, not a regular file"))
      << fd.error().message();
  ASSERT_FALSE(without_reader);
}

TEST(OpenLogFileForAppend, ADeviceIsNeverOpened) {
  auto fd = open_log_file_for_append("/dev/null");
  ASSERT_FALSE(fd);
  EXPECT_TRUE(contains(fd.error().message(), "is a character device")) << fd.error().message();
}

TEST(OpenLogFileForAppend, ASymlinkToAHostFileIsNotFollowed) {
  TempDir dir;
  auto host = dir.write("host-file", "keep");
  ASSERT_EQ(::symlink(host.c_str(), (dir / "hook.log").c_str()), 0);
  auto fd = open_log_file_for_append(dir / "hook.log");
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), ELOOP);
  EXPECT_TRUE(contains(fd.error().message(), "is a symbolic link")) << fd.error().message();
  // A dangling link is not created through either.
  ASSERT_EQ(::symlink((dir / "absent").c_str(), (dir / "dangling.log").c_str()), 0);
  EXPECT_FALSE(open_log_file_for_append(dir / "dangling.log"));
  EXPECT_NE(::access((dir / "absent").c_str(), F_OK), 0);
  EXPECT_EQ(dir.read("host-file"), "keep");
}

TEST(OpenLogFileForAppend, AHardLinkToAHostFileIsRefused) {
  TempDir dir;
  auto host = dir.write("host-file", "keep");
  ASSERT_EQ(::link(host.c_str(), (dir / "hook.log").c_str()), 0);
  auto fd = open_log_file_for_append(dir / "hook.log");
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), EMLINK);
  EXPECT_TRUE(contains(fd.error().message(), "has 2 hard links")) << fd.error().message();
  EXPECT_EQ(dir.read("host-file"), "keep");
}

TEST(OpenLogFileForAppend, AFilePlantedByAnotherUserInAWorldWritableDirIsRefused) {
  ASSERT_EQ(::geteuid(), 0u) << "needs root (chown to another user)";
  TempDir dir;
  ASSERT_EQ(::chmod(dir.path().c_str(), 01777), 0);
  auto planted = dir.write("hook.log", "planted");
  ASSERT_EQ(::chown(planted.c_str(), 65534, 65534), 0);
  auto fd = open_log_file_for_append(planted);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), EPERM);
  EXPECT_TRUE(contains(fd.error().message(), "belongs to uid 65534")) << fd.error().message();
  EXPECT_EQ(dir.read("hook.log"), "planted");
  // Our own file there, or a new one, is fine.
  auto own = open_log_file_for_append(dir / "own.log");
  EXPECT_TRUE(own) << own.error().message();
  // The same foreign file in a directory only root may write to is the admin's choice.
  ASSERT_EQ(::chmod(dir.path().c_str(), 0755), 0);
  EXPECT_TRUE(open_log_file_for_append(planted));
}

}  // namespace
}  // namespace nvct
