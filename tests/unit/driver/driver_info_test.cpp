#include "nvct/driver/driver_info.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <filesystem>
#include <memory>

#include "fake_nvml.hpp"
#include "nvct/base/log.hpp"
#include "synthetic_root.hpp"

namespace nvct::driver {
namespace {

namespace fs = std::filesystem;
constexpr const char* kInfoLibDir = "/usr/lib/x86_64-linux-gnu";

// A fake NVML query that records the library path it was given.
struct FakeQuery {
  std::shared_ptr<std::string> library = std::make_shared<std::string>();
  std::shared_ptr<testing::FakeNvml> api =
      std::make_shared<testing::FakeNvml>(testing::mig_topology());
  NvmlQuery fn() const {
    return [lib = library, a = api](const DriverRoot&, const std::string& path) {
      *lib = path;
      return query_nvml(*a);
    };
  }
};

class DriverInfoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    r_.library(kInfoLibDir, "libnvidia-ml.so.550.54.14", "libnvidia-ml.so.1");
    r_.library(kInfoLibDir, "libcuda.so.550.54.14", "libcuda.so.1");
    r_.write_cache();
    r_.file("/proc/devices", "Character devices:\n195 nvidia\n235 nvidia-caps\n238 nvidia-uvm\n\n");
    r_.file("/proc/driver/nvidia/capabilities/gpu0/mig/gi2/access", "DeviceFileMinor: 21\n");
    r_.file("/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access", "DeviceFileMinor: 22\n");
    r_.file("/usr/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin", "fw");
    r_.file("/usr/lib/firmware/nvidia/550.54.14/README", "not firmware");
    fs::create_symlink("usr/lib", r_ / "lib");
    fs::create_directories(r_ / "run/nvidia-persistenced");
    r_.file("/run/nvidia-persistenced/socket", "");
    fs::create_directories(r_ / "var");
    fs::create_symlink("/run", r_ / "var/run");
    opts_.root = r_.path();
  }
  void mknod_uvm() {
    fs::create_directories(r_ / "dev");
    ASSERT_EQ(::mknod((r_ / "dev/nvidia-uvm").c_str(), S_IFCHR | 0666, makedev(238, 0)), 0)
        << "this test needs root to mknod: " << std::strerror(errno);
  }
  testing::SyntheticRoot r_;
  DiscoverOptions opts_;
  FakeQuery nvml_;
};

TEST_F(DriverInfoTest, InitializeQueriesNvmlThroughTheResolvedLibrary) {
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx) << ctx.error().message();
  EXPECT_EQ(*nvml_.library, std::string(kInfoLibDir) + "/libnvidia-ml.so.550.54.14");
  EXPECT_FALSE(ctx->nvml_fallback);
  EXPECT_EQ(ctx->nvml.gpus.size(), 2u);
}

TEST_F(DriverInfoTest, NoNvmlAndNoProcfsIsTheReferenceError) {
  testing::SyntheticRoot empty;
  opts_.root = empty.path();
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_FALSE(ctx);
  EXPECT_EQ(ctx.error().message(),
            "load library failed: libnvidia-ml.so.1: cannot open shared object file: no such "
            "file or directory");
}

TEST_F(DriverInfoTest, NvmlErrorIsReportedWhenThereIsNoProcfsToFallBackTo) {
  nvml_.api->fail["init"] = 18;
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_FALSE(ctx);
  EXPECT_EQ(ctx.error().message(), "nvml error: driver/library version mismatch");
}

TEST_F(DriverInfoTest, ProcfsFallbackOrdersGpusByBusIdAndWarns) {
  nvml_.api->fail["init"] = 18;
  r_.file("/proc/driver/nvidia/version",
          "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 2024\n");
  r_.file(
      "/proc/driver/nvidia/gpus/0000:2a:00.0/information",
      "Model: \t A100\nGPU UUID: \t GPU-b\nBus Location: \t 0000:2a:00.0\nDevice Minor: \t 0\n");
  r_.file(
      "/proc/driver/nvidia/gpus/0000:17:00.0/information",
      "Model: \t H100\nGPU UUID: \t GPU-a\nBus Location: \t 0000:17:00.0\nDevice Minor: \t 1\n");
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  auto ctx = initialize_driver(opts_, nvml_.fn());
  log::set_sink(nullptr);
  ASSERT_TRUE(ctx) << ctx.error().message();
  EXPECT_TRUE(ctx->nvml_fallback);
  EXPECT_TRUE(
      sink->contains("nvml error: driver/library version mismatch; using /proc/driver/nvidia"));
  auto info = discover_driver(*ctx, opts_);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->nvrm_version, "550.54.14");
  EXPECT_EQ(info->cuda_version, "");
  ASSERT_EQ(info->gpus.size(), 2u);
  EXPECT_EQ(info->gpus[0].uuid, "GPU-a");
  EXPECT_EQ(info->gpus[0].minor, 1u);
  EXPECT_EQ(info->gpus[0].node.path, "/dev/nvidia1");
  EXPECT_EQ(info->gpus[0].brand, "");
  EXPECT_EQ(info->gpus[1].model, "A100");
}

TEST_F(DriverInfoTest, ThirtyTwoBitLibrariesAreLookedUpOnlyWhenAsked) {
  r_.library("/usr/lib/i386-linux-gnu", "libcuda.so.550.54.14", "libcuda.so.1", 0x0003);
  r_.write_cache();
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx) << ctx.error().message();
  auto all = discover_driver(*ctx, opts_);
  ASSERT_TRUE(all) << all.error().message();
  ASSERT_EQ(all->libs32.size(), 1u);
  EXPECT_EQ(all->libs32[0].path, "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14");
  opts_.libs32 = false;  // configure without --compat32
  auto native = discover_driver(*ctx, opts_);
  ASSERT_TRUE(native) << native.error().message();
  EXPECT_TRUE(native->libs32.empty());
  EXPECT_EQ(native->libs.size(), all->libs.size());
}

TEST_F(DriverInfoTest, DiscoversFilesDevicesGpusAndMig) {
  mknod_uvm();
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx) << ctx.error().message();
  auto info = discover_driver(*ctx, opts_);
  ASSERT_TRUE(info) << info.error().message();
  std::vector<std::string> devs;
  for (const auto& d : info->devices)
    devs.push_back(fmt::format("{} {}:{}", d.path, d.major, d.minor));
  EXPECT_EQ(devs, (std::vector<std::string>{"/dev/nvidiactl 195:255", "/dev/nvidia-uvm 238:0",
                                            "/dev/nvidia-modeset 195:254"}));
  EXPECT_EQ(info->caps_style, CapsStyle::kDev);
  ASSERT_EQ(info->gpus.size(), 2u);
  const Gpu& g0 = info->gpus[0];
  EXPECT_EQ(g0.brand, "Nvidia");
  EXPECT_EQ(g0.arch, "9.0");
  EXPECT_EQ(g0.mig_caps_path, "/proc/driver/nvidia/capabilities/gpu0");
  ASSERT_EQ(g0.migs.size(), 2u);
  EXPECT_EQ(g0.migs[1].gi_caps_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi2");
  EXPECT_EQ(g0.migs[1].ci_caps_path, "/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0");
  EXPECT_EQ(g0.migs[1].gi_cap_minor, 21u);
  EXPECT_EQ(g0.migs[1].ci_cap_minor, 22u);
  EXPECT_FALSE(g0.migs[0].gi_cap_minor);  // no access file for gi1
  ASSERT_EQ(info->libs.size(), 2u);
  ASSERT_EQ(info->firmwares.size(), 1u);
  EXPECT_EQ(info->firmwares[0].path, "/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin");
  EXPECT_EQ(info->firmwares[0].source, "/usr/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin");
  // Persistenced through the /var/run link; fabricmanager and MPS are missing.
  EXPECT_EQ(info->ipcs, (std::vector<std::string>{"/run/nvidia-persistenced/socket"}));
}

TEST_F(DriverInfoTest, FirmwareDirectoryLinkOutOfTheRootStaysInside) {
  // security.md #3 (firmware-escape) on the driver-root side: the link is followed inside the
  // root, so a host directory of the same name is never listed.
  fs::remove(r_ / "lib");
  fs::create_directories(r_ / "lib/firmware/nvidia");
  fs::create_symlink("/../../../../../../../../usr/lib/firmware/nvidia/550.54.14",
                     r_ / "lib/firmware/nvidia/550.54.14");
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx);
  auto info = discover_driver(*ctx, opts_);
  ASSERT_TRUE(info);
  ASSERT_EQ(info->firmwares.size(), 1u);
  EXPECT_EQ(info->firmwares[0].source, "/usr/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin");
}

TEST_F(DriverInfoTest, DriverOptionsDropIpcsAndFirmware) {
  opts_.no_persistenced = true;
  opts_.no_gsp_firmware = true;
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx);
  auto info = discover_driver(*ctx, opts_);
  ASSERT_TRUE(info);
  EXPECT_TRUE(info->ipcs.empty());
  EXPECT_TRUE(info->firmwares.empty());
}

TEST_F(DriverInfoTest, CapsStyleProcWithoutTheMajorAndNoneWithoutEither) {
  r_.file("/proc/devices", "Character devices:\n195 nvidia\n\n");
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx);
  EXPECT_EQ(discover_driver(*ctx, opts_)->caps_style, CapsStyle::kProc);
  fs::remove_all(r_ / "proc/driver/nvidia/capabilities");
  EXPECT_EQ(discover_driver(*ctx, opts_)->caps_style, CapsStyle::kNone);
}

TEST_F(DriverInfoTest, CorruptLdcacheIsADetectionErrorNamingThePath) {
  r_.file("/etc/ld.so.cache", "garbage that is long enough to hold a header but is not a cache..");
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx) << ctx.error().message();  // NVML is still found in the default directories
  auto info = discover_driver(*ctx, opts_);
  ASSERT_FALSE(info);
  EXPECT_EQ(info.error().message(), "unsupported file format: /etc/ld.so.cache");
}

TEST_F(DriverInfoTest, LdcacheOptionIsResolvedUnderTheRoot) {
  opts_.ldcache = "/etc/missing.cache";
  auto ctx = initialize_driver(opts_, nvml_.fn());
  ASSERT_TRUE(ctx);
  auto info = discover_driver(*ctx, opts_);
  ASSERT_FALSE(info);
  EXPECT_NE(info.error().message().find("/etc/missing.cache"), std::string::npos);
}

}  // namespace
}  // namespace nvct::driver
