#include "nvct/mount/target.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <chrono>

#include "mount_sandbox.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

class Targets : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    force_openat2_fallback(GetParam());
    auto r = Root::open(box.rootfs());
    ASSERT_TRUE(r);
    root.emplace(std::move(*r));
  }
  void TearDown() override { force_openat2_fallback(false); }
  Sandbox box;
  std::optional<Root> root;
};

TEST_P(Targets, MkdirAllCreatesMissingDirectoriesAndJournalsThem) {
  box.mkdir("rootfs/usr");
  Journal j;
  auto fd = mkdir_all_in_root(*root, "/usr/lib/x86_64-linux-gnu", &j);
  ASSERT_TRUE(fd) << fd.error().message();
  EXPECT_EQ(*root->relative_path(fd->get()), "/usr/lib/x86_64-linux-gnu");
  EXPECT_EQ(j.size(), 2u);
  ASSERT_TRUE(j.rollback());
  EXPECT_FALSE(box.exists("rootfs/usr/lib"));
  EXPECT_TRUE(box.exists("rootfs/usr"));
}

TEST_P(Targets, MkdirAllThroughAbsoluteSymlinkStaysInRoot) {
  box.mkdir("sentinel");
  box.mkdir("rootfs" + box.path("sentinel"));
  box.symlink(box.path("sentinel"), "rootfs/usr/lib64");
  auto fd = mkdir_all_in_root(*root, "/usr/lib64/sub");
  ASSERT_TRUE(fd) << fd.error().message();
  EXPECT_EQ(*root->relative_path(fd->get()), box.path("sentinel") + "/sub");
  EXPECT_TRUE(box.exists("rootfs" + box.path("sentinel") + "/sub"));
  EXPECT_FALSE(box.exists("sentinel/sub"));
}

TEST_P(Targets, MkdirAllThroughSymlinkToMissingInRootDirIsRefused) {
  box.mkdir("sentinel");
  box.symlink(box.path("sentinel"), "rootfs/usr/lib64");
  auto fd = mkdir_all_in_root(*root, "/usr/lib64/sub");
  ASSERT_FALSE(fd);
  EXPECT_FALSE(box.exists("sentinel/sub"));
}

TEST_P(Targets, MkdirAllThroughDanglingSymlinkIsRefused) {
  box.symlink("/tmp/foo/bar", "rootfs/jump");
  auto fd = mkdir_all_in_root(*root, "/jump/baz");
  ASSERT_FALSE(fd);
  EXPECT_FALSE(box.exists("rootfs/tmp/foo"));
}

TEST_P(Targets, MkdirAllRefusesDotDotInCreatedTail) {
  auto fd = mkdir_all_in_root(*root, "/a/../b");
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), EINVAL);
}

TEST_P(Targets, NewFileTargetIsCreatedEmpty) {
  Journal j;
  auto t =
      create_target(*root, "/usr/lib/libcuda.so.1", TargetKind::kFile, PathPolicy::kDefault, &j);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->path, "/usr/lib/libcuda.so.1");
  struct stat st {};
  ASSERT_EQ(::lstat(box.path("rootfs/usr/lib/libcuda.so.1").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(j.size(), 3u);  // usr, lib, the file
}

// As libnvidia-container: a bind's placeholder gets its source's mode (the umask applies), a
// directory the given one; without one, 0644 and 0755.
TEST_P(Targets, NewTargetsGetTheGivenModeOrTheDefault) {
  mode_t old = ::umask(022);
  auto f = create_target(*root, "/usr/bin/nvidia-smi", TargetKind::kFile, PathPolicy::kDefault,
                         nullptr, 0755);
  auto d = create_target(*root, "/etc/profiles", TargetKind::kDirectory, PathPolicy::kDefault,
                         nullptr, 0555);
  auto g = create_target(*root, "/lib/gsp.bin", TargetKind::kFile, PathPolicy::kDefault);
  ::umask(old);
  ASSERT_TRUE(f && d && g);
  struct stat st {};
  ASSERT_EQ(::lstat(box.path("rootfs/usr/bin/nvidia-smi").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::lstat(box.path("rootfs/etc/profiles").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0555u);
  ASSERT_EQ(::lstat(box.path("rootfs/lib/gsp.bin").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0644u);
}

TEST_P(Targets, ExistingSymlinkTargetIsResolvedInRoot) {
  box.write("rootfs/usr/lib/libcuda.so.550", "");
  box.symlink("libcuda.so.550", "rootfs/usr/lib/libcuda.so.1");
  auto t = create_target(*root, "/usr/lib/libcuda.so.1", TargetKind::kFile, PathPolicy::kDefault,
                         nullptr);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->path, "/usr/lib/libcuda.so.550");
}

TEST_P(Targets, AbsoluteSymlinkTargetLandsInRootNotOnHost) {
  box.write("sentinel/shadow", "host");
  box.write("rootfs" + box.path("sentinel/shadow"), "image");
  box.symlink(box.path("sentinel/shadow"), "rootfs/usr/lib/libcuda.so.1");
  auto t = create_target(*root, "/usr/lib/libcuda.so.1", TargetKind::kFile, PathPolicy::kDefault,
                         nullptr);
  ASSERT_TRUE(t) << t.error().message();
  EXPECT_EQ(t->path, box.path("sentinel/shadow"));
  EXPECT_EQ(*root->relative_path(t->fd.get()), box.path("sentinel/shadow"));
}

TEST_P(Targets, DanglingSymlinkTargetIsRefused) {
  box.symlink("/nonexistent", "rootfs/usr/lib/libcuda.so.1");
  auto t = create_target(*root, "/usr/lib/libcuda.so.1", TargetKind::kFile, PathPolicy::kDefault,
                         nullptr);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code(), ENOENT);
  EXPECT_FALSE(box.exists("rootfs/nonexistent"));
}

TEST_P(Targets, SymlinkIntoProcIsRefused) {
  box.mkdir("rootfs/proc/self");
  box.symlink("/proc/self/x", "rootfs/usr/lib/libcuda.so.1");
  box.write("rootfs/proc/self/x", "");
  auto t = create_target(*root, "/usr/lib/libcuda.so.1", TargetKind::kFile, PathPolicy::kDefault,
                         nullptr);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code(), EPERM);
}

TEST_P(Targets, DirectoryWhereFileIsNeededIsAnError) {
  box.mkdir("rootfs/usr/lib/libcuda.so.1");
  auto t = create_target(*root, "/usr/lib/libcuda.so.1", TargetKind::kFile, PathPolicy::kDefault,
                         nullptr);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("exists as a directory"), std::string::npos)
      << t.error().message();
}

TEST_P(Targets, FileWhereDirectoryIsNeededIsAnError) {
  box.write("rootfs/lib/firmware/nvidia/550", "");
  auto t = create_target(*root, "/lib/firmware/nvidia/550", TargetKind::kDirectory,
                         PathPolicy::kDefault, nullptr);
  ASSERT_FALSE(t);
  EXPECT_EQ(t.error().code(), ENOTDIR);
}

TEST_P(Targets, FifoTargetIsRefusedWithoutBlocking) {
  box.mkdir("rootfs/usr/lib");
  ASSERT_EQ(::mkfifo(box.path("rootfs/usr/lib/libcuda.so.1").c_str(), 0644), 0);
  auto start = std::chrono::steady_clock::now();
  auto t = create_target(*root, "/usr/lib/libcuda.so.1", TargetKind::kFile, PathPolicy::kDefault,
                         nullptr);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("fifo"), std::string::npos) << t.error().message();
}

TEST_P(Targets, ExistingCharDeviceIsAcceptedOnlyForDevices) {
  box.mkdir("rootfs/dev");
  ASSERT_EQ(::mknod(box.path("rootfs/dev/nvidia0").c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
  EXPECT_TRUE(
      create_target(*root, "/dev/nvidia0", TargetKind::kFile, PathPolicy::kDevice, nullptr));
  box.mkdir("rootfs/usr/lib");
  ASSERT_EQ(::mknod(box.path("rootfs/usr/lib/x.so").c_str(), S_IFCHR | 0600, makedev(1, 3)), 0);
  EXPECT_FALSE(
      create_target(*root, "/usr/lib/x.so", TargetKind::kFile, PathPolicy::kDefault, nullptr));
}

TEST_P(Targets, RootItselfIsNeverATarget) {
  box.symlink("/", "rootfs/usr/lib/x");
  auto t =
      create_target(*root, "/usr/lib/x", TargetKind::kDirectory, PathPolicy::kDefault, nullptr);
  ASSERT_FALSE(t);
}

INSTANTIATE_TEST_SUITE_P(Openat2AndWalker, Targets, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Walker" : "Openat2"; });

}  // namespace
}  // namespace nvct::mount
