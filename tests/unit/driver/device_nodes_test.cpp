#include "nvct/driver/device_nodes.hpp"

#include <algorithm>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <filesystem>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

namespace fs = std::filesystem;

TEST(DeviceFileParams, ParsesOwnerModeAndModify) {
  auto p = parse_device_file_params(
      "ResmanDebugLevel: 4294967295\nDeviceFileUID: 1000\nDeviceFileGID: 44\n"
      "DeviceFileMode: 432\nModifyDeviceFiles: 0\n");
  EXPECT_EQ(p.uid, 1000u);
  EXPECT_EQ(p.gid, 44u);
  EXPECT_EQ(p.mode, 0660u);
  EXPECT_FALSE(p.modify);
  auto d = parse_device_file_params("");
  EXPECT_EQ(d.mode, 0666u);
  EXPECT_TRUE(d.modify);
}

class DeviceNodesTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_EQ(::geteuid(), 0u) << "device node tests need root (mknod)"; }
  struct stat st(const std::string& rel) {
    struct stat s {};
    EXPECT_EQ(::lstat((dir_ / rel).c_str(), &s), 0) << rel;
    return s;
  }
  // NVIDIA display-class PCI devices in the root's sysfs (the GPU count of --load-kmods).
  void add_pci_gpus(std::initializer_list<const char*> buses) {
    for (const char* bus : buses) {
      dir_.write(fmt::format("sys/bus/pci/devices/{}/vendor", bus), "0x10de\n");
      dir_.write(fmt::format("sys/bus/pci/devices/{}/class", bus), "0x030200\n");
    }
  }
  // The names under dev/nvidia-caps, sorted.
  std::vector<std::string> cap_nodes() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_ / "dev/nvidia-caps"))
      names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }
  nvct::testing::TempDir dir_;
};

TEST_F(DeviceNodesTest, CreatesNodeWithOwnerModeAndCharLink) {
  auto root = *DriverRoot::open(dir_.path());
  DeviceFileParams p{1000, 44, 0660, true};
  ASSERT_TRUE(create_char_device(root, "/dev/nvidia-caps/nvidia-cap21", 235, 21, p));
  auto s = st("dev/nvidia-caps/nvidia-cap21");
  EXPECT_TRUE(S_ISCHR(s.st_mode));
  EXPECT_EQ(s.st_rdev, makedev(235, 21));
  EXPECT_EQ(s.st_mode & 07777, 0660u);
  EXPECT_EQ(s.st_uid, 1000u);
  EXPECT_EQ(s.st_gid, 44u);
  EXPECT_EQ(fs::read_symlink(dir_ / "dev/char/235:21"), "../nvidia-caps/nvidia-cap21");
}

TEST_F(DeviceNodesTest, ExistingSameNodeIsKeptAndEexistIsTolerated) {
  auto root = *DriverRoot::open(dir_.path());
  ASSERT_TRUE(create_char_device(root, "/dev/nvidiactl", 195, 255, {}));
  EXPECT_TRUE(create_char_device(root, "/dev/nvidiactl", 195, 255, {}));
}

TEST_F(DeviceNodesTest, DifferentFileInTheWayIsAnErrorAndUntouched) {
  dir_.write("dev/nvidiactl", "regular");
  auto root = *DriverRoot::open(dir_.path());
  auto st1 = create_char_device(root, "/dev/nvidiactl", 195, 255, {});
  ASSERT_FALSE(st1);
  EXPECT_NE(st1.error().message().find("is not the character device 195:255"), std::string::npos);
  EXPECT_EQ(dir_.read("dev/nvidiactl"), "regular");
  ASSERT_TRUE(create_char_device(root, "/dev/other", 195, 1, {}));
  auto st2 = create_char_device(root, "/dev/other", 195, 2, {});
  EXPECT_FALSE(st2);
}

TEST_F(DeviceNodesTest, DevSymlinkOutOfTheRootIsFollowedInsideIt) {
  fs::create_directories(dir_ / "elsewhere");
  fs::create_symlink("/elsewhere", dir_ / "dev");
  auto root = *DriverRoot::open(dir_.path());
  ASSERT_TRUE(create_char_device(root, "/dev/nvidia0", 195, 0, {}));
  EXPECT_TRUE(S_ISCHR(st("elsewhere/nvidia0").st_mode));
}

TEST_F(DeviceNodesTest, LoadKernelModulesCreatesTheNodesOfAMockRoot) {
  dir_.write("proc/devices",
             "Character devices:\n195 nvidia\n235 nvidia-caps\n238 nvidia-uvm\n"
             "234 nvidia-caps-imex-channels\n\n");
  dir_.write("proc/driver/nvidia/params", "DeviceFileMode: 438\n");
  dir_.write("proc/modules",
             "nvidia_modeset 1 0 - Live 0x0 (PO)\nnvidia 2 1 nvidia_modeset, Live 0x0 (PO)\n");
  dir_.write(
      "proc/driver/nvidia-caps/mig-minors",
      "config 1\nmonitor 2\ngpu0/gi1/access 12\ngpu0/gi1/ci0/access 13\ngpu5/gi1/access 99\n");
  dir_.write("proc/driver/nvidia/capabilities/mig/config",
             "DeviceFileMinor: 1\nDeviceFileMode: 256\n");
  dir_.write("proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", "DeviceFileMinor: 12\n");
  dir_.write("proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access", "DeviceFileMinor: 13\n");
  for (const char* bus : {"0000:17:00.0", "0000:2a:00.0", "0000:00:1f.0"}) {
    bool nv = std::string(bus) != "0000:00:1f.0";
    dir_.write(fmt::format("sys/bus/pci/devices/{}/vendor", bus), nv ? "0x10de\n" : "0x8086\n");
    dir_.write(fmt::format("sys/bus/pci/devices/{}/class", bus), "0x030200\n");
  }
  KmodOptions o;
  o.root = dir_.path();
  o.imex_channels = {1};
  ASSERT_TRUE(load_kernel_modules(o));
  auto root = *DriverRoot::open(dir_.path());
  EXPECT_EQ(count_nvidia_pci_devices(root), 2u);
  EXPECT_EQ(st("dev/nvidiactl").st_rdev, makedev(195, 255));
  EXPECT_EQ(st("dev/nvidia0").st_rdev, makedev(195, 0));
  EXPECT_EQ(st("dev/nvidia1").st_rdev, makedev(195, 1));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia2"));
  EXPECT_EQ(st("dev/nvidia-uvm").st_rdev, makedev(238, 0));
  EXPECT_EQ(st("dev/nvidia-uvm-tools").st_rdev, makedev(238, 1));
  EXPECT_EQ(st("dev/nvidia-modeset").st_rdev, makedev(195, 254));
  EXPECT_EQ(st("dev/nvidia0").st_mode & 07777, 0666u);
  EXPECT_EQ(st("dev/nvidia-caps/nvidia-cap1").st_mode & 07777, 0400u);
  EXPECT_EQ(st("dev/nvidia-caps/nvidia-cap12").st_rdev, makedev(235, 12));
  EXPECT_EQ(st("dev/nvidia-caps/nvidia-cap13").st_rdev, makedev(235, 13));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia-caps/nvidia-cap2"));   // no monitor proc file
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia-caps/nvidia-cap99"));  // gpu5 >= PCI count
  EXPECT_EQ(st("dev/nvidia-caps-imex-channels/channel1").st_rdev, makedev(234, 1));
  // A second run finds everything in place.
  EXPECT_TRUE(load_kernel_modules(o));
}

TEST_F(DeviceNodesTest, MigCapsAreCreatedOnlyForInstancesWhoseProcFileExists) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n235 nvidia-caps\n\n");
  // The real file lists every possible instance of every GPU; only gpu1's gi2/ci0 is configured.
  std::string minors;
  unsigned minor = 10;
  for (int gpu = 0; gpu < 2; ++gpu)
    for (int gi = 0; gi < 3; ++gi) {
      minors += fmt::format("gpu{}/gi{}/access {}\n", gpu, gi, minor++);
      for (int ci = 0; ci < 2; ++ci)
        minors += fmt::format("gpu{}/gi{}/ci{}/access {}\n", gpu, gi, ci, minor++);
    }
  dir_.write("proc/driver/nvidia-caps/mig-minors", minors);
  // gpu1/gi2 is minor 10 + 9 + 6 = 25, its ci0 26, ci1 27 (no proc file).
  dir_.write("proc/driver/nvidia/capabilities/gpu1/mig/gi2/access", "DeviceFileMinor: 25\n");
  dir_.write("proc/driver/nvidia/capabilities/gpu1/mig/gi2/ci0/access", "DeviceFileMinor: 26\n");
  fs::create_directories(dir_ / "proc/driver/nvidia/capabilities/gpu0/mig");
  add_pci_gpus({"0000:17:00.0", "0000:2a:00.0"});
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_EQ(cap_nodes(), (std::vector<std::string>{"nvidia-cap25", "nvidia-cap26"}));
  EXPECT_EQ(st("dev/nvidia-caps/nvidia-cap26").st_rdev, makedev(235, 26));
}

// The size of a real driver's file: every possible instance of 32 GPUs (4322 lines), with two GPUs
// present and a few instances configured on each.
std::string real_size_mig_minors() {
  std::string minors = "config 1\nmonitor 2\n";
  unsigned minor = 3;
  for (int gpu = 0; gpu < 32; ++gpu)
    for (int gi = 0; gi < 15; ++gi) {
      minors += fmt::format("gpu{}/gi{}/access {}\n", gpu, gi, minor++);
      for (int ci = 0; ci < 8; ++ci)
        minors += fmt::format("gpu{}/gi{}/ci{}/access {}\n", gpu, gi, ci, minor++);
    }
  return minors;
}

TEST_F(DeviceNodesTest, RealSizeMigMinorsGiveExactlyTheConfiguredInstances) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n235 nvidia-caps\n\n");
  std::string minors = real_size_mig_minors();
  ASSERT_EQ(std::count(minors.begin(), minors.end(), '\n'), 4322);
  dir_.write("proc/driver/nvidia-caps/mig-minors", minors);
  // gpu<g>/gi<i> is minor 3 + 135 g + 9 i, its ci<c> one more than that plus c.
  auto gi_minor = [](unsigned g, unsigned i) { return 3 + 135 * g + 9 * i; };
  const std::string caps = "proc/driver/nvidia/capabilities";
  dir_.write(caps + "/mig/config", "DeviceFileMinor: 1\nDeviceFileMode: 256\n");
  dir_.write(fmt::format("{}/gpu0/mig/gi1/access", caps), "DeviceFileMinor: 12\n");
  dir_.write(fmt::format("{}/gpu0/mig/gi1/ci0/access", caps), "DeviceFileMinor: 13\n");
  dir_.write(fmt::format("{}/gpu0/mig/gi1/ci3/access", caps), "DeviceFileMinor: 16\n");
  dir_.write(fmt::format("{}/gpu1/mig/gi14/access", caps), "DeviceFileMinor: 264\n");
  // A GI and a CI directory without access files, and a GPU beyond the PCI count: none
  // gets a node.
  fs::create_directories(dir_ / (caps + "/gpu1/mig/gi3/ci2"));
  dir_.write(fmt::format("{}/gpu5/mig/gi0/access", caps), "DeviceFileMinor: 678\n");
  add_pci_gpus({"0000:17:00.0", "0000:2a:00.0"});
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  std::vector<std::string> want;
  for (unsigned m : {1u, gi_minor(0, 1), gi_minor(0, 1) + 1, gi_minor(0, 1) + 4, gi_minor(1, 14)})
    want.push_back(fmt::format("nvidia-cap{}", m));
  std::sort(want.begin(), want.end());
  EXPECT_EQ(cap_nodes(), want);
  EXPECT_EQ(st("dev/nvidia-caps/nvidia-cap1").st_mode & 07777, 0400u);
  EXPECT_EQ(st(fmt::format("dev/nvidia-caps/nvidia-cap{}", gi_minor(1, 14))).st_rdev,
            makedev(235, gi_minor(1, 14)));
}

// Once every capability node is in place, mig-minors (3.2 ms per read on an H200) is not read:
// a changed file has no effect. A node missing again brings the full pass back.
TEST_F(DeviceNodesTest, MigMinorsIsReadOnlyWhileACapabilityNodeIsMissing) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n235 nvidia-caps\n\n");
  dir_.write("proc/driver/nvidia-caps/mig-minors", real_size_mig_minors());
  const std::string caps = "proc/driver/nvidia/capabilities";
  dir_.write(caps + "/mig/config", "DeviceFileMinor: 1\nDeviceFileMode: 256\n");
  dir_.write(caps + "/mig/monitor", "DeviceFileMinor: 2\nDeviceFileMode: 292\n");
  dir_.write(caps + "/gpu0/mig/gi1/access", "DeviceFileMinor: 12\n");
  dir_.write(caps + "/gpu0/mig/gi1/ci0/access", "DeviceFileMinor: 13\n");
  fs::create_directories(dir_ / (caps + "/gpu1/mig"));  // MIG-capable, MIG off
  add_pci_gpus({"0000:17:00.0", "0000:2a:00.0"});
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  const std::vector<std::string> made = {"nvidia-cap1", "nvidia-cap12", "nvidia-cap13",
                                         "nvidia-cap2"};
  ASSERT_EQ(cap_nodes(), made);

  // The nodes are in place: a mig-minors that would now add a node (config moved to minor 7) is
  // not read.
  dir_.write("proc/driver/nvidia-caps/mig-minors", "config 7\nmonitor 2\ngpu0/gi1/access 12\n"
                                                   "gpu0/gi1/ci0/access 13\n");
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_EQ(cap_nodes(), made);

  // A node gone (or not a character device): the full pass runs and reads the file.
  fs::remove(dir_ / "dev/nvidia-caps/nvidia-cap13");
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_EQ(cap_nodes(), (std::vector<std::string>{"nvidia-cap1", "nvidia-cap12", "nvidia-cap13",
                                                   "nvidia-cap2", "nvidia-cap7"}));
  EXPECT_EQ(st("dev/nvidia-caps/nvidia-cap13").st_rdev, makedev(235, 13));
  fs::remove(dir_ / "dev/nvidia-caps/nvidia-cap7");
  fs::remove(dir_ / "dev/nvidia-caps/nvidia-cap12");
  dir_.write("dev/nvidia-caps/nvidia-cap12", "");  // a regular file in the way
  dir_.write("proc/driver/nvidia-caps/mig-minors", "config 7\n");
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_TRUE(fs::exists(dir_ / "dev/nvidia-caps/nvidia-cap7")) << "the full pass ran";
}

TEST_F(DeviceNodesTest, AnInvalidMigMinorsLineGivesNoCapabilityNodesAndTheOthersStill) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n235 nvidia-caps\n\n");
  // Valid, configured lines first: a file with any invalid line is not used at all.
  dir_.write("proc/driver/nvidia-caps/mig-minors",
             "config 1\ngpu0/gi1/access 12\ngpu0/gi1/bogus 13\n");
  dir_.write("proc/driver/nvidia/capabilities/mig/config", "DeviceFileMinor: 1\n");
  dir_.write("proc/driver/nvidia/capabilities/gpu0/mig/gi1/access", "DeviceFileMinor: 12\n");
  add_pci_gpus({"0000:17:00.0"});
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_EQ(st("dev/nvidia0").st_rdev, makedev(195, 0));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia-caps/nvidia-cap1"));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia-caps/nvidia-cap12"));
}

TEST_F(DeviceNodesTest, ProcfsMinorsNameTheGpuNodesWithoutSysfs) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n\n");
  dir_.write("proc/driver/nvidia/gpus/0000:17:00.0/information",
             "Model: x\nGPU UUID: GPU-a\nBus Location: 0000:17:00.0\nDevice Minor: 3\n");
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_EQ(st("dev/nvidia3").st_rdev, makedev(195, 3));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia0"));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia-uvm"));  // no nvidia-uvm major
}

// Seen on an H200 host (nvidia and nvidia_uvm loaded, nvidia_modeset not): the reference creates
// no /dev/nvidia-modeset, and neither may we.
TEST_F(DeviceNodesTest, ModesetOnlyWhenItsModuleIsLoaded) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n238 nvidia-uvm\n\n");
  dir_.write("proc/modules",
             "nvidia_uvm 1 0 - Live 0x0 (PO)\nnvidia_modeset_x 1 0 - Live 0x0\n"
             "nvidia 2 1 nvidia_uvm, Live 0x0 (PO)\n");
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_EQ(st("dev/nvidiactl").st_rdev, makedev(195, 255));
  EXPECT_EQ(st("dev/nvidia-uvm").st_rdev, makedev(238, 0));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidia-modeset"));
  EXPECT_FALSE(fs::exists(fs::symlink_status(dir_ / "dev/char/195:254")));
  dir_.write("proc/modules", "nvidia-modeset 1 0 - Live 0x0\n");  // '-' and '_' are one
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_EQ(st("dev/nvidia-modeset").st_rdev, makedev(195, 254));
}

// A host without the module: nothing at all, not even the /dev/char links (issue: the cli's -k
// made /dev/nvidiactl, /dev/nvidia-modeset and /dev/char/195:* on driverless hosts).
TEST_F(DeviceNodesTest, NoNvidiaMajorCreatesNothing) {
  dir_.write("proc/devices", "Character devices:\n  1 mem\n238 nvidia-uvm\n\n");
  dir_.write("proc/modules", "nvidia_modeset 1 0 - Live 0x0\n");
  dir_.write("proc/driver/nvidia/gpus/0000:17:00.0/information", "Device Minor: 0\n");
  add_pci_gpus({"0000:17:00.0", "0000:2a:00.0"});
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_FALSE(fs::exists(dir_ / "dev"));
}

TEST(KernelModuleLoaded, MatchesWholeNamesOnly) {
  nvct::testing::TempDir dir;
  dir.write("proc/modules", "nvidia_uvm 1 0 - Live 0x0\nnvidia_modeset_x 1 0 - Live 0x0\n");
  auto root = *DriverRoot::open(dir.path());
  EXPECT_TRUE(kernel_module_loaded(root, "nvidia-uvm"));
  EXPECT_TRUE(kernel_module_loaded(root, "nvidia_uvm"));
  EXPECT_FALSE(kernel_module_loaded(root, "nvidia"));
  EXPECT_FALSE(kernel_module_loaded(root, "nvidia-modeset"));
  nvct::testing::TempDir empty;
  EXPECT_FALSE(kernel_module_loaded(*DriverRoot::open(empty.path()), "nvidia"));
}

TEST_F(DeviceNodesTest, ModifyDeviceFilesZeroCreatesNothing) {
  dir_.write("proc/driver/nvidia/params", "ModifyDeviceFiles: 0\n");
  KmodOptions o;
  o.root = dir_.path();
  ASSERT_TRUE(load_kernel_modules(o));
  EXPECT_FALSE(fs::exists(dir_ / "dev/nvidiactl"));
}

TEST(UserNamespace, HostIsNotAUserNamespace) {
  EXPECT_FALSE(in_user_namespace()) << "tests run as root in the initial user namespace";
}

}  // namespace
}  // namespace nvct::driver
