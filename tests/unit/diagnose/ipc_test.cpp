// One test per finding id of the ipc family (spec/doctor.md §3.8) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class IpcCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"ipc"};
  }
  void nvswitch() {
    host.file("/proc/devices",
              "Character devices:\n195 nvidia-frontend\n237 nvidia-nvswitch\n238 nvidia-uvm\n\n");
    host.file("/proc/driver/nvidia-nvswitch/devices/0000:05:00.0/information", "");
  }
};

TEST_F(IpcCheck, OkOnAHealthyHost) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(find(r, "ipc.ok")->title, "daemon sockets checked (no NVSwitch)");
}

TEST_F(IpcCheck, PersistencedMissingOnADatacenterGpuIsAWarning) {
  host.remove("/run/nvidia-persistenced");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"ipc.persistenced-missing"});
  const Finding* f = find(r, "ipc.persistenced-missing");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(*f, "/run/nvidia-persistenced/socket: absent"));
  EXPECT_TRUE(evidence_has(*f, "NVIDIA H100"));
  EXPECT_EQ(f->fix, "systemctl enable --now nvidia-persistenced");
}

TEST_F(IpcCheck, PersistencedMissingOnAGeForceIsInfo) {
  host.remove("/run/nvidia-persistenced");
  for (auto bus : {"0000:01:00.0", "0000:02:00.0"}) {
    std::string path = fmt::format("/proc/driver/nvidia/gpus/{}/information", bus);
    host.file(path, fmt::format("Model: \t\t NVIDIA GeForce RTX 4090\nGPU UUID: \t GPU-{}\n"
                                "Bus Location: \t {}\nDevice Minor: \t {}\n",
                                bus, bus, bus[6] == '1' ? 0 : 1));
  }
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(find(r, "ipc.persistenced-missing")->severity, Severity::kInfo);
}

TEST_F(IpcCheck, PersistencedUnderVarRun) {
  host.remove("/run/nvidia-persistenced");
  host.file("/var/run/nvidia-persistenced/socket", "");
  EXPECT_EQ(problem_ids(run()), Ids{});
}

TEST_F(IpcCheck, FabricManagerMissingOnNvswitch) {
  nvswitch();
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"ipc.fabricmanager-missing"});
  const Finding* f = find(r, "ipc.fabricmanager-missing");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "/proc/driver/nvidia-nvswitch/devices/0000:05:00.0: present"));
  EXPECT_EQ(f->fix, "systemctl enable --now nvidia-fabricmanager");
}

// The driver registers the nvidia-nvswitch major without any switch (an H200 VM, driver 580).
TEST_F(IpcCheck, NvswitchMajorWithoutSwitchesIsNotAnNvswitchSystem) {
  host.file("/proc/devices",
            "Character devices:\n195 nvidia-frontend\n237 nvidia-nvswitch\n238 nvidia-uvm\n\n");
  host.file("/proc/driver/nvidia-nvswitch/devices/.keep", "");
  host.remove("/proc/driver/nvidia-nvswitch/devices/.keep");
  EXPECT_EQ(problem_ids(run()), Ids{});
}

TEST_F(IpcCheck, FabricManagerRunning) {
  nvswitch();
  host.file("/run/nvidia-fabricmanager/socket", "");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(find(r, "ipc.ok")->title, "daemon sockets checked (NVSwitch system)");
}

}  // namespace
}  // namespace nvct::diagnose
