#include "nvct/diagnose/host_summary.hpp"

#include <gtest/gtest.h>

#include "mock_host.hpp"

namespace nvct::diagnose {
namespace {

using testing::MockHost;

TEST(HostSummary, ConfigModeDriverAndGpus) {
  MockHost mock(2);
  mock.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-runtime]\nmode = \"cdi\"\n");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(render_host_summary(summarize_host(*host)),
            "Config file: /etc/nvidia-container-runtime/config.toml (loaded)\n"
            "Mode: cdi\n"
            "Driver root: /\n"
            "Driver version: 550.54.14\n"
            "GPUs: 2\n"
            "  /dev/nvidia0: NVIDIA H100 GPU-00000000-1111-2222-3333-444444444444 "
            "00000000:01:00.0\n"
            "  /dev/nvidia1: NVIDIA H100 GPU-00000001-1111-2222-3333-444444444444 "
            "00000000:02:00.0\n");
}

TEST(HostSummary, NoDriverNoConfig) {
  MockHost mock;
  mock.remove("/proc/driver");
  mock.remove("/etc/nvidia-container-runtime");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  HostSummary s = summarize_host(*host);
  EXPECT_EQ(s.config_state, "absent: built-in defaults");
  EXPECT_EQ(s.mode, "auto");
  EXPECT_TRUE(s.gpus.empty());
  EXPECT_NE(render_host_summary(s).find("Driver version: none (NVIDIA kernel module not loaded)"),
            std::string::npos);
}

TEST(HostSummary, ConfiguredDriverRoot) {
  MockHost mock;
  mock.file("/etc/nvidia-container-runtime/config.toml",
            "[nvidia-container-cli]\nroot = \"/run/nvidia/driver\"\n");
  auto host = Host::open(mock.options());
  ASSERT_TRUE(host.has_value());
  EXPECT_EQ(summarize_host(*host).driver_root, "/run/nvidia/driver");
}

}  // namespace
}  // namespace nvct::diagnose
