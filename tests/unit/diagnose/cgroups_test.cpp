// One test per finding id of the cgroups family (spec/doctor.md §3.7) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class CgroupsCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"cgroups"};
  }
};

TEST_F(CgroupsCheck, OkAndVersionOnAHealthyHost) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  ASSERT_NE(find(r, "cgroups.version"), nullptr);
  EXPECT_EQ(find(r, "cgroups.version")->title, "cgroup v2");
  EXPECT_EQ(find(r, "cgroups.version")->severity, Severity::kInfo);
  EXPECT_EQ(find(r, "cgroups.ok")->title, "cgroup v2, no-cgroups = false");
}

TEST_F(CgroupsCheck, VersionV1AndHybrid) {
  const std::string v1 =
      "30 25 0:26 / /sys/fs/cgroup/devices rw shared:9 - cgroup cgroup rw,devices\n";
  host.file("/proc/self/mountinfo", v1);
  EXPECT_EQ(find(run(), "cgroups.version")->title, "cgroup v1");
  host.file("/proc/self/mountinfo",
            v1 + "31 25 0:27 / /sys/fs/cgroup/unified rw shared:10 - cgroup2 cgroup2 rw\n");
  EXPECT_EQ(find(run(), "cgroups.version")->title, "cgroup hybrid");
}

TEST_F(CgroupsCheck, VersionFromCgroupControllers) {
  host.remove("/proc/self/mountinfo");
  host.file("/sys/fs/cgroup/cgroup.controllers", "cpu memory\n");
  auto r = run();
  EXPECT_EQ(find(r, "cgroups.version")->title, "cgroup v2");
  EXPECT_TRUE(evidence_has(*find(r, "cgroups.version"), "cgroup.controllers"));
}

TEST_F(CgroupsCheck, RootlessNeedsNoCgroups) {
  host.file("/run/user/1000/docker.sock", "");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cgroups.rootless-needs-no-cgroups"});
  const Finding* f = find(r, "cgroups.rootless-needs-no-cgroups");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(*f, "/run/user/1000/docker.sock: rootless Docker"));
  EXPECT_NE(f->fix.find("no-cgroups=true"), std::string::npos);
}

TEST_F(CgroupsCheck, NoCgroupsWithARootfulEngine) {
  host.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-cli]\nno-cgroups = true\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"cgroups.no-cgroups-rootful"});
  const Finding* f = find(r, "cgroups.no-cgroups-rootful");
  EXPECT_TRUE(evidence_has(*f, "/etc/docker/daemon.json: docker config"));
  EXPECT_NE(f->fix.find("no-cgroups=false"), std::string::npos);
}

TEST_F(CgroupsCheck, NoCgroupsOnARootlessOnlyHostIsFine) {
  host.remove("/etc/docker");
  host.file("/home/alice/.config/containers/containers.conf", "");
  host.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-cli]\nno-cgroups = true\n");
  EXPECT_EQ(problem_ids(run()), Ids{});
}

}  // namespace
}  // namespace nvct::diagnose
