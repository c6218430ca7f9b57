#include "nvct/mount/apply.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mount_sandbox.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

edits::Edits sample(const Sandbox& box) {
  box.write("host/usr/lib/libcuda.so.550.54.14", "cuda");
  box.write("host/usr/lib/libnvidia-ml.so.550.54.14", "nvml");
  box.write("host/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\n");
  box.mkdir("host/dev");
  ::mknod(box.path("host/dev/nvidiactl").c_str(), S_IFCHR | 0666, makedev(1, 3));
  box.mkdir("rootfs/proc/driver/nvidia");
  edits::Edits e;
  auto lib = edits::default_flags(edits::FileKind::kLibrary);
  e.procfs = edits::ProcfsEdit{};
  e.mounts = {{"/usr/lib/libcuda.so.550.54.14", "/usr/lib64/libcuda.so.550.54.14",
               edits::FileKind::kLibrary, lib},
              {"/usr/lib/libnvidia-ml.so.550.54.14", "/usr/lib64/libnvidia-ml.so.550.54.14",
               edits::FileKind::kLibrary, lib}};
  e.symlinks = {{"/usr/lib64/libcuda.so", "libcuda.so.1"}};
  e.device_nodes = {{"/dev/nvidiactl", "/dev/nvidiactl", edits::DeviceType::kChar, 1, 3, 0666}};
  return e;
}

TEST(ApplyEdits, AppliesEverythingInOrder) {
  Sandbox box;
  auto e = sample(box);
  auto host = Root::open_allow_host_root(box.host());
  auto rootfs = Root::open(box.rootfs());
  Journal j;
  auto s = apply_edits(*host, *rootfs, e, j);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(testing::read_text(box.path("rootfs/usr/lib64/libcuda.so.550.54.14")), "cuda");
  EXPECT_EQ(testing::read_text(box.path("rootfs/proc/driver/nvidia/params")),
            "ModifyDeviceFiles: 0\n");
  EXPECT_TRUE(box.exists("rootfs/usr/lib64/libcuda.so"));
  EXPECT_TRUE(box.exists("rootfs/dev/nvidiactl"));
  EXPECT_EQ(testing::mounts_under(box.rootfs()).size(), 4u);
}

TEST(ApplyEdits, FailureAtLastStepRollsBackEverything) {
  Sandbox box;
  auto e = sample(box);
  e.device_nodes[0].minor = 255;  // st_rdev mismatch: the last step fails
  auto host = Root::open_allow_host_root(box.host());
  auto rootfs = Root::open(box.rootfs());
  Journal j;
  auto s = apply_edits(*host, *rootfs, e, j);
  ASSERT_FALSE(s);
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
  EXPECT_FALSE(box.exists("rootfs/usr"));
  EXPECT_FALSE(box.exists("rootfs/dev"));
  EXPECT_TRUE(box.exists("rootfs/proc/driver/nvidia"));  // pre-existing, kept
  EXPECT_EQ(j.size(), 0u);
}

}  // namespace
}  // namespace nvct::mount
