#include "nvct/driver/driver_root.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

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
  testing::TempDir dir_;
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
