#include "nvct/mount/procfs.hpp"

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "mount_sandbox.hpp"
#include "nvct/mount/bind.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

constexpr const char* kParams =
    "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 1\nDeviceFileUID: 0\nModifyDeviceFiles: 1\n";

TEST(ProcfsParams, OnlyTheFirstModifyDeviceFilesIsRewritten) {
  EXPECT_EQ(rewrite_params(kParams),
            "ResmanDebugLevel: 4294967295\nModifyDeviceFiles: 0\nDeviceFileUID: "
            "0\nModifyDeviceFiles: 1\n");
  EXPECT_EQ(rewrite_params("ModifyDeviceFiles: 0\n"), "ModifyDeviceFiles: 0\n");
}

class Procfs : public ::testing::TestWithParam<std::pair<bool, bool>> {
 protected:
  void SetUp() override {
    force_openat2_fallback(GetParam().first);
    force_classic_mount_api(GetParam().second);
    box.write("host/proc/driver/nvidia/params", kParams, 0444);
    box.write("host/proc/driver/nvidia/version", "NVRM version: 550.54.14\n", 0444);
    box.write("host/proc/driver/nvidia/gpus/0000:17:00.0/information", "Model: A100\n");
    box.write("host/proc/driver/nvidia/gpus/00000000:65:00.0/information", "Model: H100\n");
    // The container's /proc is a procfs, as runc mounts it. This host has no nvidia module, so
    // a tmpfs on /proc/driver stands in for the driver's directory, with content the mount
    // must hide and never read.
    box.mkdir("rootfs/proc");
    ASSERT_EQ(::mount("proc", box.path("rootfs/proc").c_str(), "proc", 0, nullptr), 0);
    ASSERT_EQ(::mount("tmpfs", box.path("rootfs/proc/driver").c_str(), "tmpfs", 0, nullptr), 0);
    box.write("rootfs/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\nFAKE\n");
    host.emplace(*Root::open_allow_host_root(box.host()));
    rootfs.emplace(*Root::open(box.rootfs()));
    mounts_before = testing::mounts_under(box.rootfs());
  }
  void TearDown() override {
    force_openat2_fallback(false);
    force_classic_mount_api(false);
  }
  Sandbox box;
  std::optional<Root> host, rootfs;
  std::vector<std::string> mounts_before;
};

TEST_P(Procfs, TmpfsWithRewrittenParamsAndSelectedGpusOnly) {
  Journal j;
  edits::ProcfsEdit edit{.host_proc_dir = "/proc/driver/nvidia",
                         .gpu_bus_ids = {"00000000:17:00.0"}};
  auto s = mount_procfs(*host, *rootfs, edit, j);
  ASSERT_TRUE(s) << s.error().message();
  std::string dir = box.path("rootfs/proc/driver/nvidia");
  EXPECT_EQ(testing::read_text(dir + "/params"), rewrite_params(kParams));
  EXPECT_EQ(testing::read_text(dir + "/version"), "NVRM version: 550.54.14\n");
  EXPECT_FALSE(box.exists("rootfs/proc/driver/nvidia/registry"));
  // 16-bit domain fallback: "00000000:17:00.0" was found as "0000:17:00.0".
  EXPECT_EQ(testing::read_text(dir + "/gpus/0000:17:00.0/information"), "Model: A100\n");
  EXPECT_FALSE(box.exists("rootfs/proc/driver/nvidia/gpus/00000000:65:00.0"));
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/params").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0444u);
  ASSERT_EQ(::stat(dir.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0555u);
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(dir.c_str(), &vfs), 0);
  EXPECT_EQ(vfs.f_flag & (ST_NOSUID | ST_NODEV | ST_NOEXEC), ST_NOSUID | ST_NODEV | ST_NOEXEC);
  EXPECT_EQ(testing::read_text(box.path("host/proc/driver/nvidia/params")), kParams);

  ASSERT_TRUE(j.rollback());
  EXPECT_EQ(testing::mounts_under(box.rootfs()), mounts_before);
  EXPECT_EQ(testing::read_text(dir + "/params"), "ModifyDeviceFiles: 1\nFAKE\n");
}

TEST_P(Procfs, MissingGpuDirectoryFailsClearly) {
  Journal j;
  edits::ProcfsEdit edit{.gpu_bus_ids = {"00000000:99:00.0"}};
  auto s = mount_procfs(*host, *rootfs, edit, j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("00000000:99:00.0"), std::string::npos) << s.error().message();
  ASSERT_TRUE(j.rollback());
  EXPECT_EQ(testing::mounts_under(box.rootfs()), mounts_before);
}

TEST_P(Procfs, ImageProcDirectoryInsteadOfProcfsIsRefused) {
  ASSERT_EQ(::umount2(box.path("rootfs/proc").c_str(), MNT_DETACH), 0);
  box.write("rootfs/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\nFAKE\n");
  Journal j;
  edits::ProcfsEdit edit{.host_proc_dir = "/proc/driver/nvidia",
                         .gpu_bus_ids = {"00000000:17:00.0"}};
  auto s = mount_procfs(*host, *rootfs, edit, j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("is not procfs"), std::string::npos) << s.error().message();
  EXPECT_TRUE(testing::mounts_under(box.path("rootfs/proc")).empty());
  EXPECT_EQ(testing::read_text(box.path("rootfs/proc/driver/nvidia/params")),
            "ModifyDeviceFiles: 1\nFAKE\n");
  ASSERT_TRUE(j.rollback());
}

TEST_P(Procfs, SymlinkedProcInImageStaysInRoot) {
  box.mkdir("sentinel");
  box.mkdir("rootfs" + box.path("sentinel") + "/driver/nvidia");
  ASSERT_EQ(::umount2(box.path("rootfs/proc").c_str(), MNT_DETACH), 0);
  std::filesystem::remove_all(box.path("rootfs/proc"));
  box.symlink(box.path("sentinel"), "rootfs/proc");
  Journal j;
  auto s = mount_procfs(*host, *rootfs, edits::ProcfsEdit{}, j);
  // Either refused (the resolved place is outside /proc/driver/nvidia) or confined; the host
  // sentinel stays empty in both cases.
  EXPECT_FALSE(s);
  EXPECT_TRUE(std::filesystem::is_empty(box.path("sentinel")));
  ASSERT_TRUE(j.rollback());
}

INSTANTIATE_TEST_SUITE_P(Modes, Procfs,
                         ::testing::Values(std::pair{false, false}, std::pair{true, true}),
                         [](const auto& p) {
                           return p.param.first ? "WalkerClassic" : "Openat2New";
                         });

}  // namespace
}  // namespace nvct::mount
