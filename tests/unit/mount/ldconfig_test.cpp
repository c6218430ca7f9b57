#include "nvct/mount/ldconfig.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <thread>

#include "mount_sandbox.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

LdconfigOptions opts(std::vector<std::string> folders, std::optional<pid_t> pid = std::nullopt,
                     std::string binary = "/sbin/ldconfig") {
  LdconfigOptions o;
  o.folders = std::move(folders);
  o.container_pid = pid;
  o.host_ldconfig = std::move(binary);
  return o;
}

TEST(LdconfigArgv, IsFixedWithFoldersAppended) {
  EXPECT_EQ(ldconfig_argv({"/usr/lib/x86_64-linux-gnu", "/usr/lib/i386-linux-gnu"}),
            (std::vector<std::string>{"ldconfig", "-f", "/etc/ld.so.conf", "-C", "/etc/ld.so.cache",
                                      "/usr/lib/x86_64-linux-gnu", "/usr/lib/i386-linux-gnu"}));
}

TEST(LdconfigSealedCopy, IsSealedAndIdentical) {
  auto fd = sealed_copy("/sbin/ldconfig");
  ASSERT_TRUE(fd) << fd.error().message();
  int seals = ::fcntl(fd->get(), F_GET_SEALS);
  int want = F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE;
  EXPECT_EQ(seals & want, want);
  struct stat a {
  }, b{};
  ASSERT_EQ(::fstat(fd->get(), &a), 0);
  ASSERT_EQ(::stat("/sbin/ldconfig", &b), 0);
  EXPECT_EQ(a.st_size, b.st_size);
  EXPECT_EQ(::write(fd->get(), "x", 1), -1);
}

// A memfd with one page and a writable shared mapping of it: F_SEAL_WRITE answers EBUSY for as
// long as the mapping exists, which stands in for the page references a loaded host can hold.
struct MappedMemfd {
  unique_fd fd{::memfd_create("nvct-seal-test", MFD_CLOEXEC | MFD_ALLOW_SEALING)};
  void* map = MAP_FAILED;
  MappedMemfd() {
    if (!fd || ::ftruncate(fd.get(), 4096) != 0) return;
    map = ::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  }
  void unmap() {
    if (map != MAP_FAILED) ::munmap(map, 4096);
    map = MAP_FAILED;
  }
  ~MappedMemfd() { unmap(); }
};

TEST(LdconfigAddSeals, WaitsOutABusyFileAndSeals) {
  MappedMemfd m;
  ASSERT_NE(m.map, MAP_FAILED);
  // Sealing fails while the mapping exists: one plain attempt is not enough here.
  ASSERT_EQ(::fcntl(m.fd.get(), F_ADD_SEALS, F_SEAL_WRITE), -1);
  ASSERT_EQ(errno, EBUSY);
  std::thread release([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    m.unmap();
  });
  Status s = add_seals(m.fd.get(), F_SEAL_WRITE);
  release.join();
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_TRUE(::fcntl(m.fd.get(), F_GET_SEALS) & F_SEAL_WRITE);
}

TEST(LdconfigAddSeals, GivesUpWithEbusyWhenTheFileStaysBusy) {
  MappedMemfd m;
  ASSERT_NE(m.map, MAP_FAILED);
  Status s = add_seals(m.fd.get(), F_SEAL_WRITE, std::chrono::milliseconds(50));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), EBUSY);
  EXPECT_NE(s.error().message().find("Device or resource busy"), std::string::npos)
      << s.error().message();
  EXPECT_FALSE(::fcntl(m.fd.get(), F_GET_SEALS) & F_SEAL_WRITE);
}

TEST(LdconfigAddSeals, OtherErrorsAreNotRetried) {
  // Without MFD_ALLOW_SEALING the file is sealed against sealing: EPERM, at once.
  unique_fd fd(::memfd_create("nvct-seal-test", MFD_CLOEXEC));
  ASSERT_TRUE(fd);
  Status s = add_seals(fd.get(), F_SEAL_WRITE, std::chrono::hours(1));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code(), EPERM);
}

// As the reference: the host's (static) ldconfig runs whether or not the image has a loader.
TEST(LdconfigLayout, ImageWithoutGlibcLoaderStillGetsItsCache) {
  Sandbox box;
  box.copy("/bin/busybox", "rootfs/bin/busybox");
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({"/usr/lib"}));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(box.exists("rootfs/etc/ld.so.cache"));
}

TEST(LdconfigConf, MissingLdSoConfIsCreatedWithInclude) {
  Sandbox box;
  box.mkdir("rootfs/etc");
  auto root = Root::open(box.rootfs());
  EXPECT_TRUE(*ensure_ld_so_conf(*root));
  EXPECT_EQ(testing::read_text(box.path("rootfs/etc/ld.so.conf")),
            "include /etc/ld.so.conf.d/*.conf\n");
  EXPECT_FALSE(*ensure_ld_so_conf(*root));
}

TEST(LdconfigConf, SymlinkedEtcIsFollowedInRootOnly) {
  Sandbox box;
  box.mkdir("sentinel");
  box.mkdir("rootfs" + box.path("sentinel"));
  box.symlink(box.path("sentinel"), "rootfs/etc");
  auto root = Root::open(box.rootfs());
  ASSERT_TRUE(ensure_ld_so_conf(*root));
  EXPECT_TRUE(box.exists("rootfs" + box.path("sentinel") + "/ld.so.conf"));
  EXPECT_FALSE(box.exists("sentinel/ld.so.conf"));
}

TEST(LdconfigSandbox, BuildsTheCacheInsideTheRootfs) {
  Sandbox box;
  box.make_glibc_rootfs();
  box.copy("/lib/x86_64-linux-gnu/libz.so.1", "rootfs/opt/fake/lib/libz.so.1");
  std::string host_cache = testing::read_text("/etc/ld.so.cache");
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({"/opt/fake/lib"}));
  ASSERT_TRUE(r) << r.error().message();
  struct stat st {};
  ASSERT_EQ(::lstat(box.path("rootfs/etc/ld.so.cache").c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  std::string cache = testing::read_text(box.path("rootfs/etc/ld.so.cache"));
  EXPECT_NE(cache.find("/opt/fake/lib/libz.so.1"), std::string::npos);
  EXPECT_EQ(testing::read_text(box.path("rootfs/etc/ld.so.conf")),
            "include /etc/ld.so.conf.d/*.conf\n");
  EXPECT_EQ(testing::read_text("/etc/ld.so.cache"), host_cache);
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty());
}

TEST(LdconfigSandbox, JoinsTheMountNamespaceOfAPid) {
  Sandbox box;
  box.make_glibc_rootfs();
  box.copy("/lib/x86_64-linux-gnu/libz.so.1", "rootfs/opt/fake/lib/libz.so.1");
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({"/opt/fake/lib"}, ::getpid()));
  ASSERT_TRUE(r) << r.error().message();
}

TEST(LdconfigSandbox, MissingHostBinaryIsAClearError) {
  Sandbox box;
  box.make_glibc_rootfs();
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({}, std::nullopt, "/nonexistent/ldconfig"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("/nonexistent/ldconfig"), std::string::npos);
}

}  // namespace
}  // namespace nvct::mount
