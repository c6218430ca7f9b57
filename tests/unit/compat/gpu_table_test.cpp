#include "nvct/compat/gpu_table.hpp"

#include <gtest/gtest.h>

namespace nvct::compat {
namespace {

TEST(GpuTable, TeslaBrandSupportsForwardCompat) {
  EXPECT_EQ(forward_compat_support("Tesla", "anything"), Support::yes);
}

TEST(GpuTable, ConsumerPartsNever) {
  EXPECT_EQ(forward_compat_support("GeForce", "NVIDIA GeForce RTX 3090"), Support::no);
  EXPECT_EQ(forward_compat_support("Nvidia", "NVIDIA GeForce RTX 4090"), Support::no);
  EXPECT_EQ(forward_compat_support("Titan", "NVIDIA TITAN RTX"), Support::no);
  EXPECT_EQ(forward_compat_support("GeForceRTX", "NVIDIA RTX 5090"), Support::no);
}

TEST(GpuTable, DataCenterModelsReportingBrandNvidia) {
  EXPECT_EQ(forward_compat_support("Nvidia", "NVIDIA H100 80GB HBM3"), Support::yes);
  EXPECT_EQ(forward_compat_support("Nvidia", "NVIDIA A100-SXM4-80GB"), Support::yes);
  EXPECT_EQ(forward_compat_support("Nvidia", "NVIDIA L40S"), Support::yes);
  EXPECT_EQ(forward_compat_support("", "Tesla V100-SXM2-16GB"), Support::yes);
}

TEST(GpuTable, AnythingElseIsUnknownNeverYes) {
  EXPECT_EQ(forward_compat_support("Nvidia", "NVIDIA RTX A6000"), Support::unknown);
  EXPECT_EQ(forward_compat_support("Quadro", "Quadro RTX 8000"), Support::unknown);
  EXPECT_EQ(forward_compat_support("", ""), Support::unknown);
  // "A100" inside another word is not a match.
  EXPECT_EQ(forward_compat_support("", "XA1000"), Support::unknown);
}

TEST(GpuTable, Families) {
  EXPECT_EQ(family_of("9.0"), "Hopper");
  EXPECT_EQ(family_of("sm_86"), "Ampere");
  EXPECT_EQ(family_of("sm_90a"), "Hopper");
  EXPECT_EQ(family_of("compute_70"), "Volta");
  EXPECT_EQ(family_of("sm_100"), "Blackwell");
  EXPECT_EQ(family_of("4.2"), "");
  EXPECT_EQ(to_string(Support::unknown), "unknown");
}

}  // namespace
}  // namespace nvct::compat
