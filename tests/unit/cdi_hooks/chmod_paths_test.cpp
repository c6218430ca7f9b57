#include "nvct/cdi_hooks/chmod_paths.hpp"

#include <sys/fsuid.h>

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

}  // namespace
}  // namespace nvct::cdi_hooks
