#include "nvct/base/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cstring>
#include <filesystem>

#include <gtest/gtest.h>

#include "nvct/base/unique_fd.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct {
namespace {

TEST(AtomicWrite, CreatesNewFileWithDefaultMode) {
  nvct::testing::TempDir dir;
  ASSERT_TRUE(write_file_atomic(dir / "a.json", "{}", {.default_mode = 0600}));
  EXPECT_EQ(dir.read("a.json"), "{}");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "a.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(AtomicWrite, KeepsModeOfExistingFileAndLeavesNoTempFile) {
  nvct::testing::TempDir dir;
  auto path = dir.write("config.json", "old");
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  ASSERT_TRUE(write_file_atomic(path, "new"));
  EXPECT_EQ(dir.read("config.json"), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
}

// Not durable (the shim's config.json): the names are exchanged, not renamed over; the result
// must be the same as a durable write's.
TEST(AtomicWrite, NotDurableReplacesContentKeepsModeAndLeavesNoTempFile) {
  nvct::testing::TempDir dir;
  std::string path = dir.write("config.json", "old content");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  ASSERT_TRUE(write_file_atomic(path, "new", {.durable = false}));
  EXPECT_EQ(dir.read("config.json"), "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600);
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 1);
  ASSERT_TRUE(write_file_atomic(dir / "fresh.json", "x", {.durable = false}));
  EXPECT_EQ(dir.read("fresh.json"), "x");
}

TEST(AtomicWrite, RefusesToReplaceADirectoryAndLeavesItAlone) {
  nvct::testing::TempDir dir;
  std::filesystem::create_directory(dir / "d");
  auto st = write_file_atomic(dir / "d", "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("not a regular file"), std::string::npos);
  EXPECT_TRUE(std::filesystem::is_directory(dir / "d"));
}

TEST(AtomicWrite, MissingDirectoryIsAnErrorNamingIt) {
  auto st = write_file_atomic("/nonexistent-nvct-dir/x.json", "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("/nonexistent-nvct-dir"), std::string::npos);
  EXPECT_EQ(st.error().code(), ENOENT);
}

TEST(ReadFile, EnforcesMaximumSize) {
  nvct::testing::TempDir dir;
  auto path = dir.write("big", std::string(100, 'x'));
  EXPECT_TRUE(read_file(path, 100));
  auto r = read_file(path, 99);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EFBIG);
}

TEST(ReadFile, AtDoesNotFollowFinalSymlink) {
  nvct::testing::TempDir dir;
  dir.write("real", "data");
  std::filesystem::create_symlink("real", dir / "link");
  unique_fd d(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_EQ(*read_file_at(d.get(), "real"), "data");
  EXPECT_FALSE(read_file_at(d.get(), "link"));
}

}  // namespace
}  // namespace nvct

namespace nvct {
namespace {

// Issue 18: nothing nvct reads may block or touch a device.
TEST(OpenRegularFile, RefusesAFifoWithoutBlocking) {
  nvct::testing::TempDir dir;
  std::string fifo = dir / "config.toml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto text = read_file(fifo);  // would block forever with a plain open()
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), EINVAL);
  EXPECT_NE(text.error().message().find("is a FIFO, not a regular file"), std::string::npos)
      << text.error().message();
  EXPECT_FALSE(read_file_at(AT_FDCWD, fifo));
}

TEST(OpenRegularFile, RefusesDevicesAndDirectories) {
  auto dev = read_file("/dev/zero");
  ASSERT_FALSE(dev);
  EXPECT_NE(dev.error().message().find("character device"), std::string::npos);
  auto dir = read_file("/");
  ASSERT_FALSE(dir);
  EXPECT_NE(dir.error().message().find("is a directory"), std::string::npos);
}

TEST(OpenRegularFile, RejectsAHugeFileBeforeReadingIt) {
  nvct::testing::TempDir dir;
  std::string path = dir.write("big", "");
  ASSERT_EQ(::truncate(path.c_str(), 1ll << 40), 0);  // sparse: nothing to read anyway
  auto text = read_file(path, 1024);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), EFBIG);
}

TEST(OpenRegularFile, ReadsProcfsFilesThatReportSizeZero) {
  auto text = read_file("/proc/self/status", 1 << 20);
  ASSERT_TRUE(text) << text.error().message();
  EXPECT_NE(text->find("Pid:"), std::string::npos);
}

TEST(OpenRegularFile, NoFollowRefusesASymlinkLoop) {
  nvct::testing::TempDir dir;
  ASSERT_EQ(::symlink("b", (dir / "a").c_str()), 0);
  ASSERT_EQ(::symlink("a", (dir / "b").c_str()), 0);
  auto text = read_file(dir / "a");
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), ELOOP);
}

// security.md row 44: the host config writers refuse a target with another name.
TEST(AtomicWrite, RefusesAHardLinkedTargetWhenAskedAndWritesNothing) {
  nvct::testing::TempDir dir;
  auto host = dir.write("host-file", "host");
  ASSERT_EQ(::link(host.c_str(), (dir / "daemon.json").c_str()), 0);
  auto r = write_file_atomic(dir / "daemon.json", "new", {.refuse_hard_links = true});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EMLINK);
  EXPECT_NE(r.error().message().find("daemon.json: it has 2 hard links"), std::string::npos)
      << r.error().message();
  EXPECT_EQ(dir.read("host-file"), "host");
  int entries = 0;
  for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(dir.path())) ++entries;
  EXPECT_EQ(entries, 2);  // no temp file
  // Without the option (in-container files, config.json) a rename splits the link as before.
  ASSERT_TRUE(write_file_atomic(dir / "daemon.json", "new"));
  EXPECT_EQ(dir.read("host-file"), "host");
}

// security.md row 44: owner, group, mode and the SELinux label (security.selinux, where the
// kernel lets root set it without an SELinux policy; user.* stands in for it otherwise) are kept.
TEST(AtomicWrite, KeepsOwnerGroupModeAndExtendedAttributes) {
  nvct::testing::TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  ASSERT_EQ(::chown(path.c_str(), 1234, 5678), 0) << "needs root";
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  const std::string label = "system_u:object_r:container_config_t:s0";
  ASSERT_EQ(::setxattr(path.c_str(), "user.nvct-label", label.data(), label.size(), 0), 0)
      << "the test directory's filesystem has no user.* xattrs: " << std::strerror(errno);
  const bool have_selinux =
      ::setxattr(path.c_str(), "security.selinux", label.c_str(), label.size() + 1, 0) == 0;
  if (!have_selinux) std::fprintf(stderr, "# security.selinux refused; user.* stands in\n");
  ASSERT_TRUE(write_file_atomic(path, "{\"a\":1}", {.refuse_hard_links = true}));
  EXPECT_EQ(dir.read("daemon.json"), "{\"a\":1}");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1234u);
  EXPECT_EQ(st.st_gid, 5678u);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  char buf[256] = {};
  ssize_t n = ::getxattr(path.c_str(), "user.nvct-label", buf, sizeof buf);
  ASSERT_GT(n, 0);
  EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), label);
  if (have_selinux) {
    n = ::getxattr(path.c_str(), "security.selinux", buf, sizeof buf);
    ASSERT_GT(n, 0);
    EXPECT_EQ(std::string(buf), label);
  }
}

TEST(StaleTempFiles, ADeadWritersTempFileIsRemovedByTheNextWrite) {
  nvct::testing::TempDir dir;
  dir.write("daemon.json", "{}");
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  std::string stale = fmt::format(".daemon.json.{}-Ab12Cd", child);  // its owner is gone
  dir.write(stale, "{\"half");
  dir.write(".daemon.json.lock", "");      // not a temp file
  dir.write(".daemon.json.1-Zz99yy", "");  // pid 1 is alive and the file is new: kept
  ASSERT_TRUE(write_file_atomic(dir / "daemon.json", "{\"a\":1}"));
  EXPECT_FALSE(std::filesystem::exists(dir / stale));
  EXPECT_TRUE(std::filesystem::exists(dir / ".daemon.json.lock"));
  EXPECT_TRUE(std::filesystem::exists(dir / ".daemon.json.1-Zz99yy"));
  EXPECT_EQ(dir.read("daemon.json"), "{\"a\":1}");
}

TEST(StaleTempFiles, OldTempFilesWithoutAPidAreRemoved) {
  nvct::testing::TempDir dir;
  std::string old = dir.write(".config.json.Ab12Cd", "x");
  struct timespec times[2] = {{1, 0}, {1, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, old.c_str(), times, 0), 0);
  dir.write(".config.json.Qq12Cd", "fresh");  // could be a live writer of an older version
  unique_fd dfd(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_EQ(remove_stale_temp_files(dfd.get(), "config.json"), 1);
  EXPECT_FALSE(std::filesystem::exists(old));
  EXPECT_TRUE(std::filesystem::exists(dir / ".config.json.Qq12Cd"));
}

}  // namespace
}  // namespace nvct

namespace nvct {
namespace {

TEST(CheckRegularPath, RefusesAFifoAndLeavesMissingPathsToTheCaller) {
  nvct::testing::TempDir dir;
  std::string fifo = dir / "libnvidia-ml.so.1";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0644), 0);
  auto st = check_regular_path(fifo);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("is a FIFO, not a regular file"), std::string::npos);
  EXPECT_TRUE(check_regular_path(dir / "absent.so"));
  EXPECT_TRUE(check_regular_path("libnvidia-ml.so.1"));  // a library search: dlopen's business
  EXPECT_TRUE(check_regular_path(dir.write("lib.so", "x")));
}

}  // namespace
}  // namespace nvct
