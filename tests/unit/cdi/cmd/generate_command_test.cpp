// `nvidia-ctk cdi generate` flags (cdi.md §6.1): names, aliases, env vars, defaults, the output
// format rule and the mapping onto the generator options.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include "cdi_command.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

// A PATH directory with executable nvidia-cdi-hook and nvidia-ctk: the hook binary written into
// a spec must exist (resolve_hook_binary), so the option tests run with one.
const nvct::testing::TempDir& tools() {
  static const nvct::testing::TempDir dir;
  static const bool made = [] {
    for (const char* name : {"nvidia-cdi-hook", "nvidia-ctk"}) {
      std::string path = dir.write(name, "#!/bin/sh\n");
      ::chmod(path.c_str(), 0755);
    }
    return true;
  }();
  (void)made;
  return dir;
}
std::string tools_path() { return tools().path(); }

CLI::App* generate_command(CLI::App& app, GlobalOptions& globals) {
  add_cdi_command(app, globals);
  return app.get_subcommand("cdi")->get_subcommand("generate");
}

TEST(CdiGenerateFlags, EnvironmentVariablesAndDefaults) {
  CLI::App app;
  GlobalOptions globals;
  CLI::App* g = generate_command(app, globals);
  EXPECT_EQ(g->get_option("--output")->get_envname(), "NVIDIA_CTK_CDI_OUTPUT_FILE_PATH");
  EXPECT_EQ(g->get_option("--format")->get_envname(), "NVIDIA_CTK_CDI_GENERATE_OUTPUT_FORMAT");
  EXPECT_EQ(g->get_option("--mode")->get_envname(), "NVIDIA_CTK_CDI_GENERATE_MODE");
  EXPECT_EQ(g->get_option("--mode")->get_default_str(), "auto");
  EXPECT_EQ(g->get_option("--dev-root")->get_envname(), "NVIDIA_CTK_DEV_ROOT");
  EXPECT_EQ(g->get_option("--device-name-strategy")->get_envname(),
            "NVIDIA_CTK_CDI_GENERATE_DEVICE_NAME_STRATEGIES");
  EXPECT_EQ(g->get_option("--driver-root")->get_envname(), "NVIDIA_CTK_DRIVER_ROOT");
  EXPECT_EQ(g->get_option("--nvidia-cdi-hook-path")->get_envname(), "NVIDIA_CTK_CDI_HOOK_PATH");
  EXPECT_EQ(g->get_option("--disable-hook")->get_envname(), "NVIDIA_CTK_CDI_DISABLED_HOOKS");
  EXPECT_EQ(g->get_option("--enable-hook")->get_envname(), "NVIDIA_CTK_CDI_ENABLED_HOOKS");
  EXPECT_EQ(g->get_option("--vendor")->get_default_str(), "nvidia.com");
  EXPECT_EQ(g->get_option("--class")->get_default_str(), "gpu");
  EXPECT_EQ(g->get_option("--device-id")->get_default_str(), "all");
}

TEST(CdiGenerateFlags, AliasesParseAndAMissingDriverRootFailsTheCommand) {
  CLI::App app;
  GlobalOptions globals;
  CLI::App* g = generate_command(app, globals);
  app.parse(
      "cdi generate --driver-root /nonexistent-driver-root --devices 0,1 --cdi-vendor "
      "example.com --cdi-class device --discovery-mode nvml --nvidia-ctk-path /x/nvidia-ctk "
      "--disable-hooks a,b",
      false);
  EXPECT_EQ(g->get_option("--device-id")->as<std::vector<std::string>>(),
            (std::vector<std::string>{"0", "1"}));
  EXPECT_EQ(g->get_option("--vendor")->as<std::string>(), "example.com");
  EXPECT_EQ(g->get_option("--class")->as<std::string>(), "device");
  EXPECT_EQ(g->get_option("--mode")->as<std::string>(), "nvml");
  EXPECT_EQ(g->get_option("--nvidia-cdi-hook-path")->as<std::string>(), "/x/nvidia-ctk");
  EXPECT_EQ(g->get_option("--disable-hook")->as<std::vector<std::string>>(),
            (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(globals.exit_code, 1);
}

TEST(CdiGenerateFormat, ExplicitFormatWinsOverExtension) {
  GenerateCommandOptions o;
  o.output = "/tmp/x.yaml";
  o.format = "json";
  EXPECT_EQ(*generate_output_format(o), cdi::Format::kJson);
}

TEST(CdiGenerateFormat, InferredFromExtensionElseYaml) {
  GenerateCommandOptions o;
  o.output = "/etc/cdi/nvidia.json";
  EXPECT_EQ(*generate_output_format(o), cdi::Format::kJson);
  o.output = "/etc/cdi/nvidia.yml";
  EXPECT_EQ(*generate_output_format(o), cdi::Format::kYaml);
  o.output = "";
  EXPECT_EQ(*generate_output_format(o), cdi::Format::kYaml);
}

TEST(CdiGenerateFormat, UnknownFormatIsAnError) {
  GenerateCommandOptions o;
  o.format = "toml";
  EXPECT_FALSE(generate_output_format(o));
}

TEST(CdiGenerateOptions, MapsFlagsOntoTheGenerator) {
  GenerateCommandOptions c;
  c.device_name_strategies = {"index", "uuid"};
  c.device_ids = {"0,1", "GPU-x"};
  c.hook_path = tools_path() + "/nvidia-ctk";
  c.disable_hooks = {"update-ldcache"};
  c.enable_hooks = {"chmod"};
  c.ldconfig_path = "/sbin/ldconfig.real";
  auto o = generate_options(c, config::Config{}, true, tools_path());
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_EQ(o->strategies,
            (std::vector<cdi::NameStrategy>{cdi::NameStrategy::kIndex, cdi::NameStrategy::kUuid}));
  EXPECT_EQ(o->device_ids, (std::vector<std::string>{"0", "1", "GPU-x"}));
  EXPECT_EQ(o->hooks.binary, tools_path() + "/nvidia-ctk");
  EXPECT_TRUE(o->hooks.debug);
  EXPECT_EQ(o->hooks.ldconfig_path, "/sbin/ldconfig.real");
  EXPECT_FALSE(cdi::hook_enabled(o->hooks, "update-ldcache"));
  EXPECT_TRUE(cdi::hook_enabled(o->hooks, "chmod"));
}

TEST(CdiGenerateOptions, OnlyModeAutoDetectsWsl) {
  GenerateCommandOptions c;
  EXPECT_TRUE(generate_options(c, config::Config{}, false, tools_path())->detect_wsl);
  for (const char* m : {"nvml", "management", "wsl"}) {
    c.mode = m;
    EXPECT_FALSE(generate_options(c, config::Config{}, false, tools_path())->detect_wsl) << m;
  }
}

TEST(CdiGenerateOptions, BadStrategyAndEnableAllAreErrors) {
  GenerateCommandOptions c;
  c.device_name_strategies = {"bogus"};
  EXPECT_FALSE(generate_options(c, config::Config{}, false, tools_path()));
  GenerateCommandOptions e;
  e.enable_hooks = {"all"};
  EXPECT_FALSE(generate_options(e, config::Config{}, false, tools_path()));
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk

// --feature-flag, --library-search-path and --mode (cdi.md §6.1, config.md §3).
#include <memory>

#include "../generate_fixture.hpp"
#include "nvct/testing/temp_dir.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

TEST(CdiGenerateFlags, FeatureFlagsAndLibrarySearchPathsAreRepeatableLists) {
  CLI::App app;
  GlobalOptions globals;
  CLI::App* g = generate_command(app, globals);
  EXPECT_EQ(g->get_option("--feature-flag")->get_envname(), "NVIDIA_CTK_CDI_FEATURE_FLAGS");
  EXPECT_EQ(g->get_option("--feature-flags")->get_envname(), "NVIDIA_CTK_CDI_FEATURE_FLAGS");
  EXPECT_TRUE(g->get_option("--library-search-path")->get_envname().empty());
  app.parse(
      "cdi generate --driver-root /nonexistent-driver-root --feature-flag a,b --feature-flags c "
      "--library-search-path /x --library-search-path /y,/z",
      false);
  EXPECT_EQ(g->get_option("--feature-flag")->as<std::vector<std::string>>(),
            (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(g->get_option("--library-search-path")->as<std::vector<std::string>>(),
            (std::vector<std::string>{"/x", "/y", "/z"}));
}

TEST(CdiGenerateOptions, FeatureFlagsReachTheGeneratorAndUnknownOnesOnlyWarn) {
  auto sink = std::make_shared<nvct::testing::MemorySink>();
  log::set_sink(sink);
  GenerateCommandOptions c;
  c.feature_flags = {"no-additional-gids-for-device-nodes", "not-a-flag"};
  auto o = generate_options(c, config::Config{}, false, tools_path());
  log::set_sink(nullptr);
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_TRUE(o->features.no_additional_gids_for_device_nodes);
  EXPECT_FALSE(o->features.disable_ipc_discoverer);
  EXPECT_TRUE(sink->contains("Ignoring unknown feature flag not-a-flag"));
}

TEST(CdiGenerateOptions, VendorDefaultDependsOnTheMode) {
  GenerateCommandOptions c;
  EXPECT_EQ(generate_options(c, config::Config{}, false, tools_path())->vendor, "nvidia.com");
  c.mode = "management";
  EXPECT_EQ(generate_options(c, config::Config{}, false, tools_path())->vendor, "management.nvidia.com");
  c.vendor = "example.com";
  EXPECT_EQ(generate_options(c, config::Config{}, false, tools_path())->vendor, "example.com");
  c.mode = "gds";
  c.vendor = "";
  EXPECT_EQ(generate_options(c, config::Config{}, false, tools_path())->vendor, "nvidia.com");
}

TEST(CdiGenerateOptions, EveryReferenceModeIsAccepted) {
  for (const char* m : {"auto", "nvml", "management", "gds", "mofed", "gdrcopy", "nvswitch", "imex",
                        "csv", "wsl"}) {
    GenerateCommandOptions c;
    c.mode = m;
    EXPECT_TRUE(generate_options(c, config::Config{}, false, tools_path())) << m;
  }
  GenerateCommandOptions c;
  c.mode = "bogus";
  auto o = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().message().find("invalid discovery mode \"bogus\""), std::string::npos);
}

TEST(CdiGenerateOptions, DriverRootFallsBackToTheConfigThenSlash) {
  GenerateCommandOptions c;
  config::Config cfg;
  EXPECT_EQ(generate_driver_root(c, cfg), "/");
  cfg.cli.root = "/run/nvidia/driver";
  EXPECT_EQ(generate_driver_root(c, cfg), "/run/nvidia/driver");
  c.driver_root = "/other";
  EXPECT_EQ(generate_driver_root(c, cfg), "/other");
}

TEST(CdiGenerateRender, GdrcopyModeNeedsNoDriverAndNamesItsClass) {
  nvct::testing::TempDir dir;
  dir.write("dev/gdrdrv", "");
  cdi::testing::MapDeviceLookup lookup;
  lookup.nodes[dir.path() + "/dev/gdrdrv"] = cdi::HostDeviceInfo{"c", 508, 0, 0666, 0};
  GenerateCommandOptions c;
  c.mode = "gdrcopy";
  auto g = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_TRUE(g);
  auto out = render_generated(c, *g, nullptr, dir.path(), lookup);
  ASSERT_TRUE(out) << out.error().message();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_NE((*out)[0].text.find("kind: nvidia.com/gdrcopy"), std::string::npos) << (*out)[0].text;
  EXPECT_NE((*out)[0].text.find("path: /dev/gdrdrv"), std::string::npos);
  // --class other than the default names the class
  c.class_name = "copy";
  auto renamed = render_generated(c, *g, nullptr, dir.path(), lookup);
  ASSERT_TRUE(renamed);
  EXPECT_NE((*renamed)[0].text.find("kind: nvidia.com/copy"), std::string::npos);
}

TEST(CdiGenerateFlags, CsvAndConfigSearchPathFlags) {
  CLI::App app;
  GlobalOptions globals;
  CLI::App* g = generate_command(app, globals);
  EXPECT_EQ(g->get_option("--csv.file")->get_default_str(),
            "/etc/nvidia-container-runtime/host-files-for-container.d/devices.csv,"
            "/etc/nvidia-container-runtime/host-files-for-container.d/drivers.csv,"
            "/etc/nvidia-container-runtime/host-files-for-container.d/l4t.csv");
  app.parse(
      "cdi generate --driver-root /nonexistent-driver-root --csv.file /a.csv,/b.csv "
      "--csv.ignore-pattern x* --csv.ignore-pattern y --csv.compat-container-root /compat "
      "--config-search-path /c1 --config-search-path /c2,/c3",
      false);
  EXPECT_EQ(g->get_option("--csv.file")->as<std::vector<std::string>>(),
            (std::vector<std::string>{"/a.csv", "/b.csv"}));
  EXPECT_EQ(g->get_option("--csv.ignore-pattern")->as<std::vector<std::string>>(),
            (std::vector<std::string>{"x*", "y"}));
  EXPECT_EQ(g->get_option("--csv.compat-container-root")->as<std::string>(), "/compat");
  EXPECT_EQ(g->get_option("--config-search-path")->as<std::vector<std::string>>(),
            (std::vector<std::string>{"/c1", "/c2", "/c3"}));
}

TEST(CdiGenerateOptions, DefaultCsvFilesAndConfigSearchPathReachTheGenerator) {
  GenerateCommandOptions c;
  EXPECT_EQ(c.csv_files, cdi::kDefaultCsvFiles);
  c.config_search_paths = {"/opt/share"};
  auto o = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_TRUE(o);
  EXPECT_EQ(o->config_search_paths, (std::vector<std::string>{"/opt/share"}));
}

TEST(CdiGenerateRender, CsvModeUsesTheCsvFlags) {
  nvct::testing::TempDir dir;
  dir.write("dev/nvmap", "");
  dir.write("dev/nvhost-ctrl", "");
  dir.write("usr/lib/tegra/libcuda.so.1.1", "elf");
  dir.write("f.csv",
            "dev, /dev/nvmap\ndev, /dev/nvhost-ctrl\nlib, /usr/lib/tegra/libcuda.so.1.1\n");
  cdi::testing::MapDeviceLookup lookup;
  lookup.nodes[dir.path() + "/dev/nvmap"] = cdi::HostDeviceInfo{"c", 10, 3, 0666, 0};
  lookup.nodes[dir.path() + "/dev/nvhost-ctrl"] = cdi::HostDeviceInfo{"c", 10, 1, 0666, 0};
  GenerateCommandOptions c;
  c.mode = "csv";
  c.csv_files = {dir.path() + "/f.csv"};
  c.csv_ignore_patterns = {"nvhost-*"};
  c.csv_compat_container_root = "/compat";
  auto g = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_TRUE(g);
  auto out = render_generated(c, *g, nullptr, dir.path(), lookup);
  ASSERT_TRUE(out) << out.error().message();
  const std::string& text = (*out)[0].text;
  EXPECT_NE(text.find("kind: nvidia.com/gpu"), std::string::npos) << text;
  EXPECT_NE(text.find("name: all"), std::string::npos);
  EXPECT_NE(text.find("path: /dev/nvmap"), std::string::npos);
  EXPECT_EQ(text.find("nvhost-ctrl"), std::string::npos);
  EXPECT_NE(text.find("containerPath: /usr/lib/tegra/libcuda.so.1.1"), std::string::npos);
  EXPECT_NE(text.find("--cuda-compat-container-root=/compat"), std::string::npos);
}

TEST(CdiGenerateRender, ModeWithoutItsDevicesFailsValidation) {
  nvct::testing::TempDir dir;
  cdi::testing::MapDeviceLookup lookup;
  GenerateCommandOptions c;
  c.mode = "mofed";
  auto g = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_TRUE(g);
  auto out = render_generated(c, *g, nullptr, dir.path(), lookup);
  ASSERT_FALSE(out);
  EXPECT_NE(out.error().message().find("generated spec is invalid"), std::string::npos);
}

TEST(CdiGenerateRender, NvmlModeWithoutDriverIsAnError) {
  cdi::testing::MapDeviceLookup lookup;
  GenerateCommandOptions c;
  auto g = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_TRUE(g);
  EXPECT_FALSE(render_generated(c, *g, nullptr, "/", lookup));
}

TEST(CdiGenerateRender, CoherentAnnotationsAddTheNoncoherentSpecFile) {
  cdi::testing::MapDeviceLookup lookup;
  auto info = cdi::testing::golden_info("/driver-root");
  GenerateCommandOptions c;
  c.output = "/etc/cdi/nvidia.yaml";
  c.feature_flags = {"enable-coherent-annotations"};
  auto g = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_TRUE(g);
  auto out = render_generated(c, *g, &info, "/driver-root", lookup);
  ASSERT_TRUE(out) << out.error().message();
  ASSERT_EQ(out->size(), 2u);
  EXPECT_EQ((*out)[0].path, "/etc/cdi/nvidia.yaml");
  EXPECT_NE((*out)[0].text.find("kind: nvidia.com/gpu\n"), std::string::npos);
  EXPECT_EQ((*out)[1].path, "/etc/cdi/nvidia.noncoherent.yaml");
  EXPECT_NE((*out)[1].text.find("kind: nvidia.com/gpu.noncoherent"), std::string::npos);
  EXPECT_NE((*out)[1].text.find("cdiVersion: 0.6.0"), std::string::npos);
  // without the flag: one file
  GenerateCommandOptions plain;
  plain.output = c.output;
  auto one = render_generated(plain, *generate_options(plain, config::Config{}, false, tools_path()), &info,
                              "/driver-root", lookup);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->size(), 1u);
}

TEST(CdiGenerateRender, ManagementModeHasOnlyTheAllDevice) {
  nvct::testing::TempDir dir;
  dir.write("dev/nvidia0", "");
  cdi::testing::MapDeviceLookup lookup;
  lookup.nodes[dir.path() + "/dev/nvidia0"] = cdi::HostDeviceInfo{"c", 195, 0, 0666, 0};
  auto info = cdi::testing::golden_info(dir.path());
  GenerateCommandOptions c;
  c.mode = "management";
  auto g = generate_options(c, config::Config{}, false, tools_path());
  ASSERT_TRUE(g);
  auto out = render_generated(c, *g, &info, dir.path(), lookup);
  ASSERT_TRUE(out) << out.error().message();
  EXPECT_NE((*out)[0].text.find("kind: management.nvidia.com/gpu"), std::string::npos);
  EXPECT_NE((*out)[0].text.find("- name: all"), std::string::npos);
  EXPECT_EQ((*out)[0].text.find("- name: \"0\""), std::string::npos);
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
