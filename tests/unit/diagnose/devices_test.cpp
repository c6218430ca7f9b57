// One test per finding id of the devices family (spec/doctor.md §3.2) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class DevicesCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"devices"};
  }
};

TEST_F(DevicesCheck, OkOnAHealthyHost) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* ok = find(r, "devices.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->title, "5 NVIDIA device nodes present, /dev/char links in place");
}

TEST_F(DevicesCheck, NodeMissing) {
  host.remove("/dev/nvidia1");
  host.remove("/dev/char/195:1");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.node-missing"});
  const Finding* f = find(r, "devices.node-missing");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "/dev/nvidia1: absent"));
  EXPECT_NE(f->fix.find("nvidia-ctk system create-device-nodes --control-devices"),
            std::string::npos);
}

TEST_F(DevicesCheck, NodeWrongNumber) {
  host.remove("/dev/nvidiactl");
  host.remove("/dev/char/195:255");
  host.node("/dev/nvidiactl", 195, 254, 0666, false);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.node-wrong"});
  const Finding* f = find(r, "devices.node-wrong");
  EXPECT_TRUE(evidence_has(*f, "/dev/nvidiactl: character device 195:254, expected 195:255"));
  EXPECT_NE(f->fix.find("remove the file"), std::string::npos);
}

TEST_F(DevicesCheck, NodeWrongType) {
  host.remove("/dev/nvidia0");
  host.remove("/dev/char/195:0");
  host.file("/dev/nvidia0", "");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.node-wrong"});
  EXPECT_TRUE(evidence_has(*find(r, "devices.node-wrong"), "/dev/nvidia0: a regular file"));
}

TEST_F(DevicesCheck, UvmMissing) {
  host.file("/proc/devices", "Character devices:\n195 nvidia-frontend\n\nBlock devices:\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.uvm-missing"});
  const Finding* f = find(r, "devices.uvm-missing");
  EXPECT_TRUE(evidence_has(*f, "/proc/devices: no nvidia-uvm major"));
  EXPECT_EQ(f->fix, "modprobe nvidia-uvm");
}

TEST_F(DevicesCheck, DevCharMissingIsAWarningWithoutSystemd) {
  host.remove("/dev/char/195:255");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.dev-char-missing"});
  const Finding* f = find(r, "devices.dev-char-missing");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(*f, "/dev/char/195:255: absent"));
  EXPECT_NE(f->fix.find("nvidia-ctk system create-dev-char-symlinks --create-all"),
            std::string::npos);
}

TEST_F(DevicesCheck, DevCharMissingIsAnErrorWithDockerOnSystemd) {
  host.remove("/dev/char");
  host.file("/etc/docker/daemon.json", R"({"exec-opts": ["native.cgroupdriver=systemd"]})");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.dev-char-missing"});
  const Finding* f = find(r, "devices.dev-char-missing");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->title,
            "/dev/char links missing for 5 NVIDIA nodes; docker uses the systemd cgroup driver");
  EXPECT_TRUE(evidence_has(*f, "/etc/docker/daemon.json: exec-opts native.cgroupdriver=systemd"));
}

TEST_F(DevicesCheck, ModeNotAccessibleToTheConfiguredUser) {
  host.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-cli]\nuser = \"1000:1000\"\n");
  host.remove("/dev/nvidia0");
  host.remove("/dev/char/195:0");
  host.node("/dev/nvidia0", 195, 0, 0660);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.mode"});
  const Finding* f = find(r, "devices.mode");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(*f, "/dev/nvidia0: mode 0660"));
  EXPECT_TRUE(evidence_has(*f, "DeviceFileMode: 438"));
  EXPECT_NE(f->fix.find("NVreg_DeviceFileMode"), std::string::npos);
}

TEST_F(DevicesCheck, ModeNotCheckedForRoot) {
  host.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-cli]\nuser = \"root:video\"\n");
  host.remove("/dev/nvidia0");
  host.remove("/dev/char/195:0");
  host.node("/dev/nvidia0", 195, 0, 0660);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
}

TEST_F(DevicesCheck, NoModuleMeansNothingToCheck) {
  host.remove("/proc/driver");
  host.file("/proc/devices", "Character devices:\n  1 mem\n\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_NE(find(r, "devices.ok")->title.find("not checked"), std::string::npos);
}

}  // namespace
}  // namespace nvct::diagnose
