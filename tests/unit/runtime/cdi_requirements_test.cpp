#include "nvct/runtime/cdi_requirements.hpp"

#include <gtest/gtest.h>

namespace nvct::runtime {
namespace {

driver::NvmlFacts two_gpus() {
  driver::NvmlFacts n;
  n.driver_version = "550.54.14";
  n.cuda_version = "12.4";
  driver::NvmlGpu h100;
  h100.uuid = "GPU-aaa";
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.brand = 14;  // Nvidia
  h100.cc_major = 9;
  h100.migs.push_back({0, "MIG-bbb", 1, 0});
  driver::NvmlGpu a100;
  a100.uuid = "GPU-ccc";
  a100.name = "NVIDIA A100-SXM4-80GB";
  a100.brand = 2;  // Tesla
  a100.cc_major = 8;
  n.gpus = {h100, a100};
  return n;
}

TEST(CdiRequirements, FactsOfTheNamedGpus) {
  auto f = cdi_requirement_facts(two_gpus(), false, {"nvidia.com/gpu=1"});
  EXPECT_EQ(f.driver_version, "550.54.14");
  EXPECT_EQ(f.cuda_version, "12.4");
  ASSERT_EQ(f.devices.size(), 1u);
  EXPECT_EQ(f.devices[0].arch, "8.0");
  EXPECT_EQ(f.devices[0].brand, "Tesla");
  EXPECT_EQ(f.devices[0].model, "NVIDIA A100-SXM4-80GB");
}

TEST(CdiRequirements, AllUuidsAndMigSelectEachGpuOnce) {
  EXPECT_EQ(cdi_requirement_facts(two_gpus(), false, {"all"}).devices.size(), 2u);
  auto f = cdi_requirement_facts(two_gpus(), false, {"GPU-aaa", "MIG-bbb", "0:0"});
  ASSERT_EQ(f.devices.size(), 1u);
  EXPECT_EQ(f.devices[0].arch, "9.0");
  // Names of other vendors and unknown ids select nothing: arch and brand are then satisfied.
  EXPECT_TRUE(cdi_requirement_facts(two_gpus(), false, {"vendor.com/x=foo", "7"}).devices.empty());
}

TEST(CdiRequirements, ProcfsFallbackHasNoCudaVersion) {
  auto f = cdi_requirement_facts(two_gpus(), true, {"0"});
  EXPECT_FALSE(f.cuda_version);
  EXPECT_EQ(f.driver_version, "550.54.14");
}

}  // namespace
}  // namespace nvct::runtime
