#include "nvct/mount/symlink.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>
#include <filesystem>

#include "mount_sandbox.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

std::string link_text(const std::string& p) {
  char buf[PATH_MAX];
  ssize_t n = ::readlink(p.c_str(), buf, sizeof buf);
  return n < 0 ? "" : std::string(buf, static_cast<std::size_t>(n));
}

class Symlinks : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override {
    force_openat2_fallback(GetParam());
    rootfs.emplace(*Root::open(box.rootfs()));
  }
  void TearDown() override { force_openat2_fallback(false); }
  Sandbox box;
  std::optional<Root> rootfs;
};

TEST_P(Symlinks, CreatesLinkInResolvedParentAndJournalsIt) {
  Journal j;
  auto s = create_symlink(*rootfs, {"/usr/lib/x86_64-linux-gnu/libcuda.so", "libcuda.so.1"}, j);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(link_text(box.path("rootfs/usr/lib/x86_64-linux-gnu/libcuda.so")), "libcuda.so.1");
  ASSERT_TRUE(j.rollback());
  EXPECT_FALSE(box.exists("rootfs/usr"));
}

TEST_P(Symlinks, ExistingEntryIsKeptByDefault) {
  box.symlink("other", "rootfs/usr/lib/libcuda.so");
  Journal j;
  ASSERT_TRUE(create_symlink(*rootfs, {"/usr/lib/libcuda.so", "libcuda.so.1"}, j));
  EXPECT_EQ(link_text(box.path("rootfs/usr/lib/libcuda.so")), "other");
  EXPECT_EQ(j.size(), 0u);
}

TEST_P(Symlinks, ReplaceSwapsTheLinkAtomically) {
  box.symlink("other", "rootfs/usr/lib/libcuda.so");
  Journal j;
  ASSERT_TRUE(
      create_symlink(*rootfs, {"/usr/lib/libcuda.so", "libcuda.so.1"}, j, ExistingLink::kReplace));
  EXPECT_EQ(link_text(box.path("rootfs/usr/lib/libcuda.so")), "libcuda.so.1");
}

TEST_P(Symlinks, ParentSymlinkedOutsideLandsInRoot) {
  box.mkdir("sentinel");
  box.mkdir("rootfs" + box.path("sentinel"));
  box.symlink(box.path("sentinel"), "rootfs/usr/lib64");
  Journal j;
  ASSERT_TRUE(create_symlink(*rootfs, {"/usr/lib64/libcuda.so", "libcuda.so.1"}, j));
  EXPECT_TRUE(box.exists("rootfs" + box.path("sentinel") + "/libcuda.so"));
  EXPECT_FALSE(box.exists("sentinel/libcuda.so"));
}

TEST_P(Symlinks, ParentResolvingIntoProcIsRefused) {
  box.mkdir("rootfs/proc/x");
  box.symlink("/proc/x", "rootfs/usr/lib64");
  Journal j;
  EXPECT_FALSE(create_symlink(*rootfs, {"/usr/lib64/libcuda.so", "libcuda.so.1"}, j));
  EXPECT_FALSE(box.exists("rootfs/proc/x/libcuda.so"));
}

// Links stay out of /dev, but for the DRM by-path links of graphics containers.
TEST_P(Symlinks, DrmByPathLinksAreTheOnlyLinksAllowedUnderDev) {
  box.mkdir("rootfs/dev/dri");
  Journal j;
  auto ok_link = create_symlink(
      *rootfs, {"/dev/dri/by-path/pci-0000:17:00.0-card", "../card1"}, j);
  ASSERT_TRUE(ok_link) << ok_link.error().message();
  EXPECT_EQ(link_text(box.path("rootfs/dev/dri/by-path/pci-0000:17:00.0-card")), "../card1");
  for (const char* bad : {"/dev/dri/by-path/../../shm/x", "/dev/shm/x", "/dev/nvidia-link"}) {
    auto s = create_symlink(*rootfs, {bad, "../card1"}, j);
    EXPECT_FALSE(s) << bad;
  }
  // A by-path directory that the image made a link to elsewhere in /dev is refused.
  box.mkdir("rootfs/dev/shm");
  box.mkdir("rootfs/dev/dri2");
  box.symlink("/dev/shm", "rootfs/dev/dri2/by-path");
  ASSERT_TRUE(j.rollback());
  std::filesystem::remove_all(box.path("rootfs/dev/dri"));
  box.symlink("/dev/dri2", "rootfs/dev/dri");
  Journal j2;
  auto escaped = create_symlink(*rootfs, {"/dev/dri/by-path/pci-0000:17:00.0-card", "../card1"}, j2);
  EXPECT_FALSE(escaped);
  EXPECT_FALSE(box.exists("rootfs/dev/shm/pci-0000:17:00.0-card"));
  ASSERT_TRUE(j2.rollback());
}

INSTANTIATE_TEST_SUITE_P(Openat2AndWalker, Symlinks, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Walker" : "Openat2"; });

}  // namespace
}  // namespace nvct::mount
