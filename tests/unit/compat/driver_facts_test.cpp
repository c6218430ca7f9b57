#include "nvct/compat/driver_facts.hpp"

#include <gtest/gtest.h>

namespace nvct::compat {
namespace {

TEST(DriverFacts, GpuArchForms) {
  EXPECT_EQ(*parse_gpu_arch("sm_80"), "8.0");
  EXPECT_EQ(*parse_gpu_arch("compute_86"), "8.6");
  EXPECT_EQ(*parse_gpu_arch("8.9"), "8.9");
  EXPECT_EQ(*parse_gpu_arch("sm_90a"), "9.0");
  EXPECT_EQ(*parse_gpu_arch("sm_100"), "10.0");
  EXPECT_EQ(*parse_gpu_arch("SM_120"), "12.0");
  auto bad = parse_gpu_arch("volta");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("--gpu-arch volta"), std::string::npos);
  EXPECT_FALSE(parse_gpu_arch("sm_8"));
  EXPECT_FALSE(parse_gpu_arch("sm_8x"));
}

TEST(DriverFacts, FromNvml) {
  driver::NvmlFacts nvml;
  nvml.driver_version = "550.54.14";
  nvml.cuda_version = "12.4";
  driver::NvmlGpu g;
  g.uuid = "GPU-1";
  g.name = "NVIDIA H100 80GB HBM3";
  g.brand = 0;
  g.cc_major = 9;
  g.cc_minor = 0;
  nvml.gpus.push_back(g);
  auto f = facts_from_nvml(nvml, false, "/mock");
  EXPECT_EQ(f.source, "driver-root");
  EXPECT_EQ(f.root, "/mock");
  EXPECT_EQ(f.version, "550.54.14");
  EXPECT_EQ(f.cuda_version, "12.4");
  EXPECT_FALSE(f.cuda_version_derived);
  ASSERT_EQ(f.gpus.size(), 1u);
  EXPECT_EQ(f.gpus[0].arch, "9.0");
  EXPECT_EQ(f.gpus[0].label(), "GPU 0");
  EXPECT_EQ(f.gpus[0].forward_compat, Support::yes);
}

TEST(DriverFacts, ProcfsFallbackDerivesTheCudaVersion) {
  driver::NvmlFacts nvml;
  nvml.driver_version = "535.104.05";
  auto f = facts_from_nvml(nvml, true, "/");
  EXPECT_EQ(f.cuda_version, "12.2");
  EXPECT_TRUE(f.cuda_version_derived);
}

TEST(DriverFacts, FlagGpuLabel) {
  GpuFacts g;
  g.arch = "8.6";
  EXPECT_EQ(g.label(), "sm_86");
}

}  // namespace
}  // namespace nvct::compat
