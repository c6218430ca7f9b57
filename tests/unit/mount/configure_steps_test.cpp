#include "nvct/mount/configure_steps.hpp"

#include <gtest/gtest.h>

#include "nvct/testing/temp_dir.hpp"

namespace nvct::mount {
namespace {

ConfigureOptions valid() {
  ConfigureOptions o;
  o.pid = 1234;
  o.rootfs = "/var/lib/container/rootfs";
  o.ldconfig = "@/sbin/ldconfig";
  return o;
}

std::string error_of(const ConfigureOptions& o) {
  auto v = validate_configure_options(o);
  return v ? std::string("ok") : v.error().message();
}

TEST(ConfigureOptionsCheck, ValidOptionsPass) { EXPECT_EQ(error_of(valid()), "ok"); }

TEST(ConfigureOptionsCheck, RootfsMustBeAbsoluteAndNotTheHostRoot) {
  for (const char* bad : {"", "relative/rootfs", "/", "//"}) {
    ConfigureOptions o = valid();
    o.rootfs = bad;
    EXPECT_EQ(error_of(o),
              fmt::format("container error: rootfs {} must be an absolute path other than /", bad));
  }
}

TEST(ConfigureOptionsCheck, StandaloneModeWithoutPidIsValid) {
  ConfigureOptions o = valid();
  o.pid.reset();
  EXPECT_TRUE(validate_configure_options(o));
}

TEST(ConfigureOptionsCheck, LdconfigOfTheImageIsRefused) {
  for (const char* bad : {"/sbin/ldconfig", "@sbin/ldconfig", "@"}) {
    ConfigureOptions o = valid();
    o.ldconfig = bad;
    EXPECT_NE(error_of(o).find("ldcache error: refusing to run ldconfig"), std::string::npos)
        << bad;
  }
  ConfigureOptions o = valid();
  o.ldconfig.clear();
  EXPECT_EQ(error_of(o), "ok");
}

TEST(ConfigureOptionsCheck, TwoCudaCompatModesConflict) {
  ConfigureOptions o = valid();
  o.cuda_compat_mode = "mount,ldconfig";
  EXPECT_EQ(error_of(o), "container error: only one cuda-compat-mode can be specified at a time");
  o.cuda_compat_mode = "mount,ldconfig,disabled";
  auto v = validate_configure_options(o);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->compat, CudaCompatMode::kDisabled);
}

TEST(ConfigureOptionsCheck, ImexChannelAboveTwoToTheTwentyIsUnsupported) {
  ConfigureOptions o = valid();
  o.imex_channels = {"0,1048576"};
  EXPECT_EQ(error_of(o), "error parsing IMEX info: unsupported IMEX channel value: 1048576");
  o.imex_channels = {"x"};
  EXPECT_EQ(error_of(o), "error parsing IMEX info: unsupported IMEX channel value: x");
  o.imex_channels = {"0,,1048575", "3"};
  auto v = validate_configure_options(o);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->imex_channels, (std::vector<unsigned>{0, 1048575, 3}));
}

TEST(ConfigureOptionsCheck, MigConfigAndMonitorOnlyAcceptAll) {
  ConfigureOptions o = valid();
  o.mig_config = "0";
  EXPECT_EQ(error_of(o), "mig-config error: 0: only 'all' devices are currently supported");
  o = valid();
  o.mig_monitor = "ALL";  // any case, as the reference
  auto v = validate_configure_options(o);
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_TRUE(v->mig_monitor);
  EXPECT_FALSE(v->mig_config);
}

TEST(ConfigureOptionsCheck, DeviceItemsAreJoinedAndEmptyOnesDropped) {
  ConfigureOptions o = valid();
  o.devices = {"0", "", "GPU-1,2"};
  auto v = validate_configure_options(o);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->devices, "0,GPU-1,2");
}

driver::DriverInfo mig_host() {
  driver::DriverInfo info;
  info.nvrm_version = "550.54.14";
  info.cuda_version = "12.4";
  info.char_majors = {{"nvidia-caps", 235}};
  driver::Gpu g;
  g.minor = 0;
  g.brand = "Nvidia";
  g.arch = "9.0";
  g.mig_capable = true;
  g.migs.resize(1);
  driver::Gpu g1;
  g1.index = 1;
  g1.minor = 1;
  info.gpus = {g, g1};
  return info;
}

TEST(ConfigureBuildOptions, MigConfigWithSpecificMigDevicesIsRefused) {
  nvct::testing::TempDir dir;
  auto root = driver::DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  ConfigureOptions o = valid();
  o.mig_config = "all";
  driver::DeviceSelection sel;
  sel.gpus = {0};
  sel.migs = {{0, 0}};
  auto b = build_options(o, *validate_configure_options(o), mig_host(), sel, *root, {});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message(),
            "mig-config error: all: cannot enable mig-config with specific MIG devices selected");
  sel.all = true;  // --device=all selects MIG devices too, which is fine
  EXPECT_TRUE(build_options(o, *validate_configure_options(o), mig_host(), sel, *root, {}));
}

TEST(ConfigureBuildOptions, MigConfigReadsTheConfigMinorAndMigMinors) {
  nvct::testing::TempDir dir;
  dir.write("proc/driver/nvidia/capabilities/mig/config",
            "DeviceFileMinor: 1\nDeviceFileMode: 256\n");
  dir.write("proc/driver/nvidia-caps/mig-minors", "config 1\nmonitor 2\ngpu0/gi1/access 12\n");
  auto root = driver::DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  ConfigureOptions o = valid();
  o.mig_config = "all";
  driver::DeviceSelection sel;
  sel.gpus = {0};
  auto b = build_options(o, *validate_configure_options(o), mig_host(), sel, *root, {});
  ASSERT_TRUE(b) << b.error().message();
  EXPECT_TRUE(b->mig_config);
  EXPECT_EQ(b->mig_config_minor, 1u);
  EXPECT_EQ(b->mig_minors.size(), 3u);
}

TEST(ConfigureBuildOptions, MissingImexChannelNodeIsADeviceError) {
  nvct::testing::TempDir dir;
  dir.write("dev/nvidia-caps-imex-channels/channel0", "");
  auto root = driver::DriverRoot::open(dir.path());
  ASSERT_TRUE(root);
  ConfigureOptions o = valid();
  o.imex_channels = {"0"};
  EXPECT_TRUE(build_options(o, *validate_configure_options(o), mig_host(), {}, *root, {}));
  o.imex_channels = {"0,1"};
  auto b = build_options(o, *validate_configure_options(o), mig_host(), {}, *root, {});
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message(),
            "device error: /dev/nvidia-caps-imex-channels/channel1: no such file or directory");
}

TEST(ConfigureBuildOptions, CapabilityFlagsAndDriverOptionsAreCarried) {
  nvct::testing::TempDir dir;
  auto root = driver::DriverRoot::open(dir.path());
  ConfigureOptions o = valid();
  o.video = o.display = o.compat32 = o.no_devbind = o.no_gsp_firmware = true;
  edits::ContainerLayout layout{"/usr/bin", "/usr/lib64", "/usr/lib"};
  auto b = build_options(o, *validate_configure_options(o), mig_host(), {}, *root, layout);
  ASSERT_TRUE(b);
  EXPECT_TRUE(b->capabilities.video && b->capabilities.display && b->capabilities.compat32);
  EXPECT_FALSE(b->capabilities.compute);
  EXPECT_TRUE(b->no_devbind && b->no_gsp_firmware);
  EXPECT_EQ(b->layout.libs32_dir, "/usr/lib");
}

TEST(ConfigureRequirementFacts, OneEntryPerSelectedGpuAndNoneWithoutSelection) {
  auto info = mig_host();
  auto none = requirement_facts(info, {});
  EXPECT_EQ(none.cuda_version, "12.4");
  EXPECT_EQ(none.driver_version, "550.54.14");
  EXPECT_TRUE(none.devices.empty());
  driver::DeviceSelection sel;
  sel.gpus = {0, 1};
  auto two = requirement_facts(info, sel);
  ASSERT_EQ(two.devices.size(), 2u);
  EXPECT_EQ(two.devices[0].arch, "9.0");
  EXPECT_EQ(two.devices[0].brand, "Nvidia");
  // Unknown (procfs fallback) values are satisfied: left unset.
  EXPECT_FALSE(two.devices[1].arch);
  EXPECT_FALSE(two.devices[1].brand);
}

TEST(ConfigureRequirementFacts, UnsatisfiedCudaRequirementGivesTheReferenceMessage) {
  auto facts = requirement_facts(mig_host(), {});
  auto s = request::check_requirements({"cuda>=99.0"}, facts);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(),
            "requirement error: unsatisfied condition: cuda>=99.0, please update your driver to a "
            "newer version, or use an earlier cuda container");
}

}  // namespace
}  // namespace nvct::mount
