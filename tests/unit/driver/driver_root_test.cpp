#include "nvct/driver/driver_root.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <filesystem>
#include <optional>

#include "nvct/base/unique_fd.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

namespace fs = std::filesystem;

class DriverRootTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14", "ELF");
    fs::create_symlink("libcuda.so.550.54.14", dir_ / "usr/lib/x86_64-linux-gnu/libcuda.so.1");
    fs::create_directories(dir_ / "lib");
    // Absolute link: must be taken relative to the driver root, not the host.
    fs::create_symlink("/usr/lib/x86_64-linux-gnu", dir_ / "lib/x86_64-linux-gnu");
    fs::create_symlink("../../../../../../etc/passwd", dir_ / "usr/lib/escape");
    fs::create_symlink("/etc/passwd", dir_ / "usr/lib/absolute-escape");
    fs::create_symlink("loop-b", dir_ / "usr/loop-a");
    fs::create_symlink("loop-a", dir_ / "usr/loop-b");
  }
  nvct::testing::TempDir dir_;
};

TEST_F(DriverRootTest, ResolvesRelativeAndAbsoluteLinksInsideTheRoot) {
  auto root = DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  auto r = root->resolve("/lib/x86_64-linux-gnu/libcuda.so.1");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(*r, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14");
}

TEST_F(DriverRootTest, DotDotAndAbsoluteTargetsNeverLeaveTheRoot) {
  auto root = DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  // Both point at /etc/passwd of the root, which does not exist there: ENOENT, never the host's.
  for (const char* p : {"/usr/lib/escape", "/usr/lib/absolute-escape", "/../../etc/passwd"}) {
    auto r = root->resolve(p);
    ASSERT_FALSE(r) << p << " resolved to " << *r;
    EXPECT_EQ(r.error().code(), ENOENT) << p;
    EXPECT_FALSE(root->read(p)) << p;
  }
  dir_.write("etc/passwd", "root-local");
  EXPECT_EQ(*root->resolve("/usr/lib/escape"), "/etc/passwd");
  EXPECT_EQ(*root->read("/usr/lib/absolute-escape"), "root-local");
}

TEST_F(DriverRootTest, SymlinkLoopIsEloop) {
  auto root = DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  auto r = root->resolve("/usr/loop-a");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ELOOP);
}

TEST_F(DriverRootTest, FileInThePathIsNotADirectory) {
  auto root = DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  auto r = root->resolve("/usr/lib/x86_64-linux-gnu/libcuda.so.1/x");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code(), ENOTDIR);
}

TEST_F(DriverRootTest, RememberedDirectoriesGiveTheSameAnswersAsAFreshWalk) {
  auto root = *DriverRoot::open(dir_.path());
  auto copy = root;  // copies share what was learnt
  EXPECT_EQ(*root.resolve("/usr/lib/x86_64-linux-gnu/libcuda.so.1"),
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14");
  EXPECT_EQ(*copy.resolve("/lib/x86_64-linux-gnu/libcuda.so.1"),
            "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14");
  // A regular file is never remembered as a directory.
  auto through_file = copy.resolve("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14/x");
  ASSERT_FALSE(through_file);
  EXPECT_EQ(through_file.error().code(), ENOTDIR);
  auto fresh = *DriverRoot::open(dir_.path());
  for (const char* p : {"/usr/lib/x86_64-linux-gnu/libcuda.so.1", "/lib/x86_64-linux-gnu",
                        "/lib/x86_64-linux-gnu/../x86_64-linux-gnu/libcuda.so.1"})
    EXPECT_EQ(*root.resolve(p), *fresh.resolve(p)) << p;
}

TEST_F(DriverRootTest, ResolvesLikeTheKernelInTheRoot) {
  // Chains of relative and absolute links, `..` after a link, `.` and doubled slashes: the walk
  // must land where openat2(RESOLVE_IN_ROOT) lands, and fail where it fails.
  fs::create_directories(dir_ / "opt/a/b");
  dir_.write("opt/a/b/lib.so.1.2", "ELF");
  fs::create_symlink("lib.so.1.2", dir_ / "opt/a/b/lib.so.1");
  fs::create_symlink("b/./lib.so.1", dir_ / "opt/a/lib-rel");
  fs::create_symlink("../a/b", dir_ / "opt/a/b-up");
  fs::create_symlink("/opt/a/b-up/../lib-rel", dir_ / "opt/chain");
  fs::create_symlink("//opt///a/./b", dir_ / "opt/slashes");
  fs::create_symlink("../../..", dir_ / "opt/a/b/top");
  auto root = *DriverRoot::open(dir_.path());
  unique_fd rfd(::open(dir_.path().c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  ASSERT_TRUE(rfd);
  auto kernel = [&](const std::string& p) -> std::optional<std::string> {
    struct open_how how {};
    how.flags = O_PATH | O_CLOEXEC;
    how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
    std::string rel = "." + p;
    long fd = ::syscall(SYS_openat2, rfd.get(), rel.c_str(), &how, sizeof how);
    if (fd < 0) return std::nullopt;
    unique_fd f(static_cast<int>(fd));
    auto real = fs::read_symlink(fmt::format("/proc/self/fd/{}", f.get())).string();
    std::string top = fs::canonical(dir_.path()).string();
    if (real == top) return "/";
    EXPECT_EQ(real.compare(0, top.size() + 1, top + "/"), 0) << real;
    return real.substr(top.size());
  };
  int resolved = 0;
  for (std::string p :
       {"/opt/a/lib-rel", "/opt/chain", "/opt/slashes/lib.so.1", "/opt/a/b-up/lib.so.1",
        "/opt/a/b-up/../b-up/../../opt/a/b/lib.so.1", "//opt/./a//b/./lib.so.1",
        "/opt/a/b/top/opt/chain", "/opt/a/b/top/../../opt/a/b", "/opt/a/b/top", "/opt/chain/x",
        "/opt/a/missing/../b", "/lib/x86_64-linux-gnu/../x86_64-linux-gnu/libcuda.so.1",
        "/lib/x86_64-linux-gnu/..", "/usr/lib/escape", "/opt/a/b/lib.so.1/.."}) {
    auto ours = root.resolve(p);
    auto theirs = kernel(p);
    if (!theirs) {
      EXPECT_FALSE(ours) << p << " resolved to " << *ours;
      continue;
    }
    ASSERT_TRUE(ours) << p << ": " << ours.error().message();
    EXPECT_EQ(*ours, *theirs) << p;
    ++resolved;
  }
  EXPECT_GE(resolved, 10);
  EXPECT_EQ(*root.resolve("/opt/chain"), "/opt/a/b/lib.so.1.2");
  EXPECT_EQ(*root.resolve("/opt/a/b/top"), "/");
}

TEST_F(DriverRootTest, OpenFileStaysInTheRootWithAndWithoutOpenat2) {
  for (bool disabled : {false, true}) {
    auto root = DriverRoot::open(dir_.path());
    ASSERT_TRUE(root);
    root->set_openat2_disabled(disabled);
    EXPECT_EQ(*root->read("/lib/x86_64-linux-gnu/libcuda.so.1"), "ELF") << disabled;
    EXPECT_FALSE(root->read("/usr/lib/absolute-escape")) << disabled;
    auto fd = root->open_file("/usr/lib", O_RDONLY | O_DIRECTORY);
    ASSERT_TRUE(fd);
    EXPECT_TRUE(::fcntl(fd->get(), F_GETFD) & FD_CLOEXEC);
  }
}

TEST_F(DriverRootTest, HostPathAndTrailingSlashes) {
  auto root = DriverRoot::open(dir_.path() + "///");
  ASSERT_TRUE(root);
  EXPECT_EQ(root->path(), dir_.path());
  EXPECT_EQ(root->host_path("/usr//lib/"), dir_.path() + "/usr/lib");
  auto host = DriverRoot::open("/");
  ASSERT_TRUE(host);
  EXPECT_EQ(host->host_path("/usr/lib"), "/usr/lib");
  EXPECT_EQ(normalize_path("a/./b//c/"), "/a/b/c");
  EXPECT_EQ(normalize_path(""), "/");
  EXPECT_EQ(normalize_path("/"), "/");
  EXPECT_EQ(normalize_path("./."), "/");
  EXPECT_EQ(normalize_path("//proc/driver/./nvidia"), "/proc/driver/nvidia");
  EXPECT_EQ(normalize_path("x"), "/x");
  // ".." is kept: resolve() and openat2 RESOLVE_IN_ROOT give it its meaning inside the root.
  EXPECT_EQ(normalize_path("a/../b"), "/a/../b");
}

TEST_F(DriverRootTest, ReadChecksTheSizeOfTheFileItOpened) {
  dir_.write("f", std::string(100, 'x'));
  auto root = DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  EXPECT_EQ(root->read("/f", 100)->size(), 100u);
  auto big = root->read("/f", 99);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().code(), EFBIG);
  struct stat st {};
  auto fd = root->open_file("/f", O_RDONLY, &st);
  ASSERT_TRUE(fd);
  EXPECT_EQ(st.st_size, 100);
  EXPECT_TRUE(S_ISREG(st.st_mode));
}

TEST_F(DriverRootTest, ListDirIsSortedAndMissingRootFails) {
  dir_.write("d/b", "");
  dir_.write("d/a", "");
  auto root = DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  EXPECT_EQ(*root->list_dir("/d"), (std::vector<std::string>{"a", "b"}));
  auto missing = DriverRoot::open(dir_ / "nope");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("open driver root"), std::string::npos);
}

// Issue 18: a FIFO, socket or device where a driver file belongs is refused at once (a plain
// open() of the FIFO blocked nvidia-container-cli forever), with and without openat2.
TEST_F(DriverRootTest, PlainReadsRefuseFifosAndDevicesWithoutBlocking) {
  ASSERT_EQ(::mkfifo((dir_ / "usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1").c_str(), 0644), 0);
  ASSERT_EQ(::mkfifo((dir_ / "information").c_str(), 0644), 0);
  fs::create_symlink("/information", dir_ / "lib/info-link");
  for (bool disabled : {false, true}) {
    auto root = DriverRoot::open(dir_.path());
    ASSERT_TRUE(root);
    root->set_openat2_disabled(disabled);
    auto lib = root->open_file("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1", O_RDONLY);
    ASSERT_FALSE(lib) << disabled;
    EXPECT_NE(lib.error().message().find("is a FIFO, not a regular file"), std::string::npos)
        << lib.error().message();
    EXPECT_FALSE(root->read("/lib/info-link")) << disabled;
    // O_PATH and directory opens are not plain reads and still work on anything.
    EXPECT_TRUE(root->open_file("/information", O_PATH)) << disabled;
    EXPECT_TRUE(root->stat("/information")) << disabled;
  }
}

TEST_F(DriverRootTest, ReadRefusesAHugeFileBeforeReadingIt) {
  std::string big = dir_.write("etc/ld.so.cache", "");
  ASSERT_EQ(::truncate(big.c_str(), 1ll << 40), 0);
  auto root = DriverRoot::open(dir_.path());
  ASSERT_TRUE(root);
  auto text = root->read("/etc/ld.so.cache", 1u << 20);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().code(), EFBIG);
}

}  // namespace
}  // namespace nvct::driver
