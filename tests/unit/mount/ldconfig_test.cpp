#include "nvct/mount/ldconfig.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <optional>
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

TEST(LdconfigLayout, ImageWithoutGlibcLoaderIsSkipped) {
  Sandbox box;
  box.copy("/bin/busybox", "rootfs/bin/busybox");
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({"/usr/lib"}));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, LdconfigOutcome::kSkipped);
  EXPECT_FALSE(box.exists("rootfs/etc/ld.so.conf"));
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
  EXPECT_EQ(*r, LdconfigOutcome::kRan);
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
  EXPECT_EQ(*r, LdconfigOutcome::kRan);
}

TEST(LdconfigSandbox, MissingHostBinaryIsAClearError) {
  Sandbox box;
  box.make_glibc_rootfs();
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({}, std::nullopt, "/nonexistent/ldconfig"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("/nonexistent/ldconfig"), std::string::npos);
}

TEST(LdconfigSandbox, PreparedOnAnotherThreadSeesMountsMadeBeforeItRuns) {
  Sandbox box;
  box.make_glibc_rootfs();
  box.mkdir("late");
  box.mkdir("rootfs/opt/late");
  auto root = Root::open(box.rootfs());
  ASSERT_TRUE(root);
  LdconfigOptions o = opts({"/opt/late"}, ::getpid());
  std::optional<Result<LdconfigSandbox>> prepared;
  std::thread worker([&] { prepared.emplace(LdconfigSandbox::prepare(*root, o)); });
  worker.join();
  ASSERT_TRUE(*prepared) << prepared->error().message();
  // Made after the sandbox's namespaces exist: it must join the mount namespace only when run.
  ASSERT_EQ(::mount("tmpfs", box.path("rootfs/opt/late").c_str(), "tmpfs", 0, "size=4m"), 0);
  box.copy("/lib/x86_64-linux-gnu/libz.so.1", "rootfs/opt/late/libz.so.1");
  auto r = run_ldconfig(*root, o, std::move(*prepared));
  ::umount2(box.path("rootfs/opt/late").c_str(), MNT_DETACH);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, LdconfigOutcome::kRan);
  EXPECT_NE(testing::read_text(box.path("rootfs/etc/ld.so.cache")).find("/opt/late/libz.so.1"),
            std::string::npos);
}

TEST(LdconfigSandbox, PreparedButNeverRunIsKilledAndReaped) {
  Sandbox box;
  box.make_glibc_rootfs();
  auto root = Root::open(box.rootfs());
  pid_t pid = -1;
  {
    auto prepared = LdconfigSandbox::prepare(*root, opts({"/usr/lib"}));
    ASSERT_TRUE(prepared) << prepared.error().message();
    pid = prepared->pid();
    ASSERT_GT(pid, 0);
    EXPECT_EQ(::kill(pid, 0), 0);
  }
  errno = 0;
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_FALSE(box.exists("rootfs/etc/ld.so.cache"));
}

TEST(LdconfigSandbox, WaitingChildHoldsNoneOfTheCallersOtherFds) {
  Sandbox box;
  box.make_glibc_rootfs();
  auto root = Root::open(box.rootfs());
  // Stands for another thread's child reply pipe, open while the sandbox is cloned.
  int p[2];
  ASSERT_EQ(::pipe2(p, O_CLOEXEC), 0);
  auto prepared = LdconfigSandbox::prepare(*root, opts({"/usr/lib"}));
  ASSERT_TRUE(prepared) << prepared.error().message();
  ::close(p[1]);
  struct pollfd pfd {
    p[0], POLLIN, 0
  };
  ASSERT_EQ(::poll(&pfd, 1, 5000), 1) << "the waiting sandbox child still holds the write end";
  char c;
  EXPECT_EQ(::read(p[0], &c, 1), 0);
  ::close(p[0]);
}

TEST(LdconfigSandbox, FailedPreparationIsIgnoredForAnImageWithoutGlibc) {
  Sandbox box;
  box.copy("/bin/busybox", "rootfs/bin/busybox");
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({"/usr/lib"}), fail(EIO, "clone went wrong"));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, LdconfigOutcome::kSkipped);
}

TEST(LdconfigSandbox, FailedPreparationIsReportedWhenLdconfigMustRun) {
  Sandbox box;
  box.make_glibc_rootfs();
  auto root = Root::open(box.rootfs());
  auto r = run_ldconfig(*root, opts({"/usr/lib"}), fail(EIO, "clone went wrong"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ldcache update: clone went wrong");
  EXPECT_FALSE(box.exists("rootfs/etc/ld.so.conf"));
}

TEST(LdconfigSandbox, TooManyFoldersAreRefusedBeforeTheChildStarts) {
  Sandbox box;
  box.make_glibc_rootfs();
  auto root = Root::open(box.rootfs());
  std::vector<std::string> folders(2000, "/usr/lib");
  auto r = run_ldconfig(*root, opts(folders));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("2000 ldconfig folders are too many"), std::string::npos);
}

}  // namespace
}  // namespace nvct::mount
