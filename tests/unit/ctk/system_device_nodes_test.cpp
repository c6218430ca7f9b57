#include "nvct/ctk/system_device_nodes.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"
#include "system_fake_ops.hpp"

namespace nvct::ctk {
namespace {

using nvct::testing::MemorySink;
using nvct::testing::TempDir;

constexpr const char* kProcDevices =
    "Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n238 nvidia-uvm\n"
    "235 nvidia-caps\n234 nvidia-caps-imex-channels\n\nBlock devices:\n238 nvidia-uvm-decoy\n";

class SystemDeviceNodes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.write("proc/devices", kProcDevices);
    sink_ = std::make_shared<MemorySink>();
    log::set_sink(sink_);
  }
  void TearDown() override { log::set_sink(nullptr); }
  driver::DriverRoot root() {
    auto r = driver::DriverRoot::open(dir_.path());
    EXPECT_TRUE(r);
    return *r;
  }
  DeviceNodesOptions options() {
    DeviceNodesOptions o;
    o.root = dir_.path();
    return o;
  }

  TempDir dir_;
  FakeSystemOps ops_;
  std::shared_ptr<MemorySink> sink_;
};

TEST_F(SystemDeviceNodes, MajorsComeFromCharacterDevicesOnly) {
  auto m = nvidia_majors_from_text(kProcDevices);
  EXPECT_EQ(m.nvidia, 195u);
  EXPECT_EQ(m.uvm, 238u);
  EXPECT_EQ(m.caps, 235u);
  EXPECT_FALSE(nvidia_majors_from_text("Character devices:\n  1 mem\n\n").nvidia);
}

TEST_F(SystemDeviceNodes, NvidiaFrontendWinsOverNvidia) {
  auto m = nvidia_majors_from_text("Character devices:\n195 nvidia\n196 nvidia-frontend\n\n");
  EXPECT_EQ(m.nvidia, 196u);
}

TEST_F(SystemDeviceNodes, DriverRootProcDevicesIsPreferredOverTheHosts) {
  EXPECT_EQ(read_nvidia_majors(root()).uvm, 238u);
}

TEST_F(SystemDeviceNodes, ControlDevicesAreCtlModesetUvmAndUvmTools) {
  auto nodes = control_device_nodes(nvidia_majors_from_text(kProcDevices));
  EXPECT_EQ(nodes, (std::vector<NodeSpec>{{"/dev/nvidiactl", 195, 255},
                                          {"/dev/nvidia-modeset", 195, 254},
                                          {"/dev/nvidia-uvm", 238, 0},
                                          {"/dev/nvidia-uvm-tools", 238, 1}}));
}

TEST_F(SystemDeviceNodes, AllPossibleNodesAddGpusAndExistingMigCaps) {
  dir_.write("proc/driver/nvidia/gpus/0000:17:00.0/information",
             "Model: \t H100\nGPU UUID: \t GPU-a\nBus Location: \t 0000:17:00.0\n"
             "Device Minor: \t 3\n");
  dir_.write("proc/driver/nvidia-caps/mig-minors",
             "config 1\nmonitor 2\ngpu3/gi1/access 408\ngpu3/gi1/ci0/access 409\n");
  dir_.write("proc/driver/nvidia/capabilities/mig/config", "DeviceFileMinor: 1\n");
  dir_.write("proc/driver/nvidia/capabilities/gpu3/mig/gi1/access", "DeviceFileMinor: 408\n");
  auto nodes = all_possible_nodes(root(), nvidia_majors_from_text(kProcDevices));
  ASSERT_EQ(nodes.size(), 7u);
  EXPECT_EQ(nodes[4], (NodeSpec{"/dev/nvidia3", 195, 3}));
  EXPECT_EQ(nodes[5], (NodeSpec{"/dev/nvidia-caps/nvidia-cap1", 235, 1}));
  EXPECT_EQ(nodes[6], (NodeSpec{"/dev/nvidia-caps/nvidia-cap408", 235, 408}));
}

TEST_F(SystemDeviceNodes, ControlDevicesAreMknodedWithMode0666) {
  auto o = options();
  o.control_devices = true;
  auto st = create_device_nodes(o, ops_);
  ASSERT_TRUE(st) << st.error().message();
  EXPECT_EQ(ops_.mknods, (std::vector<std::string>{"/dev/nvidiactl 195:255 438",
                                                   "/dev/nvidia-modeset 195:254 438",
                                                   "/dev/nvidia-uvm 238:0 438",
                                                   "/dev/nvidia-uvm-tools 238:1 438"}));
  EXPECT_TRUE(ops_.modprobes.empty());
}

TEST_F(SystemDeviceNodes, DryRunCreatesNothingButSaysWhat) {
  auto o = options();
  o.control_devices = true;
  o.load_kernel_modules = true;
  o.dry_run = true;
  ASSERT_TRUE(create_device_nodes(o, ops_));
  EXPECT_TRUE(ops_.mknods.empty());
  EXPECT_TRUE(ops_.modprobes.empty());
  EXPECT_TRUE(sink_->contains("Creating control device node /dev/nvidiactl (195:255)"));
  EXPECT_TRUE(sink_->contains("Loading kernel module nvidia-uvm"));
}

TEST_F(SystemDeviceNodes, LoadKernelModulesRunsModprobeForTheThreeModulesInOrder) {
  auto o = options();
  o.load_kernel_modules = true;
  ASSERT_TRUE(create_device_nodes(o, ops_));
  EXPECT_EQ(ops_.modprobes, (std::vector<std::string>{"nvidia", "nvidia-uvm", "nvidia-modeset"}));
  EXPECT_TRUE(ops_.mknods.empty());
}

TEST_F(SystemDeviceNodes, ModuleLoadIsSkippedWithAWarningInAUserNamespace) {
  ops_.userns = true;
  auto o = options();
  o.load_kernel_modules = true;
  o.control_devices = true;
  ASSERT_TRUE(create_device_nodes(o, ops_));
  EXPECT_TRUE(ops_.modprobes.empty());
  EXPECT_TRUE(sink_->contains("Skipping kernel module load: running in a user namespace"));
  EXPECT_EQ(ops_.mknods.size(), 4u);
}

TEST_F(SystemDeviceNodes, ModuleLoadIsSkippedWithAWarningWithoutModprobe) {
  ops_.has_modprobe = false;
  auto o = options();
  o.load_kernel_modules = true;
  ASSERT_TRUE(create_device_nodes(o, ops_));
  EXPECT_TRUE(ops_.modprobes.empty());
  EXPECT_TRUE(sink_->contains("Skipping kernel module load: /sbin/modprobe not found in " +
                              dir_.path()));
}

TEST_F(SystemDeviceNodes, FailingModprobeIsAnError) {
  ops_.failing_module = "nvidia-uvm";
  auto o = options();
  o.load_kernel_modules = true;
  auto st = create_device_nodes(o, ops_);
  ASSERT_FALSE(st);
  EXPECT_EQ(st.error().message(),
            "load kernel modules: modprobe nvidia-uvm exited with status 1");
  EXPECT_EQ(ops_.modprobes, (std::vector<std::string>{"nvidia", "nvidia-uvm"}));
}

TEST_F(SystemDeviceNodes, NoNvidiaMajorIsAClearError) {
  dir_.write("proc/devices", "Character devices:\n  1 mem\n\n");
  auto o = options();
  o.control_devices = true;
  auto st = create_device_nodes(o, ops_);
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("the NVIDIA kernel module is not loaded"),
            std::string::npos);
  EXPECT_TRUE(ops_.mknods.empty());
}

TEST_F(SystemDeviceNodes, MissingUvmMajorCreatesOnlyNvidiaNodesWithAWarning) {
  dir_.write("proc/devices", "Character devices:\n195 nvidia\n\n");
  auto o = options();
  o.control_devices = true;
  ASSERT_TRUE(create_device_nodes(o, ops_));
  EXPECT_EQ(ops_.mknods.size(), 2u);
  EXPECT_TRUE(sink_->contains("nvidia-uvm is not in /proc/devices"));
}

TEST_F(SystemDeviceNodes, DevRootDefaultsToTheDriverRootAndCanBeSeparate) {
  TempDir dev;
  auto o = options();
  o.control_devices = true;
  o.dev_root = dev.path();
  ASSERT_TRUE(create_device_nodes(o, ops_));
  EXPECT_TRUE(sink_->contains("Creating control device node /dev/nvidiactl (195:255) in " +
                              dev.path()));
  o.dev_root = dir_ / "missing";
  EXPECT_FALSE(create_device_nodes(o, ops_));
}

}  // namespace
}  // namespace nvct::ctk
