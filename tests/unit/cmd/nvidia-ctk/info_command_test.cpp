#include "info_command.hpp"

#include <gtest/gtest.h>

#include "../../diagnose/mock_host.hpp"
#include "nvct/base/version_info.hpp"

namespace nvct::cmd::nvidia_ctk {
namespace {

TEST(InfoCommand, VersionThenHostFacts) {
  diagnose::testing::MockHost host(1);
  auto text = info_text(host.options());
  ASSERT_TRUE(text.has_value()) << text.error().message();
  EXPECT_EQ(text->rfind(version_text() + "\n", 0), 0u) << *text;
  EXPECT_NE(text->find("Config file: /etc/nvidia-container-runtime/config.toml (loaded)\n"),
            std::string::npos);
  EXPECT_NE(text->find("Mode: auto\n"), std::string::npos);
  EXPECT_NE(text->find("Driver root: /\n"), std::string::npos);
  EXPECT_NE(text->find("Driver version: 550.54.14\n"), std::string::npos);
  EXPECT_NE(text->find("GPUs: 1\n  /dev/nvidia0: NVIDIA H100"), std::string::npos);
}

TEST(InfoCommand, ConfigGivenAsAPath) {
  diagnose::testing::MockHost host;
  diagnose::Options options = host.options();
  options.config = host.host_path("/absent.toml");
  auto text = info_text(options);
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(
      text->find("Config file: " + host.host_path("/absent.toml") + " (absent: built-in defaults)"),
      std::string::npos);
}

}  // namespace
}  // namespace nvct::cmd::nvidia_ctk
