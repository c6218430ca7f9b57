// security.md §9 rows 7, 21 and 22 against the ldconfig sandbox: whatever the image's
// ld.so.conf says, ldconfig only sees the rootfs (pivoted, /proc hidden) and is bounded in time.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>

#include "mount_sandbox.hpp"
#include "nvct/mount/ldconfig.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

std::map<std::string, std::string> listing(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (auto& e : std::filesystem::recursive_directory_iterator(dir))
    out[e.path().string()] = e.is_regular_file() ? testing::read_text(e.path().string()) : "";
  return out;
}

class LdconfigAttack : public ::testing::Test {
 protected:
  void SetUp() override {
    box.make_glibc_rootfs();
    box.copy("/lib/x86_64-linux-gnu/libz.so.1", "rootfs/opt/fake/lib/libz.so.1");
    box.write("sentinel/keep.conf", "/sentinel-dir\n");
    sentinel_before = listing(box.path("sentinel"));
    host_cache = testing::read_text("/etc/ld.so.cache");
    host_mounts = testing::host_mounts_but_other_tests(box.path(""));
    own_mounts = testing::own_mounts_but_other_tests(box.path(""));
  }
  void TearDown() override {
    EXPECT_EQ(listing(box.path("sentinel")), sentinel_before);
    EXPECT_EQ(testing::read_text("/etc/ld.so.cache"), host_cache);
    EXPECT_EQ(testing::host_mounts_but_other_tests(box.path("")), host_mounts);
    EXPECT_EQ(testing::own_mounts_but_other_tests(box.path("")), own_mounts);
  }
  Status run(std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
    LdconfigOptions o;
    o.folders = {"/opt/fake/lib"};
    o.timeout = timeout;
    auto start = std::chrono::steady_clock::now();
    auto r = run_ldconfig(*Root::open(box.rootfs()), o);
    EXPECT_LT(std::chrono::steady_clock::now() - start, timeout + std::chrono::seconds(2));
    return r;
  }
  Sandbox box;
  std::map<std::string, std::string> sentinel_before;
  std::string host_cache, host_mounts, own_mounts;
};

// #7 ldsoconfd-symlink (CVE-2025-23267 shape)
TEST_F(LdconfigAttack, SymlinkedLdSoConfDIsReadInsideTheRootfsOnly) {
  box.symlink(box.path("sentinel"), "rootfs/etc/ld.so.conf.d");
  auto r = run();
  ASSERT_TRUE(r) << r.error().message();
  std::string cache = testing::read_text(box.path("rootfs/etc/ld.so.cache"));
  EXPECT_NE(cache.find("/opt/fake/lib/libz.so.1"), std::string::npos);
}

// #21 evil-ld.so.conf: procfs escapes, absolute host includes, recursion
TEST_F(LdconfigAttack, HostileLdSoConfStaysConfined) {
  box.write("rootfs/etc/ld.so.conf", "include /proc/self/root/etc/*\ninclude /proc/1/root" +
                                         box.path("sentinel") +
                                         "/*.conf\ninclude /etc/ld.so.conf\ninclude " +
                                         box.path("sentinel") + "/*.conf\n/proc/1/root/usr/lib\n");
  auto r = run();
  ASSERT_TRUE(r) << r.error().message();
  std::string cache = testing::read_text(box.path("rootfs/etc/ld.so.cache"));
  EXPECT_EQ(cache.find("/sentinel-dir"), std::string::npos);
  EXPECT_EQ(cache.find("libseccomp"), std::string::npos) << "a host library reached the cache";
}

// #22 ldconfig-hang: a FIFO named like a library in a scanned directory
TEST_F(LdconfigAttack, FifoInLibraryDirDoesNotHang) {
  ASSERT_EQ(::mkfifo(box.path("rootfs/opt/fake/lib/libx.so.1").c_str(), 0644), 0);
  auto r = run(std::chrono::seconds(5));
  if (!r) {
    EXPECT_EQ(r.error().code(), ETIMEDOUT) << r.error().message();
  }
}

// The sandbox must never write the host's files, even when the image's /etc is a symlink.
TEST_F(LdconfigAttack, SymlinkedEtcKeepsCacheInsideRoot) {
  std::filesystem::remove_all(box.path("rootfs/etc"));
  box.mkdir("rootfs" + box.path("sentinel"));
  box.symlink(box.path("sentinel"), "rootfs/etc");
  auto r = run();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(box.exists("rootfs" + box.path("sentinel") + "/ld.so.cache"));
}

// #23/#24: what the helper sees: pid 1 of its own pid ns, fixed argv, empty env, only fds 0-2,
// no network syscalls (seccomp ENOSYS), no procfs.
TEST_F(LdconfigAttack, HelperRunsWithFixedArgvEmptyEnvNoFdsNoNetworkNoProc) {
  LdconfigOptions o;
  o.host_ldconfig = NVCT_SANDBOX_PROBE;
  o.folders = {"/opt/fake/lib"};
  box.write("rootfs/etc/ld.so.cache", "");  // the probe writes no cache; the check needs one
  auto r = run_ldconfig(*Root::open(box.rootfs()), o);
  ASSERT_TRUE(r) << r.error().message();
  std::string report = testing::read_text(box.path("rootfs/probe.txt"));
  EXPECT_NE(report.find("pid=1 uid=0"), std::string::npos) << report;
  EXPECT_NE(report.find("argc=6 ldconfig -f /etc/ld.so.conf -C /etc/ld.so.cache /opt/fake/lib"),
            std::string::npos)
      << report;
  EXPECT_NE(report.find("env=0"), std::string::npos) << report;
  EXPECT_NE(report.find("fds=0,1,2,\n"), std::string::npos) << report;
  EXPECT_NE(report.find("socket=Function not implemented"), std::string::npos) << report;
  EXPECT_NE(report.find("proc_self=hidden"), std::string::npos) << report;
}

// The helper runs inside the container's cgroups: its CPU time is charged there.
TEST_F(LdconfigAttack, HelperJoinsTheGivenCgroups) {
  std::string cg = "/sys/fs/cgroup/cpuacct/nvct-test-" + std::to_string(::getpid());
  ASSERT_EQ(::mkdir(cg.c_str(), 0755), 0)
      << "need a v1 cpuacct hierarchy: " << std::strerror(errno);
  LdconfigOptions o;
  o.host_ldconfig = NVCT_SANDBOX_PROBE;
  o.cgroup_dirs = {cg};
  o.timeout = std::chrono::milliseconds(300);
  box.write("rootfs/hang", "");
  auto r = run_ldconfig(*Root::open(box.rootfs()), o);
  std::string usage = testing::read_text(cg + "/cpuacct.usage");
  ::rmdir(cg.c_str());
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ETIMEDOUT);
  EXPECT_GT(std::stoull(usage), 1'000'000ull) << "cpu ns charged to the cgroup: " << usage;
}

TEST_F(LdconfigAttack, MissingCgroupFailsBeforeTheHelperRuns) {
  LdconfigOptions o;
  o.host_ldconfig = NVCT_SANDBOX_PROBE;
  o.cgroup_dirs = {"/sys/fs/cgroup/cpuacct/nvct-no-such-cgroup"};
  auto r = run_ldconfig(*Root::open(box.rootfs()), o);
  ASSERT_FALSE(r);
  EXPECT_FALSE(box.exists("rootfs/probe.txt"));
}

// #22: a helper that never finishes is killed at the deadline, with its whole pid namespace.
TEST_F(LdconfigAttack, HangingHelperIsKilledAtTheDeadline) {
  LdconfigOptions o;
  o.host_ldconfig = NVCT_SANDBOX_PROBE;
  o.timeout = std::chrono::milliseconds(1000);
  box.write("rootfs/hang", "");
  auto start = std::chrono::steady_clock::now();
  auto r = run_ldconfig(*Root::open(box.rootfs()), o);
  auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ETIMEDOUT) << r.error().message();
  EXPECT_LT(took, std::chrono::seconds(5));
}

}  // namespace
}  // namespace nvct::mount
