// One test per finding id of the cdi family (spec/doctor.md §3.6) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::MockHost;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class CdiCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"cdi"};
  }
};

TEST_F(CdiCheck, OkWithAValidSpec) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* ok = find(r, "cdi.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->title, "1 NVIDIA CDI spec");
  EXPECT_TRUE(evidence_has(*ok, "/etc/cdi/nvidia.yaml: nvidia.com/gpu, 1 devices"));
  EXPECT_EQ(find(r, "cdi.refresh-disabled"), nullptr);
}

TEST_F(CdiCheck, NoneIsInfoByDefault) {
  host.remove("/etc/cdi");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* f = find(r, "cdi.none");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_TRUE(evidence_has(*f, "/etc/cdi, /var/run/cdi: no nvidia.com spec"));
  EXPECT_EQ(f->fix, "nvidia-ctk cdi generate --output=/etc/cdi/nvidia.yaml");
  EXPECT_EQ(find(r, "cdi.ok")->title, "CDI specs checked: none for NVIDIA");
}

TEST_F(CdiCheck, NoneIsAnErrorInCdiMode) {
  host.remove("/etc/cdi");
  host.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-runtime]\nmode = \"cdi\"\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cdi.none"});
  EXPECT_TRUE(evidence_has(*find(r, "cdi.none"), "mode = \"cdi\""));
}

TEST_F(CdiCheck, NoneIsAnErrorWithPodmanWithoutTheHook) {
  host.remove("/etc/cdi");
  host.file("/usr/bin/podman", "", 0755);
  EXPECT_EQ(problem_ids(run()), Ids{"cdi.none"});
  host.file("/usr/share/containers/oci/hooks.d/oci-nvidia-hook.json",
            R"({"hook": {"path": "/usr/bin/nvidia-container-runtime-hook"}})");
  EXPECT_EQ(problem_ids(run()), Ids{});
}

TEST_F(CdiCheck, SpecDirFlagReplacesTheConfiguredOnes) {
  host.options().cdi_spec_dirs = {"/opt/cdi"};
  auto r = run();
  EXPECT_NE(find(r, "cdi.none"), nullptr);
}

TEST_F(CdiCheck, Invalid) {
  host.file("/etc/cdi/broken.json", "{\"cdiVersion\": ");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cdi.invalid"});
  const Finding* f = find(r, "cdi.invalid");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "/etc/cdi/broken.json: "));
  EXPECT_NE(f->fix.find("nvidia-ctk cdi generate"), std::string::npos);
}

TEST_F(CdiCheck, SymlinkLoopIsInvalidNotACrash) {
  host.symlink("loop.yaml", "/etc/cdi/loop.yaml");
  EXPECT_EQ(problem_ids(run()), Ids{"cdi.invalid"});
}

TEST_F(CdiCheck, StaleAfterADriverUpgrade) {
  host.file("/etc/cdi/nvidia.yaml", MockHost::cdi_spec("535.00.01"));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cdi.stale"});
  const Finding* f = find(r, "cdi.stale");
  EXPECT_TRUE(evidence_has(*f, "libcuda.so.535.00.01 names driver 535.00.01, loaded 550.54.14"));
  EXPECT_NE(f->fix.find("nvidia-cdi-refresh.path"), std::string::npos);
}

TEST_F(CdiCheck, StaleWhenAHostPathIsMissing) {
  host.remove("/dev/nvidia0");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cdi.stale"});
  EXPECT_TRUE(evidence_has(*find(r, "cdi.stale"), "/etc/cdi/nvidia.yaml: /dev/nvidia0: absent"));
}

TEST_F(CdiCheck, DuplicateDevice) {
  host.file("/var/run/cdi/nvidia-old.yaml", MockHost::cdi_spec());
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cdi.duplicate-device"});
  EXPECT_TRUE(
      evidence_has(*find(r, "cdi.duplicate-device"),
                   "nvidia.com/gpu=0: in /etc/cdi/nvidia.yaml and /var/run/cdi/nvidia-old.yaml"));
}

TEST_F(CdiCheck, MigStale) {
  host.file("/etc/cdi/nvidia.yaml",
            MockHost::cdi_spec("550.54.14",
                               "- name: \"0:0\"\n  containerEdits:\n    deviceNodes:\n"
                               "    - path: /dev/nvidia0\n"));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cdi.mig-stale"});
  const Finding* f = find(r, "cdi.mig-stale");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(*f, "GPU 0: 1 MIG devices in the spec, 0 now"));
}

TEST_F(CdiCheck, MigDevicesThatMatch) {
  host.file("/etc/cdi/nvidia.yaml",
            MockHost::cdi_spec("550.54.14",
                               "- name: \"0:0\"\n  containerEdits:\n    deviceNodes:\n"
                               "    - path: /dev/nvidia0\n"));
  host.file("/proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access", "DeviceFileMinor: 13\n");
  EXPECT_EQ(problem_ids(run()), Ids{});
}

TEST_F(CdiCheck, RefreshDisabled) {
  host.remove("/etc/systemd");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* f = find(r, "cdi.refresh-disabled");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(f->fix, "systemctl enable --now nvidia-cdi-refresh.path");
}

}  // namespace
}  // namespace nvct::diagnose
