// One test per finding id of the driver family (spec/doctor.md §3.1) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

class DriverCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"driver"};
  }
};

TEST_F(DriverCheck, OkOnAHealthyHost) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* ok = find(r, "driver.ok");
  ASSERT_NE(ok, nullptr);
  EXPECT_EQ(ok->title, "NVIDIA driver 550.54.14 loaded, 2 GPUs, NVML loads");
  ASSERT_EQ(host.nvml_calls.size(), 1u);
  EXPECT_EQ(host.nvml_calls[0], "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1");
}

TEST_F(DriverCheck, CudaVersionFromNvml) {
  auto r = run();
  const Finding* f = find(r, "driver.cuda-version");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(f->title, "driver 550.54.14 supports CUDA <= 12.4");
}

TEST_F(DriverCheck, ModuleNotLoaded) {
  host.remove("/proc/driver/nvidia");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"driver.module-not-loaded"});
  const Finding* f = find(r, "driver.module-not-loaded");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "/proc/driver/nvidia/version: absent"));
  EXPECT_NE(f->fix.find("modprobe nvidia"), std::string::npos);
  EXPECT_TRUE(host.nvml_calls.empty());
  EXPECT_EQ(find(r, "driver.cuda-version"), nullptr);
}

TEST_F(DriverCheck, NvmlNotFound) {
  host.drop_cache_entry("libnvidia-ml.so.1");
  host.remove("/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.14");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"driver.nvml-not-found"});
  const Finding* f = find(r, "driver.nvml-not-found");
  EXPECT_TRUE(evidence_has(*f, "no libnvidia-ml.so.1 entry"));
  EXPECT_TRUE(
      evidence_has(*f, "load library failed: libnvidia-ml.so.1: cannot open shared object file"));
  EXPECT_NE(f->fix.find("nvidia-container-cli.root"), std::string::npos);
  EXPECT_TRUE(host.nvml_calls.empty());
}

TEST_F(DriverCheck, LibcudaMissing) {
  host.drop_cache_entry("libcuda.so.1");
  host.remove("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"driver.libcuda-missing"});
  const Finding* f = find(r, "driver.libcuda-missing");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "/etc/ld.so.cache: no libcuda.so.1 entry"));
  EXPECT_NE(f->fix.find("ldconfig"), std::string::npos);
}

TEST_F(DriverCheck, VersionMismatchFromLibraryNames) {
  host.library("libcuda.so", "535.00.01");
  host.write_cache();
  host.remove("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"driver.version-mismatch"});
  const Finding* f = find(r, "driver.version-mismatch");
  EXPECT_TRUE(evidence_has(*f, "libcuda.so.1 -> /usr/lib/x86_64-linux-gnu/libcuda.so.535.00.01"));
  EXPECT_TRUE(evidence_has(*f, "kernel module 550.54.14"));
  EXPECT_NE(f->fix.find("reboot"), std::string::npos);
}

TEST_F(DriverCheck, VersionMismatchFromNvml) {
  host.nvml_result = fail("nvml error: Driver/library version mismatch");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"driver.version-mismatch"});
  EXPECT_TRUE(evidence_has(*find(r, "driver.version-mismatch"), "Driver/library version mismatch"));
}

TEST_F(DriverCheck, LdcacheStale) {
  host.library("libnvidia-ptxjitcompiler.so", "550.54.14", /*cached=*/false);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"driver.ldcache-stale"});
  const Finding* f = find(r, "driver.ldcache-stale");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_TRUE(evidence_has(
      *f,
      "/usr/lib/x86_64-linux-gnu/libnvidia-ptxjitcompiler.so.550.54.14: not in /etc/ld.so.cache"));
  EXPECT_EQ(f->fix, "ldconfig");
}

TEST_F(DriverCheck, NvmlInitFailed) {
  host.nvml_result = fail("nvml error: Unknown Error");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"driver.nvml-init-failed"});
  EXPECT_TRUE(evidence_has(*find(r, "driver.nvml-init-failed"), "Unknown Error"));
}

TEST_F(DriverCheck, NoNvmlChildWhenAGpuNodeIsMissing) {
  host.remove("/dev/nvidia1");
  auto r = run();
  EXPECT_TRUE(host.nvml_calls.empty());
  const Finding* f = find(r, "driver.cuda-version");
  ASSERT_NE(f, nullptr);
  EXPECT_TRUE(evidence_has(*f, "/dev/nvidia1 absent"));
  EXPECT_NE(find(r, "driver.ok")->title.find("2 GPUs"), std::string::npos);
}

TEST_F(DriverCheck, NoNvmlFlag) {
  host.options().no_nvml = true;
  auto r = run();
  EXPECT_TRUE(host.nvml_calls.empty());
  EXPECT_EQ(problem_ids(r), Ids{});
  EXPECT_NE(find(r, "driver.ok")->title.find("--no-nvml"), std::string::npos);
}

}  // namespace
}  // namespace nvct::diagnose
