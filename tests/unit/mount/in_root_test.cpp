#include "nvct/mount/in_root.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mount_sandbox.hpp"
#include "nvct/base/file.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

// Every case runs with openat2 and with the userspace walker forced.
class InRoot : public ::testing::TestWithParam<bool> {
 protected:
  void SetUp() override { force_openat2_fallback(GetParam()); }
  void TearDown() override { force_openat2_fallback(false); }
  Root root() const {
    auto r = Root::open(box.rootfs());
    EXPECT_TRUE(r) << r.error().message();
    return std::move(*r);
  }
  std::string where(int fd) const {
    auto p = root().relative_path(fd);
    return p ? *p : "error: " + p.error().message();
  }
  Sandbox box;
};

TEST_P(InRoot, PlainPathOpensInsideRoot) {
  box.write("rootfs/etc/hosts", "x");
  auto fd = root().open_in_root("/etc/hosts", O_PATH);
  ASSERT_TRUE(fd) << fd.error().message();
  EXPECT_EQ(where(fd->get()), "/etc/hosts");
}

TEST_P(InRoot, AbsoluteSymlinkIsResolvedInsideRoot) {
  box.write("rootfs/target/file", "inside");
  box.write("outside/file", "host");
  box.symlink(box.path("outside"), "rootfs/link");  // absolute host path
  box.symlink("/target", "rootfs/abs");
  auto a = root().open_in_root("/abs/file", O_RDONLY);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(*read_fd(a->get()), "inside");
  // The host path does not exist inside the root: ENOENT, never the host file.
  auto b = root().open_in_root("/link/file", O_RDONLY);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().code(), ENOENT);
}

TEST_P(InRoot, DotDotIsClampedAtRoot) {
  box.write("rootfs/etc/passwd", "in");
  box.symlink("../../../../../../../../etc", "rootfs/usr/lib64");
  auto fd = root().open_in_root("/usr/lib64/passwd", O_PATH);
  ASSERT_TRUE(fd) << fd.error().message();
  EXPECT_EQ(where(fd->get()), "/etc/passwd");
  auto up = root().open_in_root("/../../..", O_PATH | O_DIRECTORY);
  ASSERT_TRUE(up);
  EXPECT_EQ(where(up->get()), "/");
}

TEST_P(InRoot, SymlinkLoopFailsWithEloop) {
  box.symlink("b", "rootfs/a");
  box.symlink("a", "rootfs/b");
  auto fd = root().open_in_root("/a", O_PATH);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), ELOOP);
}

TEST_P(InRoot, ChainOf41LinksFailsWithEloop) {
  box.mkdir("rootfs/end");
  for (int i = 0; i < 41; ++i)
    box.symlink(i == 40 ? "end" : "l" + std::to_string(i + 1), "rootfs/l" + std::to_string(i));
  auto fd = root().open_in_root("/l0", O_PATH);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), ELOOP);
  auto ok40 = root().open_in_root("/l1", O_PATH);  // 40 hops is still allowed
  EXPECT_TRUE(ok40) << ok40.error().message();
}

TEST_P(InRoot, TrailingSymlinkWithNofollowIsTheLinkItself) {
  box.symlink("/etc/shadow", "rootfs/lib/libcuda.so.1");
  auto fd = root().open_in_root("/lib/libcuda.so.1", O_PATH | O_NOFOLLOW);
  ASSERT_TRUE(fd) << fd.error().message();
  struct stat st {};
  ASSERT_EQ(::fstat(fd->get(), &st), 0);
  EXPECT_TRUE(S_ISLNK(st.st_mode));
}

TEST_P(InRoot, MagicLinksInALiveProcAreRefused) {
  box.mkdir("rootfs/proc");
  ASSERT_EQ(::mount("proc", box.path("rootfs/proc").c_str(), "proc", 0, nullptr), 0);
  auto fd = root().open_in_root("/proc/self/root/etc", O_PATH);
  ASSERT_FALSE(fd) << "resolved to " << where(fd->get());
  EXPECT_EQ(fd.error().code(), ELOOP);
  auto cwd = root().open_in_root("/proc/1/cwd", O_PATH);
  ASSERT_FALSE(cwd) << "resolved to " << where(cwd->get());
  // openat2 may answer EACCES (ptrace access check on the magic link) before ELOOP.
  EXPECT_TRUE(cwd.error().code() == ELOOP || cwd.error().code() == EACCES) << cwd.error().message();
}

TEST_P(InRoot, NotADirectoryComponentFails) {
  box.write("rootfs/file", "x");
  auto fd = root().open_in_root("/file/x", O_PATH);
  ASSERT_FALSE(fd);
  EXPECT_EQ(fd.error().code(), ENOTDIR);
}

TEST_P(InRoot, FallbackCounterMovesOnlyWhenForced) {
  box.mkdir("rootfs/d");
  auto before = fallback_resolution_count();
  ASSERT_TRUE(root().open_in_root("/d", O_PATH));
  EXPECT_EQ(fallback_resolution_count() > before, GetParam());
}

INSTANTIATE_TEST_SUITE_P(Openat2AndWalker, InRoot, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "Walker" : "Openat2"; });

TEST(InRootRoot, HostRootIsRefusedAsRootfs) {
  auto r = Root::open("/");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EINVAL);
  EXPECT_TRUE(Root::open_allow_host_root("/"));
}

TEST(InRootRoot, RelativePathOfOutsideFdIsExdev) {
  Sandbox box;
  auto r = Root::open(box.rootfs());
  ASSERT_TRUE(r);
  nvct::unique_fd fd(::open(box.host().c_str(), O_PATH | O_CLOEXEC));
  auto rel = r->relative_path(fd.get());
  ASSERT_FALSE(rel);
  EXPECT_EQ(rel.error().code(), EXDEV);
}

TEST(InRootRoot, WalkerUsedDirectlyStaysInRoot) {
  Sandbox box;
  box.write("rootfs/x/y", "1");
  box.symlink("/x", "rootfs/lnk");
  auto r = Root::open(box.rootfs());
  ASSERT_TRUE(r);
  auto fd = resolve_with_walker(*r, "lnk/../lnk/y", O_RDONLY);
  ASSERT_TRUE(fd) << fd.error().message();
  EXPECT_EQ(*read_fd(fd->get()), "1");
}

}  // namespace
}  // namespace nvct::mount
