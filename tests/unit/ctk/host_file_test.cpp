// spec/ctk.md §2: lock file, foreign-edit detection, symlinks written through, mode and owner
// kept, nothing deleted, optional backup.
#include "nvct/ctk/host_file.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::TempDir;

TEST(HostFile, MissingFileReadsAsAbsent) {
  TempDir dir;
  auto c = read_host_file(dir / "daemon.json");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_FALSE(c->text.has_value());
  EXPECT_FALSE(c->stamp.exists);
}

TEST(HostFile, DirectoryIsAnError) {
  TempDir dir;
  std::filesystem::create_directory(dir / "daemon.json");
  EXPECT_FALSE(read_host_file(dir / "daemon.json"));
}

TEST(HostFile, ReplaceKeepsModeAndCreatesParentDirectories) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  ASSERT_TRUE(replace_host_file(path, "{\"a\":1}", c->stamp));
  EXPECT_EQ(dir.read("daemon.json"), "{\"a\":1}");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);

  auto nested = dir / "a/b/99-nvidia.toml";
  ASSERT_TRUE(replace_host_file(nested, "x = 1\n", HostFileStamp{}));
  EXPECT_EQ(dir.read("a/b/99-nvidia.toml"), "x = 1\n");
}

TEST(HostFile, EmptyResultIsWrittenNotDeleted) {
  TempDir dir;
  auto path = dir.write("config.toml", "version = 2\n");
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  ASSERT_TRUE(replace_host_file(path, "", c->stamp));
  EXPECT_TRUE(std::filesystem::exists(path));
  EXPECT_EQ(dir.read("config.toml"), "");
}

TEST(HostFile, ForeignEditBetweenReadAndReplaceIsRefused) {
  TempDir dir;
  auto path = dir.write("daemon.json", "{}");
  auto c = read_host_file(path);
  ASSERT_TRUE(c);
  dir.write("daemon.json", "{\"someone\":\"else\"}");
  auto st = replace_host_file(path, "{\"mine\":1}", c->stamp);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().code(), EAGAIN);
  EXPECT_EQ(dir.read("daemon.json"), "{\"someone\":\"else\"}");
}

TEST(HostFile, FileCreatedByOtherProgramMeanwhileIsRefused) {
  TempDir dir;
  auto c = read_host_file(dir / "daemon.json");
  ASSERT_TRUE(c);
  dir.write("daemon.json", "{}");
  EXPECT_FALSE(replace_host_file(dir / "daemon.json", "{\"mine\":1}", c->stamp));
}

TEST(HostFile, BackupOnlyWhenAsked) {
  TempDir dir;
  auto path = dir.write("daemon.json", "old");
  auto c = read_host_file(path);
  ASSERT_TRUE(replace_host_file(path, "new", c->stamp));
  EXPECT_FALSE(std::filesystem::exists(path + ".bak"));
  c = read_host_file(path);
  ASSERT_TRUE(replace_host_file(path, "newer", c->stamp, {.backup = true}));
  EXPECT_EQ(dir.read("daemon.json.bak"), "new");
  EXPECT_EQ(dir.read("daemon.json"), "newer");
}

TEST(HostFile, SymlinkResolvesToItsTarget) {
  TempDir dir;
  dir.write("real/daemon.json", "{}");
  std::filesystem::create_directory(dir / "etc");
  std::filesystem::create_symlink("../real/daemon.json", dir / "etc/daemon.json");
  auto r = resolve_host_file(dir / "etc/daemon.json");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(std::filesystem::canonical(*r), std::filesystem::canonical(dir / "real/daemon.json"));
}

TEST(HostFile, DanglingSymlinkResolvesToTheFileItWouldCreate) {
  TempDir dir;
  std::filesystem::create_symlink(dir / "target.json", dir / "daemon.json");
  auto r = resolve_host_file(dir / "daemon.json");
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, dir / "target.json");
}

TEST(HostFile, SymlinkLoopIsAnError) {
  TempDir dir;
  std::filesystem::create_symlink(dir / "b", dir / "a");
  std::filesystem::create_symlink(dir / "a", dir / "b");
  auto r = resolve_host_file(dir / "a");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ELOOP);
}

TEST(HostFile, LockIsExclusiveAndTimesOut) {
  TempDir dir;
  auto first = HostFileLock::acquire(dir / "daemon.json");
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_TRUE(std::filesystem::exists(dir / ".daemon.json.lock"));
  auto second = HostFileLock::acquire(dir / "daemon.json", std::chrono::milliseconds(100));
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code(), EWOULDBLOCK);
}

TEST(HostFile, LockIsReleasedWithItsOwner) {
  TempDir dir;
  {
    auto first = HostFileLock::acquire(dir / "daemon.json");
    ASSERT_TRUE(first);
  }
  EXPECT_TRUE(HostFileLock::acquire(dir / "daemon.json", std::chrono::milliseconds(100)));
}

TEST(EditHostFile, EditsExistingFileKeepingModeUnderASidecarLock) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  Status s = edit_host_file(path, [](const std::optional<std::string>& current) -> Result<std::string> {
    EXPECT_EQ(current, std::optional<std::string>("old\n"));
    return std::string("new\n");
  });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(dir.read("config.toml"), "new\n");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(::access((dir / ".config.toml.lock").c_str(), F_OK), 0);
}

TEST(EditHostFile, CreatesMissingFile) {
  TempDir dir;
  Status s = edit_host_file(dir / "new.toml",
                            [](const std::optional<std::string>& current) -> Result<std::string> {
                              EXPECT_FALSE(current.has_value());
                              return std::string("x = 1\n");
                            });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(dir.read("new.toml"), "x = 1\n");
}

TEST(EditHostFile, EditErrorLeavesFileUntouched) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  Status s = edit_host_file(path, [](const std::optional<std::string>&) -> Result<std::string> {
    return fail(EINVAL, "bad edit");
  });
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "bad edit");
  EXPECT_EQ(dir.read("config.toml"), "old\n");
}

TEST(EditHostFile, ForeignChangeDuringEditIsRefused) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  Status s = edit_host_file(path, [&](const std::optional<std::string>&) -> Result<std::string> {
    dir.write("config.toml", "someone else's much longer edit\n");
    return std::string("ours\n");
  });
  ASSERT_FALSE(s);
  EXPECT_EQ(dir.read("config.toml"), "someone else's much longer edit\n");
}

TEST(EditHostFile, SymlinkedFileIsEditedThroughTheLinkWhichIsKept) {
  TempDir dir;
  std::string target = dir.write("real.toml", "old\n");
  std::string link = dir / "config.toml";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  Status s = edit_host_file(link, [](const std::optional<std::string>& current) -> Result<std::string> {
    EXPECT_EQ(current, std::optional<std::string>("old\n"));
    return std::string("new\n");
  });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(dir.read("real.toml"), "new\n");
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

}  // namespace
}  // namespace nvct::ctk
