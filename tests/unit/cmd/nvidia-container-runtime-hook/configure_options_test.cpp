#include "configure_options.hpp"

#include <gtest/gtest.h>

namespace nvct::hook {
namespace {

const HookContext kCtx{4242, "/bundle/rootfs", false};

mount::ConfigureOptions map(const config::Config& cfg, const request::MountRequest& req = {},
                            const HookContext& ctx = kCtx) {
  return configure_options(cfg, req, ctx);
}

// Row 1: --root only when the configured root is non-empty.
TEST(ConfigureOptions, RootOnlyWhenSet) {
  config::Config cfg;
  EXPECT_EQ(map(cfg).root, "/");
  cfg.cli.root = "/run/nvidia/driver";
  EXPECT_EQ(map(cfg).root, "/run/nvidia/driver");
}

// Row 2.
TEST(ConfigureOptions, LoadKmodsFollowsConfig) {
  config::Config cfg;
  EXPECT_TRUE(map(cfg).load_kmods);
  cfg.cli.load_kmods = false;
  EXPECT_FALSE(map(cfg).load_kmods);
}

// Row 3.
TEST(ConfigureOptions, NoCreateImexChannelsFromFeatureFlag) {
  config::Config cfg;
  EXPECT_FALSE(map(cfg).no_create_imex_channels);
  cfg.features.disable_imex_channel_creation = true;
  EXPECT_TRUE(map(cfg).no_create_imex_channels);
}

// Row 4.
TEST(ConfigureOptions, NoPivotFollowsConfig) {
  config::Config cfg;
  EXPECT_FALSE(map(cfg).no_pivot);
  cfg.cli.no_pivot = true;
  EXPECT_TRUE(map(cfg).no_pivot);
}

// Row 5: the -debug flag wins over the configured file.
TEST(ConfigureOptions, DebugFlagLogsToStderrElseConfiguredFile) {
  config::Config cfg;
  EXPECT_EQ(map(cfg).debug_file, "");
  cfg.cli.debug = "/var/log/nvidia-container-toolkit.log";
  EXPECT_EQ(map(cfg).debug_file, "/var/log/nvidia-container-toolkit.log");
  EXPECT_EQ(map(cfg, {}, HookContext{1, "/r", true}).debug_file, "/dev/stderr");
}

// Rows 6 and 7.
TEST(ConfigureOptions, LdcacheAndUserOnlyWhenSet) {
  config::Config cfg;
  EXPECT_EQ(map(cfg).ldcache, "");
  EXPECT_FALSE(map(cfg).user);
  cfg.cli.ldcache = "/etc/ld.so.cache.alt";
  cfg.cli.user = "root:video";
  EXPECT_EQ(map(cfg).ldcache, "/etc/ld.so.cache.alt");
  EXPECT_EQ(map(cfg).user, "root:video");
}

// Row 9, every value.
TEST(ConfigureOptions, CudaCompatModeMapping) {
  config::Config cfg;
  EXPECT_EQ(map(cfg).cuda_compat_mode, "ldconfig");  // the default since v1.17.7
  cfg.runtime.legacy.cuda_compat_mode = "mount";
  EXPECT_EQ(map(cfg).cuda_compat_mode, "mount");
  cfg.runtime.legacy.cuda_compat_mode = "disabled";
  EXPECT_EQ(map(cfg).cuda_compat_mode, "disabled");
  cfg.runtime.legacy.cuda_compat_mode = "hook";
  EXPECT_EQ(map(cfg).cuda_compat_mode, "disabled");
  cfg.runtime.legacy.cuda_compat_mode = std::nullopt;
  EXPECT_EQ(map(cfg).cuda_compat_mode, "disabled");
  cfg.features.allow_cuda_compat_libs_from_container = true;
  EXPECT_EQ(map(cfg).cuda_compat_mode, "");
}

// Row 10.
TEST(ConfigureOptions, LdconfigPassedAsConfigured) {
  config::Config cfg;
  cfg.cli.ldconfig = "@/sbin/ldconfig.real";
  EXPECT_EQ(map(cfg).ldconfig, "@/sbin/ldconfig.real");
  cfg.cli.ldconfig = "";
  EXPECT_EQ(map(cfg).ldconfig, "");
}

// Row 11.
TEST(ConfigureOptions, NoCgroupsFollowsConfig) {
  config::Config cfg;
  EXPECT_FALSE(map(cfg).no_cgroups);
  cfg.cli.no_cgroups = true;
  EXPECT_TRUE(map(cfg).no_cgroups);
}

// Row 12: the joined list, omitted when empty ("none").
TEST(ConfigureOptions, DeviceListOmittedWhenEmpty) {
  config::Config cfg;
  request::MountRequest req;
  EXPECT_TRUE(map(cfg, req).devices.empty());
  req.device_list = ",1,0";
  EXPECT_EQ(map(cfg, req).devices, std::vector<std::string>{",1,0"});
}

// Row 13.
TEST(ConfigureOptions, MigConfigAndMonitorOnlyWhenSet) {
  config::Config cfg;
  request::MountRequest req;
  EXPECT_FALSE(map(cfg, req).mig_config);
  EXPECT_FALSE(map(cfg, req).mig_monitor);
  req.mig_config_devices = "all";
  req.mig_monitor_devices = "0,1";
  EXPECT_EQ(map(cfg, req).mig_config, "all");
  EXPECT_EQ(map(cfg, req).mig_monitor, "0,1");
}

// Row 14.
TEST(ConfigureOptions, ImexChannelsAsDecimalStrings) {
  config::Config cfg;
  request::MountRequest req;
  EXPECT_TRUE(map(cfg, req).imex_channels.empty());
  req.imex_channels = {3, 4};
  EXPECT_EQ(map(cfg, req).imex_channels, (std::vector<std::string>{"3", "4"}));
}

// Row 15.
TEST(ConfigureOptions, EachCapabilityBecomesItsFlag) {
  config::Config cfg;
  request::MountRequest req;
  auto none = map(cfg, req);
  EXPECT_FALSE(none.compat32 || none.compute || none.display || none.graphics || none.ngx ||
               none.utility || none.video);
  req.capabilities = {"compat32", "compute", "display", "graphics", "ngx", "utility", "video"};
  auto all = map(cfg, req);
  EXPECT_TRUE(all.compat32 && all.compute && all.display && all.graphics && all.ngx &&
              all.utility && all.video);
  req.capabilities = {"utility"};
  auto one = map(cfg, req);
  EXPECT_TRUE(one.utility);
  EXPECT_FALSE(one.compute || one.video || one.graphics);
}

// Rows 16-18.
TEST(ConfigureOptions, RequirementsPidAndRootfs) {
  config::Config cfg;
  request::MountRequest req;
  req.requirements = {"cuda>=11.0 brand=tesla", "driver>=450"};
  auto o = map(cfg, req, HookContext{7, "/abs/rootfs", false});
  EXPECT_EQ(o.requirements, (std::vector<std::string>{"cuda>=11.0 brand=tesla", "driver>=450"}));
  EXPECT_EQ(o.pid, 7);
  EXPECT_EQ(o.rootfs, "/abs/rootfs");
}

}  // namespace
}  // namespace nvct::hook
