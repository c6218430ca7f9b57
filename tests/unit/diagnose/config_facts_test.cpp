#include "nvct/diagnose/config_facts.hpp"

#include <gtest/gtest.h>

#include "mock_host.hpp"
#include "nvct/diagnose/host.hpp"

namespace nvct::diagnose {
namespace {

using testing::MockHost;

ConfigFacts facts_for(MockHost& mock, std::string_view text) {
  mock.file("/etc/nvidia-container-runtime/config.toml", text);
  auto host = Host::open(mock.options());
  EXPECT_TRUE(host.has_value());
  return host->config();
}

TEST(ConfigFacts, ValidFileLoads) {
  MockHost mock;
  auto facts = facts_for(mock, "[nvidia-container-cli]\nno-cgroups = true\n");
  EXPECT_TRUE(facts.present);
  EXPECT_TRUE(facts.loaded);
  EXPECT_TRUE(facts.config.cli.no_cgroups);
  EXPECT_EQ(facts.path, "/etc/nvidia-container-runtime/config.toml");
}

TEST(ConfigFacts, AbsentFileGivesDefaults) {
  MockHost mock;
  mock.remove("/etc/nvidia-container-runtime/config.toml");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  EXPECT_FALSE(host->config().present);
  EXPECT_EQ(host->config().config.runtime.mode, "auto");
}

TEST(ConfigFacts, ParseErrorHasLineAndColumn) {
  MockHost mock;
  auto facts = facts_for(mock, "[nvidia-container-runtime]\nmode = \n");
  EXPECT_NE(facts.parse_error.find("line 2"), std::string::npos) << facts.parse_error;
  EXPECT_FALSE(facts.loaded);
}

TEST(ConfigFacts, UnknownKeysAndRawLogLevel) {
  MockHost mock;
  auto facts =
      facts_for(mock, "[nvidia-container-runtime]\nmdoe = \"cdi\"\nlog-level = \"loud\"\n");
  ASSERT_EQ(facts.unknown_keys.size(), 1u);
  EXPECT_EQ(facts.unknown_keys[0].key, "nvidia-container-runtime.mdoe");
  EXPECT_EQ(facts.raw_log_level, "loud");
}

TEST(ConfigFacts, WrongTypeIsAValueError) {
  MockHost mock;
  auto facts = facts_for(mock, "[nvidia-container-cli]\nno-cgroups = \"yes\"\n");
  EXPECT_NE(facts.value_error.find("no-cgroups"), std::string::npos) << facts.value_error;
  EXPECT_FALSE(facts.loaded);
}

}  // namespace
}  // namespace nvct::diagnose
