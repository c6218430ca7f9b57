#include "nvct/mount/configure_namespace.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include <functional>

#include "mount_sandbox.hpp"
#include "nvct/base/log.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::mount {
namespace {

using testing::Sandbox;

// A stand-in for a container's init at prestart: a process in its own (private) mount
// namespace, made from ours, that waits to be killed.
class FakeContainer {
 public:
  explicit FakeContainer(const std::function<void()>& setup = {}) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(fds[0]);
      if (::unshare(CLONE_NEWNS) != 0 ||
          ::mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0)
        ::_exit(1);
      if (setup) setup();
      char c = 1;
      (void)!::write(fds[1], &c, 1);
      for (;;) ::pause();
    }
    ::close(fds[1]);
    char c = 0;
    EXPECT_EQ(::read(fds[0], &c, 1), 1) << "fake container did not start";
    ::close(fds[0]);
  }
  ~FakeContainer() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }
  // Mount points at or under `dir` in the container's namespace.
  std::vector<std::string> mounts_under(const std::string& dir) const {
    std::vector<std::string> out;
    std::istringstream in(testing::read_text(fmt::format("/proc/{}/mountinfo", pid_)));
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream f(line);
      std::string id, parent, devno, root, point;
      f >> id >> parent >> devno >> root >> point;
      if (point == dir || point.rfind(dir + "/", 0) == 0) out.push_back(point);
    }
    return out;
  }

 private:
  pid_t pid_ = -1;
};

edits::Edits library_edits(const Sandbox& box) {
  box.write("host/usr/lib/libcuda.so.550.54.14", "cuda");
  box.mkdir("rootfs/usr/lib64");
  edits::Edits e;
  e.mounts = {{"/usr/lib/libcuda.so.550.54.14", "/usr/lib64/libcuda.so.550.54.14",
               edits::FileKind::kLibrary, edits::default_flags(edits::FileKind::kLibrary)}};
  e.symlinks = {{"/usr/lib64/libcuda.so", "libcuda.so.1"}};
  return e;
}

TEST(ContainerProcess, RefusesAProcessInOurMountNamespace) {
  auto p = open_container_process(::getpid());
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message().find("is in our mount namespace"), std::string::npos);
}

TEST(ContainerProcess, StandaloneModeAcceptsOurNamespaceWhenItIsNotTheHosts) {
  FakeContainer other;  // stands for the host: a namespace that is not ours
  std::string host_ns = fmt::format("/proc/{}/ns/mnt", other.pid());
  auto p = open_container_process(::getpid(), true, host_ns.c_str());
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->pid, ::getpid());
}

TEST(ContainerProcess, StandaloneModeRefusesTheHostsNamespace) {
  auto p = open_container_process(::getpid(), true, "/proc/self/ns/mnt");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message(),
            fmt::format("standalone mode: process {} is in the host's mount namespace "
                        "(/proc/self/ns/mnt): refusing to mount onto the host (run it in a "
                        "private mount namespace, or pass --pid)",
                        ::getpid()));
}

TEST(ContainerProcess, StandaloneModeWarnsWhenTheHostsNamespaceCannotBeRead) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  auto p = open_container_process(::getpid(), true, "/nonexistent/ns/mnt");
  log::set_sink(nullptr);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_TRUE(sink->contains("cannot check that process")) << sink->lines.size();
}

TEST(ContainerProcess, RefusesAnInvalidOrGonePid) {
  EXPECT_FALSE(open_container_process(0));
  EXPECT_FALSE(open_container_process(-5));
  pid_t gone = ::fork();
  if (gone == 0) ::_exit(0);
  ::waitpid(gone, nullptr, 0);
  EXPECT_FALSE(open_container_process(gone));
}

TEST(ContainerProcess, RecordsTheOwnerOfTheProcess) {
  FakeContainer c;
  auto p = open_container_process(c.pid());
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(p->uid, ::geteuid());
  EXPECT_TRUE(check_still_running(*p));
}

TEST(ApplyInContainer, MountsLandInTheContainerNamespaceOnly) {
  Sandbox box;
  auto e = library_edits(box);
  FakeContainer c;
  auto p = open_container_process(c.pid());
  ASSERT_TRUE(p) << p.error().message();
  auto s = apply_in_container(*p, box.host(), box.rootfs(), e, {});
  ASSERT_TRUE(s) << s.error().message();
  auto target = box.rootfs() + "/usr/lib64/libcuda.so.550.54.14";
  EXPECT_EQ(c.mounts_under(box.rootfs()), std::vector<std::string>{target});
  EXPECT_TRUE(testing::mounts_under(box.rootfs()).empty()) << "a mount leaked to our namespace";
  EXPECT_EQ(testing::read_text(fmt::format("/proc/{}/root{}", c.pid(), target)), "cuda");
  EXPECT_TRUE(box.exists("rootfs/usr/lib64/libcuda.so"));
}

TEST(ApplyInContainer, SpecialProcMountsUseTheProcfsPolicy) {
  Sandbox box;
  box.write("host/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", "DeviceFileMinor: 12\n",
            0444);
  box.mkdir("rootfs/proc/driver/nvidia/capabilities/gpu0/mig/gi1");
  FakeContainer c;
  auto p = open_container_process(c.pid());
  ASSERT_TRUE(p);
  std::string access = "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access";
  edits::FileMount m{access,
                     access,
                     edits::FileKind::kFirmware,
                     {.read_only = true, .nosuid = true, .nodev = true, .noexec = true}};
  auto s = apply_in_container(*p, box.host(), box.rootfs(), {}, {m});
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(c.mounts_under(box.rootfs()), std::vector<std::string>{box.rootfs() + access});
}

TEST(ApplyInContainer, FailureRollsBackEverythingInTheContainer) {
  Sandbox box;
  auto e = library_edits(box);
  box.mkdir("host/dev");
  // The node is 1:3, the edit expects 195:255: the check fails after the library was mounted.
  ASSERT_EQ(::mknod(box.path("host/dev/nvidiactl").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  e.device_nodes = {{"/dev/nvidiactl", "/dev/nvidiactl", edits::DeviceType::kChar, 195, 255, 0666}};
  FakeContainer c;
  auto p = open_container_process(c.pid());
  ASSERT_TRUE(p);
  auto s = apply_in_container(*p, box.host(), box.rootfs(), e, {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("invalid device node"), std::string::npos)
      << s.error().message();
  EXPECT_TRUE(c.mounts_under(box.rootfs()).empty());
  EXPECT_FALSE(box.exists("rootfs/usr/lib64/libcuda.so.550.54.14"));
  EXPECT_FALSE(box.exists("rootfs/dev/nvidiactl"));
}

TEST(ApplyInContainer, SourceReplacedInTheContainerNamespaceIsRefused) {
  Sandbox box;
  auto e = library_edits(box);
  std::string decoy = box.write("decoy", "not the driver");
  std::string lib = box.path("host/usr/lib/libcuda.so.550.54.14");
  FakeContainer c([&] { ::mount(decoy.c_str(), lib.c_str(), nullptr, MS_BIND, nullptr); });
  auto p = open_container_process(c.pid());
  ASSERT_TRUE(p);
  auto s = apply_in_container(*p, box.host(), box.rootfs(), e, {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("is not the same file in the container mount namespace"),
            std::string::npos)
      << s.error().message();
  EXPECT_TRUE(c.mounts_under(box.rootfs()).empty());
}

TEST(ApplyInContainer, MissingSourceFailsBeforeTheContainerIsTouched) {
  Sandbox box;
  auto e = library_edits(box);
  e.mounts.push_back({"/usr/lib/libmissing.so.1", "/usr/lib64/libmissing.so.1",
                      edits::FileKind::kLibrary, edits::default_flags(edits::FileKind::kLibrary)});
  FakeContainer c;
  auto p = open_container_process(c.pid());
  ASSERT_TRUE(p);
  auto s = apply_in_container(*p, box.host(), box.rootfs(), e, {});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("/usr/lib/libmissing.so.1"), std::string::npos);
  EXPECT_FALSE(box.exists("rootfs/usr/lib64/libcuda.so.550.54.14"));
}

TEST(ApplyInContainer, MeanwhileRunsInTheCallerWhileTheChildMountsAndOnFailureToo) {
  Sandbox box;
  auto e = library_edits(box);
  FakeContainer c;
  auto p = open_container_process(c.pid());
  ASSERT_TRUE(p) << p.error().message();
  pid_t ran_in = 0;
  auto s = apply_in_container(*p, box.host(), box.rootfs(), e, {}, [&] { ran_in = ::getpid(); });
  ASSERT_TRUE(s) << s.error().message();
  EXPECT_EQ(ran_in, ::getpid()) << "the callback must run in the calling process";
  EXPECT_EQ(c.mounts_under(box.rootfs()).size(), 1u);

  // A failing child: the callback still ran, and the child's error is the one returned.
  box.mkdir("host/dev");
  ASSERT_EQ(::mknod(box.path("host/dev/nvidiactl").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
  edits::Edits bad;
  bad.device_nodes = {
      {"/dev/nvidiactl", "/dev/nvidiactl", edits::DeviceType::kChar, 195, 255, 0666}};
  int calls = 0;
  auto f = apply_in_container(*p, box.host(), box.rootfs(), bad, {}, [&] { ++calls; });
  ASSERT_FALSE(f);
  EXPECT_EQ(calls, 1);
  EXPECT_NE(f.error().message().find("invalid device node"), std::string::npos)
      << f.error().message();
}

}  // namespace
}  // namespace nvct::mount
