#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include <cstdio>

#include "mount_sandbox.hpp"
#include "nvct/mount/bind.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

TEST(MountInfo, NewMountHasItsOwnIdAndSharedIsDetected) {
  Sandbox box;
  box.mkdir("rootfs/m");
  unique_fd parent(::open(box.rootfs().c_str(), O_PATH | O_CLOEXEC));
  ASSERT_EQ(::mount("tmpfs", box.path("rootfs/m").c_str(), "tmpfs", 0, nullptr), 0);
  unique_fd top(::open(box.path("rootfs/m").c_str(), O_PATH | O_CLOEXEC));
  auto a = mount_id_of(parent.get());
  auto b = mount_id_of(top.get());
  ASSERT_TRUE(a && b);
  EXPECT_NE(*a, *b);
  ASSERT_EQ(::mount(nullptr, box.path("rootfs/m").c_str(), nullptr, MS_PRIVATE, nullptr), 0);
  EXPECT_TRUE(*mount_is_private(top.get()));
  ASSERT_EQ(::mount(nullptr, box.path("rootfs/m").c_str(), nullptr, MS_SHARED, nullptr), 0);
  EXPECT_FALSE(*mount_is_private(top.get()));
}

// statmount and mountinfo must agree on every mount this process sees, shared and private.
TEST(MountInfo, StatmountAndMountinfoAgree) {
  Sandbox box;
  box.mkdir("rootfs/shared");
  box.mkdir("rootfs/private");
  ASSERT_EQ(::mount("tmpfs", box.path("rootfs/shared").c_str(), "tmpfs", 0, nullptr), 0);
  ASSERT_EQ(::mount(nullptr, box.path("rootfs/shared").c_str(), nullptr, MS_SHARED, nullptr), 0);
  ASSERT_EQ(::mount("tmpfs", box.path("rootfs/private").c_str(), "tmpfs", 0, nullptr), 0);
  ASSERT_EQ(::mount(nullptr, box.path("rootfs/private").c_str(), nullptr, MS_PRIVATE, nullptr), 0);
  unique_fd shared(::open(box.path("rootfs/shared").c_str(), O_PATH | O_CLOEXEC));
  unique_fd priv(::open(box.path("rootfs/private").c_str(), O_PATH | O_CLOEXEC));
  unique_fd root(::open("/", O_PATH | O_CLOEXEC));
  struct utsname u {};
  ::uname(&u);
  unsigned major = 0, minor = 0;
  std::sscanf(u.release, "%u.%u", &major, &minor);
  bool has_statmount = major > 6 || (major == 6 && minor >= 8);
  for (int fd : {shared.get(), priv.get(), root.get()}) {
    auto by_statmount = mount_is_private_statmount(fd);
    auto by_mountinfo = mount_is_private_mountinfo(fd);
    ASSERT_TRUE(by_mountinfo) << by_mountinfo.error().message();
    // Linux 6.8+ must answer through statmount; a missing answer there means the layout or
    // the syscall number is wrong.
    ASSERT_EQ(by_statmount.has_value(), has_statmount) << u.release;
    if (by_statmount) {
      EXPECT_EQ(*by_statmount, *by_mountinfo);
    }
  }
  EXPECT_EQ(*mount_is_private(shared.get()), false);
  EXPECT_EQ(*mount_is_private(priv.get()), true);
}

// mount_state reads the old-style mount id, the propagation and (with statmount) the mount's
// attributes in one statx and one statmount; the answers must be those of the slower paths.
TEST(MountInfo, MountStateAgreesWithStatxAndMountinfoAndReportsAttributes) {
  Sandbox box;
  box.mkdir("rootfs/ro");
  ASSERT_EQ(::mount("tmpfs", box.path("rootfs/ro").c_str(), "tmpfs", 0, nullptr), 0);
  ASSERT_EQ(::mount(nullptr, box.path("rootfs/ro").c_str(), nullptr, MS_PRIVATE, nullptr), 0);
  ASSERT_EQ(::mount(nullptr, box.path("rootfs/ro").c_str(), nullptr,
                    MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, nullptr),
            0);
  unique_fd top(::open(box.path("rootfs/ro").c_str(), O_PATH | O_CLOEXEC));
  auto state = mount_state(top.get());
  ASSERT_TRUE(state) << state.error().message();
  EXPECT_EQ(state->mount_id, *mount_id_of(top.get()));
  EXPECT_EQ(state->is_private, *mount_is_private_mountinfo(top.get()));
  struct stat st {};
  ASSERT_EQ(::fstat(top.get(), &st), 0);
  EXPECT_EQ(state->dev, st.st_dev);
  EXPECT_EQ(state->ino, st.st_ino);
  struct utsname u {};
  ::uname(&u);
  unsigned major = 0, minor = 0;
  std::sscanf(u.release, "%u.%u", &major, &minor);
  if (major > 6 || (major == 6 && minor >= 8)) {
    ASSERT_TRUE(state->mnt_attr) << "statmount answers on " << u.release;
    EXPECT_EQ(*state->mnt_attr & (MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV),
              MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID);
  }
  ASSERT_EQ(::mount(nullptr, box.path("rootfs/ro").c_str(), nullptr, MS_SHARED, nullptr), 0);
  EXPECT_FALSE(mount_state(top.get())->is_private);
}

}  // namespace
}  // namespace nvct::mount
