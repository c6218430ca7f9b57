#include "nvct/driver/listing.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::driver {
namespace {

DriverInfo sample() {
  DriverInfo info;
  info.nvrm_version = "550.54.14";
  info.cuda_version = "12.4";
  info.caps_style = CapsStyle::kDev;
  info.devices = {{"/dev/nvidiactl", 195, 255},
                  {"/dev/nvidia-uvm", 238, 0},
                  {"/dev/nvidia-uvm-tools", 238, 1},
                  {"/dev/nvidia-modeset", 195, 254}};
  Gpu g0;
  g0.index = 0;
  g0.minor = 0;
  g0.model = "NVIDIA H100 80GB HBM3";
  g0.brand = "Nvidia";
  g0.uuid = "GPU-11111111-2222-3333-4444-555555555550";
  g0.bus_id = "00000000:17:00.0";
  g0.arch = "9.0";
  g0.node = {"/dev/nvidia0", 195, 0};
  g0.mig_capable = g0.mig_enabled = true;
  g0.mig_caps_path = "/proc/driver/nvidia/capabilities/gpu0";
  for (unsigned i = 0; i < 2; ++i) {
    MigDevice m;
    m.index = i;
    m.gi = i + 1;
    m.gi_caps_path = fmt::format("{}/mig/gi{}", g0.mig_caps_path, m.gi);
    m.ci_caps_path = m.gi_caps_path + "/ci0";
    m.gi_cap_minor = 10 * (i + 1) + 1;
    m.ci_cap_minor = 10 * (i + 1) + 2;
    g0.migs.push_back(m);
  }
  Gpu g1;
  g1.index = 1;
  g1.minor = 1;
  g1.model = "NVIDIA A100-SXM4-40GB";
  g1.brand = "Tesla";
  g1.uuid = "GPU-11111111-2222-3333-4444-555555555551";
  g1.bus_id = "00000000:2a:00.0";
  g1.arch = "8.0";
  g1.node = {"/dev/nvidia1", 195, 1};
  g1.mig_caps_path = "/proc/driver/nvidia/capabilities/gpu1";
  info.gpus = {g0, g1};
  info.bins = {{"nvidia-smi", Capability::kUtility, "/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"}};
  info.libs = {
      {"libcuda.so", Capability::kCompute, "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"}};
  info.libs32 = {
      {"libcuda.so", Capability::kCompute, "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14"}};
  info.ipcs = {"/run/nvidia-persistenced/socket"};
  info.firmwares = {{"/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin", "/usr/lib/firmware/x"}};
  return info;
}

class ListingTest : public ::testing::Test {
 protected:
  Result<std::vector<std::string>> list(ListOptions o) {
    return list_driver_paths(info_, *DriverRoot::open(dir_.path()), std::move(o));
  }
  nvct::testing::TempDir dir_;
  DriverInfo info_ = sample();
};

TEST(InfoFormat, TextLabelsArePaddedToFifteenAndDevicesSeparatedByBlankLines) {
  DriverInfo info = sample();
  info.gpus.resize(1);
  EXPECT_EQ(format_info(info, false),
            "NVRM version:   550.54.14\n"
            "CUDA version:   12.4\n"
            "\n"
            "Device Index:   0\n"
            "Device Minor:   0\n"
            "Model:          NVIDIA H100 80GB HBM3\n"
            "Brand:          Nvidia\n"
            "GPU UUID:       GPU-11111111-2222-3333-4444-555555555550\n"
            "Bus Location:   00000000:17:00.0\n"
            "Architecture:   9.0\n");
}

TEST(InfoFormat, Csv) {
  EXPECT_EQ(format_info(sample(), true),
            "NVRM version,CUDA version\n"
            "550.54.14,12.4\n"
            "\n"
            "Device Index,Device Minor,Model,Brand,GPU UUID,Bus Location,Architecture\n"
            "0,0,NVIDIA H100 80GB "
            "HBM3,Nvidia,GPU-11111111-2222-3333-4444-555555555550,00000000:17:00.0,9.0\n"
            "1,1,NVIDIA "
            "A100-SXM4-40GB,Tesla,GPU-11111111-2222-3333-4444-555555555551,00000000:2a:00.0,8.0\n");
}

TEST(InfoFormat, UnknownValuesPrintAsNotAvailable) {
  DriverInfo info = sample();
  info.cuda_version.clear();
  info.gpus.resize(1);
  info.gpus[0].brand.clear();
  info.gpus[0].arch.clear();
  std::string text = format_info(info, false);
  EXPECT_NE(text.find("CUDA version:   N/A\n"), std::string::npos);
  EXPECT_NE(text.find("Brand:          N/A\n"), std::string::npos);
  EXPECT_NE(text.find("Architecture:   N/A\n"), std::string::npos);
}

TEST_F(ListingTest, NoOptionsListsEverythingInOrder) {
  auto l = list({});
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_EQ(
      *l,
      (std::vector<std::string>{
          "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
          "/dev/nvidia0", "/dev/nvidia1", "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access",
          "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access",
          "/dev/nvidia-caps/nvidia-cap11", "/dev/nvidia-caps/nvidia-cap12",
          "/proc/driver/nvidia/capabilities/gpu0/mig/gi2/access",
          "/proc/driver/nvidia/capabilities/gpu0/mig/gi2/ci0/access",
          "/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia-caps/nvidia-cap22", "/usr/bin/nvidia-smi",
          "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14",
          "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14", "/run/nvidia-persistenced/socket",
          "/lib/firmware/nvidia/550.54.14/gsp_ga10x.bin"}));
}

TEST_F(ListingTest, ProcStyleHasNoCapDeviceNodes) {
  info_.caps_style = CapsStyle::kProc;
  ListOptions o;
  o.devices = "0:0";
  EXPECT_EQ(*list(o),
            (std::vector<std::string>{"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
                                      "/dev/nvidia-modeset", "/dev/nvidia0",
                                      "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/access",
                                      "/proc/driver/nvidia/capabilities/gpu0/mig/gi1/ci0/access"}));
}

TEST_F(ListingTest, SingleListsOnly) {
  ListOptions o;
  o.libraries = true;
  EXPECT_EQ(*list(o), (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14"}));
  ListOptions c;
  c.libraries = c.compat32 = true;
  EXPECT_EQ(*list(c), (std::vector<std::string>{"/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.14",
                                                "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14"}));
}

TEST_F(ListingTest, UnknownDeviceHasTheDeviceStage) {
  ListOptions o;
  o.devices = "5";
  auto l = list(o);
  ASSERT_FALSE(l);
  // The reference's text first, then the flag and the devices to choose from.
  EXPECT_EQ(l.error().message().rfind(
                "device error: 5: unknown device (from --device); valid devices: 0 (GPU-", 0),
            0u)
      << l.error().message();
}

TEST_F(ListingTest, MigConfigAllReplacesAccessFiles) {
  ListOptions o;
  o.devices = "0";
  o.mig_config = "all";
  // Without the proc files under the root: no minors to name, only the directories.
  EXPECT_EQ(*list(o),
            (std::vector<std::string>{
                "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset",
                "/dev/nvidia0", "/proc/driver/nvidia/capabilities/mig/config",
                "/proc/driver/nvidia/capabilities/gpu0", "/dev/nvidia-caps"}));
  o.devices = "all";
  o.mig_config.reset();
  o.mig_monitor = "all";
  auto l = list(o);
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_EQ(l->at(6), "/proc/driver/nvidia/capabilities/mig/monitor");
}

// libnvidia-container's order in DEV style: the capability file and its node, then per GPU its
// capability directory, /dev/nvidia-caps and the nodes of its instances in mig-minors order.
TEST_F(ListingTest, MigConfigAllInDevStyleNamesTheCapabilityNodes) {
  dir_.write("proc/driver/nvidia/capabilities/mig/config",
             "DeviceFileMinor: 1\nDeviceFileMode: 256\n");
  dir_.write("proc/driver/nvidia-caps/mig-minors",
             "config 1\nmonitor 2\ngpu0/gi0/access 3\ngpu0/gi0/ci0/access 4\n"
             "gpu1/gi0/access 138\ngpu1/gi0/ci0/access 139\n");
  ListOptions o;
  o.devices = "0";
  o.mig_config = "all";
  auto l = list(o);
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_EQ(std::vector<std::string>(l->begin() + 5, l->end()),
            (std::vector<std::string>{
                "/proc/driver/nvidia/capabilities/mig/config", "/dev/nvidia-caps/nvidia-cap1",
                "/proc/driver/nvidia/capabilities/gpu0", "/dev/nvidia-caps",
                "/dev/nvidia-caps/nvidia-cap3", "/dev/nvidia-caps/nvidia-cap4"}));
}

TEST_F(ListingTest, MigConfigRefusals) {
  ListOptions o;
  o.devices = "0:1";
  o.mig_config = "all";
  auto l = list(o);
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().message(),
            "mig-config error: all: cannot enable mig-config with specific MIG devices selected");
  ListOptions m;
  m.devices = "0";
  m.mig_monitor = "0";
  l = list(m);
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().message(),
            "mig-monitor error: 0: only 'all' devices are currently supported");
}

// As the reference: the first non-empty item decides, in any case; no item = not given.
TEST(ParseMigValue, FirstItemMustBeAllInAnyCase) {
  EXPECT_TRUE(*parse_mig_value("all", "mig-config"));
  EXPECT_TRUE(*parse_mig_value("ALL", "mig-config"));
  EXPECT_TRUE(*parse_mig_value(",all,1", "mig-config"));
  EXPECT_FALSE(*parse_mig_value("", "mig-config"));
  EXPECT_FALSE(*parse_mig_value(",,", "mig-config"));
  auto r = parse_mig_value("1,all", "mig-monitor");
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "mig-monitor error: 1: only 'all' devices are currently supported");
}

// cli.md §6: only "no options, or only --imex-channel" lists everything; --compat32 adds the
// 32-bit libraries to -l and lists nothing alone.
TEST_F(ListingTest, Compat32AloneOrANoFlagAloneListsNothing) {
  ListOptions o;
  o.compat32 = true;
  auto l = list(o);
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_TRUE(l->empty());
  o.libraries = true;
  l = list(o);
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_FALSE(l->empty());
  EXPECT_EQ(std::count(l->begin(), l->end(), "/usr/lib/i386-linux-gnu/libcuda.so.550.54.14"), 1);
  ListOptions n;
  n.other_options = true;  // --no-persistenced, --no-fabricmanager or --no-gsp-firmware
  EXPECT_FALSE(list_everything(n));
  l = list(n);
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_TRUE(l->empty());
}

TEST_F(ListingTest, ImexChannels) {
  ListOptions o;
  o.imex_channels = {"1048576"};
  auto l = list(o);
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().message(),
            "error parsing IMEX info: unsupported IMEX channel value: 1048576");
  o.imex_channels = {"1"};  // no node: listed all the same, as the reference
  l = list(o);
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_EQ(std::count(l->begin(), l->end(), "/dev/nvidia-caps-imex-channels/channel1"), 1);
  dir_.write("dev/nvidia-caps-imex-channels/channel1", "");
  o.imex_channels = {"1", ""};
  l = list(o);
  ASSERT_TRUE(l) << l.error().message();
  EXPECT_TRUE(list_everything(o));
  EXPECT_EQ(std::count(l->begin(), l->end(), "/dev/nvidia-caps-imex-channels/channel1"), 1);
  EXPECT_EQ(l->size(), 20u);  // everything plus the channel
}

}  // namespace
}  // namespace nvct::driver
