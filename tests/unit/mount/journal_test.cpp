#include "nvct/mount/journal.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount_sandbox.hpp"
#include "nvct/mount/in_root.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

unique_fd open_dir(const std::string& p) {
  return unique_fd(::open(p.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
}

TEST(Journal, RollbackRemovesCreatedEntriesNewestFirst) {
  Sandbox box;
  box.mkdir("rootfs/a/b");
  box.write("rootfs/a/b/f", "");
  auto root_dir = open_dir(box.path("rootfs"));
  auto a = open_dir(box.path("rootfs/a"));
  auto b = open_dir(box.path("rootfs/a/b"));
  Journal j;
  ASSERT_TRUE(j.record_created(Journal::Kind::kDirectory, root_dir.get(), "a"));
  ASSERT_TRUE(j.record_created(Journal::Kind::kDirectory, a.get(), "b"));
  ASSERT_TRUE(j.record_created(Journal::Kind::kFile, b.get(), "f"));
  ASSERT_TRUE(j.rollback());
  EXPECT_FALSE(box.exists("rootfs/a"));
  EXPECT_EQ(j.size(), 0u);
}

TEST(Journal, ReplacedEntryIsNotRemoved) {
  Sandbox box;
  box.write("rootfs/f", "mine");
  auto dir = open_dir(box.path("rootfs"));
  Journal j;
  ASSERT_TRUE(j.record_created(Journal::Kind::kFile, dir.get(), "f"));
  // Keep the old inode alive under another name so its number cannot be reused.
  ASSERT_EQ(::rename(box.path("rootfs/f").c_str(), box.path("rootfs/old").c_str()), 0);
  box.write("rootfs/f", "someone else's");
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(box.exists("rootfs/f"));
}

TEST(Journal, NonEmptyCreatedDirectoryIsKept) {
  Sandbox box;
  box.mkdir("rootfs/d");
  auto dir = open_dir(box.path("rootfs"));
  Journal j;
  ASSERT_TRUE(j.record_created(Journal::Kind::kDirectory, dir.get(), "d"));
  box.write("rootfs/d/other", "x");
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(box.exists("rootfs/d/other"));
}

TEST(Journal, RollbackUnmountsThroughTheMountFd) {
  Sandbox box;
  box.mkdir("rootfs/m");
  ASSERT_EQ(::mount("tmpfs", box.path("rootfs/m").c_str(), "tmpfs", 0, nullptr), 0);
  auto top = open_dir(box.path("rootfs/m"));
  Journal j;
  ASSERT_TRUE(j.record_mount(top.get(), "/m"));
  ASSERT_EQ(testing::mounts_under(box.path("rootfs")).size(), 1u);
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.path("rootfs")).empty());
}

TEST(Journal, RemembersDirectoriesUntilADirectoryIsMountedOrARollback) {
  Sandbox box;
  box.mkdir("rootfs/d");
  box.write("rootfs/f", "");
  auto dir = open_dir(box.path("rootfs/d"));
  Journal j;
  EXPECT_EQ(j.known_dir("/d"), -1);
  ASSERT_TRUE(j.remember_dir("/d", dir.get()));
  int known = j.known_dir("/d");
  ASSERT_GE(known, 0);
  EXPECT_NE(known, dir.get()) << "the journal keeps its own copy";
  j.remember_dir_mount("/d", {.mount_id = 7, .is_private = true});
  ASSERT_TRUE(j.known_dir_mount("/d"));
  EXPECT_EQ(j.known_dir_mount("/d")->mount_id, 7u);
  // A file mount keeps them; a directory mount forgets them.
  unique_fd file(::open(box.path("rootfs/f").c_str(), O_PATH | O_CLOEXEC));
  j.adopt_mount(std::move(file), "/f", false);
  EXPECT_GE(j.known_dir("/d"), 0);
  unique_fd d2(::open(box.path("rootfs/d").c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  j.adopt_mount(std::move(d2), "/d", true);
  EXPECT_EQ(j.known_dir("/d"), -1);
  EXPECT_FALSE(j.known_dir_mount("/d"));
  // record_mount finds out itself that a mount root is a directory.
  ASSERT_TRUE(j.remember_dir("/d", dir.get()));
  j.commit();
  EXPECT_EQ(j.known_dir("/d"), -1);
  ASSERT_TRUE(j.remember_dir("/d", dir.get()));
  ASSERT_TRUE(j.record_mount(dir.get(), "/d"));
  EXPECT_EQ(j.known_dir("/d"), -1);
  ASSERT_TRUE(j.remember_dir("/d", dir.get()));
  j.commit();
  ASSERT_TRUE(j.remember_dir("/d", dir.get()));
  ASSERT_TRUE(j.rollback());
  EXPECT_EQ(j.known_dir("/d"), -1);
}

TEST(Journal, CommitForgetsEverything) {
  Sandbox box;
  box.write("rootfs/f", "");
  auto dir = open_dir(box.path("rootfs"));
  Journal j;
  ASSERT_TRUE(j.record_created(Journal::Kind::kFile, dir.get(), "f"));
  j.commit();
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(box.exists("rootfs/f"));
}

}  // namespace
}  // namespace nvct::mount
