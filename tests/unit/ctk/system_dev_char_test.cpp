#include "nvct/ctk/system_dev_char.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>

#include "nvct/testing/temp_dir.hpp"
#include "system_fake_ops.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::MemorySink;
using nvct::testing::TempDir;

std::string read_link(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf));
  return n < 0 ? std::string("<no link>") : std::string(buf, static_cast<std::size_t>(n));
}

// A driver root whose /dev holds placeholder files; the fake decides what each one "is".
class SystemDevChar : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("proc/devices",
               "Character devices:\n195 nvidia\n238 nvidia-uvm\n235 nvidia-caps\n\n");
    for (const char* f : {"dev/nvidiactl", "dev/nvidia-modeset", "dev/nvidia0", "dev/nvidia1",
                          "dev/nvidia-uvm", "dev/nvidia-uvm-tools", "dev/nvidia-caps/nvidia-cap1",
                          "dev/nvidia-caps-imex-channels/channel0", "dev/nvidia-fake"})
      dir_.write(f, "");
    ops_.add_node("/dev/nvidiactl", 195, 255);
    ops_.add_node("/dev/nvidia-modeset", 195, 254);
    ops_.add_node("/dev/nvidia0", 195, 0);
    ops_.add_node("/dev/nvidia1", 195, 1);
    ops_.add_node("/dev/nvidia-uvm", 238, 0);
    ops_.add_node("/dev/nvidia-uvm-tools", 238, 1);
    ops_.add_node("/dev/nvidia-caps/nvidia-cap1", 235, 1);
    sink_ = std::make_shared<MemorySink>();
    log::set_sink(sink_);
  }
  void TearDown() override { log::set_sink(nullptr); }
  driver::DriverRoot root() {
    auto r = driver::DriverRoot::open(dir_.path());
    EXPECT_TRUE(r);
    return *r;
  }
  DevCharOptions options() {
    DevCharOptions o;
    o.driver_root = dir_.path();
    o.dev_char_path = out_ / "char";
    return o;
  }
  std::vector<std::string> links_in(const std::string& dir) {
    std::vector<std::string> out;
    for (const char* n : {"195:255", "195:254", "195:0", "195:1", "238:0", "238:1", "235:1",
                          "195:3", "235:408"}) {
      std::string t = read_link(dir + "/" + n);
      if (t != "<no link>") out.push_back(std::string(n) + " => " + t);
    }
    return out;
  }

  TempDir dir_, out_;
  FakeSystemOps ops_;
  std::shared_ptr<MemorySink> sink_;
};

TEST_F(SystemDevChar, FindsEveryNvidiaNodeKindWithItsOwnNumber) {
  auto nodes = find_nvidia_device_nodes(root(), read_nvidia_majors(root()), ops_);
  std::vector<std::string> got;
  for (const auto& n : nodes)
    got.push_back(n.path + " " + std::to_string(n.major) + ":" + std::to_string(n.minor));
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "/dev/nvidia-caps/nvidia-cap1 235:1", "/dev/nvidia-modeset 195:254",
                     "/dev/nvidia-uvm 238:0", "/dev/nvidia-uvm-tools 238:1", "/dev/nvidia0 195:0",
                     "/dev/nvidia1 195:1", "/dev/nvidiactl 195:255"}));
}

TEST_F(SystemDevChar, NodeWithAnotherMajorOrTypeIsSkippedWithAWarning) {
  ops_.add_node("/dev/nvidia1", 1, 3);
  ops_.add_node("/dev/nvidia-uvm", 238, 0, S_IFBLK);
  auto nodes = find_nvidia_device_nodes(root(), read_nvidia_majors(root()), ops_);
  for (const auto& n : nodes) {
    EXPECT_NE(n.path, "/dev/nvidia1");
    EXPECT_NE(n.path, "/dev/nvidia-uvm");
  }
  EXPECT_TRUE(sink_->contains("/dev/nvidia1 is not a character device with major 195"));
}

TEST_F(SystemDevChar, UvmNodesAreSkippedWhenUvmIsNotLoaded) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n\n");
  auto nodes = find_nvidia_device_nodes(root(), read_nvidia_majors(root()), ops_);
  for (const auto& n : nodes) EXPECT_NE(n.major, 238u) << n.path;
  EXPECT_EQ(nodes.size(), 4u);  // ctl, modeset, nvidia0, nvidia1
}

TEST_F(SystemDevChar, LinkTargetsIncludeTheDriverRoot) {
  std::vector<NodeSpec> nodes{{"/dev/nvidia0", 195, 0}, {"/dev/nvidia0", 195, 0}};
  EXPECT_EQ(dev_char_links("/", nodes), (std::vector<DevCharLink>{{"195:0", "/dev/nvidia0"}}));
  EXPECT_EQ(dev_char_links("/run/nvidia/driver/", nodes),
            (std::vector<DevCharLink>{{"195:0", "/run/nvidia/driver/dev/nvidia0"}}));
}

TEST_F(SystemDevChar, CreatesOneLinkPerExistingNode) {
  auto st = create_dev_char_symlinks(options(), ops_);
  ASSERT_TRUE(st) << st.error().message();
  std::string d = dir_.path();
  EXPECT_EQ(links_in(out_ / "char"),
            (std::vector<std::string>{"195:255 => " + d + "/dev/nvidiactl",
                                      "195:254 => " + d + "/dev/nvidia-modeset",
                                      "195:0 => " + d + "/dev/nvidia0",
                                      "195:1 => " + d + "/dev/nvidia1",
                                      "238:0 => " + d + "/dev/nvidia-uvm",
                                      "238:1 => " + d + "/dev/nvidia-uvm-tools",
                                      "235:1 => " + d + "/dev/nvidia-caps/nvidia-cap1"}));
  EXPECT_TRUE(sink_->contains("Creating link " + out_ / "char" + "/195:0 => " + d +
                              "/dev/nvidia0"));
}

TEST_F(SystemDevChar, DryRunLogsAndCreatesNothing) {
  auto o = options();
  o.dry_run = true;
  ASSERT_TRUE(create_dev_char_symlinks(o, ops_));
  struct stat st {};
  EXPECT_NE(::lstat((out_ / "char").c_str(), &st), 0) << "the directory must not be created";
  EXPECT_TRUE(sink_->contains("Creating link " + out_ / "char" + "/195:255 => "));
  EXPECT_TRUE(sink_->contains("Running in dry run mode"));
}

// A host without the driver: no link to make, so not even the directory (e2e_host_writes).
TEST_F(SystemDevChar, NoLinksCreateNoDirectory) {
  ASSERT_TRUE(write_dev_char_links(out_ / "char", {}, false));
  struct stat st {};
  EXPECT_NE(::lstat((out_ / "char").c_str(), &st), 0) << "the directory must not be created";
}

TEST_F(SystemDevChar, SecondRunKeepsCorrectLinksAndReplacesStaleOnes) {
  ASSERT_TRUE(create_dev_char_symlinks(options(), ops_));
  std::string dir = out_ / "char";
  ASSERT_EQ(::unlink((dir + "/195:0").c_str()), 0);
  ASSERT_EQ(::symlink("/somewhere/else", (dir + "/195:0").c_str()), 0);
  struct stat before {};
  ASSERT_EQ(::lstat((dir + "/195:255").c_str(), &before), 0);
  ASSERT_TRUE(create_dev_char_symlinks(options(), ops_));
  struct stat after {};
  ASSERT_EQ(::lstat((dir + "/195:255").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino) << "a correct link is kept, not rewritten";
  EXPECT_EQ(read_link(dir + "/195:0"), dir_.path() + "/dev/nvidia0");
  EXPECT_TRUE(sink_->contains("Replaced stale link"));
}

TEST_F(SystemDevChar, NonLinkInTheWayIsLeftAloneWithAWarning) {
  std::string dir = out_ / "char";
  out_.write("char/195:0", "precious");
  ASSERT_TRUE(create_dev_char_symlinks(options(), ops_));
  EXPECT_EQ(out_.read("char/195:0"), "precious");
  EXPECT_TRUE(sink_->contains("exists and is not a symbolic link"));
}

TEST_F(SystemDevChar, CreateAllLinksEveryPossibleNodeAndCreatesNodesWhenAsked) {
  dir_.write("proc/driver/nvidia/gpus/0000:17:00.0/information",
             "Model: \t H100\nGPU UUID: \t GPU-a\nBus Location: \t 0000:17:00.0\n"
             "Device Minor: \t 3\n");
  auto o = options();
  o.create_all = true;
  o.create_device_nodes = true;
  o.load_kernel_modules = true;
  ASSERT_TRUE(create_dev_char_symlinks(o, ops_));
  EXPECT_EQ(ops_.modprobes, (std::vector<std::string>{"nvidia", "nvidia-uvm", "nvidia-modeset"}));
  EXPECT_EQ(ops_.mknods.size(), 5u);  // 4 control nodes and nvidia3
  EXPECT_EQ(read_link(out_ / "char/195:3"), dir_.path() + "/dev/nvidia3");
  EXPECT_EQ(read_link(out_ / "char/195:0"), "<no link>")
      << "create-all uses the driver's GPU list, not stray nodes";
}

TEST_F(SystemDevChar, CreateAllSkipsAnExistingNodeOfTheWrongNumber) {
  ops_.add_node("/dev/nvidiactl", 1, 3);
  auto o = options();
  o.create_all = true;
  ASSERT_TRUE(create_dev_char_symlinks(o, ops_));
  EXPECT_EQ(read_link(out_ / "char/195:255"), "<no link>");
  EXPECT_EQ(read_link(out_ / "char/195:254"), dir_.path() + "/dev/nvidia-modeset");
  EXPECT_TRUE(ops_.mknods.empty());
  EXPECT_TRUE(ops_.modprobes.empty());
}

TEST_F(SystemDevChar, KmodAndNodeFlagsWithoutCreateAllOnlyWarn) {
  auto o = options();
  o.load_kernel_modules = true;
  o.create_device_nodes = true;
  ASSERT_TRUE(create_dev_char_symlinks(o, ops_));
  EXPECT_TRUE(ops_.modprobes.empty());
  EXPECT_TRUE(ops_.mknods.empty());
  EXPECT_TRUE(sink_->contains("only apply with --create-all"));
}

}  // namespace
}  // namespace nvct::ctk
