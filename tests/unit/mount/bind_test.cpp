#include "nvct/mount/bind.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "mount_sandbox.hpp"
#include "nvct/base/file.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

// Param: {walker forced, classic mount(2) forced}.
class Bind : public ::testing::TestWithParam<std::pair<bool, bool>> {
 protected:
  void SetUp() override {
    force_openat2_fallback(GetParam().first);
    force_classic_mount_api(GetParam().second);
    box.write("host/usr/lib/libcuda.so.550.54.14", "ELF-cuda");
    box.mkdir("rootfs/usr/lib/x86_64-linux-gnu");
    host.emplace(*Root::open_allow_host_root(box.host()));
    rootfs.emplace(*Root::open(box.rootfs()));
    mounts_before = testing::mounts_under(box.rootfs());
  }
  void TearDown() override {
    force_openat2_fallback(false);
    force_classic_mount_api(false);
  }
  edits::FileMount lib(std::string target = "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14") {
    return {"/usr/lib/libcuda.so.550.54.14", target, edits::FileKind::kLibrary,
            edits::default_flags(edits::FileKind::kLibrary)};
  }
  Sandbox box;
  std::optional<Root> host, rootfs;
  std::vector<std::string> mounts_before;
};

TEST_P(Bind, ASourceOpenedAheadIsTheOneMountedAndIsStillChecked) {
  // The configure child pins each source in the container's namespace; open_source must mount
  // that object, not whatever the path names by then.
  box.write("host/usr/lib/pinned.so", "ELF-pinned");
  OpenedSources opened;
  OpenedSource o;
  o.fd.reset(::open(box.path("host/usr/lib/pinned.so").c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  ASSERT_TRUE(o.fd);
  ASSERT_EQ(::fstat(o.fd.get(), &o.st), 0);
  opened.emplace("/usr/lib/libcuda.so.550.54.14", std::move(o));
  Journal j;
  auto s = mount_file(*host, *rootfs, lib(), j, &opened);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(testing::read_text(box.path("rootfs/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14")),
            "ELF-pinned");
  EXPECT_TRUE(opened.empty()) << "the opened source is taken, not copied";
  // Without an entry the path is opened as before.
  auto again = mount_file(*host, *rootfs, lib("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), j,
                          &opened);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(testing::read_text(box.path("rootfs/usr/lib/x86_64-linux-gnu/libcuda.so.1")),
            "ELF-cuda");
  // The checks still apply to an object opened ahead: a group-writable file is refused.
  box.write("host/usr/lib/writable.so", "x");
  ASSERT_EQ(::chmod(box.path("host/usr/lib/writable.so").c_str(), 0664), 0);
  OpenedSource w;
  w.fd.reset(::open(box.path("host/usr/lib/writable.so").c_str(), O_PATH | O_NOFOLLOW | O_CLOEXEC));
  ASSERT_EQ(::fstat(w.fd.get(), &w.st), 0);
  opened.emplace("/usr/lib/libcuda.so.550.54.14", std::move(w));
  auto refused = mount_file(*host, *rootfs, lib("/usr/lib/x86_64-linux-gnu/libcuda.so.2"), j,
                            &opened);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("group or other writable"), std::string::npos)
      << refused.error().message();
  ASSERT_TRUE(j.rollback());
}

TEST_P(Bind, LibraryIsMountedReadOnlyNosuidNodevAndPrivate) {
  Journal j;
  auto classic_before = classic_mount_count();
  auto s = mount_file(*host, *rootfs, lib(), j);
  ASSERT_TRUE(s) << s.error().message();
  std::string target = box.path("rootfs/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14");
  EXPECT_EQ(testing::read_text(target), "ELF-cuda");
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(target.c_str(), &vfs), 0);
  EXPECT_TRUE(vfs.f_flag & ST_RDONLY);
  EXPECT_TRUE(vfs.f_flag & ST_NOSUID);
  EXPECT_TRUE(vfs.f_flag & ST_NODEV);
  unique_fd fd(::open(target.c_str(), O_PATH | O_CLOEXEC));
  EXPECT_TRUE(*mount_is_private(fd.get()));
  EXPECT_EQ(classic_mount_count() > classic_before, GetParam().second);
  EXPECT_EQ(::open(target.c_str(), O_WRONLY | O_CLOEXEC), -1);
}

TEST_P(Bind, RollbackUnmountsAndRemovesWhatItCreated) {
  Journal j;
  ASSERT_TRUE(mount_file(*host, *rootfs, lib("/usr/local/nvidia/lib/libcuda.so.1"), j));
  EXPECT_GT(testing::mounts_under(box.rootfs()).size(), mounts_before.size());
  ASSERT_TRUE(j.rollback());
  EXPECT_EQ(testing::mounts_under(box.rootfs()), mounts_before);
  EXPECT_FALSE(box.exists("rootfs/usr/local"));
  EXPECT_TRUE(box.exists("rootfs/usr/lib"));
}

TEST_P(Bind, DeviceNodeIsCheckedAndMountedNoexec) {
  box.mkdir("host/dev");
  ASSERT_EQ(::mknod(box.path("host/dev/nvidia0").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  edits::DeviceNode node{
      .container_path = "/dev/nvidia0", .host_path = "/dev/nvidia0", .major = 1, .minor = 3};
  Journal j;
  auto s = mount_device(*host, *rootfs, node, j);
  ASSERT_TRUE(s) << s.error().message();
  struct stat st {};
  ASSERT_EQ(::stat(box.path("rootfs/dev/nvidia0").c_str(), &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_EQ(st.st_rdev, makedev(1, 3));
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(box.path("rootfs/dev/nvidia0").c_str(), &vfs), 0);
  EXPECT_TRUE(vfs.f_flag & ST_NOEXEC);
  EXPECT_TRUE(vfs.f_flag & ST_NOSUID);
  EXPECT_TRUE(vfs.f_flag & ST_RDONLY);
}

TEST_P(Bind, DeviceWithWrongRdevIsRefused) {
  box.mkdir("host/dev");
  ASSERT_EQ(::mknod(box.path("host/dev/nvidiactl").c_str(), S_IFCHR | 0666, makedev(1, 5)), 0);
  edits::DeviceNode node{.container_path = "/dev/nvidiactl",
                         .host_path = "/dev/nvidiactl",
                         .major = 195,
                         .minor = 255};
  Journal j;
  auto s = mount_device(*host, *rootfs, node, j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("invalid device node"), std::string::npos)
      << s.error().message();
  EXPECT_FALSE(box.exists("rootfs/dev"));
}

TEST_P(Bind, RegularFileIsNotADeviceSource) {
  box.write("host/dev/nvidia0", "");
  edits::DeviceNode node{
      .container_path = "/dev/nvidia0", .host_path = "/dev/nvidia0", .major = 195, .minor = 0};
  Journal j;
  EXPECT_FALSE(mount_device(*host, *rootfs, node, j));
}

TEST_P(Bind, SymlinkSourceIsRefused) {
  box.symlink("libcuda.so.550.54.14", "host/usr/lib/libcuda.so.1");
  Journal j;
  auto f = lib();
  f.host_path = "/usr/lib/libcuda.so.1";
  auto s = mount_file(*host, *rootfs, f, j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("unexpected source file mode"), std::string::npos);
}

TEST_P(Bind, GroupWritableLibraryIsRefused) {
  ASSERT_EQ(::chmod(box.path("host/usr/lib/libcuda.so.550.54.14").c_str(), 0664), 0);
  Journal j;
  auto s = mount_file(*host, *rootfs, lib(), j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("writable"), std::string::npos);
}

TEST_P(Bind, SourceInsideTheRootfsIsRefused) {
  box.write("rootfs/usr/local/cuda/compat/libcuda.so.999", "evil");
  auto in_rootfs = Root::open_allow_host_root(box.path(""));
  ASSERT_TRUE(in_rootfs);
  auto src =
      open_source(*in_rootfs, "/rootfs/usr/local/cuda/compat/libcuda.so.999", SourceKind::kFile);
  ASSERT_TRUE(src) << src.error().message();
  Journal j;
  auto s = bind_mount(*rootfs, *src, "/usr/lib/libcuda.so.999",
                      edits::default_flags(edits::FileKind::kLibrary), PathPolicy::kDefault, j);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), EPERM);
}

TEST_P(Bind, DirectoryMountForFirmware) {
  box.write("host/lib/firmware/nvidia/550.54.14/gsp.bin", "fw");
  edits::FileMount fw{"/lib/firmware/nvidia/550.54.14", "/lib/firmware/nvidia/550.54.14",
                      edits::FileKind::kDirectory,
                      edits::default_flags(edits::FileKind::kFirmware)};
  Journal j;
  auto s = mount_file(*host, *rootfs, fw, j);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(testing::read_text(box.path("rootfs/lib/firmware/nvidia/550.54.14/gsp.bin")), "fw");
  ASSERT_TRUE(j.rollback());
  EXPECT_FALSE(box.exists("rootfs/lib"));
}

TEST_P(Bind, AMountAfterADirectoryMountIntoTheSameDirectoryLandsOnTheNewMount) {
  // The journal remembers /usr/lib/x86_64-linux-gnu after the first mount; mounting a directory
  // there must make the next file mount resolve the path again, onto the new mount, and not
  // into the directory it now hides.
  Journal j;
  ASSERT_TRUE(mount_file(*host, *rootfs, lib(), j));
  box.mkdir("host/opt/libdir");
  edits::FileMount dir{"/opt/libdir", "/usr/lib/x86_64-linux-gnu", edits::FileKind::kDirectory,
                       {.read_only = false, .nosuid = true, .nodev = true}};
  auto d = mount_file(*host, *rootfs, dir, j);
  ASSERT_TRUE(d) << d.error().message();
  auto s = mount_file(*host, *rootfs, lib("/usr/lib/x86_64-linux-gnu/libcuda.so.1"), j);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(testing::read_text(box.path("rootfs/usr/lib/x86_64-linux-gnu/libcuda.so.1")),
            "ELF-cuda");
  EXPECT_TRUE(box.exists("host/opt/libdir/libcuda.so.1"))
      << "the target was created in the hidden directory";
  ASSERT_TRUE(j.rollback());
  EXPECT_EQ(testing::mounts_under(box.rootfs()), mounts_before);
}

TEST_P(Bind, IpcSocketIsWritableNoexec) {
  box.mkdir("host/run/nvidia-persistenced");
  // A socket node: mknod S_IFSOCK makes one without a listener.
  ASSERT_EQ(::mknod(box.path("host/run/nvidia-persistenced/socket").c_str(), S_IFSOCK | 0666, 0),
            0);
  edits::FileMount ipc{"/run/nvidia-persistenced/socket", "/run/nvidia-persistenced/socket",
                       edits::FileKind::kIpc, edits::default_flags(edits::FileKind::kIpc)};
  Journal j;
  auto s = mount_file(*host, *rootfs, ipc, j);
  ASSERT_TRUE(s) << s.error().message();
  struct statvfs vfs {};
  ASSERT_EQ(::statvfs(box.path("rootfs/run/nvidia-persistenced/socket").c_str(), &vfs), 0);
  EXPECT_FALSE(vfs.f_flag & ST_RDONLY);
  EXPECT_TRUE(vfs.f_flag & ST_NOEXEC);
}

TEST_P(Bind, MigCapabilityFileUnderProcDriverNvidiaIsAllowed) {
  box.write("host/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", "DeviceFileMinor: 12\n");
  box.mkdir("rootfs/proc/driver/nvidia/capabilities/gpu0/mig/gi1");
  edits::FileMount cap{"/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access",
                       "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access",
                       edits::FileKind::kLibrary,
                       {.read_only = true, .nosuid = true, .nodev = true, .noexec = true}};
  Journal j;
  auto s = mount_file(*host, *rootfs, cap, j);
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(
      testing::read_text(box.path("rootfs/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access")),
      "DeviceFileMinor: 12\n");
  cap.container_path = "/proc/sys/kernel/core_pattern";
  EXPECT_FALSE(mount_file(*host, *rootfs, cap, j));
}

TEST_P(Bind, NvidiaCapsDirectoryUnderDevIsAllowed) {
  box.mkdir("host/dev/nvidia-caps");
  edits::FileMount caps{"/dev/nvidia-caps",
                        "/dev/nvidia-caps",
                        edits::FileKind::kDirectory,
                        {.read_only = false, .nosuid = true, .nodev = false, .noexec = true}};
  Journal j;
  auto s = mount_file(*host, *rootfs, caps, j);
  ASSERT_TRUE(s) << s.error().message();
  caps.container_path = "/dev/shm/x";
  EXPECT_FALSE(mount_file(*host, *rootfs, caps, j));
}

// A target under a shared mount is refused before anything is mounted: its peer (here a second
// bind of the same directory, standing in for the host's copy) never sees a mount.
TEST_P(Bind, TargetUnderASharedMountIsRefusedBeforeMounting) {
  box.mkdir("peer");
  std::string libdir = box.path("rootfs/usr/lib/x86_64-linux-gnu");
  ASSERT_EQ(::mount(libdir.c_str(), libdir.c_str(), nullptr, MS_BIND, nullptr), 0);
  ASSERT_EQ(::mount(nullptr, libdir.c_str(), nullptr, MS_SHARED, nullptr), 0);
  ASSERT_EQ(::mount(libdir.c_str(), box.path("peer").c_str(), nullptr, MS_BIND, nullptr), 0);
  auto peer_before = testing::mounts_under(box.path("peer"));
  Journal j;
  auto s = mount_file(*host, *rootfs, lib(), j);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("shared propagation"), std::string::npos)
      << s.error().message();
  EXPECT_EQ(testing::mounts_under(box.path("peer")), peer_before);
  ASSERT_TRUE(j.rollback());
  EXPECT_FALSE(box.exists("peer/libcuda.so.550.54.14"));
}

INSTANTIATE_TEST_SUITE_P(Modes, Bind,
                         ::testing::Values(std::pair{false, false}, std::pair{true, false},
                                           std::pair{false, true}, std::pair{true, true}),
                         [](const auto& p) {
                           return std::string(p.param.first ? "Walker" : "Openat2") +
                                  (p.param.second ? "Classic" : "MoveMount");
                         });

}  // namespace
}  // namespace nvct::mount
