// security.md §9 rows 1-14 and 47 (and the race rows 6/8 for mount targets) against the mount
// primitives. Every case: host sentinel directories are snapshotted and must be untouched, the
// host mount table (/proc/1/mountinfo) and this namespace's table are unchanged after rollback,
// new mounts are confined to the rootfs, and nothing blocks (timeouts).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "mount_sandbox.hpp"
#include "nvct/mount/apply.hpp"
#include "nvct/mount/bind.hpp"
#include "nvct/mount/in_root.hpp"
#include "nvct/mount/symlink.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;
namespace fs = std::filesystem;

std::map<std::string, std::string> snapshot(const std::string& dir) {
  std::map<std::string, std::string> out;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(dir, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const auto& p = it->path().string();
    out[p] = it->is_regular_file()
                 ? testing::read_text(p)
                 : "<" + std::to_string(static_cast<int>(it->status().type())) + ">";
  }
  return out;
}

std::vector<std::string> mount_points() {
  std::vector<std::string> out;
  std::istringstream in(testing::read_text("/proc/self/mountinfo"));
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string a, b, c, d, point;
    f >> a >> b >> c >> d >> point;
    out.push_back(point);
  }
  return out;
}

class Attack : public ::testing::Test {
 protected:
  void SetUp() override {
    box.mkdir("sentinel");
    box.write("sentinel/shadow", "host-secret");
    box.write("host/usr/lib/libcuda.so.550.54.14", "cuda");
    box.write("host/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin", "fw");
    box.mkdir("host/dev");
    ASSERT_EQ(::mknod(box.path("host/dev/nvidia0").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    box.write("host/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\n");
    box.mkdir("rootfs/etc");
    sentinel_before = snapshot(sentinel());
    host_mounts_before = testing::host_mounts_but_other_tests(box.path(""));
    own_mounts_before = testing::own_mounts_but_other_tests(box.path(""));
    points_before = mount_points();
  }

  void TearDown() override {
    EXPECT_EQ(snapshot(sentinel()), sentinel_before) << "host sentinel changed";
    EXPECT_EQ(testing::host_mounts_but_other_tests(box.path("")), host_mounts_before)
        << "host mount table changed";
    EXPECT_EQ(testing::own_mounts_but_other_tests(box.path("")), own_mounts_before)
        << "mounts left after rollback";
  }

  std::string sentinel() const { return box.path("sentinel"); }
  Root host() const { return *Root::open_allow_host_root(box.host()); }
  Root rootfs() const { return *Root::open(box.rootfs()); }

  // Applies, checks that every new mount is inside the rootfs (and not in its /proc or /sys
  // except the procfs rewrite), then rolls back. Returns the apply result.
  Status attempt(const edits::Edits& e) {
    Journal j;
    auto start = std::chrono::steady_clock::now();
    Status s = apply_edits(host(), rootfs(), e, j);
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5))
        << "apply took too long";
    std::string r = box.rootfs() + "/";
    for (const auto& p : mount_points()) {
      if (std::find(points_before.begin(), points_before.end(), p) != points_before.end()) continue;
      EXPECT_EQ(p.rfind(r, 0), 0u) << "mount outside the rootfs: " << p;
      std::string rel = p.substr(r.size() - 1);
      EXPECT_NE(rel.rfind("/sys", 0), 0u) << p;
      if (rel.rfind("/proc", 0) == 0) {
        EXPECT_EQ(rel.rfind("/proc/driver/nvidia", 0), 0u) << p;
      }
    }
    EXPECT_TRUE(j.rollback());
    return s;
  }

  edits::Edits lib_at(const std::string& target) const {
    edits::Edits e;
    e.mounts.push_back({"/usr/lib/libcuda.so.550.54.14", target, edits::FileKind::kLibrary,
                        edits::default_flags(edits::FileKind::kLibrary)});
    return e;
  }
  edits::Edits firmware_at(const std::string& target) const {
    edits::Edits e;
    e.mounts.push_back({"/lib/firmware/nvidia/550.54.14", target, edits::FileKind::kDirectory,
                        edits::default_flags(edits::FileKind::kFirmware)});
    return e;
  }
  edits::Edits device_at(const std::string& target) const {
    edits::Edits e;
    e.device_nodes.push_back({target, "/dev/nvidia0", edits::DeviceType::kChar, 1, 3, 0666});
    return e;
  }

  Sandbox box;
  std::map<std::string, std::string> sentinel_before;
  std::string host_mounts_before, own_mounts_before;
  std::vector<std::string> points_before;
};

TEST(SeccompWrapper, Openat2AnswersAsTheRunModeExpects) {
  open_how how{};
  how.flags = O_PATH | O_CLOEXEC;
  how.resolve = RESOLVE_IN_ROOT;
  long fd = ::syscall(SYS_openat2, AT_FDCWD, "/", &how, sizeof how);
  int err = errno;
  const char* want = std::getenv("NVCT_EXPECT_OPENAT2_ENOSYS");
  if (want && std::strcmp(want, "1") == 0) {
    EXPECT_EQ(fd, -1);
    EXPECT_EQ(err, ENOSYS);
  } else {
    EXPECT_GE(fd, 0) << std::strerror(err);
  }
  if (fd >= 0) ::close(static_cast<int>(fd));
}

// #1 abs-symlink-libdir
TEST_F(Attack, AbsoluteSymlinkedLibDirWithoutInRootTwinFails) {
  box.symlink(sentinel(), "rootfs/usr/lib/x86_64-linux-gnu");
  EXPECT_FALSE(attempt(lib_at("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14")));
}

TEST_F(Attack, AbsoluteSymlinkedLibDirLandsInsideRootfs) {
  box.symlink(sentinel(), "rootfs/usr/lib/x86_64-linux-gnu");
  box.mkdir("rootfs" + sentinel());
  Journal j;
  ASSERT_TRUE(
      apply_edits(host(), rootfs(), lib_at("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"), j));
  EXPECT_EQ(testing::read_text(box.rootfs() + sentinel() + "/libcuda.so.550.54.14"), "cuda");
  EXPECT_TRUE(j.rollback());
}

// #2 dotdot-symlink-parent
TEST_F(Attack, DotDotSymlinkedParentIsClampedAtRoot) {
  box.symlink("../../../../../../../../../.." + sentinel(), "rootfs/usr/lib64");
  EXPECT_FALSE(attempt(lib_at("/usr/lib64/libcuda.so.550.54.14")));
  box.mkdir("rootfs" + sentinel());
  Journal j;
  ASSERT_TRUE(apply_edits(host(), rootfs(), lib_at("/usr/lib64/libcuda.so.550.54.14"), j));
  EXPECT_TRUE(box.exists("rootfs" + sentinel() + "/libcuda.so.550.54.14"));
  EXPECT_TRUE(j.rollback());
}

// #3 firmware-escape (NVIDIA e2e)
TEST_F(Attack, FirmwareDirSymlinkedOutsideStaysEmptyOnHost) {
  box.symlink("/../../../../" + sentinel(), "rootfs/lib/firmware/nvidia/550.54.14");
  EXPECT_FALSE(attempt(firmware_at("/lib/firmware/nvidia/550.54.14")));
  box.mkdir("rootfs" + sentinel());
  EXPECT_TRUE(attempt(firmware_at("/lib/firmware/nvidia/550.54.14")));
}

// #4 trailing-symlink-target
TEST_F(Attack, TrailingSymlinkToHostFileMountsOnInRootFileOnly) {
  box.symlink(sentinel() + "/shadow", "rootfs/usr/lib64/libcuda.so.1");
  EXPECT_FALSE(attempt(lib_at("/usr/lib64/libcuda.so.1")));  // dangling in-root: refused
  box.write("rootfs" + sentinel() + "/shadow", "image");
  Journal j;
  ASSERT_TRUE(apply_edits(host(), rootfs(), lib_at("/usr/lib64/libcuda.so.1"), j));
  EXPECT_EQ(testing::read_text(box.rootfs() + sentinel() + "/shadow"), "cuda");
  EXPECT_EQ(testing::read_text(sentinel() + "/shadow"), "host-secret");
  EXPECT_TRUE(j.rollback());
}

// #5 magic-link chain (CVE-2024-0132 PoC shape) with a live procfs in the rootfs
TEST_F(Attack, MagicLinkChainThroughLiveProcIsRefused) {
  box.mkdir("rootfs/proc");
  ASSERT_EQ(::mount("proc", box.path("rootfs/proc").c_str(), "proc", 0, nullptr), 0);
  points_before = mount_points();  // the live /proc is the image's, not ours
  box.symlink("/proc/1/cwd", "rootfs/usr/local/cuda/compat");
  box.symlink("/proc/self/root/usr/lib", "rootfs/usr/lib64");
  EXPECT_FALSE(attempt(lib_at("/usr/local/cuda/compat/libcuda.so.999")));
  EXPECT_FALSE(attempt(lib_at("/usr/lib64/libcuda.so.550.54.14")));
  ASSERT_EQ(::umount2(box.path("rootfs/proc").c_str(), MNT_DETACH), 0);
}

// #9 dangling-component (runc test shape)
TEST_F(Attack, DanglingComponentIsRefusedAndCreatesNothing) {
  box.symlink("/jump/baz/hosts", "rootfs/etc/hosts");
  box.symlink(sentinel() + "/foo/bar", "rootfs/jump");
  EXPECT_FALSE(attempt(lib_at("/etc/hosts")));
  EXPECT_FALSE(box.exists("rootfs" + sentinel()));
}

// #10 symlink-loop
TEST_F(Attack, SymlinkLoopsFailFastWithEloop) {
  box.symlink("b", "rootfs/usr/a");
  box.symlink("a", "rootfs/usr/b");
  auto s = attempt(lib_at("/usr/a/libcuda.so.1"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), ELOOP) << s.error().message();
  box.mkdir("rootfs/end");
  for (int i = 0; i < 41; ++i)
    box.symlink(i == 40 ? "/end" : "/c" + std::to_string(i + 1), "rootfs/c" + std::to_string(i));
  auto chain = attempt(lib_at("/c0/libcuda.so.1"));
  ASSERT_FALSE(chain);
  EXPECT_EQ(chain.error().code(), ELOOP);
}

// #11 fifo-target, char device and socket targets
TEST_F(Attack, FifoDeviceAndSocketTargetsDoNotHang) {
  box.mkdir("rootfs/usr/lib64");
  ASSERT_EQ(::mkfifo(box.path("rootfs/usr/lib64/libcuda.so.1").c_str(), 0644), 0);
  ASSERT_EQ(::mknod(box.path("rootfs/usr/lib64/libnvidia-ml.so.1").c_str(), S_IFCHR | 0666,
                    makedev(1, 5)),
            0);
  ASSERT_EQ(::mknod(box.path("rootfs/usr/lib64/libsock.so.1").c_str(), S_IFSOCK | 0666, 0), 0);
  EXPECT_FALSE(attempt(lib_at("/usr/lib64/libcuda.so.1")));
  EXPECT_FALSE(attempt(lib_at("/usr/lib64/libnvidia-ml.so.1")));
  EXPECT_FALSE(attempt(lib_at("/usr/lib64/libsock.so.1")));
  box.mkdir("rootfs/dev");
  ASSERT_EQ(::mkfifo(box.path("rootfs/dev/nvidia0").c_str(), 0644), 0);
  EXPECT_FALSE(attempt(device_at("/dev/nvidia0")));
}

// #12 type-mismatch
TEST_F(Attack, TypeMismatchIsAClearError) {
  box.mkdir("rootfs/usr/lib64/libcuda.so.550.54.14");
  auto s = attempt(lib_at("/usr/lib64/libcuda.so.550.54.14"));
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("exists as a directory"), std::string::npos)
      << s.error().message();
  box.write("rootfs/lib/firmware/nvidia/550.54.14", "");
  auto f = attempt(firmware_at("/lib/firmware/nvidia/550.54.14"));
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("exists as a regular file"), std::string::npos)
      << f.error().message();
}

// #13 fake-proc
TEST_F(Attack, FakeProcInImageIsRefusedNeverReadAndSymlinkedProcIsRefused) {
  box.write("rootfs/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\nFAKE\n");
  edits::Edits e;
  e.procfs = edits::ProcfsEdit{};
  // The image's /proc directory, without runc's procfs on it, is refused.
  auto fake = attempt(e);
  ASSERT_FALSE(fake);
  EXPECT_NE(fake.error().message().find("is not procfs"), std::string::npos)
      << fake.error().message();
  EXPECT_EQ(testing::read_text(box.path("rootfs/proc/driver/nvidia/params")),
            "ModifyDeviceFiles: 1\nFAKE\n");
  // Under runc's procfs (a tmpfs on /proc/driver stands in for the driver's directory on this
  // module-less host), the files seen there are the host's, rewritten.
  ASSERT_EQ(::mount("proc", box.path("rootfs/proc").c_str(), "proc", 0, nullptr), 0);
  ASSERT_EQ(::mount("tmpfs", box.path("rootfs/proc/driver").c_str(), "tmpfs", 0, nullptr), 0);
  box.write("rootfs/proc/driver/nvidia/params", "ModifyDeviceFiles: 1\nFAKE\n");
  Journal j;
  ASSERT_TRUE(apply_edits(host(), rootfs(), e, j));
  EXPECT_EQ(testing::read_text(box.path("rootfs/proc/driver/nvidia/params")),
            "ModifyDeviceFiles: 0\n");
  EXPECT_TRUE(j.rollback());
  ASSERT_EQ(::umount2(box.path("rootfs/proc/driver").c_str(), MNT_DETACH), 0);
  ASSERT_EQ(::umount2(box.path("rootfs/proc").c_str(), MNT_DETACH), 0);
  fs::remove_all(box.path("rootfs/proc"));
  box.symlink(sentinel(), "rootfs/proc");
  box.mkdir("rootfs" + sentinel() + "/driver/nvidia");
  EXPECT_FALSE(attempt(e));
}

// #14 dev-symlink (CVE-2026-41579 class)
TEST_F(Attack, SymlinkedDevDoesNotReachTheHost) {
  box.symlink(sentinel(), "rootfs/dev");
  EXPECT_FALSE(attempt(device_at("/dev/nvidia0")));
  box.mkdir("rootfs" + sentinel());
  EXPECT_FALSE(attempt(device_at("/dev/nvidia0")));  // resolves outside /dev: refused
}

// Targets under /proc or /sys, directly or through links
TEST_F(Attack, TargetsUnderProcOrSysAreRefused) {
  box.mkdir("rootfs/proc/sys/kernel");
  box.mkdir("rootfs/sys/fs/cgroup");
  EXPECT_FALSE(attempt(lib_at("/proc/sys/kernel/core_pattern")));
  EXPECT_FALSE(attempt(lib_at("/sys/fs/cgroup/x")));
  box.symlink("/sys/fs/cgroup", "rootfs/usr/lib64");
  EXPECT_FALSE(attempt(lib_at("/usr/lib64/libcuda.so.1")));
  box.symlink("/proc/sys/kernel", "rootfs/usr/lib32");
  EXPECT_FALSE(attempt(lib_at("/usr/lib32/libcuda.so.1")));
  EXPECT_FALSE(box.exists("rootfs/sys/fs/cgroup/libcuda.so.1"));
  EXPECT_FALSE(box.exists("rootfs/proc/sys/kernel/libcuda.so.1"));
}

// Symlinks created by the library through a symlinked parent stay inside
TEST_F(Attack, LinkCreationThroughSymlinkedLdSoConfDStaysInRoot) {
  box.symlink(sentinel(), "rootfs/etc/ld.so.conf.d");
  edits::Edits e;
  e.symlinks.push_back({"/etc/ld.so.conf.d/nvidia.conf", "/dev/null"});
  EXPECT_FALSE(attempt(e));
  box.mkdir("rootfs" + sentinel());
  EXPECT_TRUE(attempt(e));
}

// #47 partial-failure
TEST_F(Attack, FailureAtNthMountLeavesNothingOnHostAndNoMounts) {
  edits::Edits e = lib_at("/usr/lib64/libcuda.so.550.54.14");
  e.mounts.push_back(e.mounts[0]);
  e.mounts[1].container_path = "/usr/lib64/libcuda.so.1";
  e.mounts.push_back(e.mounts[0]);
  e.mounts[2].host_path = "/usr/lib/libmissing.so.1";
  e.mounts[2].container_path = "/opt/new/dir/libmissing.so.1";
  auto s = attempt(e);
  ASSERT_FALSE(s);
  EXPECT_FALSE(box.exists("rootfs/usr"));
  EXPECT_FALSE(box.exists("rootfs/opt"));
}

// #6/#8 races: a sibling flips the target's parent between a directory and a symlink to the
// host while mounts are made; every mount must stay confined and the host untouched.
TEST_F(Attack, ParentFlippingBetweenDirAndSymlinkNeverEscapes) {
  box.mkdir("rootfs/usr/lib64");
  box.symlink(sentinel(), "rootfs/usr/lib64.evil");
  std::atomic<bool> stop{false};
  std::string a = box.path("rootfs/usr/lib64"), b = box.path("rootfs/usr/lib64.evil");
  std::thread flipper([&] {
    while (!stop.load()) ::renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE);
  });
  int succeeded = 0;
  for (int i = 0; i < 200; ++i)
    if (attempt(lib_at("/usr/lib64/libcuda.so.550.54.14"))) ++succeeded;
  stop.store(true);
  flipper.join();
  RecordProperty("succeeded", succeeded);
}

}  // namespace
}  // namespace nvct::mount
