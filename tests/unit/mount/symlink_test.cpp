#include "nvct/mount/symlink.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <climits>

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

INSTANTIATE_TEST_SUITE_P(Openat2AndWalker, Symlinks, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Walker" : "Openat2"; });

}  // namespace
}  // namespace nvct::mount
