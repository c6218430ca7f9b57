// One test per finding id of the binaries family (spec/doctor.md §3.5) on a mock host tree whose
// toolkit programs carry nvct's version note (mock_host.hpp).
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::kToolkitVersion;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class BinariesCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"binaries"};
  }
};

TEST_F(BinariesCheck, OneReleaseInstalled) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* ok = find(r, "binaries.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->title, fmt::format("5 toolkit programs installed, nvct {}", kToolkitVersion));
  EXPECT_TRUE(evidence_has(*ok, fmt::format("/usr/bin/nvidia-ctk: nvct {}", kToolkitVersion)));
}

TEST_F(BinariesCheck, Missing) {
  host.remove("/usr/bin/nvidia-ctk");
  host.remove("/usr/bin/nvidia-cdi-hook");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"binaries.missing"});
  const Finding* f = find(r, "binaries.missing");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_EQ(f->title, "2 of the toolkit's 5 programs missing");
  EXPECT_TRUE(evidence_has(*f, "nvidia-ctk: not found in /usr/local/sbin:/usr/local/bin:"));
  EXPECT_TRUE(evidence_has(*f, "nvidia-cdi-hook: not found"));
}

TEST_F(BinariesCheck, FoundInAnotherPathDirectory) {
  host.remove("/usr/bin/nvidia-ctk");
  host.file("/usr/local/bin/nvidia-ctk", nvct::testing::nvct_program(kToolkitVersion), 0755);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_TRUE(evidence_has(*find(r, "binaries.ok"), "/usr/local/bin/nvidia-ctk: nvct"));
}

TEST_F(BinariesCheck, VersionSkewBetweenNvctPrograms) {
  host.file("/usr/bin/nvidia-container-cli", nvct::testing::nvct_program("1.19.0+nvct0.0.9"),
            0755);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"binaries.version-skew"});
  const Finding* f = find(r, "binaries.version-skew");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_EQ(f->title, fmt::format("nvct programs of 2 versions: 1.19.0+nvct0.0.9, {}",
                                  kToolkitVersion));
  EXPECT_TRUE(evidence_has(*f, "/usr/bin/nvidia-container-cli: nvct 1.19.0+nvct0.0.9"));
}

TEST_F(BinariesCheck, VersionSkewWithAForeignProgram) {
  // NVIDIA's CLI (no nvct note) beside nvct's toolkit; and a wrapper script as the hook.
  host.file("/usr/bin/nvidia-container-cli",
            nvct::testing::elf_with_note("GNU", 3, "build-id"), 0755);
  host.file("/usr/bin/nvidia-container-runtime-hook", "#!/bin/sh\nexec true\n", 0755);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"binaries.version-skew"});
  const Finding* f = find(r, "binaries.version-skew");
  EXPECT_EQ(f->title, fmt::format("nvct {} mixed with 2 foreign programs", kToolkitVersion));
  EXPECT_TRUE(
      evidence_has(*f, "/usr/bin/nvidia-container-cli: foreign (no nvct version note)"));
  EXPECT_TRUE(
      evidence_has(*f, "/usr/bin/nvidia-container-runtime-hook: foreign (not an ELF file)"));
}

TEST_F(BinariesCheck, TheShimsHelperCounts) {
  host.file("/usr/bin/nvidia-container-runtime-nvml", nvct::testing::nvct_program("0.9"), 0755);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"binaries.version-skew"});
  EXPECT_TRUE(evidence_has(*find(r, "binaries.version-skew"),
                           "/usr/bin/nvidia-container-runtime-nvml: nvct 0.9"));
}

TEST_F(BinariesCheck, PathMismatchInTheConfig) {
  host.file("/opt/old/bin/nvidia-container-runtime-hook", "", 0755);
  host.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-runtime-hook]\npath = \"/opt/old/bin/nvidia-container-runtime-hook\"\n");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"binaries.path-mismatch"});
  const Finding* f = find(r, "binaries.path-mismatch");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(
      *f, "/etc/nvidia-container-runtime/config.toml: nvidia-container-runtime-hook.path = "
          "/opt/old/bin/nvidia-container-runtime-hook; PATH finds "
          "/usr/bin/nvidia-container-runtime-hook"));
}

TEST_F(BinariesCheck, PathMismatchInAnEngine) {
  host.file("/etc/docker/daemon.json",
            R"({"runtimes": {"nvidia": {"path": "/usr/local/nvidia/toolkit/nvidia-container-runtime"}}})");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"binaries.path-mismatch"});
  EXPECT_TRUE(evidence_has(*find(r, "binaries.path-mismatch"),
                           "docker runtime nvidia = "
                           "/usr/local/nvidia/toolkit/nvidia-container-runtime; PATH finds "
                           "/usr/bin/nvidia-container-runtime"));
}

TEST_F(BinariesCheck, DanglingLink) {
  host.remove("/usr/bin/nvidia-container-toolkit");
  host.symlink("/usr/lib/nvct/nvidia-container-runtime-hook", "/usr/bin/nvidia-container-toolkit");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"binaries.dangling-link"});
  const Finding* f = find(r, "binaries.dangling-link");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "/usr/bin/nvidia-container-toolkit: dangling link"));
}

}  // namespace
}  // namespace nvct::diagnose
