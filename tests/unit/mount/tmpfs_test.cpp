#include "nvct/mount/tmpfs.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/magic.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "mount_sandbox.hpp"
#include "nvct/mount/bind.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

// Param: {walker forced, classic mount(2) forced}.
class PrivateTmpfs : public ::testing::TestWithParam<std::pair<bool, bool>> {
 protected:
  void SetUp() override {
    force_openat2_fallback(GetParam().first);
    force_classic_mount_api(GetParam().second);
    box.write("rootfs/etc/x/old", "image");
    rootfs.emplace(*Root::open(box.rootfs()));
  }
  void TearDown() override {
    force_openat2_fallback(false);
    force_classic_mount_api(false);
  }
  Sandbox box;
  std::optional<Root> rootfs;
};

TEST_P(PrivateTmpfs, NewPrivateTmpfs0555NosuidNodevNoexecHidingTheImage) {
  Journal j;
  auto t = mount_private_tmpfs(*rootfs, "/etc/x", PathPolicy::kDefault, j);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->path, "/etc/x");
  std::string dir = box.path("rootfs/etc/x");
  struct statfs fs {};
  ASSERT_EQ(::statfs(dir.c_str(), &fs), 0);
  EXPECT_EQ(fs.f_type, TMPFS_MAGIC);
  EXPECT_EQ(fs.f_flags & (ST_NOSUID | ST_NODEV | ST_NOEXEC), ST_NOSUID | ST_NODEV | ST_NOEXEC);
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0555u);
  EXPECT_TRUE(*mount_is_private(t->fd.get()));
  EXPECT_FALSE(box.exists("rootfs/etc/x/old"));
  auto d = open_tmpfs_dir(*t);
  ASSERT_TRUE(d);
  unique_fd f(::openat(d->get(), "new", O_WRONLY | O_CREAT | O_CLOEXEC, 0444));
  EXPECT_TRUE(f);
  EXPECT_TRUE(box.exists("rootfs/etc/x/new"));
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
  EXPECT_EQ(testing::read_text(box.path("rootfs/etc/x/old")), "image");
}

TEST_P(PrivateTmpfs, MissingDirectoriesAreCreatedAndRolledBack) {
  Journal j;
  ASSERT_TRUE(mount_private_tmpfs(*rootfs, "/new/dir", PathPolicy::kDefault, j));
  ASSERT_TRUE(j.rollback());
  EXPECT_FALSE(box.exists("rootfs/new"));
}

TEST_P(PrivateTmpfs, TargetThatIsAFileOrOutsideThePolicyIsRefused) {
  Journal j;
  EXPECT_FALSE(mount_private_tmpfs(*rootfs, "/etc/x/old", PathPolicy::kDefault, j));
  EXPECT_FALSE(mount_private_tmpfs(*rootfs, "/proc/x", PathPolicy::kDefault, j));
  ASSERT_TRUE(j.rollback());
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
}

TEST_P(PrivateTmpfs, DirectoryUnderASharedMountIsRefusedBeforeMounting) {
  box.mkdir("peer");
  std::string etc = box.path("rootfs/etc");
  ASSERT_EQ(::mount(etc.c_str(), etc.c_str(), nullptr, MS_BIND, nullptr), 0);
  ASSERT_EQ(::mount(nullptr, etc.c_str(), nullptr, MS_SHARED, nullptr), 0);
  ASSERT_EQ(::mount(etc.c_str(), box.path("peer").c_str(), nullptr, MS_BIND, nullptr), 0);
  auto peer_before = testing::mounts_under(box.path("peer"));
  Journal j;
  auto t = mount_private_tmpfs(*rootfs, "/etc/x", PathPolicy::kDefault, j);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("shared propagation"), std::string::npos)
      << t.error().message();
  EXPECT_EQ(testing::mounts_under(box.path("peer")), peer_before);
  EXPECT_EQ(testing::read_text(box.path("peer/x/old")), "image");
  ASSERT_TRUE(j.rollback());
}

TEST(DetachedTmpfs, Mode0555NosuidNodevNoexecWithTheRequestedSize) {
  Sandbox box;
  box.mkdir("at");
  auto t = detached_tmpfs("64k");
  ASSERT_TRUE(t) << t.error().message();
  ASSERT_TRUE(*t) << "this kernel has the new mount API";
  std::string dir = box.path("at");
  ASSERT_EQ(::move_mount(t->get(), "", AT_FDCWD, dir.c_str(), MOVE_MOUNT_F_EMPTY_PATH), 0);
  struct statfs fs {};
  ASSERT_EQ(::statfs(dir.c_str(), &fs), 0);
  EXPECT_EQ(fs.f_type, TMPFS_MAGIC);
  EXPECT_EQ(static_cast<unsigned long>(fs.f_blocks) * fs.f_bsize, 64u * 1024);
  EXPECT_EQ(fs.f_flags & (ST_NOSUID | ST_NODEV | ST_NOEXEC), ST_NOSUID | ST_NODEV | ST_NOEXEC);
  struct stat st {};
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0555u);
}

TEST(DetachedTmpfs, ForcedClassicMountsGiveNoFd) {
  force_classic_mount_api(true);
  auto t = detached_tmpfs();
  force_classic_mount_api(false);
  ASSERT_TRUE(t);
  EXPECT_FALSE(*t);
}

INSTANTIATE_TEST_SUITE_P(Modes, PrivateTmpfs,
                         ::testing::Values(std::pair{false, false}, std::pair{true, true}),
                         [](const auto& p) {
                           return p.param.first ? "WalkerClassic" : "Openat2New";
                         });

}  // namespace
}  // namespace nvct::mount
