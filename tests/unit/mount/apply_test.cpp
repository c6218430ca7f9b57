#include "nvct/mount/apply.hpp"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "mount_sandbox.hpp"
#include "nvct/mount/app_profile.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

// The container's /proc as runc leaves it: a procfs, with a tmpfs on /proc/driver standing in
// for the driver's directory (this host has no nvidia module).
std::vector<std::string> container_proc_mounts(const Sandbox& box) {
  return {box.path("rootfs/proc"), box.path("rootfs/proc/driver")};
}

edits::Edits sample(const Sandbox& box) {
  box.write("host/usr/lib/libcuda.so.550.54.14", "cuda");
  box.write("host/usr/lib/libnvidia-ml.so.550.54.14", "nvml");
  box.write("host/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\n");
  box.mkdir("host/dev");
  ::mknod(box.path("host/dev/nvidiactl").c_str(), S_IFCHR | 0666, makedev(1, 3));
  box.mkdir("rootfs/proc");
  EXPECT_EQ(::mount("proc", box.path("rootfs/proc").c_str(), "proc", 0, nullptr), 0);
  EXPECT_EQ(::mount("tmpfs", box.path("rootfs/proc/driver").c_str(), "tmpfs", 0, nullptr), 0);
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
  EXPECT_EQ(testing::mounts_under(box.rootfs()).size(), 4u + container_proc_mounts(box).size());
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
  EXPECT_EQ(testing::mounts_under(box.rootfs()), container_proc_mounts(box));
  EXPECT_FALSE(box.exists("rootfs/usr"));
  EXPECT_FALSE(box.exists("rootfs/dev"));
  EXPECT_TRUE(box.exists("rootfs/proc/driver/nvidia"));  // pre-existing, kept
  EXPECT_EQ(j.size(), 0u);
}

TEST(ApplyEdits, GraphicsProfileTmpfsComesAfterProcfsAndBeforeDriverFiles) {
  Sandbox box;
  auto e = sample(box);
  e.application_profile = edits::ApplicationProfileEdit{.gpu_minors = {0, 1}};
  auto host = Root::open_allow_host_root(box.host());
  auto rootfs = Root::open(box.rootfs());
  Journal j;
  auto s = apply_edits(*host, *rootfs, e, j);
  ASSERT_TRUE(s) << s.error().message();
  std::string dir = box.path("rootfs/etc/nvidia/nvidia-application-profiles-rc.d");
  // mountinfo lists mounts in the order they were made (mount.md §4.1 steps 2, 3, 5, 11).
  EXPECT_EQ(testing::mounts_under(box.rootfs()),
            (std::vector<std::string>{box.path("rootfs/proc"), box.path("rootfs/proc/driver"),
                                      box.path("rootfs/proc/driver/nvidia"), dir,
                                      box.path("rootfs/usr/lib64/libcuda.so.550.54.14"),
                                      box.path("rootfs/usr/lib64/libnvidia-ml.so.550.54.14"),
                                      box.path("rootfs/dev/nvidiactl")}));
  EXPECT_EQ(testing::read_text(dir + "/10-container.conf"), render_profile(0x3));
}

TEST(ApplyEdits, NoGraphicsProfileWithoutTheEdit) {
  Sandbox box;
  auto e = sample(box);
  auto host = Root::open_allow_host_root(box.host());
  auto rootfs = Root::open(box.rootfs());
  Journal j;
  ASSERT_TRUE(apply_edits(*host, *rootfs, e, j));
  EXPECT_FALSE(box.exists("rootfs/etc/nvidia"));
}

TEST(ApplyEdits, LaterFailureRollsBackTheGraphicsProfile) {
  Sandbox box;
  auto e = sample(box);
  e.application_profile = edits::ApplicationProfileEdit{.gpu_minors = {0}};
  e.device_nodes[0].minor = 255;  // st_rdev mismatch after the profile tmpfs is mounted
  auto host = Root::open_allow_host_root(box.host());
  auto rootfs = Root::open(box.rootfs());
  Journal j;
  ASSERT_FALSE(apply_edits(*host, *rootfs, e, j));
  EXPECT_EQ(testing::mounts_under(box.rootfs()), container_proc_mounts(box));
  EXPECT_FALSE(box.exists("rootfs/etc"));
  EXPECT_EQ(j.size(), 0u);
}

TEST(ApplyEdits, ProfileWriteFailureRollsBackEverything) {
  Sandbox box;
  auto e = sample(box);
  e.application_profile = edits::ApplicationProfileEdit{.gpu_minors = {64}};  // past the mask
  auto host = Root::open_allow_host_root(box.host());
  auto rootfs = Root::open(box.rootfs());
  Journal j;
  auto s = apply_edits(*host, *rootfs, e, j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("10-container.conf"), std::string::npos)
      << s.error().message();
  EXPECT_EQ(testing::mounts_under(box.rootfs()), container_proc_mounts(box));
  EXPECT_FALSE(box.exists("rootfs/etc"));
  EXPECT_FALSE(box.exists("rootfs/dev"));
}

}  // namespace
}  // namespace nvct::mount
