#include "nvct/driver/nvml.hpp"

#include <gtest/gtest.h>

#include "fake_nvml.hpp"

namespace nvct::driver {
namespace {

using testing::FakeNvml;
using testing::mig_topology;

TEST(Nvml, QueriesVersionsGpusAndMigDevices) {
  FakeNvml api = mig_topology();
  auto f = query_nvml(api);
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->driver_version, "550.54.14");
  EXPECT_EQ(f->cuda_version, "12.4");
  ASSERT_EQ(f->gpus.size(), 2u);
  const NvmlGpu& g0 = f->gpus[0];
  EXPECT_EQ(g0.bus_id, "00000000:17:00.0");
  EXPECT_EQ(g0.name, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(g0.brand, 14);
  EXPECT_EQ(g0.cc_major, 9);
  EXPECT_TRUE(g0.mig_capable);
  EXPECT_TRUE(g0.mig_enabled);
  ASSERT_EQ(g0.migs.size(), 2u);
  EXPECT_EQ(g0.migs[1].uuid, "MIG-1");
  EXPECT_EQ(g0.migs[1].gi, 2u);
  EXPECT_EQ(g0.migs[1].ci, 0u);
  EXPECT_EQ(g0.migs[1].index, 1u);
  EXPECT_FALSE(f->gpus[1].mig_capable);
  EXPECT_TRUE(api.shut_down);
}

TEST(Nvml, InitFailureReadsNvmlErrorWithTheLibraryString) {
  FakeNvml api = mig_topology();
  api.fail["init"] = 18;
  auto f = query_nvml(api);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().message(), "nvml error: driver/library version mismatch");
}

TEST(Nvml, LaterFailureStillShutsDown) {
  FakeNvml api = mig_topology();
  api.fail["uuid"] = 9;
  auto f = query_nvml(api);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().message(), "nvml error: driver not loaded");  // lower case, as the reference
  EXPECT_TRUE(api.shut_down);
}

TEST(Nvml, FunctionNotFoundForMigModeMeansNoMig) {
  FakeNvml api = mig_topology();
  api.gpus[0].mig_mode_rc = kNvmlErrorFunctionNotFound;
  auto f = query_nvml(api);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->gpus[0].mig_capable);
  EXPECT_TRUE(f->gpus[0].migs.empty());
}

TEST(Nvml, MigCapableButDisabledHasNoMigDevices) {
  FakeNvml api = mig_topology();
  api.gpus[0].mig_current = 0;
  auto f = query_nvml(api);
  ASSERT_TRUE(f);
  EXPECT_TRUE(f->gpus[0].mig_capable);
  EXPECT_FALSE(f->gpus[0].mig_enabled);
  EXPECT_TRUE(f->gpus[0].migs.empty());
}

TEST(Nvml, OtherMigModeErrorsFail) {
  FakeNvml api = mig_topology();
  api.gpus[0].mig_mode_rc = 999;
  EXPECT_FALSE(query_nvml(api));
}

TEST(Nvml, MigLoopStopsAtNotFoundAndAtTheMaxCount) {
  FakeNvml api = mig_topology();
  api.gpus[0].max_migs = 1;
  auto f = query_nvml(api);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->gpus[0].migs.size(), 1u);

  FakeNvml many = mig_topology();
  many.gpus[0].max_migs = 100;
  for (unsigned i = 0; i < 20; ++i) many.gpus[0].migs.push_back({"MIG-x", i, 0});
  f = query_nvml(many);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->gpus[0].migs.size(), kMaxMigDevicesPerGpu);
}

TEST(Nvml, TooManyGpusIsAnError) {
  FakeNvml api;
  api.gpus.resize(kMaxGpus + 1);
  EXPECT_FALSE(query_nvml(api));
}

TEST(Nvml, CudaVersionFormat) {
  EXPECT_EQ(format_cuda_version(12040), "12.4");
  EXPECT_EQ(format_cuda_version(11020), "11.2");
  EXPECT_EQ(format_cuda_version(12000), "12.0");
  EXPECT_EQ(format_cuda_version(12065), "12.6");
}

TEST(Nvml, BrandNamesFollowTheNvmlEnum) {
  const char* names[] = {"Unknown",   "Quadro",    "Tesla",  "NVS",        "GRID",    "GeForce",
                         "TITAN",     "VApps",     "VPC",    "VCS",        "VWS",     "CloudGaming",
                         "QuadroRTX", "NvidiaRTX", "Nvidia", "GeForceRTX", "TitanRTX"};
  for (int i = 0; i < 17; ++i) EXPECT_EQ(brand_name(i), names[i]) << i;
  EXPECT_EQ(brand_name(17), "Unknown");
  EXPECT_EQ(brand_name(-1), "Unknown");
}

}  // namespace
}  // namespace nvct::driver
