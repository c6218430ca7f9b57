// `nvidia-ctk cdi generate` flags (cdi.md §6.1): names, aliases, env vars, defaults, the output
// format rule and the mapping onto the generator options.
#include <gtest/gtest.h>

#include "cdi_command.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

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
  c.hook_path = "/opt/nvidia-ctk";
  c.disable_hooks = {"update-ldcache"};
  c.enable_hooks = {"chmod"};
  c.ldconfig_path = "/sbin/ldconfig.real";
  auto o = generate_options(c, config::Config{}, true, "");
  ASSERT_TRUE(o) << o.error().message();
  EXPECT_EQ(o->strategies,
            (std::vector<cdi::NameStrategy>{cdi::NameStrategy::kIndex, cdi::NameStrategy::kUuid}));
  EXPECT_EQ(o->device_ids, (std::vector<std::string>{"0", "1", "GPU-x"}));
  EXPECT_EQ(o->hooks.binary, "/opt/nvidia-ctk");
  EXPECT_TRUE(o->hooks.debug);
  EXPECT_EQ(o->hooks.ldconfig_path, "/sbin/ldconfig.real");
  EXPECT_FALSE(cdi::hook_enabled(o->hooks, "update-ldcache"));
  EXPECT_TRUE(cdi::hook_enabled(o->hooks, "chmod"));
}

TEST(CdiGenerateOptions, UnsupportedDiscoveryModeIsAClearError) {
  GenerateCommandOptions c;
  c.mode = "wsl";
  auto o = generate_options(c, config::Config{}, false, "");
  ASSERT_FALSE(o);
  EXPECT_NE(o.error().message().find("\"wsl\" is not supported"), std::string::npos);
}

TEST(CdiGenerateOptions, BadStrategyAndEnableAllAreErrors) {
  GenerateCommandOptions c;
  c.device_name_strategies = {"bogus"};
  EXPECT_FALSE(generate_options(c, config::Config{}, false, ""));
  GenerateCommandOptions e;
  e.enable_hooks = {"all"};
  EXPECT_FALSE(generate_options(e, config::Config{}, false, ""));
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
