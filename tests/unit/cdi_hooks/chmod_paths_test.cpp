#include "nvct/cdi_hooks/chmod_paths.hpp"

#include <sys/fsuid.h>
#include <sys/mount.h>

#include "hook_fixture.hpp"

namespace nvct::cdi_hooks {
namespace {

using testing::HookTest;
using testing::mode_of;

TEST(ChmodMode, OctalValuesOnly) {
  EXPECT_EQ(parse_octal_mode("755").value_or(0), 0755u);
  EXPECT_EQ(parse_octal_mode("0640").value_or(0), 0640u);
  EXPECT_EQ(parse_octal_mode("7777").value_or(0), 07777u);
  EXPECT_FALSE(parse_octal_mode(""));
  EXPECT_FALSE(parse_octal_mode("rwx"));
  EXPECT_FALSE(parse_octal_mode("789"));
  EXPECT_FALSE(parse_octal_mode("17777"));
}

class Chmod : public HookTest {};
NVCT_HOOK_TEST_P(Chmod);

TEST_P(Chmod, ChangesOnlyPathsWhoseModeDiffers) {
  sb.mkdir("rootfs/dev/nvidia-caps");
  ::chmod(sb.path("rootfs/dev/nvidia-caps").c_str(), 0700);
  sb.write("rootfs/usr/bin/tool", "x", 0755);
  auto r = chmod_paths(root(), 0755, {"/dev/nvidia-caps", "/usr/bin/tool"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, 1);
  EXPECT_EQ(mode_of(sb.path("rootfs/dev/nvidia-caps")), 0755u);
}

TEST_P(Chmod, MissingPathsAreSkipped) {
  auto r = chmod_paths(root(), 0755, {"/dev/nvidia-caps"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, 0);
}

TEST_P(Chmod, AnAbsoluteSymlinkIsFollowedInsideTheRootOnly) {
  sb.write("host/victim", "host", 0600);
  sb.write("rootfs" + sb.path("host/victim"), "in root", 0600);
  sb.symlink(sb.path("host/victim"), "rootfs/usr/bin/tool");
  auto r = chmod_paths(root(), 0755, {"/usr/bin/tool"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(mode_of(sb.path("host/victim")), 0600u);
  EXPECT_EQ(mode_of(sb.path("rootfs" + sb.path("host/victim"))), 0755u);
}

TEST_P(Chmod, ProcSysAndOtherDevPathsAreRefused) {
  EXPECT_FALSE(chmod_paths(root(), 0755, {"/proc/self"}));
  EXPECT_FALSE(chmod_paths(root(), 0755, {"/sys/kernel"}));
  EXPECT_FALSE(chmod_paths(root(), 0755, {"/dev/sda"}));
}

TEST_P(Chmod, PermissionDeniedIsIgnored) {
  // A read-only bind mount makes chmod fail with EROFS, not EPERM; EPERM needs an object we do
  // not own without CAP_FOWNER, so drop to another fsuid for the call.
  sb.write("rootfs/usr/bin/tool", "x", 0700);
  ASSERT_EQ(::chown(sb.path("rootfs/usr/bin/tool").c_str(), 1234, 1234), 0);
  mount::Root rt = root();
  int old_fsuid = ::setfsuid(4321);
  auto r = chmod_paths(rt, 0755, {"/usr/bin/tool"});
  ::setfsuid(static_cast<uid_t>(old_fsuid));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, 0);
  EXPECT_EQ(mode_of(sb.path("rootfs/usr/bin/tool")), 0700u);
}

// Row 44: a chmod reaches the inode, so a hard link to a host file would change the host file.
TEST_P(Chmod, AHardLinkToAHostFileIsRefused) {
  sb.write("host/victim", "host", 0600);
  sb.mkdir("rootfs/usr/bin");
  ASSERT_EQ(::link(sb.path("host/victim").c_str(), sb.path("rootfs/usr/bin/tool").c_str()), 0);
  auto r = chmod_paths(root(), 0755, {"/usr/bin/tool"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EMLINK);
  EXPECT_NE(r.error().message().find("/usr/bin/tool has 2 hard links"), std::string::npos)
      << r.error().message();
  EXPECT_EQ(mode_of(sb.path("host/victim")), 0600u);
}

// Row 44: a host file mounted into the container (another st_dev than the rootfs) is refused.
TEST_P(Chmod, AFileOnAnotherFilesystemThanTheRootIsRefused) {
  sb.mkdir("rootfs/data");
  ASSERT_EQ(::mount("tmpfs", sb.path("rootfs/data").c_str(), "tmpfs", 0, "mode=0755"), 0);
  sb.write("rootfs/data/host-file", "host", 0600);
  auto r = chmod_paths(root(), 0755, {"/data/host-file"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), EXDEV);
  EXPECT_NE(r.error().message().find("/data/host-file is on another filesystem"), std::string::npos)
      << r.error().message();
  EXPECT_EQ(mode_of(sb.path("rootfs/data/host-file")), 0600u);
}

// The generated hook's target, /dev/nvidia-caps, lives on the container's /dev (runc's tmpfs):
// allowed there, but a node from yet another filesystem under /dev is not.
TEST_P(Chmod, DevPathsMayBeOnTheContainersDevMountOnly) {
  sb.mkdir("rootfs/dev");
  ASSERT_EQ(::mount("tmpfs", sb.path("rootfs/dev").c_str(), "tmpfs", 0, "mode=0755"), 0);
  sb.mkdir("rootfs/dev/nvidia-caps");
  ::chmod(sb.path("rootfs/dev/nvidia-caps").c_str(), 0700);
  auto r = chmod_paths(root(), 0755, {"/dev/nvidia-caps"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, 1);
  EXPECT_EQ(mode_of(sb.path("rootfs/dev/nvidia-caps")), 0755u);
  sb.mkdir("host/caps");
  ASSERT_EQ(::mount("tmpfs", sb.path("host/caps").c_str(), "tmpfs", 0, nullptr), 0);
  sb.write("host/caps/nvidia-cap1", "", 0600);
  sb.write("rootfs/dev/nvidia-caps/nvidia-cap1", "", 0600);
  ASSERT_EQ(
      ::mount(sb.path("host/caps/nvidia-cap1").c_str(),
              sb.path("rootfs/dev/nvidia-caps/nvidia-cap1").c_str(), nullptr, MS_BIND, nullptr),
      0);
  auto bound = chmod_paths(root(), 0644, {"/dev/nvidia-caps/nvidia-cap1"});
  ASSERT_FALSE(bound);
  EXPECT_EQ(bound.error().code(), EXDEV);
  EXPECT_EQ(mode_of(sb.path("host/caps/nvidia-cap1")), 0600u);
}

}  // namespace
}  // namespace nvct::cdi_hooks
