#include "nvct/diagnose/proc_facts.hpp"

#include <gtest/gtest.h>

#include "mock_host.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {
namespace {

using testing::MockHost;

TEST(ProcFacts, VersionGpusAndMajors) {
  MockHost mock(3);
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  const ProcFacts& facts = host->proc();
  EXPECT_TRUE(facts.module_loaded);
  EXPECT_EQ(facts.driver_version, "550.54.14");
  ASSERT_EQ(facts.gpus.size(), 3u);
  EXPECT_EQ(facts.gpus[2].info.minor, 2u);
  EXPECT_EQ(facts.nvidia_major(), 195u);
  EXPECT_EQ(facts.major_of("nvidia-uvm"), 238u);
  EXPECT_FALSE(facts.major_of("nvidia-nvswitch").has_value());
}

TEST(ProcFacts, NoModule) {
  MockHost mock;
  mock.remove("/proc/driver");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  EXPECT_FALSE(host->proc().module_loaded);
  EXPECT_TRUE(host->proc().gpus.empty());
}

TEST(ProcFacts, UnparsableGpuInformationIsRecorded) {
  MockHost mock(1);
  mock.file("/proc/driver/nvidia/gpus/0000:01:00.0/information", "garbage\n");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  EXPECT_TRUE(host->proc().gpus.empty());
  ASSERT_EQ(host->proc().gpu_errors.size(), 1u);
}

}  // namespace
}  // namespace nvct::diagnose
