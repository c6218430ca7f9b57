#include "nvct/base/file.hpp"

#include <fcntl.h>
#include <sys/stat.h>

#include <filesystem>

#include <gtest/gtest.h>

#include "nvct/base/unique_fd.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct {
namespace {

TEST(AtomicWrite, CreatesNewFileWithDefaultMode) {
  testing::TempDir dir;
  ASSERT_TRUE(write_file_atomic(dir / "a.json", "{}", {.default_mode = 0600}));
  EXPECT_EQ(dir.read("a.json"), "{}");
  struct stat st {};
  ASSERT_EQ(::stat((dir / "a.json").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(AtomicWrite, KeepsModeOfExistingFileAndLeavesNoTempFile) {
  testing::TempDir dir;
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

TEST(AtomicWrite, RefusesToReplaceADirectoryAndLeavesItAlone) {
  testing::TempDir dir;
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
  testing::TempDir dir;
  auto path = dir.write("big", std::string(100, 'x'));
  EXPECT_TRUE(read_file(path, 100));
  auto r = read_file(path, 99);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EFBIG);
}

TEST(ReadFile, AtDoesNotFollowFinalSymlink) {
  testing::TempDir dir;
  dir.write("real", "data");
  std::filesystem::create_symlink("real", dir / "link");
  unique_fd d(::open(dir.path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  EXPECT_EQ(*read_file_at(d.get(), "real"), "data");
  EXPECT_FALSE(read_file_at(d.get(), "link"));
}

}  // namespace
}  // namespace nvct
