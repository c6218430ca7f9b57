// One test per finding id of the config family (spec/doctor.md §3.3) on a mock host tree.
#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::evidence_has;
using testing::find;
using testing::problem_ids;
using Ids = std::vector<std::string>;

constexpr const char* kConfig = "/etc/nvidia-container-runtime/config.toml";

class ConfigCheck : public testing::ReadOnlyTest {
 protected:
  void SetUp() override {
    ReadOnlyTest::SetUp();
    host.options().only = {"config"};
  }
  Report with_config(std::string_view text) {
    host.file(kConfig, text);
    return run();
  }
};

TEST_F(ConfigCheck, OkOnAHealthyHost) {
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  ASSERT_NE(find(r, "config.ok"), nullptr);
  EXPECT_EQ(find(r, "config.ok")->title, "/etc/nvidia-container-runtime/config.toml valid");
}

TEST_F(ConfigCheck, Missing) {
  host.remove(kConfig);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
  const Finding* f = find(r, "config.missing");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_TRUE(evidence_has(*f, "config.toml: absent"));
  EXPECT_EQ(f->fix, "nvidia-ctk config default -o /etc/nvidia-container-runtime/config.toml");
  EXPECT_NE(find(r, "config.ok"), nullptr);
}

TEST_F(ConfigCheck, ParseError) {
  auto r = with_config("[nvidia-container-runtime\nmode = \"cdi\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.parse-error"});
  const Finding* f = find(r, "config.parse-error");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "line 1"));
  EXPECT_NE(f->fix.find("edit"), std::string::npos);
}

TEST_F(ConfigCheck, UnknownKeyWithSuggestion) {
  auto r = with_config("[nvidia-container-runtime]\nmdoe = \"cdi\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.unknown-key"});
  const Finding* f = find(r, "config.unknown-key");
  EXPECT_EQ(f->severity, Severity::kWarn);
  EXPECT_EQ(f->title, "unknown key \"mdoe\" in [nvidia-container-runtime]; did you mean \"mode\"?");
  EXPECT_TRUE(evidence_has(*f, "nvidia-container-runtime.mdoe is not a config key"));
  EXPECT_EQ(f->fix, "did you mean nvidia-container-runtime.mode?");
}

TEST_F(ConfigCheck, UnknownKeySameLeafUnderAnotherTable) {
  auto r = with_config("root = \"/run/nvidia/driver\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.unknown-key"});
  EXPECT_EQ(find(r, "config.unknown-key")->fix, "did you mean nvidia-container-cli.root?");
  EXPECT_EQ(find(r, "config.unknown-key")->title,
            "unknown key \"root\" at the top level; did you mean \"nvidia-container-cli.root\"?");
}

TEST_F(ConfigCheck, BadEnumValue) {
  auto r = with_config("[nvidia-container-runtime]\nmode = \"legcy\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.bad-value"});
  const Finding* f = find(r, "config.bad-value");
  EXPECT_EQ(f->severity, Severity::kError);
  EXPECT_TRUE(evidence_has(*f, "\"legcy\""));
  EXPECT_TRUE(evidence_has(*f, "\"jit-cdi\""));
  EXPECT_EQ(find(r, "config.mode"), nullptr);
  EXPECT_EQ(f->fix, "nvidia-ctk config --set nvidia-container-runtime.mode=VALUE --in-place");
}

TEST_F(ConfigCheck, BadLogLevel) {
  auto r = with_config("[nvidia-container-runtime]\nlog-level = \"loud\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.bad-value"});
  EXPECT_TRUE(evidence_has(*find(r, "config.bad-value"), "log-level = \"loud\""));
}

TEST_F(ConfigCheck, BadType) {
  auto r = with_config("[nvidia-container-cli]\nno-cgroups = \"yes\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.bad-value"});
  EXPECT_TRUE(evidence_has(*find(r, "config.bad-value"), "no-cgroups"));
}

TEST_F(ConfigCheck, PathMissing) {
  auto r = with_config(
      "[nvidia-container-cli]\nroot = \"/run/nvidia/driver\"\n"
      "[nvidia-container-runtime]\ndebug = \"/var/log/nvidia/runtime.log\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.path-missing"});
  const Finding* f = find(r, "config.path-missing");
  EXPECT_TRUE(evidence_has(*f, "nvidia-container-cli.root = \"/run/nvidia/driver\": absent"));
  EXPECT_TRUE(evidence_has(*f, "folder /var/log/nvidia absent"));
}

TEST_F(ConfigCheck, PathsThatExistAndBareNamesAreFine) {
  host.file("/usr/bin/nvidia-ctk", "", 0755);
  auto r = with_config(
      "[nvidia-ctk]\npath = \"/usr/bin/nvidia-ctk\"\n"
      "[nvidia-container-runtime-hook]\npath = \"nvidia-container-runtime-hook\"\n");
  EXPECT_EQ(problem_ids(r), Ids{});
}

TEST_F(ConfigCheck, LdconfigMissingOnTheHost) {
  host.remove("/sbin/ldconfig");
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"config.ldconfig"});
  const Finding* f = find(r, "config.ldconfig");
  EXPECT_TRUE(evidence_has(*f, "/sbin/ldconfig: absent"));
  EXPECT_NE(f->fix.find("install the host's ldconfig"), std::string::npos);
}

TEST_F(ConfigCheck, LdconfigConfiguredElsewhereSuggestsTheHostOne) {
  auto r = with_config("[nvidia-container-cli]\nldconfig = \"@/opt/bin/ldconfig\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.ldconfig"});
  EXPECT_EQ(find(r, "config.ldconfig")->fix,
            "nvidia-ctk config --set nvidia-container-cli.ldconfig=@/sbin/ldconfig --in-place");
}

TEST_F(ConfigCheck, LdconfigRealIsUsedWhenItExists) {
  host.remove("/sbin/ldconfig");
  host.file("/sbin/ldconfig.real", "", 0755);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{});
}

TEST_F(ConfigCheck, LdconfigFromTheContainer) {
  auto r = with_config("[nvidia-container-cli]\nldconfig = \"/sbin/ldconfig\"\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.ldconfig"});
  EXPECT_TRUE(evidence_has(*find(r, "config.ldconfig"), "nvidia-container-cli.ldconfig"));
}

TEST_F(ConfigCheck, ModeAutoResolvesToJitCdi) {
  auto r = run();
  const Finding* f = find(r, "config.mode");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::kInfo);
  EXPECT_EQ(f->title, "mode auto: jit-cdi on this host, cdi for requests made only of CDI names");
  EXPECT_TRUE(evidence_has(*f, "NVIDIA_REQUIRE_* are not evaluated"));
}

TEST_F(ConfigCheck, ModeLegacy) {
  auto r = with_config("[nvidia-container-runtime]\nmode = \"legacy\"\n");
  EXPECT_EQ(find(r, "config.mode")->title, "mode legacy");
}

TEST_F(ConfigCheck, EnvOverrideNamesOnlyTheVariable) {
  host.file("/run/docker.pid", "4242\n");
  host.file("/proc/4242/environ",
            std::string("PATH=/usr/bin\0XDG_CONFIG_HOME=/secret/value\0", 44));
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"config.env-override"});
  const Finding* f = find(r, "config.env-override");
  EXPECT_TRUE(evidence_has(*f, "/proc/4242/environ (dockerd): sets XDG_CONFIG_HOME"));
  EXPECT_FALSE(evidence_has(*f, "/secret/value"));
  EXPECT_NE(f->fix.find("config.toml"), std::string::npos);
}

TEST_F(ConfigCheck, DeepTableIsAFindingWithAShortTitle) {
  std::string header = "[a";
  for (int i = 0; i < 120; ++i) header += ".a";
  auto r = with_config(header + "]\nx = 1\n");
  ASSERT_EQ(problem_ids(r), Ids{"config.unknown-key"});
  EXPECT_LT(find(r, "config.unknown-key")->title.size(), 200u);
}

// Past 128 levels a [table] header is refused before toml++ sees it (its parser recursed over
// 200 000 levels until the stack overflowed).
TEST_F(ConfigCheck, HostileDeepTableIsAParseError) {
  std::string header = "[a";
  for (int i = 0; i < 2000; ++i) header += ".a";
  auto r = with_config(header + "]\nx = 1\n");
  ASSERT_EQ(problem_ids(r), Ids{"config.parse-error"});
  EXPECT_TRUE(evidence_has(*find(r, "config.parse-error"), "nested deeper than 128 levels"));
}

TEST_F(ConfigCheck, HostileDeepArrayIsAParseError) {
  auto r = with_config("x = " + std::string(10000, '[') + std::string(10000, ']') + "\n");
  EXPECT_EQ(problem_ids(r), Ids{"config.parse-error"});
}

TEST_F(ConfigCheck, SymlinkLoopIsAReadError) {
  host.remove(kConfig);
  host.symlink("config.toml", kConfig);
  auto r = run();
  EXPECT_EQ(problem_ids(r), Ids{"config.parse-error"});
  EXPECT_TRUE(evidence_has(*find(r, "config.parse-error"), "config.toml:"));
}

}  // namespace
}  // namespace nvct::diagnose
