#include "hook_args.hpp"

#include <gtest/gtest.h>

#include "nvct/base/version_info.hpp"

namespace nvct::hook {
namespace {

ParseResult parse(std::vector<std::string> argv) { return parse_hook_args(argv); }

TEST(HookArgs, PrestartWithConfigAsSeparateValue) {
  auto r = parse({"-config", "/etc/x.toml", "prestart"});
  ASSERT_TRUE(r.args);
  EXPECT_EQ(r.args->config_path, "/etc/x.toml");
  EXPECT_EQ(r.args->command, Command::kPrestart);
  EXPECT_FALSE(r.args->debug);
}

TEST(HookArgs, GoFlagSpellingsAreAccepted) {
  auto r = parse({"--config=/c.toml", "--debug", "poststart"});
  ASSERT_TRUE(r.args);
  EXPECT_EQ(r.args->config_path, "/c.toml");
  EXPECT_TRUE(r.args->debug);
  EXPECT_EQ(r.args->command, Command::kPoststart);
  r = parse({"-debug=false", "poststop"});
  ASSERT_TRUE(r.args);
  EXPECT_FALSE(r.args->debug);
  EXPECT_EQ(r.args->command, Command::kPoststop);
}

TEST(HookArgs, NoConfigFlagMeansNoPath) {
  auto r = parse({"prestart"});
  ASSERT_TRUE(r.args);
  EXPECT_FALSE(r.args->config_path);
}

TEST(HookArgs, NoCommandIsAUsageError) {
  auto r = parse({});
  EXPECT_FALSE(r.args);
  EXPECT_EQ(r.error.message, "");
  r = parse({"-debug"});
  EXPECT_FALSE(r.args);
}

TEST(HookArgs, UnknownCommandIsAUsageError) {
  auto r = parse({"create"});
  EXPECT_FALSE(r.args);
  EXPECT_EQ(r.error.message, "unknown command \"create\"");
}

TEST(HookArgs, UnknownFlagIsAUsageErrorNamingIt) {
  auto r = parse({"-bogus", "prestart"});
  EXPECT_FALSE(r.args);
  EXPECT_EQ(r.error.message, "flag provided but not defined: -bogus");
}

TEST(HookArgs, ConfigWithoutValueIsAUsageError) {
  auto r = parse({"-config"});
  EXPECT_FALSE(r.args);
  EXPECT_EQ(r.error.message, "flag needs an argument: -config");
}

TEST(HookArgs, BadBooleanValueIsAUsageError) {
  auto r = parse({"-debug=maybe", "prestart"});
  EXPECT_FALSE(r.args);
  EXPECT_NE(r.error.message.find("invalid boolean value"), std::string::npos);
}

TEST(HookArgs, FlagsStopAtTheCommand) {
  // Go's flag package stops at the first non-flag: "-debug" after the command is an argument.
  auto r = parse({"prestart", "-debug"});
  ASSERT_TRUE(r.args);
  EXPECT_FALSE(r.args->debug);
  EXPECT_EQ(r.args->command, Command::kPrestart);
}

TEST(HookArgs, DoubleDashEndsFlags) {
  auto r = parse({"--", "prestart"});
  ASSERT_TRUE(r.args);
  EXPECT_EQ(r.args->command, Command::kPrestart);
}

TEST(HookArgs, VersionNeedsNoCommand) {
  auto r = parse({"-version"});
  ASSERT_TRUE(r.args);
  EXPECT_TRUE(r.args->version);
  EXPECT_FALSE(r.args->command);
}

TEST(HookArgs, HelpNeedsNoCommand) {
  auto r = parse({"-h"});
  ASSERT_TRUE(r.args);
  EXPECT_TRUE(r.args->help);
}

TEST(HookArgs, VersionTextHasTheReferenceLayout) {
  EXPECT_EQ(version_text(), std::string("NVIDIA Container Runtime Hook version ") + kVersion +
                                "\ncommit: " + kGitCommit + "\n");
}

TEST(HookArgs, UsageNamesEveryFlagAndCommand) {
  auto text = usage_text("nvidia-container-runtime-hook");
  for (const char* word : {"Usage of nvidia-container-runtime-hook:", "-config", "-debug",
                           "-version", "prestart", "poststart", "poststop"}) {
    EXPECT_NE(text.find(word), std::string::npos) << word;
  }
}

}  // namespace
}  // namespace nvct::hook
