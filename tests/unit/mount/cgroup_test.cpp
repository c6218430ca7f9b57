#include "nvct/mount/cgroup.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

#include "mount_sandbox.hpp"
#include "nvct/mount/device_program.hpp"

namespace nvct::mount {
namespace {

using edits::CgroupRule;

constexpr const char* kV1Cgroup =
    "12:devices:/docker/abc\n11:net_cls,net_prio:/\n1:name=systemd:/docker/abc\n0::/docker/abc\n";
constexpr const char* kV2Cgroup = "0::/system.slice/docker-abc.scope\n";
constexpr const char* kMountinfo =
    "31 23 0:27 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755\n"
    "36 31 0:32 / /sys/fs/cgroup/devices rw,nosuid - cgroup cgroup rw,devices\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,nosuid - cgroup2 cgroup2 rw\n";

TEST(CgroupVersion, DevicesControllerMeansV1) {
  EXPECT_EQ(*detect_cgroup_version(kV1Cgroup), CgroupVersion::kV1);
}
TEST(CgroupVersion, OnlyUnifiedEntryMeansV2) {
  EXPECT_EQ(*detect_cgroup_version(kV2Cgroup), CgroupVersion::kV2);
}
TEST(CgroupVersion, NetClsLineIsNotMalformed) {  // issue #150
  EXPECT_EQ(*detect_cgroup_version("1:net_cls:/\n0::/x\n"), CgroupVersion::kV2);
}
TEST(CgroupVersion, MalformedLineIsAnError) {
  auto r = detect_cgroup_version("garbage\n");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("malformed cgroup entry: garbage"), std::string::npos);
}
TEST(CgroupVersion, NeitherDevicesNorUnifiedIsAnError) {
  auto r = detect_cgroup_version("1:cpu:/\n");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "no devices or unified cgroup entries found");
}

TEST(CgroupPath, V1IsDevicesMountPlusCgroupPath) {
  EXPECT_EQ(*device_cgroup_path(kMountinfo, kV1Cgroup, CgroupVersion::kV1),
            "/sys/fs/cgroup/devices/docker/abc");
}
TEST(CgroupPath, V2IsFirstCgroup2MountPlusPath) {
  EXPECT_EQ(*device_cgroup_path(kMountinfo, kV2Cgroup, CgroupVersion::kV2),
            "/sys/fs/cgroup/unified/system.slice/docker-abc.scope");
}
TEST(CgroupPath, StandaloneModePrefixesTheRootfs) {
  EXPECT_EQ(*device_cgroup_path(kMountinfo, kV1Cgroup, CgroupVersion::kV1, "/run/rootfs/"),
            "/run/rootfs/sys/fs/cgroup/devices/docker/abc");
}
TEST(CgroupPath, MountRootIsStrippedFromCgroupPath) {
  std::string mi = "36 31 0:32 /docker /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n";
  EXPECT_EQ(*device_cgroup_path(mi, kV1Cgroup, CgroupVersion::kV1), "/sys/fs/cgroup/devices/abc");
}
TEST(CgroupPath, MountRootAboveNamespaceIsAnError) {
  std::string mi = "36 31 0:32 /../x /sys/fs/cgroup/devices rw - cgroup cgroup rw,devices\n";
  EXPECT_FALSE(device_cgroup_path(mi, kV1Cgroup, CgroupVersion::kV1));
}
TEST(CgroupPath, MissingDevicesMountIsAnError) {
  auto r = device_cgroup_path("41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n", kV1Cgroup,
                              CgroupVersion::kV1);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "cgroup subsystem devices not found");
}

TEST(CgroupFind, FindsThisProcessCgroup) {
  auto cg = find_device_cgroup(::getpid(), ::getpid());
  ASSERT_TRUE(cg) << cg.error().message();
  EXPECT_EQ(cg->path.rfind("/sys/fs/cgroup", 0), 0u) << cg->path;
}

// A real v1 devices cgroup (this VM is cgroup v1 hybrid).
TEST(CgroupV1, RulesAreWrittenToDevicesAllow) {
  std::string dir = "/sys/fs/cgroup/devices/nvct-test-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0)
      << "need a v1 devices hierarchy: " << std::strerror(errno);
  {
    std::ofstream deny(dir + "/devices.deny");
    deny << "a";
  }
  auto s = allow_devices_v1(
      dir, {CgroupRule{'c', 1, 3, "rw", true}, CgroupRule{'c', 195, std::nullopt, "rw", true}});
  std::string list = testing::read_text(dir + "/devices.list");
  ::rmdir(dir.c_str());
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_NE(list.find("c 1:3 rw"), std::string::npos) << list;
  EXPECT_NE(list.find("c 195:* rw"), std::string::npos) << list;
}

// A real cgroup2 cgroup under /sys/fs/cgroup/unified: a child in it opens device nodes.
class CgroupV2 : public ::testing::Test {
 protected:
  void SetUp() override {
    dir = "/sys/fs/cgroup/unified/nvct-test-" + std::to_string(::getpid());
    ASSERT_EQ(::mkdir(dir.c_str(), 0755), 0)
        << "need a cgroup2 hierarchy: " << std::strerror(errno);
  }
  void TearDown() override {
    detach_all();
    ::rmdir(dir.c_str());
  }
  std::vector<std::uint32_t> attached() {
    std::vector<std::uint32_t> ids(64);
    unique_fd cg(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    union bpf_attr attr {};
    attr.query.target_fd = static_cast<std::uint32_t>(cg.get());
    attr.query.attach_type = BPF_CGROUP_DEVICE;
    attr.query.prog_ids = reinterpret_cast<std::uint64_t>(ids.data());
    attr.query.prog_cnt = 64;
    if (::syscall(SYS_bpf, BPF_PROG_QUERY, &attr, sizeof attr) != 0) return {};
    ids.resize(attr.query.prog_cnt);
    return ids;
  }
  void detach_all() {
    unique_fd cg(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    for (auto id : attached()) {
      union bpf_attr a {};
      a.prog_id = id;
      unique_fd p(static_cast<int>(::syscall(SYS_bpf, BPF_PROG_GET_FD_BY_ID, &a, sizeof a)));
      union bpf_attr d {};
      d.target_fd = static_cast<std::uint32_t>(cg.get());
      d.attach_bpf_fd = static_cast<std::uint32_t>(p.get());
      d.attach_type = BPF_CGROUP_DEVICE;
      ::syscall(SYS_bpf, BPF_PROG_DETACH, &d, sizeof d);
    }
  }
  // Which of /dev/null, /dev/zero, /dev/full a process in the cgroup can open: bit mask.
  int probe() {
    pid_t pid = ::fork();
    if (pid == 0) {
      int fd = ::open((dir + "/cgroup.procs").c_str(), O_WRONLY | O_CLOEXEC);
      if (fd < 0 || ::write(fd, "0", 1) != 1) ::_exit(100);
      ::close(fd);
      int mask = 0, bit = 1;
      for (const char* dev : {"/dev/null", "/dev/zero", "/dev/full"}) {
        int d = ::open(dev, O_RDONLY | O_CLOEXEC);
        if (d >= 0) mask |= bit, ::close(d);
        bit <<= 1;
      }
      ::_exit(mask);
    }
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }
  std::string dir;
};

TEST_F(CgroupV2, NoExistingProgramMeansNothingAttached) {
  auto n = allow_devices_v2(dir, {CgroupRule{'c', 195, 0, "rw", true}});
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(*n, 0);
  EXPECT_TRUE(attached().empty());
  EXPECT_EQ(probe(), 7);
}

TEST_F(CgroupV2, ExistingProgramIsReplacedKeepingItsRules) {
  // The container's own program (as runc would attach): only /dev/null.
  auto base = build_device_program({CgroupRule{'c', 1, 3, "rwm", true}});
  auto fd = load_device_program(*base);
  ASSERT_TRUE(fd) << fd.error().message();
  unique_fd cg(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  union bpf_attr a {};
  a.target_fd = static_cast<std::uint32_t>(cg.get());
  a.attach_bpf_fd = static_cast<std::uint32_t>(fd->get());
  a.attach_type = BPF_CGROUP_DEVICE;
  a.attach_flags = BPF_F_ALLOW_MULTI;
  ASSERT_EQ(::syscall(SYS_bpf, BPF_PROG_ATTACH, &a, sizeof a), 0) << std::strerror(errno);
  ASSERT_EQ(probe(), 1);  // null only

  auto n = allow_devices_v2(dir, {CgroupRule{'c', 1, 5, "r", true}});
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(*n, 1);
  EXPECT_EQ(attached().size(), 1u);
  EXPECT_EQ(probe(), 3);  // null (old rule) + zero (ours); full still denied
}

}  // namespace
}  // namespace nvct::mount
