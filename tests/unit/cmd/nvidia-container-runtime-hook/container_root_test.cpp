#include "container_root.hpp"

#include <unistd.h>

#include <gtest/gtest.h>

namespace nvct::hook {
namespace {

TEST(ContainerRoot, FindsTheMountPointWithEscapes) {
  const std::string mountinfo =
      "22 1 0:21 / / rw - ext4 /dev/sda1 rw\n"
      "845 22 0:50 / /run/containerd/b1/rootfs rw - overlay overlay rw\n"
      "846 22 0:51 / /var/lib/my\\040bundle/rootfs rw - overlay overlay rw\n";
  EXPECT_TRUE(mountinfo_has_mount_point(mountinfo, "/run/containerd/b1/rootfs"));
  EXPECT_TRUE(mountinfo_has_mount_point(mountinfo, "/var/lib/my bundle/rootfs"));
  EXPECT_FALSE(mountinfo_has_mount_point(mountinfo, "/run/containerd/b1"));
  EXPECT_FALSE(mountinfo_has_mount_point(mountinfo, "/tmp/plain"));
}

TEST(ContainerRoot, RefusesAProcessInTheHooksOwnMountNamespace) {
  auto st = check_container_root(::getpid(), "/tmp/plain-dir");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("shares the hook's mount namespace"), std::string::npos)
      << st.error().message();
}

TEST(ContainerRoot, NamesAMissingProcess) {
  auto st = check_container_root(999999999, "/tmp/plain-dir");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("container root /tmp/plain-dir (pid 999999999)"),
            std::string::npos);
}

}  // namespace
}  // namespace nvct::hook
