#include "nvct/mount/ldconfig.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

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
