#include "nvct/diagnose/doctor.hpp"

#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::MockHost;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class Doctor : public testing::ReadOnlyTest {};

TEST_F(Doctor, HealthyHostReportsNoErrors) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_EQ(exit_code(r, Severity::kError), 0);
  EXPECT_EQ(exit_code(r, Severity::kWarn), 0);
}

TEST_F(Doctor, FamiliesInSpecOrderEachEndingWithOk) {
  auto r = run();
  std::vector<std::string> ids;
  for (const auto& f : r.findings) ids.push_back(f.id);
  EXPECT_EQ(ids, (Ids{"driver.cuda-version", "driver.ok", "devices.ok", "config.mode", "config.ok",
                      "engines.ok", "binaries.ok", "cdi.ok", "cgroups.version", "cgroups.ok", "ipc.ok", "mig.ok",
                      "imex.ok"}));
}

TEST_F(Doctor, OnlyAndSkip) {
  host.options().only = {"devices", "config"};
  host.options().skip = {"config"};
  auto r = run();
  for (const auto& f : r.findings) EXPECT_EQ(f.family(), "devices");
}

TEST_F(Doctor, UnknownFamilyIsAnError) {
  host.options().only = {"gpus"};
  auto r = run_doctor(host.options());
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("--only gpus: unknown check family; valid families: driver"),
            std::string::npos);
}

TEST_F(Doctor, RootMustBeADirectory) {
  host.options().root = host.host_path("/etc/docker/daemon.json");
  EXPECT_FALSE(run_doctor(host.options()).has_value());
}

TEST_F(Doctor, ExitCodeFollowsFailOn) {
  host.remove("/dev/char/195:255");  // a warning
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"devices.dev-char-missing"});
  EXPECT_EQ(exit_code(r, Severity::kError), 0);
  EXPECT_EQ(exit_code(r, Severity::kWarn), 1);
  host.remove("/dev/nvidia0");  // an error
  EXPECT_EQ(exit_code(run(), Severity::kError), 1);
}

TEST_F(Doctor, HostPathsInTheReport) {
  auto r = run();
  EXPECT_EQ(r.root, host.path());
  EXPECT_EQ(r.driver_root, "/");
  EXPECT_EQ(r.config, "/etc/nvidia-container-runtime/config.toml");
  EXPECT_EQ(r.docker_config, "/etc/docker/daemon.json");
  EXPECT_EQ(r.cdi_spec_dirs, (Ids{"/etc/cdi", "/var/run/cdi"}));
}

TEST(DoctorSummary, CountsBySeverity) {
  std::vector<Finding> f{{"a.x", Severity::kError, "", {}, ""},
                         {"a.y", Severity::kInfo, "", {}, ""},
                         {"a.ok", Severity::kOk, "", {}, ""}};
  Summary s = summarize(f);
  EXPECT_EQ(s.error, 1);
  EXPECT_EQ(s.warn, 0);
  EXPECT_EQ(s.info, 1);
  EXPECT_EQ(s.ok, 1);
}

}  // namespace
}  // namespace nvct::diagnose
