#include "nvct/config/locked_edit.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::config {
namespace {

using nvct::testing::TempDir;

TEST(LockedEdit, LockFileIsASidecar) {
  EXPECT_EQ(lock_path_for("/etc/nvidia-container-runtime/config.toml"),
            "/etc/nvidia-container-runtime/.config.toml.lock");
  EXPECT_EQ(lock_path_for("/config.toml"), "/.config.toml.lock");
  EXPECT_EQ(lock_path_for("config.toml"), "./.config.toml.lock");
}

TEST(LockedEdit, EditsExistingFileKeepingMode) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  Status s =
      edit_file_locked(path, [](const std::optional<std::string>& current) -> Result<std::string> {
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

TEST(LockedEdit, CreatesMissingFile) {
  TempDir dir;
  Status s = edit_file_locked(dir / "new.toml",
                              [](const std::optional<std::string>& current) -> Result<std::string> {
                                EXPECT_FALSE(current.has_value());
                                return std::string("x = 1\n");
                              });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(dir.read("new.toml"), "x = 1\n");
}

TEST(LockedEdit, EditErrorLeavesFileUntouched) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  Status s = edit_file_locked(path, [](const std::optional<std::string>&) -> Result<std::string> {
    return fail(EINVAL, "bad edit");
  });
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "bad edit");
  EXPECT_EQ(dir.read("config.toml"), "old\n");
}

TEST(LockedEdit, ForeignChangeDuringEditIsDetected) {
  TempDir dir;
  std::string path = dir.write("config.toml", "old\n");
  Status s = edit_file_locked(path, [&](const std::optional<std::string>&) -> Result<std::string> {
    dir.write("config.toml", "someone else's much longer edit\n");
    return std::string("ours\n");
  });
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("changed while it was being edited"), std::string::npos);
  EXPECT_EQ(dir.read("config.toml"), "someone else's much longer edit\n");
}

}  // namespace
}  // namespace nvct::config

namespace nvct::config {
namespace {

TEST(LockedEdit, SymlinkedTargetIsRefusedNotReplaced) {
  // Replacing the link with a regular file would silently detach it from its target.
  nvct::testing::TempDir dir;
  std::string target = dir.write("real.toml", "old\n");
  std::string link = dir / "config.toml";
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  Status s = edit_file_locked(link, [](const std::optional<std::string>&) -> Result<std::string> {
    return std::string("new\n");
  });
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("not a regular file"), std::string::npos)
      << s.error().message();
  EXPECT_EQ(dir.read("real.toml"), "old\n");
  struct stat st {};
  ASSERT_EQ(::lstat(link.c_str(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

}  // namespace
}  // namespace nvct::config
