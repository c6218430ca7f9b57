#include "global_options.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include "nvct/base/log.hpp"
#include "nvct/base/version_info.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

struct Parsed {
  GlobalOptions options;
  log::Level level;
};

Parsed parse(const std::string& args) {
  CLI::App app("test", "nvidia-ctk");
  Parsed parsed;
  add_global_options(app, parsed.options);
  app.parse(args, false);
  parsed.level = log::level();
  log::set_sink(nullptr);
  return parsed;
}

TEST(GlobalOptions, VersionUsesReferenceLayout) {
  EXPECT_EQ(version_text(), std::string("NVIDIA Container Toolkit CLI version ") + kVersion +
                                "\ncommit: " + kGitCommit);
}

TEST(GlobalOptions, VersionFlagPrintsVersion) {
  for (const char* flag : {"-v", "--version"}) {
    CLI::App app("test", "nvidia-ctk");
    GlobalOptions options;
    add_global_options(app, options);
    try {
      app.parse(flag, false);
      ADD_FAILURE() << flag << " did not ask for the version";
    } catch (const CLI::CallForVersion& e) {
      EXPECT_EQ(std::string(e.what()), version_text());
      EXPECT_EQ(e.get_exit_code(), 0);
    }
  }
}

TEST(GlobalOptions, DefaultLevelIsInfo) { EXPECT_EQ(parse("").level, log::Level::kInfo); }

TEST(GlobalOptions, DebugFlagsEnableDebug) {
  EXPECT_EQ(parse("-d").level, log::Level::kDebug);
  EXPECT_EQ(parse("--debug").level, log::Level::kDebug);
}

TEST(GlobalOptions, QuietOverridesDebug) {
  EXPECT_EQ(parse("--debug --quiet").level, log::Level::kError);
}

TEST(GlobalOptions, EnvironmentSetsDebugQuietAndConfig) {
  ::setenv("NVIDIA_CTK_DEBUG", "true", 1);
  ::setenv("NVIDIA_CTK_CONFIG", "/env/config.toml", 1);
  Parsed p = parse("");
  ::unsetenv("NVIDIA_CTK_DEBUG");
  ::unsetenv("NVIDIA_CTK_CONFIG");
  EXPECT_TRUE(p.options.debug);
  EXPECT_EQ(p.level, log::Level::kDebug);
  EXPECT_EQ(p.options.config_path, "/env/config.toml");

  ::setenv("NVIDIA_CTK_QUIET", "1", 1);
  p = parse("");
  ::unsetenv("NVIDIA_CTK_QUIET");
  EXPECT_EQ(p.level, log::Level::kError);
}

TEST(GlobalOptions, ConfigFlagIsTheEffectivePath) {
  EXPECT_EQ(parse("--config /x/config.toml").options.effective_config_path(), "/x/config.toml");
}

TEST(GlobalOptions, NoConfigFlagFallsBackToSearchPath) {
  ::setenv("NVIDIA_CTK_CONFIG_FILE_PATH", "/search/config.toml", 1);
  std::string path = parse("").options.effective_config_path();
  ::unsetenv("NVIDIA_CTK_CONFIG_FILE_PATH");
  EXPECT_EQ(path, "/search/config.toml");
}

TEST(GlobalOptions, ReportSetsExitCodeOnlyOnError) {
  GlobalOptions options;
  options.report(ok());
  EXPECT_EQ(options.exit_code, 0);
  options.report(fail(EINVAL, "boom"));
  EXPECT_EQ(options.exit_code, 1);
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
