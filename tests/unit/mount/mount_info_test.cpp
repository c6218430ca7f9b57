#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>

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

}  // namespace
}  // namespace nvct::mount
