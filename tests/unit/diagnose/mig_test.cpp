// One test per finding id of the mig family (spec/doctor.md §3.8) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

constexpr const char* kCaps = "/proc/driver/nvidia/capabilities";

class MigCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"mig"};
  }
  // GPU 0 with MIG on and instance gi1/ci0 (capability minors 12 and 13), plus config/monitor.
  void mig_on_gpu0(bool nodes = true) {
    access(fmt::format("{}/mig/config", kCaps), 1);
    access(fmt::format("{}/mig/monitor", kCaps), 2);
    access(fmt::format("{}/gpu0/mig/gi1/access", kCaps), 12);
    access(fmt::format("{}/gpu0/mig/gi1/ci0/access", kCaps), 13);
    if (!nodes) return;
    for (unsigned m : {1u, 2u, 12u, 13u}) {
      host.node(fmt::format("/dev/nvidia-caps/nvidia-cap{}", m), 235, m, 0444, false);
    }
  }
  void access(const std::string& path, unsigned minor) {
    host.file(path, fmt::format("DeviceFileMinor: {}\nDeviceFileMode: 292\nDeviceFileModify: 1\n",
                                minor));
  }
};

TEST_F(MigCheck, OkWithMigOff) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* ok = find(r, "mig.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->title, "MIG off on all 2 GPUs");
  EXPECT_TRUE(evidence_has(*ok, "/dev/nvidia0: MIG off"));
}

TEST_F(MigCheck, OkWithMigOnAndItsCapabilityNodes) {
  mig_on_gpu0();
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* ok = find(r, "mig.ok");
  EXPECT_EQ(ok->title, "MIG on 1 of 2 GPUs");
  EXPECT_TRUE(evidence_has(*ok, "/dev/nvidia0: MIG on, 1 GPU instance"));
}

TEST_F(MigCheck, CapsMissing) {
  mig_on_gpu0(/*nodes=*/false);
  host.node("/dev/nvidia-caps/nvidia-cap1", 235, 1, 0444, false);
  host.node("/dev/nvidia-caps/nvidia-cap2", 235, 2, 0444, false);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"mig.caps-missing"});
  const Finding* f = find(r, "mig.caps-missing");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f,
                           "/dev/nvidia-caps/nvidia-cap12: absent "
                           "(/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access)"));
  EXPECT_TRUE(evidence_has(*f, "/dev/nvidia-caps/nvidia-cap13: absent"));
  EXPECT_NE(f->fix.find("nvidia-smi"), std::string::npos);
}

TEST_F(MigCheck, CapWithTheWrongNumber) {
  mig_on_gpu0(/*nodes=*/false);
  for (unsigned m : {1u, 2u, 12u}) {
    host.node(fmt::format("/dev/nvidia-caps/nvidia-cap{}", m), 235, m, 0444, false);
  }
  host.node("/dev/nvidia-caps/nvidia-cap13", 235, 14, 0444, false);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"mig.caps-missing"});
  EXPECT_TRUE(evidence_has(*find(r, "mig.caps-missing"),
                           "/dev/nvidia-caps/nvidia-cap13: not character device 235:13"));
}

// A MIG-capable GPU has an empty mig folder with MIG off too (an H200 with driver 580): without
// NVML, or with NVML saying MIG is off, there is nothing to report.
TEST_F(MigCheck, EmptyMigFolderWithoutNvmlIsNotAFinding) {
  host.file(fmt::format("{}/gpu1/mig/.keep", kCaps), "");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* ok = find(r, "mig.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(evidence_has(*ok, "/dev/nvidia1: MIG off or on without instances"));
}

TEST_F(MigCheck, EmptyMigFolderWithNvmlMigOffIsNotAFinding) {
  host.options().only = {"driver", "mig"};
  host.file(fmt::format("{}/gpu1/mig/.keep", kCaps), "");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_TRUE(evidence_has(*find(r, "mig.ok"), "/dev/nvidia1: MIG off (NVML)"));
}

TEST_F(MigCheck, NoInstances) {
  host.options().only = {"driver", "mig"};
  host.nvml_result->gpus[1].mig_enabled = true;
  host.file(fmt::format("{}/gpu1/mig/.keep", kCaps), "");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"mig.no-instances"});
  const Finding* f = find(r, "mig.no-instances");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(*f, "capabilities/gpu1/mig: no gi* entries"));
  EXPECT_NE(f->fix.find("nvidia-smi mig -cgi"), std::string::npos);
}

}  // namespace
}  // namespace nvct::diagnose
