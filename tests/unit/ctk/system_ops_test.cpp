#include "nvct/ctk/system_ops.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::TempDir;

TEST(RealSystemOps, MknodCreatesTheCharacterDeviceWithTheModeAndKeepsAnEqualOne) {
  if (::geteuid() != 0) FAIL() << "this test must run as root (it creates device nodes)";
  TempDir dir;
  auto root = driver::DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  RealSystemOps ops;
  ASSERT_TRUE(ops.mknod_char(*root, "/dev/nvidiactl", 195, 255, 0666));
  struct stat st {};
  ASSERT_EQ(::lstat((dir / "dev/nvidiactl").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(195, 255));
  EXPECT_EQ(st.st_mode & 07777, 0666u);
  EXPECT_TRUE(ops.mknod_char(*root, "/dev/nvidiactl", 195, 255, 0666)) << "EEXIST tolerated";
  EXPECT_FALSE(ops.mknod_char(*root, "/dev/nvidiactl", 195, 254, 0666));
  auto got = ops.stat(*root, "/dev/nvidiactl");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->st_rdev, makedev(195, 255));
}

TEST(RealSystemOps, ModprobeIsUnavailableInARootWithoutIt) {
  TempDir dir;
  auto root = driver::DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  RealSystemOps ops;
  EXPECT_FALSE(ops.modprobe_available(*root));
  dir.write("sbin/modprobe", "#!/bin/sh\nexit 0\n");
  EXPECT_FALSE(ops.modprobe_available(*root)) << "not executable";
  ASSERT_EQ(::chmod((dir / "sbin/modprobe").c_str(), 0755), 0);
  EXPECT_TRUE(ops.modprobe_available(*root));
}

TEST(RealSystemOps, ModprobeFailureNamesTheModuleAndStatus) {
  if (::geteuid() != 0) FAIL() << "this test must run as root (it chroots)";
  TempDir dir;
  // A static busybox-free stand-in: the chroot has no shell, so exec fails and the child
  // reports 127, which must surface as an error naming the module.
  auto root = driver::DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  RealSystemOps ops;
  auto st = ops.modprobe(*root, "nvidia");
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(), "modprobe nvidia in " + dir.path() + " exited with status 127");
}

}  // namespace
}  // namespace nvct::ctk
